// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Tests of the families' parsers against what the real `parse-results` printed:
//! [`check_case`] for a case of `tests/fixtures/mmtests-coverage/` (each kernel's `iter-0`
//! logs against its `parsed-<kernel>.tsv`), [`check_dir`] for a logs directory of
//! `tests/fixtures/mmtests-families/<name>/` against the `parsed.tsv` beside it.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::prelude::{LogDir, Parser};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A member's text, decompressed by its name as `zcat`/`xzcat` would.
fn decompress(name: &str, bytes: &[u8]) -> String {
    let mut out = Vec::new();
    if name.ends_with(".gz") {
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .unwrap();
    } else if name.ends_with(".xz") {
        liblzma::read::XzDecoder::new_multi_decoder(bytes)
            .read_to_end(&mut out)
            .unwrap();
    } else {
        out = bytes.to_vec();
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The `iter-<iter>` logs directory of `kernel` in a case's `work-log.tar.gz`.
pub fn case_dir(case: &str, kernel: &str, iter: u32) -> LogDir {
    let root = fixtures().join("mmtests-coverage/cases").join(case);
    let bytes = std::fs::read(root.join("work-log.tar.gz")).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
    let prefix = format!("{kernel}/iter-{iter}/");
    let mut dir: Option<LogDir> = None;
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry.path().unwrap().to_string_lossy().into_owned();
        let Some(rest) = path.trim_start_matches("./").strip_prefix(&prefix) else {
            continue;
        };
        let parts: Vec<&str> = rest.split('/').collect();
        if parts.len() != 3 || parts[1] != "logs" {
            continue;
        }
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        dir.get_or_insert_with(|| LogDir::new(parts[0]))
            .insert(parts[2], decompress(parts[2], &data));
    }
    dir.unwrap_or_else(|| panic!("{case}: no {prefix}<benchmark>/logs/ in the tree"))
}

/// A case's kernels, baseline first (from its `case.json`).
pub fn case_kernels(case: &str) -> Vec<String> {
    let root = fixtures().join("mmtests-coverage/cases").join(case);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("case.json")).unwrap()).unwrap();
    json["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_owned())
        .collect()
}

fn printed(parser: Parser, dir: &LogDir) -> String {
    let lines = parser(dir).unwrap_or_else(|p| panic!("{}: {p}", dir.benchmark));
    lines.iter().map(|l| l.tsv() + "\n").collect()
}

/// Every kernel of the case: the parser prints what `parse-results` printed, byte for byte.
pub fn check_case(case: &str, parser: Parser) {
    let root = fixtures().join("mmtests-coverage/cases").join(case);
    for kernel in case_kernels(case) {
        let expected = std::fs::read_to_string(root.join(format!("parsed-{kernel}.tsv"))).unwrap();
        let got = printed(parser, &case_dir(case, &kernel, 0));
        assert!(!expected.is_empty(), "{case}/{kernel}: nothing expected");
        same(&got, &expected, &format!("{case}/{kernel}"));
    }
}

/// The logs directory `tests/fixtures/mmtests-families/<name>/logs/` read as the benchmark
/// `benchmark`.
pub fn fixture_dir(name: &str, benchmark: &str) -> LogDir {
    let root = fixtures().join("mmtests-families").join(name).join("logs");
    let mut dir = LogDir::new(benchmark);
    let mut names: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for n in names {
        let bytes = std::fs::read(root.join(&n)).unwrap();
        dir.insert(&n, decompress(&n, &bytes));
    }
    dir
}

/// The parser prints `tests/fixtures/mmtests-families/<name>/parsed.tsv` for the logs beside it.
pub fn check_dir(name: &str, benchmark: &str, parser: Parser) {
    let expected = std::fs::read_to_string(
        fixtures()
            .join("mmtests-families")
            .join(name)
            .join("parsed.tsv"),
    )
    .unwrap();
    assert!(!expected.is_empty(), "{name}: nothing expected");
    let got = printed(parser, &fixture_dir(name, benchmark));
    same(&got, &expected, name);
}

/// Panics at the first line where `got` and `expected` differ, naming both.
fn same(got: &str, expected: &str, what: &str) {
    let (g, e): (Vec<&str>, Vec<&str>) = (got.lines().collect(), expected.lines().collect());
    for (i, (a, b)) in g.iter().zip(&e).enumerate() {
        assert_eq!(a, b, "{what}: line {} differs", i + 1);
    }
    assert_eq!(
        g.len(),
        e.len(),
        "{what}: {} lines printed, {} expected; next expected: {:?}, next printed: {:?}",
        g.len(),
        e.len(),
        e.get(g.len()),
        g.get(e.len())
    );
    assert_eq!(got, expected, "{what}: line ends differ");
}
