// SPDX-License-Identifier: GPL-3.0-or-later
//! Audit 2026-12-06, findings 1, 7, 8, 9 and 10: what robots run and what Perfline asks
//! people to paste. Robots run as root: nothing a server or an uploader wrote is executed.
//! Each test attacks as the audit did: the real server on port 0, the real `perfline`
//! binary running a fake benchmark script that records its argv.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::alerts::{settle, upload_history};
use crate::client::{perfline, stderr};
use crate::helpers::*;
use crate::trend::sha;

/// A fake benchmark: records its argv (NUL-separated) as `argv-N` for its N-th call, and
/// prints one run whose values differ per call.
const RECORD: &str = r#"#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > count
for a in "$@"; do printf '%s\0' "$a"; done > "argv-$n"
echo "kernel,commit,metric,iteration,value"
for it in 1 2 3 4 5; do echo "rerun-$n,$PERFLINE_COMMIT,$PERFLINE_METRIC,$it,8$n.$it"; done
"#;

/// The marker files a hostile name would create if it ran.
fn markers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.starts_with("pwned").then_some(name)
        })
        .collect()
}

/// Finding 1 (critical): benchmark, kernel, metric and machine names that are shell code reach
/// the robot's command as single arguments, byte for byte, and none of them runs; a template
/// with a placeholder inside quotes is refused before any work is taken.
#[tokio::test(flavor = "multi_thread")]
async fn a_robot_runs_no_name_an_uploader_chose() {
    let app = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let benchmark = format!("bb;touch {d}/pwned-benchmark;echo");
    let machine = format!("robot'$(touch {d}/pwned-machine)'");
    let metric = format!("thr`touch {d}/pwned-metric`");
    let kernel = |i: usize| format!("v6.{i}$(touch {d}/pwned-kernel)");
    upload_history(&app, 40, None).await;
    for i in (0..34).step_by(2) {
        let level = if i < 24 { 100.0 } else { 80.0 };
        // Three runs (boots) of five iterations a commit, as the robot uploads them.
        let mut csv = String::from("kernel,commit,metric,iteration,value,direction\n");
        for run in 0..3 {
            for it in 1..=5 {
                let v = level * (1.0 + ((i * 31 + run * 7 + it * 3) % 11) as f64 / 2500.0);
                csv.push_str(&format!(
                    "{}-{run},{},{metric},{it},{v},higher\n",
                    kernel(i),
                    sha(i)
                ));
            }
        }
        let r = app
            .client
            .post(app.url("/api/v1/upload"))
            .query(&[("benchmark", &benchmark), ("machine", &machine)])
            .body(csv)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    settle(&app).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let requests = loop {
        let r = app
            .client
            .get(app.url("/api/v1/work"))
            .query(&[("machine", &machine)])
            .send()
            .await
            .unwrap();
        let requests = r.json::<Value>().await.unwrap()["requests"]
            .as_array()
            .unwrap()
            .clone();
        if !requests.is_empty() {
            break requests;
        }
        assert!(
            Instant::now() < deadline,
            "the detector asked for no reruns: {} {:?}",
            app.get_json("/api/v1/alerts?status=all").await.1,
            app.client
                .get(app.url("/api/v1/trend"))
                .query(&[
                    ("benchmark", &benchmark),
                    ("machine", &machine),
                    ("metric", &metric)
                ])
                .header("accept", "text/plain")
                .send()
                .await
                .unwrap()
                .text()
                .await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(requests[0]["benchmark"], benchmark.as_str());

    std::fs::write(dir.path().join("record.sh"), RECORD).unwrap();
    // A placeholder inside quotes could reach another interpreter (`sh -c '…'`, awk): the
    // robot refuses the template before taking any work.
    for quoted in [
        "sh -c 'sh record.sh {benchmark}'",
        r#"awk 'BEGIN{print "{benchmark}"}'"#,
        r#"sh record.sh "{commit}""#,
    ] {
        let out = perfline(
            &app.base,
            &["work", "--machine", &machine, "--exec", quoted],
            Some(dir.path()),
        )
        .await;
        assert!(!out.status.success(), "{quoted}");
        assert!(stderr(&out).contains("inside quotes"), "{}", stderr(&out));
    }
    assert!(!dir.path().join("count").exists(), "nothing ran");
    // Bare placeholders, inside $(…), glued to other text, and the variable itself.
    let exec = r#"sh record.sh {commit} {benchmark} "$PERFLINE_KERNEL" "$(printf %s {metric})" x{machine}y {request}"#;
    let out = perfline(
        &app.base,
        &[
            "work",
            "--machine",
            &machine,
            "--exec",
            exec,
            "--settle",
            "3",
        ],
        Some(dir.path()),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(markers(dir.path()), Vec::<String>::new(), "a name ran");
    let calls: usize = std::fs::read_to_string(dir.path().join("count"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let wanted: u64 = requests.iter().map(|r| r["runs"].as_u64().unwrap()).sum();
    assert!(calls as u64 >= wanted, "{calls} calls for {wanted} runs");
    for n in 1..=calls {
        let raw = std::fs::read(dir.path().join(format!("argv-{n}"))).unwrap();
        let argv: Vec<String> = raw
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8(a.to_vec()).unwrap())
            .collect();
        // The first requests are known; later ones (the server may ask again) name one of
        // the uploaded commits and its kernel.
        let (commit, kernel_name) = match requests
            .iter()
            .find(|r| r["id"].as_i64() == argv[5].parse().ok())
        {
            Some(asked) => (
                asked["commit"].as_str().unwrap().to_owned(),
                asked["kernel"].as_str().unwrap().to_owned(),
            ),
            None => {
                let i = (0..34)
                    .find(|i| sha(*i) == argv[0])
                    .unwrap_or_else(|| panic!("call {n}: commit {:?}", argv[0]));
                (sha(i), argv[2].clone())
            }
        };
        assert!(
            (0..3).any(|run| kernel_name
                == format!(
                    "{}-{run}",
                    kernel((0..34).find(|i| sha(*i) == commit).unwrap())
                )),
            "call {n}: kernel {kernel_name:?}"
        );
        assert_eq!(
            argv,
            [
                commit,
                benchmark.clone(),
                kernel_name,
                metric.clone(),
                format!("x{machine}y"),
                argv[5].clone(),
            ],
            "call {n}"
        );
    }
}

/// Finding 1: a commit is 7 to 64 hex digits wherever it is accepted: the upload's field,
/// a file's column, a history, a bisection. Anything else is a 422 naming the field.
#[tokio::test(flavor = "multi_thread")]
async fn commits_are_hex_everywhere_they_are_accepted() {
    let app = spawn_app().await;
    for commit in [
        "c0ffee07`touch /tmp/perfline-pwned`",
        "x;touch /tmp/perfline-pwned",
        "$(reboot)",
        "%",
        "abc",
        "0éééééééééé",
        "g123456",
    ] {
        let r = app
            .client
            .post(app.url("/api/v1/upload"))
            .query(&[
                ("benchmark", "b"),
                ("machine", "m"),
                ("kernel", "6.9"),
                ("commit", commit),
            ])
            .body("metric,value\nthr,1\n")
            .send()
            .await
            .unwrap();
        let e = assert_error(r, 422, "commit").await;
        assert_eq!(e["error"]["field"], "commit", "{commit}: {e}");
        let csv = format!("kernel,commit,metric,value\n6.9,{commit},thr,1\n");
        let r = app
            .client
            .post(app.url("/api/v1/upload?benchmark=b&machine=m"))
            .body(csv)
            .send()
            .await
            .unwrap();
        let e = assert_error(r, 422, "commit").await;
        assert_eq!(e["error"]["field"], "commit", "{commit}: {e}");
        let r = app
            .client
            .post(app.url("/api/v1/commits?repo=linux&branch=master"))
            .body(format!("{commit} 1700000000 subject\n"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 422, "history {commit}");
        let r = app
            .client
            .post(app.url("/api/v1/bisections"))
            .json(&json!({"benchmark": "b", "machine": "m", "metric": "thr",
                "history": "linux/master", "good": sha(1), "bad": commit}))
            .send()
            .await
            .unwrap();
        assert_error(r, 422, "bad must be a commit").await;
    }
    assert_eq!(table_count(&app, "run").await, 0, "nothing stored");
    // Hex in any case is a commit, kept in lower case.
    let r = app
        .client
        .post(app.url("/api/v1/upload?benchmark=b&machine=m&kernel=6.9&commit=A337531B94"))
        .body("metric,value\nthr,1\n")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let v: Value = r.json().await.unwrap();
    assert!(v.to_string().contains("a337531b94"), "{v}");
    // An admin's correction of a run's commit is held to the same rule.
    let r = app
        .client
        .patch(app.url("/api/v1/runs/1"))
        .json(&json!({"commit": "$(reboot)"}))
        .send()
        .await
        .unwrap();
    let e = assert_error(r, 422, "commit").await;
    assert_eq!(e["error"]["field"], "commit", "{e}");
}

/// Finding 8: taking a bisection's work is a `POST` (a `GET` changes nothing), and a write
/// a browser sends from another site is refused even with a token.
#[tokio::test(flavor = "multi_thread")]
async fn no_get_hands_out_work_and_no_other_site_writes() {
    let app = spawn_app_with(|c| c.auth = Some(perfline_server::http::auth::AuthMode::Token)).await;
    let admin = token(&app, "admin", "admin").await;
    let robot = token(&app, "robot", "upload").await;
    let r = app
        .client
        .get(app.url("/api/v1/bisections/1/next"))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 405, "a GET hands nothing out");
    let r = app
        .client
        .post(app.url("/api/v1/bisections/1/next"))
        .bearer_auth(&robot)
        .header("sec-fetch-site", "cross-site")
        .header("sec-fetch-dest", "image")
        .send()
        .await
        .unwrap();
    assert_error(r, 403, "cross-site").await;
    let r = app
        .client
        .post(app.url("/api/v1/upload?benchmark=b&machine=m&kernel=1"))
        .bearer_auth(&admin)
        .header("sec-fetch-site", "cross-site")
        .body("metric,value\nthr,1\n")
        .send()
        .await
        .unwrap();
    assert_error(r, 403, "cross-site").await;
    // A robot's POST (no browser headers) is answered: there is no bisection 1.
    let r = app
        .client
        .post(app.url("/api/v1/bisections/1/next"))
        .bearer_auth(&robot)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
}

/// Finding 10: `perfline history --with-files` reads git's output NUL-separated: a file
/// named `commit 1234567` is not a commit, and one named `commit of the year.txt` is no
/// error.
#[tokio::test(flavor = "multi_thread")]
async fn a_file_named_like_a_commit_is_a_file() {
    let app = spawn_app().await;
    let root = tempfile::tempdir().unwrap();
    let (repo, shas) = crate::client::git_repo(root.path(), 3);
    for name in ["commit 1234567", "commit of the year.txt"] {
        std::fs::write(repo.join(name), "x").unwrap();
    }
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["-c", "user.name=R", "-c", "user.email=r@example.org"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    git(&["add", "."]);
    git(&["commit", "-qm", "files with odd names"]);
    let out = perfline(
        &app.base,
        &[
            "history",
            "--with-files",
            "--repo",
            "linux",
            "--branch",
            "master",
        ],
        Some(&repo),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        crate::client::stdout(&out).contains(&format!("{} commits", shas.len() + 1)),
        "{}",
        crate::client::stdout(&out)
    );
}

async fn table_count(app: &TestApp, table: &str) -> i64 {
    app.counts()
        .await
        .into_iter()
        .find(|(t, _)| t == table)
        .unwrap_or_else(|| panic!("no table {table}"))
        .1
}
