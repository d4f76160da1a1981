// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Ports of the perl `extract-report.pl` parsers that mmtests runs through
//! `shellpack_src/parsers/legacy-parse-results` (with `legacy-support.pl`) for siege, simoop,
//! specjbb, sstartup, stressng, sysbench, thpchallenge, xfstests, cyclictest and futexbench.
//!
//! Perl's behaviour is kept wherever it decides what is printed: `glob` lists entries in
//! File::Glob's order (case-insensitive, ties in byte order; a leading `*` skips dot files),
//! `discover_scaling_parameters` sorts with `<=>` (stable; text that is no number counts as
//! 0), `split /\s+/` keeps a leading empty field and drops trailing ones, a missing element
//! prints as nothing, and lines run through their `\n`. Files a script `open()`s itself are
//! read as stored, so a `.gz`/`.xz` member reached that way reads as nothing (perl would see
//! compressed bytes); `open_log` reads them decompressed. A globbed name that perl's
//! 2-argument `open` reads otherwise (trailing blanks dropped) fails to open, and where the
//! script then dies, so does the port (a [`Problem`]). The helpers are the shared
//! [`super::perl`].
//!
//! Liberties: names taken from the logs are matched literally where perl would expand glob
//! metacharacters in them, and logs that would make perl re-read the same files over and over
//! (past 16 times their size) are refused with a [`Problem`]. Members may be named with `/`
//! for files in subdirectories of `logs/` (specjbb, sstartup); the tree reader only passes
//! the files directly in `logs/` today, so those two find nothing there.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::perl::{
    chomp, field, is_space, is_space_byte, num, sort_numeric, split_on, split_ws, Logs, Num,
};
use super::prelude::*;

/// siege: `siege-<clients>-<iter>.log` (clients from the `siege-*-1.log` names). Each
/// `Transaction rate:` line is a sample of `txn/sec-<clients>`, numbered 1.. per client
/// across its logs in glob order; the value is the line's next-to-last word.
pub fn siege(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let mut out = Vec::new();
    for client in logs.discover("siege-", "-1.log")? {
        let mut iteration = 0u64;
        for file in logs.glob(&format!("siege-{client}-"), ".log")? {
            let text = open_or_die(&logs, file)?;
            for line in text.split_inclusive('\n') {
                if !line.contains("Transaction rate:") {
                    continue;
                }
                let words = split_ws(line);
                iteration += 1;
                let rate = words.len().checked_sub(2).map_or("", |i| field(&words, i));
                out.push(Line::new(
                    "txn/sec",
                    client.as_str(),
                    "_",
                    iteration.to_string(),
                    rate,
                ));
            }
        }
    }
    Ok(out)
}

/// simoop: `simoop.log` between `Warmup complete` and `Final stats`. Each Read, Write or
/// Allocation `latency usec:` line gives `p50-<op>`, `p95-<op>` (extra `R`), `p99-<op>` and
/// `max-<op>` at the last `Run time: N seconds`, thousands separators dropped. As upstream,
/// a report is printed only when the next one is read: the last one is never printed.
pub fn simoop(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let Some(text) = logs.open("simoop.log")? else {
        return Err(Problem::new("Failed to open simoop.log").in_file("simoop.log"));
    };
    let mut out = Vec::new();
    let mut last: Vec<Line> = Vec::new();
    let mut reading = false;
    let mut timestamp = "";
    for line in text.split_inclusive('\n') {
        let line = chomp(line);
        if line.starts_with("Warmup complete") {
            reading = true;
        }
        if line.starts_with("Final stats") {
            reading = false;
        }
        if !reading {
            continue;
        }
        if let Some(t) = simoop_run_time(line) {
            timestamp = t;
            continue;
        }
        let Some((op, [p50, p95, p99, max])) = simoop_latency(line) else {
            continue;
        };
        if !matches!(op, "Read" | "Write" | "Allocation") {
            continue;
        }
        out.append(&mut last);
        let value = |v: &str| v.replace(',', "");
        last = vec![
            Line::new(format_compact!("p50-{op}"), "_", "_", timestamp, value(p50)),
            Line::new(format_compact!("p95-{op}"), "_", "_", timestamp, value(p95)).extra("R"),
            Line::new(format_compact!("p99-{op}"), "_", "_", timestamp, value(p99)),
            Line::new(format_compact!("max-{op}"), "_", "_", timestamp, value(max)),
        ];
    }
    Ok(out)
}

/// specjbb (SPECjbb2005): in the first of `base/`, `transhuge/` (else `default/`), a single
/// JVM's `SPECjbbSingleJVM/SPECjbb.001.txt` or, with `SPECjbbMultiJVM.001/`, its
/// `MultiVMReport.txt`, else the per-JVM `SPECjbb.*.txt` tables gathered as mmtests writes
/// them into `MultiVMMmtests.txt` (built here in memory). Each row of a `Warehouses` table is
/// a sample of `tput-<warehouses>`, numbered 1.. per warehouse count (one per JVM).
pub fn specjbb(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let pagesize = if logs.exists("base") {
        "base"
    } else if logs.exists("transhuge") {
        "transhuge"
    } else {
        "default"
    };
    let multi = format!("{pagesize}/SPECjbbMultiJVM.001");
    let (single, text) = if logs.exists(&multi) {
        let report = format!("{multi}/MultiVMReport.txt");
        if logs.exists(&report) {
            (false, Cow::Borrowed(logs.open(&report)?.unwrap_or("")))
        } else {
            (false, Cow::Owned(specjbb_gather(&logs, &multi)?))
        }
    } else {
        let file = format!("{pagesize}/SPECjbbSingleJVM/SPECjbb.001.txt");
        match logs.open(&file)? {
            Some(text) => (true, Cow::Borrowed(text)),
            None => return Err(Problem::new(format!("Failed to open {file}")).in_file(&file)),
        }
    };
    let mut out = Vec::new();
    let mut scores_seen = false;
    let mut reading = false;
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for line in text.split_inclusive('\n') {
        if (!single && jvm_scores(line)) || (single && line.contains("SPEC scores")) {
            scores_seen = true;
            continue;
        }
        if scores_seen && line.contains("Warehouses") {
            reading = true;
            continue;
        }
        if reading && !line.is_empty() && line.chars().all(is_space) {
            reading = false;
            continue;
        }
        if reading {
            let (warehouse, throughput) = specjbb_row(line);
            let n = counts.entry(warehouse).or_insert(0);
            *n += 1;
            out.push(Line::new("tput", warehouse, "_", n.to_string(), throughput));
        }
    }
    Ok(out)
}

/// sstartup (the S suite's replayed start-up): for each `results/replayed_<job>_startup/`
/// and I/O scheduler of its `repetition0/<sched>-0r0w-seq-single_times.txt`, every line of
/// `<sched>-<pattern>-single_times.txt` (patterns `0r0w-seq`, `5r5w-seq`, `10r0w-seq`, a
/// missing file skipped) is a sample of `time-<job>-<pattern>`, numbered 1.. per file, its
/// leading blanks dropped (an empty line too is a sample).
pub fn sstartup(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    const SCHED_SUFFIX: &str = "-0r0w-seq-single_times.txt";
    let logs = Logs::new(dir);
    let mut jobs: Vec<String> = Vec::new();
    for path in logs.glob("results/replayed_", "_startup")? {
        // s/.*replayed_//; s/_startup$//; s/_startup.txt$//
        let job = path.rsplit("replayed_").next().unwrap_or(path);
        let job = job.strip_suffix("_startup").unwrap_or(job);
        let cut = job.len().checked_sub(12).filter(|&i| {
            job.get(i..).is_some_and(|tail| {
                tail.starts_with("_startup")
                    && tail.ends_with("txt")
                    && tail.as_bytes().get(8) != Some(&b'\n')
            })
        });
        let job = cut.and_then(|i| job.get(..i)).unwrap_or(job);
        jobs.push(job.to_owned());
    }
    sort_numeric(&mut jobs);
    let mut out = Vec::new();
    for job in &jobs {
        let rep = format!("results/replayed_{job}_startup/repetition0/");
        let mut schedulers: Vec<String> = logs
            .glob(&rep, SCHED_SUFFIX)?
            .iter()
            .filter_map(|p| p.get(rep.len()..p.len() - SCHED_SUFFIX.len()))
            .map(str::to_owned)
            .collect();
        sort_numeric(&mut schedulers);
        for scheduler in &schedulers {
            for pattern in ["0r0w-seq", "5r5w-seq", "10r0w-seq"] {
                let file = format!("{rep}{scheduler}-{pattern}-single_times.txt");
                // `open INPUT, "..." || die` never dies: a missing file reads as nothing.
                let text = logs.open(&file)?.unwrap_or("");
                for (n, line) in text.split_inclusive('\n').enumerate() {
                    let value = chomp(line).trim_start_matches(is_space);
                    out.push(Line::new(
                        format!("time-{job}"),
                        pattern,
                        "_",
                        (n + 1).to_string(),
                        value,
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// stressng: `stressng-<threads>-<iter>.log` (threads from `stressng-*-1.log`, every
/// `stressng-<threads>-*` member read). After the `(secs)` header, each line (up to its last
/// `] `) is a sample of `bops-<stressor>-<threads>` at interval `<iter>` (the name's last
/// `-` field less its first `.log`), the value the sixth word (bogo ops/s, real time).
pub fn stressng(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let mut out = Vec::new();
    for client in logs.discover("stressng-", "-1.log")? {
        for file in logs.glob(&format!("stressng-{client}-"), "")? {
            // `split /-/, $file` splits the full path; its last non-empty field is the
            // name's (but for a name of `stressng` and dashes only).
            let parts = split_on(file, |c| c == '-');
            let iteration = strip_any_log(parts.last().copied().unwrap_or(""));
            let text = open_or_die(&logs, file)?;
            let mut reading = false;
            for line in text.split_inclusive('\n') {
                if line.contains("(secs)") {
                    reading = true;
                    continue;
                }
                if !reading {
                    continue;
                }
                let line = line.rfind("] ").map_or(line, |i| &line[i + 2..]);
                let words = split_ws(line);
                out.push(Line::new(
                    format!("bops-{}", field(&words, 0)),
                    client.as_str(),
                    "_",
                    iteration.as_str(),
                    field(&words, 5),
                ));
            }
        }
    }
    Ok(out)
}

/// sysbench (OLTP): `sysbench-raw-<threads>-<iter>` (threads from `sysbench-raw-*-1`).
/// Each `transactions: N (X per sec.)` line is a sample of `txn/sec-<threads>` with value X,
/// numbered from 0 per thread count across its files in glob order.
pub fn sysbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let mut out = Vec::new();
    for client in logs.discover("sysbench-raw-", "-1")? {
        let mut iteration = 0u64;
        for file in logs.glob(&format!("sysbench-raw-{client}-"), "")? {
            let text = open_or_die(&logs, file)?;
            for line in text.split_inclusive('\n') {
                let matched = line
                    .find("transactions:")
                    .is_some_and(|i| line[i + "transactions:".len()..].contains("per sec"));
                if !matched {
                    continue;
                }
                let words = split_ws(line);
                out.push(Line::new(
                    "txn/sec",
                    client.as_str(),
                    "_",
                    iteration.to_string(),
                    field(&words, 3).replacen('(', "", 1),
                ));
                iteration += 1;
            }
        }
    }
    Ok(out)
}

/// thpchallenge: `threads-<N>.log.gz` (N from those names, read as `open_log` does). Each
/// `fault <thread> <base|huge> <usec> ...` line is a sample of `fault-<kind>-<N>` and of
/// `fault-both-<N>`, numbered 1.. per file; a kind never seen gets one sample 0.
pub fn thpchallenge(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let mut out = Vec::new();
    for client in logs.discover("threads-", ".log.gz")? {
        let file = format!("threads-{client}.log");
        let text = logs.open_log(&file)?.map_or("", |(_, text)| text);
        let mut faults = 0u64;
        let mut seen: HashSet<&str> = HashSet::new();
        for line in text.split_inclusive('\n') {
            if !line.starts_with("fault") {
                continue;
            }
            let words = split_ws(line);
            faults += 1;
            let (kind, latency) = (field(&words, 2), field(&words, 3));
            let n = faults.to_string();
            out.push(Line::new(
                format!("fault-{kind}"),
                client.as_str(),
                "_",
                n.as_str(),
                latency,
            ));
            out.push(Line::new("fault-both", client.as_str(), "_", n, latency));
            seen.insert(kind);
        }
        for kind in ["base", "huge"] {
            if !seen.contains(kind) {
                out.push(Line::new(
                    format!("fault-{kind}"),
                    client.as_str(),
                    "_",
                    "1",
                    "0",
                ));
            }
        }
    }
    Ok(out)
}

/// xfstests: `xfstests-default.log` of `check -T`. Each `<dir>/<test> ...` line is one
/// operation named after the test (interval 1) unless its third `[...]` field is `not run`;
/// the value is 0, or for `[failed, exit status N]` in the second field the last digit of
/// that field (12 gives 2). A test listed twice is printed twice with its last value.
pub fn xfstests(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let name = "xfstests-default.log";
    let Some(text) = logs.open(name)? else {
        return Err(Problem::new(format!("Failed to open {name}")).in_file(name));
    };
    let mut status: HashMap<&str, String> = HashMap::new();
    let mut tests: Vec<&str> = Vec::new();
    for line in text.split_inclusive('\n') {
        let Some((test, results)) = xfstest_head(line) else {
            continue;
        };
        // s/([\s\.0-9a-z]*\[)?/\[/
        let run = results
            .bytes()
            .take_while(|c| {
                is_space_byte(*c) || *c == b'.' || c.is_ascii_digit() || c.is_ascii_lowercase()
            })
            .count();
        let results = match results.get(run..).and_then(|r| r.strip_prefix('[')) {
            Some(rest) => format!("[{rest}"),
            None => format!("[{results}"),
        };
        let fields = split_on(&results, |c| c == '[' || c == ']');
        if field(&fields, 5) == "not run" {
            continue;
        }
        let failed = field(&fields, 3);
        let value = failed
            .find("failed")
            .and_then(|i| {
                failed[i + "failed".len()..]
                    .chars()
                    .rev()
                    .find(char::is_ascii_digit)
            })
            .map_or_else(|| "0".to_owned(), String::from);
        status.insert(test, value);
        tests.push(test);
    }
    Ok(tests
        .into_iter()
        .map(|t| {
            let value = status.get(t).map_or("0", String::as_str);
            Line::new(t, "_", "_", "1", value)
        })
        .collect())
}

/// cyclictest: broken upstream at this commit. Its `parse-results` calls `parseResults()`,
/// but `extract-report.pl` defines only `extractReport()`, so perl dies ("Undefined
/// subroutine &main::parseResults") before reading any log and prints nothing, whatever the
/// directory holds; mmtests then has no table. Ported as that failure: a [`Problem`] rather
/// than an empty result, so the upload says why cyclictest gave nothing.
pub fn cyclictest(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new(
        "cyclictest: mmtests' parse-results calls parseResults(), which its extract-report.pl \
         does not define (Undefined subroutine &main::parseResults): mmtests parses no \
         cyclictest log at this commit",
    ))
}

/// futexbench (perf bench futex): the workloads on the first line of `workloads` (split on
/// single spaces); thread counts from the `<workload>-*.log` names, sorted numerically, each
/// once. For each thread count and workload, `<workload>-<threads>.log` (via `open_log`) gives
/// samples of `<workload>-<private|shared>-<threads>`, numbered 1.. per file: ops/sec of
/// `futexes:`/`futex:` lines, ms of `: Requeued`, `: Awoke and Requeued`, `: Wokeup`, usec
/// (ms * 1000) of `: Avg per-thread latency`. `shared` once seen in a file marks the rest of
/// it; a missing `<workload>-<threads>.log` gives nothing.
pub fn futexbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let Some(list) = logs.open("workloads")? else {
        return Err(Problem::new("Failed to open workloads").in_file("workloads"));
    };
    // `split(/ /, <INPUT>)` of the first line, then each chomped by the loop over them.
    let first = list.split_inclusive('\n').next().unwrap_or("");
    let workloads: Vec<&str> = split_on(first, |c| c == ' ')
        .into_iter()
        .map(chomp)
        .collect();
    let mut threads: Vec<String> = Vec::new();
    for wl in &workloads {
        for file in logs.glob(&format!("{wl}-"), ".log")? {
            let parts = split_on(file, |c| c == '-');
            threads.push(strip_any_log(parts.last().copied().unwrap_or("")));
        }
    }
    sort_numeric(&mut threads);
    let mut unique = HashSet::new();
    threads.retain(|t| unique.insert(t.clone()));

    let mut out = Vec::new();
    for nthr in &threads {
        for wl in &workloads {
            let file = format!("{wl}-{nthr}.log");
            // A missing log reads as nothing (extract-report.pl is not under `use strict`:
            // `close` of the undefined handle does not die).
            let text = logs.open_log(&file)?.map_or("", |(_, text)| text);
            let mut futex_type = "private";
            let mut samples = 0u64;
            for line in text.split_inclusive('\n') {
                if line.contains("shared") {
                    futex_type = "shared";
                }
                let digit = |b: u8| b.is_ascii_digit();
                let decimal = |b: u8| b.is_ascii_digit() || b == b'.';
                let tp = if let Some(v) = last_after(line, "futexes:", " [ ", digit, " ops/sec") {
                    v.to_owned()
                } else if let Some(v) = last_after(line, "futex:", " [ ", digit, " ops/sec") {
                    v.to_owned()
                } else if let Some(v) = last_after(line, ": Requeued", " in ", decimal, " ms") {
                    v.to_owned()
                } else if let Some(v) =
                    last_after(line, ": Awoke and Requeued", " in ", decimal, " ms")
                {
                    v.to_owned()
                } else if let Some(v) = last_after(line, ": Wokeup", " in ", decimal, " ms") {
                    v.to_owned()
                } else if let Some(v) =
                    last_after(line, ": Avg per-thread latency", " in ", decimal, " ms")
                {
                    num(v).mul(Num::Int(1000)).text()
                } else {
                    continue;
                };
                samples += 1;
                out.push(Line::new(
                    *wl,
                    futex_type,
                    nthr.as_str(),
                    samples.to_string(),
                    tp,
                ));
            }
        }
    }
    Ok(out)
}

/// `open(INPUT, $file) || die(...)` of a globbed file: it fails only where perl's 2-argument
/// `open` reads the name otherwise (trailing blanks dropped, a trailing `|`).
fn open_or_die<'a>(logs: &Logs<'a>, file: &str) -> Result<&'a str, Problem> {
    logs.open(file)?
        .ok_or_else(|| Problem::new("Failed to open: mmtests dies").in_file(file))
}

// ---------------------------------------------------------------------------------------
// Line formats and perl's regexes.

/// perl's `s/.log//`: the first character (not a newline) followed by `log` removed with it.
fn strip_any_log(s: &str) -> String {
    for (i, c) in s.char_indices() {
        let after = i + c.len_utf8();
        if c != '\n' && s.get(after..).is_some_and(|r| r.starts_with("log")) {
            return format!("{}{}", &s[..i], &s[after + 3..]);
        }
    }
    s.to_owned()
}

/// Positions of `pat` in `hay`, overlapping ones included.
fn find_all<'h>(hay: &'h str, pat: &'h str) -> impl Iterator<Item = usize> + 'h {
    let step = pat.chars().next().map_or(1, char::len_utf8);
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + hay.get(from..)?.find(pat)?;
        from = at + step;
        Some(at)
    })
}

/// perl's `/.*KEY.*LEAD(CLASS+)TRAIL/` on one line: the capture of the last `LEAD` that
/// starts after the end of the first `KEY` and is followed by a run of `class` and `trail`.
fn last_after<'l>(
    line: &'l str,
    key: &str,
    lead: &'l str,
    class: impl Fn(u8) -> bool,
    trail: &str,
) -> Option<&'l str> {
    let start = line.find(key)? + key.len();
    let hay = line.get(start..)?;
    let mut best = None;
    for at in find_all(hay, lead) {
        let rest = &hay[at + lead.len()..];
        let n = rest.bytes().take_while(|b| class(*b)).count();
        if n > 0 && rest[n..].starts_with(trail) {
            best = Some(&rest[..n]);
        }
    }
    best
}

/// simoop's `/Run time: ([0-9]*) seconds/`.
fn simoop_run_time(line: &str) -> Option<&str> {
    const LEAD: &str = "Run time: ";
    find_all(line, LEAD).find_map(|at| {
        let rest = &line[at + LEAD.len()..];
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        rest[n..].starts_with(" seconds").then(|| &rest[..n])
    })
}

/// simoop's `/([a-zA-Z]*) latency usec: \(p50: ([0-9,]*)\) \(p95: ...\) \(p99: ...\)
/// \(max: ...\)/`: the operation and the four values of the first complete match.
fn simoop_latency(line: &str) -> Option<(&str, [&str; 4])> {
    const LEAD: &str = " latency usec: (p50: ";
    find_all(line, LEAD).find_map(|at| {
        let op_len = line[..at]
            .bytes()
            .rev()
            .take_while(u8::is_ascii_alphabetic)
            .count();
        let mut rest = &line[at + LEAD.len()..];
        let mut values = [""; 4];
        for (value, next) in values
            .iter_mut()
            .zip([") (p95: ", ") (p99: ", ") (max: ", ")"])
        {
            let n = rest
                .bytes()
                .take_while(|b| b.is_ascii_digit() || *b == b',')
                .count();
            *value = &rest[..n];
            rest = rest[n..].strip_prefix(next)?;
        }
        Some((&line[at - op_len..at], values))
    })
}

/// specjbb's `/JVM ([0-9]+) Scores/`.
fn jvm_scores(line: &str) -> bool {
    find_all(line, "JVM ").any(|at| {
        let rest = &line[at + 4..];
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        n > 0 && rest[n..].starts_with(" Scores")
    })
}

/// A row of a SPECjbb scores table as extract-report.pl reads it: split on blanks, the
/// first field dropped, then `* <warehouses> <thrput>` or `<warehouses> <thrput>`.
fn specjbb_row(line: &str) -> (&str, &str) {
    let words = split_ws(line);
    let words = words.get(1..).unwrap_or(&[]);
    if field(words, 0) == "*" {
        (field(words, 1), field(words, 2))
    } else {
        (field(words, 0), field(words, 1))
    }
}

/// The `MultiVMMmtests.txt` mmtests writes from `<multi>/SPECjbb.*.txt`: per report a blank
/// line, `JVM <n> Scores`, `Warehouses Thrput` and ` <warehouses> <thrput>` for the rows
/// after its `SPEC scores` line and header, up to a row without warehouses or the last line
/// (which, read at end of file, is never copied).
fn specjbb_gather(logs: &Logs, multi: &str) -> Result<String, Problem> {
    let mut out = String::new();
    for (n, report) in logs
        .glob(&format!("{multi}/SPECjbb."), ".txt")?
        .into_iter()
        .enumerate()
    {
        out.push_str(&format!("\nJVM {} Scores\nWarehouses Thrput\n", n + 1));
        let lines: Vec<&str> = open_or_die(logs, report)?.split_inclusive('\n').collect();
        let mut next = lines.iter().copied();
        let mut line: Option<&str> = Some("");
        let mut at_eof = lines.is_empty();
        let mut read = |at_eof: &mut bool| {
            let l = next.next();
            *at_eof = next.len() == 0;
            l
        };
        while !at_eof && !line.is_some_and(|l| l.contains("SPEC scores")) {
            line = read(&mut at_eof);
        }
        read(&mut at_eof);
        line = read(&mut at_eof);
        while !at_eof {
            let (warehouse, throughput) = specjbb_row(line.unwrap_or(""));
            if warehouse.is_empty() {
                break;
            }
            out.push_str(&format!(" {warehouse} {throughput}\n"));
            line = read(&mut at_eof);
        }
    }
    Ok(out)
}

/// xfstests' `/^([a-z]+\/[0-9a-z]+)\s(.*)/`: the test and the rest of the line (without
/// its newline).
fn xfstest_head(line: &str) -> Option<(&str, &str)> {
    let b = line.as_bytes();
    let group = b.iter().take_while(|c| c.is_ascii_lowercase()).count();
    if group == 0 || b.get(group) != Some(&b'/') {
        return None;
    }
    let name = b
        .get(group + 1..)?
        .iter()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        .count();
    let end = group + 1 + name;
    if name == 0 || !b.get(end).is_some_and(|c| is_space_byte(*c)) {
        return None;
    }
    let rest = line.get(end + 1..)?;
    Some((&line[..end], rest.split('\n').next().unwrap_or(rest)))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_case, check_dir};
    use super::*;
    use std::path::{Path, PathBuf};

    /// A directory from `(name, text)` members (a `.gz` member given decompressed).
    fn logs(benchmark: &str, members: &[(&str, &str)]) -> LogDir {
        let mut dir = LogDir::new(benchmark);
        for (name, text) in members {
            dir.insert(name, (*text).to_owned());
        }
        dir
    }

    fn printed(parser: Parser, dir: &LogDir) -> String {
        let lines = parser(dir).unwrap_or_else(|p| panic!("{}: {p}", dir.benchmark));
        lines.iter().map(|l| l.tsv() + "\n").collect()
    }

    /// A fixture of `mmtests-families/<name>/logs/` with subdirectories, members named by
    /// their path under `logs/`, against the `parsed.tsv` beside it.
    fn check_tree(name: &str, benchmark: &str, parser: Parser) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/mmtests-families")
            .join(name);
        let logs_dir = root.join("logs");
        let mut dir = LogDir::new(benchmark);
        let mut pending: Vec<PathBuf> = vec![logs_dir.clone()];
        while let Some(d) = pending.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                    continue;
                }
                let rel = path.strip_prefix(&logs_dir).unwrap();
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                let bytes = std::fs::read(&path).unwrap();
                dir.insert(&rel.join("/"), String::from_utf8_lossy(&bytes).into_owned());
            }
        }
        let expected = std::fs::read_to_string(root.join("parsed.tsv")).unwrap();
        assert!(!expected.is_empty(), "{name}: nothing expected");
        let got = printed(parser, &dir);
        for (i, (g, e)) in got.lines().zip(expected.lines()).enumerate() {
            assert_eq!(g, e, "{name}: line {} differs", i + 1);
        }
        assert_eq!(got, expected, "{name}");
    }

    #[test]
    fn siege_fixture_and_perl_order() {
        check_dir("siege", "siege", siege);
        // Clients sorted with <=> ("x" is 0), a client's logs in File::Glob's
        // case-insensitive order, the next-to-last word even where it is no number.
        let dir = logs(
            "siege",
            &[
                ("siege-2-1.log", "Transaction rate:\t 10.00 trans/sec\n"),
                (
                    "siege-2-B.log",
                    "Transaction rate:\t 11.00 trans/sec\nTransaction rate:\n",
                ),
                ("siege-2-a.log", "Transaction rate:\t 12.00 trans/sec\n"),
                ("siege-x-1.log", "Transaction rate: 1 x\n"),
                ("siege-1-1.log", "Transaction rate:\t 3.5 trans/sec\r\n"),
                ("siege-10-1.log", "nothing\n"),
            ],
        );
        assert_eq!(
            printed(siege, &dir),
            "txn/sec\tx\t_\t1\t1\t_\ntxn/sec\t1\t_\t1\t3.5\t_\ntxn/sec\t2\t_\t1\t10.00\t_\n\
             txn/sec\t2\t_\t2\t12.00\t_\ntxn/sec\t2\t_\t3\t11.00\t_\n\
             txn/sec\t2\t_\t4\tTransaction\t_\n"
        );
    }

    #[test]
    fn simoop_fixture_and_quirks() {
        check_dir("simoop", "simoop", simoop);
        // Only Read/Write/Allocation, the leftmost match of a line, reading restarted by a
        // later "Warmup complete", and the last report never printed.
        let text = "Read latency usec: (p50: 1) (p95: 2) (p99: 3) (max: 4)\n\
            Warmup complete\n\
            Read latency usec: (p50: 5) (p95: 6) (p99: 7) (max: 8)\n\
            Run time:  seconds\n\
            Run time: 12 seconds and Run time: 13 seconds\n\
            xWrite latency usec: (p50: 1,0,0) (p95: ) (p99: 3) (max: 4) Allocation latency usec: (p50: 9) (p95: 9) (p99: 9) (max: 9)\n \
            latency usec: (p50: 1) (p95: 2) (p99: 3) (max: 4)\n\
            Allocation latency usec: (p50: 1) (p95: 2) (p99: 3) (max: 4\n\
            Read latency usec: (p50: 1) (p95: 2) (p99: 3) (max: 4)Allocation latency usec: (p50: 11) (p95: 12) (p99: 13) (max: 14)\n\
            Final stats: Warmup complete\n\
            Write latency usec: (p50: 21) (p95: 22) (p99: 23) (max: 24)\n\
            Warmup complete again\n\
            Allocation latency usec: (p50: 31) (p95: 32) (p99: 33) (max: 34)\n\
            Read latency usec: (p50: 41) (p95: 42) (p99: 43) (max: 44)\n";
        assert_eq!(
            printed(simoop, &logs("simoop", &[("simoop.log", text)])),
            "p50-Read\t_\t_\t\t5\t_\np95-Read\t_\t_\t\t6\tR\np99-Read\t_\t_\t\t7\t_\n\
             max-Read\t_\t_\t\t8\t_\np50-Read\t_\t_\t12\t1\t_\np95-Read\t_\t_\t12\t2\tR\n\
             p99-Read\t_\t_\t12\t3\t_\nmax-Read\t_\t_\t12\t4\t_\n\
             p50-Allocation\t_\t_\t12\t31\t_\np95-Allocation\t_\t_\t12\t32\tR\n\
             p99-Allocation\t_\t_\t12\t33\t_\nmax-Allocation\t_\t_\t12\t34\t_\n"
        );
        let missing = simoop(&logs("simoop", &[("simoop.log.gz", "Warmup complete\n")]));
        assert_eq!(missing.unwrap_err().file.as_deref(), Some("simoop.log"));
    }

    #[test]
    fn specjbb_fixtures_and_reports() {
        check_tree("specjbb", "specjbb", specjbb);
        check_tree("specjbb-multi", "specjbb", specjbb);
        // transhuge/ when there is no base/, MultiVMReport.txt read as it is.
        let report = "junk\nJVM 1 Scores\nWarehouses Thrput\n 1 100\n * 2 200\n\nJVM 2 Scores\n  \
                      Warehouses  Thrput\n 1 110\nx\n";
        let dir = logs(
            "specjbb",
            &[
                ("transhuge/SPECjbbMultiJVM.001/MultiVMReport.txt", report),
                ("default/SPECjbbSingleJVM/SPECjbb.001.txt", "SPEC scores\n"),
            ],
        );
        assert_eq!(
            printed(specjbb, &dir),
            "tput\t1\t_\t1\t100\t_\ntput\t2\t_\t1\t200\t_\ntput\t1\t_\t2\t110\t_\ntput\t\t_\t1\t\t_\n"
        );
        // Gathered per-JVM tables: glob order, a report without scores, the last line of a
        // report never copied, a row without warehouses ending the table.
        let dir = logs(
            "specjbb",
            &[
                (
                    "base/SPECjbbMultiJVM.001/SPECjbb.B.txt",
                    "SPEC scores\nWarehouses\n * 1 5\n 2\n 3 7\n",
                ),
                ("base/SPECjbbMultiJVM.001/SPECjbb.a.txt", "nothing\n"),
                (
                    "base/SPECjbbMultiJVM.001/SPECjbb.c.txt",
                    "x SPEC scores\nhdr\n 4 40\n *\n 5 50\n",
                ),
            ],
        );
        assert_eq!(
            printed(specjbb, &dir),
            "tput\t1\t_\t1\t5\t_\ntput\t2\t_\t1\t\t_\ntput\t4\t_\t1\t40\t_\n"
        );
        // As the tree reader passes it today: no subdirectories, perl dies opening the report.
        let flat = specjbb(&logs("specjbb", &[("SPECjbb.001.txt", "SPEC scores\n")]));
        assert_eq!(
            flat.unwrap_err().file.as_deref(),
            Some("default/SPECjbbSingleJVM/SPECjbb.001.txt")
        );
    }

    #[test]
    fn sstartup_fixture_and_order() {
        check_tree("sstartup", "sstartup", sstartup);
        let dir = logs(
            "sstartup",
            &[
                (
                    "results/replayed_b_startup/repetition0/bfq-0r0w-seq-single_times.txt",
                    "  1.5\n\n\t2.5 x\n",
                ),
                (
                    "results/replayed_b_startup/repetition0/bfq-10r0w-seq-single_times.txt",
                    "9\n",
                ),
                (
                    "results/replayed_b_startup/repetition0/.hidden-0r0w-seq-single_times.txt",
                    "3\n",
                ),
                (
                    "results/replayed_b_startup/repetition0/none-0r0w-seq-single_times.txt",
                    "4\n",
                ),
                (
                    "results/replayed_A_startup/repetition0/mq-deadline-5r5w-seq-single_times.txt",
                    "5",
                ),
                (
                    "results/replayed_A_startup/repetition0/mq-deadline-0r0w-seq-single_times.txt",
                    "6\n",
                ),
                (
                    "results/replayed_10_startup/repetition0/kyber-0r0w-seq-single_times.txt",
                    "7\n",
                ),
                ("results/replayed_zz_startup", ""),
            ],
        );
        assert_eq!(
            printed(sstartup, &dir),
            "time-A\t0r0w-seq\t_\t1\t6\t_\ntime-A\t5r5w-seq\t_\t1\t5\t_\n\
             time-b\t0r0w-seq\t_\t1\t1.5\t_\ntime-b\t0r0w-seq\t_\t2\t\t_\n\
             time-b\t0r0w-seq\t_\t3\t2.5 x\t_\ntime-b\t10r0w-seq\t_\t1\t9\t_\n\
             time-b\t0r0w-seq\t_\t1\t4\t_\ntime-10\t0r0w-seq\t_\t1\t7\t_\n"
        );
        assert_eq!(sstartup(&logs("sstartup", &[("x", "1\n")])), Ok(vec![]));
    }

    #[test]
    fn stressng_case_and_odd_logs() {
        check_case("stressng-context", stressng);
        let first = "stress-ng: info:  [10] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\n\
            stress-ng: info:  [10]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\n\
            stress-ng: info:  [10] context         2468414     30.04     13.96     14.52     82178.81       86662.41\n\
            stress-ng: info:  [10] successful run completed in 30.05s\n\
            \n  x] y] fork 1 2 3 4 5\n";
        let dir = logs(
            "stressng",
            &[
                ("stressng-1-1.log", first),
                (
                    "stressng-1-2.log.gz",
                    "header (secs)\n[1] mmap 9 9 9 9 77.5 1\n",
                ),
                (
                    "stressng-1-3logfile",
                    "(secs)\nstress-ng: info:  [11] context 1 2 3 4 5.5 6\n",
                ),
                ("stressng-2-1.log", "(secs)\n[12] zombie 1 2 3 4 6.5 6\n"),
            ],
        );
        assert_eq!(
            printed(stressng, &dir),
            "bops-context\t1\t_\t1\t82178.81\t_\nbops-successful\t1\t_\t1\t\t_\n\
             bops-\t1\t_\t1\t\t_\nbops-fork\t1\t_\t1\t5\t_\nbops-context\t1\t_\tfile\t5.5\t_\n\
             bops-zombie\t2\t_\t1\t6.5\t_\n"
        );
    }

    #[test]
    fn sysbench_case_and_odd_logs() {
        check_case("sysbench-oltp-ro", sysbench);
        let dir = logs(
            "sysbench",
            &[
                (
                    "sysbench-raw-4-1",
                    "    transactions:                        69757  (1162.56 per sec.)\n",
                ),
                ("sysbench-raw-4-2.gz", "transactions: 5 (7.5 per sec.)\n"),
                (
                    "sysbench-raw-4-3",
                    "x transactions: 5 (7.5 per sec.) (( \ntransactions:\nper sec transactions:\n",
                ),
                ("sysbench-raw-16-1", "a transactions: per sec\n"),
            ],
        );
        assert_eq!(
            printed(sysbench, &dir),
            "txn/sec\t4\t_\t0\t1162.56\t_\ntxn/sec\t4\t_\t1\t7.5\t_\ntxn/sec\t16\t_\t0\tsec\t_\n"
        );
    }

    #[test]
    fn thpchallenge_fixture_and_odd_logs() {
        check_dir("thpchallenge", "thpchallenge", thpchallenge);
        let dir = logs(
            "thpchallenge",
            &[
                ("threads-2.log.gz", "fault 0 huge 10 1.1 1\n"),
                ("threads-2.log", "fault 0 base 99 1.1 1\n"),
                (
                    "threads-x.log.gz",
                    "faulty\nfault\nfault 1 odd 5\n  fault 0 base 1\n",
                ),
            ],
        );
        assert_eq!(
            printed(thpchallenge, &dir),
            "fault-\tx\t_\t1\t\t_\nfault-both\tx\t_\t1\t\t_\nfault-\tx\t_\t2\t\t_\n\
             fault-both\tx\t_\t2\t\t_\nfault-odd\tx\t_\t3\t5\t_\nfault-both\tx\t_\t3\t5\t_\n\
             fault-base\tx\t_\t1\t0\t_\nfault-huge\tx\t_\t1\t0\t_\nfault-huge\t2\t_\t1\t10\t_\n\
             fault-both\t2\t_\t1\t10\t_\nfault-base\t2\t_\t1\t0\t_\n"
        );
    }

    #[test]
    fn xfstests_fixture_and_older_check_output() {
        check_dir("xfstests", "xfstests", xfstests);
        // `[not run]` as the third field (older check -T), a test run twice (its last value
        // printed both times), names the pattern refuses (`ext4/`, capitals).
        let text = "FSTYP         -- ext4\n\
            generic/001 3s ...\t[10:00:01] [10:00:04] 3s\n\
            generic/002\t[10:00:04] [10:00:05] [not run]\n\
            \tgeneric/002 -- this test requires a valid $SCRATCH_DEV\n\
            generic/003 1s ...\t[10:00:05] [10:00:07] [failed, exit status 1] - output mismatch (see results/generic/003.out.bad)\n\
            ext4/004\t[10:00:07][failed, exit status 3] [10:00:09]- output mismatch\n\
            generic/001 3s ...\t[10:01:01][failed 7 times, exit status 45] [10:01:04]\n\
            btrfs/12a\n\
            shared/032 [expunged]\n\
            Generic/005 1s ... [10:00:01] [10:00:02] 1s\n\
            generic/006x 1s ...\n\
            generic/007\t[10:00:01] [10:00:02]\n";
        assert_eq!(
            printed(
                xfstests,
                &logs("xfstests", &[("xfstests-default.log", text)])
            ),
            "generic/001\t_\t_\t1\t5\t_\ngeneric/003\t_\t_\t1\t0\t_\ngeneric/001\t_\t_\t1\t5\t_\n\
             btrfs/12a\t_\t_\t1\t0\t_\nshared/032\t_\t_\t1\t0\t_\ngeneric/006x\t_\t_\t1\t0\t_\n\
             generic/007\t_\t_\t1\t0\t_\n"
        );
        assert!(xfstests(&logs("xfstests", &[])).is_err());
    }

    #[test]
    fn cyclictest_dies_as_upstream() {
        let dir = logs(
            "cyclictest",
            &[(
                "cyclictest-histogram.log",
                "# Min Latencies: 00003 00003\n# Avg Latencies: 00005 00004\n",
            )],
        );
        let problem = cyclictest(&dir).unwrap_err();
        assert!(problem.message.contains("parseResults"), "{problem}");
    }

    #[test]
    fn futexbench_case_and_workloads() {
        check_case("futexbench-hash", futexbench);
        // Several workloads (wake-parallel's logs also match wake-*.log), a shared futex,
        // ms and usec values, and a missing log that gives nothing.
        let mut members: Vec<(String, String)> = vec![(
            "workloads".into(),
            "wake requeue wake-parallel lock-pi\n".into(),
        )];
        for t in [2, 8] {
            members.push((format!("wake-{t}.log"), format!(
                "# Running 'futex/wake' benchmark:\nRun summary [PID 4242]: blocking on {t} threads (at [private] futex 0x55d7a59b0a40), waking up 1 at a time.\n\n\
                 [Run 1]: Wokeup {t} of {t} threads in 0.0460 ms\n[Run 2]: Wokeup {t} of {t} threads in 0.0380 ms\n\
                 Wokeup {t} of {t} threads in 0.0420 ms (+-9.52%)\n")));
            members.push((format!("requeue-{t}.log"), format!(
                "# Running 'futex/requeue' benchmark:\nRun summary [PID 4243]: Requeuing {t} threads (from [shared] 0x7f3a2ce53310 to 0x7f3a2ce53314), 1 at a time.\n\n\
                 [Run 1]: Requeued {t} of {t} threads in 0.0120 ms\n[Run 2]: Requeued {t} of {t} threads in 0.0105 ms\n\
                 Requeued {t} of {t} threads in 0.0113 ms (+-6.67%)\n")));
            let h = t / 2;
            members.push((format!("wake-parallel-{t}.log"), format!(
                "# Running 'futex/wake-parallel' benchmark:\nRun summary [PID 4244]: blocking on {t} threads (at [private] futex 0x55d7a59b0a40), 2 threads waking up {h} at a time.\n\n\
                 [Run 1]: Avg per-thread latency (waking {h}/{t} threads) in 0.0305 ms (+-12.40%)\n\
                 [Run 2]: Avg per-thread latency (waking {h}/{t} threads) in 0.0291 ms (+-8.10%)\n\
                 Avg per-thread latency (waking {h}/{t} threads) in 0.0298 ms (+-2.17%)\n")));
            if t == 2 {
                members.push((format!("lock-pi-{t}.log"), format!(
                    "# Running 'futex/lock-pi' benchmark:\nRun summary [PID 4245]: {t} threads doing pi lock/unlock pairing for 10 secs.\n\n\
                     [thread   0] futex: 0x55d7a59b0a40 [ 312 ops/sec ]\n[thread   1] futex: 0x55d7a59b0a40 [ 320 ops/sec ]\n\n\
                     Overall avg: 316 lock pi/unlock pi ops/sec (+- 1.22%)\n")));
            }
        }
        let mut dir = LogDir::new("futexbench-wake");
        for (name, text) in members {
            dir.insert(&name, text);
        }
        let mut expected = String::new();
        for t in [2, 8] {
            expected += &format!(
                "wake\tprivate\t{t}\t1\t0.0460\t_\nwake\tprivate\t{t}\t2\t0.0380\t_\n\
                 requeue\tshared\t{t}\t1\t0.0120\t_\nrequeue\tshared\t{t}\t2\t0.0105\t_\n\
                 wake-parallel\tprivate\t{t}\t1\t30.5\t_\nwake-parallel\tprivate\t{t}\t2\t29.1\t_\n"
            );
            if t == 2 {
                expected += "lock-pi\tprivate\t2\t1\t312\t_\nlock-pi\tprivate\t2\t2\t320\t_\n";
            }
        }
        assert_eq!(printed(futexbench, &dir), expected);
        assert!(futexbench(&logs("futexbench-hash", &[("hash-2.log", "")])).is_err());
    }

    #[test]
    fn perl_substitutions() {
        assert_eq!(strip_any_log("3logfile"), "file");
        assert_eq!(strip_any_log("12.log"), "12");
        assert_eq!(strip_any_log("\nlog"), "\nlog");
    }

    /// Logs that make perl re-read the same file endlessly are refused, not followed.
    #[test]
    fn repeated_work_is_bounded() {
        let workloads = "a ".repeat(50_000) + "\n";
        let log = "[thread 0] futexes: 0x1 ... 0x2 [ 5 ops/sec ]\n".repeat(50);
        let dir = logs(
            "futexbench-a",
            &[("workloads", &workloads), ("a-1.log", &log)],
        );
        assert!(futexbench(&dir).is_err());
    }

    /// Arbitrary bytes under the names the parsers look for: no panic, whatever comes back.
    #[test]
    fn hostile_logs_do_not_panic() {
        let names = [
            "siege-1-1.log",
            "siege-*-1.log",
            "simoop.log",
            "stressng-1-1.log",
            "stressng--1.log",
            "sysbench-raw-1-1",
            "threads-1.log.gz",
            "xfstests-default.log",
            "workloads",
            "hash-1.log",
            "-1.log",
            "é-1.log",
            "base",
            "base/SPECjbbSingleJVM/SPECjbb.001.txt",
            "default/SPECjbbMultiJVM.001/SPECjbb.é.txt",
            "results/replayed_é_startup/repetition0/x-0r0w-seq-single_times.txt",
        ];
        let words = [
            "Transaction rate:",
            "(secs)",
            "] ",
            "transactions:",
            "per sec",
            "fault",
            "huge",
            "Warmup complete",
            "Final stats",
            "Run time: ",
            " seconds",
            " latency usec: (p50: ",
            ") (p95: ",
            ") (p99: ",
            ") (max: ",
            ")",
            "SPEC scores",
            "Warehouses",
            "JVM 1 Scores",
            "*",
            "futexes:",
            "futex:",
            " [ ",
            " ops/sec",
            ": Requeued",
            " in ",
            " ms",
            ": Avg per-thread latency",
            "generic/001",
            "[",
            "]",
            "failed",
            "not run",
            "shared",
            "é",
            "\n",
            " ",
            "\t",
            "\r",
            "9",
            "1,0",
            ".",
            "-",
            "hash",
            "log",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let parsers: [Parser; 10] = [
            siege,
            simoop,
            specjbb,
            sstartup,
            stressng,
            sysbench,
            thpchallenge,
            xfstests,
            cyclictest,
            futexbench,
        ];
        for _ in 0..300 {
            let mut dir = LogDir::new("x");
            for name in names {
                if next(3) == 0 {
                    continue;
                }
                let text: String = (0..next(60)).map(|_| words[next(words.len())]).collect();
                dir.insert(name, text);
            }
            for parser in parsers {
                let _ = parser(&dir);
            }
        }
    }
}
