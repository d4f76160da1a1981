// SPDX-License-Identifier: GPL-3.0-or-later
//! The former hot paths of hostile input, with large inputs: each was quadratic or unbounded
//! before the robustness issue (figures from the issue in brackets).
//!
//! - 60,000 tags in one upload (4 CPU-seconds): parsed, de-duplicated and refused by count;
//! - a dashboard over 40,000 kernels (2.4 s): `GET /api/v1/benchmarks` and the page;
//! - a 2,000-point trend after a bisect log of 200,000 marks (17.7 s), shas abbreviated;
//! - a permalink over 35,000 runs (500 forever): made, then answered cold.
//!
//! `cargo bench -p perfline-server --bench hostile`.

mod common;

use std::collections::HashMap;
use std::time::Instant;

use app::trend::{Mark, TrendQuery};
use perfline_server::ingest::{parse_file, Format, UploadMeta};
use perfline_server::services::trend::build;
use perfline_server::store::{CommitMarks, History, HistoryCommit, TrendRun, TrendRuns};

fn sha(i: usize) -> String {
    format!(
        "{:016x}{:024x}",
        (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        i
    )
}

/// Uploads `csv` to `url`; it must be stored.
async fn upload(client: &reqwest::Client, url: &str, csv: String) {
    let r = client.post(url).body(csv).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 201);
}

fn main() {
    // 1. 60,000 tags, as a form field and in a JSON document.
    let tags: Vec<String> = (0..60_000).map(|i| format!("k{i}=v{i}")).collect();
    let field = tags.join(",");
    let (times, refused) = common::repeat(5, || {
        let mut meta = UploadMeta::default();
        meta.set("tags", &field).unwrap_err()
    });
    assert!(refused.message.contains("60000 tags given"));
    println!(
        "60,000 tags in the tags field, refused: {}",
        common::summary(times)
    );
    let doc = format!(
        "{{\"benchmark\":\"b\",\"machine\":\"m\",\"kernel\":\"k\",\"tags\":{{{}}},\"samples\":[{{\"metric\":\"t\",\"value\":1}}]}}",
        (0..60_000)
            .map(|i| format!("\"k{i}\":\"v\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let (times, refused) = common::repeat(5, || {
        parse_file(doc.as_bytes(), Some(Format::Json), &UploadMeta::default()).unwrap_err()
    });
    assert!(refused.message.contains("60000 tags given"), "{refused}");
    println!(
        "60,000 tags in a JSON document, refused: {}",
        common::summary(times)
    );

    // 3. A 2,000-point trend with 200,000 commit marks, its runs naming abbreviated shas.
    let history = History {
        repo: "linux".into(),
        branch: "master".into(),
        commits: (0..2_000)
            .map(|i| HistoryCommit {
                sha: sha(i),
                time: None,
                subject: None,
            })
            .collect(),
    };
    let runs: Vec<TrendRun> = (0..2_000)
        .map(|i| TrendRun {
            run_id: i as i64 + 1,
            commit: Some(app::text::head(&sha(i), 12).into()),
            kernel: format!("k{i}").into(),
            n: 1,
            sum: 100.0 + (i % 7) as f64,
            min: 100.0,
            max: 107.0,
            ..TrendRun::default()
        })
        .collect();
    let runs = TrendRuns {
        chunks: runs.chunks(1024).map(Into::into).collect(),
        marks: HashMap::new(),
    };
    let started = Instant::now();
    let marks = CommitMarks::new(
        (0..200_000)
            .map(|i| {
                (
                    app::text::head(&sha(i + 1_000), 10).to_owned(),
                    (Mark::Good, false),
                )
            })
            .collect(),
    );
    println!(
        "indexing 200,000 commit marks: {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let query = TrendQuery::parse("b", "m", "tput", "").unwrap();
    let (times, trend) = common::repeat(5, || build(query.clone(), &runs, Some(&history), &marks));
    assert_eq!(trend.points.len(), 2_000);
    assert_eq!(
        trend.points.iter().filter(|p| p.mark.is_some()).count(),
        1_000
    );
    println!(
        "a 2,000-point trend with 200,000 commit marks: {}",
        common::summary(times)
    );

    // 2 and 4: through the real server.
    let rt = common::runtime();
    common::with_server(&rt, |base| async move {
        let client = reqwest::Client::new();
        // 40,000 kernels in 8 uploads of 5,000 runs (the per-upload limit), 35,000 of them of
        // one benchmark on one machine in two kernels' worth of permalink.
        for part in 0..8 {
            let mut csv = String::from("kernel,metric,value\n");
            for k in 0..5_000 {
                csv.push_str(&format!("6.{part}.{k},tput,{}\n", 100 + k % 7));
            }
            upload(
                &client,
                &format!("{base}/api/v1/upload?benchmark=many&machine=m1"),
                csv,
            )
            .await;
        }
        for path in ["/api/v1/benchmarks", "/"] {
            let mut times = Vec::new();
            for _ in 0..5 {
                let t = Instant::now();
                let r = client.get(format!("{base}{path}")).send().await.unwrap();
                assert_eq!(r.status().as_u16(), 200);
                assert!(!r.bytes().await.unwrap().is_empty());
                times.push(t.elapsed());
            }
            println!("GET {path} over 40,000 kernels: {}", common::summary(times));
        }

        for part in 0..7 {
            let mut csv = String::from("kernel,commit,metric,value\n");
            for i in 0..5_000 {
                let kernel = if i % 2 == 0 { "7.1" } else { "7.2" };
                csv.push_str(&format!("{kernel},{i:08x}{part},tput,{}\n", 100 + i % 7));
            }
            upload(
                &client,
                &format!("{base}/api/v1/upload?benchmark=pinned&machine=m1"),
                csv,
            )
            .await;
        }
        let t = Instant::now();
        let live: serde_json::Value = client
            .get(format!(
                "{base}/api/v1/compare?benchmark=pinned&machine=m1&kernels=7.1,7.2"
            ))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        println!(
            "live compare over 35,000 runs, making its permalink: {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
        let id = live["permalink"].as_str().unwrap();
        let t = Instant::now();
        let r = client
            .get(format!("{base}/c/{id}?format=json"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let _ = r.bytes().await.unwrap();
        println!(
            "that permalink, cold: {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
    });
}
