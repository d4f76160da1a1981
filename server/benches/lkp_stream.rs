// SPDX-License-Identifier: GPL-3.0-or-later
//! A robot's LKP stream through `POST /api/v1/upload`, end to end (release, HTTP, the real
//! server on port 0 with a fresh database): one `stats.json` of 5,000 keys per commit, one
//! job after another, as an LKP robot sends them. Prints the upload time at jobs 10, 100,
//! 1,000 and 2,000 (median of the ten jobs ending there), samples per second, and the bytes
//! the database holds per sample beyond the raw files.
//!
//! `cargo bench -p perfline-server --bench lkp_stream` (`LKP_JOBS=200` for a shorter stream,
//! `LKP_KEYS` for another job size, `LKP_KEEP_DB=path` to keep the SQLite file,
//! `LKP_SOAK_SECS=600` for four robots at one job a second each instead, see [`soak`];
//! `PERFLINE_BENCH_PG` adds a run on PostgreSQL, see `scripts/bench-postgres`).

mod common;

use std::time::{Duration, Instant};

use perfline_server::config::Database;

/// The prefixes of a real job's keys and how many keys each has in 5,000.
const FAMILIES: [(&str, usize); 12] = [
    ("perf-profile.calltrace.cycles-pp.", 900),
    ("perf-profile.children.cycles-pp.", 700),
    ("perf-profile.self.cycles-pp.", 400),
    ("sched_debug.cpu.", 800),
    ("proc-vmstat.", 500),
    ("perf-stat.", 400),
    ("interrupts.CPU", 400),
    ("mpstat.cpu.", 300),
    ("slabinfo.", 250),
    ("meminfo.", 150),
    ("softirqs.CPU", 150),
    ("vmstat.", 50),
];

const FUNCTIONS: [&str; 16] = [
    "do_syscall_64",
    "entry_SYSCALL_64_after_hwframe",
    "tcp_sendmsg_locked",
    "__sys_sendto",
    "sock_sendmsg",
    "tcp_recvmsg",
    "ip_finish_output2",
    "__softirqentry_text_start",
    "net_rx_action",
    "copy_user_enhanced_fast_string",
    "skb_copy_datagram_iter",
    "get_page_from_freelist",
    "native_queued_spin_lock_slowpath",
    "_raw_spin_lock_irqsave",
    "tcp_v4_rcv",
    "alloc_pages_vma",
];

/// The keys of a job of `n` keys: netperf's own first, then the families in proportion.
fn keys(n: usize) -> Vec<String> {
    let mut out = vec![
        "netperf.Throughput_Mbps".to_owned(),
        "netperf.Throughput_total_Mbps".to_owned(),
        "netperf.workload".to_owned(),
        "netperf.time.elapsed_time".to_owned(),
        "netperf.time.voluntary_context_switches".to_owned(),
    ];
    let total: usize = FAMILIES.iter().map(|f| f.1).sum();
    'outer: for (prefix, share) in FAMILIES {
        for i in 0..share * n / total {
            if out.len() == n {
                break 'outer;
            }
            let key = if prefix.starts_with("perf-profile") {
                // Call chains of 2 to 9 functions: keys of 60 to 250 characters.
                let chain: Vec<&str> = (0..2 + i % 8)
                    .map(|j| FUNCTIONS[(i * 7 + j * 3) % FUNCTIONS.len()])
                    .collect();
                format!("{prefix}{}.{i}", chain.join("."))
            } else {
                format!("{prefix}{i}.metric_{}", i % 37)
            };
            out.push(key);
        }
    }
    while out.len() < n {
        out.push(format!("meminfo.extra_{}", out.len()));
    }
    out
}

/// Job `job`'s `stats.json`: counters as integers, the rest as floats, a little noise.
fn stats_json(keys: &[String], job: usize) -> Vec<u8> {
    stats_json_scaled(keys, job, 1.0)
}

/// [`stats_json`] with the KPI (`netperf.Throughput_Mbps`, the first key) scaled by `kpi`.
fn stats_json_scaled(keys: &[String], job: usize, kpi: f64) -> Vec<u8> {
    stats_json_with(keys, job, |i| if i == 0 { kpi } else { 1.0 })
}

/// [`stats_json`] with key `i`'s level scaled by `scale(i)`.
fn stats_json_with(keys: &[String], job: usize, scale: impl Fn(usize) -> f64) -> Vec<u8> {
    let mut out = String::with_capacity(keys.len() * 80);
    out.push('{');
    let mut seed = (job as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for (i, k) in keys.iter().enumerate() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let noise = (seed >> 11) as f64 / (1u64 << 53) as f64;
        let level = 1000.0 + (i * 37 % 5000) as f64;
        let level = level * scale(i);
        if i > 0 {
            out.push(',');
        }
        if i % 2 == 0 {
            out.push_str(&format!(
                "\"{k}\":{}",
                (level * (1.0 + 0.02 * noise)) as i64
            ));
        } else {
            out.push_str(&format!("\"{k}\":{:.2}", level * (1.0 + 0.02 * noise)));
        }
    }
    out.push('}');
    out.into_bytes()
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Job `job`'s commit in the stream.
fn commit_of(job: usize) -> String {
    format!("{:040x}", job as u128 * 0x1_0000_0001 + 0xabc)
}

/// Uploads one job's `stats.json` as the robot does: one machine, one kernel version, the
/// benchmark and the commit said.
async fn upload(client: &reqwest::Client, base: &str, commit: &str, body: Vec<u8>) {
    upload_on(client, base, "lkp-bdw-de1", commit, body).await;
}

async fn upload_on(
    client: &reqwest::Client,
    base: &str,
    machine: &str,
    commit: &str,
    body: Vec<u8>,
) {
    let r = client
        .post(format!(
            "{base}/api/v1/upload?machine={machine}&kernel=4.19.0-rc1\
             &benchmark=netperf&commit={commit}&format=lkp-stats"
        ))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

/// The alert detector's work over the stream, from the server's `/metrics`: its passes, the
/// series it examined, and its time per upload (wall time: an upper bound of its CPU time).
async fn detector_cost(client: &reqwest::Client, base: &str, uploads: usize) {
    let (passes, series, seconds) = common::detector_work(client, base).await;
    println!(
        "lkp_stream: detector: {passes} passes over {series} series, {:.1} ms in all, \
         {:.2} ms per upload of {uploads}",
        seconds * 1e3,
        seconds * 1e3 / uploads as f64
    );
}

/// `GET url` as JSON.
async fn get_json(client: &reqwest::Client, url: String) -> serde_json::Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

/// The alert summaries once the detector has nothing queued: how many, and each one's lead
/// metric.
async fn alerts_when_idle(
    client: &reqwest::Client,
    base: &str,
    store: &perfline_server::store::Store,
) -> (i64, Vec<String>) {
    common::detector_idle(store).await;
    let v = get_json(client, format!("{base}/api/v1/alerts?limit=100")).await;
    let leads = v["summaries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let alerts = s["alerts"].as_array().unwrap();
            let metrics: Vec<&str> = alerts
                .iter()
                .map(|a| a["metric"].as_str().unwrap())
                .collect();
            format!(
                "{} at {}",
                metrics.join(" + "),
                s["bad"]["sha"].as_str().unwrap_or("?")
            )
        })
        .collect();
    (v["total"].as_i64().unwrap(), leads)
}

/// The stream of issue 28: 200 commits, the KPIs 6 % down from commit 170 with 80 other keys
/// (of unknown direction) moving with them; how many summaries the detector raises, and how
/// long after the last upload the summary is there.
fn step_stream(rt: &tokio::runtime::Runtime, keys: &[String]) {
    let jobs = env("LKP_STEP_JOBS", 200);
    common::with_server_using(
        rt,
        |c| c.write_rate = 0,
        |base, store| async move {
            let client = reqwest::Client::new();
            for job in 0..jobs {
                let body = stats_json_with(keys, job, |i| match i {
                    _ if job < 170 => 1.0,
                    0 | 1 => 0.94,
                    5..=84 => 1.1,
                    _ => 1.0,
                });
                upload(&client, &base, &commit_of(job), body).await;
            }
            let t = Instant::now();
            let (total, leads) = alerts_when_idle(&client, &base, &store).await;
            println!(
                "lkp_stream: step stream of {jobs} jobs (KPIs -6 % and 80 other keys +10 % from \
                 commit 170): {total} alert summaries {leads:?}, there {:.0} ms after the last \
                 upload",
                t.elapsed().as_secs_f64() * 1e3
            );
        },
    );
}

/// Four robots, each uploading one 5,000-key job a second to its own machine for `secs`
/// seconds (issue 28: upload p99 ≤ 2 s); halfway, robot 0's KPI drops 6 %, and after each of
/// its jobs from then on it waits (up to 5 s) for the alert: the time from the upload that
/// completes the step to the alert in `GET /api/v1/alerts` (≤ 5 s).
fn soak(rt: &tokio::runtime::Runtime, keys: &[String], secs: u64) {
    const ROBOTS: usize = 4;
    // Bodies made beforehand (the robots' own machines would make them): each upload names
    // its own commit, so equal bytes are still new uploads.
    let flat: Vec<Vec<u8>> = (0..20).map(|j| stats_json(keys, j)).collect();
    let stepped: Vec<Vec<u8>> = (0..20)
        .map(|j| stats_json_scaled(keys, 100 + j, 0.94))
        .collect();
    let (flat, stepped) = (std::sync::Arc::new(flat), std::sync::Arc::new(stepped));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("soak.db");
    common::with_server_using(
        rt,
        |c| {
            c.write_rate = 0;
            c.db = Database::Sqlite(path.clone());
        },
        |base, _store| async move {
            let started = Instant::now();
            let end = started + Duration::from_secs(secs);
            let step_at = started + Duration::from_secs(secs / 2);
            let mut tasks = Vec::new();
            for robot in 0..ROBOTS {
                let (base, flat, stepped) = (base.clone(), flat.clone(), stepped.clone());
                tasks.push(tokio::spawn(async move {
                    let client = reqwest::Client::new();
                    let machine = format!("lkp-soak-{robot}");
                    let mut tick = tokio::time::interval(Duration::from_secs(1));
                    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                    let (mut times, mut after_step, mut delay) = (Vec::new(), 0u32, None);
                    let mut job = 0usize;
                    while Instant::now() < end {
                        tick.tick().await;
                        let step = robot == 0 && Instant::now() >= step_at;
                        let body = if step {
                            stepped[job % stepped.len()].clone()
                        } else {
                            flat[job % flat.len()].clone()
                        };
                        let commit = format!("{robot:08x}{job:032x}");
                        let t = Instant::now();
                        upload_on(&client, &base, &machine, &commit, body).await;
                        let done = Instant::now();
                        times.push(done - t);
                        job += 1;
                        if !step || delay.is_some() {
                            continue;
                        }
                        after_step += 1;
                        // Wait for the alert up to 5 s after this upload.
                        while done.elapsed() < Duration::from_secs(5) {
                            let v = get_json(
                                &client,
                                format!("{base}/api/v1/alerts?machine={machine}&status=all"),
                            )
                            .await;
                            if let Some(s) = v["summaries"].as_array().and_then(|a| a.first()) {
                                // Made after this upload, not an earlier one's: it counted
                                // every post-step point uploaded so far.
                                let points = s["alerts"][0]["points_after"].as_u64().unwrap_or(0);
                                delay = Some((done.elapsed(), after_step, points));
                                break;
                            }
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                    }
                    (times, delay)
                }));
            }
            let mut all = Vec::new();
            let mut alert = None;
            for (robot, t) in tasks.into_iter().enumerate() {
                let (times, delay) = t.await.unwrap();
                all.extend(times);
                if robot == 0 {
                    alert = delay;
                }
            }
            all.sort();
            let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)];
            println!(
                "lkp_stream soak: {ROBOTS} robots x 1 job/s x {secs} s: {} uploads, \
                 p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
                all.len(),
                pct(0.5).as_secs_f64() * 1e3,
                pct(0.99).as_secs_f64() * 1e3,
                all[all.len() - 1].as_secs_f64() * 1e3
            );
            let client = reqwest::Client::new();
            let v = get_json(
                &client,
                format!("{base}/api/v1/alerts?status=all&limit=100"),
            )
            .await;
            let machines: Vec<&str> = v["summaries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["machine"].as_str().unwrap())
                .collect();
            match alert {
                Some((delay, uploads, points)) => println!(
                    "lkp_stream soak: alert visible {:.0} ms after the upload that completed \
                     the step (the {uploads}th after it; the alert counts {points} points \
                     after the step); summaries on {machines:?}",
                    delay.as_secs_f64() * 1e3
                ),
                None => println!(
                    "lkp_stream soak: no alert within 5 s of any upload after the step; \
                     summaries on {machines:?}"
                ),
            }
        },
    );
}

fn main() {
    let jobs = env("LKP_JOBS", 2000);
    let n = env("LKP_KEYS", 5000);
    let keys = keys(n);
    if let Ok(secs) = std::env::var("LKP_SOAK_SECS") {
        let secs = secs.parse().expect("LKP_SOAK_SECS is a number of seconds");
        soak(&common::runtime(), &keys, secs);
        return;
    }
    // Parsing alone (no HTTP, no SQL), for where the time goes.
    let body = stats_json(&keys, 0);
    let mut meta = perfline_server::ingest::UploadMeta::default();
    meta.set("machine", "lkp-bdw-de1").unwrap();
    meta.set("kernel", "4.19.0-rc1").unwrap();
    let parse: Vec<Duration> = (0..21)
        .map(|_| {
            let t = Instant::now();
            let (_, runs) = perfline_server::ingest::parse_file(
                &body,
                Some(perfline_server::ingest::Format::LkpStats),
                &meta,
            )
            .unwrap();
            assert_eq!(runs[0].sample_count(), n);
            t.elapsed()
        })
        .collect();
    println!(
        "lkp_stream: parsing one job alone: median {:.1} ms",
        median(parse).as_secs_f64() * 1e3
    );
    let rt = common::runtime();
    step_stream(&rt, &keys);
    for (engine, db) in common::databases(&rt) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stream.db");
        let sqlite = matches!(db, Database::Sqlite(_));
        let (times, raw, pg_bytes) = common::with_server_using(
            &rt,
            |c| {
                // A robot's stream, not a hostile client: no write rate limit.
                c.write_rate = 0;
                c.db = if sqlite {
                    Database::Sqlite(path.clone())
                } else {
                    db.clone()
                };
            },
            |base, store| {
                let keys = keys.clone();
                let (path, snapshot) = (path.clone(), dir.path().join("snapshot.db"));
                async move {
                    let client = reqwest::Client::new();
                    let (mut times, mut raw) = (Vec::with_capacity(jobs), 0usize);
                    for job in 0..jobs {
                        let body = stats_json(&keys, job);
                        raw += body.len();
                        let t = Instant::now();
                        upload(&client, &base, &commit_of(job), body).await;
                        times.push(t.elapsed());
                    }
                    // An A/A stream: no key moved, so the detector should say nothing.
                    let (total, leads) = alerts_when_idle(&client, &base, &store).await;
                    println!(
                        "lkp_stream: alert summaries after {jobs} jobs without a change: \
                         {total} {leads:?}"
                    );
                    detector_cost(&client, &base, jobs).await;
                    // The regression mail of a base and a bad commit, six jobs each, the KPI
                    // 6 % down at the bad one: cold, then four more times.
                    for (commit, kpi) in [("ba5e", 1.0), ("bad0", 0.94)] {
                        for job in 0..6 {
                            let commit = format!("{commit}{:036x}", 0);
                            let body = stats_json_scaled(&keys, 100_000 + job, kpi);
                            upload(&client, &base, &commit, body).await;
                        }
                    }
                    // The report's time and first line.
                    let report = || async {
                        let t = Instant::now();
                        let r = client
                            .get(format!(
                                "{base}/api/v1/report?benchmark=netperf&machine=lkp-bdw-de1\
                                 &base=ba5e{:036x}&bad=bad0{:036x}",
                                0, 0
                            ))
                            .send()
                            .await
                            .unwrap();
                        let status = r.status().as_u16();
                        let text = r.text().await.unwrap();
                        assert_eq!(status, 200, "{text}");
                        (
                            t.elapsed(),
                            text.lines().next().unwrap_or_default().to_owned(),
                        )
                    };
                    let mut reports = Vec::new();
                    let mut first_line = String::new();
                    // Once right after the uploads, while the detector examines their 60,000
                    // series; then on a settled server, cold and four more times.
                    let (busy, _) = report().await;
                    common::detector_idle(&store).await;
                    for _ in 0..env("LKP_REPORTS", 5) {
                        let (took, line) = report().await;
                        reports.push(took);
                        first_line = line;
                    }
                    println!(
                        "lkp_stream: report of one job's base and bad commit: {:.1} ms right after \
                         the uploads (the detector busy); settled: first {:.1} ms, then \
                         median {:.1} ms; \"{first_line}\"",
                        busy.as_secs_f64() * 1e3,
                        reports[0].as_secs_f64() * 1e3,
                        median(reports[1..].to_vec()).as_secs_f64() * 1e3
                    );
                    // A consistent copy without the write-ahead log (SQLite's `VACUUM INTO`,
                    // what `perfline backup` makes): the bytes the data takes.
                    let pg_bytes = if sqlite {
                        perfline_server::store::Store::backup(&path, &snapshot)
                            .await
                            .unwrap();
                        None
                    } else {
                        store
                            .database_bytes()
                            .await
                            .unwrap()
                            .zip(store.raw_file_bytes().await.unwrap())
                    };
                    (times, raw, pg_bytes)
                }
            },
        );
        for at in [10, 100, 1000, 2000, 5000, 10_000] {
            if at > jobs {
                break;
            }
            let m = median(times[at - 10..at].to_vec());
            println!(
                "lkp_stream on {engine:<8}: job {at:>5}: median {:>8.1} ms  {:>9.0} samples/s",
                m.as_secs_f64() * 1e3,
                n as f64 / m.as_secs_f64()
            );
        }
        let first = median(times[..10.min(jobs)].to_vec());
        let last = median(times[jobs.saturating_sub(10)..].to_vec());
        println!(
            "lkp_stream on {engine:<8}: last ten / first ten = {:.2}",
            last.as_secs_f64() / first.as_secs_f64()
        );
        let snapshot = dir.path().join("snapshot.db");
        if let (true, Ok(keep)) = (sqlite, std::env::var("LKP_KEEP_DB")) {
            std::fs::copy(&snapshot, &keep).unwrap();
        }
        if let Some((bytes, raw_table)) = pg_bytes {
            // PostgreSQL keeps the raw files compressed (lz4) in `upload_file`: the whole
            // database per sample, and what is not that table.
            let samples = (jobs * n) as f64;
            println!(
                "lkp_stream on {engine:<8}: database {bytes} bytes in all, raw files {raw} bytes \
                 uncompressed ({raw_table} bytes stored), {:.1} bytes per sample in all, \
                 {:.1} beyond the raw files",
                bytes as f64 / samples,
                (bytes - raw_table) as f64 / samples
            );
        }
        if sqlite {
            let size = std::fs::metadata(&snapshot).unwrap().len();
            let samples = (jobs * n) as f64;
            println!(
                "lkp_stream on {engine:<8}: database {} bytes, raw files {raw} bytes, \
                 {:.1} bytes per sample beyond the raw files",
                size,
                (size as f64 - raw as f64) / samples
            );
        }
    }
}
