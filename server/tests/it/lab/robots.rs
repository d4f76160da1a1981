// SPDX-License-Identifier: GPL-3.0-or-later
//! Robots that fail, as a lab has them: a command that fails or hangs, a robot killed in the
//! middle of a run. Runs go back to the server at once, or when the robot's lease ends; a
//! running robot keeps its lease by renewing it; the bisection says what it waits for.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::alerts::{no_confirmation, settle, summaries};
use crate::bisect::{upload, world};
use crate::client::{perfline, stderr, stdout};
use crate::helpers::*;

/// An app whose leases last `secs`, with a bisection of the step at commit 77 started
/// (robot uploads every 8th commit of 128): the app, the repository's commits, the id.
async fn bisecting(root: &Path, secs: u64) -> (TestApp, Vec<String>) {
    let app = spawn_app_with(|c| c.lease_secs = secs).await;
    no_confirmation(&app).await;
    let culprit = 77;
    let shas = world(&app, root, culprit).await;
    for i in (0..128).step_by(8) {
        let level = if i < culprit { 2500.0 } else { 2345.0 };
        upload(&app, "lkp-bdw-de1", i, &shas[i], level).await;
    }
    settle(&app).await;
    let alert = summaries(&app, "status=all").await[0]["id"].to_string();
    let out = perfline(&app.base, &["bisect", "start", "--alert", &alert], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    (app, shas)
}

fn run_args<'a>(exec: &'a str, robot: &'a str) -> Vec<&'a str> {
    vec![
        "bisect",
        "run",
        "--bisection",
        "1",
        "--robot",
        robot,
        "--exec",
        exec,
    ]
}

async fn bisection(app: &TestApp) -> Value {
    let (status, b) = app.get_json("/api/v1/bisections/1").await;
    assert_eq!(status, 200, "{b}");
    b
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_bisect_run_gives_its_runs_back_and_the_next_runner_starts_at_once() {
    let root = tempfile::tempdir().unwrap();
    // Leases of ten minutes: a runner that waited for one would time out this test.
    let (app, shas) = bisecting(root.path(), 600).await;
    let failed = perfline(
        &app.base,
        &run_args("exit 3", "flaky-robot"),
        Some(root.path()),
    )
    .await;
    assert!(!failed.status.success());
    assert!(
        stderr(&failed).contains("exit status: 3"),
        "{}",
        stderr(&failed)
    );
    // The bisection says what failed, and holds nothing for the failed runner.
    let b = bisection(&app).await;
    let lease = &b["lease"];
    assert_eq!(lease["failures"], 1, "{b}");
    let why = lease["last_failure"].as_str().unwrap();
    assert!(why.starts_with("flaky-robot: "), "{why}");
    assert!(why.contains("exit status: 3"), "{why}");
    assert!(lease["until"].as_i64().unwrap() < now_ms(), "{b}");
    let (_, page) = app.get_text("/bisections/1").await;
    assert!(page.contains("flaky-robot: the command failed"), "{page}");

    let started = Instant::now();
    let out = perfline(
        &app.base,
        &run_args("sh bench.sh {commit}", "good-robot"),
        Some(root.path()),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("{} is the first bad commit", shas[77])),
        "{}",
        stdout(&out)
    );
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
    let (_, robots) = app.get_json("/api/v1/robots").await;
    let names: Vec<&str> = robots["robots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"flaky-robot") && names.contains(&"good-robot"),
        "{robots}"
    );
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Spawns `perfline ARGS` in `dir` as a child process (not waited for).
fn spawn_perfline(server: &str, args: &[&str], dir: &Path) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args(args)
        .env("PERFLINE_SERVER", server)
        .env_remove("PERFLINE_TOKEN")
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("perfline runs")
}

/// Polls `f` every 100 ms until it answers something, for at most `limit`.
async fn until<T>(limit: Duration, mut f: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(Instant::now() < deadline, "not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_running_robot_renews_its_lease_and_a_killed_one_loses_it() {
    let root = tempfile::tempdir().unwrap();
    let (app, shas) = bisecting(root.path(), 2).await;
    // A runner whose command takes long: it holds the runs past its 2 s lease by renewing.
    let mut slow = spawn_perfline(&app.base, &run_args("sleep 60", "slow-robot"), root.path());
    let held = until(Duration::from_secs(20), async || {
        let b = bisection(&app).await;
        (b["lease"]["holder"] == "slow-robot").then_some(b)
    })
    .await;
    let commit = held["next"]["commit"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (status, other) = app.post_json("/api/v1/bisections/1/next?robot=other").await;
    assert_eq!(status, 200, "{other}");
    assert!(other["commit"].is_null(), "renewed, so still held: {other}");
    let waiting = other["waiting"].as_str().unwrap();
    assert!(waiting.starts_with("slow-robot holds "), "{waiting}");
    assert!(waiting.contains(&commit[..12]), "{waiting}");
    let (_, page) = app.get_text("/bisections/1").await;
    assert!(
        page.contains("slow-robot holds"),
        "the page says what it waits for"
    );

    // Killed without a word: its runs come back when its lease ends (2 s), to another robot.
    slow.kill().unwrap();
    slow.wait().unwrap();
    let started = Instant::now();
    let taken = until(Duration::from_secs(10), async || {
        let (_, n) = app.post_json("/api/v1/bisections/1/next?robot=other").await;
        n["commit"].is_string().then_some(n)
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(taken["commit"], commit.as_str());
    assert!(shas.contains(&commit));
    // Unseen for three leases, it is silent on the dashboard.
    until(Duration::from_secs(15), async || {
        let (_, robots) = app.get_json("/api/v1/robots").await;
        robots["robots"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "slow-robot" && r["silent"] == true)
            .then_some(())
    })
    .await;
    let (_, dashboard) = app.get_text("/").await;
    assert!(
        dashboard.contains(r#"<tr data-robot="slow-robot" class="robot silent">"#),
        "{dashboard}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hung_command_is_killed_at_its_timeout_and_its_run_given_back() {
    let root = tempfile::tempdir().unwrap();
    let (app, _) = bisecting(root.path(), 600).await;
    let started = Instant::now();
    // The command starts a child of its own that would outlive a kill of `sh` alone.
    let out = perfline(
        &app.base,
        &[
            "bisect",
            "run",
            "--bisection",
            "1",
            "--robot",
            "hung-robot",
            "--timeout",
            "1",
            "--exec",
            "sleep 120 & echo $! > hung.pid; wait",
        ],
        Some(root.path()),
    )
    .await;
    assert!(!out.status.success());
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr(&out).contains("timed out after 1 s"),
        "{}",
        stderr(&out)
    );
    let pid = std::fs::read_to_string(root.path().join("hung.pid")).unwrap();
    let alive = Path::new(&format!("/proc/{}", pid.trim())).exists()
        && !std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .unwrap_or_default()
            .contains(") Z ");
    assert!(!alive, "the command's own child was killed too");
    let b = bisection(&app).await;
    assert!(
        b["lease"]["last_failure"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{b}"
    );
    let (_, n) = app.post_json("/api/v1/bisections/1/next?robot=next").await;
    assert!(n["commit"].is_string(), "given back at once: {n}");
}

/// The documented way: the command prints its numbers only (no kernel, no commit), the same
/// bytes on every run of a commit; `bisect run` fills in the rest and counts each run.
#[tokio::test(flavor = "multi_thread")]
async fn a_bisect_run_whose_command_prints_only_its_numbers_finds_the_culprit() {
    let root = tempfile::tempdir().unwrap();
    let (app, shas) = bisecting(root.path(), 600).await;
    std::fs::write(
        root.path().join("numbers.sh"),
        "#!/bin/sh\nn=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count\n\
         awk -v c=\"$1\" '$1 == c { print \"metric,iteration,value\"; \
         for (i = 1; i <= 5; i++) printf \"Throughput_Mbps,%d,%.3f\\n\", i, $2 * (1 + (i % 3 - 1) / 1000) }' levels.txt\n",
    )
    .unwrap();
    let out = perfline(
        &app.base,
        &run_args("sh numbers.sh {commit}", "plain-robot"),
        Some(root.path()),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("{} is the first bad commit", shas[77])),
        "{}",
        stdout(&out)
    );
    let calls: usize = std::fs::read_to_string(root.path().join("count"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let b = bisection(&app).await;
    assert_eq!(
        b["runs_total"].as_u64().unwrap() as usize,
        calls,
        "every run counted once: {b}"
    );
    // The runs carry the commit's kernel name (its 12 digits), not a refusal.
    let (_, runs) = app
        .get_json("/api/v1/runs?benchmark=netperf&machine=lkp-bdw-de1&limit=500")
        .await;
    let kernel = shas[77][..12].to_owned();
    assert!(runs.to_string().contains(&kernel), "{runs}");
}
