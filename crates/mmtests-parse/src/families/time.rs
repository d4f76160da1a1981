// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! mmtests' GNU `time` report readers: `shellpack_src/bin/extract-time` and the bash of
//! `parsers/time-parse-results` (which many shellpacks copy, stockfish with another sort),
//! followed step by step so odd names and odd text give what mmtests prints: `ls` in byte
//! order, `awk -F -`/`cut -d-` fields, IFS word splitting, bash's `echo` (options, `-e`
//! escapes), `sort -n`, and the final `sort -k`, which has no `-t` and so splits fields at
//! blanks. Known deviations: an unquoted word is never glob-expanded (bash keeps it literal
//! when nothing matches, the usual case); a compressed member (`.gz`/`.xz`) is read as `cat`
//! reads it, as binary without a report; a member with a NUL byte is binary to `grep`; bytes
//! that are not UTF-8 arrive replaced (the seam decodes lossily).

use std::collections::HashMap;

use super::budget::check_repeats;
use super::prelude::*;
use super::shell::{
    awk_split, backtick, cat, cut, echo, grep, ls_lines, prefix_range, sort_n, sort_printed, words,
};

/// `time-parse-results`' final sort, `sort -k1,1 -k2,2n -k4,4n`.
pub const TIME_SORT: &[(usize, bool)] = &[(1, false), (2, true), (4, true)];

/// `time-parse-results`: for each factor `F` (the second `-` field of each `time-*-1`), each
/// iteration `I` (the third `-` field of each `time-F-*`, `sort -n`), the three words
/// `extract-time` prints for `time-F-I` (missing or unreadable: empty), printed as
/// `User F _ I user` (unless `with_user` is off: `PARSE_EXCLUDE_USER_TIME=yes`),
/// `System ...`, `Elapsed ...` by `echo -e`, then sorted by `keys` ([`TIME_SORT`]). A factor
/// listed twice prints its rows twice; names repeating one so often that the output would be
/// quadratic in the directory are refused.
pub fn time_parse_results(
    dir: &LogDir,
    with_user: bool,
    keys: &[(usize, bool)],
) -> Result<Vec<Line>, Problem> {
    let names: Vec<&str> = dir.names().collect();
    let factors_text: String = ls_lines(dir.glob("time-", "-1"))
        .map(|l| format!("{}\n", awk_split(l, '-', 2)))
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
            .or_insert_with(|| factor_rows(dir, &names, factor, with_user));
        out.extend_from_slice(chunk);
    }
    Ok(sort_printed(&out, keys))
}

/// What the inner loop of `time-parse-results` prints for one factor.
fn factor_rows(dir: &LogDir, names: &[&str], factor: &str, with_user: bool) -> Vec<u8> {
    // `\ls time-$FACTORA-*`: a backslash in the factor quotes the next character.
    let pattern = unglob(&format!("time-{factor}-"));
    let listed = ls_lines(prefix_range(names, &pattern).iter().copied());
    let iterations = sort_n(listed.map(|l| cut(l, '-', 3)).collect());
    let iterations_text = iterations.join("\n");

    let mut times: HashMap<&str, [String; 3]> = HashMap::new();
    let mut out = Vec::new();
    for iteration in words(&iterations_text) {
        let [user, system, elapsed] = times
            .entry(iteration)
            .or_insert_with(|| time_fields(cat(dir, &format!("time-{factor}-{iteration}"))))
            .clone();
        let rows = [
            ("User", user, with_user),
            ("System", system, true),
            ("Elapsed", elapsed, true),
        ];
        for (metric, value, shown) in rows {
            if shown {
                let text = format!("{metric}\\t{factor}\\t_\\t{iteration}\\t{value}\\t_");
                out.extend(echo(&["-e", &text]));
            }
        }
    }
    out
}

/// The user, system and elapsed values the scripts take from a report (`None`: missing or
/// unreadable): `ENTRY=`cat ... | extract-time``, then `echo $ENTRY | cut -d' ' -f1` (`-f2`,
/// `-f3`). A report without `user`/`system` words gives one word, which `cut` prints whole
/// for all three.
pub fn time_fields(report: Option<&str>) -> [String; 3] {
    let entry = backtick(&extract_time(report));
    let echoed = echo(&words(&entry).collect::<Vec<_>>());
    let echoed = String::from_utf8_lossy(&echoed);
    [1, 2, 3].map(|n| {
        let cut: String = records(&echoed)
            .map(|l| format!("{}\n", cut(l, ' ', n)))
            .collect();
        backtick(cut.as_bytes())
    })
}

/// What mmtests' `extract-time` prints (`echo $OUT`) for a report read by `cat | grep
/// elapsed`: `<x>user` starts the output anew, `<x>system` is appended, a word containing
/// `elapsed` has `0:` put before it until it holds two colons and is turned into seconds by
/// awk (`$1*3600+$2*60+$3`), appended without a blank.
pub fn extract_time(report: Option<&str>) -> Vec<u8> {
    let text = report.unwrap_or("");
    let mut out = String::new();
    for (_, line) in grep(text, text.contains('\0'), |l| l.contains("elapsed")) {
        for word in words(line) {
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
                let mut parts = entry.split(':').map(awk_value);
                let mut part = || parts.next().unwrap_or(0.0);
                let (h, m, s) = (part(), part(), part());
                out.push_str(&awk_num(h * 3600.0 + m * 60.0 + s));
            }
        }
    }
    echo(&words(&out).collect::<Vec<_>>())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gnu_times_report_as_extract_time_reads_it() {
        let t = "12.34user 1.50system 1:02.50elapsed 99%CPU (0avgtext+0avgdata 1234maxresident)k\n";
        assert_eq!(extract_time(Some(t)), b"12.34 1.50 62.5\n");
        assert_eq!(time_fields(Some(t)), ["12.34", "1.50", "62.5"]);
        let hours = "4000.00user 300.00system 1:18:06elapsed 99%CPU\n";
        assert_eq!(time_fields(Some(hours))[2], "4686");
        assert_eq!(time_fields(Some("nothing here\n")), ["", "", ""]);
        assert_eq!(time_fields(Some("Time elapsed: 5s\n")), ["0", "0", "0"]);
        assert_eq!(time_fields(None), ["", "", ""]);
        // `-e` became an option of `echo $OUT`: `\t` is then a tab.
        assert_eq!(
            extract_time(Some("-euser 2\\tsystem 3elapsed\n")),
            b"2\t 3\n"
        );
    }
}
