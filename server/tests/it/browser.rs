// SPDX-License-Identifier: GPL-3.0-or-later
//! Real headless Chromium against the real server: upload through the form after hydration,
//! and build, share and open a comparison.
//!
//! Needs the site built (`scripts/build-site`), Chromium and `e2e/node_modules`; `scripts/test`
//! (the README's test command) provides all three. Missing pieces fail the test, never skip it.

use std::path::PathBuf;
use std::process::Command;

use crate::helpers::*;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs `node e2e/<script> <args>` against the site and asserts it reports `e2e: ok`.
async fn run_e2e(script: &str, args: Vec<String>) -> String {
    let root = repo_root();
    let wasm = root.join("target/site/pkg/site.txt");
    assert!(
        wasm.exists(),
        "{} is missing: run scripts/build-site (scripts/test does)",
        wasm.display()
    );
    assert!(
        root.join("e2e/node_modules/playwright-core").exists(),
        "e2e/node_modules is missing: run scripts/ensure-tools"
    );
    let script = root.join("e2e").join(script);
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(script)
            .args(args)
            .current_dir(&root)
            .output()
            .expect("node runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("e2e: ok"),
        "browser test failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    println!("{stdout}");
    stdout
}

#[tokio::test(flavor = "multi_thread")]
async fn upload_through_the_form_in_chromium() {
    let app = spawn_app().await;
    let csv = fixture("generic/netperf-sweep.csv");
    run_e2e(
        "upload.mjs",
        vec![app.base.clone(), csv.to_string_lossy().into_owned()],
    )
    .await;

    // The server agrees with what the browser saw.
    let (_, runs) = app.get_json("/api/v1/runs?machine=e2e%20box").await;
    assert_eq!(runs["total"], 1);
    assert_eq!(runs["runs"][0]["kernel"], "6.9.0-rc1");
    assert_eq!(runs["runs"][0]["benchmark"], "netperf-tcp");
}

#[tokio::test(flavor = "multi_thread")]
async fn compare_share_and_open_a_permalink_in_chromium() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    run_e2e("compare.mjs", vec![app.base.clone()]).await;
    let permalinks = app
        .counts()
        .await
        .into_iter()
        .find(|(t, _)| t == "permalink")
        .unwrap()
        .1;
    assert_eq!(
        permalinks, 1,
        "the page made one permalink for its comparison"
    );
}

/// Issue 28: two commits of three 5,000-key LKP jobs each; the compare and run pages and every
/// page at 400 px wide, as `e2e/lkp_jobs.mjs` checks them.
#[tokio::test(flavor = "multi_thread")]
async fn pages_of_5000_key_jobs_and_at_400_px_in_chromium() {
    let app = spawn_app().await;
    let (good, bad) = ("a".repeat(40), "b".repeat(40));
    let mut first_run = None;
    for (commit, stepped) in [(&good, false), (&bad, true)] {
        for run in 0..3 {
            let r = app
                .client
                .post(app.url(&format!(
                    "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1&kernel=4.19.0-rc1\
                     &commit={commit}&format=lkp-stats"
                )))
                .body(crate::compare::big_job(5000, stepped, run))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201);
            let v: serde_json::Value = r.json().await.unwrap();
            first_run.get_or_insert(v["runs"][0]["id"].as_i64().unwrap());
        }
    }
    run_e2e(
        "lkp_jobs.mjs",
        vec![app.base.clone(), good, bad, first_run.unwrap().to_string()],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mark_a_commit_bad_with_the_keyboard_in_chromium() {
    let app = crate::trend::seeded().await;
    // A second machine with runs at five of the commits, to draw on the same axis.
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for i in (0..30).step_by(6) {
        csv.push_str(&format!(
            "k,{},Throughput_Mbps,1,2600\n",
            crate::trend::sha(i)
        ));
    }
    let r = app
        .upload_raw("benchmark=netperf&machine=lkp-skl-d01", csv)
        .await;
    assert_eq!(r.status().as_u16(), 201);
    run_e2e(
        "trend.mjs",
        vec![
            app.base.clone(),
            "/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps".into(),
        ],
    )
    .await;
    // The server agrees: every run of the sixth commit is marked bad, no other run is.
    let (_, t) = app.get_json(crate::trend::TREND).await;
    let marks: Vec<Option<String>> = t["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["mark"].as_str().map(str::to_owned))
        .collect();
    let mut expected = vec![None; 10];
    expected[5] = Some("bad".to_owned());
    assert_eq!(marks, expected);
}

/// Token mode: signed out, `b` marks nothing and says why; signed in through the sign-in page,
/// it marks (and the audit trail says who).
#[tokio::test(flavor = "multi_thread")]
async fn sign_in_to_mark_in_chromium() {
    use perfline_server::http::auth::{new_token, token_hash, AuthMode};
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let robot = new_token();
    let bisector = new_token();
    for (name, t, scopes) in [
        ("robot", &robot, "upload"),
        ("bisect-bot", &bisector, "mark"),
    ] {
        app.store
            .create_token(name, &token_hash(t), scopes, None, "test")
            .await
            .unwrap()
            .unwrap();
    }
    let post = |path: &str, body: String| {
        app.client
            .post(app.url(path))
            .header("authorization", format!("Bearer {robot}"))
            .body(body)
            .send()
    };
    let r = post(
        "/api/v1/commits?repo=linux&branch=master",
        crate::trend::git_log(),
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let r = post(
        "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1",
        crate::trend::runs_csv(),
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    run_e2e(
        "signin.mjs",
        vec![
            app.base.clone(),
            "/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps".into(),
            bisector.clone(),
        ],
    )
    .await;
    let (entries, _) = app.store.audit_log(10, 0).await.unwrap();
    assert!(entries
        .iter()
        .any(|e| e.actor == "bisect-bot" && e.action == "run.mark"));
    assert!(entries
        .iter()
        .any(|e| e.actor == "bisect-bot" && e.action == "session.start"));
}

/// An admin signed in corrects a run and deletes an upload from their pages; a reader who is
/// not an admin sees neither control.
#[tokio::test(flavor = "multi_thread")]
async fn an_admin_corrects_and_deletes_in_chromium() {
    use perfline_server::http::auth::{new_token, token_hash, AuthMode};
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let admin = new_token();
    app.store
        .create_token("lead", &token_hash(&admin), "admin", None, "test")
        .await
        .unwrap()
        .unwrap();
    for (machine, kernel) in [("m1", "6.1"), ("m1-typo", "6.2")] {
        let r = app
            .client
            .post(app.url(&format!(
                "/api/v1/upload?benchmark=b&machine={machine}&kernel={kernel}"
            )))
            .header("authorization", format!("Bearer {admin}"))
            .body("metric,value\ntput,1\n")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201);
    }
    // Signed out, the pages carry no admin controls.
    let (_, run_page) = app.get_text("/runs/2").await;
    assert!(!run_page.contains("correct-run"));
    run_e2e("admin.mjs", vec![app.base.clone(), admin.clone()]).await;
    let (status, _) = app.get_json("/api/v1/uploads/1").await;
    assert_eq!(status, 404);
    let (_, run) = app.get_json("/api/v1/runs/2").await;
    assert_eq!(run["run"]["machine"], "m1");
}

/// The dashboard's open regressions, keyboard triage on the alerts page, and its trend link.
#[tokio::test(flavor = "multi_thread")]
async fn triage_alerts_with_the_keyboard_in_chromium() {
    let app = spawn_app().await;
    crate::alerts::two_regressions(&app).await;
    let (_, page) = app.get_json("/api/v1/alerts").await;
    let newest = page["summaries"][0]["id"].as_i64().unwrap();
    let older = page["summaries"][1]["id"].as_i64().unwrap();
    let out = run_e2e("alerts.mjs", vec![app.base.clone()]).await;
    // The server agrees: statuses and who changed them.
    let (_, s) = app.get_json(&format!("/api/v1/alerts/{newest}")).await;
    assert_eq!(s["status"], "invalid");
    assert_eq!(
        s["events"].as_array().unwrap().last().unwrap()["actor"],
        "open"
    );
    let (_, s) = app.get_json(&format!("/api/v1/alerts/{older}")).await;
    assert_eq!(s["status"], "acknowledged");
    // The trend page selected the first bad commit (lkp-bdw-de1's step at commit 24 is its
    // 13th point, x = 12; lkp-skl-d01's at commit 16 is its 9th, x = 8).
    let bad_x = if s["machine"] == "lkp-bdw-de1" { 12 } else { 8 };
    assert!(out.contains(&format!("selected-x={bad_x}")), "{out}");
}

/// The ratio view of seed 004's kind of table, in Chromium, on an oracle case.
#[tokio::test(flavor = "multi_thread")]
async fn the_ratio_view_in_chromium() {
    let app = spawn_app().await;
    let tar = read_fixture("mmtests-oracle/cases/np01-realistic/work-log.tar.gz");
    let r = app
        .upload_multipart(&[("work-log.tar.gz", tar)], &[("machine", "m")])
        .await;
    assert_eq!(r.status().as_u16(), 201);
    run_e2e(
        "ratio.mjs",
        vec![
            app.base.clone(),
            "/compare?benchmark=netperf-tcp&machine=m&kernels=6.1.0-vanilla,6.2.0-rc3-vanilla,6.2.0-rc3-sched".into(),
        ],
    )
    .await;
}

/// `format=html` on a permalink, a trend and a regression report: one file each, opened in
/// Chromium with the network off and every request refused.
#[tokio::test(flavor = "multi_thread")]
async fn offline_reports_open_without_the_network_in_chromium() {
    let app = crate::trend::seeded().await;
    let dir = tempfile::tempdir().unwrap();
    let mut args = Vec::new();
    // A permalink of the two commits around the step.
    let (a, b) = (&crate::trend::sha(12)[..12], &crate::trend::sha(15)[..12]);
    let (status, c) = app
        .get_json("/api/v1/compare?benchmark=netperf&machine=lkp-bdw-de1&kernels=build-0,build-1")
        .await;
    assert_eq!(status, 200, "{c}");
    let id = c["permalink"].as_str().unwrap().to_owned();
    for (name, path, expected) in [
        (
            "permalink.html",
            format!("/c/{id}?format=html"),
            "Permalink".to_owned(),
        ),
        (
            "trend.html",
            format!("{}&format=html", crate::trend::TREND),
            "Change points".to_owned(),
        ),
        (
            "report.html",
            format!(
                "/api/v1/report?benchmark=netperf&machine=lkp-bdw-de1&base={a}&bad={b}&format=html"
            ),
            "FYI, we noticed".to_owned(),
        ),
    ] {
        let r = app.client.get(app.url(&path)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200, "{path}");
        assert!(r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"));
        let html = r.text().await.unwrap();
        let file = dir.path().join(name);
        std::fs::write(&file, html).unwrap();
        args.push(file.to_string_lossy().into_owned());
        args.push(expected);
    }
    run_e2e("offline.mjs", args).await;
}

/// Issue 30: the run-count advice on the compare page, the trend's noise, advice and noise
/// band, and the calibration page with seed 003's boots.
#[tokio::test(flavor = "multi_thread")]
async fn noise_advice_and_calibration_pages_in_chromium() {
    let app = spawn_app().await;
    crate::noise::seed_003_calibration(&app).await;
    crate::noise::three_boots_per_kernel(&app).await;
    crate::noise::trend_history(&app).await;
    run_e2e("noise.mjs", vec![app.base.clone()]).await;
}

/// An alert awaiting confirmation shows its pending reruns; a robot runs them and the page
/// shows it confirmed.
#[tokio::test(flavor = "multi_thread")]
async fn an_alert_waits_for_its_reruns_and_is_confirmed_in_chromium() {
    let app = spawn_app().await;
    crate::alerts::robot_with_a_step(&app, None).await;
    crate::alerts::upload_commit(&app, 30, 2345.0, None).await;
    crate::alerts::settle(&app).await;
    run_e2e("confirm.mjs", vec![app.base.clone()]).await;
    let s = &crate::alerts::summaries(&app, "status=all").await[0];
    assert_eq!(s["status"], "new");
    assert!(s["confirmation"]
        .as_str()
        .unwrap()
        .starts_with("confirmed by reruns"));
}

/// "Bisect" on an alert starts a bisection; a simulated robot works it and the page shows the
/// culprit.
#[tokio::test(flavor = "multi_thread")]
async fn bisect_an_alert_and_watch_it_find_the_culprit_in_chromium() {
    use crate::trend::sha;
    let app = spawn_app().await;
    crate::alerts::no_confirmation(&app).await;
    crate::alerts::robot_with_a_step(&app, None).await;
    crate::alerts::upload_commit(&app, 30, 2345.0, None).await;
    crate::alerts::settle(&app).await;
    let alert = crate::alerts::summaries(&app, "status=all").await[0]["id"]
        .as_i64()
        .unwrap();
    // The robot's step is at commit 24, between its runs of 22 and 24: 23 is good.
    let levels: serde_json::Map<String, serde_json::Value> = (0..40)
        .map(|i| {
            (
                sha(i),
                serde_json::json!(if i < 24 { 2500.0 } else { 2345.0 }),
            )
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("levels.json");
    std::fs::write(&file, serde_json::to_vec(&levels).unwrap()).unwrap();
    let out = run_e2e(
        "bisect.mjs",
        vec![
            app.base.clone(),
            alert.to_string(),
            file.display().to_string(),
        ],
    )
    .await;
    assert!(
        out.contains(&format!("culprit=First bad commit: {}", sha(24))),
        "{out}"
    );
    let (_, b) = app.get_json("/api/v1/bisections/1").await;
    assert_eq!(b["state"], "done");
    assert_eq!(b["culprit"], sha(24));
}

/// Every page at 1280 px in the light and the dark theme: no horizontal overflow, no serious
/// axe-core violation; the theme switch is remembered and the charts follow it.
#[tokio::test(flavor = "multi_thread")]
async fn every_page_is_accessible_in_both_themes_in_chromium() {
    let app = spawn_app().await;
    crate::alerts::two_regressions(&app).await;
    app.upload_work_log().await;
    let kernels = "5.4.0-vanilla,5.5.0-vanilla";
    let (status, c) = app
        .get_json(&format!(
            "/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels={kernels}"
        ))
        .await;
    assert_eq!(status, 200, "{c}");
    let permalink = c["permalink"].as_str().unwrap().to_owned();
    let (_, runs) = app.get_json("/api/v1/runs?limit=1").await;
    let run = runs["runs"][0]["id"].as_i64().unwrap();
    let upload = runs["runs"][0]["upload_id"].as_i64().unwrap();
    // A running bisection of one of the alerts, for its page.
    let alert = crate::alerts::summaries(&app, "machine=lkp-bdw-de1").await[0]["id"].clone();
    let r = app
        .client
        .post(app.url("/api/v1/bisections"))
        .json(&serde_json::json!({ "alert": alert }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    // A robot's report mail, for the reports' pages (issue 56).
    let mail = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/lkp-mails/18-20250310-netperf-regression-01d37228d3.eml"),
    )
    .unwrap();
    let r = app.upload_raw("", mail).await;
    assert_eq!(r.status().as_u16(), 201);
    let report: serde_json::Value = r.json().await.unwrap();
    let report = &report["reports"][0];
    let paths = vec![
        "/".to_owned(),
        "/reports".into(),
        format!("/reports/{}", report["id"]),
        format!("/commits/{}", report["commit"].as_str().unwrap()),
        "/upload".into(),
        format!("/compare?benchmark=netperf-tcp&machine=m1&kernels={kernels}"),
        format!("/c/{permalink}"),
        "/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps".into(),
        "/alerts".into(),
        "/calibration".into(),
        "/bisections/1".into(),
        format!("/runs/{run}"),
        format!("/uploads/{upload}"),
        "/signin".into(),
    ];
    let mut args = vec![app.base.clone()];
    args.extend(paths);
    let out = run_e2e("a11y.mjs", args).await;
    assert!(out.contains("remembered across a reload"), "{out}");
    app.stop().await;
}

/// The upload page on a slow link: per-file progress in order, then "parsing and storing",
/// then each file's detected format and the runs; a broken file's error names file and line.
#[tokio::test(flavor = "multi_thread")]
async fn upload_page_shows_progress_formats_and_errors_in_chromium() {
    let app = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    // ~24 MB of samples: three seconds at the test's 8 MiB/s.
    let big = dir.path().join("big.csv");
    let mut csv = String::from("benchmark,metric,param,iteration,value\n");
    let mut i = 0u64;
    while csv.len() < 24 << 20 {
        csv.push_str(&format!(
            "bulk,latency,{},{},{}.{:03}\n",
            i % 8,
            i / 8,
            1000 + i % 97,
            i % 1000
        ));
        i += 1;
    }
    std::fs::write(&big, &csv).unwrap();
    let broken = dir.path().join("broken.csv");
    std::fs::write(&broken, "benchmark,metric,value\nb,x,1\nb,x,fast\n").unwrap();
    let small = fixture("netperf/tcp_stream-demo.txt");
    assert!(small.exists(), "{}", small.display());
    let path = |p: &std::path::Path| p.to_string_lossy().into_owned();
    run_e2e(
        "upload_progress.mjs",
        vec![app.base.clone(), path(&big), path(&small), path(&broken)],
    )
    .await;
    let (_, runs) = app.get_json("/api/v1/runs?machine=progress-box").await;
    assert_eq!(runs["total"], 2, "{runs}");
    app.stop().await;
}

/// Folders on the upload page: mmtests packed as a tar, an LKP result directory with what its
/// job states; and a file dropped on the form.
#[tokio::test(flavor = "multi_thread")]
async fn upload_page_takes_folders_and_dropped_files_in_chromium() {
    let app = spawn_app().await;
    let lkp = tempfile::tempdir().unwrap();
    std::fs::write(
        lkp.path().join("job.yaml"),
        "testcase: netperf\ntestbox: lkp-skl-d01\ncommit: a337531b942bd8a03e7052444d7e36972aac2d92\nkernel: /pkg/linux/x86_64-rhel/gcc-7/a337531b94/vmlinuz-4.16.0-rc1\n",
    )
    .unwrap();
    std::fs::write(
        lkp.path().join("netperf"),
        read_fixture("lkp-raw/netperf-udp-recv.log"),
    )
    .unwrap();
    std::fs::write(lkp.path().join("dmesg"), "not sent\n").unwrap();
    let path = |p: &std::path::Path| p.to_string_lossy().into_owned();
    run_e2e(
        "upload_folder.mjs",
        vec![
            app.base.clone(),
            path(&fixture("mmtests/work-log")),
            path(lkp.path()),
        ],
    )
    .await;
    let (_, runs) = app.get_json("/api/v1/runs?machine=folder-box").await;
    assert_eq!(runs["total"], 8, "{runs}");
    let (_, runs) = app.get_json("/api/v1/runs?machine=lkp-skl-d01").await;
    assert_eq!(runs["total"], 1, "{runs}");
    assert_eq!(runs["runs"][0]["kernel"], "4.16.0-rc1");
    assert_eq!(
        runs["runs"][0]["commit"],
        "a337531b942bd8a03e7052444d7e36972aac2d92"
    );
    let (_, runs) = app
        .get_json("/api/v1/runs?machine=dropped-folder-box")
        .await;
    assert_eq!(runs["total"], 8, "{runs}");
    let (_, runs) = app.get_json("/api/v1/runs?machine=drop-box").await;
    assert_eq!(runs["total"], 1, "{runs}");
    app.stop().await;
}

/// Issue 54: the admin's console with a robot's data (5,000-key LKP jobs and a netperf series
/// with a step): an admin signed in makes a token and revokes it, edits a rule and sees the
/// preview, saves it, and searches the audit trail; the pages fit 400 px (`e2e/console.mjs`).
#[tokio::test(flavor = "multi_thread")]
async fn the_admin_console_in_chromium() {
    use perfline_server::http::auth::AuthMode;
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.no_alerts = true;
    })
    .await;
    let admin = token(&app, "lead", "admin").await;
    crate::alerts::robot_with_a_step(&app, Some(&admin)).await;
    for i in 0..15 {
        let r = app
            .client
            .post(app.url(&format!(
                "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1&kernel=4.19.0-rc1\
                 &commit={}&format=lkp-stats",
                crate::trend::sha(i * 2)
            )))
            .bearer_auth(&admin)
            .body(crate::compare::big_job(5000, i >= 10, i % 3))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201);
    }
    run_e2e("console.mjs", vec![app.base.clone(), admin.clone()]).await;
    // The server agrees with what the browser saw.
    let robot = app
        .store
        .list_tokens()
        .await
        .unwrap()
        .into_iter()
        .find(|t| t.name == "robot-e2e")
        .expect("the token made in the browser");
    assert_eq!(robot.scopes, "mark");
    assert!(robot.revoked_at.is_some() && robot.expires_at.is_some());
    let (_, rules) = app.get_json("/api/v1/alert-rules").await;
    assert_eq!(rules["rules"][0]["min_change_pct"], 50.0);
    app.stop().await;
}

/// Issue 54: the admin's console signed in, in the light and the dark theme: no overflow at
/// 1280 px and no serious axe-core violation (`e2e/a11y.mjs --token`).
#[tokio::test(flavor = "multi_thread")]
async fn the_admin_console_is_accessible_in_both_themes_in_chromium() {
    use perfline_server::http::auth::AuthMode;
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.no_alerts = true;
        c.webhooks = vec!["https://hooks.example.com/services/T0/B0/xyz".into()];
    })
    .await;
    let admin = token(&app, "lead", "admin").await;
    token(&app, "robot-1", "upload,mark").await;
    crate::alerts::robot_with_a_step(&app, Some(&admin)).await;
    let r = app
        .client
        .put(app.url("/api/v1/alert-rules"))
        .bearer_auth(&admin)
        .json(&serde_json::json!({"rules": [{"benchmark": "netperf*", "metric": "Throughput*", "min_change_pct": 5.0}, {"benchmark": "hackbench*", "ignore": true}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let out = run_e2e(
        "a11y.mjs",
        vec![
            app.base.clone(),
            format!("--token={admin}"),
            "/admin".into(),
            "/admin/rules".into(),
            "/admin/audit?actor=lead".into(),
            "/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps".into(),
        ],
    )
    .await;
    assert!(out.contains("/admin/rules (dark): no overflow"), "{out}");
    app.stop().await;
}

/// Issue 54, point 3: the differential profile of the 2,982-key LKP job's two commits with
/// folded stacks beside every run: `e2e/profile.mjs` (the tree, the table, the flame graph and
/// axe, in both themes, at 1280 and 400 px).
#[tokio::test(flavor = "multi_thread")]
async fn profile_page_in_chromium_both_themes_and_400_px() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let commits = crate::profile::upload_case(&app).await;
    let path = format!(
        "/profile?benchmark=netperf&machine={}&commits={},{}",
        crate::profile::MACHINE,
        commits[0],
        commits[1]
    );
    let out = run_e2e("profile.mjs", vec![app.base.clone(), path]).await;
    assert_eq!(out.matches("no serious axe violation").count(), 4, "{out}");
    app.stop().await;
}

/// Issue 54: the whole tree's page of the tree of every family, and its saved copy, in both
/// themes at 1280 and 400 px, as `e2e/tree.mjs` checks them.
#[tokio::test(flavor = "multi_thread")]
async fn the_whole_tree_page_in_both_themes_and_at_400_px_in_chromium() {
    let app = spawn_app().await;
    crate::tree_page::upload_big_tree(&app, "big").await;
    let path = format!(
        "/compare?machine=big&benchmark=*&kernels={}",
        crate::big_tree::KERNELS.join(",")
    );
    let (status, page) = app.get_text(&path).await;
    assert_eq!(status, 200);
    let sections = page.matches("class=\"tree-section\"").count();
    assert!(sections > 50, "{sections} sections");
    run_e2e(
        "tree.mjs",
        vec![app.base.clone(), path, sections.to_string()],
    )
    .await;
}

/// Issue 54, point 2: the compare page of two LKP jobs of a robot's size (lkp-oracle's
/// 09-big-job, 2,982 keys) is lkp-tests' table with the mail's header, as
/// `e2e/lkp_compare.mjs` checks it (trends on demand, the commit picker, 400 px); and it is
/// accessible in both themes (`e2e/a11y.mjs`).
#[tokio::test(flavor = "multi_thread")]
async fn the_lkp_compare_page_of_a_big_job_in_chromium() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let dir = crate_fixture("lkp", "lkp-oracle").join("cases/09-big-job");
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
    let commits = [0, 1].map(|i| meta["commits"][i].as_str().unwrap().to_owned());
    let machine = "lkp-icl-2sp2";
    crate::lkp_compare::upload_case(
        &app,
        &dir,
        "netperf",
        machine,
        &commits,
        "&tags=ip=ipv4,runtime=300s",
    )
    .await;
    let log = format!(
        "{} 1700000100 tcp: up initial rmem to 128KB\n{} 1700000000 hns3: Another build fix.\n",
        commits[1], commits[0]
    );
    let r = app
        .client
        .post(app.url("/api/v1/commits?repo=linux&branch=master"))
        .body(log)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let out = run_e2e(
        "lkp_compare.mjs",
        vec![
            app.base.clone(),
            machine.to_owned(),
            commits[0].clone(),
            commits[1].clone(),
            "rmem".to_owned(),
        ],
    )
    .await;
    assert!(out.contains("at 400 px: nothing wider"), "{out}");
    let path = format!(
        "/compare?benchmark=netperf&machine={machine}&commits={},{}",
        commits[0], commits[1]
    );
    let out = run_e2e(
        "a11y.mjs",
        vec![
            app.base.clone(),
            path.clone(),
            format!("{path}&all=1"),
            format!("/trend?benchmark=netperf&machine={machine}&metric=netperf.Throughput_Mbps"),
        ],
    )
    .await;
    assert!(out.contains("remembered across a reload"), "{out}");
    app.stop().await;
}

/// Issue 56, point 3: the robot's reports as a maintainer reaches them in Chromium: searched
/// by subsystem, a report's page with the mail's table as the API prints it, its lore link
/// and KPI chart, and its commit's page; in both themes at 1280 and 400 px
/// (`e2e/reports.mjs`). `every_page_is_accessible_in_both_themes_in_chromium` checks the
/// pages with axe.
#[tokio::test(flavor = "multi_thread")]
async fn the_robots_reports_in_chromium() {
    let app = spawn_app().await;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lkp-mails");
    let mut mbox = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    names.sort();
    for p in &names {
        mbox.extend_from_slice(b"From lkp@intel.com Mon Jan  1 00:00:00 2024\n");
        mbox.extend_from_slice(&std::fs::read(p).unwrap());
        mbox.extend_from_slice(b"\n\n");
    }
    let r = app.upload_raw("", mbox).await;
    assert_eq!(r.status().as_u16(), 201);
    run_e2e(
        "reports.mjs",
        vec![
            app.base.clone(),
            "memcg".into(),
            "7".into(),
            dir.join("18-20250310-netperf-regression-01d37228d3.eml")
                .to_string_lossy()
                .into_owned(),
            dir.join("01-20190708-aim7-regression-490d451fa5.eml")
                .to_string_lossy()
                .into_owned(),
        ],
    )
    .await;
    app.stop().await;
}
