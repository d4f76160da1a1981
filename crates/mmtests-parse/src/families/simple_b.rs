// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Ports of `parse-results` for sqlite, sysbenchcpu, sysbenchmutex, xsbench and wis (all
//! through mmtests' shared `parsers/line-parse-results`, [`line_parse`]), stockfish (a copy of
//! `time-parse-results` with another sort, [`time_parse_results`]), unixbenchd, stutterp,
//! perffutexwake, stream and io_uring.
//!
//! The scripts are bash loops over `ls <glob> | cut`; what they do with odd directories is
//! reproduced: names are split into lines and then into words (duplicates kept, so a
//! doubled word processes its files twice), `sort` orders as GNU sort under `LC_ALL=C.UTF-8`
//! (numeric keys, whole line as last resort), `grep` prints nothing for a member holding a
//! NUL byte (binary), and a `.gz`/`.xz` member read with `cat` or `grep` (not `zcat`) gives
//! nothing, as its compressed bytes would. Not reproduced in the scripts of this file (the
//! shared parsers have their own notes): glob characters inside words are taken literally;
//! text that would reach `echo -e`, `awk -v` or `read` with a backslash (they interpret
//! escapes) is a [`Problem`], as is anything past [`MAX_LINES`] lines.

use std::collections::{BTreeMap, HashMap};

use super::line_parse::{line_parse, Pos};
use super::prelude::*;
use super::shell::{
    awk_split, bash_read, cat, cut, grep, ls_lines, prefix_range, sort_un, to_line, words,
};
use super::time::time_parse_results;

/// The most lines one directory may produce; a count in a log that expands beyond it (a
/// hostile `stutterp` sample count, say) is a [`Problem`] rather than an allocation.
pub const MAX_LINES: usize = 1 << 19;

/// sqlite: `line-parse-results '^execute' txn/sec 5` over `benchlog-_-_-<iteration>` (the
/// `execute` lines of `sqlite-txnpersec.pl`, field 5 the transactions per second). The
/// operation is `txn/sec`; the interval counts samples across all iterations.
pub fn sqlite(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(dir, |l| l.starts_with("execute"), "txn/sec", Pos::Field(5))
}

/// sysbenchcpu: `line-parse-results 'events per second' events/sec NF` over
/// `benchlog-<threads>-_-<iteration>`: operations `events/sec-<threads>`, the last field of
/// sysbench's `events per second:` line.
pub fn sysbenchcpu(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(
        dir,
        |l| l.contains("events per second"),
        "events/sec",
        Pos::Last,
    )
}

/// sysbenchmutex: `line-parse-results '95th percentile:' latency 3` over
/// `benchlog-<threads>-_-<iteration>`: operations `latency-<threads>`, sysbench's 95th
/// percentile latency (ms).
pub fn sysbenchmutex(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(
        dir,
        |l| l.contains("95th percentile:"),
        "latency",
        Pos::Field(3),
    )
}

/// xsbench: `line-parse-results '^Lookups/s:' lookups/sec 2 | sed -e 's/,//g'` over
/// `benchlog-<threads>-_-<iteration>`: operations `lookups/sec-<threads>`, XSBench's
/// `Lookups/s:` value with its thousands commas removed (after sorting, from every field).
pub fn xsbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let lines = line_parse(
        dir,
        |l| l.starts_with("Lookups/s:"),
        "lookups/sec",
        Pos::Field(2),
    )?;
    Ok(sed(lines, |t| t.replace(',', "")))
}

/// wis: `line-parse-results 'total:' ops 3 | sed -e 's/total://'` over
/// `benchlog-<workload>-<threads>`: operations `ops-<workload>-<threads>`, one sample per
/// will-it-scale `total:` line, the first `total:` of each printed line removed. The sort
/// is numeric on the (textual) workload, so workloads interleave by thread count.
pub fn wis(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let lines = line_parse(dir, |l| l.contains("total:"), "ops", Pos::Field(3))?;
    Ok(sed(lines, |t| t.replacen("total:", "", 1)))
}

/// stockfish: `time-parse-results` but for its sort (`-k1,1 -k2,2n`): for each `<n>` of the
/// `time-<n>-1` files, every `time-<n>-<iteration>` read by `extract-time`: operations
/// `User-<n>`, `System-<n>`, `Elapsed-<n>` (seconds), the iteration as interval, sorted by
/// metric and then numerically by `<n>`.
pub fn stockfish(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    time_parse_results(dir, true, &[(1, false), (2, true)])
}

/// unixbenchd: the pgms command named in `commands.log` (its basename) is the operation;
/// each word of field 2 (`|`-separated) of the `COUNT` lines of `unixbenchd.log` is a
/// sample. The interval is always 0: the script increments a misspelt `INTERATION`.
/// Several `pgms` commands would print broken lines: a [`Problem`].
pub fn unixbenchd(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    // COMMAND=`grep pgms commands.log | awk '{print $1}' | sed -e 's/.*\///'`
    let commands = cat(dir, "commands.log").unwrap_or("");
    let picked: Vec<&str> = grep(commands, commands.contains('\0'), |l| l.contains("pgms"))
        .into_iter()
        .map(|(_, l)| {
            let first = words(l).next().unwrap_or("");
            first.rsplit_once('/').map_or(first, |(_, base)| base)
        })
        .collect();
    let joined = picked.join("\n");
    let command = joined.trim_end_matches('\n');
    if command.contains('\n') {
        return Err(Problem::new(
            "names more than one pgms command; parse-results would print broken lines",
        )
        .in_file("commands.log"));
    }
    plain_echo(command).map_err(|p| p.in_file("commands.log"))?;
    let mut out = Vec::new();
    let log = cat(dir, "unixbenchd.log").unwrap_or("");
    for (no, line) in grep(log, log.contains('\0'), |l| l.contains("COUNT")) {
        let field = if line.contains('|') {
            line.split('|').nth(1).unwrap_or("")
        } else {
            line
        };
        for count in words(field) {
            plain_echo(count).map_err(|p| p.in_file("unixbenchd.log").at_line(no))?;
            out.push(Line::new(command, "_", "_", "0", count));
        }
    }
    Ok(out)
}

/// stutterp: each `mmap-latency-<workers>.log.gz` (`<workers>` is field 3 of the name,
/// `.log.gz` removed) holds `<count> <average ns>` lines from `mmap-latency`; a line stands
/// for `<count>` samples of the average in microseconds (`$((ns/1000))`, bash integers).
/// Operations `mmap-<workers>`, the sample number as interval. Where bash would stop on an
/// arithmetic error or loop for ever (a count such as `08`), a [`Problem`].
pub fn stutterp(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let logs = dir.glob("mmap-latency-", ".log.gz");
    let factors: Vec<String> = ls_lines(logs)
        .map(|l| sed_first_log_gz(awk_split(l, '-', 3)))
        .collect();
    let mut out = Vec::new();
    for (factor, times) in tally(factors.iter().flat_map(|f| words(f))) {
        let member = format!("mmap-latency-{factor}.log.gz");
        let group = stutterp_samples(dir.get(&member).unwrap_or(""), factor, &member)?;
        push_times(&mut out, group, times)?;
    }
    Ok(sort_lines(out, &[(1, false), (2, true), (4, true)]))
}

/// One `mmap-latency` log as parse-results' `while read NR_MEASUREMENTS LATENCY` loop
/// expands it (the text as `<<< $(zcat ..)` gives it: NULs dropped, one final newline).
fn stutterp_samples(text: &str, factor: &str, member: &str) -> Result<Vec<Line>, Problem> {
    let body: String = text.chars().filter(|&c| c != '\0').collect();
    let body = body.trim_end_matches('\n');
    let mut group = Vec::new();
    for (i, line) in body.split('\n').enumerate() {
        let at = |message: String| Problem::new(message).in_file(member).at_line(i + 1);
        if line.contains('\\') {
            return Err(at(
                "a backslash, which read would take as an escape".to_owned()
            ));
        }
        // `read NR_MEASUREMENTS LATENCY`
        let vars = bash_read(line, 2);
        let var = |i: usize| vars.get(i).map_or("", String::as_str);
        let (count, latency) = (var(0), var(1));
        let Some(test) = bash_test_number(count) else {
            continue; // `[ $NR -gt 0 ]` fails on a non-number: no samples
        };
        if test <= 0 {
            continue;
        }
        let samples = bash_octal_aware(count)
            .ok_or_else(|| at(format!("count {count:?}: bash would loop for ever")))?;
        let value = bash_literal(latency).ok_or_else(|| {
            at(format!(
                "latency {latency:?} is no integer; bash would evaluate it as an expression"
            ))
        })? / 1000;
        plain_echo(factor).map_err(|p| p.in_file(member))?;
        let room = MAX_LINES.saturating_sub(group.len());
        if samples > i64::try_from(room).unwrap_or(i64::MAX) {
            return Err(too_many().in_file(member).at_line(i + 1));
        }
        let value = value.to_string();
        for _ in 0..samples {
            let n = group.len() + 1;
            group.push(Line::new(
                "mmap",
                factor,
                "_",
                n.to_string(),
                value.as_str(),
            ));
        }
    }
    Ok(group)
}

/// perffutexwake: `perf bench futex wake` logs `benchlog-<threads>-_-<iteration>`; each
/// `[Run N]: Wokeup .. threads in <ms> ms` line is a sample of `wake-latency-<threads>`,
/// the milliseconds times 1000 (microseconds, awk's number format).
pub fn perffutexwake(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    threads_iterations(dir, |text, threads, iteration| {
        let mut lines = Vec::new();
        for line in records(text).filter(|l| l.contains(": Wokeup")) {
            // sub(/.*threads in/, "", $0): up to the last "threads in".
            let rest = line
                .rfind("threads in")
                .map_or(line, |at| &line[at + "threads in".len()..]);
            let first = words(rest).next().unwrap_or("");
            let value = awk_num(awk_value(first) * 1000.0);
            lines.push(Line::new("wake-latency", threads, "_", iteration, value));
        }
        lines
    })
}

/// stream: STREAM logs `benchlog-<threads>-_-<iteration>`; every line naming `Copy:`,
/// `Scale:`, `Add:` or `Triad:` gives that operation (`Copy-<threads>`...) its field 2,
/// the best rate in MB/s, as printed.
pub fn stream(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    threads_iterations(dir, |text, threads, iteration| {
        let mut lines = Vec::new();
        for line in records(text) {
            for (pattern, metric) in [
                ("Copy:", "Copy"),
                ("Scale:", "Scale"),
                ("Add:", "Add"),
                ("Triad:", "Triad"),
            ] {
                if line.contains(pattern) {
                    let value = words(line).nth(1).unwrap_or("");
                    lines.push(Line::new(metric, threads, "_", iteration, value));
                }
            }
        }
        lines
    })
}

/// io_uring: `t-io_uring.log` of fio's `t/io_uring`; every line with `IOPS=` (the final
/// `Maximum IOPS=` one too) is a sample of `IOops-1`, numbered from 1: the first
/// `=<digits and dots><capital>` on the line, `K` as is, `M` times 1000 (thousands of IOPS),
/// any other capital, or no such match (IOPS below 100000 print no suffix), gives 0.
pub fn io_uring(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut out = Vec::new();
    let log = cat(dir, "t-io_uring.log").unwrap_or("");
    for line in records(log).filter(|l| l.contains("IOPS=")) {
        let value = match iops_match(line) {
            Some((number, b'K')) => awk_value(number),
            Some((number, b'M')) => awk_value(number) * 1000.0,
            Some((number, _)) => awk_value(number) * 0.0,
            None => 0.0,
        };
        let n = out.len() + 1;
        out.push(Line::new("IOops", "1", "_", n.to_string(), awk_num(value)));
    }
    Ok(out)
}

/// gawk's `match($0, /=([0-9.]+)([A-Z])/, arr)`: the first `=` followed by digits and dots
/// and then a capital letter, as (`arr[1]`, `arr[2]`).
fn iops_match(line: &str) -> Option<(&str, u8)> {
    let bytes = line.as_bytes();
    bytes.iter().enumerate().find_map(|(at, &b)| {
        if b != b'=' {
            return None;
        }
        let run = bytes[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit() || **c == b'.')
            .count();
        let end = at + 1 + run;
        match bytes.get(end) {
            Some(&c) if run > 0 && c.is_ascii_uppercase() => Some((&line[at + 1..end], c)),
            _ => None,
        }
    })
}

/// The loops of stream's and perffutexwake's parse-results: thread counts (field 2) and
/// iterations (field 4) of all `benchlog-*` names, each `sort -n -u` (the first of equal
/// numbers kept), and for each pair in that order `benchlog-<t>-_-<i>` through `per_file`
/// (text, t, i). Only existing files are visited, so the work stays linear.
fn threads_iterations(
    dir: &LogDir,
    per_file: impl Fn(&str, &str, &str) -> Vec<Line>,
) -> Result<Vec<Line>, Problem> {
    let names: Vec<&str> = dir.names().collect();
    let bench = prefix_range(&names, "benchlog-");
    let column = |n: usize| {
        sort_un(
            ls_lines(bench.iter().copied())
                .map(|l| cut(l, '-', n))
                .collect(),
        )
    };
    let (threads, iterations) = (column(2), column(4));
    let thread_at = positions(&threads.iter().flat_map(|l| words(l)).collect::<Vec<_>>());
    let iteration_at = positions(&iterations.iter().flat_map(|l| words(l)).collect::<Vec<_>>());
    let mut groups: Vec<Vec<Line>> = Vec::new();
    let mut visits: Vec<(usize, usize, usize)> = Vec::new();
    let mut planned = 0usize;
    for name in bench {
        let rest = &name["benchlog-".len()..];
        let Some((t, tail)) = rest.split_once('-') else {
            continue;
        };
        let Some(i) = tail.strip_prefix("_-") else {
            continue;
        };
        let (Some(t_at), Some(i_at)) = (thread_at.get(t), iteration_at.get(i)) else {
            continue;
        };
        let lines = per_file(cat(dir, name).unwrap_or(""), t, i);
        if lines.is_empty() {
            continue;
        }
        plain_echo(t).map_err(|p| p.in_file(name))?;
        plain_echo(i).map_err(|p| p.in_file(name))?;
        let copies = t_at.len().saturating_mul(i_at.len());
        planned = lines.len().saturating_mul(copies).saturating_add(planned);
        if planned > MAX_LINES {
            return Err(too_many().in_file(name));
        }
        for &tp in t_at {
            for &ip in i_at {
                visits.push((tp, ip, groups.len()));
            }
        }
        groups.push(lines);
    }
    visits.sort_unstable();
    let mut out = Vec::with_capacity(planned);
    for (_, _, g) in visits {
        if let Some(lines) = groups.get(g) {
            out.extend_from_slice(lines);
        }
    }
    Ok(out)
}

/// Where each word occurs in a list.
fn positions<'a>(list: &[&'a str]) -> HashMap<&'a str, Vec<usize>> {
    let mut map: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, w) in list.iter().enumerate() {
        map.entry(*w).or_default().push(i);
    }
    map
}

// --- shell plumbing -------------------------------------------------------------------

/// Each distinct word with how often it occurs: a loop body run once per occurrence gives
/// the same lines each time, and the final sort makes the order irrelevant.
fn tally<'a>(list: impl Iterator<Item = &'a str>) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for w in list {
        *counts.entry(w).or_insert(0usize) += 1;
    }
    counts
}

/// `sed -e 's/.log.gz//'`: the first `<any>log<any>gz` removed.
fn sed_first_log_gz(s: &str) -> String {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let hit = chars.windows(7).position(|w| {
        let at = |k: usize| w.get(k).map(|&(_, c)| c);
        [at(1), at(2), at(3), at(5), at(6)]
            == [Some('l'), Some('o'), Some('g'), Some('g'), Some('z')]
    });
    let Some(k) = hit else {
        return s.to_owned();
    };
    let start = chars.get(k).map_or(0, |&(i, _)| i);
    let end = chars.get(k + 7).map_or(s.len(), |&(i, _)| i);
    format!("{}{}", &s[..start], &s[end..])
}

/// A `sed` over printed lines (it never adds or removes a tab, so fields stay put).
fn sed(lines: Vec<Line>, edit: impl Fn(&str) -> String) -> Vec<Line> {
    lines
        .into_iter()
        .map(|l| to_line(edit(&l.tsv()).as_bytes()))
        .collect()
}

/// Adds `group` `times` times, within [`MAX_LINES`].
fn push_times(out: &mut Vec<Line>, mut group: Vec<Line>, times: usize) -> Result<(), Problem> {
    if group.is_empty() || times == 0 {
        return Ok(());
    }
    let total = group
        .len()
        .checked_mul(times)
        .and_then(|n| n.checked_add(out.len()));
    if total.is_none_or(|t| t > MAX_LINES) {
        return Err(too_many());
    }
    for _ in 1..times {
        out.extend_from_slice(&group);
    }
    out.append(&mut group);
    Ok(())
}

fn too_many() -> Problem {
    Problem::new(format!("more than {MAX_LINES} lines"))
}

/// Text that `echo -e` or `awk -v` would print as is: no backslash.
fn plain_echo(text: &str) -> Result<(), Problem> {
    if text.contains('\\') {
        return Err(Problem::new(format!(
            "{text:?} holds a backslash, which parse-results would read as an escape"
        )));
    }
    Ok(())
}

/// The integer `[ X -gt 0 ]` reads (bash's `legal_number`: blanks, a sign, decimal digits,
/// blanks; out of range is no number).
fn bash_test_number(s: &str) -> Option<i64> {
    let t = s
        .trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b')
        .trim_end_matches([' ', '\t']);
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// How many times `while [ $N -gt 0 ]; do ((N--)) ...` runs for a `N` the test accepted as
/// positive: `((N--))` reads a leading 0 as octal (`010` runs 8 times); `None` where it
/// cannot (`08`) and bash would loop for ever.
fn bash_octal_aware(s: &str) -> Option<i64> {
    let t = s.trim().trim_start_matches('+');
    if t.len() > 1 && t.starts_with('0') {
        let mut v: i64 = 0;
        for b in t.bytes() {
            let d = b.checked_sub(b'0').filter(|d| *d < 8)?;
            v = v.wrapping_mul(8).wrapping_add(i64::from(d));
        }
        return Some(v);
    }
    t.parse().ok()
}

/// What bash's `$((X/1000))` takes `X` holding `s` for: empty is 0, else an optional sign
/// and decimal, `0`-octal or `0x`-hex digits, wrapping as bash's 64-bit arithmetic does.
/// `None` for anything else (bash would evaluate it as an expression, or fail).
fn bash_literal(s: &str) -> Option<i64> {
    if s.is_empty() {
        return Some(0);
    }
    let (negative, t) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (base, digits) = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, hex)
    } else if t.len() > 1 && t.starts_with('0') {
        (8, &t[1..])
    } else {
        (10, t)
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(base)?;
        v = v.wrapping_mul(i64::from(base)).wrapping_add(i64::from(d));
    }
    Some(if negative { v.wrapping_neg() } else { v })
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_case, check_dir};
    use super::*;

    #[test]
    fn sqlite_matches_mmtests() {
        check_dir("sqlite", "sqlite", sqlite);
    }

    #[test]
    fn sysbenchcpu_matches_mmtests() {
        check_dir("sysbenchcpu", "sysbenchcpu", sysbenchcpu);
    }

    #[test]
    fn sysbenchmutex_matches_mmtests() {
        check_dir("sysbenchmutex", "sysbenchmutex", sysbenchmutex);
    }

    #[test]
    fn xsbench_matches_mmtests() {
        check_dir("xsbench", "xsbench", xsbench);
    }

    #[test]
    fn wis_matches_mmtests() {
        check_case("wis-pf", wis);
    }

    #[test]
    fn stockfish_matches_mmtests() {
        check_dir("stockfish", "stockfish", stockfish);
    }

    #[test]
    fn unixbenchd_matches_mmtests() {
        check_dir("unixbenchd", "unixbenchd", unixbenchd);
    }

    #[test]
    fn stutterp_matches_mmtests() {
        check_dir("stutterp", "stutterp", stutterp);
    }

    #[test]
    fn perffutexwake_matches_mmtests() {
        check_dir("perffutexwake", "perffutexwake", perffutexwake);
    }

    #[test]
    fn stream_matches_mmtests() {
        check_case("stream-omp", stream);
        check_case("stream-single", stream);
    }

    #[test]
    fn io_uring_matches_mmtests() {
        check_dir("io_uring", "io_uring", io_uring);
    }

    fn dir_of(benchmark: &str, members: &[(&str, &str)]) -> LogDir {
        let mut dir = LogDir::new(benchmark);
        for (name, text) in members {
            dir.insert(name, (*text).to_owned());
        }
        dir
    }

    fn values(lines: &[Line]) -> Vec<&str> {
        lines.iter().map(|l| l.value.as_str()).collect()
    }

    /// Outputs of the real io_uring parse-results (gawk 5.2) for these lines.
    #[test]
    fn io_uring_reads_iops_as_gawk_does() {
        let log = "IOPS=1.5M, IOS/call=32/31\nIOPS=95000, IOS/call=3/3\nIOPS=150.25K, x\n\
                   Maximum IOPS=45.61M\nIOPS=1.2.3K\nIOPS=7G\nx=5M IOPS=3K\nIOPS=.K\n";
        let lines = io_uring(&dir_of("io_uring", &[("t-io_uring.log", log)])).unwrap();
        assert_eq!(
            values(&lines),
            ["1500", "0", "150.25", "45610", "1.2", "0", "5000", "0"]
        );
        assert_eq!(lines[7].interval, "8");
    }

    /// What the real stutterp parse-results printed for these counts and latencies:
    /// `010` is octal after the first decrement, blanks and negative counts add nothing.
    #[test]
    fn stutterp_counts_as_bash_does() {
        let log = "2 5123456\n010 6000000\n-1 8000\nabc 1\n\n1\n1 0x10000\n1 -5999\n";
        let dir = dir_of("stutterp", &[("mmap-latency-4.log.gz", log)]);
        let lines = stutterp(&dir).unwrap();
        let mut expected = vec!["5123"; 2];
        expected.extend(["6000"; 8]);
        expected.extend(["0", "65", "-5"]);
        assert_eq!(values(&lines), expected);
        for (log, line) in [("1 5000\n08 1\n", 2), ("1 5000\r\n", 1), ("1 a+b\n", 1)] {
            let dir = dir_of("stutterp", &[("mmap-latency-4.log.gz", log)]);
            let problem = stutterp(&dir).unwrap_err();
            assert_eq!(problem.line, Some(line), "{log:?}");
        }
        let dir = dir_of("stutterp", &[("mmap-latency-4.log.gz", "99999999 1\n")]);
        assert!(stutterp(&dir).unwrap_err().message.contains("more than"));
    }

    /// Odd names and texts: the shell's quirks (checked against the real scripts), no
    /// panic, a Problem where echo -e would rewrite the text.
    #[test]
    fn odd_directories() {
        let ev = "events per second: 7\n";
        let dir = dir_of(
            "sysbenchcpu",
            &[
                ("benchlog-4-_-1", ev),
                ("benchlog-4-_-1-extra", "nothing\n"),
                ("benchlog-4-_-2.gz", ev),
                ("benchlog-a b-_-1", ev),
                ("benchlog-a-_-1", ev),
                ("benchlog-8-_-1", "events per second: 1\0\n"),
                ("benchlog-", ev),
                ("benchlog-4\n-_-1", ev),
            ],
        );
        let printed: Vec<String> = sysbenchcpu(&dir).unwrap().iter().map(Line::tsv).collect();
        assert_eq!(
            printed,
            [
                "events/sec\ta\t_\t1\t7\t_",
                "events/sec\ta\t_\t1\t7\t_",
                "events/sec\t4\t_\t1\t7\t_",
                "events/sec\t4\t_\t2\t7\t_",
            ]
        );
        let dir = dir_of(
            "sysbenchcpu",
            &[("benchlog-4-_-1", "events per second: 1\\t2\n")],
        );
        assert_eq!(sysbenchcpu(&dir).unwrap_err().line, Some(1));
        let weird = [
            (
                "benchlog-\u{e9}-_-\u{1f600}",
                "Copy: 1\n: Wokeup x threads in 1e400\n",
            ),
            ("benchlog--_-", "total: 5 6\nLookups/s: 1,2\n"),
            ("time--1", "1user 2system 3:4:5:6elapsed\n"),
            ("time-\u{e9}-1", "elapsed\n"),
            ("mmap-latency-.log.gz", "1 2\n"),
            ("mmap-latency-\u{e9}log\u{e9}gz.log.gz", "1 2\n"),
            ("commands.log", "./pgms/\n"),
            ("unixbenchd.log", "COUNT\n|COUNT|\n"),
            ("t-io_uring.log", "IOPS=\u{e9}\n=IOPS=9\u{e9}\n"),
        ];
        for parser in [
            sqlite as Parser,
            sysbenchcpu,
            sysbenchmutex,
            xsbench,
            wis,
            stockfish,
            unixbenchd,
            stutterp,
            perffutexwake,
            stream,
            io_uring,
        ] {
            let _ = parser(&dir_of("x", &weird));
            let _ = parser(&LogDir::new("x"));
        }
    }
}
