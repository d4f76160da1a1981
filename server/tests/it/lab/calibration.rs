// SPDX-License-Identifier: GPL-3.0-or-later
//! A/A calibration runs measure noise; they are not points of a trend.

use serde_json::Value;

use crate::alerts::{no_confirmation, settle, summaries, upload_commit_on, upload_history};
use crate::helpers::*;

/// Ten A/A boots of `machine` (round `round`), no commit (`calibration=aa`).
async fn calibrate(app: &TestApp, machine: &str, round: usize) {
    let mut csv = String::from("kernel,metric,iteration,value\n");
    for boot in 0..10 {
        for it in 1..=5 {
            let v = 2500.0 + f64::from((boot * 7 + it * 3) % 11) - 5.0;
            csv.push_str(&format!(
                "6.10.0-boot{round}-{boot},Throughput_Mbps,{it},{v}\n"
            ));
        }
    }
    let r = app
        .upload_multipart(
            &[("boots.csv", csv.into_bytes())],
            &[
                ("benchmark", "netperf"),
                ("machine", machine),
                ("calibration", "aa"),
            ],
        )
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

async fn stream_with_a_step(app: &TestApp, machine: &str) {
    for i in (0..24).step_by(2) {
        upload_commit_on(app, machine, i, 2500.0, None).await;
    }
    for i in (24..32).step_by(2) {
        upload_commit_on(app, machine, i, 2250.0, None).await;
    }
}

fn points(trend: &Value) -> &Vec<Value> {
    trend["points"].as_array().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn calibration_runs_are_not_trend_points_and_do_not_silence_alerts() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    upload_history(&app, 40, None).await;
    // Calibrated before the robot's stream, calibrated in the middle of it, never calibrated.
    calibrate(&app, "before", 0).await;
    stream_with_a_step(&app, "before").await;
    for i in (0..24).step_by(2) {
        upload_commit_on(&app, "middle", i, 2500.0, None).await;
    }
    calibrate(&app, "middle", 0).await;
    for i in (24..32).step_by(2) {
        upload_commit_on(&app, "middle", i, 2250.0, None).await;
    }
    stream_with_a_step(&app, "never").await;
    settle(&app).await;
    for machine in ["before", "middle", "never"] {
        let found = summaries(&app, &format!("machine={machine}")).await;
        assert_eq!(found.len(), 1, "{machine}: {found:?}");
        let (status, trend) = app
            .get_json(&format!(
                "/api/v1/trend?benchmark=netperf&machine={machine}&metric=Throughput_Mbps"
            ))
            .await;
        assert_eq!(status, 200, "{trend}");
        // 16 commits of 3 runs each: no point without a commit, no 6.10.0 kernel.
        assert_eq!(points(&trend).len(), 16, "{machine}: {trend}");
        assert!(
            points(&trend).iter().all(|p| p["sha"].is_string()),
            "{machine}: {trend}"
        );
        assert!(!trend.to_string().contains("6.10.0-boot"), "{machine}");
    }
    // The calibration still reads its runs.
    let (status, report) = app
        .get_json("/api/v1/calibration?benchmark=netperf&machine=middle")
        .await;
    assert_eq!(status, 200, "{report}");
    assert!(report.to_string().contains("Throughput_Mbps"), "{report}");
}

/// Enough A/A runs to fill trend blocks on their own: still no trend point.
#[tokio::test(flavor = "multi_thread")]
async fn calibration_runs_never_reach_a_trend_block() {
    let app = spawn_app().await;
    upload_history(&app, 40, None).await;
    for round in 0..4 {
        calibrate(&app, "aa-box", round).await;
    }
    for i in 0..4 {
        upload_commit_on(&app, "aa-box", i, 2500.0, None).await;
    }
    for round in 4..8 {
        calibrate(&app, "aa-box", round).await;
    }
    let (status, trend) = app
        .get_json("/api/v1/trend?benchmark=netperf&machine=aa-box&metric=Throughput_Mbps")
        .await;
    assert_eq!(status, 200, "{trend}");
    assert_eq!(points(&trend).len(), 4, "{trend}");
}
