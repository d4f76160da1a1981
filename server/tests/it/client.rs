// SPDX-License-Identifier: GPL-3.0-or-later
//! The client commands of the `perfline` binary (`upload`, `history`, `bisect-log`, `compare`,
//! `trend`) as a robot or a terminal runs them: the real binary against the real server on
//! port 0, a real git repository, and a stub server on loopback that answers 503 first.

use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::helpers::*;

/// Runs `perfline ARGS` against `server` (as `PERFLINE_SERVER`) off the runtime's threads.
pub(crate) async fn perfline(server: &str, args: &[&str], cwd: Option<&Path>) -> Output {
    let server = server.to_owned();
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let cwd = cwd.map(Path::to_path_buf);
    tokio::task::spawn_blocking(move || {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_perfline"));
        c.args(&args)
            .env("PERFLINE_SERVER", server)
            .env_remove("PERFLINE_TOKEN");
        if let Some(dir) = cwd {
            c.current_dir(dir);
        }
        c.output().expect("perfline runs")
    })
    .await
    .unwrap()
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn upload_an_mmtests_log_directory_then_compare_and_gate_on_a_regression() {
    let app = spawn_app().await;
    let dir = fixture("mmtests/work-log");
    let out = perfline(
        &app.base,
        &[
            "upload",
            "--mmtests-log",
            dir.to_str().unwrap(),
            "--machine",
            "m1",
        ],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    // The server's text summary, as `curl -H 'Accept: text/plain'` prints it.
    let summary = stdout(&out);
    assert!(summary.contains("5.5.0-rc3-wakeidle"), "{summary}");
    assert!(summary.contains("netperf-tcp"), "{summary}");
    // The same directory again stores nothing and says so.
    let again = perfline(
        &app.base,
        &[
            "upload",
            "--mmtests-log",
            dir.to_str().unwrap(),
            "--machine",
            "m1",
        ],
        None,
    )
    .await;
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("already stored"),
        "{}",
        stderr(&again)
    );
    let (_, runs) = app.get_json("/api/v1/runs").await;
    // Four kernels, each with netperf-tcp and hackbench.
    assert_eq!(runs["total"], 8, "{runs}");

    // compare prints exactly the API's mmtests text, and the LKP and ratio texts.
    let kernels = "5.4.0-vanilla,5.5.0-vanilla";
    for (flag, query) in [
        (None, ""),
        (Some("--lkp"), "&style=lkp"),
        (Some("--ratio"), "&ratio=1"),
    ] {
        let mut args = vec![
            "compare",
            "--benchmark",
            "netperf-tcp",
            "--machine",
            "m1",
            "--kernels",
            kernels,
        ];
        args.extend(flag);
        let out = perfline(&app.base, &args, None).await;
        assert!(out.status.success(), "{}", stderr(&out));
        let (status, text) = app
            .get_text(&format!(
                "/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels={kernels}&format=text{query}"
            ))
            .await;
        assert_eq!(status, 200);
        assert_eq!(stdout(&out), text, "{flag:?}");
    }

    // 5.5.0 is ~45% slower than 5.4.0 on every message size: a CI job gating on it fails...
    for style in [None, Some("--lkp")] {
        let mut args = vec![
            "compare",
            "--benchmark",
            "netperf-tcp",
            "--machine",
            "m1",
            "--kernels",
            kernels,
            "--fail-on-regression",
        ];
        args.extend(style);
        let out = perfline(&app.base, &args, None).await;
        assert_eq!(out.status.code(), Some(3), "{style:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("regression: tcpstream-send-64 on 5.5.0-vanilla"),
            "{}",
            stderr(&out)
        );
    }
    // ...and the other way round it is an improvement, which passes.
    let out = perfline(
        &app.base,
        &[
            "compare",
            "--benchmark",
            "netperf-tcp",
            "--machine",
            "m1",
            "--kernels",
            "5.5.0-vanilla,5.4.0-vanilla",
            "--fail-on-regression",
        ],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Errors are the server's message and exit 1.
    let out = perfline(
        &app.base,
        &[
            "compare",
            "--benchmark",
            "netperf-tcp",
            "--machine",
            "m1",
            "--kernels",
            "9.9.9",
        ],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("server answered 4"),
        "{}",
        stderr(&out)
    );
    app.stop().await;
}

/// A git repository of `n` empty commits, one a minute, on branch master of a directory named
/// `linux`; answers the shas, oldest first.
pub(crate) fn git_repo(root: &Path, n: usize) -> (std::path::PathBuf, Vec<String>) {
    let dir = root.join("linux");
    std::fs::create_dir(&dir).unwrap();
    let git = |args: &[&str], date: Option<String>| {
        let mut c = std::process::Command::new("git");
        c.arg("-C").arg(&dir).args(args);
        c.env("GIT_AUTHOR_NAME", "Robot")
            .env("GIT_AUTHOR_EMAIL", "robot@example.org")
            .env("GIT_COMMITTER_NAME", "Robot")
            .env("GIT_COMMITTER_EMAIL", "robot@example.org")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", root);
        if let Some(d) = date {
            c.env("GIT_AUTHOR_DATE", &d).env("GIT_COMMITTER_DATE", &d);
        }
        let out = c.output().expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    git(&["init", "-q", "-b", "master"], None);
    let mut shas = Vec::new();
    for i in 0..n {
        let date = format!("@{} +0000", 1_700_000_000 + i * 60);
        git(
            &[
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                &format!("commit number {i}"),
            ],
            Some(date),
        );
        shas.push(git(&["rev-parse", "HEAD"], None));
    }
    (dir, shas)
}

#[tokio::test(flavor = "multi_thread")]
async fn history_from_git_then_a_trend_that_gates_on_the_newest_step_and_a_bisect_log() {
    let app = spawn_app().await;
    let root = tempfile::tempdir().unwrap();
    let (repo, shas) = git_repo(root.path(), 20);
    // Defaults: the checkout's directory name and its branch.
    let out = perfline(&app.base, &["history", repo.to_str().unwrap()], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "history linux/master: 20 commits\n");

    // Throughput falls 10% at commit 14 (three runs a commit, ±0.2% noise).
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for (i, sha) in shas.iter().enumerate() {
        let level = if i < 14 { 1000.0 } else { 900.0 };
        for it in 1..=5 {
            let noise = (((i * 31 + it * 3) % 11) as f64 - 5.0) * level / 2500.0;
            csv.push_str(&format!(
                "v6.{i},{sha},Throughput_Mbps,{it},{}\n",
                level + noise
            ));
        }
    }
    let file = root.path().join("throughput.csv");
    std::fs::write(&file, csv).unwrap();
    let out = perfline(
        &app.base,
        &[
            "upload",
            file.to_str().unwrap(),
            "--benchmark",
            "netperf",
            "--machine",
            "lkp-bdw-de1",
        ],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));

    let trend = [
        "trend",
        "--benchmark",
        "netperf",
        "--machine",
        "lkp-bdw-de1",
        "--metric",
        "Throughput_Mbps",
        "--history",
        "linux/master",
    ];
    let out = perfline(&app.base, &trend, None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, text) = app
        .get_text("/api/v1/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps&history=linux/master&format=text&width=80&height=20")
        .await;
    assert_eq!(stdout(&out), text);
    let mut gated = trend.to_vec();
    gated.push("--fail-on-regression");
    let out = perfline(&app.base, &gated, None).await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let why = stderr(&out);
    assert!(why.contains("Throughput_Mbps changed -10."), "{why}");
    assert!(why.contains(&shas[14][..12]), "{why}");
    // A rule that ignores the series (the server's own alert rules decide) lets it pass.
    let r = app
        .client
        .put(app.url("/api/v1/alert-rules"))
        .json(&serde_json::json!({"rules": [{"benchmark": "netperf", "ignore": true}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let out = perfline(&app.base, &gated, None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // git bisect log, as the engineer leaves it: good at 10, bad at 15.
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(args)
            .env("HOME", root.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["bisect", "start", &shas[15], &shas[10]]);
    let out = perfline(&app.base, &["bisect-log"], Some(&repo)).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "bisect log: 2 commits marked\n");
    let (_, t) = app
        .get_json("/api/v1/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps&history=linux/master")
        .await;
    let mark_of = |sha: &str| {
        t["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["sha"] == sha)
            .map(|p| p["mark"].clone())
            .unwrap()
    };
    assert_eq!(mark_of(&shas[15]), "bad");
    assert_eq!(mark_of(&shas[10]), "good");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn upload_an_lkp_result_directory_with_what_its_job_states() {
    let app = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("job.yaml"),
        "---\nsuite: netperf\ntestcase: netperf\ntestbox: lkp-bdw-de1\ncpufreq_governor: performance\ncommit: a337531b942bd8a03e7052444d7e36972aac2d92\nkernel: \"/pkg/linux/x86_64-rhel-7.2/gcc-7/a337531b942bd8a03e7052444d7e36972aac2d92/vmlinuz-4.16.0-rc1-00001-ga337531\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("netperf"),
        read_fixture("lkp-raw/netperf-udp-recv.log"),
    )
    .unwrap();
    let out = perfline(
        &app.base,
        &["upload", "--lkp-result", dir.path().to_str().unwrap()],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, runs) = app.get_json("/api/v1/runs").await;
    let run = &runs["runs"][0];
    assert_eq!(run["machine"], "lkp-bdw-de1", "{runs}");
    assert_eq!(run["kernel"], "4.16.0-rc1-00001-ga337531", "{runs}");
    assert_eq!(
        run["commit"], "a337531b942bd8a03e7052444d7e36972aac2d92",
        "{runs}"
    );
    // The job went along as the side file: its facts are the run's.
    let (_, full) = app.get_json(&format!("/api/v1/runs/{}", run["id"])).await;
    assert!(full.to_string().contains("performance"), "{full}");

    // A flag overrides what the job says.
    let out = perfline(
        &app.base,
        &[
            "upload",
            "--lkp-result",
            dir.path().to_str().unwrap(),
            "--machine",
            "other-box",
        ],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, runs) = app.get_json("/api/v1/runs?machine=other-box").await;
    assert_eq!(runs["total"], 1, "{runs}");

    // A directory without a job is refused before anything is sent.
    let empty = tempfile::tempdir().unwrap();
    let out = perfline(
        &app.base,
        &["upload", "--lkp-result", empty.path().to_str().unwrap()],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("job.yaml"), "{}", stderr(&out));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn uploads_are_retried_on_503_and_429_with_the_whole_body_each_time() {
    // A stub Perfline on loopback: busy twice, then stores.
    let attempts = Arc::new(AtomicUsize::new(0));
    let sizes = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (a, s) = (attempts.clone(), sizes.clone());
    let stub = axum::Router::new().route(
        "/api/v1/upload",
        axum::routing::post(move |body: axum::body::Bytes| {
            let (a, s) = (a.clone(), s.clone());
            async move {
                s.lock().unwrap().push(body.len());
                match a.fetch_add(1, Ordering::SeqCst) {
                    0 => (
                        axum::http::StatusCode::SERVICE_UNAVAILABLE,
                        [("retry-after", "0")],
                        r#"{"error":{"status":503,"code":"busy","message":"busy"}}"#.to_owned(),
                    ),
                    1 => (
                        axum::http::StatusCode::TOO_MANY_REQUESTS,
                        [("retry-after", "0")],
                        r#"{"error":{"status":429,"code":"rate_limited","message":"slow down"}}"#
                            .to_owned(),
                    ),
                    _ => (
                        axum::http::StatusCode::CREATED,
                        [("retry-after", "0")],
                        "upload 1: 1 run stored\n".to_owned(),
                    ),
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, stub).await.unwrap() });

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.csv");
    // 1.5 MiB: large enough for the progress bar's path (drawn only on a terminal), under
    // axum's default body limit of the stub.
    let mut csv = String::from("value\n");
    while csv.len() < 3 << 19 {
        csv.push_str("1234.5678\n");
    }
    std::fs::write(&file, &csv).unwrap();
    let out = perfline(
        &base,
        &["upload", file.to_str().unwrap(), "--machine", "m"],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "upload 1: 1 run stored\n");
    assert_eq!(attempts.load(Ordering::SeqCst), 3);
    let sizes = sizes.lock().unwrap().clone();
    assert!(
        sizes.iter().all(|&n| n == sizes[0] && n > csv.len()),
        "{sizes:?}"
    );
    assert!(stderr(&out).contains("answered 503"), "{}", stderr(&out));
    assert!(stderr(&out).contains("answered 429"), "{}", stderr(&out));

    // With no retries left the server's message is printed and the exit is 1.
    attempts.store(0, Ordering::SeqCst);
    let out = perfline(
        &base,
        &["upload", file.to_str().unwrap(), "--retries", "0"],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("server answered 503 Service Unavailable: busy"),
        "{}",
        stderr(&out)
    );

    // Nobody listening: retried, then a clear error.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let nobody = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let out = perfline(
        &nobody,
        &["upload", file.to_str().unwrap(), "--retries", "1"],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("retrying in"), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot reach"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_need_the_token_from_the_environment_on_a_token_server() {
    let app = spawn_app_with(|c| c.auth = Some(perfline_server::http::auth::AuthMode::Token)).await;
    let file = fixture("generic/netperf-sweep.csv");
    let file = file.to_str().unwrap().to_owned();
    let args = ["upload", &file, "--machine", "m", "--kernel", "6.1"].map(str::to_owned);
    let out = perfline(&app.base, &args.each_ref().map(String::as_str), None).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("server answered 401"),
        "{}",
        stderr(&out)
    );
    let t = token(&app, "robot", "upload").await;
    let base = app.base.clone();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_perfline"))
            .args(args)
            .env("PERFLINE_SERVER", base)
            .env("PERFLINE_TOKEN", t)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    app.stop().await;
}
