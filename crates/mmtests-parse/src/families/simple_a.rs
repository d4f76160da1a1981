// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Ports of `parse-results` for aim9, apachebench, blogbench, coremark, easywave, ebizzy,
//! fsmark, libmicro and the `parsers/line-parse-results` users pedsort, perfpipe,
//! perfsyscall and sembench: bash loops over `ls` listings (`sed`, `cut`, `sort -n`/`-u`),
//! `grep`/`awk` per log, rows printed by `awk` or `echo -e`, and a final `sort -k` on
//! blank-separated fields (no `-t`).
//!
//! The shell is reproduced where it shapes the output: IFS word splitting and pathname
//! expansion of unquoted words against the members, `echo -e` escapes, GNU `sort`'s `-n`,
//! `-u` and last-resort ordering, gawk's field splitting (space, tab, newline only) and GNU
//! grep printing nothing for a stream holding a NUL byte (a `.gz`/`.xz` member read without
//! decompression is one). Where the shell would print something a [`Line`] cannot hold (a
//! value that `echo -e` turns into a tab or newline, several files handed to one `grep`, a
//! file-name part pasted into an awk program that is not a plain number) the parser returns
//! a [`Problem`] naming the member instead of guessing. Pathname expansion, file reads and
//! output are charged to a budget linear in the input, so hostile names cannot make the
//! work quadratic.

use super::line_parse::{line_parse, Pos};
use super::prelude::*;
use super::shell::{backtick, cut, echo, echo_line, grep, raw_binary, sort_n, sort_u, sort_un, Sh};

/// aim9: `aim9-<iteration>` (the `singleuser` output); every line containing `_test` gives
/// `<test name ($2)> _ _ <iteration> <ops/sec ($6)>`, sorted by test name, then iteration.
/// The iteration is pasted into the awk program as an expression: a plain number prints as
/// gawk prints that constant (`010` is 8); anything else is a [`Problem`].
pub fn aim9(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let listing: Vec<String> = sh
        .ls("aim9-*")?
        .iter()
        .map(|l| l.strip_prefix("aim9-").unwrap_or(l).to_owned())
        .collect();
    let mut out = Vec::new();
    for iteration in sh.words(&sort_n(listing))? {
        let path = format!("aim9-{iteration}");
        let Some((name, text)) = sh.one_file(&path, "grep")? else {
            continue;
        };
        let hits = grep(text, raw_binary(&name, text), |l| l.contains("_test"));
        let Some(&(first, _)) = hits.first() else {
            continue;
        };
        let interval = awk_constant(&iteration, &name, first)?;
        for (_, hit) in hits {
            let f = fields(hit);
            let line = Line::new(
                awk_field(&f, 2),
                "_",
                "_",
                interval.as_str(),
                awk_field(&f, 6),
            );
            sh.push(&mut out, line)?;
        }
    }
    Ok(sort_lines(out, &[(1, false), (4, true)]))
}

/// apachebench: `apachebench-<clients>-<iteration>.log` (ab's report); the first `Time per
/// request` line gives `mean-request <clients> _ <iteration> <ms ($4)>`, clients in
/// `sort -u -n` order, iterations in `sort -n` order, no final sort. The iteration is pasted
/// into the awk program as an expression and the clients into an awk string: only plain
/// numbers and backslash/quote-free text are reproduced, else a [`Problem`].
pub fn apachebench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let clients: Vec<String> = sh
        .ls("apachebench*.log")?
        .iter()
        .map(|l| cut(strip_log(l), '-', 2).to_owned())
        .collect();
    let mut out = Vec::new();
    for client in sh.words(&sort_un(clients))? {
        let iterations: Vec<String> = sh
            .ls(&format!("apachebench-{client}-*.log"))?
            .iter()
            .map(|l| cut(strip_log(l), '-', 3).to_owned())
            .collect();
        for iteration in sh.words(&sort_n(iterations))? {
            let path = format!("apachebench-{client}-{iteration}.log");
            let Some((name, text)) = sh.one_file(&path, "grep")? else {
                continue;
            };
            let hits = grep(text, raw_binary(&name, text), |l| {
                l.contains("Time per request")
            });
            let Some(&(at, hit)) = hits.first() else {
                continue;
            };
            if client.contains(['\\', '"']) {
                return Err(Problem::new(format!(
                    "parse-results pastes `{client}` (from the file name) into an awk string; \
                     a backslash or quote there is not reproduced"
                ))
                .in_file(&name)
                .at_line(at));
            }
            let interval = awk_constant(&iteration, &name, at)?;
            let f = fields(hit);
            let line = Line::new(
                "mean-request",
                client.as_str(),
                "_",
                interval,
                awk_field(&f, 4),
            );
            sh.push(&mut out, line)?;
        }
    }
    Ok(out)
}

/// blogbench: `blogbench-<iteration>.log`; each `Final score for` line, colons removed,
/// gives `<writes|reads ($4)> _ _ <iteration> <score ($NF)>`, sorted by metric, then
/// iteration. The iteration is pasted into awk as aim9's is.
pub fn blogbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let listing: Vec<String> = sh
        .ls("blogbench-*.log")?
        .iter()
        .map(|l| cut(strip_log(l), '-', 2).to_owned())
        .collect();
    let mut out = Vec::new();
    for iteration in sh.words(&sort_n(listing))? {
        let path = format!("blogbench-{iteration}.log");
        let Some((name, text)) = sh.one_file(&path, "grep")? else {
            continue;
        };
        let hits = grep(text, raw_binary(&name, text), |l| {
            l.contains("Final score for")
        });
        let Some(&(first, _)) = hits.first() else {
            continue;
        };
        let interval = awk_constant(&iteration, &name, first)?;
        for (_, hit) in hits {
            let hit = hit.replace(':', "");
            let f = fields(&hit);
            let value = f.last().copied().unwrap_or(hit.as_str());
            let line = Line::new(awk_field(&f, 4), "_", "_", interval.as_str(), value);
            sh.push(&mut out, line)?;
        }
    }
    Ok(sort_lines(out, &[(1, false), (4, true)]))
}

/// coremark: `coremark-<iteration>.log.gz`; one `score <threads> _ <iteration> <score>` row
/// per listed iteration, threads the last field of `Parallel PThreads` (empty for a
/// single-threaded build), score the fourth of `CoreMark 1.0 :`; iterations in `sort -n`
/// order, no final sort. A missing log still prints its row with empty fields.
pub fn coremark(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let listing: Vec<String> = sh
        .ls("coremark-*.log.gz")?
        .iter()
        .map(|l| cut(strip_log_any_gz(l), '-', 2).to_owned())
        .collect();
    let mut out = Vec::new();
    for iteration in sh.words(&sort_n(listing))? {
        let path = format!("coremark-{iteration}.log.gz");
        let file = sh.one_file(&path, "zgrep")?;
        let name = file.as_ref().map_or(path.as_str(), |(n, _)| n.as_str());
        let (threads, score) = match &file {
            Some((_, text)) => {
                let binary = text.contains('\0');
                let threads = grep(text, binary, |l| l.contains("Parallel PThreads"))
                    .into_iter()
                    .map(|(_, l)| last_field(l));
                let score = grep(text, binary, |l| l.contains("CoreMark 1"))
                    .into_iter()
                    .map(|(_, l)| awk_field(&fields(l), 4));
                (subst_lines(threads), subst_lines(score))
            }
            None => (String::new(), String::new()),
        };
        let raw = format!("score\\t{threads}\\t_\\t{iteration}\\t{score}\\t_");
        sh.push(&mut out, echo_line(&raw, name)?)?;
    }
    Ok(out)
}

/// easywave: `benchlog-<threads>-<iteration>`; one `exectime <threads> _ <iteration>
/// <msec>` row per log, the sixth field of the last `elapsed:` line (`Model time = ...,
/// elapsed: N msec`), empty without one; sorted numerically by threads only (`sort -k2,2n`,
/// ties by the whole row).
pub fn easywave(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let threads: Vec<String> = sh
        .ls("benchlog-*")?
        .iter()
        .map(|l| cut(l, '-', 2).to_owned())
        .collect();
    let mut out = Vec::new();
    for thread in sh.words(&sort_u(threads))? {
        let iterations: Vec<String> = sh
            .ls(&format!("benchlog-{thread}-*"))?
            .iter()
            .map(|l| cut(l, '-', 3).to_owned())
            .collect();
        for iteration in sh.words(&sort_n(iterations))? {
            let path = format!("benchlog-{thread}-{iteration}");
            let file = sh.one_file(&path, "grep")?;
            let name = file.as_ref().map_or(path.as_str(), |(n, _)| n.as_str());
            let value = match &file {
                Some((name, text)) => {
                    let hits = grep(text, raw_binary(name, text), |l| l.contains("elapsed:"));
                    hits.last()
                        .map(|&(_, l)| awk_field(&fields(l), 6).to_owned())
                        .unwrap_or_default()
                }
                None => String::new(),
            };
            let raw = format!("exectime\\t{thread}\\t_\\t{iteration}\\t{value}\\t_");
            sh.push(&mut out, echo_line(&raw, name)?)?;
        }
    }
    Ok(sort_lines(out, &[(2, true)]))
}

/// ebizzy: `ebizzy-<threads>-<iteration>.log`, only its first line (`N records/s a b ...`).
/// For every thread count and every iteration found in any file name (the full grid, a
/// missing log giving an empty total): `total_rsec <threads> _ <iteration> <N>` and one
/// `thread_rsec <threads> _ <k> <value>` per word after the last ` records/s `, k counting
/// on across a thread count's iterations; sorted by metric, threads, then interval.
pub fn ebizzy(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let listing = sh.ls("ebizzy-*.log")?;
    let column = |n: usize| -> Vec<String> {
        listing
            .iter()
            .map(|l| cut(strip_log(l), '-', n).to_owned())
            .collect()
    };
    let (workers, iterations) = (column(2), column(3));
    let workers = sh.words(&sort_un(workers))?;
    let iterations = if workers.is_empty() {
        Vec::new()
    } else {
        sh.words(&sort_un(iterations))?
    };
    sh.budget
        .charge((workers.len() as u64).saturating_mul(iterations.len() as u64))?;
    let mut out = Vec::new();
    for worker in &workers {
        let mut sample = 0u64;
        for iteration in &iterations {
            let path = format!("ebizzy-{worker}-{iteration}.log");
            let file = sh.one_file(&path, "head")?;
            let name = file.as_ref().map_or(path.as_str(), |(n, _)| n.as_str());
            // `head -1`: the first line (the file's own name ends in `.log`, never compressed).
            let first = file
                .as_ref()
                .and_then(|(_, text)| text.split('\n').next())
                .unwrap_or("");
            let line = first.replace('\0', "");
            let echoed = echo(&sh.words(&[line])?);
            let echoed = String::from_utf8(echoed).map_err(|_| {
                Problem::new("echo -e in parse-results would print bytes that are not UTF-8")
                    .in_file(name)
                    .at_line(1)
            })?;
            let total = subst_lines(records(&echoed).map(|r| awk_field(&fields(r), 1)));
            let raw = format!("total_rsec\\t{worker}\\t_\\t{iteration}\\t{total}\\t_");
            sh.push(&mut out, echo_line(&raw, name)?)?;
            let per_thread = match first.rfind(" records/s ") {
                Some(at) => first.get(at + " records/s ".len()..).unwrap_or(""),
                None => first,
            };
            for value in sh.words(&[per_thread.replace('\0', "")])? {
                sample += 1;
                let raw = format!("thread_rsec\\t{worker}\\t_\\t{sample}\\t{value}\\t_");
                sh.push(&mut out, echo_line(&raw, name)?)?;
            }
        }
    }
    Ok(sort_lines(out, &[(1, false), (2, true), (4, true)]))
}

/// fsmark: `fsmark-<threads>.log.gz`; every line after the first `App Overhead` header
/// (other header lines dropped) gives `files_sec <threads> _ <k> <files/sec ($4)>`, k
/// counting that log's rows; sorted by metric, then k only (`sort -k1,1 -k4,4n`), so thread
/// counts interleave in text order (1, 16, 4).
pub fn fsmark(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let listing: Vec<String> = sh
        .ls("fsmark-*.log.gz")?
        .iter()
        .map(|l| cut(strip_log_any_gz(l), '-', 2).to_owned())
        .collect();
    let mut out = Vec::new();
    for thread in sh.words(&sort_n(listing))? {
        let path = format!("fsmark-{thread}.log.gz");
        let Some((name, text)) = sh.one_file(&path, "zgrep")? else {
            continue;
        };
        let hits = grep(text, text.contains('\0'), |_| true);
        let Some(start) = hits.iter().position(|(_, l)| l.contains("App Overhead")) else {
            continue;
        };
        let fields: Vec<String> = hits
            .iter()
            .skip(start + 1)
            .filter(|(_, l)| !l.contains("App Overhead"))
            .map(|(_, l)| awk_field(&fields(l), 4).to_owned())
            .collect();
        for (k, value) in sh.words(&fields)?.iter().enumerate() {
            let raw = format!("files_sec\\t{thread}\\t_\\t{}\\t{value}\\t_", k + 1);
            sh.push(&mut out, echo_line(&raw, &name)?)?;
        }
    }
    Ok(sort_lines(out, &[(1, false), (4, true)]))
}

/// libmicro: every `<workload>.log` in `ls` order gives `mean95 <workload> _ 1 <usecs>`,
/// the last field of its `mean of 95%` line (empty without one); no sort.
pub fn libmicro(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let listing: Vec<String> = sh
        .ls("*.log")?
        .iter()
        .map(|l| strip_log(l).to_owned())
        .collect();
    let mut out = Vec::new();
    for workload in sh.words(&listing)? {
        let path = format!("{workload}.log");
        let file = sh.one_file(&path, "grep")?;
        let name = file.as_ref().map_or(path.as_str(), |(n, _)| n.as_str());
        let value = match &file {
            Some((name, text)) => subst_lines(
                grep(text, raw_binary(name, text), |l| l.contains("mean of 95%"))
                    .into_iter()
                    .map(|(_, l)| last_field(l)),
            ),
            None => String::new(),
        };
        let raw = format!("mean95\\t{workload}\\t_\\t1\\t{value}\\t_");
        sh.push(&mut out, echo_line(&raw, name)?)?;
    }
    Ok(out)
}

/// pedsort (`line-parse-results 'jobs/hour/core' jobs/core "(NF-1)"`): each
/// `benchlog-<threads>-_-<iteration>` line mentioning `jobs/hour/core` (pedsort prints
/// the first thread's and the average throughput) gives `jobs/core <threads> _ <k>
/// <value>`; see [`line_parse`] for naming and order.
pub fn pedsort(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(
        dir,
        |l| l.contains("jobs/hour/core"),
        "jobs/core",
        Pos::NfMinus1,
    )
}

/// perfpipe (`line-parse-results 'usecs/op' usecs-op 1`): `benchlog-_-_-<iteration>`
/// (`perf bench sched pipe`), the first field of each `usecs/op` line, as
/// `usecs-op _ _ <k> <usecs>`; see [`line_parse`].
pub fn perfpipe(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(dir, |l| l.contains("usecs/op"), "usecs-op", Pos::Field(1))
}

/// perfsyscall (`line-parse-results 'usecs/op' usecs/syscall 1`): `benchlog-_-_-<iteration>`
/// (`perf bench syscall basic`), as `usecs/syscall _ _ <k> <usecs>`; see [`line_parse`].
pub fn perfsyscall(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(
        dir,
        |l| l.contains("usecs/op"),
        "usecs/syscall",
        Pos::Field(1),
    )
}

/// sembench (`line-parse-results '^run time' burns/sec 5`): `benchlog-<workload>-<threads>-1`,
/// the fifth field of the line starting `run time` (`... N worker burns per second`), as
/// `burns/sec <workload> <threads> <k> <burns>`; see [`line_parse`].
pub fn sembench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(
        dir,
        |l| l.starts_with("run time"),
        "burns/sec",
        Pos::Field(5),
    )
}

// ---------------------------------------------------------------------------------------
// The scripts' own text edits.

/// A command substitution of lines printed one per line ([`backtick`]).
fn subst_lines<'t>(lines: impl Iterator<Item = &'t str>) -> String {
    backtick(lines.collect::<Vec<_>>().join("\n").as_bytes())
}

/// `sed -e 's/\.log$//'`.
fn strip_log(line: &str) -> &str {
    line.strip_suffix(".log").unwrap_or(line)
}

/// `sed -e 's/\.log.gz$//'` (the unescaped dot matches any one character).
fn strip_log_any_gz(line: &str) -> &str {
    let Some(rest) = line.strip_suffix("gz") else {
        return line;
    };
    let Some((at, _)) = rest.char_indices().next_back() else {
        return line;
    };
    rest.get(..at)
        .and_then(|r| r.strip_suffix(".log"))
        .unwrap_or(line)
}

/// A file-name part pasted unquoted into an awk program (`...\t"$ITERATION"\t...`), as
/// gawk prints it when it is one numeric constant: decimal (`1.50` is 1.5, `1e3` 1000),
/// octal with a leading 0 and only digits 0-7 (`010` is 8), hex (`0x1f` is 31). Anything
/// else is an awk expression this port does not evaluate: a [`Problem`] at `file`/`line`.
fn awk_constant(word: &str, file: &str, line: usize) -> Result<Field, Problem> {
    let refuse = || {
        Problem::new(format!(
            "parse-results pastes `{word}` (from the file name) into an awk program as an \
             expression; only a plain number is reproduced"
        ))
        .in_file(file)
        .at_line(line)
    };
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    let value = if let Some(hex) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        if !digits(hex, 16) {
            return Err(refuse());
        }
        hex.chars()
            .filter_map(|c| c.to_digit(16))
            .fold(0.0, |v, d| v * 16.0 + f64::from(d))
    } else if word.len() > 1 && word.starts_with('0') && digits(word, 8) {
        word.chars()
            .filter_map(|c| c.to_digit(8))
            .fold(0.0, |v, d| v * 8.0 + f64::from(d))
    } else {
        let (mantissa, exponent) = match word.split_once(['e', 'E']) {
            Some((m, e)) => (m, Some(e)),
            None => (word, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let mantissa_ok = (int.is_empty() || digits(int, 10))
            && (frac.is_empty() || digits(frac, 10))
            && !(int.is_empty() && frac.is_empty());
        let exponent_ok =
            exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e), 10));
        if !mantissa_ok || !exponent_ok {
            return Err(refuse());
        }
        word.parse::<f64>().map_err(|_| refuse())?
    };
    Ok(awk_num(value))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_case, check_dir};
    use super::*;

    #[test]
    fn aim9_matches_parse_results() {
        check_dir("aim9", "aim9", aim9);
    }

    #[test]
    fn apachebench_matches_parse_results() {
        check_dir("apachebench", "apachebench", apachebench);
    }

    #[test]
    fn blogbench_matches_parse_results() {
        check_dir("blogbench", "blogbench", blogbench);
    }

    #[test]
    fn coremark_matches_parse_results() {
        check_dir("coremark", "coremark", coremark);
    }

    #[test]
    fn easywave_matches_parse_results() {
        check_dir("easywave", "easywave", easywave);
    }

    #[test]
    fn ebizzy_matches_parse_results() {
        check_case("ebizzy", ebizzy);
    }

    #[test]
    fn fsmark_matches_parse_results() {
        check_case("fsmark-threads", fsmark);
    }

    #[test]
    fn libmicro_matches_parse_results() {
        check_dir("libmicro", "libmicro-memory", libmicro);
    }

    #[test]
    fn pedsort_matches_parse_results() {
        check_dir("pedsort", "pedsort", pedsort);
    }

    #[test]
    fn perfpipe_matches_parse_results() {
        check_dir("perfpipe", "perfpipe", perfpipe);
    }

    #[test]
    fn perfsyscall_matches_parse_results() {
        check_case("perfsyscall", perfsyscall);
    }

    #[test]
    fn sembench_matches_parse_results() {
        check_dir("sembench", "sembench-futex", sembench);
    }
}
