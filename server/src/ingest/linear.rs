// SPDX-License-Identifier: GPL-3.0-or-later
//! Every parser's cost is linear in its input: each format Perfline reads (and each shape of
//! an mmtests tree, each family's parser, each history) is parsed at a size `n` and at
//! `K·n`, and the second may cost at most [`MAX_RATIO`] times the first (linear work costs
//! `K` times as much, quadratic work `K²`). The inputs are shaped where a parser could go
//! wrong: many runs, series and keys at once, long lines, a matrix whose columns and keys
//! both grow (the 2026-12-06 audit's `columns × keys`), lines out of order, a tree whose
//! members are scattered.
//!
//! The cost is the process's CPU time (user and system, all its threads: the tree's parse
//! pool too), which other processes' load does not move; the least of a few runs of each,
//! alternated. nextest runs each test in a process of its own, so the figure is this test's.

use std::io::Write;

use super::{parse_file, test_meta, Format, UploadMeta};

/// How much larger the second input is.
const K: usize = 8;
/// The most the larger input may cost, in multiples of the smaller's: linear is `K`, and
/// quadratic `K²` = 64.
const MAX_RATIO: f64 = 3.0 * K as f64;
/// How hard to measure: the CPU time (in clock ticks of 10 ms) the smaller input's runs are
/// scaled to reach, and the runs of each size (the least is taken).
#[derive(Clone, Copy)]
struct Effort {
    target: u64,
    reps: usize,
}

/// For the formats.
const FULL: Effort = Effort { target: 8, reps: 3 };
/// For the 80 family fixtures.
const LIGHT: Effort = Effort { target: 5, reps: 2 };

/// This process's CPU time so far (user and system, every thread), in clock ticks.
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // The fields after the command name (which may hold spaces), from the third (state):
    // utime and stime are the 14th and 15th.
    let after = &stat[stat.rfind(')').expect("(comm)") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: u64 = fields[11].parse().expect("utime");
    let stime: u64 = fields[12].parse().expect("stime");
    utime + stime
}

/// The CPU ticks of `times` runs of `parse` on `input`.
fn cost(parse: &dyn Fn(&[u8]) -> usize, input: &[u8], times: usize) -> u64 {
    let start = cpu_ticks();
    for _ in 0..times {
        std::hint::black_box(parse(std::hint::black_box(input)));
    }
    cpu_ticks() - start
}

/// What [`assert_linear`] measures: `parse` (which returns how much it made: samples,
/// commits...) on `make(n)`, `n` from `start` up to `max` (the largest the parser takes: its
/// bounds) at the larger size. With `grows`, what it made must grow `K`-fold with the input
/// (so the larger input was parsed, not refused early).
struct Case<'a> {
    name: &'a str,
    start: usize,
    max: usize,
    grows: bool,
    make: &'a dyn Fn(usize) -> Vec<u8>,
    parse: &'a dyn Fn(&[u8]) -> usize,
}

/// Asserts that a case costs about `K` times as much on `make(K·n)` as on `make(n)`. `n`
/// doubles from `start` (while `K·n` stays within `max`) until a run costs the effort's
/// target; a parser that is still faster runs several times over for each measure.
fn assert_linear(case: &Case<'_>, effort: Effort) {
    let Case {
        name,
        start,
        max,
        grows,
        make,
        parse,
    } = *case;
    let mut n = start;
    let mut small = make(n);
    while n * 2 * K <= max && cost(parse, &small, 1) < effort.target {
        n *= 2;
        small = make(n);
    }
    let mut times = 1;
    while cost(parse, &small, times) < effort.target {
        times *= 2;
    }
    let large = make(n * K);
    if grows {
        let (made_small, made_large) = (parse(&small), parse(&large));
        assert!(
            made_small > 0 && made_large >= made_small * K * 9 / 10,
            "{name}: {made_small} at n = {n}, {made_large} at {K}·n: the larger input was not parsed whole"
        );
    }
    // The repetitions were chosen on one measurement, which a busy machine can inflate (the
    // first parse also pays for cold caches): when the best of the measured runs falls short
    // of half the target, a tick is too coarse to compare; run twice as many and measure again.
    let (mut best_small, mut best_large);
    loop {
        (best_small, best_large) = (u64::MAX, u64::MAX);
        for _ in 0..effort.reps {
            best_small = best_small.min(cost(parse, &small, times));
            best_large = best_large.min(cost(parse, &large, times));
        }
        if best_small * 2 >= effort.target || times >= 1 << 20 {
            break;
        }
        times *= 2;
    }
    let ratio = best_large as f64 / best_small.max(1) as f64;
    eprintln!(
        "{name}: n = {n} ({} bytes) × {times}: {best_small} ticks; {K}·n ({} bytes): {best_large} ticks; ratio {ratio:.1}",
        small.len(),
        large.len()
    );
    assert!(
        ratio <= MAX_RATIO,
        "{name}: {K} times the input cost {ratio:.1} times as much ({best_small} → {best_large} CPU ticks, n = {n}): superlinear"
    );
}

/// The samples of parsing `bytes` as `format` with `meta`; 0 if it was refused.
fn samples(bytes: &[u8], format: Format, meta: &UploadMeta) -> usize {
    parse_file(bytes, Some(format), meta).map_or(0, |(_, runs)| {
        runs.iter().map(super::ParsedRun::sample_count).sum()
    })
}

fn formats(format: Format) -> impl Fn(&[u8]) -> usize {
    let meta = test_meta();
    move |bytes: &[u8]| samples(bytes, format, &meta)
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(path),
    )
    .unwrap()
}

/// A generic CSV of `n`·100 rows: `n`/16 + 1 kernels (runs), 20 metrics × 5 params each,
/// iterations counting down (so every series is sorted when the builder finishes).
fn csv_rows(n: usize) -> Vec<u8> {
    let mut out = String::from("benchmark,kernel,metric,param,iteration,value\n");
    let kernels = n / 16 + 1;
    for i in (0..n * 100).rev() {
        let (kernel, series, iteration) = (i % kernels, (i / kernels) % 100, i / kernels / 100);
        out.push_str(&format!(
            "b,k{kernel},m{},p{},{iteration},{i}.5\n",
            series % 20,
            series / 20
        ));
    }
    out.into_bytes()
}

#[test]
fn generic_csv_is_linear() {
    assert_linear(
        &Case {
            name: "csv, many rows",
            start: 4,
            max: 2_000,
            grows: true,
            make: &csv_rows,
            parse: &formats(Format::Csv),
        },
        FULL,
    );
    // Every row a series of its own (up to the upload's 200,000).
    assert_linear(
        &Case {
            name: "csv, a series a row",
            start: 8,
            max: 2_000,
            grows: true,
            make: &|n| {
                let mut out = String::from("benchmark,kernel,metric,value\n");
                for i in 0..n * 100 {
                    out.push_str(&format!("b,k,metric-{i},{i}\n"));
                }
                out.into_bytes()
            },
            parse: &formats(Format::Csv),
        },
        FULL,
    );
}

#[test]
fn generic_json_is_linear() {
    assert_linear(
        &Case {
            name: "json",
            start: 4,
            max: 2_000,
            grows: true,
            make: &|n| {
                let kernels = n / 16 + 1;
                let samples: Vec<String> = (0..n * 100)
                .rev()
                .map(|i| {
                    format!(
                        r#"{{"benchmark":"b","kernel":"k{}","metric":"m{}","iteration":{},"value":{i}}}"#,
                        i % kernels,
                        (i / kernels) % 100,
                        i / kernels / 100
                    )
                })
                .collect();
                format!("[{}]", samples.join(",")).into_bytes()
            },
            parse: &formats(Format::Json),
        },
        FULL,
    );
}

/// A fixture repeated `n` times.
fn repeated(path: &str) -> impl Fn(usize) -> Vec<u8> {
    let text = fixture(path);
    move |n| text.repeat(n).into_bytes()
}

#[test]
fn hackbench_is_linear() {
    assert_linear(
        &Case {
            name: "hackbench",
            start: 4,
            max: 1 << 20,
            grows: true,
            make: &repeated("hackbench/hackbench-rt-tests-pipes.txt"),
            parse: &formats(Format::Hackbench),
        },
        FULL,
    );
}

#[test]
fn netperf_is_linear() {
    for path in [
        "netperf/tcp_stream-demo.txt",
        "netperf/omni-o-csv.txt",
        "netperf/tcp_rr.txt",
    ] {
        assert_linear(
            &Case {
                name: path,
                start: 4,
                max: 1 << 20,
                grows: true,
                make: &repeated(path),
                parse: &formats(Format::Netperf),
            },
            FULL,
        );
    }
}

#[test]
fn sysbench_is_linear() {
    for path in ["sysbench/sysbench-cpu.txt", "sysbench/sysbench-memory.txt"] {
        assert_linear(
            &Case {
                name: path,
                start: 4,
                max: 1 << 20,
                grows: true,
                make: &repeated(path),
                parse: &formats(Format::Sysbench),
            },
            FULL,
        );
    }
}

#[test]
fn lkp_raw_is_linear() {
    for path in ["lkp-raw/hackbench.log", "lkp-raw/netperf-udp-recv.log"] {
        assert_linear(
            &Case {
                name: path,
                start: 4,
                max: 1 << 20,
                grows: false,
                make: &repeated(path),
                parse: &formats(Format::LkpRaw),
            },
            FULL,
        );
    }
}

#[test]
fn lkp_stats_is_linear() {
    assert_linear(
        &Case {
            name: "lkp stats.json",
            start: 4,
            max: 2_000,
            grows: true,
            make: &|n| {
                let keys: Vec<String> = (0..n * 100)
                    .map(|i| format!("\"netperf.k{i}.Throughput_Mbps\": {i}.5"))
                    .collect();
                format!("{{{}}}", keys.join(",\n")).into_bytes()
            },
            parse: &formats(Format::LkpStats),
        },
        FULL,
    );
}

/// The audit's matrix, scaled: one key of `n` columns and 20·`n` keys of one value each, so
/// columns and keys grow together (their product was the parse's cost).
#[test]
fn lkp_matrix_is_linear_in_its_cells() {
    assert_linear(
        &Case {
            name: "lkp matrix.json",
            start: 16,
            max: super::MAX_RUNS,
            grows: true,
            make: &|n| {
                let mut doc =
                    String::from("{\"stats_source\": [\"s\"], \"netperf.Throughput_Mbps\": [");
                doc.push_str(&vec!["1.5"; n].join(","));
                doc.push(']');
                for i in 0..n * 20 {
                    doc.push_str(&format!(",\n\"proc-vmstat.k{i}\": [{i}]"));
                }
                doc.push('}');
                doc.into_bytes()
            },
            parse: &formats(Format::LkpMatrix),
        },
        FULL,
    );
}

#[test]
fn mmtests_rows_are_linear() {
    assert_linear(
        &Case {
            name: "mmtests rows",
            start: 4,
            max: 2_000,
            grows: true,
            make: &|n| {
                let mut out = String::from("# mmtests-rows\n# benchmark: dbench\n");
                for i in 0..n * 100 {
                    out.push_str(&format!("loadfile\t{}\t_\t{i}\t{i}.25\tR\n", i % 64));
                }
                out.into_bytes()
            },
            parse: &formats(Format::MmtestsRows),
        },
        FULL,
    );
}

#[test]
fn folded_stacks_are_linear() {
    assert_linear(
        &Case {
            name: "folded stacks",
            start: 4,
            max: 2_000,
            grows: true,
            make: &|n| {
                let mut out = String::new();
                for i in 0..n * 50 {
                    out.push_str(&format!(
                        "perf;entry_SYSCALL_64;do_syscall_64;f{};leaf{i}.isra.0 {}\n",
                        i % 97,
                        i % 13 + 1
                    ));
                }
                out.into_bytes()
            },
            parse: &|bytes: &[u8]| {
                std::str::from_utf8(bytes)
                    .ok()
                    .and_then(|t| super::folded::parse(t).ok())
                    .map_or(0, |f| f.stacks.len())
            },
        },
        FULL,
    );
}

/// A plain tar of `members`.
fn tar(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    for (path, data) in members {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, &data[..]).unwrap();
    }
    tar.into_inner().unwrap()
}

fn xz(text: &[u8]) -> Vec<u8> {
    let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

fn tree_samples() -> impl Fn(&[u8]) -> usize {
    let mut meta = UploadMeta::default();
    meta.set("machine", "m1").unwrap();
    move |bytes: &[u8]| samples(bytes, Format::Mmtests, &meta)
}

/// The fixture tree's files (path under `work-log/`, bytes).
fn work_log() -> Vec<(String, Vec<u8>)> {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mmtests/work-log");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The fixture tree (4 kernels, netperf-tcp and hackbench) `n` times over, each copy's
/// kernels named apart: `n` times the directories, runs and samples.
#[test]
fn an_mmtests_tree_is_linear_in_its_directories() {
    let files = work_log();
    assert_linear(
        &Case {
            name: "mmtests tree, directories",
            start: 1,
            // 8 runs a copy, at most 5,000 in an upload.
            max: super::MAX_RUNS / 8,
            grows: true,
            make: &|n| {
                let members: Vec<(String, Vec<u8>)> = (0..n)
                    .flat_map(|copy| {
                        files.iter().map(move |(path, data)| {
                            let (kernel, rest) = path.split_once('/').unwrap();
                            (format!("log/{kernel}-{copy}/{rest}"), data.clone())
                        })
                    })
                    .collect();
                tar(&members)
            },
            parse: &tree_samples(),
        },
        FULL,
    );
}

/// A dbench directory: 32 client counts' `loadfile` logs of 50·`n` lines each, compressed
/// as mmtests leaves them; with `shuffled`, each log's seconds out of order (the sort then
/// sorts them all, not by insertion).
fn dbench_tree(n: usize, shuffled: bool) -> Vec<u8> {
    let members: Vec<(String, Vec<u8>)> = (0..32)
        .map(|client| {
            let lines = n * 50;
            let mut log = String::new();
            for i in 0..lines {
                // A permutation of the seconds when shuffled (7919 is prime to any count
                // that is not a multiple of it).
                let second = if shuffled { (i * 7919) % lines } else { i };
                log.push_str(&format!(
                    "   {client} completed in {} ms at time {} ms\n",
                    100 + i % 37,
                    (second + 1) * 1000
                ));
            }
            (
                format!("6.1/iter-0/dbench/logs/benchlog-loadfile-{}.xz", client + 1),
                xz(log.as_bytes()),
            )
        })
        .collect();
    tar(&members)
}

#[test]
fn an_mmtests_trees_long_logs_are_linear() {
    // 32 × 50 × 8·n lines at most: under the upload's rows (262,144 for a small upload) and
    // mmtests' 99,999 samples of one operation.
    for shuffled in [false, true] {
        assert_linear(
            &Case {
                name: if shuffled {
                    "mmtests tree, dbench out of order"
                } else {
                    "mmtests tree, dbench"
                },
                start: 1,
                max: 160,
                grows: true,
                make: &|n| dbench_tree(n, shuffled),
                parse: &tree_samples(),
            },
            FULL,
        );
    }
}

/// `n` hackbench directories whose members are scattered through the tar (every
/// directory's first member, then every second one): each is parsed when the walk leaves
/// it, and again at the end with the member that came late.
#[test]
fn an_mmtests_tree_with_scattered_members_is_linear() {
    assert_linear(
        &Case {
            name: "mmtests tree, scattered members",
            start: 8,
            max: super::MAX_RUNS,
            grows: true,
            make: &|n| {
                let dir = |i: usize| format!("k{i}/iter-0/hackbench-process-pipes/logs");
                let mut members: Vec<(String, Vec<u8>)> = (0..n)
                    .map(|i| {
                        (
                        format!("{}/hackbench-4", dir(i)),
                        b"Running in process mode with 4 groups\nTime: 0.5\nTotal time: 0.512\n"
                            .to_vec(),
                    )
                    })
                    .collect();
                members.extend((0..n).map(|i| (format!("{}/notes", dir(i)), b"x\n".to_vec())));
                tar(&members)
            },
            parse: &tree_samples(),
        },
        FULL,
    );
}

#[test]
fn histories_are_linear() {
    let sha = |i: usize| format!("{:040x}", (i as u128 + 1) * 0x9e37_79b9_7f4a_7c15);
    assert_linear(
        &Case {
            name: "git log",
            start: 16,
            max: 1 << 20,
            grows: true,
            make: &|n| {
                (0..n * 100)
                    .map(|i| format!("{} {} subject of commit {i}\n", sha(i), 1_700_000_000 + i))
                    .collect::<String>()
                    .into_bytes()
            },
            parse: &|bytes| {
                super::history::parse_git_log(std::str::from_utf8(bytes).unwrap())
                    .map_or(0, |c| c.len())
            },
        },
        FULL,
    );
    assert_linear(
        &Case {
            name: "git log with files",
            start: 16,
            max: 1 << 20,
            grows: true,
            make: &|n| {
                (0..n * 50)
                .map(|i| {
                    format!(
                        "commit {} {}\n{} subject {i}\n\nmm/file-{i}.c\nmm/other.c\ninclude/x.h\n\n",
                        sha(i),
                        sha(i + 1),
                        1_700_000_000 + i
                    )
                })
                .collect::<String>()
                .into_bytes()
            },
            parse: &|bytes| {
                super::history::parse_git_log_detailed(std::str::from_utf8(bytes).unwrap())
                    .map_or(0, |(c, _)| c.len())
            },
        },
        FULL,
    );
    // Past its 10,000 verdicts a bisect log is refused, but only once it is read.
    assert_linear(
        &Case {
            name: "git bisect log",
            start: 16,
            max: 1 << 20,
            grows: false,
            make: &|n| {
                (0..n * 100)
                    .map(|i| {
                        format!(
                            "# bad: [{}] subject {i}\ngit bisect bad {}\n",
                            sha(i),
                            sha(i)
                        )
                    })
                    .collect::<String>()
                    .into_bytes()
            },
            parse: &|bytes| {
                super::history::parse_bisect_log(std::str::from_utf8(bytes).unwrap())
                    .map_or(0, |(m, _)| m.len())
            },
        },
        FULL,
    );
}

/// A member's text: decompressed when its name says `.gz` or `.xz`.
fn member_text(name: &str, bytes: &[u8]) -> String {
    let mut out = String::new();
    if name.ends_with(".gz") {
        std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(bytes), &mut out)
            .unwrap();
    } else if name.ends_with(".xz") {
        std::io::Read::read_to_string(
            &mut liblzma::read::XzDecoder::new_multi_decoder(bytes),
            &mut out,
        )
        .unwrap();
    } else {
        out = String::from_utf8_lossy(bytes).into_owned();
    }
    out
}

/// A fixture logs directory: its benchmark and members (name under `logs/`, text).
type Family = (String, Vec<(String, String)>);

/// Every family fixture (`crates/mmtests-parse/tests/fixtures/mmtests-families/*/logs`), and the first logs
/// directory of each `mmtests-coverage` case's tree (dbench, redis, stream, ...).
fn family_fixtures() -> Vec<Family> {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/mmtests-parse/tests/fixtures");
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(fixtures.join("mmtests-families"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("logs").is_dir())
        .collect();
    names.sort();
    for dir in names {
        let logs = dir.join("logs");
        let mut members = Vec::new();
        let mut stack = vec![logs.clone()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let name = path
                    .strip_prefix(&logs)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let text = member_text(&name, &std::fs::read(&path).unwrap());
                members.push((name, text));
            }
        }
        let benchmark = dir.file_name().unwrap().to_string_lossy().into_owned();
        out.push((benchmark, members));
    }
    let mut cases: Vec<_> = std::fs::read_dir(fixtures.join("mmtests-coverage/cases"))
        .unwrap()
        .map(|e| e.unwrap().path().join("work-log.tar.gz"))
        .filter(|p| p.is_file())
        .collect();
    cases.sort();
    for case in cases {
        let bytes = std::fs::read(&case).unwrap();
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        // The first logs directory met: (its path up to `logs/`, its members).
        let mut first: Option<(String, Family)> = None;
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            let Some((dir, name)) = path.split_once("/logs/") else {
                continue;
            };
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut data).unwrap();
            let benchmark = dir.rsplit('/').next().unwrap().to_owned();
            match &mut first {
                None => {
                    first = Some((
                        dir.to_owned(),
                        (benchmark, vec![(name.to_owned(), member_text(name, &data))]),
                    ));
                }
                Some((at, (_, members))) if at == dir => {
                    members.push((name.to_owned(), member_text(name, &data)));
                }
                Some(_) => {}
            }
        }
        out.extend(first.map(|(_, family)| family));
    }
    out
}

/// Each family's parser, on its fixture directory with every member's text repeated.
fn assert_families_linear(share: usize, of: usize) {
    use super::mmtests::family::LogDir;
    use super::mmtests::{families, Shellpack};
    let all = family_fixtures();
    assert!(all.len() >= 60, "{} family fixtures", all.len());
    for (benchmark, members) in all.iter().skip(share).step_by(of) {
        let Some(parser) = Shellpack::of(benchmark).and_then(|s| families::parser(s.name)) else {
            panic!("{benchmark}: no parser");
        };
        // The input is `n` itself: `parse` makes (once) and reads the directory whose
        // members are each `n` times their text.
        let make = |n: usize| -> Vec<u8> { n.to_le_bytes().to_vec() };
        let dirs = std::cell::RefCell::new(std::collections::HashMap::<usize, LogDir>::new());
        let parse = |bytes: &[u8]| -> usize {
            let n = usize::from_le_bytes(bytes.try_into().unwrap());
            let mut dirs = dirs.borrow_mut();
            let dir = dirs.entry(n).or_insert_with(|| {
                let mut dir = LogDir::new(benchmark);
                for (member, text) in members {
                    dir.insert(member, text.repeat(n));
                }
                dir
            });
            parser(dir).map_or(0, |lines| lines.len())
        };
        let size: usize = members.iter().map(|(_, t)| t.len()).sum::<usize>().max(1);
        // Up to 4 MiB of text at the larger size.
        assert_linear(
            &Case {
                name: &format!("family of {benchmark}"),
                start: 1,
                max: ((4 << 20) / size).max(K),
                grows: false,
                make: &make,
                parse: &parse,
            },
            LIGHT,
        );
    }
}

#[test]
fn mmtests_families_are_linear_0() {
    assert_families_linear(0, 4);
}

#[test]
fn mmtests_families_are_linear_1() {
    assert_families_linear(1, 4);
}

#[test]
fn mmtests_families_are_linear_2() {
    assert_families_linear(2, 4);
}

#[test]
fn mmtests_families_are_linear_3() {
    assert_families_linear(3, 4);
}
