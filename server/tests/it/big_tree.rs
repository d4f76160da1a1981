// SPDX-License-Identifier: GPL-3.0-or-later
//! A `work/log` tree of every mmtests family Perfline parses, built from the test fixtures:
//! each family's logs (the coverage cases' trees and `mmtests-families/*/logs`) under three
//! kernels, each logs directory repeated in `iters` `iter-N` directories, with a
//! `tests-activity` per kernel. The HTTP and browser tests of the whole tree's page upload it;
//! so does `benches/mmtests_tree.rs` (which includes this file).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

pub const KERNELS: [&str; 3] = ["6.1.0-vanilla", "6.2.0-rc3-vanilla", "6.2.0-vanilla"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/mmtests-parse/tests/fixtures")
}

/// Every file under `dir`, by its path relative to `dir`.
fn files_under(dir: &Path, rel: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if e.file_type().unwrap().is_dir() {
            files_under(&e.path(), &rel, out);
        } else {
            out.push((rel, std::fs::read(e.path()).unwrap()));
        }
    }
}

/// The benchmark directory name a families fixture is read as (its tests say).
fn benchmark_of(fixture: &str) -> &str {
    match fixture {
        "hackbench" => "hackbench-process-pipes",
        "iperf3" => "iperf3-ipv4-tcp",
        "libmicro" => "libmicro-memory",
        "nas" => "nas-bt",
        "pmqtest" => "pmqtest-pinned",
        "sembench" => "sembench-futex",
        "specjbb-multi" | "netperf-udp" => "",
        other => other,
    }
}

/// `(kernel, iter, benchmark) → [(file under logs/, bytes)]`: the whole corpus.
pub type Tree = BTreeMap<(String, usize, String), Vec<(String, Vec<u8>)>>;

/// The corpus tree.
pub fn corpus(iters: usize) -> Tree {
    let mut tree = BTreeMap::new();
    // Families' fixtures: the same logs for every kernel and iteration.
    let families = fixtures().join("mmtests-families");
    let mut names: Vec<String> = std::fs::read_dir(&families)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let benchmark = benchmark_of(&name);
        if benchmark.is_empty() || !families.join(&name).join("logs").is_dir() {
            continue;
        }
        let mut files = Vec::new();
        files_under(&families.join(&name).join("logs"), "", &mut files);
        for k in KERNELS {
            for i in 0..iters {
                tree.insert((k.to_owned(), i, benchmark.to_owned()), files.clone());
            }
        }
    }
    // The coverage cases' trees: one case per benchmark, its kernels renamed to ours.
    let cases = fixtures().join("mmtests-coverage/cases");
    let mut cases_seen: Vec<String> = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let Ok(meta) = std::fs::read(dir.join("case.json")) else {
            continue;
        };
        let meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
        let benchmark = meta["benchmark"].as_str().unwrap().to_owned();
        if cases_seen.contains(&benchmark) {
            continue;
        }
        cases_seen.push(benchmark.clone());
        let theirs: Vec<String> = meta["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_owned())
            .collect();
        let bytes = std::fs::read(dir.join("work-log.tar.gz")).unwrap();
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            let parts: Vec<&str> = path.split('/').collect();
            if parts.len() < 5 || parts[3] != "logs" {
                continue;
            }
            let Some(k) = theirs.iter().position(|t| t == parts[0]) else {
                continue;
            };
            let iter: usize = parts[1].trim_start_matches("iter-").parse().unwrap();
            let mut data = Vec::new();
            entry.read_to_end(&mut data).unwrap();
            tree.entry((KERNELS[k].to_owned(), iter, parts[2].to_owned()))
                .or_insert_with(Vec::new)
                .push((parts[4..].join("/"), data));
        }
    }
    tree
}

pub fn archive(tree: &Tree) -> Vec<u8> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    let mut append = |path: String, data: &[u8]| {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, data).unwrap();
    };
    for ((k, i, b), files) in tree {
        for (name, data) in files {
            append(format!("{k}/iter-{i}/{b}/logs/{name}"), data);
        }
    }
    let kernels: std::collections::BTreeSet<&str> =
        tree.keys().map(|(k, _, _)| k.as_str()).collect();
    for k in kernels {
        let mut activity = String::from("1 run-mmtests: Iteration 1 start\n");
        let mut seen: Vec<&str> = Vec::new();
        for (kk, _, b) in tree.keys() {
            if kk == k && !seen.contains(&b.as_str()) {
                seen.push(b);
                activity.push_str(&format!("2 run-mmtests: test start :: {b} 2\n"));
            }
        }
        activity.push_str("3 run-mmtests: Iteration 1 end\n");
        append(format!("{k}/iter-0/tests-activity"), activity.as_bytes());
    }
    tar.into_inner().unwrap().finish().unwrap()
}
