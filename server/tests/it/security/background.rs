// SPDX-License-Identifier: GPL-3.0-or-later
//! Security findings of the 2026-12-06 audit (issue 51): no input stops the background tasks.
//!
//! Finding 2: a commit name with a multi-byte character across byte 12 panicked `&s[..12]` in
//! the detector on every pass, or in the notifier, for good (and `/`, `/alerts.atom` and
//! `/alerts` with it). Uploads now refuse such a commit, so the reproduction stores the names
//! as a server from before the fix did (rows written into the database, then a restart), and
//! reaches the same code through kernel labels, which stay free text. Then: an item that
//! panics anyway (a fault injected, as a bug would) is set aside while the others are alerted
//! and mailed, and `/healthz`, `/metrics` and `GET /api/v1/background` say so until an admin
//! releases it.

use std::time::{Duration, Instant};

use perfline_server::config::Database;
use serde_json::{json, Value};

use crate::alerts::{settle, start_receiver, start_smtp, summaries, Received, Smtp};
use crate::helpers::*;
use crate::trend::sha;

/// A database of the pass's engine that outlives one server: a SQLite file in `dir`, or a
/// fresh PostgreSQL database.
async fn lasting_database(dir: &tempfile::TempDir) -> Database {
    if on_postgres() {
        Database::Postgres(fresh_postgres().await)
    } else {
        Database::Sqlite(dir.path().join("background.db"))
    }
}

/// A server on `db` that mails a real SMTP server and posts to a webhook receiver (both on
/// loopback), with `configure` applied last.
async fn server_with_receivers(
    db: &Database,
    smtp: &Smtp,
    hook: &str,
    configure: impl FnOnce(&mut perfline_server::Config),
) -> TestApp {
    let port = smtp.port;
    spawn_app_with(|c| {
        c.db = db.clone();
        c.webhooks = vec![hook.to_owned()];
        c.allow_internal_webhooks = true;
        c.smtp = Some(format!("smtp://127.0.0.1:{port}"));
        c.mail_from = Some("Perfline <perfline@example.org>".into());
        c.mail_to = vec!["lkp@lists.example.org".into()];
        c.notify_retry_first_ms = 50;
        configure(c);
    })
    .await
}

/// Commit `i` of a series: one run of five samples at 1000, or 900 from commit 8 on (the
/// detector's defaults want 8 points before a step and 4 after).
fn commit_csv(i: usize) -> String {
    let level = if i < 8 { 1000.0 } else { 900.0 };
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for it in 1..=5 {
        let noise = ((i * 7 + it * 3) % 5) as f64 * 0.4;
        csv.push_str(&format!(
            "v6.{i},{},Throughput_Mbps,{it},{}\n",
            sha(i),
            level + noise
        ));
    }
    csv
}

/// Twelve commits of `benchmark` on `machine`, a 10 % drop at commit 8.
async fn upload_step(app: &TestApp, benchmark: &str, machine: &str) {
    for i in 0..12 {
        let r = app
            .upload_raw(
                &format!("benchmark={benchmark}&machine={machine}"),
                commit_csv(i),
            )
            .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
}

/// A kernel label whose byte 12 falls inside a character: `v6.03-kéééééé` (seven ASCII
/// bytes, then two-byte characters from byte 7).
fn straddling_kernel(i: usize) -> String {
    let k = format!("v6.{i:02}-kéééééé");
    assert!(!k.is_char_boundary(12), "{k}");
    k
}

/// Twelve kernel-only runs of `benchmark` on `machine` (no commit: views print the kernel
/// label where they print a commit), a 10 % drop from the eighth kernel.
async fn upload_kernel_step(app: &TestApp, benchmark: &str, machine: &str) {
    for i in 0..12 {
        let level = if i < 8 { 1000.0 } else { 900.0 };
        let mut csv = String::from("kernel,metric,iteration,value\n");
        for it in 1..=5 {
            csv.push_str(&format!(
                "{},Throughput_Mbps,{it},{}\n",
                straddling_kernel(i),
                level + f64::from(it % 3) * 0.4
            ));
        }
        let r = app
            .upload_raw(&format!("benchmark={benchmark}&machine={machine}"), csv)
            .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
}

/// The commit name of the audit: one hex digit, then `é`s, so byte 12 is inside one.
fn poisoned_commit(i: usize) -> String {
    let c = format!("{i:x}éééééééééééé");
    assert!(!c.is_char_boundary(12), "{c}");
    c
}

/// The subjects of `messages`, decoded (a subject with an `é` is RFC 2047-encoded): by
/// Python's `email` package, as a mail reader would.
fn subjects(messages: &[String]) -> Vec<String> {
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .args([
            "-c",
            "import email, email.policy, json, sys\n\
             ms = json.load(sys.stdin)\n\
             print(json.dumps([str(email.message_from_string(m, policy=email.policy.default)['subject']) for m in ms]))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(messages).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Waits until `smtp` got a mail whose subject contains `needle`; answers the subject.
async fn mail_about(smtp: &Smtp, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = subjects(&smtp.messages());
        if let Some(s) = got.iter().find(|s| s.contains(needle)) {
            return s.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no mail about {needle}; got {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `GET path`, answered within 10 s (`/alerts` once hung): the status and the body.
async fn get_soon(app: &TestApp, path: &str) -> (u16, String) {
    let r = app
        .client
        .get(app.url(path))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    (r.status().as_u16(), r.text().await.unwrap())
}

/// The value of the metric line that starts with `name` in `GET /metrics`.
async fn metric(app: &TestApp, name: &str) -> f64 {
    let (status, text) = get_soon(app, "/metrics").await;
    assert_eq!(status, 200);
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in /metrics:\n{text}"))
}

/// The audit's reproduction, with the names stored as a server from before the fix stored
/// them: the detector (a rule that confirms) and the notifier (a rule that does not) meet
/// commits cut inside a character, and the pages and the feed show them; kernel-only runs
/// with such kernel labels ask for reruns. Nothing stops: every series is alerted, a
/// regression on another machine afterwards is alerted and mailed, `/`, `/alerts`,
/// `/alerts?id=` and `/alerts.atom` answer, and `/healthz` stays `ok`.
#[tokio::test(flavor = "multi_thread")]
async fn a_stored_commit_cut_inside_a_character_stops_no_background_task() {
    let dir = tempfile::tempdir().unwrap();
    let db = lasting_database(&dir).await;
    // The uploads, with nobody detecting yet (`--no-alerts`): their series stay queued.
    let app = spawn_app_with(|c| {
        c.db = db.clone();
        c.no_alerts = true;
    })
    .await;
    let r = app
        .client
        .put(app.url("/api/v1/alert-rules"))
        .json(&json!({"rules": [{"benchmark": "netperf", "confirm": false}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    upload_step(&app, "hackbench", "box-a").await;
    upload_step(&app, "netperf", "box-a").await;
    upload_kernel_step(&app, "ebizzy", "box-k").await;
    // The commits as an older server stored them, before commits were checked at upload.
    let mut other = app.other_connection().await;
    for i in 0..12 {
        other
            .execute(&format!(
                "UPDATE run SET commit_sha = '{}' WHERE commit_sha = '{}'",
                poisoned_commit(i),
                sha(i)
            ))
            .await;
    }
    drop(other);
    app.stop().await;

    // The upgraded server on the same database, mailing and posting.
    let smtp = start_smtp().await;
    let received = Received::default();
    let hook = start_receiver(received.clone()).await;
    let app = server_with_receivers(&db, &smtp, &hook, |_| {}).await;
    settle(&app).await;

    // The detector went through every series: hackbench awaits its reruns, netperf is new,
    // ebizzy awaits reruns of kernels.
    let all = summaries(&app, "status=all").await;
    let of = |benchmark: &str| {
        all.iter()
            .find(|s| s["benchmark"] == benchmark)
            .unwrap_or_else(|| panic!("no summary of {benchmark}: {all:?}"))
            .clone()
    };
    let (hackbench, netperf, ebizzy) = (of("hackbench"), of("netperf"), of("ebizzy"));
    assert_eq!(hackbench["status"], "awaiting-confirmation", "{hackbench}");
    assert_eq!(hackbench["bad"]["sha"], poisoned_commit(8));
    assert_eq!(netperf["status"], "new", "{netperf}");
    assert_eq!(ebizzy["status"], "awaiting-confirmation", "{ebizzy}");
    assert_eq!(ebizzy["bad"]["kernel"], straddling_kernel(8));
    // The notifier rendered netperf's alert: its subject cut after 12 characters, not bytes.
    let short: String = poisoned_commit(8).chars().take(12).collect();
    let subject = mail_about(&smtp, "box-a").await;
    assert!(
        subject.contains("netperf") && subject.contains(&format!("at {short}")),
        "{subject}"
    );
    // The reruns asked name the commits cut on characters too.
    let (status, detail) = app
        .get_json(&format!("/api/v1/alerts/{}", hackbench["id"]))
        .await;
    assert_eq!(status, 200, "{detail}");
    let reasons: Vec<&str> = detail["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons.iter().any(|r| r.contains(&short)),
        "{short}: {reasons:?}"
    );

    // Pages and the feed show them.
    for path in [
        "/".to_owned(),
        "/alerts".to_owned(),
        format!("/alerts?id={}", hackbench["id"]),
        format!("/alerts?id={}", ebizzy["id"]),
        format!("/alerts?id={}", netperf["id"]),
        "/alerts.atom".to_owned(),
    ] {
        let (status, body) = get_soon(&app, &path).await;
        assert_eq!(status, 200, "GET {path}: {body}");
    }
    let (_, page) = get_soon(&app, &format!("/alerts?id={}", ebizzy["id"])).await;
    let kernel_short: String = straddling_kernel(7).chars().take(12).collect();
    assert!(page.contains(&kernel_short), "{kernel_short} on the page");

    // A regression elsewhere afterwards is still alerted and mailed.
    upload_step(&app, "netperf", "box-b").await;
    settle(&app).await;
    let b = summaries(&app, "machine=box-b").await;
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0]["status"], "new");
    let subject = mail_about(&smtp, "box-b").await;
    assert!(
        subject.contains(&sha(8)[..12]),
        "the mail names the first bad commit: {subject}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while received.hooks.lock().unwrap().len() < 2 {
        assert!(Instant::now() < deadline, "the webhooks did not arrive");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Nothing failed, so nothing says so.
    let (status, health) = get_soon(&app, "/healthz").await;
    assert_eq!((status, health.as_str()), (200, "ok\n"));
    assert_eq!(
        metric(
            &app,
            "perfline_background_failures_total{task=\"detector\"}"
        )
        .await,
        0.0
    );
    assert_eq!(
        metric(&app, "perfline_background_quarantined_items").await,
        0.0
    );
    app.stop().await;
}

/// Upload `commit_csv` commits of netperf on `machine` one by one, interleaved with those
/// on `other`, so the detector meets both in the same batches.
async fn upload_two(app: &TestApp, machine: &str, other: &str) {
    for i in 0..12 {
        for m in [machine, other] {
            let r = app
                .upload_raw(&format!("benchmark=netperf&machine={m}"), commit_csv(i))
                .await;
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        }
    }
}

/// `GET /api/v1/background`.
async fn background(app: &TestApp) -> Value {
    let (status, v) = app.get_json("/api/v1/background").await;
    assert_eq!(status, 200, "{v}");
    v
}

/// A series whose examination panics (a fault injected, as a bug would) is set aside: logged,
/// counted, quarantined, while the series beside it in the same batches is alerted and mailed.
/// `/healthz` and `/metrics` say so; a restart does not try it again; an admin releases it
/// and it is examined (and alerted) then.
#[tokio::test(flavor = "multi_thread")]
async fn a_series_that_panics_is_set_aside_and_the_others_are_alerted() {
    let dir = tempfile::tempdir().unwrap();
    let db = lasting_database(&dir).await;
    let smtp = start_smtp().await;
    let hook = start_receiver(Received::default()).await;
    let poisoned = |c: &mut perfline_server::Config| c.fail_items = Some("on box-poison".into());
    let app = server_with_receivers(&db, &smtp, &hook, poisoned).await;
    crate::alerts::no_confirmation(&app).await;
    upload_two(&app, "box-poison", "box-ok").await;
    settle(&app).await;

    // The other series: alerted and mailed.
    assert_eq!(summaries(&app, "machine=box-ok").await.len(), 1);
    mail_about(&smtp, "box-ok").await;
    assert!(summaries(&app, "machine=box-poison").await.is_empty());

    // The poisoned one: set aside, and said so.
    let v = background(&app).await;
    assert_eq!(v["healthy"], false, "{v}");
    let q = v["quarantined"].as_array().unwrap();
    assert_eq!(q.len(), 1, "{v}");
    assert_eq!(q[0]["task"], "detector");
    assert_eq!(q[0]["kind"], "series");
    assert!(
        q[0]["what"]
            .as_str()
            .unwrap()
            .contains("netperf Throughput_Mbps on box-poison"),
        "{v}"
    );
    assert!(
        q[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("panicked: fault injected"),
        "{v}"
    );
    let detector = &v["tasks"][0];
    assert_eq!(detector["name"], "detector");
    assert_eq!(detector["state"], "ok", "the task goes on: {v}");
    assert!(detector["failures"].as_u64().unwrap() >= 1, "{v}");
    let (status, health) = get_soon(&app, "/healthz").await;
    assert_eq!(status, 200, "a load balancer keeps the server: {health}");
    assert!(health.starts_with("degraded: 1 item set aside"), "{health}");
    assert!(!health.contains("box-poison"), "no stored name on /healthz");
    assert!(
        metric(
            &app,
            "perfline_background_failures_total{task=\"detector\"}"
        )
        .await
            >= 1.0
    );
    assert_eq!(
        metric(&app, "perfline_background_quarantined_items").await,
        1.0
    );
    let id = q[0]["id"].as_i64().unwrap();
    app.stop().await;

    // Restarted (still poisoned): the series is not tried again, even when uploaded to.
    let app = server_with_receivers(&db, &smtp, &hook, poisoned).await;
    let r = app
        .upload_raw("benchmark=netperf&machine=box-poison", commit_csv(12))
        .await;
    assert_eq!(r.status().as_u16(), 201);
    settle(&app).await;
    let v = background(&app).await;
    assert_eq!(v["quarantined"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["tasks"][0]["failures"], 0, "not tried again: {v}");
    let (_, health) = get_soon(&app, "/healthz").await;
    assert!(health.contains("1 item set aside"), "{health}");
    app.stop().await;

    // Fixed (the fault gone), an admin releases it: examined, alerted, mailed.
    let app = server_with_receivers(&db, &smtp, &hook, |_| {}).await;
    let r = app
        .client
        .delete(app.url(&format!("/api/v1/background/quarantine/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let r = app
        .client
        .delete(app.url(&format!("/api/v1/background/quarantine/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404, "released once");
    let deadline = Instant::now() + Duration::from_secs(20);
    while summaries(&app, "machine=box-poison").await.is_empty() {
        assert!(
            Instant::now() < deadline,
            "the released series was not examined"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    settle(&app).await;
    mail_about(&smtp, "box-poison").await;
    let (status, health) = get_soon(&app, "/healthz").await;
    assert_eq!((status, health.as_str()), (200, "ok\n"));
    assert_eq!(
        metric(&app, "perfline_background_quarantined_items").await,
        0.0
    );
    let (status, audit) = app.get_json("/api/v1/audit").await;
    assert_eq!(status, 200);
    assert!(audit.to_string().contains("quarantine.release"), "{audit}");
    app.stop().await;
}

/// An event whose rendering panics is set aside by the notifier, and the next event still
/// goes out by mail; `/healthz` and `/metrics` name it.
#[tokio::test(flavor = "multi_thread")]
async fn an_event_that_panics_is_set_aside_and_later_ones_are_mailed() {
    let dir = tempfile::tempdir().unwrap();
    let db = lasting_database(&dir).await;
    let smtp = start_smtp().await;
    let hook = start_receiver(Received::default()).await;
    // The first summary's `new` event.
    let app = server_with_receivers(&db, &smtp, &hook, |c| {
        c.fail_items = Some("event 1 of alert summary 1".into());
    })
    .await;
    crate::alerts::no_confirmation(&app).await;
    upload_step(&app, "netperf", "box-first").await;
    settle(&app).await;
    upload_step(&app, "netperf", "box-second").await;
    settle(&app).await;
    mail_about(&smtp, "box-second").await;
    assert!(
        !subjects(&smtp.messages())
            .iter()
            .any(|s| s.contains("box-first")),
        "the poisoned event is not mailed"
    );
    let v = background(&app).await;
    let q = v["quarantined"].as_array().unwrap();
    assert_eq!(q.len(), 1, "{v}");
    assert_eq!(q[0]["task"], "notifier");
    assert_eq!(q[0]["kind"], "event");
    assert_eq!(q[0]["item_id"], 1);
    let (_, health) = get_soon(&app, "/healthz").await;
    assert!(health.starts_with("degraded: 1 item set aside"), "{health}");
    assert!(
        metric(
            &app,
            "perfline_background_failures_total{task=\"notifier\"}"
        )
        .await
            >= 1.0
    );
    assert_eq!(
        metric(&app, "perfline_background_task_up{task=\"notifier\"}").await,
        1.0,
        "the notifier's passes go through"
    );
    app.stop().await;
}

/// A summary whose confirmation check panics is set aside and announced at once, saying so:
/// set aside it would await confirmation for ever, and its timeout would never raise it (a
/// review of issue 51). The summary beside it is confirmed as usual.
#[tokio::test(flavor = "multi_thread")]
async fn a_confirmation_that_panics_announces_its_regression_unconfirmed() {
    let dir = tempfile::tempdir().unwrap();
    let db = lasting_database(&dir).await;
    let smtp = start_smtp().await;
    let hook = start_receiver(Received::default()).await;
    let app = server_with_receivers(&db, &smtp, &hook, |c| {
        c.fail_items = Some("(netperf on box-poison)".into());
    })
    .await;
    // The default rules confirm by reruns.
    upload_step(&app, "netperf", "box-poison").await;
    settle(&app).await;
    let subject = mail_about(&smtp, "box-poison").await;
    assert!(subject.contains("regression"), "{subject}");
    let (_, v) = app
        .get_json("/api/v1/alerts?status=all&machine=box-poison")
        .await;
    let s = &v["summaries"][0];
    assert_eq!(s["status"], "new", "{s}");
    assert!(
        s["confirmation"]
            .as_str()
            .unwrap_or_default()
            .starts_with("announced without confirmation: checking the reruns failed"),
        "{s}"
    );
    let v = background(&app).await;
    let q = v["quarantined"].as_array().unwrap();
    assert_eq!(q.len(), 1, "{v}");
    assert_eq!(q[0]["task"], "confirmation");
    assert_eq!(q[0]["kind"], "summary");
    app.stop().await;
}
