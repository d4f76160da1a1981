// SPDX-License-Identifier: GPL-3.0-or-later
//! Alerts confirmed by reruns before anyone is told, as a robot meets them: the real server on
//! port 0, `perfline work` (the real binary) running a fake benchmark script for what
//! `GET /api/v1/work` asks, a real SMTP server and a webhook receiver on loopback.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::alerts::*;
use crate::helpers::*;
use crate::trend::sha;

/// A fake benchmark: prints one run (five iterations) of the level `levels.txt` gives the
/// commit on the machine, with a little noise of its own per call.
const BENCH: &str = r#"#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > count
awk -v m="$PERFLINE_MACHINE" -v c="$1" -v n="$n" '
  $1 == m && $2 == c { level = $3 }
  END {
    if (level == "") { print "no level for " m " " c > "/dev/stderr"; exit 1 }
    print "kernel,commit,metric,iteration,value"
    for (it = 1; it <= 5; it++)
      printf "rerun-%d,%s,Throughput_Mbps,%d,%.3f\n", n, c, it, level * (1 + ((n * 7 + it * 3) % 11 - 5) / 2500)
  }' levels.txt
"#;

/// `perfline ARGS` in `dir` against `server`, off the runtime's threads.
async fn perfline(server: &str, args: &[&str], dir: &Path) -> Output {
    let (server, dir) = (server.to_owned(), dir.to_path_buf());
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_perfline"))
            .args(&args)
            .env("PERFLINE_SERVER", server)
            .env_remove("PERFLINE_TOKEN")
            .current_dir(dir)
            .output()
            .expect("perfline runs")
    })
    .await
    .unwrap()
}

/// The one summary of `machine`.
async fn summary_of(app: &TestApp, machine: &str) -> Value {
    let all = summaries(app, &format!("status=all&machine={machine}")).await;
    assert_eq!(all.len(), 1, "{all:?}");
    all[0].clone()
}

/// Waits until the summary of `machine` is no longer awaiting confirmation.
async fn settled(app: &TestApp, machine: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = summary_of(app, machine).await;
        if s["status"] != "awaiting-confirmation" {
            settle(app).await;
            return s;
        }
        assert!(Instant::now() < deadline, "never settled: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_robot_confirms_a_real_step_dismisses_a_false_one_and_only_the_real_one_is_mailed() {
    let (app, smtp, received) = app_with_receivers().await;
    // lkp-bdw-de1's throughput really drops at commit 24; flaky-box's uploads dropped at 24
    // too (a bad week for the machine), but its reruns today show no step.
    robot_with_a_step(&app, None).await;
    upload_commit(&app, 30, 2345.0, None).await;
    for i in (0..32).step_by(2) {
        let level = if i < 24 { 2500.0 } else { 2345.0 };
        upload_commit_on(&app, "flaky-box", i, level, None).await;
    }
    settle(&app).await;
    for machine in ["lkp-bdw-de1", "flaky-box"] {
        let s = summary_of(&app, machine).await;
        assert_eq!(s["status"], "awaiting-confirmation", "{s}");
        assert_eq!(s["requests"].as_array().unwrap().len(), 2, "{s}");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        smtp.messages().is_empty(),
        "nothing mailed before confirmation"
    );
    assert!(received.hooks.lock().unwrap().is_empty(), "nor posted");

    // `request=` fills in what an upload leaves out, and refuses what contradicts it.
    let (_, work) = app.get_json("/api/v1/work?machine=flaky-box").await;
    let id = work["requests"][0]["id"].as_i64().unwrap();
    let r = app
        .client
        .post(app.url(&format!("/api/v1/upload?request={id}&machine=lkp-bdw-de1")))
        .body(rerun_csv(22, 2500.0, 99))
        .send()
        .await
        .unwrap();
    assert_error(
        r,
        422,
        &format!("request {id} is for machine flaky-box, not lkp-bdw-de1"),
    )
    .await;
    let r = app
        .client
        .post(app.url("/api/v1/upload?request=999999"))
        .body(rerun_csv(22, 2500.0, 99))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "there is no work request 999999").await;
    let r = app
        .client
        .get(app.url("/api/v1/work"))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "machine").await;

    // The robots run what is asked of them.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bench.sh"), BENCH).unwrap();
    let mut levels = String::new();
    for i in 0..40 {
        let real = if i < 24 { 2500.0 } else { 2345.0 };
        levels.push_str(&format!(
            "lkp-bdw-de1 {} {real}\nflaky-box {} 2500\n",
            sha(i),
            sha(i)
        ));
    }
    std::fs::write(dir.path().join("levels.txt"), levels).unwrap();
    for machine in ["lkp-bdw-de1", "flaky-box"] {
        let out = perfline(
            &app.base,
            &[
                "work",
                "--machine",
                machine,
                "--exec",
                "sh bench.sh {commit}",
                "--settle",
                "20",
            ],
            dir.path(),
        )
        .await;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains(&format!("no work for {machine}")),
            "{stderr}"
        );
        assert!(stderr.contains("run 1 of"), "{stderr}");
    }
    let real = settled(&app, "lkp-bdw-de1").await;
    assert_eq!(real["status"], "new");
    let text = real["confirmation"].as_str().unwrap();
    assert!(
        text.starts_with("confirmed by reruns (1 of 1 metric reproduced): Throughput_Mbps: the ")
            && text.contains(" % step; the last good commit"),
        "{text}"
    );
    let flaky = settled(&app, "flaky-box").await;
    assert_eq!(flaky["status"], "unconfirmed");
    let text = flaky["confirmation"].as_str().unwrap();
    assert!(
        text.starts_with(
            "not reproduced, dismissed as noise: Throughput_Mbps: the last good commit"
        ) && text.contains("and so did the newer commit"),
        "{text}"
    );
    let (_, one) = app
        .get_json(&format!("/api/v1/alerts/{}", flaky["id"]))
        .await;
    let kinds: Vec<&str> = one["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["awaiting", "unconfirmed"]);
    assert!(
        app.get_json("/api/v1/work?machine=flaky-box").await.1["requests"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // One mail and one webhook: the confirmed step's, saying how it was confirmed.
    let deadline = Instant::now() + Duration::from_secs(20);
    while smtp.messages().is_empty() || received.hooks.lock().unwrap().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the confirmed alert was not announced"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mails = smtp.messages();
    assert_eq!(mails.len(), 1, "{mails:?}");
    let subject = header(&mails[0], "Subject").unwrap();
    assert!(subject.contains("regression on lkp-bdw-de1"), "{subject}");
    let body = body_of(&mails[0]);
    assert!(
        body.contains("Confirmation:\n  confirmed by reruns"),
        "{body}"
    );
    let hooks = received.hooks.lock().unwrap().clone();
    assert_eq!(hooks.len(), 1);
    let event: Value = serde_json::from_slice(&hooks[0].1).unwrap();
    assert_eq!(event["event"], "alert.new");
    assert_eq!(event["summary"]["machine"], "lkp-bdw-de1");
    assert_eq!(event["summary"]["status"], "new");
    assert!(event["summary"]["confirmation"]
        .as_str()
        .unwrap()
        .starts_with("confirmed by reruns"));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_reruns_an_alert_is_announced_after_the_timeout_saying_so() {
    let smtp = start_smtp().await;
    let port = smtp.port;
    let app = spawn_app_with(|c| {
        c.confirm_timeout = 1;
        c.smtp = Some(format!("smtp://127.0.0.1:{port}"));
        c.mail_from = Some("Perfline <perfline@example.org>".into());
        c.mail_to = vec!["lkp@lists.example.org".into()];
    })
    .await;
    robot_with_a_step(&app, None).await;
    upload_commit(&app, 30, 2345.0, None).await;
    settle(&app).await;
    let s = settled(&app, "lkp-bdw-de1").await;
    assert_eq!(s["status"], "new");
    let text = s["confirmation"].as_str().unwrap();
    assert!(
        text.starts_with("announced unchecked: the reruns did not come within 1 s (0 of"),
        "{text}"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while smtp.messages().is_empty() {
        assert!(Instant::now() < deadline, "not mailed after the timeout");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(body_of(&smtp.messages()[0]).contains("announced unchecked"));
    // A rule that does not confirm: the next step alerts at once.
    let r = app
        .client
        .put(app.url("/api/v1/alert-rules"))
        .json(&serde_json::json!({"rules": [{"benchmark": "netperf", "confirm": false}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (_, rules) = app.get_json("/api/v1/alert-rules").await;
    assert_eq!(rules["rules"][0]["confirm"], false);
    for i in (0..30).step_by(2) {
        let level = if i < 20 { 1000.0 } else { 1100.0 };
        upload_commit_on(&app, "other-box", i, level, None).await;
    }
    settle(&app).await;
    let s = summary_of(&app, "other-box").await;
    assert_eq!(s["status"], "new", "{s}");
    assert!(s["confirmation"].is_null());
}

/// The documented robot (issue 52): its command prints the run and nothing else: no kernel
/// column (the request's kernel is the run's, or the commit's digits), and the same bytes on
/// every rerun of a commit (a deterministic benchmark). Each run is stored and counted as the
/// new run it is (`run=`, a fresh name per run), so the loop ends instead of rerunning for
/// ever or failing `422 no kernel`; a retried upload of one run is still recognised.
#[tokio::test(flavor = "multi_thread")]
async fn a_robot_that_prints_only_its_numbers_the_same_each_time_is_counted() {
    let app = spawn_app().await;
    robot_with_a_step(&app, None).await;
    upload_commit(&app, 30, 2345.0, None).await;
    settle(&app).await;
    let s = summary_of(&app, "lkp-bdw-de1").await;
    assert_eq!(s["status"], "awaiting-confirmation", "{s}");
    let dir = tempfile::tempdir().unwrap();
    let mut levels = String::new();
    for i in 0..40 {
        let level = if i < 24 { 2500.0 } else { 2345.0 };
        levels.push_str(&format!("{} {level}\n", sha(i)));
    }
    std::fs::write(dir.path().join("levels.txt"), levels).unwrap();
    std::fs::write(
        dir.path().join("bench.sh"),
        "#!/bin/sh\nn=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count\n\
         awk -v c=\"$1\" '$1 == c { print \"metric,iteration,value\"; for (i = 1; i <= 5; i++) printf \"Throughput_Mbps,%d,%s\\n\", i, $2 }' levels.txt\n",
    )
    .unwrap();
    let out = perfline(
        &app.base,
        &[
            "work",
            "--machine",
            "lkp-bdw-de1",
            "--exec",
            "sh bench.sh {commit}",
            "--settle",
            "20",
        ],
        dir.path(),
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let calls: usize = std::fs::read_to_string(dir.path().join("count"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(calls <= 12, "{calls} runs of the command: {stderr}");
    let s = settled(&app, "lkp-bdw-de1").await;
    assert_eq!(s["status"], "new", "{s}");
    // A plain re-upload of the same bytes and fields stays one upload.
    let csv = "metric,iteration,value\nThroughput_Mbps,1,2345\n";
    let query = format!(
        "benchmark=netperf&machine=lkp-bdw-de1&kernel=v6.30&commit={}&run=abc123",
        sha(30)
    );
    let first = app.upload_raw(&query, csv.to_owned()).await;
    assert_eq!(
        first.status().as_u16(),
        201,
        "{}",
        first.text().await.unwrap()
    );
    let again = app.upload_raw(&query, csv.to_owned()).await;
    assert_eq!(
        again.status().as_u16(),
        200,
        "{}",
        again.text().await.unwrap()
    );
}
