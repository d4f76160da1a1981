// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! mmtests' shared `parsers/line-parse-results` (pedsort, perfpipe, perfsyscall, sembench,
//! sqlite, sysbenchcpu, sysbenchmutex, xsbench, wis call it): one value per matching line of
//! the `benchlog-*` logs, run through the script's shell as [`Sh`] reproduces it.

use super::prelude::*;
use super::shell::{echo_line, grep, sort_n, sort_u, Sh};

/// Which field `line-parse-results` prints of a matching line (its awk `$POS`).
#[derive(Clone, Copy)]
pub enum Pos {
    /// `$N`.
    Field(usize),
    /// `$NF`: the last field, the (blank) line itself when it has none.
    Last,
    /// `$(NF-1)`: the whole line when it has one field; awk dies on a line without any.
    NfMinus1,
}

/// `parsers/line-parse-results`: factor A is the second and factor B the third `-` field
/// of `benchlog-*` names (`sort -u` each); `benchlog-A-B` itself if it exists, else every
/// `benchlog-A-B-<n>` in `sort -n` order. Each value (`$POS` of a line `pattern` accepts,
/// word-split and pathname-expanded) prints as `<metric> A B <k> <value>` through `echo -e`,
/// k counting per (A, B); a value `echo -e` would turn into more or fewer fields is a
/// [`Problem`] at its line. Sorted by metric, A numerically (the script's switch to a text
/// sort for non-numeric A is lost in its pipeline subshell, so `-k2,2n` always), B
/// numerically, then k.
pub fn line_parse(
    dir: &LogDir,
    pattern: fn(&str) -> bool,
    metric: &str,
    pos: Pos,
) -> Result<Vec<Line>, Problem> {
    let mut sh = Sh::new(dir);
    let cut = |line: &String, n: usize| super::shell::cut(line, '-', n).to_owned();
    let factors_a: Vec<String> = sh.ls("benchlog-*")?.iter().map(|l| cut(l, 2)).collect();
    let mut out = Vec::new();
    for a in sh.words(&sort_u(factors_a))? {
        let factors_b: Vec<String> = sh
            .ls(&format!("benchlog-{a}-*"))?
            .iter()
            .map(|l| cut(l, 3))
            .collect();
        for b in sh.words(&sort_u(factors_b))? {
            let direct = format!("benchlog-{a}-{b}");
            let test = sh.expand(&direct)?;
            let exists = match test.as_slice() {
                [only] => dir.contains(only),
                _ => false,
            };
            let logs = if exists {
                vec![direct]
            } else {
                let numbers: Vec<String> = sh
                    .ls(&format!("benchlog-{a}-{b}-*"))?
                    .iter()
                    .map(|l| cut(l, 4))
                    .collect();
                sh.words(&sort_n(numbers))?
                    .iter()
                    .map(|n| format!("benchlog-{a}-{b}-{n}"))
                    .collect()
            };
            let mut k = 0u64;
            for log in logs {
                let (name, text, binary) = sh.cat(&log)?;
                for (at, hit) in grep(&text, binary, pattern) {
                    let f = fields(hit);
                    let value = match pos {
                        Pos::Field(n) => awk_field(&f, n),
                        Pos::Last => f.last().copied().unwrap_or(hit),
                        Pos::NfMinus1 => match f.len() {
                            0 => break,
                            1 => hit,
                            n => awk_field(&f, n - 1),
                        },
                    };
                    for value in sh.words(&[value])? {
                        k += 1;
                        let raw = format!("{metric}\\t{a}\\t{b}\\t{k}\\t{value}\\t_");
                        let line = echo_line(&raw, &name).map_err(|p| p.at_line(at))?;
                        sh.push(&mut out, line)?;
                    }
                }
            }
        }
    }
    Ok(sort_lines(
        out,
        &[(1, false), (2, true), (3, true), (4, true)],
    ))
}
