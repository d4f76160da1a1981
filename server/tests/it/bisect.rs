// SPDX-License-Identifier: GPL-3.0-or-later
//! Bisections Perfline drives, as an engineer and a robot meet them: a real git repository, its
//! history uploaded, an alert, `perfline bisect start` and `perfline bisect run` (the real
//! binary) with a fake benchmark whose numbers step at a known commit with noise, the
//! `git bisect log` replayed by git, and the failures said rather than guessed.

use std::path::Path;

use app::alerts::{AlertPage, AlertSummary, WorkKind, WorkList};
use app::bisection::{Bisection, BisectionList, BisectionState, NextRun};
use app::trend::{Mark, Trend};
use serde_json::{json, Value};

use crate::alerts::{app_with_receivers, body_of, header, no_confirmation, settle};
use crate::client::{git_repo, perfline, stderr, stdout};
use crate::helpers::*;

/// A fake benchmark: one run (five iterations) of the level `levels.txt` gives the commit,
/// with noise of ±0.5 % from a counter of its own.
pub(crate) const BENCH: &str = r#"#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > count
awk -v c="$1" -v n="$n" '
  $1 == c { level = $2 }
  END {
    if (level == "") { print "no level for " c > "/dev/stderr"; exit 1 }
    print "kernel,commit,metric,iteration,value"
    for (it = 1; it <= 5; it++)
      printf "bisect-%d,%s,Throughput_Mbps,%d,%.3f\n", n, c, it, level * (1 + ((n * 37 + it * 11) % 21 - 10) / 2000)
  }' levels.txt
"#;

/// The robot's upload of commit `sha`: three runs of five samples at `level`, ±0.2 %.
pub(crate) async fn upload(app: &TestApp, machine: &str, i: usize, sha: &str, level: f64) {
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for run in 0..3 {
        for it in 1..=5 {
            let noise = (((i * 31 + run * 7 + it * 3) % 11) as f64 - 5.0) * level / 2500.0;
            csv.push_str(&format!(
                "v6.{i}-{run},{sha},Throughput_Mbps,{it},{}\n",
                level + noise
            ));
        }
    }
    upload_csv(app, machine, csv).await;
}

/// Uploads `csv` as netperf runs of `machine`.
async fn upload_csv(app: &TestApp, machine: &str, csv: String) {
    let r = app
        .client
        .post(app.url(&format!(
            "/api/v1/upload?benchmark=netperf&machine={machine}"
        )))
        .body(csv)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

/// A repository of 128 commits with its history uploaded, the bench script and its levels
/// (throughput falls 6.2 % at commit `culprit`) in `dir`.
pub(crate) async fn world(app: &TestApp, root: &Path, culprit: usize) -> Vec<String> {
    let (repo, shas) = git_repo(root, 128);
    let out = perfline(&app.base, &["history", repo.to_str().unwrap()], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(root.join("bench.sh"), BENCH).unwrap();
    let levels: String = shas
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{s} {}\n", if i < culprit { 2500.0 } else { 2345.0 }))
        .collect();
    std::fs::write(root.join("levels.txt"), levels).unwrap();
    shas
}

/// `perfline bisect run --bisection ID --exec 'sh bench.sh {commit}'` in `dir`.
async fn bisect_run(app: &TestApp, id: i64, dir: &Path) -> std::process::Output {
    let id = id.to_string();
    let args = [
        "bisect",
        "run",
        "--bisection",
        &id,
        "--exec",
        "sh bench.sh {commit}",
    ];
    perfline(&app.base, &args, Some(dir)).await
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs")
}

#[tokio::test(flavor = "multi_thread")]
async fn perfline_bisect_run_finds_the_culprit_and_git_replays_its_log() {
    let (app, smtp, received) = app_with_receivers().await;
    no_confirmation(&app).await;
    let root = tempfile::tempdir().unwrap();
    let culprit = 77;
    let shas = world(&app, root.path(), culprit).await;
    // The robot ran every 8th commit: the step shows between commits 72 and 80.
    for i in (0..128).step_by(8) {
        let level = if i < culprit { 2500.0 } else { 2345.0 };
        upload(&app, "lkp-bdw-de1", i, &shas[i], level).await;
    }
    settle(&app).await;
    let page: AlertPage = app.get("/api/v1/alerts?status=all").await;
    let alert = &page.summaries[0];
    assert_eq!(alert.good.sha.as_ref(), Some(&shas[72]));
    assert_eq!(alert.bad.sha.as_ref(), Some(&shas[80]));
    let alert_id = alert.id.to_string();

    let out = perfline(&app.base, &["bisect", "start", "--alert", &alert_id], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let started = stdout(&out);
    assert!(
        started.starts_with("bisection 1: running netperf.Throughput_Mbps on lkp-bdw-de1"),
        "{started}"
    );
    // While it runs, the machine's work queue has its commit.
    let work: WorkList = app.get("/api/v1/work?machine=lkp-bdw-de1").await;
    assert_eq!(work.requests[0].kind, WorkKind::Bisect, "{work:?}");
    assert_eq!(work.requests[0].bisection, Some(1));

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
    let printed = stdout(&out);
    assert!(out.status.success(), "{}\n{printed}", stderr(&out));
    assert!(
        printed.contains(&format!(
            "{} is the first bad commit: commit number {culprit}",
            shas[culprit]
        )),
        "{printed}"
    );

    let b: Bisection = app.get("/api/v1/bisections/1").await;
    assert_eq!(b.state, BisectionState::Done);
    assert_eq!(b.culprit.as_ref(), Some(&shas[culprit]));
    assert!(b.reason.is_none());
    assert_eq!(b.alert, Some(alert.id));
    assert_eq!(b.good, shas[culprit - 1]);
    assert_eq!(b.bad, shas[culprit]);
    assert!(b.tested.len() >= 4, "{b:?}");
    for t in &b.tested {
        let i = shas.iter().position(|s| *s == t.commit).unwrap();
        let expect = if i < culprit { "good" } else { "bad" };
        assert_eq!(t.verdict, expect, "{t:?}");
        assert!(t.runs >= 1);
    }
    assert!(b.runs_total <= 30, "{} runs for 3 steps", b.runs_total);
    let kinds: Vec<&str> = b.events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"start"));
    assert_eq!(kinds.last(), Some(&"done"));
    assert!(kinds.contains(&"verdict"));

    // The log, replayed by git in the repository, ends on the culprit.
    let r = app
        .client
        .get(app.url("/api/v1/bisections/1/log"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let log = r.text().await.unwrap();
    assert!(log.starts_with("git bisect start\n"), "{log}");
    assert!(
        log.ends_with(&format!(
            "# first bad commit: [{}] commit number {culprit}\n",
            shas[culprit]
        )),
        "{log}"
    );
    let repo = root.path().join("linux");
    let file = root.path().join("bisect.log");
    std::fs::write(&file, &log).unwrap();
    let out = git(&repo, &["bisect", "replay", file.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains(&format!("{} is the first bad commit", shas[culprit])),
        "{said}"
    );

    // The alert moved to the culprit and its parent; the trend shows the verdicts as marks.
    settle(&app).await;
    let moved: AlertSummary = app.get(&format!("/api/v1/alerts/{alert_id}")).await;
    assert_eq!(moved.good.sha.as_ref(), Some(&shas[culprit - 1]));
    assert_eq!(moved.bad.sha.as_ref(), Some(&shas[culprit]));
    assert!(moved.events.iter().any(|e| e.kind == "bisected"));
    let trend: Trend = app
        .get("/api/v1/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps")
        .await;
    let point = trend
        .points
        .iter()
        .find(|p| p.sha.as_ref() == Some(&shas[culprit]))
        .unwrap_or_else(|| panic!("{trend:?}"));
    assert_eq!(point.mark, Some(Mark::Bad));
    assert!(point.first_bad);
    // The culprit mail, in the robot's form, in the alert's thread; and a webhook.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let culprit_mail = loop {
        if let Some(m) = smtp
            .messages()
            .into_iter()
            .find(|m| body_of(m).contains("Perfline bisected it"))
        {
            break m;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no culprit mail: {:?}",
            smtp.messages()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let body = body_of(&culprit_mail);
    for want in [
        "regression of netperf.Throughput_Mbps due to commit:".to_owned(),
        format!("  {}\n", shas[culprit]),
        "lkp-bdw-de1/netperf".to_owned(),
        "Perfline bisected it in linux/master (bisection 1)".to_owned(),
        "/api/v1/bisections/1/log".to_owned(),
        "%stddev".to_owned(),
    ] {
        assert!(body.contains(&want), "{want} not in {body}");
    }
    let thread = format!("<perfline-alert-{alert_id}@");
    assert!(header(&culprit_mail, "In-Reply-To")
        .unwrap()
        .starts_with(&thread));
    assert!(header(&culprit_mail, "Subject")
        .unwrap()
        .starts_with("Re: [perfline]"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !received.hooks.lock().unwrap().iter().any(|(_, b)| {
        serde_json::from_slice::<Value>(b).is_ok_and(|v| v["event"] == "alert.bisected")
    }) {
        assert!(
            std::time::Instant::now() < deadline,
            "no alert.bisected webhook"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Nothing left to run.
    let next: NextRun = app.post("/api/v1/bisections/1/next").await;
    assert_eq!(
        (next.state, next.commit.as_deref(), next.runs),
        (BisectionState::Done, None, 0),
        "{next:?}"
    );
    let work: WorkList = app.get("/api/v1/work?machine=lkp-bdw-de1").await;
    assert!(work.requests.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bisection_that_cannot_tell_fails_saying_why_and_one_can_be_cancelled() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    let root = tempfile::tempdir().unwrap();
    let shas = world(&app, root.path(), 1000).await;
    // flat-box never stepped; step-box did, at commit 60.
    for i in (0..128).step_by(8) {
        upload(&app, "flat-box", i, &shas[i], 2500.0).await;
        upload(
            &app,
            "step-box",
            i,
            &shas[i],
            if i < 60 { 2500.0 } else { 2345.0 },
        )
        .await;
    }
    let start = |body: Value| {
        let app = &app;
        async move {
            app.client
                .post(app.url("/api/v1/bisections"))
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let spec = |machine: &str, good: usize, bad: usize| {
        json!({"benchmark": "netperf", "machine": machine, "metric": "Throughput_Mbps",
               "history": "linux/master", "good": shas[good], "bad": shas[bad]})
    };
    // Bad requests say what is wrong.
    assert_error(
        start(spec("flat-box", 64, 8)).await,
        400,
        "good must come before bad",
    )
    .await;
    assert_error(
        start(json!({"alert": 99})).await,
        404,
        "no alert summary 99",
    )
    .await;
    assert_error(
        start(json!({"benchmark": "netperf"})).await,
        400,
        "machine is missing",
    )
    .await;
    let mut zero = spec("flat-box", 0, 120);
    zero["max_runs"] = json!(0);
    assert_error(start(zero).await, 400, "max_runs must be between 1 and 200").await;
    assert_error(
        start(json!({"alert": 1, "colour": "red"})).await,
        400,
        "colour",
    )
    .await;

    // No step between the two commits: it fails at once, saying so, and `run` exits 1.
    let r = start(spec("flat-box", 0, 120)).await;
    assert_eq!(r.status().as_u16(), 201);
    let b: Bisection = r.json().await.unwrap();
    let id = b.id;
    assert_eq!(b.state, BisectionState::Failed, "{b:?}");
    let reason = b.reason.as_deref().unwrap_or_default();
    assert!(reason.starts_with("the step is within the noise"), "{b:?}");
    assert!(b.culprit.is_none());
    let out = bisect_run(&app, id, root.path()).await;
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("failed: the step is within the noise"),
        "{}",
        stderr(&out)
    );

    // A real step whose ends rerun alike (the machine's numbers no longer step): failed, not
    // a guess.
    let r = start(spec("step-box", 0, 120)).await;
    assert_eq!(r.status().as_u16(), 201);
    let id = r.json::<Bisection>().await.unwrap().id;
    let out = bisect_run(&app, id, root.path()).await;
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let b: Bisection = app.get(&format!("/api/v1/bisections/{id}")).await;
    assert_eq!(b.state, BisectionState::Failed);
    assert!(
        b.reason
            .as_deref()
            .unwrap_or_default()
            .contains("rerun alike"),
        "{b:?}"
    );

    // One cancelled while it runs.
    let r = start(spec("step-box", 8, 120)).await;
    let id = r.json::<Bisection>().await.unwrap().id;
    let next: NextRun = app.post(&format!("/api/v1/bisections/{id}/next")).await;
    assert_eq!(next.state, BisectionState::Running);
    assert!(next.commit.is_some(), "{next:?}");
    // Handed out once: a second robot gets nothing until those runs come in.
    let again: NextRun = app.post(&format!("/api/v1/bisections/{id}/next")).await;
    assert_eq!(again.state, BisectionState::Running, "{again:?}");
    assert!(again.commit.is_none(), "{again:?}");
    assert_eq!(again.runs, 0, "{again:?}");
    assert!(
        again
            .waiting
            .as_deref()
            .unwrap_or_default()
            .contains(" holds "),
        "it says who holds them: {again:?}"
    );
    let r = app
        .client
        .delete(app.url(&format!("/api/v1/bisections/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let b: Bisection = r.json().await.unwrap();
    assert_eq!(b.state, BisectionState::Cancelled);
    let next: NextRun = app.post(&format!("/api/v1/bisections/{id}/next")).await;
    assert_eq!(
        (next.state, next.commit.as_deref(), next.runs),
        (BisectionState::Cancelled, None, 0),
        "{next:?}"
    );
    let list: BisectionList = app.get("/api/v1/bisections").await;
    assert_eq!(list.bisections.len(), 3);
    let (status, _) = app.get_json("/api/v1/bisections/99").await;
    assert_eq!(status, 404);
}

/// A fake benchmark whose runs of one commit alternate about its level by the amplitude
/// `levels.txt` gives beside it (a counter per commit): runs exactly between two levels leave
/// a commit unsure at any run cap.
const BENCH_ALTERNATING: &str = r#"#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > count
k=$(cat "count-$1" 2>/dev/null || echo 0); k=$((k + 1)); echo "$k" > "count-$1"
awk -v c="$1" -v n="$n" -v k="$k" '
  $1 == c { level = $2; amplitude = $3 }
  END {
    if (level == "") { print "no level for " c > "/dev/stderr"; exit 1 }
    print "kernel,commit,metric,iteration,value"
    for (it = 1; it <= 5; it++)
      printf "bisect-%d,%s,Throughput_Mbps,%d,%.3f\n", n, c, it, level + (k % 2 ? amplitude : -amplitude)
  }' levels.txt
"#;

/// A commit whose runs sit exactly between the good and the bad level is decided at the run
/// cap on even odds: the bisection fails saying where the balance points, and that guess is
/// no verdict: no bisect mark on the trend, no `git bisect` line in the log. The sure
/// verdicts around it are marked as ever.
#[tokio::test(flavor = "multi_thread")]
async fn a_guess_at_the_run_cap_fails_the_bisection_and_marks_nothing() {
    let app = spawn_app().await;
    no_confirmation(&app).await;
    let root = tempfile::tempdir().unwrap();
    let shas = world(&app, root.path(), 1000).await;
    std::fs::write(root.path().join("bench.sh"), BENCH_ALTERNATING).unwrap();
    // Good 2500 up to commit 10, bad 2345 from 12, their runs ±3; commit 11's runs all
    // exactly in the middle.
    let levels: String = shas
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (level, amplitude) = match i {
                0..=10 => (2500.0, 3.0),
                11 => (2422.5, 0.0),
                _ => (2345.0, 3.0),
            };
            format!("{s} {level} {amplitude}\n")
        })
        .collect();
    std::fs::write(root.path().join("levels.txt"), levels).unwrap();
    // The robot's runs of the ends, as the bench alternates them.
    for (i, level) in [(10, 2500.0), (12, 2345.0)] {
        let mut csv = String::from("kernel,commit,metric,iteration,value\n");
        for (run, sign) in [(0, 1.0), (1, -1.0)] {
            for it in 1..=5 {
                let value = level + sign * 3.0;
                csv.push_str(&format!(
                    "v6.{i}-{run},{},Throughput_Mbps,{it},{value}\n",
                    shas[i]
                ));
            }
        }
        upload_csv(&app, "cap-box", csv).await;
    }
    let r = app
        .client
        .post(app.url("/api/v1/bisections"))
        .json(
            &json!({"benchmark": "netperf", "machine": "cap-box", "metric": "Throughput_Mbps",
                      "history": "linux/master", "good": shas[10], "bad": shas[12], "max_runs": 6}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let id = r.json::<Bisection>().await.unwrap().id;
    let out = bisect_run(&app, id, root.path()).await;
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));

    let b: Bisection = app.get(&format!("/api/v1/bisections/{id}")).await;
    assert_eq!(b.state, BisectionState::Failed, "{b:?}");
    let reason = b.reason.as_deref().unwrap_or_default();
    assert!(
        reason.starts_with(
            "the step is within the noise at this run cap: 1 commit stayed unsure after 6 runs"
        ),
        "{reason}"
    );
    assert!(
        reason.contains("on that balance the first bad commit would be"),
        "{reason}"
    );
    assert!(b.culprit.is_none(), "{b:?}");
    let middle = b
        .tested
        .iter()
        .find(|t| t.commit == shas[11])
        .unwrap_or_else(|| panic!("{b:?}"));
    assert_eq!(middle.runs, 6, "{middle:?}");
    assert!(middle.forced, "{middle:?}");

    // The trend: a failed bisection marks nothing (its verdicts are on its page and in its
    // log); the guessed commit least of all.
    let trend: Trend = app
        .get("/api/v1/trend?benchmark=netperf&machine=cap-box&metric=Throughput_Mbps")
        .await;
    let mark_of = |i: usize| {
        trend
            .points
            .iter()
            .find(|p| p.sha.as_ref() == Some(&shas[i]))
            .unwrap_or_else(|| panic!("no point of commit {i}: {trend:?}"))
            .mark
    };
    assert!(mark_of(10).is_none(), "{trend:?}");
    assert!(mark_of(12).is_none(), "{trend:?}");
    assert!(mark_of(11).is_none(), "{trend:?}");

    // The log has the sure verdicts only, and ends on the failure.
    let (_, log) = app.get_text(&format!("/api/v1/bisections/{id}/log")).await;
    assert!(
        log.contains(&format!("git bisect good {}\n", shas[10])),
        "{log}"
    );
    assert!(
        log.contains(&format!("git bisect bad {}\n", shas[12])),
        "{log}"
    );
    assert!(
        !log.contains(&format!("git bisect good {}", shas[11])),
        "{log}"
    );
    assert!(
        !log.contains(&format!("git bisect bad {}", shas[11])),
        "{log}"
    );
    assert!(
        log.contains(
            "# perfline: the bisection failed: the step is within the noise at this run cap"
        ),
        "{log}"
    );
}

/// A repository of 16 commits, each touching a file of its own under `net/`, but commit 10,
/// which touches only `Documentation/`; its shas, oldest first.
fn repo_with_files(root: &Path) -> (std::path::PathBuf, Vec<String>) {
    let dir = root.join("linux");
    std::fs::create_dir(&dir).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "Robot")
            .env("GIT_AUTHOR_EMAIL", "robot@example.org")
            .env("GIT_COMMITTER_NAME", "Robot")
            .env("GIT_COMMITTER_EMAIL", "robot@example.org")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", root)
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    run(&["init", "-q", "-b", "master"]);
    let mut shas = Vec::new();
    for i in 0..16 {
        let file = if i == 10 {
            "Documentation/net.rst".to_owned()
        } else {
            format!("net/f{i}.c")
        };
        let path = dir.join(&file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{i}\n")).unwrap();
        run(&["add", &file]);
        run(&["commit", "-q", "-m", &format!("commit number {i}")]);
        shas.push(run(&["rev-parse", "HEAD"]));
    }
    (dir, shas)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_culprit_that_touches_only_documentation_is_flagged_with_how_to_retest() {
    let app = spawn_app().await;
    let root = tempfile::tempdir().unwrap();
    let (repo, shas) = repo_with_files(root.path());
    let out = perfline(
        &app.base,
        &["history", "--with-files", repo.to_str().unwrap()],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("uploading 16 commits"),
        "{}",
        stderr(&out)
    );
    // The numbers step at commit 10 (as a noisy machine's might, whatever the commit).
    for i in (0..16).step_by(3) {
        upload(
            &app,
            "m1",
            i,
            &shas[i],
            if i < 10 { 2500.0 } else { 2345.0 },
        )
        .await;
    }
    let r = app
        .client
        .post(app.url("/api/v1/bisections"))
        .json(
            &json!({"benchmark": "netperf", "machine": "m1", "metric": "Throughput_Mbps",
                      "history": "linux/master", "good": shas[9], "bad": shas[12]}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    // A robot: what /next asks, at the commit's level.
    let mut n = 0;
    let b = loop {
        let (_, next) = app.post_json("/api/v1/bisections/1/next").await;
        if next["state"] != "running" {
            break app.get_json("/api/v1/bisections/1").await.1;
        }
        let Some(commit) = next["commit"].as_str() else {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            continue;
        };
        let i = shas.iter().position(|s| s == commit).unwrap();
        for _ in 0..next["runs"].as_u64().unwrap() {
            n += 1;
            let level = if i < 10 { 2500.0 } else { 2345.0 };
            let csv = format!(
                "kernel,commit,metric,iteration,value\nr{n},{commit},Throughput_Mbps,1,{}\nr{n},{commit},Throughput_Mbps,2,{}\n",
                level + f64::from(n % 3),
                level - f64::from(n % 2)
            );
            let r = app
                .client
                .post(app.url("/api/v1/upload?bisection=1"))
                .body(csv)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        }
    };
    assert_eq!(b["state"], "done", "{b}");
    assert_eq!(b["culprit"], shas[10]);
    let why = b["suspicious"].as_str().unwrap_or_else(|| panic!("{b}"));
    assert!(
        why.starts_with(
            "suspicious culprit: it touches only 1 file under Documentation/ or tools/testing/"
        ),
        "{why}"
    );
    assert!(
        why.contains(&format!(
            "--good={} --bad={} --max-runs=60",
            shas[9], shas[10]
        )),
        "{why}"
    );
}
