// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Ports of the perl `extract-report.pl` parsers run by mmtests' legacy `parse-results`
//! (bonniepp, fio, iperf3, ltp, perfnuma, pgbench, pistress, pmqtest, rtmigration, saladfork).
//!
//! Perl's semantics are kept where they show in the output (the shared [`super::perl`]):
//! `<FH>` lines, `split /\s+/` (leading empty field kept, trailing ones dropped), numbers as
//! perl adds and prints them (integers stay integers, anything else `%.15g`, `Inf`/`NaN`),
//! `glob` order (ASCII case-insensitive, bytes above 0x7f first, ties by bytes), 2-argument
//! `open` (trailing blanks dropped from the name, a name ending in `|` would run a command:
//! treated as an open failure). A name with blanks that mmtests globs on (iperf3, perfnuma)
//! splits perl's glob pattern and mmtests dies: a [`Problem`]. Deviations, for hostile input
//! only: other glob and shell metacharacters in names are taken literally; a `.gz`/`.xz`
//! member that perl would open without decompressing reads as text none of the patterns
//! match; ties perl leaves to hash order (iperf3 `"200"`/`"0200"`) go by bytes, and a `NaN`
//! name sorts as 0.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::perl::{
    is_space, is_space_byte, lines, num, sort_numeric, split_on, split_ws, Logs, Num,
};
use super::prelude::*;

/// mmtests globs with a name holding blanks: perl's `glob` splits the pattern there and
/// the open of the first word's path fails (mmtests dies).
fn glob_blanks(file: &str, word: &str) -> Problem {
    Problem::new(format!(
        "`{}` holds blanks, which split mmtests' glob pattern: mmtests dies",
        word.escape_debug()
    ))
    .in_file(file)
}

fn died(file: &str, line: usize, message: &str) -> Problem {
    Problem::new(format!("mmtests dies here: {message}"))
        .in_file(file)
        .at_line(line)
}

/// Reads `bonnie-detail` (`.gz`/`.xz`): each `<op> <latency>` line of a known bonnie++
/// operation code becomes `latency-<Phase:test>` (`SeqOut:block`, `SeqIn:char`,
/// `RandCreate:del`, ...) with the per-operation sample count as interval. mmtests' ratio
/// test asks for `_block`/`_read` suffixes the names never have, so no line is `R`.
/// Without the file mmtests dies ("Failed to open").
pub fn bonniepp(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    const OPS: [(&str, &str); 12] = [
        ("pc", "SeqOut:char"),
        ("wr", "SeqOut:block"),
        ("rw", "SeqOut:rewrite"),
        ("gc", "SeqIn:char"),
        ("rd", "SeqIn:block"),
        ("sk", "Random:seeks"),
        ("cs", "SeqCreate:create"),
        ("ss", "SeqCreate:read"),
        ("ds", "SeqCreate:del"),
        ("cr", "RandCreate:create"),
        ("sr", "RandCreate:read"),
        ("dr", "RandCreate:del"),
    ];
    let Some((_, text)) = Logs::new(dir).open_log("bonnie-detail")? else {
        return Err(
            Problem::new("Failed to open bonnie-detail: mmtests dies").in_file("bonnie-detail")
        );
    };
    let mut counts = [0u64; OPS.len()];
    let mut out = Vec::new();
    for (_, line) in lines(text) {
        let mut fields = line.split(' ');
        let code = fields.next().unwrap_or("");
        let Some(k) = OPS.iter().position(|(c, _)| *c == code) else {
            continue;
        };
        counts[k] += 1;
        let name = OPS[k].1;
        let ratio = if name.ends_with("_block") || name.ends_with("_read") {
            "R"
        } else {
            "_"
        };
        let value = fields.next().unwrap_or("");
        out.push(
            Line::new(
                format!("latency-{name}"),
                "_",
                "_",
                counts[k].to_string(),
                value,
            )
            .extra(ratio),
        );
    }
    Ok(out)
}

/// Reads `fio.log` (`.gz`/`.xz`), fio's `;`-separated terse lines: a job with read KB
/// (field 5) > 0 gives `kb/sec <job> read` = field 44, one with field 46 > 0 gives
/// `kb/sec <job> write` = field 85, all interval 1 and `R`. These are terse-v3 positions;
/// multivar mode's v5 lines make `write` a latency, as in mmtests. No file, no lines.
/// (A field ending the line is printed without perl's newline.)
pub fn fio(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let Some((_, text)) = Logs::new(dir).open_log("fio.log")? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (_, line) in lines(text) {
        let f = split_on(line, |c| c == ';');
        let field = |i: usize| f.get(i).copied().unwrap_or("");
        let worker = field(2);
        if num(field(5)).f() > 0.0 {
            out.push(Line::new("kb/sec", worker, "read", "1", field(44)).extra("R"));
        }
        if num(field(46)).f() > 0.0 {
            out.push(Line::new("kb/sec", worker, "write", "1", field(85)).extra("R"));
        }
    }
    Ok(out)
}

/// Reads `protocols` (first line: `tcp`/`udp`) and `<proto>-<size>-<rate>-<streams>.<iter>`
/// (iperf3 `-V` text). Sizes, rates and stream counts come from the `.1` files, each sorted
/// numerically; for every combination its files (glob order) are numbered from 1 and give
/// `send <size> <rate>-<streams>` and `recv ...`: the sums of the bitrate column of the
/// `[ N]` sender/receiver lines after `Summary Results:` (2 x streams lines).
pub fn iperf3(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let protocol = logs
        .open("protocols")?
        .and_then(|t| lines(t).next())
        .map_or("", |(_, l)| l);
    if protocol.bytes().any(is_space_byte) {
        return Err(glob_blanks("protocols", protocol));
    }
    let head = format!("{protocol}-");

    let (mut sizes, mut rates, mut streams) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for name in logs.glob(&head, ".1")? {
        let e = split_on(name, |c| c == '-');
        let field = |i: usize| e.get(i).copied().unwrap_or("");
        sizes.insert(field(1));
        rates.insert(field(2));
        let s = field(3);
        streams.insert(s.strip_suffix(".1").unwrap_or(s));
    }
    if let Some(word) = sizes
        .iter()
        .chain(&rates)
        .chain(&streams)
        .find(|w| w.bytes().any(is_space_byte))
    {
        return Err(glob_blanks(protocol, word));
    }
    let (sizes, rates, streams) = (
        numeric_positions(sizes),
        numeric_positions(rates),
        numeric_positions(streams),
    );

    // Each combination's glob `<proto>-<size>-<rate>-<streams>.*`: sizes, rates and stream
    // counts hold no `-`, so a member's prefix before any `.` names at most one.
    let mut combos: BTreeMap<(usize, usize, usize), Combo> = BTreeMap::new();
    for name in logs.glob(&head, "")? {
        let rest = &name[head.len()..];
        for (dot, _) in rest.match_indices('.') {
            let parts: Vec<&str> = rest[..dot].split('-').collect();
            let [s, r, t] = parts[..] else {
                continue;
            };
            let (Some(&i), Some(&j), Some(&k)) = (sizes.get(s), rates.get(r), streams.get(t))
            else {
                continue;
            };
            combos
                .entry((i, j, k))
                .or_insert_with(|| (s, r, t, Vec::new()))
                .3
                .push(name);
        }
    }

    let mut out = Vec::new();
    for (size, rate, stream, files) in combos.into_values() {
        for (n, file) in files.into_iter().enumerate() {
            let text = logs
                .open(file)?
                .ok_or_else(|| Problem::new("Failed to open: mmtests dies").in_file(file))?;
            let (send, recv) = iperf3_sums(text, stream);
            let iteration = (n + 1).to_string();
            let b = format!("{rate}-{stream}");
            out.push(Line::new(
                "send",
                size,
                b.as_str(),
                iteration.as_str(),
                send.text(),
            ));
            out.push(Line::new("recv", size, b, iteration, recv.text()));
        }
    }
    Ok(out)
}

/// `sort_unique`: each distinct value's place in numeric order (ties, which perl leaves to
/// hash order, in byte order).
fn numeric_positions(set: BTreeSet<&str>) -> HashMap<&str, usize> {
    let mut v: Vec<&str> = set.into_iter().collect();
    sort_numeric(&mut v);
    v.into_iter().enumerate().map(|(i, s)| (s, i)).collect()
}

/// One iperf3 combination: size, rate, stream count and its members in glob order.
type Combo<'a> = (&'a str, &'a str, &'a str, Vec<&'a str>);

/// The sender and receiver bitrate sums of one iperf3 log.
fn iperf3_sums(text: &str, stream: &str) -> (Num, Num) {
    let (mut send, mut recv) = (Num::Int(0), Num::Int(0));
    let mut vals = 0.0f64;
    for (_, line) in lines(text) {
        if line.contains("Summary Results:") {
            vals = 2.0 * num(stream).f();
        }
        if vals == 0.0 {
            continue;
        }
        let Some(rest) = strip_stream_id(line) else {
            continue;
        };
        let e = split_ws(rest);
        let bitrate = num(e.get(4).copied().unwrap_or(""));
        if rest.contains("sender") {
            send = send.add(bitrate);
            vals -= 1.0;
        } else if rest.contains("receiver") {
            recv = recv.add(bitrate);
            vals -= 1.0;
        }
        if vals == 0.0 {
            break;
        }
    }
    (send, recv)
}

/// The line after a leading `[ *[0-9]+\] +` (iperf3's `[  5]   `), if it has one.
fn strip_stream_id(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('[')?.trim_start_matches(' ');
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let rest = rest[digits..].strip_prefix(']')?;
    let after = rest.trim_start_matches(' ');
    (after.len() < rest.len()).then_some(after)
}

/// Reads each `benchlog-<name>` (glob order; mmtests' `sort` is a no-op). With a
/// `runltp-<name>` beside it, each `tag=<test> ... exit=<how> stat=<n>` line gives
/// `<name>-<test>` = stat (0 for exited with 32, TCONF); an unknown `exit=` makes mmtests
/// die. Otherwise the benchlog's `Summary:` block gives `<name>` = the sum of its second
/// column except `passed`/`skipped`/`broken` (-1 without a summary). Interval 1.
pub fn ltp(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    const EXITS: [(&str, i64); 4] = [
        ("exit=exited", 0),
        ("exit=signaled", 10),
        ("exit=stopped", 20),
        ("exit=unknown", 30),
    ];
    let logs = Logs::new(dir);
    let mut out = Vec::new();
    for file in logs.glob("benchlog-", "")? {
        let collection = &file["benchlog-".len()..];
        let runltp = format!("runltp-{collection}");
        if dir.get(&runltp).is_some() {
            let text = logs
                .open(&runltp)?
                .ok_or_else(|| Problem::new("Failed to open: mmtests dies").in_file(&runltp))?;
            for (n, line) in lines(text) {
                if !line.starts_with("tag=") {
                    continue;
                }
                let e = split_ws(line);
                let field = |i: usize| e.get(i).copied().unwrap_or("");
                let test = field(0).strip_prefix("tag=").unwrap_or(field(0));
                let how = field(3);
                let stat = field(4).replacen("stat=", "", 1);
                let Some(&(_, code)) = EXITS.iter().find(|(h, _)| *h == how) else {
                    return Err(died(&runltp, n, &format!("unknown status `{how}`")));
                };
                let mut stat = num(&stat);
                if code == 0 && stat.f() == 32.0 {
                    stat = Num::Int(0);
                }
                let val = num(how).add(stat);
                out.push(Line::new(
                    format!("{collection}-{test}"),
                    "_",
                    "_",
                    "1",
                    val.text(),
                ));
            }
        } else {
            let text = logs
                .open(file)?
                .ok_or_else(|| Problem::new("Failed to open: mmtests dies").in_file(file))?;
            let mut reading = false;
            let mut val = Num::Int(-1);
            for (_, line) in lines(text) {
                if !reading {
                    if line.starts_with("Summary:") {
                        reading = true;
                        val = Num::Int(0);
                    }
                    continue;
                }
                if ["passed", "skipped", "broken"]
                    .iter()
                    .any(|p| line.starts_with(p))
                {
                    continue;
                }
                let e = split_ws(line);
                val = val.add(num(e.get(1).copied().unwrap_or("")));
            }
            out.push(Line::new(collection, "_", "_", "1", val.text()));
        }
    }
    Ok(out)
}

/// `s/-[0-9]+.log//` (first match, `.` any byte but newline).
fn cut_iteration_log(name: &str) -> String {
    let b = name.as_bytes();
    for (p, _) in name.match_indices('-') {
        let run = b[p + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        for k in (1..=run).rev() {
            let any = p + 1 + k;
            if b.get(any).is_some_and(|&c| c != b'\n') && b[any + 1..].starts_with(b"log") {
                return format!("{}{}", &name[..p], &name[any + 4..]);
            }
        }
    }
    name.to_owned()
}

/// `/\s+([0-9.]+)<unit>\s+<what>/` for perf bench numa's `%15.3f, <unit> <what>` results:
/// the number of the first match.
fn numa_result<'a>(line: &'a str, unit: &str, what: &str) -> Option<&'a str> {
    let b = line.as_bytes();
    for (at, _) in line.match_indices(unit) {
        let after = &line[at + unit.len()..];
        let trimmed = after.trim_start_matches(is_space);
        if trimmed.len() == after.len() || !trimmed.starts_with(what) {
            continue;
        }
        let run = b[..at]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_digit() || **c == b'.')
            .count();
        let from = at - run;
        if run > 0 && from > 0 && is_space_byte(b[from - 1]) {
            return Some(&line[from..at]);
        }
    }
    None
}

/// Reads `<workload>-<iteration>.log` (perf bench numa mem): workloads come from the
/// `*-1.log` members (byte order); each workload's `<workload>-*` members (glob order)
/// give `converged-<w>` (`R`), `threadspeed-<w>` and `totalspeed-<w>` from the
/// `NUMA-convergence-latency`, `thread-speed` and `total-speed` results, `<w>` losing one
/// `_converge` per file read as in mmtests. One interval counter per workload counts
/// every result and every file.
pub fn perfnuma(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = Logs::new(dir);
    let mut workloads: Vec<String> = logs
        .glob("", "-1.log")?
        .into_iter()
        .map(cut_iteration_log)
        .collect();
    workloads.sort();
    if let Some(w) = workloads.iter().find(|w| w.bytes().any(is_space_byte)) {
        return Err(glob_blanks(&format!("{w}-1.log"), w));
    }
    let budget: usize = dir
        .names()
        .map(|n| dir.get(n).map_or(0, str::len))
        .sum::<usize>()
        + 1024;

    let mut done: HashMap<&str, Vec<Line>> = HashMap::new();
    let mut out: Vec<Line> = Vec::new();
    for workload in &workloads {
        if !done.contains_key(workload.as_str()) {
            let files = logs.glob(&format!("{workload}-"), "")?;
            let mut name = workload.clone();
            let mut iteration = 0u64;
            let mut lines_out = Vec::new();
            for file in files {
                name = name.replacen("_converge", "", 1);
                let text = logs
                    .open(file)?
                    .ok_or_else(|| Problem::new("Failed to open: mmtests dies").in_file(file))?;
                for (_, line) in lines(text) {
                    let results = [
                        ("converged", ", secs,", "NUMA-convergence-latency", "R"),
                        ("threadspeed", ", GB/sec,", "thread-speed", "_"),
                        ("totalspeed", ", GB/sec,", "total-speed", "_"),
                    ];
                    for (metric, unit, what, extra) in results {
                        if let Some(v) = numa_result(line, unit, what) {
                            iteration += 1;
                            lines_out.push(
                                Line::new(
                                    format!("{metric}-{name}"),
                                    "_",
                                    "_",
                                    iteration.to_string(),
                                    v,
                                )
                                .extra(extra),
                            );
                        }
                    }
                }
                iteration += 1;
            }
            done.insert(workload, lines_out);
        }
        let lines_out = done.get(workload.as_str()).map_or(&[][..], Vec::as_slice);
        if out.len() + lines_out.len() > budget {
            return Err(Problem::new(
                "perfnuma: the same workload repeats more often than the logs can hold",
            ));
        }
        out.extend_from_slice(lines_out);
    }
    Ok(out)
}

/// Reads `pgbench-transactions-<clients>.log` (`.gz`/`.xz`; client counts from
/// `pgbench-*.log`, so also `init`, which has none), pgbench's 1 s aggregate lines
/// (`interval_start num_transactions ...`): the first 7 are skipped, then every 4 lines
/// give `txn <clients>` at interval `start - first start` = transactions / seconds, the
/// first such batch not printed. A batch spanning no time makes mmtests die (division by
/// zero).
pub fn pgbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    const BATCH: u64 = 4;
    const START_SAMPLES: u64 = BATCH * 2;
    let logs = Logs::new(dir);
    let mut out = Vec::new();
    for client in logs.discover("pgbench-", ".log")? {
        let Some((member, text)) = logs.open_log(&format!("pgbench-transactions-{client}.log"))?
        else {
            continue;
        };
        let (mut test_start, mut batch_start) = (Num::Int(0), Num::Int(0));
        let mut sum = Num::Int(0);
        let (mut sample, mut this_batch, mut nr_batches) = (0u64, 0u64, 0u64);
        for (n, line) in lines(text) {
            let e = split_ws(line);
            let start = num(e.first().copied().unwrap_or(""));
            if test_start.is_zero() {
                test_start = start;
            }
            if batch_start.is_zero() {
                batch_start = start;
            }
            sample += 1;
            if sample < START_SAMPLES {
                continue;
            }
            this_batch += 1;
            sum = sum.add(num(e.get(1).copied().unwrap_or("")));
            if this_batch % BATCH == 0 {
                let elapsed = start.sub(test_start);
                let span = start.sub(batch_start);
                if span.is_zero() {
                    return Err(died(&member, n, "Illegal division by zero"));
                }
                if nr_batches > 0 {
                    out.push(Line::new(
                        "txn",
                        client.as_str(),
                        "_",
                        elapsed.text(),
                        sum.div(span).text(),
                    ));
                }
                nr_batches += 1;
                batch_start = start;
                this_batch = 0;
                sum = Num::Int(0);
            }
        }
    }
    Ok(out)
}

/// Reads `pistress-<groups>.status` for each `pistress-*.log` (numeric order): each
/// status line is a `failures <groups>` sample, numbered across all group counts; a
/// missing status counts 1. factorB is empty, not `_`: mmtests prints an unset `$_`.
pub fn pistress(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut out = Vec::new();
    let mut n = 0u64;
    let logs = Logs::new(dir);
    for client in logs.discover("pistress-", ".log")? {
        let values: Vec<&str> = match logs.open(&format!("pistress-{client}.status"))? {
            None => vec!["1"],
            Some(text) => lines(text).map(|(_, line)| line).collect(),
        };
        for value in values {
            n += 1;
            out.push(Line::new(
                "failures",
                client.as_str(),
                "",
                n.to_string(),
                value,
            ));
        }
    }
    Ok(out)
}

/// A small left-to-right matcher for the fixed-shape regexes below.
struct Cursor<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn run(&mut self, min: usize, class: impl Fn(u8) -> bool) -> Option<&'a str> {
        let from = self.at;
        let len = self.s.as_bytes()[from..]
            .iter()
            .take_while(|&&c| class(c))
            .count();
        (len >= min).then(|| {
            self.at += len;
            &self.s[from..self.at]
        })
    }

    fn digits(&mut self) -> Option<&'a str> {
        self.run(1, |c| c.is_ascii_digit())
    }

    fn blanks(&mut self) -> Option<()> {
        self.run(1, is_space_byte).map(|_| ())
    }

    fn lit(&mut self, l: &str) -> Option<()> {
        self.s[self.at..].starts_with(l).then(|| self.at += l.len())
    }
}

/// Starts of runs of bytes in `class` (where a greedy regex beginning with that class
/// can first match).
fn run_starts<'a>(s: &'a str, class: impl Fn(u8) -> bool + 'a) -> impl Iterator<Item = usize> + 'a {
    let b = s.as_bytes();
    (0..b.len()).filter(move |&i| class(b[i]) && (i == 0 || !class(b[i - 1])))
}

/// `/\#+([0-9]+) -> \#+([0-9]+), Min\s+(\d+), Cur\s+(\d+), Avg\s+(\d+), Max\s+(\d+)/`.
fn pmq_stat(line: &str) -> Option<[&str; 5]> {
    run_starts(line, |c| c == b'#').find_map(|at| {
        let mut c = Cursor { s: line, at };
        c.run(1, |b| b == b'#')?;
        let to = c.digits()?;
        c.lit(" -> ")?;
        c.run(1, |b| b == b'#')?;
        let from = c.digits()?;
        c.lit(", Min")?;
        c.blanks()?;
        let min = c.digits()?;
        c.lit(", Cur")?;
        c.blanks()?;
        c.digits()?;
        c.lit(", Avg")?;
        c.blanks()?;
        let avg = c.digits()?;
        c.lit(", Max")?;
        c.blanks()?;
        let max = c.digits()?;
        Some([to, from, min, avg, max])
    })
}

/// Reads `pmqtest.log`: each `#<s> -> #<r>, Min n, Cur n, Avg n, Max n` line gives
/// `Min-<s>-><r>`, `Avg-<s>-><r>` and `Max-<s>-><r>`, interval 1. Without the file
/// mmtests dies.
pub fn pmqtest(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let text = Logs::new(dir).open("pmqtest.log")?.ok_or_else(|| {
        Problem::new("Failed to open data file: mmtests dies").in_file("pmqtest.log")
    })?;
    let mut out = Vec::new();
    for (_, line) in lines(text) {
        let Some([s, r, min, avg, max]) = pmq_stat(line) else {
            continue;
        };
        for (metric, v) in [("Min", min), ("Avg", avg), ("Max", max)] {
            out.push(Line::new(
                format_compact!("{metric}-{s}->{r}"),
                "_",
                "_",
                "1",
                v,
            ));
        }
    }
    Ok(out)
}

/// Reads `rtmigration.log` (`.gz`/`.xz`), rt-migrate-test's results: `Iter:` gives the
/// task count, each following `   <loop>:` row one sample per task, ` Task <i> (prio <p>)`
/// lines the priorities. Prints `task-<i>-p<prio>` per task (last `Iter:` count), samples
/// numbered from 1; a short row gives empty values as mmtests does, but a log whose rows
/// would need more padding than its own size is refused. No file, no lines.
pub fn rtmigration(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let Some((member, text)) = Logs::new(dir).open_log("rtmigration.log")? else {
        return Ok(Vec::new());
    };
    let budget = text.len() + 1024;
    let mut nr_threads = 0usize;
    let mut reading = false;
    let mut samples: Vec<Vec<&str>> = Vec::new();
    let mut pushed = 0usize;
    let mut prios: HashMap<&str, &str> = HashMap::new();
    for (n, line) in lines(text) {
        if line.starts_with("Iter:") {
            nr_threads = split_ws(line).len().saturating_sub(1);
            reading = true;
            continue;
        }
        if reading {
            let rest = line.trim_start_matches(is_space);
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if rest.len() < line.len() && digits > 0 && rest[digits..].starts_with(':') {
                pushed += nr_threads;
                if pushed > budget {
                    return Err(Problem::new(
                        "more tasks per row than the log holds values: refused",
                    )
                    .in_file(&member)
                    .at_line(n));
                }
                let e = split_ws(rest);
                if samples.len() < nr_threads {
                    samples.resize_with(nr_threads, Vec::new);
                }
                for (i, list) in samples.iter_mut().enumerate().take(nr_threads) {
                    list.push(e.get(i + 1).copied().unwrap_or(""));
                }
                continue;
            }
        }
        if line.starts_with("Parent pid:") {
            reading = false;
        }
        if !reading {
            if let Some(task) = rt_task_prio(line) {
                prios.insert(task.0, task.1);
            }
        }
    }
    let mut out = Vec::new();
    for (i, list) in samples.iter().enumerate().take(nr_threads) {
        let prio = prios.get(i.to_string().as_str()).copied().unwrap_or("");
        let metric = format!("task-{i}-p{prio}");
        for (k, v) in list.iter().enumerate() {
            out.push(Line::new(
                metric.as_str(),
                "_",
                "_",
                (k + 1).to_string(),
                *v,
            ));
        }
    }
    Ok(out)
}

/// `/^ Task ([0-9]+) \(prio ([0-9]+)\)/`.
fn rt_task_prio(line: &str) -> Option<(&str, &str)> {
    let mut c = Cursor { s: line, at: 0 };
    c.lit(" Task ")?;
    let task = c.digits()?;
    c.lit(" (prio ")?;
    let prio = c.digits()?;
    c.lit(")")?;
    Some((task, prio))
}

/// `/([0-9]+)\s+([0-9]+)\s+([.0-9]+)/`.
fn fork_sample(line: &str) -> Option<[&str; 3]> {
    run_starts(line, |c| c.is_ascii_digit()).find_map(|at| {
        let mut c = Cursor { s: line, at };
        let parent = c.digits()?;
        c.blanks()?;
        let child = c.digits()?;
        c.blanks()?;
        let latency = c.run(1, |b| b.is_ascii_digit() || b == b'.')?;
        Some([parent, child, latency])
    })
}

/// Reads `saladfork-0.log.gz` (only the gzipped log, as mmtests pipes it through
/// `gunzip`): each `PARENT CHILD LATENCY` row is a `local` sample (`R`) when both CPUs
/// sit on the same node, else `remote`, numbered separately; then `local_v_total` = local
/// / all (0 without samples). The CPU-to-node map is the iteration's
/// `../../numactl.txt.gz`, outside `logs/`: a tree reader may supply it as the member
/// `../../numactl.txt.gz`; without it every fork is local, as mmtests prints then.
pub fn saladfork(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut node_of: HashMap<&str, &str> = HashMap::new();
    for (_, line) in lines(dir.get("../../numactl.txt.gz").unwrap_or("")) {
        let Some(rest) = line.strip_prefix("node ") else {
            continue;
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Some(cpus) = rest[digits..].strip_prefix(" cpus: ") else {
            continue;
        };
        // `split /\s/`: one blank per field boundary, trailing empty fields dropped.
        let mut list: Vec<&str> = cpus.split(is_space).collect();
        while list.last().is_some_and(|f| f.is_empty()) {
            list.pop();
        }
        for cpu in list {
            node_of.insert(cpu, &rest[..digits]);
        }
    }
    let cpu_key = |digits: &str| num(digits).text();
    let node = |cpu: &str| num(node_of.get(cpu).copied().unwrap_or("")).f();

    let mut out = Vec::new();
    let (mut local, mut remote) = (0i128, 0i128);
    for (_, line) in lines(dir.get("saladfork-0.log.gz").unwrap_or("")) {
        let Some([parent, child, latency]) = fork_sample(line) else {
            continue;
        };
        if node(&cpu_key(parent)) == node(&cpu_key(child)) {
            local += 1;
            out.push(Line::new("local", "_", "_", local.to_string(), latency).extra("R"));
        } else {
            remote += 1;
            out.push(Line::new("remote", "_", "_", remote.to_string(), latency));
        }
    }
    let total = local + remote;
    let ratio = if total == 0 {
        "0".to_owned()
    } else {
        Num::Int(local).div(Num::Int(total)).text()
    };
    out.push(Line::new("local_v_total", "_", "_", "1", ratio));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_case, check_dir};
    use super::*;

    #[test]
    fn bonniepp_matches_mmtests() {
        check_case("bonniepp-seqio", bonniepp);
    }

    #[test]
    fn fio_matches_mmtests() {
        check_case("fio-jobfile-randread-randwrite", fio);
        check_case("fio-multivar-iodepth", fio);
    }

    #[test]
    fn iperf3_matches_mmtests() {
        check_dir("iperf3", "iperf3-ipv4-tcp", iperf3);
    }

    #[test]
    fn ltp_matches_mmtests() {
        check_dir("ltp", "ltp", ltp);
    }

    #[test]
    fn perfnuma_matches_mmtests() {
        check_dir("perfnuma", "perfnuma", perfnuma);
    }

    #[test]
    fn pgbench_matches_mmtests() {
        check_case("pgbench-ro", pgbench);
        check_case("pgbench-ro-small", pgbench);
    }

    #[test]
    fn pistress_matches_mmtests() {
        check_dir("pistress", "pistress", pistress);
    }

    #[test]
    fn pmqtest_matches_mmtests() {
        check_dir("pmqtest", "pmqtest-pinned", pmqtest);
    }

    #[test]
    fn rtmigration_matches_mmtests() {
        check_dir("rtmigration", "rtmigration", rtmigration);
    }

    #[test]
    fn saladfork_matches_mmtests() {
        check_dir("saladfork", "saladfork", saladfork);
    }

    /// What mmtests printed with `node 0 cpus: 0 1 2 3` / `node 1 cpus: 4 5 6 7` in the
    /// iteration's numactl.txt.gz.
    #[test]
    fn saladfork_uses_a_supplied_node_map() {
        let mut d = LogDir::new("saladfork");
        d.insert(
            "../../numactl.txt.gz",
            "node 0 cpus: 0 1 2 3\nnode 1 cpus: 4 5 6 7\n".into(),
        );
        d.insert(
            "saladfork-0.log.gz",
            "PARENT  CHILD   LATENCY\n000     001     5\n000     004     6\n005     007     7\n"
                .into(),
        );
        let got: Vec<String> = saladfork(&d).unwrap().iter().map(Line::tsv).collect();
        assert_eq!(
            got,
            [
                "local\t_\t_\t1\t5\tR",
                "remote\t_\t_\t1\t6\t_",
                "local\t_\t_\t2\t7\tR",
                "local_v_total\t_\t_\t1\t0.666666666666667\t_",
            ]
        );
    }

    /// Odd names and text: no panic, and the refusals mmtests' deaths become.
    #[test]
    fn hostile_logs_neither_panic_nor_blow_up() {
        let parsers: [Parser; 10] = [
            bonniepp,
            fio,
            iperf3,
            ltp,
            perfnuma,
            pgbench,
            pistress,
            pmqtest,
            rtmigration,
            saladfork,
        ];
        let texts = [
            "",
            "\n\n",
            "\u{fffd}é;;;;;;;;\r\n#1 -> #",
            "Summary Results:\n[ 5] x\nIter: a b c\n 1:\n Task 1 (prio",
            "tag=x exit=exited stat=\nwr\n1 2 3\n1e999 nan inf -0\n",
        ];
        let names = [
            "bonnie-detail",
            "fio.log",
            "protocols",
            "-.1",
            "é-1.log",
            "-1.log",
            "benchlog-",
            "runltp-",
            "pgbench-.log",
            "pgbench-transactions-.log",
            "pistress-nan.log",
            "pmqtest.log",
            "rtmigration.log",
            "saladfork-0.log.gz",
            "x|",
        ];
        for text in texts {
            let mut d = LogDir::new("x");
            for n in names {
                d.insert(n, text.into());
            }
            for p in parsers {
                let _ = p(&d);
            }
        }
        let mut d = LogDir::new("rtmigration");
        let wide = format!("Iter:{}\n", " 1".repeat(5000));
        d.insert("rtmigration.log", wide + &"  1:\n".repeat(5000));
        assert!(rtmigration(&d).is_err());
        let mut d = LogDir::new("pgbench");
        d.insert("pgbench-1.log", String::new());
        d.insert("pgbench-transactions-1.log", "5 1\n".repeat(20));
        let p = pgbench(&d).unwrap_err();
        assert_eq!(
            (p.file.as_deref(), p.line),
            (Some("pgbench-transactions-1.log"), Some(11))
        );
    }
}
