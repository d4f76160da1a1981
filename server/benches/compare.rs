// SPDX-License-Identifier: GPL-3.0-or-later
//! The server time of a comparison through `GET /api/v1/compare`, measured from a client on the
//! same machine (so it includes HTTP, the store's reads, polars and rendering), on SQLite and,
//! with `PERFLINE_BENCH_PG` (`scripts/bench-postgres`), on PostgreSQL in the same run:
//! - 5 kernels × 9 message sizes × 50 samples (goal ≤ 10 ms; mmtests takes ~19 s for this),
//! - 5 kernels × 10 params × 20,000 samples = 1M samples (goal ≤ 300 ms).
//!
//! `cargo bench -p perfline-server --bench compare`. Prints the median and spread of each.

mod common;

use std::time::{Duration, Instant};

use common::KERNELS;

/// A generic CSV of `params.len() × samples` samples per kernel.
fn csv(params: &[u32], samples: u32) -> String {
    let mut out = String::from("kernel,metric,param,iteration,value,unit,direction\n");
    for (k, kernel) in KERNELS.iter().enumerate() {
        for (p, param) in params.iter().enumerate() {
            for i in 1..=samples {
                let noise = f64::from((i * 7919 + p as u32 * 104729 + k as u32 * 31) % 1000);
                let v = 1000.0 * (p + 1) as f64 * (1.0 - 0.02 * k as f64) + noise / 25.0;
                out.push_str(&format!(
                    "{kernel},tcpstream-send,{param},{i},{v:.2},10^6bits/s,higher\n"
                ));
            }
        }
    }
    out
}

/// Times `repeats` requests of `url` warm (answered from the comparison cache) and cold (right
/// after a write, a run's mark cleared, so the comparison is computed again): the timings of
/// each and the body's size.
async fn measure(
    client: &reqwest::Client,
    base: &str,
    url: &str,
    repeats: usize,
) -> (Vec<Duration>, Vec<Duration>, usize) {
    // The first request also makes the permalink (one write); it is not measured.
    let first = client.get(url).send().await.unwrap();
    assert_eq!(first.status(), 200, "{}", first.text().await.unwrap());
    let (mut warm, mut cold) = (Vec::with_capacity(repeats), Vec::with_capacity(repeats));
    let mut size = 0;
    for _ in 0..repeats {
        let r = client
            .post(format!("{base}/api/v1/runs/1/mark"))
            .json(&serde_json::json!({"mark": null}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        for times in [&mut cold, &mut warm] {
            let t = Instant::now();
            let r = client.get(url).send().await.unwrap();
            assert_eq!(r.status(), 200);
            size = r.bytes().await.unwrap().len();
            times.push(t.elapsed());
        }
    }
    (warm, cold, size)
}

fn main() {
    let rt = common::runtime();
    for (engine, db) in common::databases(&rt) {
        compare_on(&rt, engine, &db);
    }
}

fn compare_on(rt: &tokio::runtime::Runtime, engine: &str, db: &perfline_server::config::Database) {
    common::with_server_on(rt, db, |base| async move {
        let client = reqwest::Client::new();
        let kernels = KERNELS.join(",");
        for (name, params, samples, repeats) in [
            (
                "5x9x50",
                vec![64, 128, 256, 1024, 2048, 3312, 4096, 8192, 16384],
                50,
                50,
            ),
            (
                "1M",
                (1..=10).map(|p| p * 64).collect::<Vec<u32>>(),
                20_000,
                10,
            ),
        ] {
            let body = csv(&params, samples);
            let r = client
                .post(format!(
                    "{base}/api/v1/upload?benchmark={name}&machine=bench"
                ))
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
            let n = KERNELS.len() * params.len() * samples as usize;
            for format in ["json", "text"] {
                let url = format!(
                    "{base}/api/v1/compare?benchmark={name}&machine=bench&kernels={kernels}&format={format}"
                );
                let (warm, cold, size) = measure(&client, &base, &url, repeats).await;
                println!(
                    "{engine}: compare {name} ({n} samples) as {format} ({size} bytes): cold {}; warm {}",
                    common::summary(cold),
                    common::summary(warm)
                );
            }
        }
    });
}
