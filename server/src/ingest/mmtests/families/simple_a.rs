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

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;

use super::prelude::*;

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
            let f = awk_fields(hit);
            let line = Line::new(nth(&f, 2), "_", "_", interval.as_str(), nth(&f, 6));
            sh.push(&mut out, line)?;
        }
    }
    Ok(sort_output(out, &[(1, false), (4, true)]))
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
        .map(|l| cut(strip_log(l), 2).to_owned())
        .collect();
    let mut out = Vec::new();
    for client in sh.words(&sort_un(clients))? {
        let iterations: Vec<String> = sh
            .ls(&format!("apachebench-{client}-*.log"))?
            .iter()
            .map(|l| cut(strip_log(l), 3).to_owned())
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
            let f = awk_fields(hit);
            let line = Line::new("mean-request", client.as_str(), "_", interval, nth(&f, 4));
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
        .map(|l| cut(strip_log(l), 2).to_owned())
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
            let f = awk_fields(&hit);
            let value = f.last().copied().unwrap_or(hit.as_str());
            let line = Line::new(nth(&f, 4), "_", "_", interval.as_str(), value);
            sh.push(&mut out, line)?;
        }
    }
    Ok(sort_output(out, &[(1, false), (4, true)]))
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
        .map(|l| cut(strip_log_any_gz(l), 2).to_owned())
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
                    .map(|(_, l)| awk_last(l));
                let score = grep(text, binary, |l| l.contains("CoreMark 1"))
                    .into_iter()
                    .map(|(_, l)| nth(&awk_fields(l), 4));
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
        .map(|l| cut(l, 2).to_owned())
        .collect();
    let mut out = Vec::new();
    for thread in sh.words(&sort_u(threads))? {
        let iterations: Vec<String> = sh
            .ls(&format!("benchlog-{thread}-*"))?
            .iter()
            .map(|l| cut(l, 3).to_owned())
            .collect();
        for iteration in sh.words(&sort_n(iterations))? {
            let path = format!("benchlog-{thread}-{iteration}");
            let file = sh.one_file(&path, "grep")?;
            let name = file.as_ref().map_or(path.as_str(), |(n, _)| n.as_str());
            let value = match &file {
                Some((name, text)) => {
                    let hits = grep(text, raw_binary(name, text), |l| l.contains("elapsed:"));
                    hits.last()
                        .map(|&(_, l)| nth(&awk_fields(l), 6).to_owned())
                        .unwrap_or_default()
                }
                None => String::new(),
            };
            let raw = format!("exectime\\t{thread}\\t_\\t{iteration}\\t{value}\\t_");
            sh.push(&mut out, echo_line(&raw, name)?)?;
        }
    }
    Ok(sort_output(out, &[(2, true)]))
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
            .map(|l| cut(strip_log(l), n).to_owned())
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
            let echoed = echo_builtin(&sh.words(&[line])?);
            let echoed = String::from_utf8(echoed).map_err(|_| {
                Problem::new("echo -e in parse-results would print bytes that are not UTF-8")
                    .in_file(name)
                    .at_line(1)
            })?;
            let total = subst_lines(records(&echoed).map(|r| nth(&awk_fields(r), 1)));
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
    Ok(sort_output(out, &[(1, false), (2, true), (4, true)]))
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
        .map(|l| cut(strip_log_any_gz(l), 2).to_owned())
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
            .map(|(_, l)| nth(&awk_fields(l), 4).to_owned())
            .collect();
        for (k, value) in sh.words(&fields)?.iter().enumerate() {
            let raw = format!("files_sec\\t{thread}\\t_\\t{}\\t{value}\\t_", k + 1);
            sh.push(&mut out, echo_line(&raw, &name)?)?;
        }
    }
    Ok(sort_output(out, &[(1, false), (4, true)]))
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
                    .map(|(_, l)| awk_last(l)),
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

/// Which field `line-parse-results` prints of a matching line (its awk `$POS`).
#[derive(Clone, Copy)]
enum Pos {
    Field(usize),
    /// `$(NF-1)`: the whole line when it has one field; awk dies on a line without any.
    NfMinus1,
}

/// `parsers/line-parse-results`: factor A is the second and factor B the third `-` field
/// of `benchlog-*` names (`sort -u` each); `benchlog-A-B` itself if it exists, else every
/// `benchlog-A-B-<n>` in `sort -n` order. Each value (`$POS` of a line matching the
/// pattern, word-split) is `<metric> A B <k> <value>`, k counting per (A, B). Sorted by
/// metric, A numerically (the script's switch to a text sort for non-numeric A is lost in
/// its pipeline subshell, so `-k2,2n` always), B numerically, then k.
fn line_parse(
    dir: &LogDir,
    pattern: fn(&str) -> bool,
    metric: &str,
    pos: Pos,
) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let factors_a: Vec<String> = sh
        .ls("benchlog-*")?
        .iter()
        .map(|l| cut(l, 2).to_owned())
        .collect();
    let mut out = Vec::new();
    for a in sh.words(&sort_u(factors_a))? {
        let factors_b: Vec<String> = sh
            .ls(&format!("benchlog-{a}-*"))?
            .iter()
            .map(|l| cut(l, 3).to_owned())
            .collect();
        for b in sh.words(&sort_u(factors_b))? {
            let direct = format!("benchlog-{a}-{b}");
            let test = sh.expand(&direct)?;
            let exists = match test.as_slice() {
                [only] => dir.get(only).is_some(),
                _ => false,
            };
            let logs = if exists {
                vec![direct]
            } else {
                let numbers: Vec<String> = sh
                    .ls(&format!("benchlog-{a}-{b}-*"))?
                    .iter()
                    .map(|l| cut(l, 4).to_owned())
                    .collect();
                sh.words(&sort_n(numbers))?
                    .iter()
                    .map(|n| format!("benchlog-{a}-{b}-{n}"))
                    .collect()
            };
            let mut k = 0u64;
            for log in logs {
                let (name, text, binary) = sh.cat(&log)?;
                let mut printed = Vec::new();
                for (_, hit) in grep(&text, binary, pattern) {
                    let f = awk_fields(hit);
                    let value = match pos {
                        Pos::Field(n) => nth(&f, n),
                        Pos::NfMinus1 => match f.len() {
                            0 => break,
                            1 => hit,
                            n => nth(&f, n - 1),
                        },
                    };
                    printed.push(value.to_owned());
                }
                for value in sh.words(&printed)? {
                    k += 1;
                    let raw = format!("{metric}\\t{a}\\t{b}\\t{k}\\t{value}\\t_");
                    sh.push(&mut out, echo_line(&raw, &name)?)?;
                }
            }
        }
    }
    Ok(sort_output(
        out,
        &[(1, false), (2, true), (3, true), (4, true)],
    ))
}

// ---------------------------------------------------------------------------------------
// The shell, as far as these scripts use it.

/// Work allowed beyond eight times the input's size (units: bytes read, held or compared).
const BASE_BUDGET: u64 = 64 << 20;

/// What holding one more string costs beyond its bytes (its header and allocation).
const STRING_COST: u64 = 32;

/// The work left: every file read, glob comparison and printed row is charged here, the
/// total linear in the input, so hostile names and repeats end in a [`Problem`].
struct Budget(u64);

impl Budget {
    fn charge(&mut self, units: u64) -> Result<(), Problem> {
        match self.0.checked_sub(units) {
            Some(left) => {
                self.0 = left;
                Ok(())
            }
            None => Err(Problem::new(
                "parse-results would do far more work than these logs' size warrants \
                 (pathname expansion, repeated reads or output); refused",
            )),
        }
    }
}

/// One `logs/` directory as the script's shell sees it.
struct Sh<'a> {
    dir: &'a LogDir,
    /// Members in byte order (bash sorts glob results by `strcoll`, code points in C.UTF-8).
    names: Vec<&'a str>,
    budget: Budget,
    /// Pathname expansions already done, by word.
    globs: HashMap<String, Vec<String>>,
}

impl<'a> Sh<'a> {
    fn new(dir: &'a LogDir) -> Sh<'a> {
        let names: Vec<&'a str> = dir.names().collect();
        let input: u64 = names
            .iter()
            .map(|n| (n.len() + dir.get(n).map_or(0, str::len)) as u64)
            .sum();
        Sh {
            dir,
            names,
            budget: Budget(BASE_BUDGET.saturating_add(input.saturating_mul(8))),
            globs: HashMap::new(),
        }
    }

    /// Bash's pathname expansion of an unquoted word: the members it matches, else the word.
    /// Charged for the strings it hands out and the comparisons it makes.
    fn expand(&mut self, word: &str) -> Result<Vec<String>, Problem> {
        let found = self.glob(word)?;
        let cost = found.iter().map(|f| f.len() as u64 + STRING_COST).sum();
        self.budget.charge(cost)?;
        Ok(found)
    }

    fn glob(&mut self, word: &str) -> Result<Vec<String>, Problem> {
        if !word.contains(['*', '?', '[']) {
            return Ok(vec![word.to_owned()]);
        }
        if let Some(found) = self.globs.get(word) {
            return Ok(found.clone());
        }
        let chars = word.chars().count() as u64;
        self.budget.charge(chars.saturating_mul(8))?;
        let Some(toks) = glob_pattern(word, chars.saturating_mul(8) + 64) else {
            return Err(Problem::new(format!(
                "the shell would pathname-expand `{}`, a pattern too convoluted to evaluate",
                word.chars().take(40).collect::<String>()
            )));
        };
        if toks.iter().all(|t| matches!(t, Tok::Lit(_))) {
            return Ok(vec![word.to_owned()]);
        }
        let prefix: String = toks
            .iter()
            .map_while(|t| match t {
                Tok::Lit(c) => Some(*c),
                _ => None,
            })
            .collect();
        let explicit_dot = matches!(toks.first(), Some(Tok::Lit('.')));
        let start = self.names.partition_point(|n| *n < prefix.as_str());
        let mut found = Vec::new();
        for name in self.names.iter().skip(start) {
            if !name.starts_with(&prefix) {
                break;
            }
            self.budget.charge(name.len() as u64 + 1)?;
            if name.contains('/') || (name.starts_with('.') && !explicit_dot) {
                continue;
            }
            let cs: Vec<char> = name.chars().collect();
            let mut steps = 0;
            let hit = glob_match(&toks, &cs, &mut steps);
            self.budget.charge(steps)?;
            if hit {
                found.push((*name).to_owned());
            }
        }
        if found.is_empty() {
            found.push(word.to_owned());
        }
        self.globs.insert(word.to_owned(), found.clone());
        Ok(found)
    }

    /// `ls PATTERN` (stdout only): the existing members the pattern expands to, in byte
    /// order, as the lines `ls` prints (a name with a newline is two lines).
    fn ls(&mut self, pattern: &str) -> Result<Vec<String>, Problem> {
        let mut listed: Vec<String> = self
            .expand(pattern)?
            .into_iter()
            .filter(|n| self.dir.get(n).is_some())
            .collect();
        listed.sort();
        let mut lines = Vec::new();
        for name in &listed {
            self.budget.charge(name.len() as u64 + 1)?;
            lines.extend(name.split('\n').map(str::to_owned));
        }
        Ok(lines)
    }

    /// The loop words of `for X in `...``: the text's IFS words, each pathname-expanded.
    fn words(&mut self, lines: &[String]) -> Result<Vec<String>, Problem> {
        let mut out = Vec::new();
        for line in lines {
            for word in ifs_words(line) {
                out.extend(self.expand(word)?);
            }
        }
        Ok(out)
    }

    /// The member an unquoted file argument of `cmd` names, read once (`None`: no such
    /// member; the command prints only an error). Several members (a glob in the word)
    /// would make `cmd` label its output; refused.
    fn one_file(&mut self, word: &str, cmd: &str) -> Result<Option<(String, &'a str)>, Problem> {
        let mut files = self.expand(word)?;
        if files.len() > 1 {
            return Err(Problem::new(format!(
                "parse-results' `{cmd}` would read {} members (pathname expansion of `{word}`); not reproduced",
                files.len()
            )));
        }
        let Some(name) = files.pop() else {
            return Ok(None);
        };
        let Some(text) = self.dir.get(&name) else {
            return Ok(None);
        };
        self.budget.charge(text.len() as u64 + 1)?;
        Ok(Some((name, text)))
    }

    /// `cat WORD`: the members it expands to, concatenated, the first one's name, and
    /// whether grep would take the stream for binary.
    fn cat(&mut self, word: &str) -> Result<(String, Cow<'a, str>, bool), Problem> {
        let files = self.expand(word)?;
        let mut name = word.to_owned();
        let mut text: Cow<'a, str> = Cow::Borrowed("");
        let mut binary = false;
        let mut first = true;
        for file in files {
            let Some(t) = self.dir.get(&file) else {
                continue;
            };
            self.budget.charge(t.len() as u64 + 1)?;
            binary |= raw_binary(&file, t);
            if first {
                text = Cow::Borrowed(t);
                name = file;
                first = false;
            } else {
                text.to_mut().push_str(t);
            }
        }
        Ok((name, text, binary))
    }

    /// Appends a printed row, charging its size.
    fn push(&mut self, out: &mut Vec<Line>, line: Line) -> Result<(), Problem> {
        let size = [
            &line.metric,
            &line.a,
            &line.b,
            &line.interval,
            &line.value,
            &line.extra,
        ]
        .iter()
        .map(|f| f.len() as u64 + STRING_COST)
        .sum();
        self.budget.charge(size)?;
        out.push(line);
        Ok(())
    }
}

/// Whether GNU grep would call the raw bytes of this member binary and print nothing: a
/// NUL byte, or a `.gz`/`.xz` member read without decompression (their headers hold one).
fn raw_binary(name: &str, text: &str) -> bool {
    name.ends_with(".gz") || name.ends_with(".xz") || text.contains('\0')
}

/// GNU grep over a stream: the matching lines with their 1-based numbers; nothing for a
/// binary stream (grep 3.8 reports a binary match on stderr only). Two deviations: grep
/// reads large files in buffers and prints the matches before the buffer holding the
/// first NUL (tens of KiB in), this port none; lines that were invalid UTF-8 reach us
/// repaired (U+FFFD), where grep would suppress them.
fn grep(text: &str, binary: bool, pattern: impl Fn(&str) -> bool) -> Vec<(usize, &str)> {
    if binary {
        return Vec::new();
    }
    records(text)
        .enumerate()
        .filter(|(_, l)| pattern(l))
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// The lines of a stream as awk, grep and sed read them: split at `\n`, a final newline
/// ending the last line rather than starting an empty one; `\r` stays in the line.
fn records(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .take(if text.is_empty() { 0 } else { usize::MAX })
}

/// gawk's default field splitting: runs of space, tab and newline (not `\r` or `\f`).
fn awk_fields(record: &str) -> Vec<&str> {
    record
        .split([' ', '\t', '\n'])
        .filter(|f| !f.is_empty())
        .collect()
}

/// awk's `$n` (1-based) of split fields: empty past the last one.
fn nth<'t>(fields: &[&'t str], n: usize) -> &'t str {
    n.checked_sub(1)
        .and_then(|i| fields.get(i))
        .copied()
        .unwrap_or("")
}

/// awk's `$NF`: the last field, or the (blank) record itself when it has none.
fn awk_last(record: &str) -> &str {
    awk_fields(record).last().copied().unwrap_or(record)
}

/// Bash word splitting with the default IFS (space, tab, newline).
fn ifs_words(text: &str) -> impl Iterator<Item = &str> {
    text.split([' ', '\t', '\n']).filter(|w| !w.is_empty())
}

/// A command substitution of lines printed one per line: joined, NUL bytes dropped (bash
/// drops them), trailing newlines removed.
fn subst_lines<'t>(lines: impl Iterator<Item = &'t str>) -> String {
    let mut s = lines.collect::<Vec<_>>().join("\n");
    s.retain(|c| c != '\0');
    let kept = s.trim_end_matches('\n').len();
    s.truncate(kept);
    s
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

/// `cut -d- -fN`: a line without a `-` is printed whole, a missing field is empty.
fn cut(line: &str, field: usize) -> &str {
    if !line.contains('-') {
        return line;
    }
    line.split('-').nth(field.saturating_sub(1)).unwrap_or("")
}

/// `sort -n`: by leading number, ties by the whole line in byte order.
fn sort_n(mut lines: Vec<String>) -> Vec<String> {
    lines.sort_by(|a, b| num_cmp(a, b).then_with(|| a.as_bytes().cmp(b.as_bytes())));
    lines
}

/// `sort -u -n`: by leading number, keeping the first line (in input order) of each run of
/// numerically equal ones (`1`, `01` and `x`=0 vs `0` are duplicates).
fn sort_un(mut lines: Vec<String>) -> Vec<String> {
    lines.sort_by(|a, b| num_cmp(a, b));
    lines.dedup_by(|b, a| num_cmp(a, b) == Ordering::Equal);
    lines
}

/// `sort -u`: byte order, identical lines once.
fn sort_u(mut lines: Vec<String>) -> Vec<String> {
    lines.sort();
    lines.dedup();
    lines
}

/// GNU `sort -n`'s comparison: leading blanks, an optional `-`, digits, one `.` and
/// digits, compared exactly; anything else counts as 0 (`-0` too).
fn num_cmp(a: &str, b: &str) -> Ordering {
    fn parse(s: &str) -> (bool, &str, &str) {
        let t = s.trim_start_matches([' ', '\t']);
        let (neg, t) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t),
        };
        let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (int, rest) = t.split_at(end);
        let frac = rest.strip_prefix('.').map_or("", |r| {
            let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            r.get(..end).unwrap_or("").trim_end_matches('0')
        });
        (neg, int.trim_start_matches('0'), frac)
    }
    let sign = |(neg, int, frac): (bool, &str, &str)| -> i8 {
        if int.is_empty() && frac.is_empty() {
            0
        } else if neg {
            -1
        } else {
            1
        }
    };
    let (x, y) = (parse(a), parse(b));
    let (sx, sy) = (sign(x), sign(y));
    if sx != sy || sx == 0 {
        return sx.cmp(&sy);
    }
    let magnitude =
        x.1.len()
            .cmp(&y.1.len())
            .then_with(|| x.1.cmp(y.1))
            .then_with(|| x.2.cmp(y.2));
    if sx < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// Field `n` (1-based) of a row as `sort -kN,N` without `-t` sees it: the blanks before
/// it included, fields ending where blanks (space, tab) follow non-blanks.
fn blank_field(line: &str, n: usize) -> &str {
    let b = line.as_bytes();
    let blank = |i: usize| matches!(b.get(i), Some(b' ' | b'\t'));
    let skip_field = |mut i: usize| {
        while i < b.len() && blank(i) {
            i += 1;
        }
        while i < b.len() && !blank(i) {
            i += 1;
        }
        i
    };
    let mut start = 0;
    for _ in 1..n {
        start = skip_field(start);
    }
    let end = skip_field(start);
    line.get(start..end).unwrap_or("")
}

/// The rows in the order of the script's final `sort -kN,N[n] ...` (blank-separated
/// fields, C.UTF-8 collation = byte order), ties broken by the whole row.
fn sort_output(lines: Vec<Line>, keys: &[(usize, bool)]) -> Vec<Line> {
    let mut keyed: Vec<(String, Line)> = lines.into_iter().map(|l| (l.tsv(), l)).collect();
    keyed.sort_by(|(a, _), (b, _)| {
        for &(k, numeric) in keys {
            let (x, y) = (blank_field(a, k), blank_field(b, k));
            let o = if numeric {
                num_cmp(x, y)
            } else {
                x.as_bytes().cmp(y.as_bytes())
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        a.as_bytes().cmp(b.as_bytes())
    });
    keyed.into_iter().map(|(_, l)| l).collect()
}

/// A file-name part pasted unquoted into an awk program (`...\t"$ITERATION"\t...`), as
/// gawk prints it when it is one numeric constant: decimal (`1.50` is 1.5, `1e3` 1000),
/// octal with a leading 0 and only digits 0-7 (`010` is 8), hex (`0x1f` is 31). Anything
/// else is an awk expression this port does not evaluate: a [`Problem`] at `file`/`line`.
fn awk_constant(word: &str, file: &str, line: usize) -> Result<String, Problem> {
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
    Ok(if value.is_infinite() {
        "+inf".to_owned()
    } else if value == value.trunc() {
        format!("{value:.0}")
    } else {
        format_g(value, 6)
    })
}

/// Bash's `echo` builtin (no `xpg_echo`) over already expanded words: leading `-n`/`-e`/`-E`
/// option words, the rest joined by spaces, escapes only with `-e`.
fn echo_builtin(args: &[String]) -> Vec<u8> {
    let (mut newline, mut escapes) = (true, false);
    let mut rest = args;
    while let Some((arg, tail)) = rest.split_first() {
        let Some(opts) = arg.strip_prefix('-') else {
            break;
        };
        if opts.is_empty() || !opts.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in opts.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        rest = tail;
    }
    let joined = rest.join(" ");
    let (mut out, stopped) = if escapes {
        echo_escapes(&joined)
    } else {
        (joined.into_bytes(), false)
    };
    if newline && !stopped {
        out.push(b'\n');
    }
    out
}

/// `echo -e`'s escapes as bash 5.2 expands them; `true` when `\c` cut the output short.
fn echo_escapes(s: &str) -> (Vec<u8>, bool) {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let hex = |i: &mut usize, max: usize| -> Option<u32> {
        let mut v: Option<u32> = None;
        for _ in 0..max {
            let Some(d) = b.get(*i).and_then(|&c| char::from(c).to_digit(16)) else {
                break;
            };
            v = Some(v.unwrap_or(0).wrapping_mul(16).wrapping_add(d));
            *i += 1;
        }
        v
    };
    while let Some(&c) = b.get(i) {
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = b.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        match e {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'c' => return (out, true),
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' => out.push(b'\\'),
            b'0' => {
                let mut v = 0u32;
                for _ in 0..3 {
                    match b.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            b'x' => match hex(&mut i, 2) {
                Some(v) => out.push((v & 0xff) as u8),
                None => out.extend_from_slice(b"\\x"),
            },
            b'u' | b'U' => match hex(&mut i, if e == b'u' { 4 } else { 8 }) {
                Some(v) => {
                    let ch = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
                    out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                }
                None => out.extend_from_slice(&[b'\\', e]),
            },
            _ => out.extend_from_slice(&[b'\\', e]),
        }
    }
    (out, false)
}

/// The row `echo -e "<metric>\t...\t_"` prints for `raw` (the script's format with its
/// `\t` separators, values pasted in). A value whose escapes would add or remove a field,
/// start a new line or cut the output (`\c`) gives a [`Problem`] in `file`.
fn echo_line(raw: &str, file: &str) -> Result<Line, Problem> {
    let refuse = |why: &str| {
        Problem::new(format!("parse-results' echo -e {why}; not reproduced")).in_file(file)
    };
    let (bytes, stopped) = echo_escapes(raw);
    if stopped {
        return Err(refuse("would stop at a `\\c` in a value"));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| refuse("would print bytes that are not UTF-8"))?;
    if text.contains('\n') {
        return Err(refuse("would print a value spanning several lines"));
    }
    let fields: Vec<&str> = text.split('\t').collect();
    let [metric, a, b, interval, value, extra] = fields.as_slice() else {
        return Err(refuse(
            "would print a row whose values hold tabs or backslashes",
        ));
    };
    Ok(Line::new(*metric, *a, *b, *interval, *value).extra(*extra))
}

// ---------------------------------------------------------------------------------------
// Bash patterns (`*`, `?`, `[...]`, `\x`) for pathname expansion.

/// One element of a parsed pattern.
enum Tok {
    Lit(char),
    Any,
    Star,
    Class { negated: bool, items: Vec<Item> },
}

/// One member of a bracket expression.
enum Item {
    Char(char),
    Range(char, char),
    Named(fn(char) -> bool),
}

impl Tok {
    fn matches(&self, c: char) -> bool {
        match self {
            Tok::Lit(l) => *l == c,
            Tok::Any => true,
            Tok::Star => false,
            Tok::Class { negated, items } => {
                let hit = items.iter().any(|item| match item {
                    Item::Char(x) => *x == c,
                    Item::Range(lo, hi) => (*lo..=*hi).contains(&c),
                    Item::Named(f) => f(c),
                });
                hit != *negated
            }
        }
    }
}

/// Parses a word as a bash pattern; `None` when parsing would take more than `limit` steps
/// (unterminated brackets rescanned over and over).
fn glob_pattern(word: &str, limit: u64) -> Option<Vec<Tok>> {
    let cs: Vec<char> = word.chars().collect();
    let mut steps = 0u64;
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        i += 1;
        match c {
            '\\' => match cs.get(i) {
                Some(&n) => {
                    toks.push(Tok::Lit(n));
                    i += 1;
                }
                None => toks.push(Tok::Lit('\\')),
            },
            '*' => {
                if !matches!(toks.last(), Some(Tok::Star)) {
                    toks.push(Tok::Star);
                }
            }
            '?' => toks.push(Tok::Any),
            '[' => match bracket(&cs, i, &mut steps) {
                Some((tok, next)) => {
                    toks.push(tok);
                    i = next;
                }
                None => toks.push(Tok::Lit('[')),
            },
            _ => toks.push(Tok::Lit(c)),
        }
        if steps > limit {
            return None;
        }
    }
    Some(toks)
}

/// A bracket expression starting after its `[` at `i`: the token and the index after its
/// `]`, or `None` when it is not closed (the `[` is then literal).
fn bracket(cs: &[char], mut i: usize, steps: &mut u64) -> Option<(Tok, usize)> {
    let negated = matches!(cs.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        *steps += 1;
        let c = *cs.get(i)?;
        if c == ']' && !first {
            return Some((Tok::Class { negated, items }, i + 1));
        }
        first = false;
        if c == '[' {
            if let Some(&kind @ (':' | '=' | '.')) = cs.get(i + 1) {
                let close = (i + 2..(i + 20).min(cs.len()))
                    .find(|&j| cs.get(j) == Some(&kind) && cs.get(j + 1) == Some(&']'));
                if let Some(end) = close {
                    let name: String = cs.get(i + 2..end).unwrap_or(&[]).iter().collect();
                    items.push(match kind {
                        ':' => Item::Named(char_class(&name)),
                        _ => {
                            let mut n = name.chars();
                            match (n.next(), n.next()) {
                                (Some(ch), None) => Item::Char(ch),
                                _ => Item::Named(|_| false),
                            }
                        }
                    });
                    i = end + 2;
                    continue;
                }
            }
        }
        let lo = if c == '\\' {
            i += 1;
            *cs.get(i)?
        } else {
            c
        };
        i += 1;
        if cs.get(i) == Some(&'-') && cs.get(i + 1).is_some_and(|&n| n != ']') {
            let mut j = i + 1;
            if cs.get(j) == Some(&'\\') {
                j += 1;
            }
            let hi = *cs.get(j)?;
            items.push(Item::Range(lo, hi));
            i = j + 1;
        } else {
            items.push(Item::Char(lo));
        }
    }
}

/// A POSIX character class by name (C.UTF-8); an unknown name matches nothing.
fn char_class(name: &str) -> fn(char) -> bool {
    match name {
        "alpha" => |c| c.is_alphabetic(),
        "digit" => |c| c.is_ascii_digit(),
        "alnum" => |c| c.is_alphanumeric(),
        "upper" => |c| c.is_uppercase(),
        "lower" => |c| c.is_lowercase(),
        "space" => |c| c.is_whitespace(),
        "blank" => |c| c == ' ' || c == '\t',
        "punct" => |c| c.is_ascii_punctuation(),
        "xdigit" => |c| c.is_ascii_hexdigit(),
        "cntrl" => |c| c.is_control(),
        "print" => |c| !c.is_control(),
        "graph" => |c| !c.is_control() && !c.is_whitespace(),
        "word" => |c| c.is_alphanumeric() || c == '_',
        _ => |_| false,
    }
}

/// Whether the whole name matches the pattern (`*` backtracking to its last position),
/// counting the steps taken into `steps`.
fn glob_match(toks: &[Tok], name: &[char], steps: &mut u64) -> bool {
    let (mut t, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        *steps += 1;
        match toks.get(t) {
            Some(Tok::Star) => {
                star = Some((t + 1, n));
                t += 1;
                continue;
            }
            Some(tok) if name.get(n).is_some_and(|&c| tok.matches(c)) => {
                t += 1;
                n += 1;
                continue;
            }
            None if n == name.len() => return true,
            _ => {}
        }
        match star {
            Some((st, sn)) if sn < name.len() => {
                star = Some((st, sn + 1));
                t = st;
                n = sn + 1;
            }
            _ => return false,
        }
    }
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
