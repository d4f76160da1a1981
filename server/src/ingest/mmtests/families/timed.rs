//! Ports of `parse-results` for the families that read GNU `time` reports through the bash of
//! `shellpack_src/parsers/time-parse-results` (autonumabench, gitcheckout, gitsource, kernbench,
//! kvmstart, nas, poundsyscall, time_unmap, trunc, usemem carry a copy of it; xfsrepair calls it
//! without `User`), hackbench's bash parser and netperf's perl `extract-report.pl`.
//!
//! The bash scripts are followed step by step, so odd names and odd text give what mmtests
//! prints: `ls` in byte order, `awk -F -`/`cut -d-` fields, IFS word splitting, bash's `echo`
//! (options, `-e` escapes), `sort -n`, and the final `sort -k1,1 -k2,2n -k4,4n`, which has no
//! `-t` and so splits fields at blanks. Known deviations: an unquoted word is never
//! glob-expanded (bash keeps it literal when nothing matches, the usual case); a compressed
//! member (`.gz`/`.xz`) is read as `cat`/`grep`/perl's `open` read it, as binary without a
//! report; a member with a NUL byte is binary to `grep`; bytes that are not UTF-8 arrive
//! replaced (the seam decodes lossily). Where a name repeats a factor the scripts print the
//! same rows again for each repeat; beyond a bound linear in the directory that would be
//! quadratic work, and the directory is refused with a [`Problem`].

use std::cmp::Ordering;
use std::collections::HashMap;

use super::prelude::*;

/// The `time-<factor>-<iteration>` families: `time-parse-results` as the shellpack copies it.
fn timed_family(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    time_parse_results(dir, true)
}

/// autonumabench: `time-<TESTTYPE>-<ITERATION>` (`NUMA01`, `NUMA02_SMT`, ...); operations
/// `User-<test>`, `System-<test>`, `Elapsed-<test>`, as [`time_parse_results`] prints them.
pub fn autonumabench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// gitcheckout: `time-_-<ITERATION>`; operations `User`, `System`, `Elapsed` (factor `_`).
pub fn gitcheckout(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// gitsource: `time-_-<ITERATION>` (`make test`); operations `User`, `System`, `Elapsed`.
pub fn gitsource(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// kernbench: `time-<NR_THREADS>-<ITERATION>`; operations `Elapsed-<jobs>`, `System-<jobs>`,
/// `User-<jobs>` in that order (the script's sort), jobs numerically.
pub fn kernbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// kvmstart: the generic time parser, which finds nothing in what kvmstart-bench writes
/// (`startup-<GB>-<N>.time`, `memhog-<GB>.<N>.time`, `time-<GB>G-<N>.log`: no name matches
/// `time-*-1`), so a real kvmstart directory gives no lines, as mmtests prints none.
pub fn kvmstart(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// nas: `time-<job>.<CLASS>-<ITERATION>` (`time-bt.C-1`); operations `User-bt.C` and so on
/// (the class-qualified jobs tie numerically and come in byte order).
pub fn nas(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// poundsyscall: `time-<NR_THREADS>-<ITERATION>`; operations `User-<threads>` and so on.
pub fn poundsyscall(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// time_unmap: `time-<threads>-<ITERATION>`; operations `User-<threads>` and so on.
pub fn time_unmap(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// trunc: `time-fault-<ITERATION>`, `time-trunc-<ITERATION>`; operations `User-fault`,
/// `User-trunc` and so on (the two phases interleave by iteration: both sort as 0).
pub fn trunc(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// usemem: `time-<NR_THREADS>-<ITERATION>`; operations `User-<threads>` and so on.
pub fn usemem(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    timed_family(dir)
}

/// xfsrepair: `time-sparsecreate-<N>`, `time-fsmark-<N>`, `time-xfsrepair-<N>` through
/// `time-parse-results` with `PARSE_EXCLUDE_USER_TIME=yes`: operations `Elapsed-<phase>` and
/// `System-<phase>`, no `User` (`time.fscreate.<N>` does not match `time-*-1`).
pub fn xfsrepair(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    time_parse_results(dir, false)
}

/// `time-parse-results`: for each factor `F` (the second `-` field of each `time-*-1`), each
/// iteration `I` (the third `-` field of each `time-F-*`, `sort -n`), the three words
/// `extract-time` prints for `time-F-I` (missing or unreadable: empty), printed as
/// `User F _ I user`, `System ...`, `Elapsed ...`, then `sort -k1,1 -k2,2n -k4,4n`.
fn time_parse_results(dir: &LogDir, with_user: bool) -> Result<Vec<Line>, Problem> {
    let names: Vec<&str> = dir.names().collect();
    let factors_text: String = ls(dir.glob("time-", "-1"))
        .split_terminator('\n')
        .map(|l| format!("{}\n", l.split('-').nth(1).unwrap_or("")))
        .collect();
    let factors: Vec<&str> = words(&factors_text).collect();

    // A factor listed twice prints its rows twice: count them before doing the work.
    let rows: usize = factors
        .iter()
        .map(|f| prefix_range(&names, &unglob(&format!("time-{f}-"))).len())
        .sum();
    check_repeats(rows, names.len(), "time-parse-results", "time-*-1")?;

    let mut chunks: HashMap<&str, Vec<u8>> = HashMap::new();
    let mut out = Vec::new();
    for &factor in &factors {
        let chunk = chunks
            .entry(factor)
            .or_insert_with(|| time_factor_rows(dir, &names, factor, with_user));
        out.extend_from_slice(chunk);
    }
    Ok(sort_rows(&out))
}

/// What the inner loop of `time-parse-results` prints for one factor.
fn time_factor_rows(dir: &LogDir, names: &[&str], factor: &str, with_user: bool) -> Vec<u8> {
    // `\ls time-$FACTORA-*`: a backslash in the factor quotes the next character.
    let pattern = unglob(&format!("time-{factor}-"));
    let listing = ls(prefix_range(names, &pattern).iter().copied());
    let mut iterations: Vec<&str> = listing
        .split_terminator('\n')
        .map(|l| match l.split('-').nth(2) {
            Some(field) => field,
            // `cut` prints a line without the delimiter whole (and `ls` lines all have one).
            None if !l.contains('-') => l,
            None => "",
        })
        .collect();
    iterations.sort_by(|a, b| numcmp(a.as_bytes(), b.as_bytes()).then_with(|| a.cmp(b)));
    let iterations_text = iterations.join("\n");

    let mut times: HashMap<&str, [String; 3]> = HashMap::new();
    let mut out = Vec::new();
    for iteration in words(&iterations_text) {
        let [user, system, elapsed] = times
            .entry(iteration)
            .or_insert_with(|| {
                let report = raw_text(dir, &format!("time-{factor}-{iteration}"));
                let entry = backtick(&extract_time_output(report));
                let echoed = echo(&words(&entry).collect::<Vec<_>>(), false);
                let echoed = String::from_utf8_lossy(&echoed);
                [1, 2, 3].map(|n| backtick(cut_space(&echoed, n).as_bytes()))
            })
            .clone();
        let rows = [
            ("User", user, with_user),
            ("System", system, true),
            ("Elapsed", elapsed, true),
        ];
        for (metric, value, shown) in rows {
            if shown {
                let text = format!("{metric}\\t{factor}\\t_\\t{iteration}\\t{value}\\t_");
                out.extend(echo(&["-e", &text], false));
            }
        }
    }
    out
}

/// What mmtests' `extract-time` prints (`echo $OUT`) for a report read by `cat | grep elapsed`:
/// `<x>user` starts the output anew, `<x>system` is appended, a word containing `elapsed`
/// has `0:` put before it until it holds two colons and is turned into seconds by awk.
fn extract_time_output(report: Option<&str>) -> Vec<u8> {
    let grepped = grep(report, "elapsed");
    let mut out = String::new();
    for word in words(&grepped) {
        if let Some(user) = word.strip_suffix("user") {
            out = format!("{user} ");
        }
        if let Some(system) = word.strip_suffix("system") {
            out.push_str(system);
            out.push(' ');
        }
        if word.contains("elapsed") {
            let colons = word.matches(':').count();
            let entry = "0:".repeat(2usize.saturating_sub(colons)) + word;
            let entry = entry.strip_suffix("elapsed").unwrap_or(&entry);
            // `echo ${ENTRY%elapsed} | awk -F : '{print $1*3600+$2*60+$3}'`
            let mut parts = entry.split(':').map(gawk_number);
            let mut part = || parts.next().unwrap_or(0.0);
            let (h, m, s) = (part(), part(), part());
            out.push_str(&gawk_print(h * 3600.0 + m * 60.0 + s));
        }
    }
    echo(&words(&out).collect::<Vec<_>>(), false)
}

/// hackbench: for each group count `N` (the second `-` field of each `hackbench-*`, `sort -n`),
/// the third blank-separated word of each `Total time:` line of `hackbench-N` (perf bench sched
/// messaging, appended once per iteration), numbered from 1: rows `time N _ <n> <seconds>`,
/// then `sort -k1,1 -k2,2n -k4,4n`. Operations `time-<groups>`.
pub fn hackbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let listing = ls(dir.glob("hackbench-", ""));
    let mut jobs: Vec<&str> = listing
        .split_terminator('\n')
        .map(|l| l.split('-').nth(1).unwrap_or(""))
        .collect();
    jobs.sort_by(|a, b| numcmp(a.as_bytes(), b.as_bytes()).then_with(|| a.cmp(b)));
    let jobs_text = jobs.join("\n");
    let jobs: Vec<&str> = words(&jobs_text).collect();

    let mut values: HashMap<&str, Vec<String>> = HashMap::new();
    for &n in &jobs {
        values.entry(n).or_insert_with(|| {
            let totals = grep(raw_text(dir, &format!("hackbench-{n}")), "Total time:");
            let thirds: String = totals
                .split_terminator('\n')
                .map(|l| format!("{}\n", awk_fields(l).nth(2).unwrap_or("")))
                .collect();
            words(&thirds).map(str::to_owned).collect()
        });
    }
    let rows: usize = jobs.iter().map(|n| values.get(n).map_or(0, Vec::len)).sum();
    let unique: usize = values.values().map(Vec::len).sum();
    check_repeats(
        rows.saturating_sub(unique),
        dir.names().count(),
        "hackbench",
        "hackbench-*",
    )?;

    let mut out = Vec::new();
    for n in &jobs {
        for (i, value) in values.get(n).into_iter().flatten().enumerate() {
            let text = format!("time\\t{n}\\t_\\t{}\\t{value}\\t_", i + 1);
            out.extend(echo(&["-e", &text], false));
        }
    }
    Ok(sort_rows(&out))
}

/// One netperf output file as `extract-report.pl` reads it.
struct NetperfFile {
    send: String,
    recv: String,
    /// The line the last receive throughput came from (UDP_STREAM), for a [`Problem`].
    recv_line: Option<usize>,
}

/// netperf (`extract-report.pl`): the protocol is the first line of `protocols`; the sizes are
/// the last `-` field of each `<protocol>-*.1` without `.1`, sorted numerically; each file
/// `<protocol>-<size>.*` (in perl's glob order: by character, ASCII case folded, so `.10`
/// before `.2`) is one iteration, numbered from 1 per size. A missing file reads as empty. Lines without letters are data: with more than four
/// fields the last is the throughput (UDP_STREAM: six fields send, four receive). Rows
/// `<protocol lowercased without _> send <size> <n> <throughput>` (`tcpstream-send-64`);
/// UDP_STREAM prints `udpstream send` and `udpstream recv`, both with the send throughput.
///
/// Where UDP_STREAM loses more than a tenth of what was sent, the script prints a `loss` row
/// and calls `addData`, which no file defines: perl dies there, so this returns a
/// [`Problem`] naming the file and its receive line. A protocol or size holding a blank,
/// quote or wildcard is refused too: perl's `glob` would split or expand the pattern (with a
/// blank mmtests dies opening the first piece), which the port does not imitate.
pub fn netperf(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    // `open` of a missing file fails silently: the protocol is then empty.
    let protocol = dir
        .get("protocols")
        .and_then(|t| t.split_inclusive('\n').next())
        .map_or("", |l| l.strip_suffix('\n').unwrap_or(l));
    if protocol.contains(perl_glob_special) {
        return Err(Problem::new(format!(
            "protocol {protocol:?} holds a blank, quote or wildcard: perl's glob would split or \
             expand the file pattern (mmtests then dies opening a file that is not there); refused"
        ))
        .in_file("protocols")
        .at_line(1));
    }
    let udp_stream = protocol == "UDP_STREAM";
    let pretty: String = protocol
        .to_ascii_lowercase()
        .chars()
        .filter(|&c| c != '_')
        .collect();

    let glob_prefix = format!("{protocol}-");
    let mut firsts: Vec<&str> = dir.glob(&glob_prefix, ".1").collect();
    firsts.sort_by(|a, b| perl_glob_cmp(a, b));
    let mut sizes = Vec::with_capacity(firsts.len());
    for name in firsts {
        let last = name.rsplit('-').next().unwrap_or("");
        let size = last.strip_suffix(".1").unwrap_or(last);
        if size.contains(perl_glob_special) {
            return Err(Problem::new(format!(
                "size {size:?} holds a blank, quote or wildcard: perl's glob would split or \
                 expand the pattern of its iterations; refused"
            ))
            .in_file(name));
        }
        sizes.push(size);
    }
    sizes.sort_by(|a, b| {
        let (x, y) = (perl_sort_number(a), perl_sort_number(b));
        x.partial_cmp(&y).unwrap_or(Ordering::Equal)
    });

    let names: Vec<&str> = dir.names().collect();
    let rows: usize = sizes
        .iter()
        .map(|s| prefix_range(&names, &format!("{protocol}-{s}.")).len())
        .sum();
    check_repeats(rows, names.len(), "netperf", "<protocol>-*.1")?;

    let mut files: HashMap<&str, NetperfFile> = HashMap::new();
    let mut out = String::new();
    for size in sizes {
        let mut matched = prefix_range(&names, &format!("{protocol}-{size}.")).to_vec();
        matched.sort_by(|a, b| perl_glob_cmp(a, b));
        for (i, name) in matched.into_iter().enumerate() {
            let iteration = i + 1;
            let file = files
                .entry(name)
                .or_insert_with(|| netperf_file(raw_text(dir, name), udp_stream));
            if !udp_stream {
                out.push_str(&format!(
                    "{pretty}\tsend\t{size}\t{iteration}\t{}\t_\n",
                    file.send
                ));
                continue;
            }
            for op in ["send", "recv"] {
                out.push_str(&format!(
                    "udpstream\t{op}\t{size}\t{iteration}\t{}\t_\n",
                    file.send
                ));
            }
            let (send, recv) = (perl_number(&file.send), perl_number(&file.recv));
            if send - recv > send / 10.0 {
                let problem = Problem::new(format!(
                    "UDP_STREAM size {size} iteration {iteration} lost more than a tenth \
                     (sent {}, received {}): extract-report.pl prints a loss row and dies \
                     calling the undefined addData",
                    file.send, file.recv
                ))
                .in_file(name);
                return Err(match file.recv_line {
                    Some(line) => problem.at_line(line),
                    None => problem,
                });
            }
        }
    }
    Ok(printed_lines(out.as_bytes())
        .into_iter()
        .map(to_line)
        .collect())
}

/// The throughputs of one netperf output (perl's line loop).
fn netperf_file(text: Option<&str>, udp_stream: bool) -> NetperfFile {
    let mut file = NetperfFile {
        send: "0".into(),
        recv: "0".into(),
        recv_line: None,
    };
    for (i, raw) in text.unwrap_or("").split_inclusive('\n').enumerate() {
        let line = raw.trim_start_matches(perl_space);
        if line.contains("Confidence intervals: Throughput")
            || line.bytes().any(|b| b.is_ascii_alphabetic())
            || line.is_empty()
        {
            continue;
        }
        let (mut count, mut last) = (0usize, "");
        for field in line.split(perl_space).filter(|f| !f.is_empty()) {
            count += 1;
            last = field;
        }
        if !udp_stream {
            if count > 4 {
                file.send = last.to_owned();
            }
        } else if count == 6 {
            file.send = last.to_owned();
        } else if count == 4 {
            file.recv = last.to_owned();
            file.recv_line = Some(i + 1);
        }
    }
    file
}

// ---- the shell's and the tools' semantics ----

/// Refuses a directory whose names repeat a factor so often that the script's output would
/// grow quadratically (`rows` counted before the work, against the members).
fn check_repeats(rows: usize, members: usize, script: &str, glob: &str) -> Result<(), Problem> {
    let bound = members.saturating_mul(8).saturating_add(4096);
    if rows > bound {
        return Err(Problem::new(format!(
            "{script}: the names under {glob} repeat factors so often that the script would \
             print {rows} rows for {members} members; refused"
        )));
    }
    Ok(())
}

/// A member as `cat`, `grep` or perl's `open` read it: compressed members are bytes without
/// a report (`None`, like a missing file).
fn raw_text<'a>(dir: &'a LogDir, name: &str) -> Option<&'a str> {
    if name.ends_with(".gz") || name.ends_with(".xz") {
        return None;
    }
    dir.get(name)
}

/// `grep <pattern>` over a file: its matching lines, each ended by a newline; nothing for a
/// missing file or one with a NUL byte (binary: grep 3.8 only says so on stderr).
fn grep(text: Option<&str>, pattern: &str) -> String {
    let Some(text) = text.filter(|t| !t.contains('\0')) else {
        return String::new();
    };
    text.split_terminator('\n')
        .filter(|l| l.contains(pattern))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// What `ls` prints for these names (already in byte order): one a line.
fn ls<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.map(|n| format!("{n}\n")).collect()
}

/// The names (sorted) that start with `prefix`: a glob `prefix*`.
fn prefix_range<'a, 'b>(names: &'a [&'b str], prefix: &str) -> &'a [&'b str] {
    let start = names.partition_point(|n| *n < prefix);
    let end = names.partition_point(|n| *n < prefix || n.starts_with(prefix));
    names.get(start..end.max(start)).unwrap_or(&[])
}

/// The text a glob pattern without `*?[` matches: a backslash quotes the next character.
fn unglob(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' {
            chars.next().unwrap_or(c)
        } else {
            c
        });
    }
    out
}

/// Bash's word splitting of an unquoted expansion under the default IFS.
fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split([' ', '\t', '\n']).filter(|w| !w.is_empty())
}

/// awk's default field splitting of one record (runs of blanks and newlines).
fn awk_fields(record: &str) -> impl Iterator<Item = &str> {
    words(record)
}

/// A command substitution's value: NUL bytes dropped, trailing newlines removed.
fn backtick(bytes: &[u8]) -> String {
    let kept: Vec<u8> = bytes.iter().copied().filter(|&b| b != 0).collect();
    let mut s = String::from_utf8_lossy(&kept).into_owned();
    while s.ends_with('\n') {
        s.pop();
    }
    s
}

/// `cut -d' ' -f<n>` of each line (a line without a blank is printed whole).
fn cut_space(text: &str, n: usize) -> String {
    text.split_terminator('\n')
        .map(|l| {
            let field = if l.contains(' ') {
                l.split(' ').nth(n.saturating_sub(1)).unwrap_or("")
            } else {
                l
            };
            format!("{field}\n")
        })
        .collect()
}

/// What bash's `echo` builtin prints for these words: leading `-n`/`-e`/`-E` option words
/// (any mix of those letters) are taken as options; `-e` interprets backslash escapes, where
/// `\c` ends all output.
fn echo(args: &[&str], mut escapes: bool) -> Vec<u8> {
    let mut newline = true;
    let mut first = 0;
    for arg in args {
        let Some(flags) = arg.strip_prefix('-') else {
            break;
        };
        if flags.is_empty() || !flags.bytes().all(|b| matches!(b, b'n' | b'e' | b'E')) {
            break;
        }
        for flag in flags.bytes() {
            match flag {
                b'n' => newline = false,
                b'e' => escapes = true,
                _ => escapes = false,
            }
        }
        first += 1;
    }
    let text = args.get(first..).unwrap_or(&[]).join(" ");
    let mut out = Vec::with_capacity(text.len() + 1);
    if escapes {
        if unescape(&text, &mut out) {
            return out;
        }
    } else {
        out.extend_from_slice(text.as_bytes());
    }
    if newline {
        out.push(b'\n');
    }
    out
}

/// Bash's `echo -e` escapes of `text` into `out`; true where `\c` stopped the output.
fn unescape(text: &str, out: &mut Vec<u8>) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    let digits = |from: usize, max: usize, radix: u32| -> (u32, usize) {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            let Some(d) = bytes
                .get(from + n)
                .and_then(|&b| (b as char).to_digit(radix))
            else {
                break;
            };
            value = value.wrapping_mul(radix).wrapping_add(d);
            n += 1;
        }
        (value, n)
    };
    while let Some(&b) = bytes.get(i) {
        i += 1;
        let Some(&c) = bytes.get(i).filter(|_| b == b'\\') else {
            out.push(b);
            continue;
        };
        i += 1;
        match c {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' => out.push(b'\\'),
            b'c' => return true,
            b'0' => {
                let (v, n) = digits(i, 3, 8);
                i += n;
                out.push((v & 0xff) as u8);
            }
            b'x' => match digits(i, 2, 16) {
                (_, 0) => out.extend_from_slice(b"\\x"),
                (v, n) => {
                    i += n;
                    out.push((v & 0xff) as u8);
                }
            },
            b'u' | b'U' => {
                let max = if c == b'u' { 4 } else { 8 };
                match digits(i, max, 16) {
                    (_, 0) => out.extend_from_slice(&[b'\\', c]),
                    (v, n) => {
                        i += n;
                        let ch = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
            _ => {
                // `\1`..`\7`, `\'`, `\"`, `\?` and anything else stay as written.
                out.push(b'\\');
                i -= 1;
                let rest = text.get(i..).and_then(|r| r.chars().next());
                if let Some(ch) = rest {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    i += ch.len_utf8();
                }
            }
        }
    }
    false
}

/// The number gawk reads from a field: blanks around it ignored, a leading letter or a `0x`
/// gives 0, `+inf`/`-nan` (exactly four characters) and strtod's signed `inf`/`nan` words are
/// the special values, otherwise the longest decimal prefix.
fn gawk_number(field: &str) -> f64 {
    let t = field.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let Some(first) = t.bytes().next() else {
        return 0.0;
    };
    if first.is_ascii_alphabetic() {
        return 0.0;
    }
    let negative = first == b'-';
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned.starts_with("0x") || unsigned.starts_with("0X") {
        return 0.0;
    }
    let head: String = unsigned
        .chars()
        .take(3)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let special = match head.as_str() {
        "inf" => f64::INFINITY,
        "nan" => f64::NAN,
        _ => return awk_value(t),
    };
    if negative {
        -special
    } else {
        special
    }
}

/// A number as gawk's `print` shows it: integral values in full (`-0` as `0`), others with
/// `%.6g`, infinities and NaN with their sign (`+inf`, `-nan`).
fn gawk_print(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "+nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "+inf" }.into();
    }
    if v == v.trunc() {
        return format!("{:.0}", v + 0.0);
    }
    format_g(v, 6)
}

/// The number perl reads from a string: leading whitespace, a sign, `Inf`/`NaN` words, else
/// the longest decimal prefix (0 without one).
fn perl_number(s: &str) -> f64 {
    let t = s.trim_start_matches(perl_space);
    let negative = t.starts_with('-');
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    let head: String = unsigned
        .chars()
        .take(3)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let special = match head.as_str() {
        "inf" => f64::INFINITY,
        "nan" => f64::NAN,
        _ => return awk_value(t),
    };
    if negative {
        -special
    } else {
        special
    }
}

/// A size as perl's `sort { $a <=> $b }` compares it; a NaN (which `<=>` cannot order) sorts
/// as 0, `-0` as 0.
fn perl_sort_number(s: &str) -> f64 {
    let v = perl_number(s);
    if v.is_nan() {
        0.0
    } else {
        v + 0.0
    }
}

/// What perl's `glob` (File::Glob's `csh_glob`) does not take literally in a pattern: blanks
/// and quotes split it, `*?[{` and backslashes are wildcards, braces and quoting.
fn perl_glob_special(c: char) -> bool {
    perl_space(c) || matches!(c, '"' | '\'' | '*' | '?' | '[' | '{' | '\\')
}

/// Perl's `\s` on bytes.
fn perl_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// The order of perl's `glob` (File::Glob with `GLOB_ALPHASORT`): ASCII case folded, bytes
/// compared as signed chars (so non-ASCII first), ties by `strcmp`.
fn perl_glob_cmp(a: &str, b: &str) -> Ordering {
    let fold = |c: u8| i32::from(c.to_ascii_lowercase() as i8);
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let same = x
        .iter()
        .zip(y)
        .take_while(|(p, q)| fold(**p) == fold(**q))
        .count();
    let at = |s: &[u8]| s.get(same).map_or(0, |&c| fold(c));
    at(x).cmp(&at(y)).then_with(|| x.cmp(y))
}

/// GNU `sort -n`'s comparison of two keys under C.UTF-8: leading blanks, an optional `-`,
/// digits and one `.` (no thousands separator), exact on the digits; no number is 0.
fn numcmp(a: &[u8], b: &[u8]) -> Ordering {
    fn parts(s: &[u8]) -> (bool, &[u8], &[u8]) {
        let mut i = 0;
        while s.get(i).is_some_and(|&c| c == b' ' || c == b'\t') {
            i += 1;
        }
        let negative = s.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let start = i;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let int = s.get(start..i).unwrap_or(&[]);
        let int = &int[int.iter().take_while(|&&c| c == b'0').count()..];
        let mut frac: &[u8] = &[];
        if s.get(i) == Some(&b'.') {
            let from = i + 1;
            let mut j = from;
            while s.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            frac = s.get(from..j).unwrap_or(&[]);
            let keep = frac.len() - frac.iter().rev().take_while(|&&c| c == b'0').count();
            frac = &frac[..keep];
        }
        let zero = int.is_empty() && frac.is_empty();
        (negative && !zero, int, frac)
    }
    let magnitude = |(i1, f1): (&[u8], &[u8]), (i2, f2): (&[u8], &[u8])| {
        i1.len().cmp(&i2.len()).then(i1.cmp(i2)).then(f1.cmp(f2))
    };
    let (na, ia, fa) = parts(a);
    let (nb, ib, fb) = parts(b);
    match (na, nb) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude((ia, fa), (ib, fb)),
        (true, true) => magnitude((ib, fb), (ia, fa)),
    }
}

/// Field `n` (1-based) of a line as `sort` without `-t` delimits it: its leading blanks and
/// the non-blanks after them.
fn sort_field(line: &[u8], n: usize) -> &[u8] {
    let blank = |c: u8| c == b' ' || c == b'\t';
    let skip = |fields: usize| {
        let mut p = 0;
        for _ in 0..fields {
            while line.get(p).is_some_and(|&c| blank(c)) {
                p += 1;
            }
            while line.get(p).is_some_and(|&c| !blank(c)) {
                p += 1;
            }
        }
        p
    };
    let (start, end) = (skip(n.saturating_sub(1)), skip(n));
    line.get(start..end.max(start)).unwrap_or(&[])
}

/// The scripts' `sort -k1,1 -k2,2n -k4,4n` (no `-t`, C.UTF-8: byte order, whole line last)
/// of the printed text, each line made a [`Line`].
fn sort_rows(printed: &[u8]) -> Vec<Line> {
    let mut lines = printed_lines(printed);
    lines.sort_by(|x, y| {
        sort_field(x, 1)
            .cmp(sort_field(y, 1))
            .then_with(|| numcmp(sort_field(x, 2), sort_field(y, 2)))
            .then_with(|| numcmp(sort_field(x, 4), sort_field(y, 4)))
            .then_with(|| x.cmp(y))
    });
    lines.into_iter().map(to_line).collect()
}

/// A printed line as a [`Line`]: its tab-separated fields, the sixth keeping any further tabs,
/// missing ones empty.
fn to_line(printed: &[u8]) -> Line {
    let text = String::from_utf8_lossy(printed);
    let mut fields = text.splitn(6, '\t');
    let mut next = || fields.next().unwrap_or("").to_owned();
    Line {
        metric: next(),
        a: next(),
        b: next(),
        interval: next(),
        value: next(),
        extra: next(),
    }
}

/// Lines of printed text as a pipe reader sees them (a last line without newline counts).
fn printed_lines(printed: &[u8]) -> Vec<&[u8]> {
    if printed.is_empty() {
        return Vec::new();
    }
    let body = printed.strip_suffix(b"\n").unwrap_or(printed);
    body.split(|&b| b == b'\n').collect()
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_case, check_dir, fixture_dir};
    use super::*;

    #[test]
    fn autonumabench_dir() {
        check_dir("autonumabench", "autonumabench", autonumabench);
    }

    #[test]
    fn gitcheckout_dir() {
        check_dir("gitcheckout", "gitcheckout", gitcheckout);
    }

    #[test]
    fn gitsource_dir() {
        check_dir("gitsource", "gitsource", gitsource);
    }

    #[test]
    fn kernbench_cases() {
        check_case("kernbench", kernbench);
        check_case("kernbench-small-vm", kernbench);
    }

    /// kvmstart-bench writes no `time-*-1`: the real parser printed nothing (`parsed.tsv` is
    /// empty, which `check_dir` refuses), and so does the port.
    #[test]
    fn kvmstart_dir_prints_nothing() {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/mmtests-families/kvmstart"
        );
        let expected = std::fs::read_to_string(format!("{root}/parsed.tsv")).unwrap();
        assert_eq!(expected, "");
        let dir = fixture_dir("kvmstart", "kvmstart");
        assert!(dir.get("memhog-4.1.time").is_some());
        assert_eq!(kvmstart(&dir), Ok(vec![]));
    }

    #[test]
    fn nas_dir() {
        check_dir("nas", "nas-bt", nas);
    }

    #[test]
    fn poundsyscall_dir() {
        check_dir("poundsyscall", "poundsyscall", poundsyscall);
    }

    #[test]
    fn time_unmap_dir() {
        check_dir("time_unmap", "time_unmap", time_unmap);
    }

    #[test]
    fn trunc_dir() {
        check_dir("trunc", "trunc", trunc);
    }

    #[test]
    fn usemem_dir() {
        check_dir("usemem", "usemem", usemem);
    }

    #[test]
    fn xfsrepair_dir() {
        check_dir("xfsrepair", "xfsrepair", xfsrepair);
    }

    #[test]
    fn hackbench_dir() {
        check_dir("hackbench", "hackbench-process-pipes", hackbench);
    }

    #[test]
    fn netperf_case_and_dirs() {
        check_case("netperf-udp-rr", netperf);
        check_dir("netperf-tcp", "netperf-tcp", netperf);
        check_dir("netperf-udp", "netperf-udp", netperf);
    }

    fn dir(benchmark: &str, members: &[(&str, &str)]) -> LogDir {
        let mut d = LogDir::new(benchmark);
        for (name, text) in members {
            d.insert(name, (*text).to_owned());
        }
        d
    }

    #[test]
    fn udp_stream_loss_is_where_the_script_dies() {
        let report = "bytes   bytes    secs            #      #   10^6bits/sec\n\n\
                      212992      64   10.00     9345712      0     478.50\n\
                      212992           10.00     4672856            239.25\n";
        let d = dir(
            "netperf-udp",
            &[("protocols", "UDP_STREAM\n"), ("UDP_STREAM-64.1", report)],
        );
        let problem = netperf(&d).unwrap_err();
        assert_eq!(problem.file.as_deref(), Some("UDP_STREAM-64.1"));
        assert_eq!(problem.line, Some(4));
    }

    /// Odd names and text, as the real `kernbench/parse-results` printed them: `time-4-x-1`
    /// lists factor 4 twice (and iteration `x`, whose file is missing), a report without
    /// `user`/`system` gives one word that `cut` prints whole, `-euser` becomes an `echo`
    /// option, a compressed member is read raw, and factors sort numerically.
    #[test]
    fn odd_logs_as_the_script_prints_them() {
        let d = dir(
            "kernbench",
            &[
                ("time-16-1", "1.20user 0.30system 1:02.50elapsed 99%CPU\n"),
                ("time-16-2.gz", "1.00user 1.00system 0:01.00elapsed\n"),
                (
                    "time-4-1",
                    "Command exited with non-zero status 1\nTime elapsed: 5s\n",
                ),
                (
                    "time-4-x-1",
                    "4000.00user 300.00system 1:18:06elapsed 99%CPU\n",
                ),
                ("time-e-1", "-euser 2\\tsystem 3elapsed\n"),
            ],
        );
        let got: Vec<String> = kernbench(&d).unwrap().iter().map(Line::tsv).collect();
        let mut expected = Vec::new();
        for (metric, e, four, sixteen) in [
            ("Elapsed", "", "0", "62.5"),
            ("System", "3", "0", "0.30"),
            ("User", "2", "0", "1.20"),
        ] {
            expected.push(format!("{metric}\te\t_\t1\t{e}\t_"));
            for _ in 0..2 {
                expected.push(format!("{metric}\t4\t_\tx\t\t_"));
            }
            for _ in 0..2 {
                expected.push(format!("{metric}\t4\t_\t1\t{four}\t_"));
            }
            expected.push(format!("{metric}\t16\t_\t1\t{sixteen}\t_"));
            expected.push(format!("{metric}\t16\t_\t2.gz\t\t_"));
        }
        assert_eq!(got, expected);
    }

    #[test]
    fn hostile_text_never_panics() {
        let texts = [
            "", "\0", "\\", "\\c", "\\x", "\\u", "\\0777", "é\\", "-n", "elapsed", "a b",
        ];
        for a in texts {
            for b in texts {
                let name = format!("time-{a}-1");
                let size = format!("{a}-{a}.1");
                let members = [
                    ("protocols", a),
                    (name.as_str(), b),
                    ("hackbench-1", b),
                    (size.as_str(), b),
                ];
                let d = dir("x", &members);
                for parser in [kernbench, xfsrepair, hackbench, netperf] {
                    let _ = parser(&d);
                }
            }
        }
    }

    /// Names that repeat one factor would make the scripts print rows quadratic in the
    /// number of members: refused, quickly.
    #[test]
    fn repeated_factors_are_refused() {
        let names: Vec<String> = (0..5000).map(|i| format!("time-4-{i}-1")).collect();
        let mut d = LogDir::new("kernbench");
        for n in &names {
            d.insert(n, "1.00user 1.00system 0:01.00elapsed\n".into());
        }
        assert!(kernbench(&d).is_err());

        let mut d = LogDir::new("netperf-tcp");
        d.insert("protocols", "TCP_STREAM\n".into());
        for i in 0..1000 {
            d.insert(&format!("TCP_STREAM-{}1", "1.".repeat(i)), String::new());
        }
        assert!(netperf(&d).is_err());

        let mut d = LogDir::new("hackbench-process-pipes");
        d.insert("hackbench-1", "Total time: 0.053 [sec]\n".repeat(5000));
        for i in 0..5000 {
            d.insert(&format!("hackbench-1-{i}"), String::new());
        }
        assert!(hackbench(&d).is_err());
    }
}
