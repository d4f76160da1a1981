// SPDX-License-Identifier: GPL-3.0-or-later
//! The noise model as users meet it: A/A calibration uploads (`calibration=NAME`,
//! `GET /api/v1/calibration`), run-count advice on comparisons (JSON, `advice=1` text,
//! `detect=`), and a trend's noise and the advice for its newest step.

use serde_json::Value;

use crate::helpers::*;

/// Seed 003's mail, one file per `Run N:` block: each block was a boot.
fn seed_003_boots() -> Vec<(String, Vec<u8>)> {
    let text = String::from_utf8(read_fixture("netperf/seed003-mail-wrapped-runs.txt")).unwrap();
    let mut files = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("Run ") {
            if let Some(done) = current.take() {
                files.push(done);
            }
            current = Some(String::new());
            continue;
        }
        if let Some(c) = current.as_mut() {
            c.push_str(line);
            c.push('\n');
        }
    }
    files.extend(current);
    files
        .into_iter()
        .enumerate()
        .map(|(i, body)| (format!("boot-{}.txt", i + 1), body.into_bytes()))
        .collect()
}

fn throughput(series: &[Value]) -> &Value {
    series
        .iter()
        .find(|s| s["metric"] == "Throughput")
        .expect("a Throughput series")
}

/// Seed 003's three boots, uploaded as A/A (`calibration=reboots`) in one upload.
pub(crate) async fn seed_003_calibration(app: &TestApp) {
    let boots = seed_003_boots();
    assert_eq!(boots.len(), 3);
    let files: Vec<(&str, Vec<u8>)> = boots.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let r = app
        .upload_multipart(
            &files,
            &[
                ("format", "netperf"),
                ("benchmark", "netperf-tcp"),
                ("machine", "dl145"),
                ("kernel", "2.6.12-rc5"),
                ("calibration", "reboots"),
            ],
        )
        .await;
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        body["runs"].as_array().unwrap().len(),
        3,
        "one run per boot: {body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_003s_reboots_calibrate_to_a_between_boot_cv_of_0_8_percent() {
    let app = spawn_app().await;
    seed_003_calibration(&app).await;
    // An ordinary upload of the same benchmark is no A/A data.
    app.upload_fixture(
        "format=netperf&benchmark=netperf-tcp&machine=dl145&kernel=2.6.13",
        "netperf/seed003-mail-wrapped-runs.txt",
    )
    .await;

    let (status, cal) = app.get_json("/api/v1/calibration").await;
    assert_eq!(status, 200, "{cal}");
    let series = cal["series"].as_array().unwrap();
    assert!(
        series
            .iter()
            .all(|s| s["calibration"] == "reboots" && s["kernel"] == "2.6.12-rc5"),
        "{cal}"
    );
    let t = throughput(series);
    assert_eq!(t["benchmark"], "netperf-tcp");
    assert_eq!(t["machine"], "dl145");
    assert_eq!(t["param"], "16384");
    assert_eq!(t["runs"], 3);
    // 410302.39, 409510.33, 404354.11 KBytes/s: sd 3232 on 408056, 0.79 %.
    let b = t["between_cv"].as_f64().unwrap();
    assert!((b - 0.0079).abs() < 0.0002, "{t}");
    assert_eq!(t["within_cv"], Value::Null, "one sample a boot: {t}");
    assert_eq!(t["dominant"], "between");
    assert_eq!(t["n_between"], 3);
    assert!(
        t["summary"]
            .as_str()
            .unwrap()
            .contains("between-boot CV 0.79 %"),
        "{t}"
    );
    // One sample a side: mmtests' test has no interval to test with.
    assert_eq!(t["fpr_significance"], Value::Null, "{t}");
    assert_eq!(t["histories"], 200);
    assert!(t["fpr_alert"].as_f64().is_some(), "{t}");

    // Filters, and bounds.
    let (_, none) = app.get_json("/api/v1/calibration?machine=elsewhere").await;
    assert_eq!(none["series"].as_array().unwrap().len(), 0);
    let (_, one) = app
        .get_json("/api/v1/calibration?benchmark=netperf-tcp&limit=1")
        .await;
    assert_eq!(one["series"].as_array().unwrap().len(), 1);
    assert!(one["left_out"].as_u64().unwrap() >= 1, "{one}");
    let r = app
        .client
        .get(app.url("/api/v1/calibration?limit=0"))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "limit").await;
    let r = app
        .client
        .get(app.url("/api/v1/calibration?kernel=x"))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "kernel").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_single_boot_calibration_says_it_cannot_tell_boots_apart() {
    let app = spawn_app().await;
    app.upload_fixture(
        "format=netperf&benchmark=netperf-tcp&machine=dl145&kernel=2.6.12-rc5&calibration=pasted",
        "netperf/seed003-mail-wrapped-runs.txt",
    )
    .await;
    let (_, cal) = app.get_json("/api/v1/calibration").await;
    let t = throughput(cal["series"].as_array().unwrap());
    assert_eq!(t["runs"], 1);
    assert_eq!(t["between_cv"], Value::Null);
    assert_eq!(t["dominant"], "within");
    assert!(
        t["warning"]
            .as_str()
            .unwrap()
            .contains("upload each boot as its own run"),
        "{t}"
    );
}

/// Three runs of one sample per kernel, 1.4 % apart: a between-boot CV of 1.41 %.
pub(crate) async fn three_boots_per_kernel(app: &TestApp) {
    for (kernel, level) in [("6.1.0", 100.0), ("6.2.0", 98.0)] {
        for d in [0.0, 1.4, -1.4] {
            let csv = format!(
                "kernel,metric,iteration,value\n{kernel},tput,1,{}\n",
                level + d
            );
            let r = app.upload_raw("benchmark=b&machine=m", csv).await;
            assert_eq!(r.status().as_u16(), 201);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn comparisons_say_how_many_runs_a_change_needs() {
    let app = spawn_app().await;
    three_boots_per_kernel(&app).await;
    let path = "/api/v1/compare?benchmark=b&machine=m&kernels=6.1.0,6.2.0";
    let (status, c) = app.get_json(path).await;
    assert_eq!(status, 200, "{c}");
    let row = &c["rows"][0];
    let a = &row["advice"];
    assert_eq!(a["basis"], "between", "{row}");
    assert_eq!(a["runs"], 3);
    assert_eq!(a["detect"], 0.02);
    // d = 2 % / 1.414 % = √2: R's power.t.test(delta = sqrt(2), power = .8) gives n = 8.9.
    assert_eq!(a["runs_needed"], 9, "{a}");
    // power.t.test(n = 3, power = .8) gives delta = 3.07 sds.
    let m = a["min_detectable"].as_f64().unwrap();
    assert!((m - 3.07 * 0.014142).abs() < 0.0005, "{m}");
    assert!((row["noise"]["between_cv"].as_f64().unwrap() - 0.014142).abs() < 1e-5);

    // The text is mmtests' unless asked; with advice=1 it names the number.
    let (_, plain) = app.get_text(&format!("{path}&format=text")).await;
    assert!(!plain.contains("advice"), "{plain}");
    let (_, text) = app.get_text(&format!("{path}&format=text&advice=1")).await;
    assert!(
        text.starts_with(&plain[..plain.find("\nPermalink").unwrap()]),
        "{text}"
    );
    assert!(
        text.contains(
            "tput: needs ≥ 9 runs per kernel to tell a 2.0 % change (has 3; between-boot CV 1.4 %)"
        ),
        "{text}"
    );
    // detect= asks about another change.
    let (_, c5) = app.get_json(&format!("{path}&detect=5")).await;
    assert_eq!(c5["rows"][0]["advice"]["detect"], 0.05);
    assert_eq!(
        c5["rows"][0]["advice"]["runs_needed"], 3,
        "{}",
        c5["rows"][0]
    );
    let (_, t5) = app
        .get_text(&format!("{path}&format=text&advice=1&detect=5"))
        .await;
    assert!(
        t5.contains("Every row with a known spread has runs enough."),
        "{t5}"
    );
    for bad in ["detect=0", "detect=101", "detect=x", "advice=maybe"] {
        let r = app
            .client
            .get(app.url(&format!("{path}&{bad}")))
            .send()
            .await
            .unwrap();
        let needle = bad.split('=').next().unwrap();
        assert_error(r, 400, needle).await;
    }
}

/// The trend tests' history: 10 commits × 3 runs × 5 iterations, a step after five.
pub(crate) async fn trend_history(app: &TestApp) {
    let r = app
        .upload_raw(
            "benchmark=netperf&machine=lkp-bdw-de1",
            crate::trend::runs_csv(),
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trend_knows_its_noise_and_what_its_newest_step_needs() {
    let app = spawn_app().await;
    trend_history(&app).await;
    let path = "/api/v1/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps";
    let (status, t) = app.get_json(path).await;
    assert_eq!(status, 200, "{t}");
    let noise = &t["noise"];
    // 10 commits × 3 runs × 5 iterations, the iterations ±5 around the level.
    assert_eq!(noise["n_between"], 30, "{noise}");
    assert_eq!(noise["n_within"], 150, "{noise}");
    let w = noise["within_cv"].as_f64().unwrap();
    assert!(w > 0.0005 && w < 0.003, "{noise}");
    assert!(noise["between_cv"].as_f64().unwrap() > 0.0, "{noise}");
    assert!(noise["dominant"].is_string(), "{noise}");
    let a = &t["advice"];
    assert_eq!(a["detect"], 0.02, "{t}");
    assert_eq!(
        a["runs"], 15,
        "five commits of three runs on either side: {a}"
    );
    assert!(a["min_detectable"].as_f64().unwrap() < 0.02, "{a}");
    assert_eq!(
        a["runs_needed"].as_u64().map(|n| n <= 15),
        Some(true),
        "{a}"
    );
    let (_, text) = app.get_text(&format!("{path}&format=text")).await;
    assert!(text.contains("\nnoise: within-run CV "), "{text}");
    assert!(
        text.contains("\nnewest step: enough runs to tell a 2.0 % change"),
        "{text}"
    );
}

/// The page's "needs ≥ N runs" is about telling a small change: it stands beside a row whose
/// change the runs could not tell, never beside one they did (marked `*`, the review's −47 %).
#[tokio::test(flavor = "multi_thread")]
async fn the_page_gives_run_advice_only_where_no_change_was_told() {
    let app = spawn_app().await;
    three_boots_per_kernel(&app).await;
    for (kernel, level) in [("6.1.0", 100.0), ("6.2.0", 53.0)] {
        for d in [0.0, 1.4, -1.4] {
            let csv = format!(
                "kernel,metric,iteration,value\n{kernel},tput,1,{}\n",
                level + d
            );
            let r = app.upload_raw("benchmark=b&machine=m47", csv).await;
            assert_eq!(r.status().as_u16(), 201);
        }
    }
    let (_, small) = app
        .get_text("/compare?benchmark=b&machine=m&kernels=6.1.0,6.2.0")
        .await;
    assert!(
        small.contains("class=\"advice\""),
        "a 2 % change the runs cannot tell"
    );
    let (status, big) = app
        .get_text("/compare?benchmark=b&machine=m47&kernels=6.1.0,6.2.0")
        .await;
    assert_eq!(status, 200);
    assert!(
        big.contains("class=\"marker\""),
        "the −47 % change is significant"
    );
    assert!(
        !big.contains("class=\"advice\""),
        "and has no run advice beside it"
    );
}
