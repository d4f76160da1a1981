// SPDX-License-Identifier: GPL-3.0-or-later
//! The `perfline` binary as an operator runs it.

use std::process::Command;

#[test]
fn help_documents_every_option() {
    let out = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .arg("--help")
        .output()
        .expect("perfline runs");
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for option in [
        "--db",
        "PERFLINE_DB",
        "./perfline.db",
        "--listen",
        "PERFLINE_LISTEN",
        "127.0.0.1:3000",
        "--site-root",
        "--max-upload",
        "67108864",
        "--request-timeout",
        "--log",
    ] {
        assert!(
            help.contains(option),
            "--help should mention {option}:\n{help}"
        );
    }
}

#[test]
fn refuses_to_start_on_a_database_it_cannot_create() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args(["--listen", "127.0.0.1:0", "--db"])
        .arg(dir.path().join("missing/dir/perfline.db"))
        .output()
        .expect("perfline runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("perfline: cannot start: cannot open the database"),
        "{stderr}"
    );
}

#[test]
fn refuses_to_start_on_a_file_that_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(
        &path,
        "these are not the pages you are looking for ".repeat(200),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args(["--listen", "127.0.0.1:0", "--db"])
        .arg(&path)
        .output()
        .expect("perfline runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("perfline: cannot start"), "{stderr}");
    assert!(
        stderr.contains("not a database")
            || stderr.contains("file is not a database")
            || stderr.contains("cannot migrate"),
        "{stderr}"
    );
}
