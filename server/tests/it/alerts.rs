// SPDX-License-Identifier: GPL-3.0-or-later
//! Regression alerts as the robot and the engineer on duty meet them: a step in uploads, one
//! summary with where to bisect, triage by token, rules changed at run time, improvements that
//! undo regressions, and notifications to a real HTTP receiver and a real SMTP server on
//! loopback, across a restart of Perfline while a receiver is down.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app::alerts::{AlertPage, AlertStatus, AlertSummary, WorkKind, WorkList};
use app::label::Direction;
use perfline_server::http::auth::AuthMode;
use serde_json::{json, Value};

use crate::helpers::*;
use crate::trend::sha;

/// `git log --format='%H %ct %s'` of `n` commits, newest first.
pub(crate) fn git_log(n: usize) -> String {
    (0..n)
        .rev()
        .map(|i| format!("{} {} commit number {i}\n", sha(i), 1_700_000_000 + i * 60))
        .collect()
}

/// The robot's upload of commit `i`: three runs of five samples at `level` with ±0.2% noise.
pub(crate) fn commit_csv(i: usize, level: f64) -> String {
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for run in 0..3 {
        for it in 1..=5 {
            let noise = (((i * 31 + run * 7 + it * 3) % 11) as f64 - 5.0) * level / 2500.0;
            csv.push_str(&format!(
                "v6.{i}-{run},{},Throughput_Mbps,{it},{}\n",
                sha(i),
                level + noise
            ));
        }
    }
    csv
}

/// A rerun of commit `i` (three runs, like the robot's uploads), its noise of its own.
pub(crate) fn rerun_csv(i: usize, level: f64, round: u64) -> String {
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for run in 0..3 {
        for it in 1..=5 {
            let k = i * 17 + run * 5 + it * 3 + round as usize * 13;
            let noise = ((k % 11) as f64 - 5.0) * level / 2500.0;
            csv.push_str(&format!(
                "v6.{i}-rerun{round}-{run},{},Throughput_Mbps,{it},{}\n",
                sha(i),
                level + noise
            ));
        }
    }
    csv
}

pub(crate) async fn upload_commit(app: &TestApp, i: usize, level: f64, bearer: Option<&str>) {
    upload_commit_on(app, "lkp-bdw-de1", i, level, bearer).await;
}

pub(crate) async fn upload_commit_on(
    app: &TestApp,
    machine: &str,
    i: usize,
    level: f64,
    bearer: Option<&str>,
) {
    let mut r = app
        .client
        .post(app.url(&format!(
            "/api/v1/upload?benchmark=netperf&machine={machine}"
        )))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(commit_csv(i, level));
    if let Some(t) = bearer {
        r = r.bearer_auth(t);
    }
    let r = r.send().await.unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

pub(crate) async fn upload_history(app: &TestApp, n: usize, bearer: Option<&str>) {
    let mut r = app
        .client
        .post(app.url("/api/v1/commits?repo=linux&branch=master"))
        .body(git_log(n));
    if let Some(t) = bearer {
        r = r.bearer_auth(t);
    }
    assert_eq!(r.send().await.unwrap().status().as_u16(), 201);
}

/// Waits until the detector has examined every queued series and every event is in the outbox.
pub(crate) async fn settle(app: &TestApp) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let jobs = app.store.alert_jobs(1).await.unwrap();
        let events = app.store.unnotified_events(1).await.unwrap();
        if jobs.is_empty() && events.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the alert pipeline did not settle"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The metrics of a summary's alerts.
fn alerted_metrics(s: &Value) -> Vec<&str> {
    s["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["metric"].as_str().unwrap())
        .collect()
}

/// One rule for every series: steps alert at once, without reruns (for the tests of what
/// follows an alert).
pub(crate) async fn no_confirmation(app: &TestApp) {
    let r = app
        .client
        .put(app.url("/api/v1/alert-rules"))
        .json(&json!({"rules": [{"confirm": false}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
}

pub(crate) async fn summaries(app: &TestApp, query: &str) -> Vec<Value> {
    let (status, v) = app.get_json(&format!("/api/v1/alerts?{query}")).await;
    assert_eq!(status, 200, "{v}");
    v["summaries"].as_array().unwrap().clone()
}

/// Two machines whose throughput drops at commit 24 (lkp-bdw-de1, 6.2%) and later
/// (lkp-skl-d01, 10% at commit 16): two open regressions, for the browser test.
pub(crate) async fn two_regressions(app: &TestApp) {
    no_confirmation(app).await;
    robot_with_a_step(app, None).await;
    upload_commit(app, 30, 2345.0, None).await;
    for i in (0..24).step_by(2) {
        let level = if i < 16 { 1000.0 } else { 900.0 };
        upload_commit_on(app, "lkp-skl-d01", i, level, None).await;
    }
    settle(app).await;
    assert_eq!(summaries(app, "status=open").await.len(), 2);
}

/// The robot tests every other commit; throughput drops 6.2% at commit 24.
pub(crate) async fn robot_with_a_step(app: &TestApp, bearer: Option<&str>) {
    upload_history(app, 40, bearer).await;
    for i in (0..24).step_by(2) {
        upload_commit(app, i, 2500.0, bearer).await;
    }
    for i in (24..30).step_by(2) {
        upload_commit(app, i, 2345.0, bearer).await;
    }
}

/// An LKP job of commit `i` (run `run`): the KPI, two keys without a direction that move with
/// it, one that does not move, and a failure key that appears with the step.
fn lkp_job(i: usize, run: usize, stepped: bool) -> String {
    let noise = 1.0 + (((i * 31 + run * 7) % 11) as f64 - 5.0) / 2500.0;
    let (kpi, pages, profile) = if stepped {
        (2345.0, 1200.0, 12.5)
    } else {
        (2500.0, 1000.0, 10.0)
    };
    format!(
        r#"{{"netperf.Throughput_Mbps": {}, "proc-vmstat.nr_free_pages": {}, "perf-profile.children.cycles-pp.tcp_sendmsg": {}, "sched_debug.cpu.nr_switches": {}, "dmesg.WARNING:at_tcp_sendmsg": {}}}"#,
        kpi * noise,
        pages * noise,
        profile * noise,
        5000.0 * noise,
        u8::from(stepped)
    )
}

/// Issue 28: a robot's LKP jobs with a KPI step and keys without a direction moving at the
/// same commit: one summary, about the KPI, and the other keys ride along as its supporting
/// rows (seed 001's rows under the KPI), not as summaries of their own.
#[tokio::test(flavor = "multi_thread")]
async fn an_lkp_step_is_one_kpi_summary_with_the_changed_keys_alongside() {
    let app = spawn_app().await;
    upload_history(&app, 40, None).await;
    for i in (0..32).step_by(2) {
        for run in 0..3 {
            let r = app
                .client
                .post(app.url(&format!(
                    "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1&kernel=4.19.0-rc1\
                     &commit={}&format=lkp-stats",
                    sha(i)
                )))
                .body(lkp_job(i, run, i >= 24))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        }
    }
    settle(&app).await;
    let all: AlertPage = app.get("/api/v1/alerts?status=all").await;
    assert_eq!(all.summaries.len(), 1, "{all:#?}");
    let s = &all.summaries[0];
    let metrics: Vec<&str> = s.alerts.iter().map(|a| a.metric.as_str()).collect();
    assert_eq!(metrics, ["netperf.Throughput_Mbps"]);
    assert_eq!(s.good.sha.as_deref(), Some(sha(22).as_str()));
    assert_eq!(s.bad.sha.as_deref(), Some(sha(24).as_str()));
    // The list stays light; one summary carries its supporting rows.
    assert!(s.supporting.is_empty());
    let one: AlertSummary = app.get(&format!("/api/v1/alerts/{}", s.id)).await;
    let rows: Vec<(&str, Direction, f64, bool)> = one
        .supporting
        .iter()
        .map(|r| {
            (
                r.metric.as_str(),
                r.direction,
                // In percent to the nearest one (the noise moves it a little), else to 0.1.
                if r.absolute {
                    (r.change * 10.0).round() / 10.0
                } else {
                    r.change.round()
                },
                r.absolute,
            )
        })
        .collect();
    // lkp-tests' order (failure stats first); perf-profile's change absolute, the others in
    // percent; the unmoved key is not there, nor the KPI (the summary's own).
    assert_eq!(
        rows,
        [
            (
                "dmesg.WARNING:at_tcp_sendmsg",
                Direction::Lower,
                100.0,
                true
            ),
            (
                "perf-profile.children.cycles-pp.tcp_sendmsg",
                Direction::Unknown,
                2.5,
                true
            ),
            ("proc-vmstat.nr_free_pages", Direction::Unknown, 20.0, false),
        ]
    );
    assert_eq!(one.supporting_total, 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_step_in_robot_uploads_raises_one_summary_that_says_where_to_bisect() {
    let app = spawn_app().await;
    robot_with_a_step(&app, None).await;
    settle(&app).await;
    // Three commits at the new level: not yet believed (min_after 4).
    assert!(summaries(&app, "status=all").await.is_empty());

    upload_commit(&app, 30, 2345.0, None).await;
    settle(&app).await;
    let all: AlertPage = app.get("/api/v1/alerts?status=all").await;
    assert_eq!(all.summaries.len(), 1, "{all:?}");
    // Found, but nobody is told before reruns of its two commits confirm it.
    let s = &all.summaries[0];
    assert_eq!(s.status, AlertStatus::AwaitingConfirmation);
    assert!(s.confirmation.is_none());
    let requests = &s.requests;
    assert_eq!(requests.len(), 2, "{s:?}");
    let work: WorkList = app.get("/api/v1/work?machine=lkp-bdw-de1").await;
    assert_eq!(&work.requests, requests);
    let good = &requests[0];
    assert_eq!(good.kind, WorkKind::Confirm);
    assert_eq!(good.alert, Some(s.id));
    assert!(good.bisection.is_none());
    assert_eq!(
        (
            good.benchmark.as_str(),
            good.machine.as_str(),
            good.metric.as_str(),
            good.param.as_str()
        ),
        ("netperf", "lkp-bdw-de1", "Throughput_Mbps", "")
    );
    assert_eq!(good.commit, sha(22));
    assert_eq!(requests[1].commit, sha(24));
    let runs = u64::from(good.runs);
    assert!((2..=10).contains(&runs), "{runs}");
    assert_eq!(good.received, 0);
    assert!(
        good.reason.starts_with("confirm the -6.2 % step of netperf.Throughput_Mbps on lkp-bdw-de1: rerun the last good commit"),
        "{good:?}"
    );
    let other: WorkList = app.get("/api/v1/work?machine=other").await;
    assert!(other.requests.is_empty());
    let one: AlertSummary = app.get(&format!("/api/v1/alerts/{}", s.id)).await;
    assert_eq!(one.events[0].kind, "awaiting");
    let good_id = good.id;
    assert!(
        app.store.unnotified_events(1).await.unwrap().is_empty(),
        "nothing to announce"
    );
    // The robot reruns both commits (each upload of this robot is three runs), naming the
    // request on one and only the commit on the other.
    for (i, level, request) in [(22, 2500.0, Some(good_id)), (24, 2345.0, None)] {
        let mut uploaded = 0;
        while uploaded < runs {
            let mut url = "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1".to_owned();
            if let Some(id) = request {
                url = format!("/api/v1/upload?request={id}");
            }
            let csv = rerun_csv(i, level, uploaded);
            let r = app
                .client
                .post(app.url(&url))
                .header("content-type", "text/csv")
                .body(csv)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
            uploaded += 3;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    let s = loop {
        settle(&app).await;
        let s = summaries(&app, "status=all").await[0].clone();
        if s["status"] != "awaiting-confirmation" {
            break s;
        }
        assert!(Instant::now() < deadline, "never confirmed: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(s["status"], "new");
    assert!(s["requests"].as_array().unwrap().is_empty());
    let confirmation = s["confirmation"].as_str().unwrap();
    assert!(
        confirmation.starts_with(
            "confirmed by reruns (1 of 1 metric reproduced): Throughput_Mbps: the -6.2 % step; the last good commit"
        ),
        "{confirmation}"
    );
    assert!(
        app.get_json("/api/v1/work?machine=lkp-bdw-de1").await.1["requests"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(s["benchmark"], "netperf");
    assert_eq!(s["machine"], "lkp-bdw-de1");
    assert_eq!(s["good"]["sha"], sha(22));
    assert_eq!(s["bad"]["sha"], sha(24));
    assert_eq!(s["history"], "linux/master");
    assert_eq!(s["between"], 1);
    assert_eq!(s["regressions"], 1);
    let a = &s["alerts"][0];
    assert_eq!(a["metric"], "Throughput_Mbps");
    assert_eq!(a["regression"], true);
    let pct = a["change_pct"].as_f64().unwrap();
    assert!((pct - -6.2).abs() < 0.2, "{pct}");
    assert!(a["p_value"].as_f64().unwrap() <= 0.001);
    assert_eq!(a["points_before"], 12);
    assert_eq!(a["points_after"], 4);
    assert_eq!(a["spark"].as_array().unwrap().len(), 16);
    assert_eq!(a["spark_step"], 12);

    // One summary in full: the bisect command and the creation event.
    let id = s["id"].as_i64().unwrap();
    let (status, one) = app.get_json(&format!("/api/v1/alerts/{id}")).await;
    assert_eq!(status, 200);
    let kinds: Vec<&str> = one["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["awaiting", "confirmed"]);
    assert_eq!(one["events"][1]["actor"], "perfline");

    // More commits at the new level refine the step; they raise nothing new.
    for i in (32..40).step_by(2) {
        upload_commit(&app, i, 2345.0, None).await;
    }
    settle(&app).await;
    assert_eq!(summaries(&app, "status=all").await.len(), 1);

    // Filters.
    assert_eq!(summaries(&app, "").await.len(), 1);
    assert_eq!(
        summaries(&app, "direction=regression&status=open")
            .await
            .len(),
        1
    );
    assert!(summaries(&app, "direction=improvement").await.is_empty());
    assert!(summaries(&app, "machine=other").await.is_empty());
    assert_eq!(summaries(&app, "metric=Throughput_Mbps").await.len(), 1);
    assert!(summaries(&app, "metric=Throughput").await.is_empty());
    assert!(summaries(&app, "since=2999-01-01").await.is_empty());
    assert_eq!(
        summaries(&app, "since=2000-01-01&benchmark=netperf")
            .await
            .len(),
        1
    );
    let r = app
        .client
        .get(app.url("/api/v1/alerts?since=yesterday"))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "since must be a date").await;
    let r = app
        .client
        .get(app.url("/api/v1/alerts/999"))
        .send()
        .await
        .unwrap();
    assert_error(r, 404, "no alert summary 999").await;

    // The Atom feed has it.
    let (status, content_type, feed) = app.get_accept("/alerts.atom", "*/*").await;
    assert_eq!(status, 200);
    assert!(
        content_type.starts_with("application/atom+xml"),
        "{content_type}"
    );
    assert!(
        feed.contains(&format!(
            "netperf.Throughput_Mbps -6.2% regression on lkp-bdw-de1 at {}",
            &sha(24)[..12]
        )),
        "{feed}"
    );

    // The dashboard leads with it.
    let (status, page) = app.get_text("/").await;
    assert_eq!(status, 200);
    assert!(
        page.contains("id=\"open-regressions\""),
        "the dashboard shows open regressions"
    );
    let (status, page) = app.get_text("/alerts").await;
    assert_eq!(status, 200);
    assert!(page.contains(&format!("git bisect start {} {}", sha(24), sha(22))));
}

async fn patch(app: &TestApp, id: i64, body: Value, bearer: Option<&str>) -> reqwest::Response {
    let mut r = app
        .client
        .patch(app.url(&format!("/api/v1/alerts/{id}")))
        .json(&body);
    if let Some(t) = bearer {
        r = r.bearer_auth(t);
    }
    r.send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn triage_needs_the_mark_scope_and_every_change_is_recorded() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let robot = token(&app, "robot-lkp-01", "upload").await;
    let alice = token(&app, "alice", "mark").await;
    robot_with_a_step(&app, Some(&robot)).await;
    upload_commit(&app, 30, 2345.0, Some(&robot)).await;
    settle(&app).await;
    let all = summaries(&app, "").await;
    assert_eq!(all.len(), 1);
    let id = all[0]["id"].as_i64().unwrap();

    let ack =
        json!({"status": "acknowledged", "assignee": "alice", "note": "looking at the TCP change"});
    assert_error(patch(&app, id, ack.clone(), None).await, 401, "token").await;
    assert_error(
        patch(&app, id, ack.clone(), Some(&robot)).await,
        403,
        "mark",
    )
    .await;
    let r = patch(&app, id, ack, Some(&alice)).await;
    assert_eq!(r.status().as_u16(), 200);
    let s: Value = r.json().await.unwrap();
    assert_eq!(s["status"], "acknowledged");
    assert_eq!(s["assignee"], "alice");
    assert_eq!(s["note"], "looking at the TCP change");
    let events = s["events"].as_array().unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(events[1]["actor"], "alice");
    assert_eq!(events[1]["status"], "acknowledged");

    // Bad changes are refused in the envelope, and change nothing.
    assert_error(
        patch(&app, id, json!({"status": "closed"}), Some(&alice)).await,
        400,
        "status",
    )
    .await;
    assert_error(
        patch(&app, id, json!({}), Some(&alice)).await,
        400,
        "nothing to change",
    )
    .await;
    assert_error(
        patch(&app, id, json!({"note": "x".repeat(5000)}), Some(&alice)).await,
        400,
        "note is longer",
    )
    .await;
    assert_error(
        patch(
            &app,
            id,
            json!({"status": "fixed", "fixed_by": 77}),
            Some(&alice),
        )
        .await,
        400,
        "no other alert summary 77",
    )
    .await;
    assert_error(
        patch(&app, 999, json!({"status": "invalid"}), Some(&alice)).await,
        404,
        "no alert summary",
    )
    .await;

    let r = patch(&app, id, json!({"status": "wontfix"}), Some(&alice)).await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        summaries(&app, "status=open").await.is_empty(),
        "wontfix is not open"
    );
    assert_eq!(summaries(&app, "status=wontfix").await.len(), 1);
    assert_eq!(
        summaries(&app, "status=wontfix,acknowledged").await.len(),
        1
    );

    // The audit trail says who triaged.
    let admin = token(&app, "lead", "admin").await;
    let audit: Value = app
        .client
        .get(app.url("/api/v1/audit"))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let triaged = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "alert.triage" && e["actor"] == "alice")
        .count();
    assert_eq!(triaged, 2, "{audit}");
}

#[tokio::test(flavor = "multi_thread")]
async fn rules_change_what_alerts_without_a_restart() {
    let app = spawn_app().await;
    let put = |rules: Value| {
        let app = &app;
        async move {
            app.client
                .put(app.url("/api/v1/alert-rules"))
                .json(&json!({ "rules": rules }))
                .send()
                .await
                .unwrap()
        }
    };
    assert_error(
        put(json!([{"metric": "["}])).await,
        400,
        "rule 1: metric pattern",
    )
    .await;
    assert_error(put(json!([{"alpha": 2.0}])).await, 400, "alpha").await;
    assert_error(
        put(json!([{"min_local_t": -1.0}])).await,
        400,
        "min_local_t",
    )
    .await;
    assert_error(put(json!([{"colour": "red"}])).await, 400, "colour").await;
    let r = put(json!([{"benchmark": "net*", "metric": "Throughput*", "ignore": true}])).await;
    assert_eq!(r.status().as_u16(), 200);
    let (_, rules) = app.get_json("/api/v1/alert-rules").await;
    assert_eq!(rules["rules"][0]["benchmark"], "net*");
    assert_eq!(rules["defaults"]["min_after"], 4);
    assert_eq!(rules["defaults"]["min_local_t"], 7.0);

    robot_with_a_step(&app, None).await;
    upload_commit(&app, 30, 2345.0, None).await;
    settle(&app).await;
    assert!(summaries(&app, "status=all").await.is_empty(), "ignored");

    // A rule that asks for a 10% change still ignores a 6.2% step.
    let r = put(json!([{"benchmark": "netperf", "min_change_pct": 10.0}])).await;
    assert_eq!(r.status().as_u16(), 200);
    upload_commit(&app, 32, 2345.0, None).await;
    settle(&app).await;
    assert!(summaries(&app, "status=all").await.is_empty(), "below 10%");

    // A rule's min_local_t is kept as given (the detector's use of it: `detect::tests`).
    let r =
        put(json!([{"benchmark": "netperf", "min_change_pct": 10.0, "min_local_t": 0.5}])).await;
    assert_eq!(r.status().as_u16(), 200);
    let (_, rules) = app.get_json("/api/v1/alert-rules").await;
    assert_eq!(rules["rules"][0]["min_local_t"], 0.5);

    // The defaults again: the next upload's detection finds it.
    assert_eq!(put(json!([])).await.status().as_u16(), 200);
    upload_commit(&app, 34, 2345.0, None).await;
    settle(&app).await;
    assert_eq!(summaries(&app, "status=all").await.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_improvement_that_undoes_a_regression_fixes_it() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    upload_history(&app, 60, None).await;
    for i in 0..12 {
        upload_commit(&app, i, 2500.0, None).await;
    }
    for i in 12..20 {
        upload_commit(&app, i, 2300.0, None).await;
    }
    settle(&app).await;
    let first = summaries(&app, "").await;
    assert_eq!(first.len(), 1);
    let regression = first[0]["id"].as_i64().unwrap();
    for i in 20..28 {
        upload_commit(&app, i, 2495.0, None).await;
    }
    settle(&app).await;
    let all = summaries(&app, "status=all").await;
    assert_eq!(all.len(), 2, "{all:?}");
    let improvement = &all[0];
    assert_eq!(improvement["alerts"][0]["regression"], false);
    assert_eq!(improvement["improvements"], 1);
    assert_eq!(improvement["fixes"], json!([regression]));
    let (_, fixed) = app.get_json(&format!("/api/v1/alerts/{regression}")).await;
    assert_eq!(fixed["status"], "fixed");
    assert_eq!(fixed["fixed_by"], improvement["id"]);
    let last = fixed["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["actor"], "perfline");
    assert_eq!(last["status"], "fixed");
}

/// One request a webhook receiver got: its headers and body.
pub(crate) type Hook = (axum::http::HeaderMap, Vec<u8>);

/// What a webhook receiver got.
#[derive(Clone, Default)]
pub(crate) struct Received {
    pub(crate) hooks: Arc<Mutex<Vec<Hook>>>,
    /// While true, the receiver answers 503 (and records nothing).
    down: Arc<std::sync::atomic::AtomicBool>,
    refused: Arc<std::sync::atomic::AtomicUsize>,
}

pub(crate) async fn start_receiver(received: Received) -> String {
    use axum::routing::post;
    use std::sync::atomic::Ordering;
    let app = axum::Router::new().route(
        "/hook",
        post(
            |axum::extract::State(r): axum::extract::State<Received>,
             headers: axum::http::HeaderMap,
             body: axum::body::Bytes| async move {
                if r.down.load(Ordering::SeqCst) {
                    r.refused.fetch_add(1, Ordering::SeqCst);
                    return axum::http::StatusCode::SERVICE_UNAVAILABLE;
                }
                r.hooks.lock().unwrap().push((headers, body.to_vec()));
                axum::http::StatusCode::NO_CONTENT
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app.with_state(received))
            .await
            .unwrap();
    });
    format!("http://{addr}/hook")
}

/// A server that mails a real SMTP server and posts to a webhook receiver, both on loopback,
/// retrying quickly; the server, the SMTP server and what the receiver got.
pub(crate) async fn app_with_receivers() -> (TestApp, Smtp, Received) {
    let received = Received::default();
    let hook = start_receiver(received.clone()).await;
    let smtp = start_smtp().await;
    let port = smtp.port;
    let app = spawn_app_with(|c| {
        c.webhooks = vec![hook.clone()];
        // The receiver is on loopback, an internal address refused without the flag.
        c.allow_internal_webhooks = true;
        c.smtp = Some(format!("smtp://127.0.0.1:{port}"));
        c.mail_from = Some("Perfline <perfline@example.org>".into());
        c.mail_to = vec!["lkp@lists.example.org".into()];
        c.notify_retry_first_ms = 50;
    })
    .await;
    (app, smtp, received)
}

/// A real SMTP server on loopback: Python's aiosmtpd with its Maildir handler (installed by
/// `scripts/ensure-tools`). Killed when dropped.
pub(crate) struct Smtp {
    child: std::process::Child,
    pub(crate) port: u16,
    maildir: tempfile::TempDir,
}

impl Drop for Smtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) async fn start_smtp() -> Smtp {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let maildir = tempfile::tempdir().unwrap();
    let child = std::process::Command::new("python3")
        .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
        .args(["-c", "aiosmtpd.handlers.Mailbox"])
        .arg(maildir.path().join("Maildir"))
        .spawn()
        .expect("python3 -m aiosmtpd (scripts/ensure-tools installs it)");
    let deadline = Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "aiosmtpd did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Smtp {
        child,
        port,
        maildir,
    }
}

impl Smtp {
    /// The messages delivered so far, as stored (LF line ends).
    pub(crate) fn messages(&self) -> Vec<String> {
        let dir = self.maildir.path().join("Maildir/new");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
            .collect()
    }
}

/// The unfolded value of a header of a raw message.
pub(crate) fn header(message: &str, name: &str) -> Option<String> {
    let message = message.replace("\r\n", "\n");
    let head = message.split("\n\n").next()?;
    let unfolded = head.replace("\n ", " ").replace("\n\t", " ");
    unfolded.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
    })
}

/// The body of a raw message, quoted-printable soft breaks joined.
pub(crate) fn body_of(message: &str) -> String {
    let message = message.replace("\r\n", "\n");
    let body = message.split_once("\n\n").map_or("", |(_, b)| b);
    body.replace("=\n", "").replace("=3D", "=")
}

#[tokio::test(flavor = "multi_thread")]
async fn internal_webhooks_are_refused_at_start_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (url, host, why)) in [
        (
            "http://169.254.169.254/hook",
            "169.254.169.254",
            "a link-local address",
        ),
        ("http://[::1]:1/x", "[::1]", "a loopback address"),
        ("http://10.0.0.7/hook", "10.0.0.7", "a private address"),
        (
            "http://[fd00::7]/hook",
            "[fd00::7]",
            "a unique-local address",
        ),
        (
            "http://[::ffff:a9fe:a9fe]/hook",
            "[::ffff:a9fe:a9fe]",
            "a link-local address",
        ),
        ("http://localhost:8080/hook", "localhost", "a loopback name"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut config = perfline_server::Config::for_db(dir.path().join(format!("{i}.db")));
        config.webhooks = vec![url.to_owned()];
        let err = match perfline_server::AppState::new(config).await {
            Ok(_) => panic!("{url} was accepted"),
            Err(e) => format!("{e:#}"),
        };
        assert!(err.contains(url), "{err}");
        assert!(err.contains(&format!("{host} is {why}")), "{err}");
        assert!(err.contains("--allow-internal-webhooks"), "{err}");
    }
    // A public address needs no flag.
    let mut config = perfline_server::Config::for_db(dir.path().join("public.db"));
    config.webhooks = vec!["https://hooks.example.org/perfline".into()];
    perfline_server::AppState::new(config)
        .await
        .expect("a public webhook is accepted");
    // With the flag, Perfline starts and serves.
    let app = spawn_app_with(|c| {
        c.webhooks = vec![
            "http://169.254.169.254/hook".into(),
            "http://[::1]:1/x".into(),
        ];
        c.allow_internal_webhooks = true;
    })
    .await;
    let (status, _) = app.get_text("/healthz").await;
    assert_eq!(status, 200);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn notifications_arrive_signed_threaded_and_in_order_across_a_restart() {
    let received = Received::default();
    received
        .down
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let hook = start_receiver(received.clone()).await;
    let smtp = start_smtp().await;
    let smtp_port = smtp.port;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("alerts.db");
    let configure = |c: &mut perfline_server::Config| {
        c.db = perfline_server::config::Database::Sqlite(db.clone());
        c.webhooks = vec![hook.clone()];
        // The receiver is on loopback, an internal address refused without the flag.
        c.allow_internal_webhooks = true;
        c.webhook_secret = Some("s3cret".into());
        c.smtp = Some(format!("smtp://127.0.0.1:{smtp_port}"));
        c.mail_from = Some("Perfline <perfline@example.org>".into());
        c.mail_to = vec!["lkp@lists.example.org".into(), "netdev@example.org".into()];
        c.notify_retry_first_ms = 50;
        c.notify_retry_max = 1;
    };
    let app = spawn_app_with(configure).await;
    no_confirmation(&app).await;
    robot_with_a_step(&app, None).await;
    upload_commit(&app, 30, 2345.0, None).await;
    settle(&app).await;
    let id = summaries(&app, "").await[0]["id"].as_i64().unwrap();
    let r = patch(
        &app,
        id,
        json!({"status": "acknowledged", "note": "on it"}),
        None,
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    settle(&app).await;

    // The receiver is down: the deliverer keeps trying.
    let deadline = Instant::now() + Duration::from_secs(10);
    while received.refused.load(std::sync::atomic::Ordering::SeqCst) < 3 {
        assert!(Instant::now() < deadline, "no retries");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(received.hooks.lock().unwrap().is_empty());
    // Perfline stops in the middle of retrying.
    app.stop().await;

    // It starts again on the same database; the receiver comes back.
    received
        .down
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let app = spawn_app_with(configure).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while received.hooks.lock().unwrap().len() < 2 {
        assert!(
            Instant::now() < deadline,
            "the webhooks did not arrive after the restart"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let hooks = received.hooks.lock().unwrap().clone();
    assert_eq!(hooks.len(), 2, "each event exactly once");
    let events: Vec<Value> = hooks
        .iter()
        .map(|(headers, body)| {
            assert_eq!(
                headers["x-perfline-signature"].to_str().unwrap(),
                perfline_server::services::alerts::notify::signature("s3cret", body),
                "signed with the secret"
            );
            assert_eq!(headers["content-type"], "application/json");
            serde_json::from_slice(body).unwrap()
        })
        .collect();
    assert_eq!(events[0]["event"], "alert.new", "in order");
    assert_eq!(events[1]["event"], "alert.status");
    assert_eq!(events[1]["summary"]["status"], "acknowledged");
    assert_eq!(events[0]["summary"]["id"], id);
    assert!(events[0]["bisect"].as_str().unwrap().starts_with(&format!(
        "git bisect start {} {}",
        sha(24),
        sha(22)
    )));
    assert!(events[0]["links"]["trend"]
        .as_str()
        .unwrap()
        .contains("/trend?benchmark=netperf"));

    // Two mails, the second threaded under the first.
    let deadline = Instant::now() + Duration::from_secs(10);
    while smtp.messages().len() < 2 {
        assert!(Instant::now() < deadline, "the mails did not arrive");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mails = smtp.messages();
    assert_eq!(mails.len(), 2);
    let (first, second): (Vec<&String>, Vec<&String>) = mails
        .iter()
        .partition(|m| header(m, "In-Reply-To").is_none());
    let (first, second) = (first[0], second[0]);
    assert_eq!(
        header(first, "X-RcptTo").unwrap(),
        "lkp@lists.example.org, netdev@example.org"
    );
    let subject = header(first, "Subject").unwrap();
    assert_eq!(
        subject,
        format!(
            "[perfline] netperf.Throughput_Mbps -6.2% regression on lkp-bdw-de1 at {}",
            &sha(24)[..12]
        )
    );
    let message_id = header(first, "Message-ID").unwrap();
    assert_eq!(message_id, format!("<perfline-alert-{id}@127.0.0.1>"));
    let body = body_of(first);
    assert!(
        body.contains("FYI, Perfline noticed a -6.2% regression"),
        "{body}"
    );
    assert!(body.contains(&format!(
        "\n  git bisect start {} {}\n  1 commit between them",
        &sha(24)[..12],
        &sha(22)[..12]
    )));
    assert!(body.contains("The trend, the commit range highlighted:\n  http://"));
    assert!(
        body.contains("Permalink:"),
        "the report of /api/v1/report is in the mail"
    );
    let ours = body.split("\n\n\n").next().unwrap();
    for line in ours
        .lines()
        .filter(|l| !l.trim_start().starts_with("http://"))
    {
        assert!(line.chars().count() <= 80, "line over 80 columns: {line:?}");
    }
    assert_eq!(header(second, "In-Reply-To").unwrap(), message_id);
    assert!(header(second, "Subject")
        .unwrap()
        .starts_with("Re: [perfline]"));
    assert!(body_of(second).contains("set this alert to acknowledged"));
    app.stop().await;
}

/// Series queued by uploads survive a stop: a server without the detector (`--no-alerts`)
/// stores the uploads and their jobs; the next server on the same file examines them.
#[tokio::test(flavor = "multi_thread")]
async fn queued_series_are_examined_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("queued.db");
    let app = spawn_app_with(|c| {
        c.db = perfline_server::config::Database::Sqlite(db.clone());
        c.no_alerts = true;
    })
    .await;
    robot_with_a_step(&app, None).await;
    upload_commit(&app, 30, 2345.0, None).await;
    assert_eq!(
        app.store.alert_jobs(10).await.unwrap().len(),
        1,
        "one series queued"
    );
    assert!(summaries(&app, "status=all").await.is_empty());
    app.stop().await;

    let app =
        spawn_app_with(|c| c.db = perfline_server::config::Database::Sqlite(db.clone())).await;
    settle(&app).await;
    let all = summaries(&app, "status=all").await;
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["bad"]["sha"], sha(24));
    app.stop().await;
}

/// Commit `i` with two metrics: throughput drops 6 % from commit `tput_step`, latency rises
/// 8 % from commit `lat_step`.
fn two_metrics_csv(i: usize, tput_step: usize, lat_step: usize) -> String {
    let mut csv = String::from("kernel,commit,metric,iteration,value,direction\n");
    for it in 1..=5 {
        let noise = 1.0 + (((i * 31 + it * 3) % 11) as f64 - 5.0) / 2500.0;
        let tput = if i < tput_step { 2500.0 } else { 2350.0 };
        let lat = if i < lat_step { 50.0 } else { 54.0 };
        csv.push_str(&format!(
            "v6.{i},{},Throughput_Mbps,{it},{},higher\nv6.{i},{},latency_us,{it},{},lower\n",
            sha(i),
            tput * noise,
            sha(i),
            lat * noise
        ));
    }
    csv
}

#[tokio::test]
async fn one_step_is_one_summary_and_a_bisection_moves_it_to_the_culprit() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    upload_history(&app, 60, None).await;
    // Every other commit: throughput steps at 24, latency (noisier to find) at 26, which
    // the detector sees at neighbouring commits.
    let upload = |i: usize| {
        let app = &app;
        async move {
            let r = app
                .client
                .post(app.url("/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1"))
                .body(two_metrics_csv(i, 24, 26))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        }
    };
    for i in (0..24).step_by(2) {
        upload(i).await;
    }
    settle(&app).await;
    // Throughput's step is found first (latency has not lasted four commits yet) ...
    for i in (24..32).step_by(2) {
        upload(i).await;
        settle(&app).await;
    }
    // ... and latency's a commit later, joined to the same summary.
    for i in (32..40).step_by(2) {
        upload(i).await;
    }
    settle(&app).await;
    let all = summaries(&app, "status=all").await;
    assert_eq!(all.len(), 1, "{all:#?}");
    let s = &all[0];
    let metrics = alerted_metrics(s);
    assert_eq!(metrics.len(), 2, "{metrics:?}");
    assert!(metrics.contains(&"Throughput_Mbps") && metrics.contains(&"latency_us"));
    assert_eq!(s["good"]["sha"], sha(22));
    assert_eq!(s["bad"]["sha"], sha(24));
    assert_eq!(s["between"], 1);

    // A bisection of 22..24 ends on 23: the summary moves there, with an event.
    let log = format!(
        "git bisect start\n# bad: [{b}] commit number 24\ngit bisect bad {b}\n\
         # good: [{g}] commit number 22\ngit bisect good {g}\n\
         # bad: [{c}] commit number 23\ngit bisect bad {c}\n\
         # first bad commit: [{c}] commit number 23\n",
        b = sha(24),
        g = sha(22),
        c = sha(23)
    );
    let r = app
        .client
        .post(app.url("/api/v1/bisect"))
        .body(log)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = r.json().await.unwrap();
    let id = s["id"].as_i64().unwrap();
    assert_eq!(v["moved_alerts"], json!([id]), "{v}");
    let (status, one) = app.get_json(&format!("/api/v1/alerts/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(one["good"]["sha"], sha(22));
    assert_eq!(one["bad"]["sha"], sha(23));
    assert_eq!(one["between"], 0);
    assert_eq!(one["alerts"].as_array().unwrap().len(), 2);
    let last = one["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["kind"], "bisected", "{one:#}");
    // Later uploads do not raise the step again at its old place.
    for i in (40..44).step_by(2) {
        upload(i).await;
    }
    settle(&app).await;
    assert_eq!(summaries(&app, "status=all").await.len(), 1);
}

/// An upload (`POST /api/v1/upload?{query}` of `body`) that must be stored.
async fn stored(app: &TestApp, query: &str, body: String) {
    let r = app.upload_raw(query, body).await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

/// One detector pass over the series of two benchmarks on two machines (read together, a
/// benchmark on a machine at a time): each stepped series is found, and steps at the same
/// commit of different benchmarks or machines stay separate summaries.
#[tokio::test]
async fn one_pass_over_several_benchmarks_and_machines_finds_each_step_apart() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    upload_history(&app, 60, None).await;
    // (benchmark, machine, throughput's step, latency's step); 1000: none.
    let series = [
        ("netperf", "m1", 24, 1000),
        ("netperf", "m2", 1000, 1000),
        ("hackbench", "m1", 1000, 24),
        ("hackbench", "m2", 24, 24),
    ];
    for i in (0..40).step_by(2) {
        for (benchmark, machine, tput, lat) in series {
            stored(
                &app,
                &format!("benchmark={benchmark}&machine={machine}"),
                two_metrics_csv(i, tput, lat),
            )
            .await;
        }
    }
    settle(&app).await;
    let mut found: Vec<(String, String, Vec<String>, Value)> = summaries(&app, "status=all")
        .await
        .iter()
        .map(|s| {
            let mut metrics: Vec<String> =
                alerted_metrics(s).into_iter().map(str::to_owned).collect();
            metrics.sort();
            (
                s["benchmark"].as_str().unwrap().to_owned(),
                s["machine"].as_str().unwrap().to_owned(),
                metrics,
                s["bad"]["sha"].clone(),
            )
        })
        .collect();
    found.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let both = vec!["Throughput_Mbps".to_owned(), "latency_us".to_owned()];
    assert_eq!(
        found,
        [
            (
                "hackbench".into(),
                "m1".into(),
                vec!["latency_us".to_owned()],
                json!(sha(24))
            ),
            ("hackbench".into(), "m2".into(), both, json!(sha(24))),
            (
                "netperf".into(),
                "m1".into(),
                vec!["Throughput_Mbps".to_owned()],
                json!(sha(24))
            ),
        ]
    );
    // Every queued series was examined.
    assert!(app.store.alert_jobs(1).await.unwrap().is_empty());
}

/// A step in more series of one benchmark than a pass holds trends of at once (64) is still
/// one summary with every series' alert: the pieces of a benchmark join the same step.
#[tokio::test]
async fn a_step_in_a_hundred_series_is_one_summary_of_a_hundred_alerts() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    upload_history(&app, 60, None).await;
    for i in (0..36).step_by(2) {
        let mut csv = String::from("kernel,commit,metric,iteration,value,direction\n");
        for m in 0..100 {
            for it in 1..=3 {
                let noise = 1.0 + (((i * 31 + it * 3) % 11) as f64 - 5.0) / 2500.0;
                let level = if i < 24 { 1000.0 } else { 900.0 } + f64::from(m);
                csv.push_str(&format!(
                    "v6.{i},{},ops_{m:03},{it},{},higher\n",
                    sha(i),
                    level * noise
                ));
            }
        }
        stored(&app, "benchmark=wide&machine=m1", csv).await;
    }
    settle(&app).await;
    let all = summaries(&app, "status=all").await;
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(alerted_metrics(&all[0]).len(), 100);
    assert_eq!(all[0]["bad"]["sha"], sha(24));
}

/// Commit `i`'s value of a metric whose name says nothing of its direction.
fn widgets_csv(i: usize, level: f64) -> String {
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for it in 1..=5 {
        let noise = 1.0 + (((i * 31 + it * 3) % 11) as f64 - 5.0) / 2500.0;
        csv.push_str(&format!(
            "v6.{i},{},nr_widgets,{it},{}\n",
            sha(i),
            level * noise
        ));
    }
    csv
}

#[tokio::test(flavor = "multi_thread")]
async fn directions_come_from_the_upload_or_a_rule_else_changes_do_not_alert() {
    let app = spawn_app().await;
    upload_history(&app, 60, None).await;
    let upload = |query: &'static str, i: usize, level: f64| {
        let app = &app;
        async move {
            let r = app
                .client
                .post(app.url(&format!(
                    "/api/v1/upload?benchmark=widgets&machine=m1{query}"
                )))
                .body(widgets_csv(i, level))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
            let v: Value = r.json().await.unwrap();
            v["runs"][0]["id"].as_i64().unwrap()
        }
    };
    let direction = |id: i64| {
        let app = &app;
        async move {
            let (_, run) = app.get_json(&format!("/api/v1/runs/{id}")).await;
            run["series"][0]["direction"].as_str().unwrap().to_owned()
        }
    };
    // Nothing says which way is better: the metric has no direction, and its step of +8 %
    // is a change, not a regression.
    for i in 0..12 {
        upload("", i, 100.0).await;
    }
    let last = upload("", 12, 108.0).await;
    assert_eq!(direction(last).await, "unknown");
    for i in 13..17 {
        upload("", i, 108.0).await;
    }
    settle(&app).await;
    assert!(summaries(&app, "status=all").await.is_empty());

    // An upload may state it (the field repeats; a bad one is a 422 naming the field).
    let r = app
        .client
        .post(app.url("/api/v1/upload?benchmark=widgets&machine=m2&direction=nr_widgets"))
        .body(widgets_csv(0, 1.0))
        .send()
        .await
        .unwrap();
    assert_error(r, 422, "direction must be METRIC:higher").await;
    let id = upload(
        "&direction=nr_widgets:lower&direction=other:higher",
        17,
        108.0,
    )
    .await;
    assert_eq!(direction(id).await, "lower");

    // A rule gives it to the uploads that follow on another machine: a regression there.
    let r = app
        .client
        .put(app.url("/api/v1/alert-rules"))
        .json(&json!({"rules": [{"benchmark": "widgets", "metric": "nr_*", "direction": "lower"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (_, rules) = app.get_json("/api/v1/alert-rules").await;
    assert_eq!(rules["rules"][0]["direction"], "lower");
    let upload_on = |i: usize, level: f64| {
        let app = &app;
        async move {
            let r = app
                .client
                .post(app.url("/api/v1/upload?benchmark=widgets&machine=m3"))
                .body(widgets_csv(i, level))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201);
        }
    };
    for i in 0..12 {
        upload_on(i, 100.0).await;
    }
    for i in 12..17 {
        upload_on(i, 108.0).await;
    }
    settle(&app).await;
    let all = summaries(&app, "status=all").await;
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0]["machine"], "m3");
    assert_eq!(all[0]["alerts"][0]["direction"], "lower");
    assert_eq!(all[0]["alerts"][0]["regression"], true);
}
