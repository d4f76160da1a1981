// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! The oracle: lkp-tests' own output for ten cases (`tests/fixtures/lkp-oracle/`),
//! compared byte for byte.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::*;

const CASES_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/lkp-oracle/cases"
);

const CASES: [&str; 10] = [
    "01-netperf-kpi-drop",
    "02-small-changes",
    "03-prefix-thresholds",
    "04-perf-profile",
    "05-percent-latency",
    "06-failures",
    "07-incomplete-run",
    "08-format-edges",
    "09-big-job",
    "10-string-values",
];

/// Cases whose output does not (yet) match lkp-tests byte for byte, each with the reason.
const KNOWN_DIFFERENT: &[(&str, &str)] = &[];

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn field<'a>(j: &'a Json, name: &str) -> &'a Json {
    let Json::Object(entries) = j else {
        panic!("not an object")
    };
    entries
        .iter()
        .find(|(k, _)| k == name)
        .map_or_else(|| panic!("no {name}"), |(_, v)| v)
}

fn text(j: &Json, name: &str) -> String {
    match field(j, name) {
        Json::Str(s) => s.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

/// Whether a job param is one of lkp-tests' program options (so an axis). Every param of the
/// cases is, except schbench's `thread`: `programs/schbench/run` declares `message_threads`,
/// `worker_threads`, `worker_threads_by_instance`, `runtime`, `iterations`, `intervaltime_s`.
fn is_option(_parent: Option<&str>, name: &str) -> bool {
    name != "thread"
}

struct Case {
    header: Header,
    runs: [Vec<Run>; 2],
    matrices: [Matrix; 2],
    /// lkp-tests' own matrices (`matrix/<commit>.json`).
    lkp_matrices: [Matrix; 2],
    expected: String,
}

fn load(case: &str) -> Case {
    let dir = PathBuf::from(CASES_DIR).join(case);
    let meta = Json::parse(&read(&dir.join("case.json"))).unwrap();
    let Json::Array(commits) = field(&meta, "commits") else {
        panic!("commits")
    };
    let commits: Vec<String> = commits
        .iter()
        .map(|c| match c {
            Json::Str(s) => s.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    let job = Job {
        testcase: text(&meta, "testcase"),
        machine: text(&meta, "machine"),
        rootfs: text(&meta, "rootfs"),
        kconfig: text(&meta, "kconfig"),
        compiler: text(&meta, "compiler"),
        params: field(&meta, "params").clone(),
    };
    let header = Header {
        axes: job_axes(&job, is_option),
        base_commit: commits[0].clone(),
        head_commit: commits[1].clone(),
    };
    let runs_of = |commit: &str| -> Vec<Run> {
        let mut run_dirs: Vec<(u64, PathBuf)> = std::fs::read_dir(dir.join("runs").join(commit))
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let n = p.file_name().unwrap().to_str().unwrap().parse().unwrap();
                (n, p)
            })
            .collect();
        run_dirs.sort();
        run_dirs
            .iter()
            .map(|(_, p)| Run::from_json(&read(&p.join("stats.json"))).unwrap())
            .collect()
    };
    let runs = [runs_of(&commits[0]), runs_of(&commits[1])];
    let builder = text(&meta, "matrix_builder");
    let matrices = runs.each_ref().map(|r| match builder.as_str() {
        "unite_stats" => unite(r),
        "matrix_from_stats_files" => matrix_from_runs(r),
        other => panic!("matrix_builder {other}"),
    });
    let lkp = |commit: &str| {
        Matrix::from_json(&read(&dir.join("matrix").join(format!("{commit}.json")))).unwrap()
    };
    Case {
        header,
        runs,
        matrices,
        lkp_matrices: [lkp(&commits[0]), lkp(&commits[1])],
        expected: read(&dir.join("expected.txt")),
    }
}

/// The first differing lines of two texts, with a little context, unified-diff style.
fn diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.split_inclusive('\n').collect();
    let a: Vec<&str> = actual.split_inclusive('\n').collect();
    let first = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let from = first.saturating_sub(2);
    let mut out = format!("@@ first difference at line {} @@\n", first + 1);
    for l in &e[from..first] {
        out.push_str(&format!(" {l}"));
    }
    for l in e.iter().skip(first).take(6) {
        out.push_str(&format!("-{l}"));
    }
    for l in a.iter().skip(first).take(6) {
        out.push_str(&format!("+{l}"));
    }
    if e.len() != a.len() {
        out.push_str(&format!(
            "({} expected lines, {} printed)\n",
            e.len(),
            a.len()
        ));
    }
    out
}

/// Compares the output for `case` with lkp-tests'; the diff when they differ.
fn check(case: &str) -> Result<(), String> {
    let c = load(case);
    let [base, head] = &c.matrices;
    let actual = compare_text(&c.header, base, head);
    if actual == c.expected {
        Ok(())
    } else {
        Err(format!("{case}:\n{}", diff(&c.expected, &actual)))
    }
}

#[test]
fn oracle_cases_byte_for_byte() {
    let mut failures = Vec::new();
    for case in CASES {
        let known = KNOWN_DIFFERENT.iter().find(|(c, _)| *c == case);
        match (check(case), known) {
            (Ok(()), None) | (Err(_), Some(_)) => {}
            (Ok(()), Some((_, why))) => {
                failures.push(format!(
                    "{case} now matches: remove it from KNOWN_DIFFERENT ({why})"
                ));
            }
            (Err(d), None) => failures.push(d),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unite_builds_lkp_tests_matrices() {
    for case in CASES {
        let c = load(case);
        for (mine, theirs) in c.matrices.iter().zip(&c.lkp_matrices) {
            assert_eq!(mine.runs(), theirs.runs(), "{case}");
            let mine_keys: Vec<&str> = mine.iter().map(|(k, _)| k).collect();
            let their_keys: Vec<&str> = theirs.iter().map(|(k, _)| k).collect();
            assert_eq!(mine_keys, their_keys, "{case}: key order");
            for (k, v) in theirs.iter() {
                assert_eq!(mine.get(k), Some(v), "{case}: {k}");
            }
        }
        assert!(!c.runs[0].is_empty());
    }
}

#[test]
fn lkp_tests_matrices_compare_the_same() {
    for case in CASES {
        let c = load(case);
        let [base, head] = &c.lkp_matrices;
        let from_runs = compare_text(&c.header, &c.matrices[0], &c.matrices[1]);
        assert_eq!(compare_text(&c.header, base, head), from_runs, "{case}");
    }
}

#[test]
fn nothing_changed_prints_nothing() {
    let c = load("01-netperf-kpi-drop");
    let base = &c.matrices[0];
    assert_eq!(compare_text(&c.header, base, base), "");
}

/// A deterministic job of `keys` keys × `runs` runs a side, about a third of them changed.
fn synthetic(keys: usize, runs: usize, head: bool) -> Vec<Run> {
    const PREFIXES: [&str; 12] = [
        "netperf.",
        "perf-stat.i.",
        "proc-vmstat.",
        "meminfo.",
        "sched_debug.cpu.",
        "mpstat.cpu.all.",
        "perf-profile.children.cycles-pp.",
        "vmstat.system.",
        "interrupts.CPU",
        "slabinfo.",
        "dmesg.WARNING:at_",
        "time.",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..runs)
        .map(|_| {
            let mut run = Run::new();
            for i in 0..keys {
                let prefix = PREFIXES[i % PREFIXES.len()];
                let base = 1000.0 + (i * 37 % 5000) as f64;
                let shift = if head && i % 3 == 0 { 1.2 } else { 1.0 };
                let v = base * shift * (1.0 + 0.01 * next());
                let value = if prefix.starts_with("dmesg") {
                    Value::Int(i64::from(next() < 0.3 && head).into())
                } else if i % 2 == 0 {
                    Value::Int(v as i128)
                } else {
                    Value::Float((v * 100.0).round() / 100.0)
                };
                run.insert(format!("{prefix}key_{i}"), value);
            }
            run
        })
        .collect()
}

#[test]
fn five_thousand_keys_time() {
    let (base_runs, head_runs) = (synthetic(5000, 6, false), synthetic(5000, 6, true));
    let header = Header {
        axes: vec![("testcase".into(), "synthetic".into())],
        base_commit: "a".repeat(40),
        head_commit: "b".repeat(40),
    };
    let start = Instant::now();
    let (base, head) = (unite(&base_runs), unite(&head_runs));
    let united = start.elapsed();
    let out = compare_text(&header, &base, &head);
    let total = start.elapsed();
    let rows = out.lines().count();
    println!(
        "5000 keys x 6 runs: unite {united:?}, unite + compare + render {total:?}, {rows} lines"
    );
    assert!(rows > 100);
}
