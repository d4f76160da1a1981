//! Ports of `parse-results` for sqlite, sysbenchcpu, sysbenchmutex, xsbench and wis (all
//! through mmtests' shared `parsers/line-parse-results`), stockfish (GNU time reports read
//! by `bin/extract-time`), unixbenchd, stutterp, perffutexwake, stream and io_uring.
//!
//! The scripts are bash loops over `ls <glob> | cut`; what they do with odd directories is
//! reproduced: names are split into lines and then into words (duplicates kept, so a
//! doubled word processes its files twice), `sort` orders as GNU sort under `LC_ALL=C.UTF-8`
//! (numeric keys, whole line as last resort), `grep` prints nothing for a member holding a
//! NUL byte (binary), and a `.gz`/`.xz` member read with `cat` or `grep` (not `zcat`) gives
//! nothing, as its compressed bytes would. Not reproduced: glob characters inside words are
//! taken literally; text that would reach `echo -e`, `awk -v` or `read` with a backslash
//! (they interpret escapes) is a [`Problem`], as is anything past [`MAX_LINES`] lines.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use super::prelude::*;

/// The most lines one directory may produce; a count in a log that expands beyond it (a
/// hostile `stutterp` sample count, say) is a [`Problem`] rather than an allocation.
pub const MAX_LINES: usize = 1 << 19;

/// sqlite: `line-parse-results '^execute' txn/sec 5` over `benchlog-_-_-<iteration>` (the
/// `execute` lines of `sqlite-txnpersec.pl`, field 5 the transactions per second). The
/// operation is `txn/sec`; the interval counts samples across all iterations.
pub fn sqlite(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(dir, |l| l.starts_with("execute"), "txn/sec", Pick::Field(5))
}

/// sysbenchcpu: `line-parse-results 'events per second' events/sec NF` over
/// `benchlog-<threads>-_-<iteration>`: operations `events/sec-<threads>`, the last field of
/// sysbench's `events per second:` line.
pub fn sysbenchcpu(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    line_parse(
        dir,
        |l| l.contains("events per second"),
        "events/sec",
        Pick::Last,
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
        Pick::Field(3),
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
        Pick::Field(2),
    )?;
    Ok(sed(lines, |t| t.replace(',', "")))
}

/// wis: `line-parse-results 'total:' ops 3 | sed -e 's/total://'` over
/// `benchlog-<workload>-<threads>`: operations `ops-<workload>-<threads>`, one sample per
/// will-it-scale `total:` line, the first `total:` of each printed line removed. The sort
/// is numeric on the (textual) workload, so workloads interleave by thread count.
pub fn wis(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let lines = line_parse(dir, |l| l.contains("total:"), "ops", Pick::Field(3))?;
    Ok(sed(lines, |t| t.replacen("total:", "", 1)))
}

/// stockfish: for each `<n>` of the `time-<n>-1` files, every `time-<n>-<iteration>` read
/// by `extract-time`: operations `User-<n>`, `System-<n>`, `Elapsed-<n>` (seconds), the
/// iteration as interval, sorted by metric and then numerically by `<n>`.
pub fn stockfish(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let names: Vec<&str> = dir.names().collect();
    let ones: Vec<&str> = dir.glob("time-", "-1").collect();
    let mut out = Vec::new();
    for (workers, times) in tally(split_words(&ls_awk_field(&ones, '-', 2))) {
        let prefix = format!("time-{workers}-");
        let listed = sort_numeric(ls_cut(with_prefix(&names, &prefix), '-', 3));
        let mut reports: HashMap<&str, Vec<String>> = HashMap::new();
        let mut group = Vec::new();
        for iteration in split_words(&listed) {
            let member = format!("{prefix}{iteration}");
            let words = reports
                .entry(iteration)
                .or_insert_with(|| extract_time_words(cat(dir, &member)));
            // `echo $ENTRY | cut -d' ' -f<k>`: a line without a blank is its own field 1..3.
            let (user, system, elapsed) = match words.as_slice() {
                [] => ("", "", ""),
                [only] => (only.as_str(), only.as_str(), only.as_str()),
                [u, s] => (u.as_str(), s.as_str(), ""),
                [u, s, e, ..] => (u.as_str(), s.as_str(), e.as_str()),
            };
            for text in [workers, iteration, user, system, elapsed] {
                plain_echo(text).map_err(|p| p.in_file(&member))?;
            }
            group.push(Line::new("User", workers, "_", iteration, user));
            group.push(Line::new("System", workers, "_", iteration, system));
            group.push(Line::new("Elapsed", workers, "_", iteration, elapsed));
        }
        push_times(&mut out, group, times)?;
    }
    Ok(shell_sort(out, &[(1, false), (2, true)]))
}

/// unixbenchd: the pgms command named in `commands.log` (its basename) is the operation;
/// each word of field 2 (`|`-separated) of the `COUNT` lines of `unixbenchd.log` is a
/// sample. The interval is always 0: the script increments a misspelt `INTERATION`.
/// Several `pgms` commands would print broken lines: a [`Problem`].
pub fn unixbenchd(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    // COMMAND=`grep pgms commands.log | awk '{print $1}' | sed -e 's/.*\///'`
    let commands = cat(dir, "commands.log");
    let picked: Vec<&str> = grep(commands, |l| l.contains("pgms"))
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
    for (no, line) in grep(cat(dir, "unixbenchd.log"), |l| l.contains("COUNT")) {
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
    let logs: Vec<&str> = dir.glob("mmap-latency-", ".log.gz").collect();
    let mut factors = Vec::new();
    for f in ls_awk_field(&logs, '-', 3) {
        factors.push(sed_first_log_gz(&f));
    }
    let mut out = Vec::new();
    for (factor, times) in tally(split_words(&factors)) {
        let member = format!("mmap-latency-{factor}.log.gz");
        let group = stutterp_samples(dir.get(&member).unwrap_or(""), factor, &member)?;
        push_times(&mut out, group, times)?;
    }
    Ok(shell_sort(out, &[(1, false), (2, true), (4, true)]))
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
        let (count, latency) = read_two(line);
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
        for line in lines_of(text).filter(|l| l.contains(": Wokeup")) {
            // sub(/.*threads in/, "", $0): up to the last "threads in".
            let rest = line
                .rfind("threads in")
                .map_or(line, |at| &line[at + "threads in".len()..]);
            let first = words(rest).next().unwrap_or("");
            let value = gawk_str(gawk_number(first) * 1000.0);
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
        for line in lines_of(text) {
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
    for line in lines_of(cat(dir, "t-io_uring.log")).filter(|l| l.contains("IOPS=")) {
        let value = match iops_match(line) {
            Some((number, b'K')) => gawk_number(number),
            Some((number, b'M')) => gawk_number(number) * 1000.0,
            Some((number, _)) => gawk_number(number) * 0.0,
            None => 0.0,
        };
        let n = out.len() + 1;
        out.push(Line::new("IOops", "1", "_", n.to_string(), gawk_str(value)));
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

/// Which awk field `line-parse-results` prints: `$N` or `$NF`.
#[derive(Clone, Copy)]
enum Pick {
    Field(usize),
    Last,
}

/// mmtests' `parsers/line-parse-results`: for each factor A (field 2 of the `benchlog-*`
/// names, `sort -u`) and B (field 3 of `benchlog-A-*`), the file `benchlog-A-B` if it
/// exists, else every `benchlog-A-B-<n>` (`<n>` field 4, `sort -n`); the picked field of
/// each line `matches` accepts is a sample of `metric-A-B`, the interval counting samples
/// within (A, B). Sorted `-k1,1 -k2,2n -k3,3n -k4,4n` (the script's attempt to sort A as
/// text sets a variable inside the pipeline's subshell, so A is always numeric).
fn line_parse(
    dir: &LogDir,
    matches: fn(&str) -> bool,
    metric: &str,
    pick: Pick,
) -> Result<Vec<Line>, Problem> {
    let names: Vec<&str> = dir.names().collect();
    let bench = with_prefix(&names, "benchlog-");
    let mut out = Vec::new();
    for (a, a_times) in tally(split_words(&sort_unique(ls_cut(bench, '-', 2)))) {
        let a_prefix = format!("benchlog-{a}-");
        let a_names = with_prefix(&names, &a_prefix);
        for (b, b_times) in tally(split_words(&sort_unique(ls_cut(a_names, '-', 3)))) {
            let exact = format!("{a_prefix}{b}");
            let mut values: Vec<&str> = Vec::new();
            if dir.get(&exact).is_some() {
                values = picked_values(cat(dir, &exact), matches, pick, &exact)?;
            } else {
                let b_prefix = format!("{exact}-");
                let listed = sort_numeric(ls_cut(with_prefix(&names, &b_prefix), '-', 4));
                let mut seen: HashMap<&str, Vec<&str>> = HashMap::new();
                for number in split_words(&listed) {
                    let member = format!("{b_prefix}{number}");
                    if !seen.contains_key(number) {
                        let found = picked_values(cat(dir, &member), matches, pick, &member)?;
                        seen.insert(number, found);
                    }
                    let found = seen.get(number).map_or(&[][..], Vec::as_slice);
                    if values.len() + found.len() > MAX_LINES {
                        return Err(too_many().in_file(&member));
                    }
                    values.extend_from_slice(found);
                }
            }
            if values.is_empty() {
                continue;
            }
            plain_echo(a).map_err(|p| p.in_file(&exact))?;
            plain_echo(b).map_err(|p| p.in_file(&exact))?;
            let group: Vec<Line> = values
                .iter()
                .enumerate()
                .map(|(i, v)| Line::new(metric, a, b, (i + 1).to_string(), *v))
                .collect();
            push_times(&mut out, group, a_times.saturating_mul(b_times))?;
        }
    }
    Ok(shell_sort(
        out,
        &[(1, false), (2, true), (3, true), (4, true)],
    ))
}

/// `cat <member> | grep -E <pattern> | awk '{print $<pick>}'`, word-split by bash.
fn picked_values<'a>(
    text: &'a str,
    matches: fn(&str) -> bool,
    pick: Pick,
    member: &str,
) -> Result<Vec<&'a str>, Problem> {
    let mut values = Vec::new();
    for (no, line) in grep(text, matches) {
        let fields: Vec<&str> = words(line).collect();
        let printed = match pick {
            Pick::Field(n) => n.checked_sub(1).and_then(|i| fields.get(i)).copied(),
            Pick::Last => Some(fields.last().copied().unwrap_or(line)),
        };
        for value in words(printed.unwrap_or("")) {
            plain_echo(value).map_err(|p| p.in_file(member).at_line(no))?;
            values.push(value);
        }
    }
    Ok(values)
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
    let bench = with_prefix(&names, "benchlog-");
    let threads = sort_numeric_unique(ls_cut(bench, '-', 2));
    let iterations = sort_numeric_unique(ls_cut(bench, '-', 4));
    let thread_at = positions(&split_words(&threads));
    let iteration_at = positions(&split_words(&iterations));
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
        let lines = per_file(cat(dir, name), t, i);
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

/// mmtests' `extract-time` as stockfish calls it: the words it echoes for GNU time's report
/// (`<user> <system> <elapsed>`), built as the script builds them: a `...user` word starts
/// over, `...system` appends, a word with `elapsed` appends its seconds without a blank.
fn extract_time_words(text: &str) -> Vec<String> {
    let mut out = String::new();
    for (_, line) in grep(text, |l| l.contains("elapsed")) {
        for word in words(line) {
            if let Some(user) = word.strip_suffix("user") {
                out = format!("{user} ");
            }
            if let Some(system) = word.strip_suffix("system") {
                out.push_str(system);
                out.push(' ');
            }
            if word.contains("elapsed") {
                let mut entry = word.to_owned();
                while entry.matches(':').count() < 2 {
                    entry.insert_str(0, "0:");
                }
                let entry = entry.strip_suffix("elapsed").unwrap_or(&entry);
                let parts: Vec<&str> = entry.split(':').collect();
                let part = |i: usize| parts.get(i).map_or(0.0, |p| gawk_number(p));
                out.push_str(&gawk_str(part(0) * 3600.0 + part(1) * 60.0 + part(2)));
            }
        }
    }
    words(&out).map(str::to_owned).collect()
}

// --- shell plumbing -------------------------------------------------------------------

/// Bash's default IFS and awk's default field separators: blank, tab, newline.
fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split([' ', '\t', '\n']).filter(|w| !w.is_empty())
}

/// The words of a command's output lines, in order (`for X in $(...)`).
fn split_words<S: AsRef<str>>(lines: &[S]) -> Vec<&str> {
    lines.iter().flat_map(|l| words(l.as_ref())).collect()
}

/// Each distinct word with how often it occurs: a loop body run once per occurrence gives
/// the same lines each time, and the final sort makes the order irrelevant.
fn tally(list: Vec<&str>) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for w in list {
        *counts.entry(w).or_insert(0usize) += 1;
    }
    counts
}

/// Lines of a text as grep and awk read them (a last line without newline counts).
fn lines_of(text: &str) -> impl Iterator<Item = &str> {
    text.split_terminator('\n')
}

/// What `cat <name>` hands a text tool: nothing for a missing member, nor for a `.gz`/`.xz`
/// one (its bytes are compressed data).
fn cat<'a>(dir: &'a LogDir, name: &str) -> &'a str {
    if name.ends_with(".gz") || name.ends_with(".xz") {
        return "";
    }
    dir.get(name).unwrap_or("")
}

/// The lines `grep` prints, with their 1-based numbers; none for a text holding a NUL byte
/// (GNU grep then only reports "binary file matches" on stderr).
fn grep(text: &str, matches: impl Fn(&str) -> bool) -> impl Iterator<Item = (usize, &str)> {
    let binary = text.contains('\0');
    lines_of(text)
        .enumerate()
        .filter(move |(_, l)| !binary && matches(l))
        .map(|(i, l)| (i + 1, l))
}

/// The names starting with `prefix` (a glob `prefix*`) in the sorted `names`.
fn with_prefix<'a, 'n>(names: &'n [&'a str], prefix: &str) -> &'n [&'a str] {
    let start = names.partition_point(|n| *n < prefix);
    let tail = names.get(start..).unwrap_or(&[]);
    let len = tail.partition_point(|n| n.starts_with(prefix));
    tail.get(..len).unwrap_or(&[])
}

/// `ls <names> | cut -d<delim> -f<field>`: per line of each name (ls prints a newline in
/// a name as is) that field, or the whole line when it has no delimiter.
fn ls_cut(names: &[&str], delim: char, field: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in names.iter().flat_map(|n| n.split('\n')) {
        let cut = if line.contains(delim) {
            field
                .checked_sub(1)
                .and_then(|i| line.split(delim).nth(i))
                .unwrap_or("")
        } else {
            line
        };
        out.push(cut.to_owned());
    }
    out
}

/// `ls <names> | awk -F<sep> '{print $<field>}'` (empty where a line has fewer fields).
fn ls_awk_field(names: &[&str], sep: char, field: usize) -> Vec<String> {
    names
        .iter()
        .flat_map(|n| n.split('\n'))
        .map(|line| {
            field
                .checked_sub(1)
                .and_then(|i| line.split(sep).nth(i))
                .unwrap_or("")
                .to_owned()
        })
        .collect()
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

fn numeric_order(a: &str, b: &str) -> Ordering {
    sort_n_key(a)
        .partial_cmp(&sort_n_key(b))
        .unwrap_or(Ordering::Equal)
}

/// `sort -u`: byte (code point) order, duplicates dropped.
fn sort_unique(mut lines: Vec<String>) -> Vec<String> {
    lines.sort();
    lines.dedup();
    lines
}

/// `sort -n`: numeric, the whole line as last resort.
fn sort_numeric(mut lines: Vec<String>) -> Vec<String> {
    lines.sort_by(|a, b| numeric_order(a, b).then_with(|| a.cmp(b)));
    lines
}

/// `sort -n -u`: numeric, only the first line (in input order) of equal numbers kept.
fn sort_numeric_unique(mut lines: Vec<String>) -> Vec<String> {
    lines.sort_by(|a, b| numeric_order(a, b));
    lines.dedup_by(|later, kept| numeric_order(later, kept) == Ordering::Equal);
    lines
}

fn field(line: &Line, k: usize) -> &str {
    match k {
        1 => &line.metric,
        2 => &line.a,
        3 => &line.b,
        4 => &line.interval,
        5 => &line.value,
        _ => &line.extra,
    }
}

/// The printed line's bytes, without building it.
fn line_bytes(line: &Line) -> impl Iterator<Item = u8> + '_ {
    let parts = [
        &line.metric,
        &line.a,
        &line.b,
        &line.interval,
        &line.value,
        &line.extra,
    ];
    parts
        .into_iter()
        .enumerate()
        .flat_map(|(i, p)| (i > 0).then_some(b'\t').into_iter().chain(p.bytes()))
}

/// GNU `sort -k<k>,<k>[n]...` over printed lines (fields never hold blanks here, so its
/// blank-separated fields are ours), the whole line in byte order as last resort. At most
/// four keys; the numbers are read once.
fn shell_sort(mut lines: Vec<Line>, keys: &[(usize, bool)]) -> Vec<Line> {
    let numbers: Vec<[f64; 4]> = lines
        .iter()
        .map(|l| {
            let mut row = [0.0; 4];
            for (slot, &(k, numeric)) in row.iter_mut().zip(keys) {
                if numeric {
                    *slot = sort_n_key(field(l, k));
                }
            }
            row
        })
        .collect();
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&i, &j| {
        let (x, y) = (&lines[i], &lines[j]);
        for ((&(k, numeric), a), b) in keys.iter().zip(&numbers[i]).zip(&numbers[j]) {
            let o = if numeric {
                a.partial_cmp(b).unwrap_or(Ordering::Equal)
            } else {
                field(x, k).cmp(field(y, k))
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        line_bytes(x).cmp(line_bytes(y))
    });
    // Put line order[k] at k, cycle by cycle.
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start || from == at {
                break;
            }
            lines.swap(at, from);
            at = from;
        }
    }
    lines
}

/// A `sed` over printed lines (it never adds or removes a tab, so fields stay put).
fn sed(lines: Vec<Line>, edit: impl Fn(&str) -> String) -> Vec<Line> {
    lines
        .into_iter()
        .map(|l| {
            let text = edit(&l.tsv());
            let mut parts = text.splitn(6, '\t');
            let mut next = || parts.next().unwrap_or("").to_owned();
            Line {
                metric: next(),
                a: next(),
                b: next(),
                interval: next(),
                value: next(),
                extra: next(),
            }
        })
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

/// `read A B` on one line (IFS blanks): the first word and the rest, trimmed.
fn read_two(line: &str) -> (&str, &str) {
    let blank = |c: char| matches!(c, ' ' | '\t' | '\n');
    let line = line.trim_start_matches(blank);
    match line.find(blank) {
        Some(at) => (&line[..at], line[at..].trim_matches(blank)),
        None => (line, ""),
    }
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

/// gawk's string to number: surrounding white space ignored; a leading letter, `0x`, or a
/// sign and a letter give 0, except exactly `+inf`, `-inf`, `+nan`, `-nan`; otherwise the
/// longest decimal prefix.
fn gawk_number(s: &str) -> f64 {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
    let unsigned = t.strip_prefix(['+', '-']);
    let body = unsigned.unwrap_or(t);
    if body.starts_with(|c: char| c.is_ascii_alphabetic()) {
        if unsigned.is_none() || body.len() != 3 {
            return 0.0;
        }
        let negative = t.starts_with('-');
        return match body.to_ascii_lowercase().as_str() {
            "inf" if negative => f64::NEG_INFINITY,
            "inf" => f64::INFINITY,
            "nan" if negative => -f64::NAN,
            "nan" => f64::NAN,
            _ => 0.0,
        };
    }
    if body.starts_with("0x") || body.starts_with("0X") {
        return 0.0;
    }
    awk_value(t)
}

/// A number as gawk prints it (`print`, or concatenated): an integral value in full, others
/// with `%.6g`, infinities and NaNs signed (`+inf`, `-nan`).
fn gawk_str(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "+nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "+inf" }.into();
    }
    if v == v.trunc() {
        if v == 0.0 {
            return "0".into();
        }
        return format!("{v:.0}");
    }
    format_g(v, 6)
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
