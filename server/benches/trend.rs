// SPDX-License-Identifier: GPL-3.0-or-later
//! Trends: server time of `GET /api/v1/trend` for 10,000 commits × 5 runs (goals: JSON ≤ 30 ms,
//! SVG ≤ 50 ms), measured from a client on the same machine, and change-point detection alone
//! on 10,000 points (goal ≤ 200 ms).
//!
//! `cargo bench -p perfline-server --bench trend`.

mod common;

use std::time::Instant;

use std::collections::HashMap;

use app::trend::TrendQuery;
use perfline_server::domain::changepoint::{change_points, Options};
use perfline_server::services::trend::build;
use perfline_server::store::{CommitMarks, History, HistoryCommit, TrendRun, TrendRuns};

const COMMITS: usize = 10_000;
const RUNS: usize = 5;

fn sha(i: usize) -> String {
    format!(
        "{:016x}{:024x}",
        (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        i
    )
}

/// A level for commit `i`: steps of 5–8% at a few commits, 2% noise.
fn value(i: usize, run: usize) -> f64 {
    let level = match i {
        0..2000 => 1000.0,
        2000..5000 => 940.0,
        5000..8000 => 1010.0,
        _ => 950.0,
    };
    level * (1.0 + uniform((i * 64 + run) as u64) * 0.04)
}

/// A pseudo-random number in [−0.5, 0.5) for `key` (splitmix64): noise without the period
/// that `i · k mod m` has (a sawtooth, which a detector rightly cuts at every tooth).
fn uniform(key: u64) -> f64 {
    let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// The `total` of the response's `Server-Timing` header.
fn server_time(r: &reqwest::Response) -> std::time::Duration {
    let header = r.headers()["server-timing"].to_str().unwrap();
    let total = header
        .split(", ")
        .find_map(|m| m.strip_prefix("total;dur="))
        .unwrap_or_else(|| panic!("no total in {header}"));
    std::time::Duration::from_secs_f64(total.parse::<f64>().unwrap() / 1e3)
}

fn main() {
    // Change-point detection alone.
    let series: Vec<f64> = (0..COMMITS).map(|i| value(i, 0)).collect();
    let (times, found) = common::repeat(7, || change_points(&series, &Options::default()).len());
    println!(
        "change points on {COMMITS} points ({found} found): {}",
        common::summary(times)
    );
    // The expensive case: no step at all, so nothing is pruned.
    let noise: Vec<f64> = (0..COMMITS)
        .map(|i| 1000.0 * (1.0 + uniform(i as u64 * 64 + 63) * 0.04))
        .collect();
    let (times, found) = common::repeat(7, || change_points(&noise, &Options::default()).len());
    println!(
        "change points on {COMMITS} points of noise ({found} found): {}",
        common::summary(times)
    );

    // Building the trend from the stored runs alone (what a cold request adds to the reads).
    let history = History {
        repo: "linux".into(),
        branch: "master".into(),
        commits: (0..COMMITS)
            .map(|i| HistoryCommit {
                sha: sha(i),
                time: Some(1_600_000_000 + i as i64),
                subject: Some(format!("commit {i}")),
            })
            .collect(),
    };
    // Shared strings, as a chunk's string table gives them.
    let kernels: Vec<std::sync::Arc<str>> =
        (0..RUNS).map(|r| format!("build-{r}").into()).collect();
    let runs: Vec<TrendRun> = (0..COMMITS)
        .flat_map(|i| {
            let commit: std::sync::Arc<str> = sha(i).into();
            let kernels = kernels.clone();
            (0..RUNS).map(move |run| TrendRun {
                run_id: (i * RUNS + run) as i64,
                kernel: kernels[run].clone(),
                commit: Some(commit.clone()),
                n: 1,
                sum: value(i, run),
                min: value(i, run),
                max: value(i, run),
                ..TrendRun::default()
            })
        })
        .collect();
    let runs = TrendRuns {
        chunks: runs.chunks(1024).map(Into::into).collect(),
        marks: HashMap::new(),
    };
    let query = TrendQuery::parse("b", "m", "tput", "").unwrap();
    let (times, trend) = common::repeat(7, || {
        build(
            query.clone(),
            &runs,
            Some(&history),
            &CommitMarks::default(),
        )
    });
    assert_eq!(trend.points.len(), COMMITS);
    println!(
        "building a trend of {COMMITS} commits x {RUNS} runs: {}",
        common::summary(times)
    );
    let (times, size) = common::repeat(7, || serde_json::to_vec(&trend).unwrap().len());
    println!(
        "serialising it as JSON ({size} bytes): {}",
        common::summary(times)
    );

    let rt = common::runtime();
    for (engine, db) in common::databases(&rt) {
        trend_on(&rt, engine, &db);
    }
}

/// Cold and warm trend requests through the real server on `db`.
fn trend_on(rt: &tokio::runtime::Runtime, engine: &str, db: &perfline_server::config::Database) {
    common::with_server_on(rt, db, |base| async move {
        let client = reqwest::Client::new();
        let log: String = (0..COMMITS)
            .rev()
            .map(|i| format!("{} {} commit {i}\n", sha(i), 1_600_000_000 + i))
            .collect();
        let r = client
            .post(format!("{base}/api/v1/commits?repo=linux&branch=master"))
            .body(log)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        // In uploads of 1,000 commits (5,000 runs, the most one upload may hold).
        let t = Instant::now();
        for batch in (0..COMMITS).collect::<Vec<_>>().chunks(1000) {
            let mut csv = String::from("kernel,commit,metric,iteration,value\n");
            for &i in batch {
                for run in 0..RUNS {
                    csv.push_str(&format!(
                        "build-{run},{},tput,1,{:.3}\n",
                        sha(i),
                        value(i, run)
                    ));
                }
            }
            let r = client
                .post(format!("{base}/api/v1/upload?benchmark=b&machine=m"))
                .body(csv)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
        }
        println!(
            "{engine}: setup: {} runs uploaded in {:.1} s",
            COMMITS * RUNS,
            t.elapsed().as_secs_f64()
        );
        for format in ["json", "svg", "text"] {
            let url =
                format!("{base}/api/v1/trend?benchmark=b&machine=m&metric=tput&format={format}");
            // Cold: right after a write (a mark cleared), so nothing is cached.
            let (mut cold, mut cold_server) = (Vec::new(), Vec::new());
            let mut last_timing = String::new();
            for _ in 0..15 {
                let r = client
                    .post(format!("{base}/api/v1/runs/1/mark"))
                    .json(&serde_json::json!({"mark": null}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 200);
                let t = Instant::now();
                let r = client.get(&url).send().await.unwrap();
                assert_eq!(r.status(), 200);
                cold_server.push(server_time(&r));
                last_timing = r.headers()["server-timing"].to_str().unwrap().to_owned();
                r.bytes().await.unwrap();
                cold.push(t.elapsed());
            }
            // Warm: nothing written since the last request.
            let (mut warm, mut warm_server) = (Vec::new(), Vec::new());
            let mut size = 0;
            for _ in 0..11 {
                let t = Instant::now();
                let r = client.get(&url).send().await.unwrap();
                assert_eq!(r.status(), 200);
                warm_server.push(server_time(&r));
                size = r.bytes().await.unwrap().len();
                warm.push(t.elapsed());
            }
            println!(
                "{engine}: trend {COMMITS} commits x {RUNS} runs as {format} ({size} bytes): server time cold {}; warm {}",
                common::summary(cold_server),
                common::summary(warm_server)
            );
            println!("    the last cold request's Server-Timing: {last_timing}");
            println!(
                "    seen by the client: cold {}; warm {}",
                common::summary(cold),
                common::summary(warm)
            );
        }
    });
}
