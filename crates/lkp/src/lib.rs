// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! lkp-tests' comparison of two commits, to the byte: what `Compare::Comparer` (`lib/compare.rb`,
//! the code behind `sbin/ncompare` and the LKP robot mails' `%stddev %change %stddev` table)
//! prints for a base and a head commit's runs, as pure Rust. The rules, each with its file and
//! line in lkp-tests (commit `bbbc29c495d9`), are in
//! `tests/fixtures/lkp-oracle/README.md` (sections A–E, "The output"); the ten cases
//! there are lkp-tests' own output, and the tests here compare with them byte for byte.
//!
//! - `matrix.rs`: runs and matrices (A): [`unite`] (`unite_stats`: per-CPU `sched_debug` keys and
//!   all-Integer-0 keys dropped, key order), [`matrix_from_runs`] (`matrix_from_stats_files`),
//!   missing values as Integer 0, [`Matrix::complete`] (incomplete runs, A6).
//! - `changed.rs`: which keys changed (B): the two passes with incomplete runs, `skip_stat?`
//!   (strings, stat-denylist/report-allowlist, `.fail`/`.pass`, the 3-run gate), keys new in the
//!   head, the trimmed min/median/max, `changed_stats?` (perf-profile threshold, failure maxima,
//!   separated ranges), `skip_small_change?` (1.01 / 1.05 unless a perf metric,
//!   `reasonable_perf_change?`).
//! - `lists.rs` (+ `etc/`, lkp-tests' lists and program names, see `etc/README.md`): failure
//!   stats (A4), bisectable and report-allowlisted stats, perf metrics, the per-prefix
//!   thresholds (B6), test programs (D1).
//! - `pattern.rs`: those lists' Ruby regular expressions, translated for the `regex` crate
//!   (Ruby's meaning kept: line anchors, ASCII `\d`/`\w`/`\s`, literal `{`; linear time).
//! - `report.rs`: the rows (C: sums and %reproduction for failures, averages, population
//!   deviations and absolute or relative changes for the rest), their order (D), the header
//!   and the text (E, "The output"); [`job_axes`] (`Job#axes`).
//! - `fmt.rs`: Ruby's `sprintf` (`%.Nf`/`%.Ng` through 15 significant digits and half-to-even,
//!   `%d` of a Float truncating) (E).
//! - `num.rs`: Ruby Integers and Floats, exact comparisons, `Array#sum` (Kahan–Babuska),
//!   average and standard deviation (C, E "Sums").
//! - `json.rs`: `stats.json`/`matrix.json` with key order and Integer/Float kept (F).
//!
//! Where lkp-tests would raise (a string among a key's numbers other than as the head's last
//! value, A5), the key is not compared. The header's axes need lkp-tests' program option lists,
//! which are not here: [`job_axes`] takes them as a predicate (or give [`Header::axes`]
//! directly). Ruby's `sort_by` is unstable; here ties on the whole sort tuple keep the
//! changed-stat order.
//!
//! ```text
//! let base = unite(&base_runs);            // or Matrix::from_json(matrix.json)
//! let head = unite(&head_runs);
//! let text = render(&header, &compare(&base, &head));
//! ```

mod changed;
mod fmt;
mod json;
pub mod kpi;
mod lists;
mod matrix;
mod num;
mod pattern;
pub mod programs;
mod report;

pub use changed::changed_stats;
pub use json::Json;
pub use matrix::{matrix_from_runs, unite, LkpError, Matrix, Run, Value, INCOMPLETE_RUN};
pub use num::Num;
pub use report::{compare, compare_all, job_axes, render, Cells, Header, Job, Row, RowStat};

/// The whole comparison text of `head` against `base`, as lkp-tests prints it (empty when
/// nothing changed).
pub fn compare_text(header: &Header, base: &Matrix, head: &Matrix) -> String {
    render(header, &compare(base, head))
}

#[cfg(test)]
mod tests;
