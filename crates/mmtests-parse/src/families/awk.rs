// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Ports of `parse-results` for the families whose parsers are small awk programs (or bash
//! loops) over the tool's own output: dbench and tbench (one parser), redis, redis-memtier,
//! schbench, specjbb2015, sysjitter.
//!
//! The scripts run under `LC_ALL=C.UTF-8` with gawk 5.2. What they lean on is reproduced
//! by the shared helpers: awk records and default field splitting, gawk's string-to-number
//! rules and how `print` writes a number ([`awk_value`], [`awk_num`]), the shell's listing of
//! the directory (`ls`, `cut`, `sort -n`, word splitting) and the final
//! `sort -k1,1 -k2,2n -k4,4n` with blank-separated fields ([`sort_lines`]).
//!
//! Shared deviations: a word taken from a file name that holds a shell glob character
//! (`*?[`) or a backslash (awk's `-v` escapes) is skipped, where mmtests would glob or
//! unescape it; text arrives with invalid bytes replaced by U+FFFD, which a regex `.` does
//! not match (as gawk's and sed's do not match the byte); a directory whose names would make
//! a script list or read its logs over and over (more work than eight times its size) is
//! refused with a [`Problem`] ([`Listing`]).

use std::borrow::Cow;

use super::budget::Budget;
use super::prelude::*;
use super::shell::{bash_read, cut, prefix_range, sort_n, sort_u, sort_un, words};

/// The scripts' final `sort -k1,1 -k2,2n -k4,4n`.
const SORT: &[(usize, bool)] = &[(1, false), (2, true), (4, true)];

/// dbench: `benchlog-<heading>-<clients>.xz` for the headings `loadfile` (the "completed in"
/// lines: `loadfile`, clients, interval `$8/1000` seconds, value `$4` ms, `R`), `tput` (the
/// "execute" lines: `tput`, clients, interval `$6` seconds, value `$3` MB/sec) and `op` (the
/// operation table: `op-<name>`, clients, interval `0`, value `$3`, the average latency). All
/// lines sorted as `sort -k1,1 -k2,2n -k4,4n`. Other members (`dbench-N.log.xz`) are not read.
pub fn dbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let ls = Listing::new(dir);
    // `ls benchlog-*-*.xz | awk -F - '{print $2}' | sort | uniq`: each distinct second field
    // is one trip of the heading loop per word of it.
    let headings: Vec<&str> = ls
        .list("benchlog-", ".xz")?
        .into_iter()
        .filter(|n| n["benchlog-".len()..n.len() - ".xz".len()].contains('-'))
        .flat_map(|n| n.split('\n'))
        .map(|l| l.split('-').nth(1).unwrap_or(""))
        .collect();
    // Each heading's lines, client by client in the order they are read.
    let mut headed: Vec<(&str, Vec<ClientLines<'_>>)> = Vec::new();
    for heading in sort_u(headings).into_iter().flat_map(words) {
        if !matches!(heading, "loadfile" | "tput" | "op") {
            continue;
        }
        let mut by_client = Vec::new();
        // `\ls benchlog-$HEADING-*.xz | sed -e 's/.xz$//' | cut -f3 -d-`; the order does not
        // matter, the output is sorted.
        let listed = ls.list(&format!("benchlog-{heading}-"), ".xz")?;
        let clients = listed
            .iter()
            .flat_map(|n| n[..n.len() - ".xz".len()].split('\n'))
            .map(|l| cut(l, '-', 3))
            .flat_map(words);
        for client in clients {
            if !plain_word(client) {
                continue;
            }
            let Some(text) = ls.read(&format!("benchlog-{heading}-{client}.xz"))? else {
                continue;
            };
            let mut lines = Vec::new();
            for record in records(text) {
                ls.charge(1)?;
                let f = fields(record);
                let field = |i: usize| f.get(i).copied().unwrap_or("");
                lines.push(match heading {
                    "loadfile" => {
                        let seconds = awk_num(awk_value(field(7)) / 1000.0);
                        Line::new("loadfile", client, "_", seconds, field(3)).extra("R")
                    }
                    "tput" => Line::new("tput", client, "_", field(5), field(2)),
                    _ => Line::new(
                        format_compact!("op-{}", field(0)),
                        client,
                        "_",
                        "0",
                        field(2),
                    ),
                });
            }
            by_client.push((client, lines));
        }
        headed.push((heading, by_client));
    }
    // The lines come out of a log second by second: with the clients in `sort -n` order, a
    // heading's `loadfile` and `tput` lines are in nearly the final order (only lines of one
    // second can be out of it), which `sort_lines` sorts where they stand. Headings met once
    // each, in their byte order, sort apart: `loadfile` < `op-*` < `tput`.
    let apart = headed.windows(2).all(|pair| pair[0].0 < pair[1].0);
    let mut lines = Vec::new();
    for (_, mut by_client) in headed {
        by_client.sort_by(|(x, _), (y, _)| sort_n_cmp(x.as_bytes(), y.as_bytes()));
        let heading_lines = by_client.into_iter().flat_map(|(_, lines)| lines).collect();
        if apart {
            lines.extend(sort_lines(heading_lines, SORT));
        } else {
            lines.extend(heading_lines);
        }
    }
    Ok(if apart {
        lines
    } else {
        sort_lines(lines, SORT)
    })
}

/// A client count's lines of one dbench heading.
type ClientLines<'a> = (&'a str, Vec<Line>);

/// tbench: mmtests' tbench `parse-results` is dbench's, over the same file names (tbench-bench
/// splits its log exactly as dbench-bench does); see [`dbench`].
pub fn tbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    dbench(dir)
}

/// redis: `redis-<clients>-<iteration>.log`, redis-benchmark's `--csv` output. For each CSV row
/// (rows containing `test`, the header, are skipped; any other row counts, even a blank one)
/// six lines: `<test>-RPS` (requests/sec / 1000, `R`), `<test>-latMin`, `-latAvg`, `-lat95`,
/// `-lat99`, `-latMax` (ms * 1000), factor A the clients, interval the iteration. The test
/// name loses quotes and everything from ` (` to the last `)` (`LPUSH (needed to benchmark
/// LRANGE)` merges into `LPUSH`). Client counts come from the `redis-*-1.log` names. Sorted
/// as `sort -k1,1 -k2,2n -k4,4n`.
pub fn redis(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let ls = Listing::new(dir);
    // `\ls redis-*-1.log | cut -d- -f2`
    let listed = ls.list("redis-", "-1.log")?;
    let clients = listed
        .iter()
        .flat_map(|n| n.split('\n'))
        .map(|l| cut(l, '-', 2))
        .flat_map(words);
    let mut lines = Vec::new();
    for client in clients {
        if !plain_word(client) {
            continue;
        }
        // `\ls redis-$NR_CLIENT-* | cut -d- -f3 | sed -e 's/.log//'`
        let iterations: Vec<String> = ls
            .list(&format!("redis-{client}-"), "")?
            .into_iter()
            .flat_map(|n| n.split('\n'))
            .map(|l| sed_drop_first_log(cut(l, '-', 3)))
            .collect();
        for iteration in iterations.iter().flat_map(|i| words(i)) {
            if !plain_word(iteration) {
                continue;
            }
            let Some(text) = ls.read(&format!("redis-{client}-{iteration}.log"))? else {
                continue;
            };
            // (A row's text without its quotes, in one buffer for them all.)
            let mut row = String::new();
            for record in records(text) {
                if record.contains("test") {
                    continue;
                }
                ls.charge(6)?;
                row.clear();
                row.extend(record.split('"'));
                let arr: Fields<'_> = if row.is_empty() {
                    Fields::new()
                } else {
                    row.split(',').collect()
                };
                let col = |i: usize| arr.get(i).copied().unwrap_or("");
                let op = drop_parenthesised(col(0));
                let scaled = |i: usize| awk_num(awk_value(col(i)) * 1000.0);
                let rps = awk_num(awk_value(col(1)) / 1000.0);
                lines.push(
                    Line::new(format_compact!("{op}-RPS"), client, "_", iteration, rps).extra("R"),
                );
                for (metric, column) in [
                    ("latMin", 3),
                    ("latAvg", 2),
                    ("lat95", 5),
                    ("lat99", 6),
                    ("latMax", 7),
                ] {
                    lines.push(Line::new(
                        format_compact!("{op}-{metric}"),
                        client,
                        "_",
                        iteration,
                        scaled(column),
                    ));
                }
            }
        }
    }
    Ok(sort_lines(lines, SORT))
}

/// redis-memtier: `benchlog-<clients>-<iteration>`, memtier_benchmark's report. Per client
/// count and iteration (each list from the names, `sort -u -n`) the first line starting
/// `Totals` is read by bash's `read` into ops, hits, misses, latency and KB (the last takes
/// the rest of the line) and printed as `ops/sec` (`R`), `hits/sec`, `misses/sec`, `latency`,
/// `kb/sec`, factor A the clients, interval the iteration, the words as written. A pair whose
/// file is missing or has no `Totals` line still prints the five lines with empty values.
/// Not sorted afterwards. A backslash left after `read` is kept, where `echo -e` would
/// interpret it. As grep under C.UTF-8, a file with a NUL byte yields nothing and a line
/// with an invalid byte (replaced by U+FFFD here) is not printed.
pub fn redis_memtier(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let ls = Listing::new(dir);
    // `\ls benchlog-* | cut -d- -f2 | sort -u -n`
    let listed: Vec<&str> = ls
        .list("benchlog-", "")?
        .into_iter()
        .flat_map(|n| n.split('\n'))
        .map(|l| cut(l, '-', 2))
        .collect();
    let mut lines = Vec::new();
    for client in sort_un(listed).into_iter().flat_map(words) {
        if !plain_word(client) {
            continue;
        }
        let listed: Vec<&str> = ls
            .list(&format!("benchlog-{client}-"), "")?
            .into_iter()
            .flat_map(|n| n.split('\n'))
            .map(|l| cut(l, '-', 3))
            .collect();
        for iteration in sort_un(listed).into_iter().flat_map(words) {
            if !plain_word(iteration) {
                continue;
            }
            ls.charge(5)?;
            // `read ... <<< $(grep ^Totals benchlog-$NR_CLIENT-$ITERATION)`
            let totals = match ls.read(&format!("benchlog-{client}-{iteration}"))? {
                Some(text) if !text.contains('\0') => {
                    let found: Vec<&str> = records(text)
                        .filter(|r| r.starts_with("Totals") && !r.contains('\u{fffd}'))
                        .collect();
                    bash_read(&found.join("\n"), 6)
                }
                _ => bash_read("", 6),
            };
            let value = |i: usize| totals.get(i).map_or("", String::as_str);
            for (metric, i) in [
                ("ops/sec", 1),
                ("hits/sec", 2),
                ("misses/sec", 3),
                ("latency", 4),
                ("kb/sec", 5),
            ] {
                let line = Line::new(metric, client, "_", iteration, value(i));
                lines.push(if i == 1 { line.extra("R") } else { line });
            }
        }
    }
    Ok(lines)
}

/// schbench: `schbench-<workers>.log`, worker counts in `sort -n` order of the names. Each
/// percentile line (`  50.0th: 4`, starred `* 99.0th: 30`; only 20.0, 50.0, 90.0, 99.0 and
/// 99.9 count) gives `<section>`, `<pct>th`, workers, the section's `runtime` seconds (1 before
/// any `Wakeup Latencies ... runtime` header), the value, `_`; the section is the first word of
/// the latest `percentile` header. Samples are printed only when a `current rps` line follows
/// them (the last interval's are lost), then `.0th-` becomes `th-` once per line. Not sorted.
pub fn schbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let ls = Listing::new(dir);
    // `\ls schbench-* | sed -e 's/^schbench-//' -e 's/\.log$//' | sort -n`
    let workers: Vec<&str> = ls
        .list("schbench-", "")?
        .into_iter()
        .flat_map(|n| n.split('\n'))
        .map(|l| {
            let l = l.strip_prefix("schbench-").unwrap_or(l);
            l.strip_suffix(".log").unwrap_or(l)
        })
        .collect();
    let mut lines = Vec::new();
    for w in sort_n(workers).into_iter().flat_map(words) {
        if !plain_word(w) {
            continue;
        }
        let Some(text) = ls.read(&format!("schbench-{w}.log"))? else {
            continue;
        };
        let mut runtime = "1".to_owned();
        let mut metric = String::new();
        let mut sample: Vec<Line> = Vec::new();
        for record in records(text) {
            let mut line = Cow::Borrowed(record);
            if line.contains("percentile") {
                metric = fields(&line).first().copied().unwrap_or("").to_owned();
            }
            if valid_runs(&line).any(|(_, run)| {
                run.find("Wakeup Latencies")
                    .is_some_and(|at| run[at + "Wakeup Latencies".len()..].contains("runtime"))
            }) {
                runtime = fields(&line).get(5).copied().unwrap_or("").to_owned();
            }
            if line.contains("current rps") {
                lines.extend(sample.drain(..).map(sed_point_zero_th));
            }
            // The ten sample rules in order, each on the record as the previous left it (all
            // need a `th:`, which the first to match removes).
            if !line.contains("th:") {
                continue;
            }
            for (at, heads) in [
                (0, ["  20", "  50", "  90", "  99", "  99"]),
                (1, ["* 20", "* 50", "* 90", "* 99", "* 99"]),
            ] {
                for (head, tenth) in heads.into_iter().zip(['0', '0', '0', '0', '9']) {
                    if !has_percentile(&line, head, tenth) {
                        continue;
                    }
                    ls.charge(1)?;
                    line = Cow::Owned(line.replace("th:", "th"));
                    let f = fields(&line);
                    let field = |i: usize| f.get(i).copied().unwrap_or("");
                    sample.push(Line::new(
                        metric.as_str(),
                        field(at),
                        w,
                        runtime.as_str(),
                        field(at + 1),
                    ));
                }
            }
        }
    }
    Ok(lines)
}

/// Whether `line` holds `<head>` + any character + `<tenth>th:` (schbench's
/// `/  99.0th:/` and `/* 99.0th:/`, the leading `*` a literal one in gawk).
fn has_percentile(line: &str, head: &str, tenth: char) -> bool {
    line.match_indices(head).any(|(at, _)| {
        let rest = &line[at + head.len()..];
        let mut chars = rest.chars();
        chars.next().is_some_and(|c| c != '\u{fffd}') && {
            let tail = chars.as_str();
            tail.starts_with(tenth) && tail[tenth.len_utf8()..].starts_with("th:")
        }
    })
}

/// `sed -e 's/\.0th-/th-/'` on one printed line: the first `.0th-` (never across a tab).
fn sed_point_zero_th(mut line: Line) -> Line {
    for field in [
        &mut line.metric,
        &mut line.a,
        &mut line.b,
        &mut line.interval,
        &mut line.value,
        &mut line.extra,
    ] {
        if field.contains(".0th-") {
            *field = field.replacen(".0th-", "th-", 1).into();
            break;
        }
    }
    line
}

/// specjbb2015: `default/specjbb2015.log`, the `.raw` result file (`key = value` lines): the
/// last `jbb2015.result.metric.max-jOPS` / `critical-jOPS` / `SLA-<N>-jOPS` value of each as
/// `JOPS-Max`, `JOPS-Critical` (`R`), `JOPS-<N>us`, then `pctMax-<N>us` = SLA / max * 100, all
/// with interval 1 (a value never found prints empty).
///
/// Broken at this commit: specjbb2015-bench leaves that file in the benchmark's install
/// directory (it writes only `$LOGDIR_RESULTS/<pages>/...` itself), so no mmtests run has
/// it and parse-results prints nothing. A logs directory as Perfline reads it has no
/// subdirectories either, so this returns a [`Problem`] saying so; the awk program is still
/// ported for a member of that name. A max-jOPS that is 0 (or absent) makes gawk die on the
/// division: a [`Problem`] too.
pub fn specjbb2015(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    const FILE: &str = "default/specjbb2015.log";
    let Some(text) = dir.get(FILE) else {
        return Err(Problem::new(
            "mmtests' specjbb2015 parse-results reads default/specjbb2015.log, which \
             specjbb2015-bench never writes into the logs (it copies the .raw result into its \
             install directory), so mmtests reports nothing for this run",
        )
        .in_file(FILE));
    };
    const KEYS: [&str; 7] = [
        "jbb2015.result.metric.max-jOPS",
        "jbb2015.result.metric.critical-jOPS",
        "jbb2015.result.SLA-10000-jOPS",
        "jbb2015.result.SLA-25000-jOPS",
        "jbb2015.result.SLA-50000-jOPS",
        "jbb2015.result.SLA-75000-jOPS",
        "jbb2015.result.SLA-100000-jOPS",
    ];
    let mut values: [&str; 7] = [""; 7];
    for record in records(text) {
        for (key, value) in KEYS.iter().zip(values.iter_mut()) {
            if starts_with_dotted(record, key) {
                *value = fields(record).last().copied().unwrap_or(record);
            }
        }
    }
    let max = awk_value(values[0]);
    if max == 0.0 {
        return Err(Problem::new(
            "no non-zero jbb2015.result.metric.max-jOPS: gawk dies dividing by it",
        )
        .in_file(FILE));
    }
    let mut lines = vec![
        Line::new("JOPS-Max", "_", "_", "1", values[0]),
        Line::new("JOPS-Critical", "_", "_", "1", values[1]).extra("R"),
    ];
    let slas = ["10000us", "25000us", "50000us", "75000us", "100000us"];
    for (sla, value) in slas.iter().zip(&values[2..]) {
        lines.push(Line::new(
            format_compact!("JOPS-{sla}"),
            "_",
            "_",
            "1",
            *value,
        ));
    }
    for (sla, value) in slas.iter().zip(&values[2..]) {
        let pct = awk_value(value) / max * 100.0;
        lines.push(Line::new(
            format!("pctMax-{sla}"),
            "_",
            "_",
            "1",
            awk_num(pct),
        ));
    }
    Ok(lines)
}

/// sysjitter: `sysjitter.log`, sysjitter's summary (`label: v0 v1 ...`, one column per CPU).
/// The `core_i:` row names the columns; every row starting `int_` gives one line per column:
/// the label turned into `int_n`, `int_min_ns`, `int_total_%age`... (`(` to `_`, `):`/`:`
/// dropped, `%` to `%age`), `cpu<core>`, `_`, 1, the value; `int_n_per_sec` is `R`. Not
/// sorted. A row past the `core_i:` columns prints `cpu` alone, as awk's empty map entry.
pub fn sysjitter(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let Some(text) = dir.get("sysjitter.log") else {
        return Ok(Vec::new());
    };
    let mut cpumap: Vec<String> = Vec::new();
    let mut lines = Vec::new();
    for record in records(text) {
        let mut line = record.to_owned();
        if line.contains("core_i:") {
            line = line.replacen("core_i: ", "", 1);
            for (i, core) in fields(&line).into_iter().enumerate() {
                match cpumap.get_mut(i) {
                    Some(slot) => *slot = core.to_owned(),
                    None => cpumap.push(core.to_owned()),
                }
            }
        }
        // `/^int_.*:/`
        let first_run = valid_runs(&line).next().map_or("", |(_, run)| run);
        if !(first_run.starts_with("int_") && first_run[4..].contains(':')) {
            continue;
        }
        let mut metric = fields(&line).first().copied().unwrap_or("").to_owned();
        metric = metric.replacen("):", "", 1);
        metric = metric.replacen(':', "", 1);
        metric = metric.replacen('(', "_", 1);
        metric = metric.replacen('%', "%age", 1);
        // `sub(/int_.*: /, "", $0)`: from the first `int_` through the last `: ` after it.
        let span = valid_runs(&line).find_map(|(at, run)| {
            let (from, to) = (run.find("int_")?, run.rfind(": ")?);
            (to >= from + 4).then_some(at + from..at + to + 2)
        });
        if let Some(span) = span {
            line.replace_range(span, "");
        }
        let ratio = if metric == "int_n_per_sec" { "R" } else { "_" };
        for (i, value) in fields(&line).into_iter().enumerate() {
            let core = cpumap.get(i).map_or("", String::as_str);
            lines.push(
                Line::new(metric.clone(), format!("cpu{core}"), "_", "1", value).extra(ratio),
            );
        }
    }
    Ok(lines)
}

/// The directory as the scripts list and read it, with a work allowance ([`Budget`]: eight
/// times its text and names, plus a little, in bytes read, names listed and lines printed),
/// so file names that make a script list or read the same logs again and again cannot
/// multiply the work.
struct Listing<'a> {
    dir: &'a LogDir,
    /// The members' names in byte order, as `ls` sorts them under C.UTF-8.
    names: Vec<&'a str>,
    budget: Budget<'a>,
}

impl<'a> Listing<'a> {
    fn new(dir: &'a LogDir) -> Listing<'a> {
        Listing {
            dir,
            names: dir.names().collect(),
            budget: Budget::new(dir, 8, 1 << 16),
        }
    }

    fn charge(&self, units: u64) -> Result<(), Problem> {
        self.budget.charge(units)
    }

    /// `ls <prefix>*<suffix>`: the names in byte order.
    fn list(&self, prefix: &str, suffix: &str) -> Result<Vec<&'a str>, Problem> {
        let found = prefix_range(&self.names, prefix);
        self.charge(found.len() as u64 + 1)?;
        Ok(found
            .iter()
            .copied()
            .filter(|n| n.len() >= prefix.len() + suffix.len() && n.ends_with(suffix))
            .collect())
    }

    /// The member `name` as `cat`/`xzcat` reads it (by its exact name), `None` when absent.
    fn read(&self, name: &str) -> Result<Option<&'a str>, Problem> {
        let text = self.dir.get(name);
        self.charge(text.map_or(1, |t| t.len() as u64 + 1))
            .map_err(|p| p.in_file(name))?;
        Ok(text)
    }
}

/// Whether a word from a file name reaches the command as itself: no glob character the
/// shell would expand and no backslash awk would unescape (such words are skipped).
fn plain_word(w: &str) -> bool {
    !w.contains(['*', '?', '[', '\\'])
}

/// `sed -e 's/.log//'`: the first `log` that follows some character (not an invalid byte)
/// loses both.
fn sed_drop_first_log(s: &str) -> String {
    for (i, c) in s.char_indices().filter(|&(_, c)| c != '\u{fffd}') {
        let after = i + c.len_utf8();
        if s[after..].starts_with("log") {
            return format!("{}{}", &s[..i], &s[after + 3..]);
        }
    }
    s.to_owned()
}

/// `sub(/ \(.*\)/, "", s)`: from the first ` (` through the last `)` after it, the `.*`
/// not crossing an invalid byte.
fn drop_parenthesised(s: &str) -> String {
    for (at, run) in valid_runs(s) {
        if let (Some(open), Some(close)) = (run.find(" ("), run.rfind(')')) {
            if close >= open + 2 {
                return format!("{}{}", &s[..at + open], &s[at + close + 1..]);
            }
        }
    }
    s.to_owned()
}

/// The stretches of `s` between U+FFFD characters, with their offsets. Text reaches the
/// parsers with each invalid byte replaced by U+FFFD, and gawk's and sed's `.` under
/// C.UTF-8 never matches an invalid byte, so a regex `.` stops there.
fn valid_runs(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split('\u{fffd}').scan(0, |at, run| {
        let start = *at;
        *at += run.len() + '\u{fffd}'.len_utf8();
        Some((start, run))
    })
}

/// Whether `record` starts with `pattern`, each `.` of it standing for any one character
/// but an invalid byte (the awk regex `/^jbb2015.result.../`).
fn starts_with_dotted(record: &str, pattern: &str) -> bool {
    let mut chars = record.chars();
    pattern.chars().all(|p| match chars.next() {
        Some(c) => p == c || (p == '.' && c != '\u{fffd}'),
        None => false,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_case, check_dir};
    use super::*;

    #[test]
    fn dbench_cases() {
        check_case("dbench-async", dbench);
        check_case("dbench-fsync", dbench);
    }

    #[test]
    fn tbench_dir() {
        check_dir("tbench", "tbench", tbench);
    }

    #[test]
    fn redis_case() {
        check_case("redis-small", redis);
    }

    #[test]
    fn redis_memtier_dir() {
        check_dir("redis-memtier", "redis-memtier", redis_memtier);
    }

    #[test]
    fn schbench_cases() {
        check_case("schbench-default", schbench);
        check_case("schbench-numa-tail", schbench);
    }

    /// The logs as the bench leaves them have only a `default/` subdirectory, which a
    /// `LogDir` never holds; with the file parse-results wants put in by name, the port
    /// prints what the real script printed for it.
    #[test]
    fn specjbb2015_dir() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/mmtests-families/specjbb2015");
        let problem = specjbb2015(&LogDir::new("specjbb2015")).unwrap_err();
        assert_eq!(problem.file.as_deref(), Some("default/specjbb2015.log"));
        let mut dir = LogDir::new("specjbb2015");
        for name in ["specjbb2015.log", "specjbb2015-raw.log"] {
            let text = std::fs::read_to_string(root.join("logs/default").join(name)).unwrap();
            dir.insert(&format!("default/{name}"), text);
        }
        let expected = std::fs::read_to_string(root.join("parsed.tsv")).unwrap();
        let got: String = specjbb2015(&dir)
            .unwrap()
            .iter()
            .map(|l| l.tsv() + "\n")
            .collect();
        assert!(expected.lines().count() >= 12);
        assert_eq!(got, expected);
    }

    #[test]
    fn sysjitter_dir() {
        check_dir("sysjitter", "sysjitter", sysjitter);
    }

    #[test]
    fn shell_and_sed_details() {
        assert_eq!(cut("benchlog-1-2-3", '-', 3), "2");
        assert_eq!(cut("a-b", '-', 3), "");
        assert_eq!(cut("ab", '-', 3), "ab");
        assert_eq!(sed_drop_first_log("10.log"), "10");
        assert_eq!(sed_drop_first_log("blog.log"), ".log");
        assert_eq!(sed_drop_first_log("log"), "log");
        assert_eq!(
            drop_parenthesised("LPUSH (needed to benchmark LRANGE)"),
            "LPUSH"
        );
        assert_eq!(drop_parenthesised("A (b) c (d) e"), "A e");
        assert_eq!(drop_parenthesised("A (b\u{fffd}) c"), "A (b\u{fffd}) c");
        assert_eq!(
            bash_read("Totals  1 2 3 4 5 and more \n", 6)[5],
            "5 and more"
        );
        assert_eq!(bash_read("Totals a\\ b \\\nc", 3), ["Totals", "a b", "c"]);
        assert_eq!(bash_read("", 2), ["", ""]);
    }

    #[test]
    fn a_zero_max_jops_is_gawks_division_by_zero() {
        let mut dir = LogDir::new("specjbb2015");
        dir.insert(
            "default/specjbb2015.log",
            "jbb2015.result.metric.max-jOPS = 0\njbb2015.result.SLA-10000-jOPS = 5\n".into(),
        );
        assert!(specjbb2015(&dir).unwrap_err().message.contains("dividing"));
    }

    /// Any text, any names: no panic, and names that would make the script read the same
    /// logs over and over are refused instead of multiplying the work.
    #[test]
    fn hostile_directories() {
        let junk = [
            "",
            "\n",
            "\u{fffd}\0\t\r",
            "  99.9th:\u{fffd}",
            "* 20.0th:",
            "int_:",
            "int_(: a",
            "core_i:",
            "\"test\"",
            " (",
            ")",
            "Totals\\",
            "jbb2015.result.metric.max-jOPS",
            "current rps",
            "percentile Wakeup Latencies runtime",
        ];
        let names = [
            "benchlog-op-1.xz",
            "benchlog-tput-é.xz",
            "benchlog-loadfile-.xz",
            "benchlog--.xz",
            "redis-1-1.log",
            "redis--1.log",
            "redis-1-",
            "benchlog-1-1",
            "benchlog-",
            "benchlog-1",
            "schbench-.log",
            "schbench-",
            "schbench-1.log",
            "sysjitter.log",
            "default/specjbb2015.log",
        ];
        let parsers: [Parser; 7] = [
            dbench,
            tbench,
            redis,
            redis_memtier,
            schbench,
            specjbb2015,
            sysjitter,
        ];
        for (i, name) in names.iter().enumerate() {
            let mut dir = LogDir::new("x");
            for (j, n) in names.iter().enumerate().take(i + 1) {
                dir.insert(n, junk[(i + j) % junk.len()].repeat(j + 1));
            }
            for parser in parsers {
                let _ = parser(&dir);
            }
            let _ = name;
        }
        let mut dir = LogDir::new("redis");
        dir.insert("redis-1-1.log", "\"SET\",\"1\"\n".into());
        for k in 0..1000 {
            dir.insert(&format!("redis-1-{k}-1.log"), String::new());
        }
        assert!(redis(&dir).is_err());
        let mut dir = LogDir::new("redis-memtier");
        dir.insert(&format!("benchlog-{}", "1 ".repeat(5_000)), String::new());
        for k in 0..1000 {
            dir.insert(&format!("benchlog-1-{k}"), String::new());
        }
        assert!(redis_memtier(&dir).is_err());
    }
}
