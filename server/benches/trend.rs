//! Trends: server time of `GET /api/v1/trend` for 10,000 commits × 5 runs (goals: JSON ≤ 30 ms,
//! SVG ≤ 50 ms), measured from a client on the same machine, and change-point detection alone
//! on 10,000 points (goal ≤ 200 ms).
//!
//! `cargo bench -p perfline-server --bench trend`.

mod common;

use std::time::Instant;

use perfline_server::changepoint::{change_points, Options};

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
    let noise = (((i * 7919 + run * 104729) % 1000) as f64 / 1000.0 - 0.5) * 0.04;
    level * (1.0 + noise)
}

fn main() {
    // Change-point detection alone.
    let series: Vec<f64> = (0..COMMITS).map(|i| value(i, 0)).collect();
    let mut times = Vec::new();
    let mut found = 0;
    for _ in 0..7 {
        let t = Instant::now();
        found = change_points(&series, &Options::default()).len();
        times.push(t.elapsed());
    }
    println!(
        "change points on {COMMITS} points ({found} found): {}",
        common::summary(times)
    );
    // The expensive case: no step at all, so every split is tested with permutations.
    let noise: Vec<f64> = (0..COMMITS)
        .map(|i| 1000.0 * (1.0 + (((i * 7919) % 1000) as f64 / 1000.0 - 0.5) * 0.04))
        .collect();
    let mut times = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        found = change_points(&noise, &Options::default()).len();
        times.push(t.elapsed());
    }
    println!(
        "change points on {COMMITS} points of noise ({found} found): {}",
        common::summary(times)
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    common::with_server(&rt, |base| async move {
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
        let mut csv = String::from("kernel,commit,metric,iteration,value\n");
        for i in 0..COMMITS {
            for run in 0..RUNS {
                csv.push_str(&format!(
                    "build-{run},{},tput,1,{:.3}\n",
                    sha(i),
                    value(i, run)
                ));
            }
        }
        let t = Instant::now();
        let r = client
            .post(format!("{base}/api/v1/upload?benchmark=b&machine=m"))
            .body(csv)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
        println!(
            "setup: {} runs uploaded in {:.1} s",
            COMMITS * RUNS,
            t.elapsed().as_secs_f64()
        );
        for format in ["json", "svg", "text"] {
            let url =
                format!("{base}/api/v1/trend?benchmark=b&machine=m&metric=tput&format={format}");
            // Cold: right after a write (a mark cleared), so nothing is cached.
            let mut cold = Vec::new();
            for _ in 0..5 {
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
                r.bytes().await.unwrap();
                cold.push(t.elapsed());
            }
            // Warm: nothing written since the last request.
            let mut warm = Vec::new();
            let mut size = 0;
            for _ in 0..11 {
                let t = Instant::now();
                let r = client.get(&url).send().await.unwrap();
                assert_eq!(r.status(), 200);
                size = r.bytes().await.unwrap().len();
                warm.push(t.elapsed());
            }
            println!(
                "trend {COMMITS} commits x {RUNS} runs as {format} ({size} bytes): cold {}; warm {}",
                common::summary(cold),
                common::summary(warm)
            );
        }
    });
}
