// SPDX-License-Identifier: GPL-3.0-or-later
//! The loop closes itself: a rule that names a history bisects its confirmed regressions;
//! one robot running `perfline work` does the reruns and then the bisection's commits, and
//! the culprit mail follows in the alert's thread, with no person in between.

use serde_json::json;

use crate::alerts::{app_with_receivers, body_of, header, settle, summaries};
use crate::bisect::{upload, world};
use crate::client::{perfline, stderr};

#[tokio::test(flavor = "multi_thread")]
async fn a_rule_naming_a_history_bisects_a_confirmed_regression_with_no_one_in_between() {
    let (app, smtp, _) = app_with_receivers().await;
    let r = app
        .client
        .put(app.url("/api/v1/alert-rules"))
        .json(&json!({"rules": [{"benchmark": "netperf", "history": "linux/master"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let (_, rules) = app.get_json("/api/v1/alert-rules").await;
    assert_eq!(rules["rules"][0]["history"], "linux/master", "{rules}");
    let root = tempfile::tempdir().unwrap();
    let culprit = 77;
    let shas = world(&app, root.path(), culprit).await;
    for i in (0..128).step_by(8) {
        let level = if i < culprit { 2500.0 } else { 2345.0 };
        upload(&app, "lkp-bdw-de1", i, &shas[i], level).await;
    }
    settle(&app).await;
    assert_eq!(
        summaries(&app, "status=all").await[0]["status"],
        "awaiting-confirmation"
    );

    // One robot, one command: the reruns, then the bisection's commits.
    let out = perfline(
        &app.base,
        &[
            "work",
            "--machine",
            "lkp-bdw-de1",
            "--robot",
            "robot-1",
            "--exec",
            "sh bench.sh {commit}",
            "--settle",
            "30",
        ],
        Some(root.path()),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("(bisection 1"),
        "the robot ran the bisection's commits: {said}"
    );

    let (status, b) = app.get_json("/api/v1/bisections/1").await;
    assert_eq!(status, 200, "{b}");
    assert_eq!(b["state"], "done", "{b}");
    assert_eq!(b["culprit"], shas[culprit].as_str());
    assert_eq!(b["created_by"], "perfline");
    let mails = super::culprit_mails(&smtp).await;
    let alert = summaries(&app, "status=all").await[0].clone();
    let culprit_mail = mails
        .iter()
        .find(|m| body_of(m).contains("Perfline bisected it"))
        .unwrap();
    assert!(header(culprit_mail, "In-Reply-To")
        .unwrap()
        .starts_with(&format!("<perfline-alert-{}@", alert["id"])));
    assert_eq!(
        mails
            .iter()
            .filter(|m| body_of(m).contains("Perfline bisected it"))
            .count(),
        1,
        "one culprit mail"
    );
    let (_, full) = app
        .get_json(&format!("/api/v1/alerts/{}", alert["id"]))
        .await;
    assert_eq!(full["bad"]["sha"], shas[culprit].as_str(), "{full}");
    let kinds: Vec<&str> = full["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["awaiting", "confirmed", "bisecting", "bisected"],
        "{full}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_rule_that_bisects_nothing_starts_by_itself() {
    let (app, _smtp, _) = app_with_receivers().await;
    crate::alerts::no_confirmation(&app).await;
    let root = tempfile::tempdir().unwrap();
    let shas = world(&app, root.path(), 77).await;
    for i in (0..128).step_by(8) {
        let level = if i < 77 { 2500.0 } else { 2345.0 };
        upload(&app, "lkp-bdw-de1", i, &shas[i], level).await;
    }
    settle(&app).await;
    settle(&app).await;
    let (_, list) = app.get_json("/api/v1/bisections").await;
    assert!(list["bisections"].as_array().unwrap().is_empty(), "{list}");
    // Its timeline is the detector's and nothing more (a rule added later bisects the
    // regressions announced after it).
    let alert = summaries(&app, "status=all").await[0]["id"].clone();
    let (_, full) = app.get_json(&format!("/api/v1/alerts/{alert}")).await;
    let kinds: Vec<&str> = full["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["new"], "{full}");
}
