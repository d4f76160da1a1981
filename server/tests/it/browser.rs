//! Real headless Chromium against the real server: upload through the form after hydration.
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

#[tokio::test(flavor = "multi_thread")]
async fn upload_through_the_form_in_chromium() {
    let root = repo_root();
    let wasm = root.join("target/site/pkg/perfline_bg.wasm");
    assert!(
        wasm.exists(),
        "{} is missing: run scripts/build-site (scripts/test does)",
        wasm.display()
    );
    assert!(
        root.join("e2e/node_modules/playwright-core").exists(),
        "e2e/node_modules is missing: run scripts/ensure-tools"
    );

    let app = spawn_app().await;
    let base = app.base.clone();
    let csv = fixture("generic/netperf-sweep.csv");
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(root.join("e2e/upload.mjs"))
            .arg(&base)
            .arg(&csv)
            .current_dir(&root)
            .output()
            .expect("node runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "browser test failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    assert!(stdout.contains("e2e: ok"));

    // The server agrees with what the browser saw.
    let (_, runs) = app.get_json("/api/v1/runs?machine=e2e%20box").await;
    assert_eq!(runs["total"], 1);
    assert_eq!(runs["runs"][0]["kernel"], "6.9.0-rc1");
    assert_eq!(runs["runs"][0]["benchmark"], "netperf-tcp");
}
