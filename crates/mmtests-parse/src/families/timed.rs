// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Ports of `parse-results` for the families that read GNU `time` reports through the bash of
//! `shellpack_src/parsers/time-parse-results` ([`time_parse_results`]: autonumabench,
//! gitcheckout, gitsource, kernbench, kvmstart, nas, poundsyscall, time_unmap, trunc, usemem
//! carry a copy of it; xfsrepair calls it without `User`), hackbench's bash parser and
//! netperf's perl `extract-report.pl`.
//!
//! The bash is followed step by step, so odd names and odd text give what mmtests prints:
//! `ls` in byte order, `awk -F -` fields, IFS word splitting, bash's `echo -e`, `sort -n`,
//! and the final `sort -k1,1 -k2,2n -k4,4n`, which has no `-t` and so splits fields at
//! blanks. Known deviations: an unquoted word is never glob-expanded (bash keeps it literal
//! when nothing matches, the usual case); a compressed member (`.gz`/`.xz`) is read as
//! `cat`/`grep`/perl's `open` read it, as binary without a report; a member with a NUL byte
//! is binary to `grep`; bytes that are not UTF-8 arrive replaced (the seam decodes lossily).
//! Where a name repeats a factor the scripts print the same rows again for each repeat;
//! beyond a bound linear in the directory that would be quadratic work, and the directory is
//! refused with a [`Problem`].

use std::collections::HashMap;

use super::budget::check_repeats;
use super::perl::{glob_cmp, is_space, num, sort_key};
use super::prelude::*;
use super::shell::{
    awk_split, cat, echo, grep, ls_lines, prefix_range, printed_lines, sort_n, sort_printed,
    to_line, words,
};
use super::time::{time_parse_results, TIME_SORT};

/// The `time-<factor>-<iteration>` families: `time-parse-results` as the shellpack copies it.
fn timed_family(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    time_parse_results(dir, true, TIME_SORT)
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
    time_parse_results(dir, false, TIME_SORT)
}

/// hackbench: for each group count `N` (the second `-` field of each `hackbench-*`, `sort -n`),
/// the third blank-separated word of each `Total time:` line of `hackbench-N` (perf bench sched
/// messaging, appended once per iteration), numbered from 1: rows `time N _ <n> <seconds>`,
/// then `sort -k1,1 -k2,2n -k4,4n`. Operations `time-<groups>`.
pub fn hackbench(dir: &LogDir) -> Result<Vec<Line>, Problem> {
    let listed = ls_lines(dir.glob("hackbench-", ""));
    let jobs_text = sort_n(listed.map(|l| awk_split(l, '-', 2)).collect()).join("\n");
    let jobs: Vec<&str> = words(&jobs_text).collect();

    let mut values: HashMap<&str, Vec<String>> = HashMap::new();
    for &n in &jobs {
        values.entry(n).or_insert_with(|| {
            let text = cat(dir, &format!("hackbench-{n}")).unwrap_or("");
            let totals = grep(text, text.contains('\0'), |l| l.contains("Total time:"));
            let thirds: String = totals
                .into_iter()
                .map(|(_, l)| format!("{}\n", awk_field(&fields(l), 3)))
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
            out.extend(echo(&["-e", &text]));
        }
    }
    Ok(sort_printed(&out, TIME_SORT))
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
    firsts.sort_by(|a, b| glob_cmp(a, b));
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
    sizes.sort_by(|a, b| sort_key(a).total_cmp(&sort_key(b)));

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
        matched.sort_by(|a, b| glob_cmp(a, b));
        for (i, name) in matched.into_iter().enumerate() {
            let iteration = i + 1;
            let file = files
                .entry(name)
                .or_insert_with(|| netperf_file(cat(dir, name), udp_stream));
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
            let (send, recv) = (num(&file.send).f(), num(&file.recv).f());
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
        let line = raw.trim_start_matches(is_space);
        if line.contains("Confidence intervals: Throughput")
            || line.bytes().any(|b| b.is_ascii_alphabetic())
            || line.is_empty()
        {
            continue;
        }
        let (mut count, mut last) = (0usize, "");
        for field in line.split(is_space).filter(|f| !f.is_empty()) {
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

/// What perl's `glob` (File::Glob's `csh_glob`) does not take literally in a pattern: blanks
/// and quotes split it, `*?[{` and backslashes are wildcards, braces and quoting.
fn perl_glob_special(c: char) -> bool {
    is_space(c) || matches!(c, '"' | '\'' | '*' | '?' | '[' | '{' | '\\')
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
