// SPDX-License-Identifier: GPL-3.0-or-later
//! Bisect marks belong to their bisection: a cancelled or failed one's verdicts leave the
//! trend, and a later bisection of the series is the one the trend shows.

use serde_json::Value;

use crate::alerts::{no_confirmation, settle, summaries};
use crate::bisect::{upload, world};
use crate::client::{perfline, stderr};
use crate::helpers::*;

async fn trend_point(app: &TestApp, sha: &str) -> Value {
    let (_, trend) = app
        .get_json("/api/v1/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps")
        .await;
    trend["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["sha"] == sha)
        .cloned()
        .unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_bisections_marks_leave_the_trend_and_the_next_one_is_shown() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    let root = tempfile::tempdir().unwrap();
    let culprit = 77;
    let shas = world(&app, root.path(), culprit).await;
    for i in (0..128).step_by(8) {
        let level = if i < culprit { 2500.0 } else { 2345.0 };
        upload(&app, "lkp-bdw-de1", i, &shas[i], level).await;
    }
    settle(&app).await;
    let alert = summaries(&app, "status=all").await[0]["id"].to_string();
    let out = perfline(&app.base, &["bisect", "start", "--alert", &alert], None).await;
    assert!(out.status.success(), "{}", stderr(&out));

    // Bisection 1: its ends rerun as they were, then the first commit between them runs at
    // the bad level (the machine misbehaved), so it is marked bad; then it is cancelled.
    let mut first = String::new();
    for round in 0..20 {
        let (_, next) = app.post_json("/api/v1/bisections/1/next").await;
        if let Some(commit) = next["commit"].as_str() {
            let i = shas.iter().position(|s| s == commit).unwrap();
            let level = if i == 72 { 2500.0 } else { 2345.0 };
            if i != 72 && i != 80 {
                first = commit.to_owned();
            }
            upload(&app, "lkp-bdw-de1", i + 1000 * (round + 1), commit, level).await;
        }
        let (_, b) = app.get_json("/api/v1/bisections/1").await;
        let marked = b["tested"].as_array().unwrap().iter().any(|t| {
            t["commit"] != shas[72].as_str()
                && t["commit"] != shas[80].as_str()
                && t["verdict"] == "bad"
        });
        if marked {
            break;
        }
    }
    assert!(
        !first.is_empty(),
        "a commit between the ends was handed out"
    );
    let i = shas.iter().position(|s| *s == first).unwrap();
    assert!(i < culprit, "{i}: marked bad though before the culprit");
    assert_eq!(
        trend_point(&app, &first).await["mark"],
        "bad",
        "shown while it runs"
    );
    let r = app
        .client
        .delete(app.url("/api/v1/bisections/1"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let point = trend_point(&app, &first).await;
    assert!(
        point["mark"].is_null(),
        "a cancelled bisection marks nothing: {point}"
    );

    // Bisection 2 runs to the end: the trend shows its verdicts only.
    let out = perfline(&app.base, &["bisect", "start", "--alert", &alert], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = perfline(
        &app.base,
        &[
            "bisect",
            "run",
            "--bisection",
            "2",
            "--exec",
            "sh bench.sh {commit}",
        ],
        Some(root.path()),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let bad = trend_point(&app, &shas[culprit]).await;
    assert_eq!(bad["mark"], "bad", "{bad}");
    assert_eq!(bad["first_bad"], true, "{bad}");
    let parent = trend_point(&app, &shas[culprit - 1]).await;
    assert_eq!(parent["mark"], "good", "{parent}");
    // The cancelled bisection's page shows its own verdicts, not the later one's.
    let (_, b1) = app.get_json("/api/v1/bisections/1").await;
    assert_eq!(b1["state"], "cancelled");
    assert!(b1["culprit"].is_null(), "{b1}");
}

/// Two machines whose steps fall in one range of the shared history: the culprit found on one
/// moves that machine's alert only (it moved every open alert whose range held the commit,
/// so another machine's alert was mailed a culprit that was not its own).
#[tokio::test(flavor = "multi_thread")]
async fn a_culprit_moves_only_the_alert_its_bisection_came_from() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    let root = tempfile::tempdir().unwrap();
    let shas = world(&app, root.path(), 77).await;
    for i in (0..128).step_by(8) {
        upload(
            &app,
            "lkp-bdw-de1",
            i,
            &shas[i],
            if i < 77 { 2500.0 } else { 2345.0 },
        )
        .await;
        upload(
            &app,
            "other-box",
            i,
            &shas[i],
            if i < 74 { 2500.0 } else { 2345.0 },
        )
        .await;
    }
    settle(&app).await;
    let mine = summaries(&app, "status=all&machine=lkp-bdw-de1").await[0]["id"].to_string();
    let other = summaries(&app, "status=all&machine=other-box").await[0].clone();
    assert_eq!(other["good"]["sha"], shas[72].as_str());
    assert_eq!(other["bad"]["sha"], shas[80].as_str());
    let out = perfline(&app.base, &["bisect", "start", "--alert", &mine], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = perfline(
        &app.base,
        &[
            "bisect",
            "run",
            "--bisection",
            "1",
            "--exec",
            "sh bench.sh {commit}",
        ],
        Some(root.path()),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    settle(&app).await;
    let moved = summaries(&app, "status=all&machine=lkp-bdw-de1").await[0].clone();
    assert_eq!(moved["bad"]["sha"], shas[77].as_str(), "{moved}");
    let still = summaries(&app, "status=all&machine=other-box").await[0].clone();
    assert_eq!(still["good"]["sha"], shas[72].as_str(), "{still}");
    assert_eq!(still["bad"]["sha"], shas[80].as_str(), "{still}");
}
