// SPDX-License-Identifier: GPL-3.0-or-later
//! Ingest rate of a 1M-row generic CSV through `POST /api/v1/upload`, end to end: HTTP, parsing,
//! and the SQLite transaction, against the real server on port 0 with a fresh database file.
//!
//! `cargo bench -p perfline-server --bench ingest` prints the median of several uploads and the
//! median of parsing alone (no HTTP, no SQL), so the ratio shows where the time goes.

mod common;

use std::time::{Duration, Instant};

use perfline_server::ingest::{parse_file, UploadMeta};

const ROWS: usize = 1_000_000;
const PARAMS: usize = 20;
const REPEATS: usize = 5;

fn csv() -> Vec<u8> {
    let mut out = String::with_capacity(ROWS * 40);
    out.push_str("benchmark,metric,param,iteration,value\n");
    let per_param = ROWS / PARAMS;
    for p in 0..PARAMS {
        let param = 64usize << (p % 12);
        for i in 0..per_param {
            // Deterministic pseudo-noise around a level per parameter.
            let noise = ((i * 7919 + p * 104729) % 1000) as f64 / 1000.0;
            out.push_str(&format!(
                "netperf-tcp,Throughput-{p},{param},{i},{:.2}\n",
                1000.0 * (p + 1) as f64 + noise * 50.0
            ));
        }
    }
    out.into_bytes()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let body = csv();
    println!(
        "ingest: {ROWS} rows, {} bytes of CSV, {REPEATS} uploads",
        body.len()
    );

    let mut meta = UploadMeta::default();
    meta.set("machine", "bench").unwrap();
    meta.set("kernel", "6.1.0").unwrap();
    let parse: Vec<Duration> = (0..REPEATS)
        .map(|_| {
            let t = Instant::now();
            let (_, runs) = parse_file(&body, None, &meta).unwrap();
            assert_eq!(runs[0].sample_count(), ROWS);
            t.elapsed()
        })
        .collect();

    let rt = common::runtime();
    // The store alone: one transaction writing the parsed runs and the raw file.
    let store: Vec<Duration> = rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = perfline_server::store::Store::open(&dir.path().join("store.db"))
            .await
            .unwrap();
        let (_, runs) = parse_file(&body, None, &meta).unwrap();
        let mut times = Vec::new();
        for i in 0..REPEATS {
            let upload = perfline_server::store::NewUpload {
                digest: format!("bench-{i}"),
                metadata: "{}".into(),
                files: vec![perfline_server::store::NewFile {
                    name: None,
                    format: "csv".into(),
                    sha256: String::new(),
                    bytes: body.clone().into(),
                }],
                runs: runs.clone(),
                mark: None,
                commit_time: None,
                uploaded_by: "bench".into(),
                calibration: None,
            };
            let t = Instant::now();
            store.insert_upload(&upload).await.unwrap();
            times.push(t.elapsed());
        }
        store.close().await;
        times
    });
    let mut uploads = Vec::new();
    for (engine, db) in common::databases(&rt) {
        let body = body.clone();
        let upload: Vec<Duration> = common::with_server_on(&rt, &db, |base| async move {
            let client = reqwest::Client::new();
            let mut times = Vec::new();
            for i in 0..REPEATS {
                let t = Instant::now();
                // A new kernel each time, so no upload is a duplicate of an earlier one.
                let r = client
                    .post(format!("{base}/api/v1/upload?machine=bench&kernel=6.{i}.0"))
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
                times.push(t.elapsed());
            }
            times
        });
        uploads.push((engine, upload));
    }
    let (p, u) = (median(parse), median(uploads[0].1.clone()));
    let st = median(store);
    println!(
        "ingest: store only   median {:>8.1} ms  {:>10.0} samples/s",
        st.as_secs_f64() * 1e3,
        ROWS as f64 / st.as_secs_f64()
    );
    println!(
        "ingest: parse only   median {:>8.1} ms  {:>10.0} samples/s",
        p.as_secs_f64() * 1e3,
        ROWS as f64 / p.as_secs_f64()
    );
    for (engine, upload) in &uploads {
        let u = median(upload.clone());
        println!(
            "ingest: HTTP upload on {engine:<8} median {:>8.1} ms  {:>10.0} samples/s  (all: {:?})",
            u.as_secs_f64() * 1e3,
            ROWS as f64 / u.as_secs_f64(),
            upload
        );
    }
    println!(
        "ingest: upload/parse ratio {:.2}",
        u.as_secs_f64() / p.as_secs_f64()
    );
}
