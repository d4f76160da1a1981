// SPDX-License-Identifier: GPL-3.0-or-later
//! Regression alerts: how well the default rule separates steps from noise, and how fast the
//! pipeline is.
//!
//! 1. The corpus: 400 synthetic series like seed 003's netperf (per-commit noise of 1–5 % of
//!    the level, normal), 200 with one step of 5–15 % (up or down) after 30–60 commits and
//!    200 A/A series without one. Commits arrive one at a time, as a robot uploads them, and
//!    the detector's functions (`newest_step`, `is_known`) run after each, until 30 commits
//!    after the step. An alert is true when its first bad commit is within 3 of the step.
//! 2. From an upload's 201 to its alert in `GET /api/v1/alerts`, on a 10,000-commit series.
//! 3. A burst of 100 uploads: upload latency with the detector running against a server
//!    started with `--no-alerts`, alternating, in one run.
//! 4. `GET /api/v1/alerts` over 10,000 summaries.
//!
//! `cargo bench -p perfline-server --bench alerts`.

mod common;

use std::time::{Duration, Instant};

use app::alerts::{Alert, CommitRef};
use perfline_server::services::alerts::detect::{is_known, newest_step, Settings, Step};
use perfline_server::store::{NewAlert, Store};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn sha(i: usize) -> String {
    format!(
        "{:016x}{:024x}",
        (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        i
    )
}

fn normal(rng: &mut StdRng) -> f64 {
    let u1: f64 = rng.random::<f64>().max(1e-12);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Feeds `x` one commit at a time through the detector's functions; the alerts' indices.
fn alerts_of(x: &[f64], settings: &Settings) -> Vec<usize> {
    steps_of(x, settings)
        .into_iter()
        .map(|(s, _)| s.index)
        .collect()
}

/// The steps `alerts_of` alerts on, each with the number of commits there were then.
fn steps_of(x: &[f64], settings: &Settings) -> Vec<(Step, usize)> {
    let mut known: Vec<usize> = Vec::new();
    let mut steps = Vec::new();
    for n in 1..=x.len() {
        let since = known.iter().max().copied();
        if let Some(step) = newest_step(&x[..n], settings, since) {
            if !is_known(step.index, &known, settings) {
                known.push(step.index);
                steps.push((step, n));
            }
        }
    }
    steps
}

/// One series of the corpus: its per-commit means, and the true level of every commit.
struct Series {
    x: Vec<f64>,
    level: Vec<f64>,
    noise: f64,
    /// The first commit at the new level, for a series with a step.
    step: Option<usize>,
    band: usize,
}

const BANDS: [(f64, f64); 4] = [(0.01, 0.02), (0.02, 0.03), (0.03, 0.04), (0.04, 0.05)];

/// `count` series like the corpus': half with a step of 5–15 % after 30–60 commits, half A/A;
/// 30 commits after the step (or as many in all).
fn series(rng: &mut StdRng, count: usize) -> Vec<Series> {
    let after = 30;
    (0..count)
        .map(|k| {
            let band = k % BANDS.len();
            let noise = rng.random_range(BANDS[band].0..BANDS[band].1);
            let before = rng.random_range(30..=60);
            let step = k < count / 2;
            let size = rng.random_range(0.05..0.15) * if rng.random::<bool>() { 1.0 } else { -1.0 };
            let level: Vec<f64> = (0..before + after)
                .map(|i| {
                    if step && i >= before {
                        1000.0 * (1.0 + size)
                    } else {
                        1000.0
                    }
                })
                .collect();
            let x = level
                .iter()
                .map(|l| l * (1.0 + noise * normal(rng)))
                .collect();
            Series {
                x,
                level,
                noise,
                step: step.then_some(before),
                band,
            }
        })
        .collect()
}

/// Confirmation: every alert of a corpus of `count` series is followed by reruns of its last
/// good and first bad commit, drawn from their true levels with the series' noise, and judged
/// by the server's own `confirm::judge` (more runs while unsure, up to the cap). What reaches
/// mail without confirmation (every alert) and with it (confirmed, or announced at the cap).
fn confirm_corpus(count: usize) {
    use perfline_server::services::alerts::confirm::{judge, Extend, Judged, EARLIER};
    use perfline_server::services::alerts::detector::first_batch;
    use perfline_server::store::{Awaiting, AwaitingAlert, RerunMean, StoredRequest};
    let settings = Settings::default();
    let mut rng = StdRng::seed_from_u64(20261204);
    let started = Instant::now();
    let corpus = series(&mut rng, count);
    // Per band: [step series, step series mailed a true alert without / with confirmation,
    // false alerts mailed without / with, reruns].
    let mut rows = vec![[0usize; 6]; BANDS.len()];
    let (mut alerts, mut unconfirmed_true) = (0usize, 0usize);
    let request = |id: i64, side: &str, runs: u32| StoredRequest {
        request: app::alerts::WorkRequest {
            id,
            kind: app::alerts::WorkKind::Confirm,
            alert: Some(1),
            bisection: None,
            benchmark: "netperf".into(),
            machine: "m".into(),
            metric: "Throughput".into(),
            param: String::new(),
            commit: sha(id as usize),
            kernel: String::new(),
            runs,
            received: runs,
            reason: String::new(),
            created_at: String::new(),
            lease: Default::default(),
        },
        side: side.into(),
        after_run: 0,
        state: "pending".into(),
    };
    for s in &corpus {
        let row = &mut rows[s.band];
        row[0] += usize::from(s.step.is_some());
        let (mut hit_plain, mut hit_confirmed) = (false, false);
        for (step, n) in steps_of(&s.x, &settings) {
            alerts += 1;
            let truth = s.step.is_some_and(|b| b.abs_diff(step.index) <= 3);
            // The run spread the detector would know: the scatter of the commits so far.
            let run_sd = perfline_server::domain::noise::sequence_sd(&s.x[..n]);
            let awaiting = Awaiting {
                id: 1,
                benchmark: "netperf".into(),
                machine: "m".into(),
                confirm_by: i64::MAX,
                requests: Vec::new(),
                alerts: vec![AwaitingAlert {
                    metric: "Throughput".into(),
                    param: String::new(),
                    before: step.before,
                    after: step.after,
                    run_sd,
                    points_before: step.points_before as u32,
                    points_after: step.points_after as u32,
                }],
            };
            let rerun = |rng: &mut StdRng, at: usize| RerunMean {
                run_id: 0,
                metric: "Throughput".into(),
                param: String::new(),
                mean: s.level[at] * (1.0 + s.noise * normal(rng)),
            };
            // The requests as the server keeps them: side, commit index, runs wanted, reruns.
            let batch = first_batch(&step, run_sd);
            let mut asked: Vec<(&str, usize, u32, Vec<RerunMean>)> = vec![
                ("good", step.index - 1, batch, Vec::new()),
                ("bad", step.index, batch, Vec::new()),
            ];
            // The range the mail names in the end: the step's two commits, or the wider one
            // reruns at a further commit showed the step in.
            let mut range = (step.index - 1, step.index);
            let mailed = loop {
                for (_, at, want, runs) in &mut asked {
                    while runs.len() < *want as usize {
                        runs.push(rerun(&mut rng, *at));
                    }
                }
                let reruns: Vec<(StoredRequest, Vec<RerunMean>)> = asked
                    .iter()
                    .enumerate()
                    .map(|(i, (side, _, want, runs))| {
                        (request(i as i64, side, *want), runs.clone())
                    })
                    .collect();
                match judge(&awaiting, &reruns) {
                    Judged::Settled(status, text) => {
                        if text.contains("lies between") {
                            let further = asked[2].1;
                            range = if further > step.index {
                                (step.index, further)
                            } else {
                                (further, step.index - 1)
                            };
                        }
                        break status != app::alerts::AlertStatus::Unconfirmed;
                    }
                    Judged::Waiting(p) => {
                        for (id, _, want) in p {
                            asked[id as usize].2 = want;
                        }
                    }
                    // The newest commit then, or one EARLIER before the last good.
                    Judged::Extend(side, runs) => {
                        let at = match side {
                            Extend::Later => n - 1,
                            Extend::Earlier => (step.index - 1).saturating_sub(EARLIER),
                        };
                        asked.push((side.side(), at, runs, Vec::new()));
                    }
                }
            };
            let reruns_total: usize = asked.iter().map(|a| a.3.len()).sum();
            row[5] += reruns_total;
            // Mailed about a step that is there: within 3 commits of the range named.
            let true_mail = s.step.is_some_and(|b| b + 3 > range.0 && b <= range.1 + 3);
            if truth {
                hit_plain = true;
                hit_confirmed |= mailed;
                unconfirmed_true += usize::from(!mailed);
            } else {
                row[3] += 1;
                row[4] += usize::from(mailed && !true_mail);
            }
        }
        row[1] += usize::from(hit_plain);
        row[2] += usize::from(hit_confirmed);
    }
    println!(
        "confirmation corpus: {count} series, {alerts} alerts, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!("| noise | step series | recall without / with confirmation | false alerts mailed without / with | reruns per alert |");
    println!("|---|---|---|---|---|");
    let mut t = [0usize; 6];
    for (b, r) in BANDS.iter().zip(&rows) {
        let alerts_in_band = (r[1] + r[3]).max(1);
        println!(
            "| {:.0}–{:.0} % | {} | {:.1} % / {:.1} % | {} / {} | {:.1} |",
            b.0 * 100.0,
            b.1 * 100.0,
            r[0],
            100.0 * r[1] as f64 / r[0].max(1) as f64,
            100.0 * r[2] as f64 / r[0].max(1) as f64,
            r[3],
            r[4],
            r[5] as f64 / alerts_in_band as f64,
        );
        for i in 0..6 {
            t[i] += r[i];
        }
    }
    println!(
        "| all | {} | **{:.1} % / {:.1} %** | **{} / {}** | {:.1} |",
        t[0],
        100.0 * t[1] as f64 / t[0].max(1) as f64,
        100.0 * t[2] as f64 / t[0].max(1) as f64,
        t[3],
        t[4],
        t[5] as f64 / alerts.max(1) as f64,
    );
    println!(
        "false alerts reaching mail: {} → {} ({}); true alerts dismissed as noise: {unconfirmed_true}",
        t[3],
        t[4],
        if t[4] == 0 {
            "none left".to_owned()
        } else {
            format!("{:.1}× fewer", t[3] as f64 / t[4] as f64)
        }
    );
}

fn corpus(settings: Settings, table: bool) {
    let mut rng = StdRng::seed_from_u64(20261201);
    let after = 30;
    // Per noise band: step series, found, A/A series, A/A alerts.
    let bands = [(0.01, 0.02), (0.02, 0.03), (0.03, 0.04), (0.04, 0.05)];
    let mut rows = vec![(0usize, 0usize, 0usize, 0usize, 0usize); bands.len()];
    let (mut tp, mut alerts) = (0usize, 0usize);
    let started = Instant::now();
    for k in 0..400 {
        let band = k % bands.len();
        let noise = rng.random_range(bands[band].0..bands[band].1);
        let before = rng.random_range(30..=60);
        let step = k < 200;
        let size = rng.random_range(0.05..0.15) * if rng.random::<bool>() { 1.0 } else { -1.0 };
        let x: Vec<f64> = (0..before + after)
            .map(|i| {
                let level = if step && i >= before {
                    1000.0 * (1.0 + size)
                } else {
                    1000.0
                };
                level * (1.0 + noise * normal(&mut rng))
            })
            .collect();
        let found = alerts_of(&x, &settings);
        alerts += found.len();
        let row = &mut rows[band];
        if step {
            row.0 += 1;
            let hits = found.iter().filter(|i| i.abs_diff(before) <= 3).count();
            tp += hits;
            row.1 += usize::from(hits > 0);
            row.4 += found.len() - hits;
        } else {
            row.2 += 1;
            row.3 += found.len();
        }
    }
    if !table {
        let t: (usize, usize, usize) = rows
            .iter()
            .fold((0, 0, 0), |a, r| (a.0 + r.1, a.1 + r.3, a.2 + r.4));
        println!(
            "{settings:?}: recall {:.1} %, precision {:.1} %, A/A alerts {} per 200, {:.1} s",
            100.0 * t.0 as f64 / 200.0,
            100.0 * tp as f64 / alerts.max(1) as f64,
            t.1,
            started.elapsed().as_secs_f64()
        );
        return;
    }
    println!("corpus: {:.1} s", started.elapsed().as_secs_f64());
    println!("| noise | step series | alerted (recall) | false alerts in step series | A/A series | A/A alerts |");
    println!("|---|---|---|---|---|---|");
    let mut total = (0, 0, 0, 0, 0);
    for (b, r) in bands.iter().zip(&rows) {
        println!(
            "| {:.0}–{:.0} % | {} | {} ({:.1} %) | {} | {} | {} |",
            b.0 * 100.0,
            b.1 * 100.0,
            r.0,
            r.1,
            100.0 * r.1 as f64 / r.0 as f64,
            r.4,
            r.2,
            r.3
        );
        total = (
            total.0 + r.0,
            total.1 + r.1,
            total.2 + r.2,
            total.3 + r.3,
            total.4 + r.4,
        );
    }
    println!(
        "| all | {} | {} ({:.1} %) | {} | {} | {} ({:.2} per 100 series) |",
        total.0,
        total.1,
        100.0 * total.1 as f64 / total.0 as f64,
        total.4,
        total.2,
        total.3,
        100.0 * total.3 as f64 / total.2 as f64
    );
    println!(
        "precision: {tp} of {alerts} alerts true ({:.1} %)",
        100.0 * tp as f64 / alerts.max(1) as f64
    );
}

/// `commits` of machine `machine` as CSV rows: one run of three samples per commit at `level`.
fn commits_csv(machine_commits: std::ops::Range<usize>, level: impl Fn(usize) -> f64) -> String {
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for i in machine_commits {
        for it in 1..=3 {
            let v = level(i) * (1.0 + ((i * 7 + it * 13) % 11) as f64 * 0.001);
            csv.push_str(&format!("k{i},{},Throughput_Mbps,{it},{v}\n", sha(i)));
        }
    }
    csv
}

async fn upload(client: &reqwest::Client, base: &str, machine: &str, csv: String) -> Duration {
    let t = Instant::now();
    let r = client
        .post(format!(
            "{base}/api/v1/upload?benchmark=netperf&machine={machine}"
        ))
        .body(csv)
        .send()
        .await
        .unwrap();
    let took = t.elapsed();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    took
}

async fn alert_count(client: &reqwest::Client, base: &str, machine: &str) -> i64 {
    let v: serde_json::Value = client
        .get(format!("{base}/api/v1/alerts?machine={machine}&limit=1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["total"].as_i64().unwrap()
}

/// Waits until the detector has nothing queued.
async fn idle(store: &Store) {
    while !store.alert_jobs(1).await.unwrap().is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn latency_on_10000_commits(rt: &tokio::runtime::Runtime) {
    const N: usize = 10_000;
    common::with_server_using(
        rt,
        |_| {},
        |base, store| async move {
            let client = reqwest::Client::new();
            let log: String = (0..N)
                .rev()
                .map(|i| format!("{} {} commit {i}\n", sha(i), 1_700_000_000 + i))
                .collect();
            let r = client
                .post(format!("{base}/api/v1/commits?repo=linux&branch=master"))
                .body(log)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201);
            let mut times = Vec::new();
            for m in 0..7 {
                let machine = format!("m{m}");
                // 9,996 commits at 1000, then 3 at 900: the step is not yet 4 commits long.
                let level = |i: usize| if i < N - 4 { 1000.0 } else { 900.0 };
                for chunk in (0..N - 1).collect::<Vec<_>>().chunks(4_000) {
                    upload(
                        &client,
                        &base,
                        &machine,
                        commits_csv(chunk[0]..chunk[chunk.len() - 1] + 1, level),
                    )
                    .await;
                }
                idle(&store).await;
                if alert_count(&client, &base, &machine).await != 0 {
                    let v = common::get_text(
                        &client,
                        format!("{base}/api/v1/alerts?machine={machine}"),
                    )
                    .await;
                    panic!("alert before the step: {}", app::text::head(&v, 3000));
                }
                // The 10,000th commit: from its 201 to the alert.
                upload(&client, &base, &machine, commits_csv(N - 1..N, level)).await;
                let t = Instant::now();
                while alert_count(&client, &base, &machine).await == 0 {
                    assert!(t.elapsed() < Duration::from_secs(30), "no alert");
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                times.push(t.elapsed());
            }
            println!(
                "upload 201 → alert in GET /api/v1/alerts, 10,000-commit series: {}",
                common::summary(times)
            );
        },
    );
}

fn burst(rt: &tokio::runtime::Runtime) {
    // Two servers in one run: the detector on, and --no-alerts. Each gets 1,000 commits of
    // history on its series first, then bursts of 100 one-commit uploads, alternating.
    let run = |no_alerts: bool, round: usize| {
        common::with_server_using(
            rt,
            move |c| c.no_alerts = no_alerts,
            move |base, store| async move {
                let client = reqwest::Client::new();
                let flat = |_| 1000.0;
                upload(&client, &base, "m", commits_csv(0..1000, flat)).await;
                if !no_alerts {
                    idle(&store).await;
                }
                let mut times = Vec::new();
                // Four robots at once, 25 uploads each.
                let mut tasks = tokio::task::JoinSet::new();
                for robot in 0..4 {
                    let (client, base) = (client.clone(), base.clone());
                    tasks.spawn(async move {
                        let mut t = Vec::new();
                        for k in 0..25 {
                            let i = 1000 + round * 1000 + robot * 25 + k;
                            t.push(upload(&client, &base, "m", commits_csv(i..i + 1, flat)).await);
                        }
                        t
                    });
                }
                while let Some(t) = tasks.join_next().await {
                    times.extend(t.unwrap());
                }
                times
            },
        )
    };
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for round in 0..3 {
        off.extend(run(true, round));
        on.extend(run(false, round));
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let mean = |v: &Vec<Duration>| v.iter().sum::<Duration>() / v.len() as u32;
    let (mean_on, mean_off) = (mean(&on), mean(&off));
    let (m_on, m_off) = (median(&mut on), median(&mut off));
    println!(
        "burst of 100 uploads (4 robots × 25), 3 rounds: detector on {}",
        common::summary(on.clone())
    );
    println!(
        "burst of 100 uploads (4 robots × 25), 3 rounds: --no-alerts {}",
        common::summary(off.clone())
    );
    println!(
        "median ratio on/off {:.3}, mean ratio {:.3} (mean {:.2} ms vs {:.2} ms)",
        m_on.as_secs_f64() / m_off.as_secs_f64(),
        mean_on.as_secs_f64() / mean_off.as_secs_f64(),
        mean_on.as_secs_f64() * 1e3,
        mean_off.as_secs_f64() * 1e3
    );
}

fn list_10000(rt: &tokio::runtime::Runtime) {
    common::with_server_using(
        rt,
        |c| c.no_alerts = true,
        |base, store| async move {
            let found: Vec<NewAlert> = (0..10_000)
                .map(|i| NewAlert {
                    benchmark: format!("bench{}", i % 20),
                    machine: format!("machine{}", i % 50),
                    good: CommitRef {
                        kernel: format!("k{i}"),
                        sha: Some(sha(2 * i)),
                    },
                    bad: CommitRef {
                        kernel: format!("k{}", i + 1),
                        sha: Some(sha(2 * i + 1)),
                    },
                    history: Some("linux/master".into()),
                    between: Some(0),
                    alert: Alert {
                        id: 0,
                        metric: app::label::Metric::parse("Throughput_Mbps")
                            .expect("a metric name"),
                        param: String::new(),
                        unit: Some("Mbps".into()),
                        direction: app::label::Direction::Higher,
                        regression: i % 3 != 0,
                        before: 1000.0,
                        after: 940.0,
                        change_pct: -6.0,
                        p_value: 0.0005,
                        points_before: 40,
                        points_after: 5,
                        spark: (0..45)
                            .map(|k| if k < 40 { 1000.0 } else { 940.0 })
                            .collect(),
                        spark_step: 40,
                        evidence: None,
                    },
                    undoes: Vec::new(),
                    into: None,
                    run_sd: None,
                    confirm: None,
                })
                .collect();
            let policy = perfline_server::store::ConfirmPolicy {
                now_ms: 0,
                timeout_ms: 0,
            };
            store.record_alerts(&[], &found, policy).await.unwrap();
            let client = reqwest::Client::new();
            for query in [
                "",
                "status=open&direction=regression",
                "machine=machine7&since=2000-01-01",
                "offset=9000&limit=100",
            ] {
                let url = format!("{base}/api/v1/alerts?{query}");
                let mut times = Vec::new();
                for _ in 0..50 {
                    let t = Instant::now();
                    let r = client.get(&url).send().await.unwrap();
                    assert_eq!(r.status().as_u16(), 200);
                    let _ = r.bytes().await.unwrap();
                    times.push(t.elapsed());
                }
                println!(
                    "GET /api/v1/alerts?{query} over 10,000 summaries: {}",
                    common::summary(times)
                );
            }
        },
    );
}

fn main() {
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let want = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let rt = common::runtime();
    if want("corpus") {
        corpus(Settings::default(), true);
    }
    if only.as_deref() == Some("sweep") {
        for min_change_pct in [2.0, 3.0] {
            for alpha in [0.0005, 0.0002] {
                for min_after in [4, 5] {
                    corpus(
                        Settings {
                            min_change_pct,
                            alpha,
                            min_after,
                            ..Settings::default()
                        },
                        false,
                    );
                }
            }
        }
    }
    if want("confirm") {
        let count = std::env::var("CONFIRM_SERIES")
            .ok()
            .and_then(|v| v.parse().ok());
        confirm_corpus(count.unwrap_or(4000));
    }
    if want("latency") {
        latency_on_10000_commits(&rt);
    }
    if want("burst") {
        burst(&rt);
    }
    if want("list") {
        list_10000(&rt);
    }
}
