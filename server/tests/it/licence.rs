// SPDX-License-Identifier: GPL-3.0-or-later
//! What Perfline is under and where its source is, as a user meets it: `--version`, the
//! footer of every page, the API reference, and the source archive the binary serves and
//! writes out — which holds the workspace's code, manifests and licence texts.

use std::process::Command;

use crate::helpers::*;

/// The archive's member names.
fn members(archive: &[u8]) -> Vec<String> {
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    tar.entries()
        .unwrap()
        .map(|e| e.unwrap().path().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn version_names_the_licence_and_the_source() {
    let out = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("GPL-3.0-or-later"), "{text}");
    assert!(text.contains("perfline source"), "{text}");
}

#[test]
fn the_binary_writes_its_own_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("src.tar.gz");
    let status = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args(["source", "--output"])
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let names = members(&std::fs::read(&path).unwrap());
    let root = format!("perfline-{}/", env!("CARGO_PKG_VERSION"));
    // Every source file of every crate the binary is built from, its manifests and licences.
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in [
        "server/src",
        "app/src",
        "crates/lkp/src",
        "crates/mmtests-parse/src",
        "frontend/src",
    ] {
        for entry in walk(&workspace.join(dir)) {
            let rel = entry
                .strip_prefix(&workspace)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            assert!(
                names.contains(&format!("{root}{rel}")),
                "{rel} is not in the archive"
            );
        }
    }
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE",
        "LICENSES/PROVENANCE.md",
        "migrations/sqlite",
    ] {
        assert!(
            names
                .iter()
                .any(|n| n.starts_with(&format!("{root}{file}"))),
            "{file} is not in the archive"
        );
    }
    // Test data is not source of the binary.
    assert!(!names.iter().any(|n| n.contains("/fixtures/")));
    // An existing file is never overwritten.
    let again = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args(["source", "--output"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!again.status.success());
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_serves_its_source_and_every_page_links_it() {
    let app = spawn_app().await;
    let res = app
        .client
        .get(format!("{}/source.tar.gz", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/gzip");
    let served = res.bytes().await.unwrap();
    assert!(members(&served)
        .iter()
        .any(|n| n.ends_with("/server/src/http/source.rs")));
    let (_, page) = app.get_text("/").await;
    assert!(
        page.contains("href=\"/source.tar.gz\""),
        "the footer links the source"
    );
    assert!(
        page.contains("href=\"/docs/licence\""),
        "the footer links the licence"
    );
    let (status, licence) = app.get_text("/docs/licence").await;
    assert_eq!(status, 200);
    assert!(licence.contains("GNU GENERAL PUBLIC LICENSE") && licence.contains("Version 3"));
    let (_, reference) = app.get_text("/api").await;
    assert!(reference.contains("GPL-3.0-or-later") && reference.contains("/source.tar.gz"));
}
