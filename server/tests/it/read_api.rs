// SPDX-License-Identifier: GPL-3.0-or-later
//! The read API: runs (filtered, paginated), one run, benchmarks, health.

use serde_json::Value;

use crate::helpers::*;

async fn app_with_data() -> TestApp {
    let app = spawn_app().await;
    for (machine, kernel) in [("m1", "4.16.0"), ("m1", "4.16.0-rc1"), ("m2", "4.16.0")] {
        let r = app
            .upload_raw(
                &format!("machine={machine}&kernel={kernel}"),
                read_fixture("generic/netperf-sweep.csv"),
            )
            .await;
        assert_eq!(r.status().as_u16(), 201);
    }
    app.upload_hackbench_samples().await;
    app
}

fn ids(page: &Value) -> Vec<i64> {
    page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn runs_filter_and_paginate() {
    let app = app_with_data().await;
    let (status, all) = app.get_json("/api/v1/runs").await;
    assert_eq!(status, 200);
    assert_eq!(all["total"], 7);
    assert_eq!(ids(&all), vec![7, 6, 5, 4, 3, 2, 1], "newest first");

    let (_, m1) = app
        .get_json("/api/v1/runs?benchmark=netperf-tcp&machine=m1")
        .await;
    assert_eq!(ids(&m1), vec![2, 1]);
    let (_, k) = app.get_json("/api/v1/runs?kernel=4.16.0").await;
    assert_eq!(ids(&k), vec![3, 1]);

    let (_, p1) = app.get_json("/api/v1/runs?limit=3").await;
    let (_, p2) = app.get_json("/api/v1/runs?limit=3&offset=3").await;
    let (_, p3) = app.get_json("/api/v1/runs?limit=3&offset=6").await;
    assert_eq!(
        (ids(&p1), ids(&p2), ids(&p3)),
        (vec![7, 6, 5], vec![4, 3, 2], vec![1])
    );
    assert_eq!(p3["total"], 7);

    let (status, bad) = app.get_json("/api/v1/runs?limit=0").await;
    assert_eq!(status, 400);
    assert!(bad["error"]["message"].as_str().unwrap().contains("limit"));
    let (status, _) = app.get_json("/api/v1/runs?colour=red").await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread")]
async fn one_run_with_its_samples() {
    let app = app_with_data().await;
    let (status, run) = app.get_json("/api/v1/runs/4").await;
    assert_eq!(status, 200);
    assert_eq!(run["run"]["kernel"], "5.4.0-vanilla");
    assert_eq!(run["run"]["samples"], 24);
    let params: Vec<&str> = run["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["param"].as_str().unwrap())
        .collect();
    assert_eq!(params, vec!["1", "8", "16", "32"]);
    // mmtests' samples CSV has no metric column: the metric is mmtests' own, `time`, so the
    // table's rows are `time-1`, `time-8`, ... as mmtests prints them.
    assert_eq!(run["series"][0]["metric"], "time");
    assert_eq!(run["series"][0]["direction"], "lower");
    assert_eq!(
        run["series"][0]["samples"][0],
        serde_json::json!([1, 0.053])
    );

    let (status, missing) = app.get_json("/api/v1/runs/999").await;
    assert_eq!(status, 404);
    assert_eq!(missing["error"]["message"], "no run 999");
}

#[tokio::test(flavor = "multi_thread")]
async fn benchmarks_machines_kernels() {
    let app = app_with_data().await;
    let (_, b) = app.get_json("/api/v1/benchmarks").await;
    assert_eq!(
        b,
        serde_json::json!([
            {"name": "hackbench-process-pipes", "runs": 4, "machines": ["m1"],
             "kernels": ["5.4.0-vanilla", "5.5.0-rc3-vanilla", "5.5.0-rc3-wakeidle", "5.5.0-vanilla"]},
            {"name": "netperf-tcp", "runs": 3, "machines": ["m1", "m2"], "kernels": ["4.16.0-rc1", "4.16.0"]}
        ])
    );
    let (_, k) = app.get_json("/api/v1/kernels").await;
    let names: Vec<&str> = k
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "4.16.0-rc1",
            "4.16.0",
            "5.4.0-vanilla",
            "5.5.0-rc3-vanilla",
            "5.5.0-rc3-wakeidle",
            "5.5.0-vanilla"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn health_and_unknown_endpoints() {
    let app = spawn_app().await;
    let (status, text) = app.get_text("/healthz").await;
    assert_eq!((status, text.as_str()), (200, "ok\n"));
    let (status, body) = app.get_json("/api/v1/nothing-here").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
    let (status, _) = app.get_json("/api/v1/uploads/5").await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_database_is_created_and_migrated_on_first_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sub-dir-free.db");
    assert!(!db.exists());
    let state = perfline_server::AppState::new(perfline_server::Config::for_db(db.clone()))
        .await
        .unwrap();
    assert!(db.exists());
    let counts = state.store.table_counts().await.unwrap();
    assert!(counts.iter().all(|(_, n)| *n == 0), "{counts:?}");
    state.store.close().await;
    // A second start on the same file works and keeps it.
    let again = perfline_server::AppState::new(perfline_server::Config::for_db(db.clone()))
        .await
        .unwrap();
    again.store.close().await;
    // A path that cannot be a database is refused with a clear message.
    let bad = perfline_server::AppState::new(perfline_server::Config::for_db(
        dir.path().join("no/such/dir/x.db"),
    ))
    .await;
    let message = format!("{:#}", bad.err().expect("refused"));
    assert!(message.contains("cannot open the database"), "{message}");
}

/// Every answer carries an `x-request-id`: the client's own when it sent one, else a new one,
/// different per request; errors and pages too.
#[tokio::test(flavor = "multi_thread")]
async fn every_answer_has_a_request_id() {
    let app = spawn_app().await;
    let mut seen = std::collections::HashSet::new();
    for path in ["/healthz", "/api/v1/runs", "/api/v1/nothing-here", "/"] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        let id = r.headers()["x-request-id"].to_str().unwrap().to_owned();
        assert_eq!(id.len(), 36, "{path}: a UUID, not {id:?}");
        assert!(seen.insert(id), "{path}: a new id per request");
    }
    let r = app
        .client
        .get(app.url("/api/v1/runs"))
        .header("x-request-id", "robot-7f3a")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-request-id"], "robot-7f3a");
}

/// `GET /metrics`: OpenMetrics text with requests by route pattern and status, uploads and
/// samples stored, the database size and the alert queues.
#[tokio::test(flavor = "multi_thread")]
async fn prometheus_metrics() {
    let app = app_with_data().await;
    for _ in 0..2 {
        let (status, _) = app.get_json("/api/v1/runs/4").await;
        assert_eq!(status, 200);
    }
    let (status, _) = app.get_json("/api/v1/runs/999").await;
    assert_eq!(status, 404);
    // The same comparison three times: the first computes it (and makes its permalink, a write
    // that changes no data, so not the data version); the other two are served from the caches.
    for _ in 0..3 {
        let (status, _) = app
            .get_text("/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels=4.16.0-rc1,4.16.0&format=text")
            .await;
        assert_eq!(status, 200);
    }
    let r = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/openmetrics-text"));
    let text = r.text().await.unwrap();
    for needle in [
        "perfline_http_requests_total{method=\"GET\",route=\"/api/v1/runs/{id}\",status=\"200\"} 2",
        "perfline_http_requests_total{method=\"GET\",route=\"/api/v1/runs/{id}\",status=\"404\"} 1",
        "perfline_http_request_duration_seconds_bucket{le=",
        "perfline_uploads_total ",
        "perfline_samples_total ",
        "perfline_alert_jobs ",
        "perfline_outbox_pending 0",
        "perfline_cache_lookups_total{cache=\"compare\",result=\"miss\"} 1",
        "perfline_cache_lookups_total{cache=\"compare\",result=\"hit\"} 2",
        "perfline_cache_lookups_total{cache=\"compare_body\",result=\"miss\"} 1",
        "perfline_cache_lookups_total{cache=\"compare_body\",result=\"hit\"} 2",
    ] {
        assert!(text.contains(needle), "no {needle:?} in\n{text}");
    }
    let bytes: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("perfline_database_bytes "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(bytes > 0.0);
    let uploads: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("perfline_uploads_total "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(uploads >= 1.0, "{text}");
}
