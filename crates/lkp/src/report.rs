// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! The rows and the text (README C, D, E, "The output"): `calc_stat_change`
//! (`lib/compare.rb:738-798`), `Compare.sort_stats` (`lib/compare.rb:820`),
//! `show_group_header`/`show_failure_change`/`show_perf_change`/`show_group`
//! (`lib/compare.rb:843-975`), and the axes of `Job#axes` (`lib/job.rb`).

use super::changed::{changed_stats, stat_key_base};
use super::fmt;
use super::json::Json;
use super::lists;
use super::matrix::{Matrix, Value};
use super::num::{self, Num};

/// The numbers of one printed row; index 0 is the base, 1 the head.
#[derive(Debug, Clone, PartialEq)]
pub enum RowStat {
    /// A failure stat (README C): the summed counts, the run counts (all runs), and the
    /// %reproduction, `100 * (fails[1] / runs[0] - fails[0] / runs[0])`.
    Failure {
        fails: [Num; 2],
        runs: [usize; 2],
        reproduction: f64,
    },
    /// Any other stat, over the complete runs: the averages (Integer 0 for a side without the
    /// key), the population standard deviations (Integer -1 for fewer than two values), and the
    /// change, absolute (`avg[1] - avg[0]`) for `perf-profile*` and `…%` keys, else in percent.
    Perf {
        avgs: [Num; 2],
        stddevs: [Num; 2],
        change: Num,
        absolute: bool,
    },
}

/// One printed row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub key: String,
    pub stat: RowStat,
}

impl Row {
    pub fn is_failure(&self) -> bool {
        matches!(self.stat, RowStat::Failure { .. })
    }

    /// The change the rows sort by (the %reproduction of a failure row).
    fn change(&self) -> Num {
        match self.stat {
            RowStat::Failure { reproduction, .. } => Num::Float(reproduction),
            RowStat::Perf { change, .. } => change,
        }
    }
}

fn failure_row(key: String, base: &Matrix, head: &Matrix) -> Row {
    let fails = [base, head].map(|m| {
        m.get(&key).map_or(Num::Int(0), |v| {
            num::ruby_sum(v.iter().filter_map(Value::num))
        })
    });
    let runs = [base.runs(), head.runs()];
    let runs0 = runs[0] as f64;
    let reproduction = 100.0 * (fails[1].to_f64() / runs0 - fails[0].to_f64() / runs0);
    Row {
        key,
        stat: RowStat::Failure {
            fails,
            runs,
            reproduction,
        },
    }
}

fn perf_row(key: String, base: &Matrix, head: &Matrix) -> Row {
    let values = [base, head].map(|m| -> Vec<Num> {
        m.get(&key)
            .map_or_else(Vec::new, |v| v.iter().filter_map(Value::num).collect())
    });
    let avgs = values.each_ref().map(|v| {
        if v.is_empty() {
            Num::Int(0)
        } else {
            Num::Float(num::average(v))
        }
    });
    let stddevs = values.each_ref().map(|v| {
        if v.len() > 1 {
            Num::Float(num::standard_deviation(v))
        } else {
            Num::Int(-1)
        }
    });
    let absolute = key.starts_with("perf-profile") || key.ends_with('%');
    let change = if absolute {
        avgs[1].minus(avgs[0])
    } else {
        let avg0 = if avgs[0].is_zero() {
            1e-100
        } else {
            avgs[0].to_f64()
        };
        Num::Float(100.0 * (avgs[1].to_f64() - avg0) / avg0)
    };
    Row {
        key,
        stat: RowStat::Perf {
            avgs,
            stddevs,
            change,
            absolute,
        },
    }
}

/// `stat_sort_key`: a perf-profile key sorts by its first two parts (then by its change).
fn sort_key(key: &str) -> &str {
    if stat_key_base(key) != "perf-profile" {
        return key;
    }
    // Ruby's `split('.')` drops trailing empty parts.
    let trimmed = key.trim_end_matches('.');
    match trimmed.match_indices('.').nth(1) {
        Some((i, _)) => trimmed.get(..i).unwrap_or(trimmed),
        None => trimmed,
    }
}

/// `Compare.sort_stats` (README D). Ruby's `sort_by` is not stable; this sort is, so ties on
/// the whole sort tuple keep the changed-stat order.
fn sort_rows(rows: Vec<Row>) -> Vec<Row> {
    let mut counts: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for r in &rows {
        *counts
            .entry(stat_key_base(&r.key))
            .or_insert(if r.is_failure() { -10_000 } else { 0 }) += 1;
    }
    for (base, c) in counts.iter_mut() {
        if *c > 0 && crate::programs::is_test_program(base) {
            *c = 0;
        }
    }
    let mut order: Vec<(i64, &str, Num, usize)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            (
                counts[stat_key_base(&r.key)],
                sort_key(&r.key),
                r.change(),
                i,
            )
        })
        .collect();
    order.sort_by(|x, y| {
        x.0.cmp(&y.0)
            .then_with(|| x.1.as_bytes().cmp(y.1.as_bytes()))
            .then_with(|| x.2.num_cmp(y.2).unwrap_or(std::cmp::Ordering::Equal))
    });
    let order: Vec<usize> = order.into_iter().map(|o| o.3).collect();
    let mut slots: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The printed rows of lkp-tests' comparison of `head` with `base`, in print order (failure
/// rows first). Empty when nothing changed.
pub fn compare(base: &Matrix, head: &Matrix) -> Vec<Row> {
    rows_of(changed_stats(base, head), base, head)
}

/// The rows of `keys`, in print order: `show_group` prints the failure rows, then the others,
/// each in sorted order.
fn rows_of(keys: Vec<String>, base: &Matrix, head: &Matrix) -> Vec<Row> {
    let (complete_base, complete_head) = (base.complete(), head.complete());
    let rows = keys
        .into_iter()
        .map(|k| {
            if lists::is_failure(&k) {
                failure_row(k, base, head)
            } else {
                perf_row(k, &complete_base, &complete_head)
            }
        })
        .collect();
    let mut rows = sort_rows(rows);
    rows.sort_by_key(|r| !r.is_failure());
    rows
}

/// What the group header shows: the common axes (name, value) in order, and the two commits.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub axes: Vec<(String, String)>,
    pub base_commit: String,
    pub head_commit: String,
}

/// A job's description, as far as its axes go.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub testcase: String,
    /// `tbox_group`.
    pub machine: String,
    pub rootfs: String,
    pub kconfig: String,
    pub compiler: String,
    /// The job's params, in the job file's order (nested objects are a program's options).
    pub params: Json,
}

/// `rootfs_filename`: the part after the last character outside `[a-zA-Z0-9._-]`.
fn rootfs_filename(rootfs: &str) -> &str {
    rootfs
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .next()
        .unwrap_or(rootfs)
}

/// Ruby's `to_s` of a job param.
fn ruby_to_s(v: &Json) -> String {
    match v {
        Json::Null => String::new(),
        Json::Bool(b) => b.to_string(),
        Json::Int(i) => i.to_string(),
        Json::Float(f) => ruby_float_to_s(*f),
        Json::Str(s) => s.clone(),
        Json::Array(items) => {
            let inner: Vec<String> = items.iter().map(ruby_inspect).collect();
            format!("[{}]", inner.join(", "))
        }
        Json::Object(entries) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{k:?}=>{}", ruby_inspect(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

fn ruby_inspect(v: &Json) -> String {
    match v {
        Json::Null => "nil".into(),
        Json::Str(s) => format!("{s:?}"),
        other => ruby_to_s(other),
    }
}

/// Ruby's `Float#to_s`: the shortest round-trip digits, `.0` for integral values, exponent form
/// below 1e-4 and from 1e16.
fn ruby_float_to_s(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        let s = format!("{f}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let mantissa = if mantissa.contains('.') {
            mantissa.to_owned()
        } else {
            format!("{mantissa}.0")
        };
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

/// `Job#axes` less the commit: `tbox_group`, `testcase`, `rootfs`, `kconfig`, `compiler`, then
/// every param lkp-tests knows as a program option or program, in the job's order (a param
/// seen again keeps its first place). Which params those are depends on lkp-tests' program
/// option lists (`bin/program-options` over `programs/*/run` and friends), which this crate
/// does not have: `is_option(parent, name)` decides (`parent` is the enclosing param, e.g.
/// `netperf` for `netperf: {test: …}`).
pub fn job_axes(
    job: &Job,
    is_option: impl Fn(Option<&str>, &str) -> bool,
) -> Vec<(String, String)> {
    let mut axes: Vec<(String, String)> = [
        ("tbox_group", job.machine.as_str()),
        ("testcase", job.testcase.as_str()),
        ("rootfs", rootfs_filename(&job.rootfs)),
        ("kconfig", job.kconfig.as_str()),
        ("compiler", job.compiler.as_str()),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    fn walk(
        params: &Json,
        parent: Option<&str>,
        is_option: &dyn Fn(Option<&str>, &str) -> bool,
        axes: &mut Vec<(String, String)>,
    ) {
        let Json::Object(entries) = params else {
            return;
        };
        for (k, v) in entries {
            if matches!(v, Json::Object(_)) {
                walk(v, Some(k), is_option, axes);
            } else if !matches!(v, Json::Null) && is_option(parent, k) {
                let value = ruby_to_s(v);
                match axes.iter_mut().find(|(name, _)| name == k) {
                    Some(slot) => slot.1 = value,
                    None => axes.push((k.clone(), value)),
                }
            }
        }
    }
    walk(&job.params, None, &is_option, &mut axes);
    axes
}

/// `show_group_header` (README "The output").
fn render_header(h: &Header, out: &mut String) {
    let names: Vec<&str> = h.axes.iter().map(|(k, _)| k.as_str()).collect();
    let values: Vec<&str> = h.axes.iter().map(|(_, v)| v.as_str()).collect();
    out.push_str(&"=".repeat(89));
    out.push('\n');
    out.push_str(&format!("{}:\n  {}\n\n", names.join("/"), values.join("/")));
    out.push_str(&format!(
        "commit: \n  {}\n  {}\n\n",
        h.base_commit, h.head_commit
    ));
    let base: String = h.base_commit.chars().take(16).collect();
    let head: String = h.head_commit.chars().take(27).collect();
    out.push_str(&format!(
        "{} {} \n",
        fmt::right(&base, 16),
        fmt::right(&head, 27)
    ));
    out.push_str(&format!("{} {} \n", "-".repeat(16), "-".repeat(27)));
}

/// `show_failure_change` + `show_stat`.
fn render_failure(
    key: &str,
    fails: &[Num; 2],
    runs: &[usize; 2],
    reproduction: f64,
    out: &mut String,
) {
    for i in 0..2 {
        if i > 0 {
            out.push_str(&format!(
                "{}% ",
                fmt::right(&fmt::fixed(Num::Float(reproduction), 0), 10)
            ));
        }
        if fails[i].is_zero() {
            out.push_str(&" ".repeat(11));
        } else {
            out.push_str(&fmt::right(&fmt::integer(fails[i]), 11));
        }
        out.push_str(&format!(":{:<4}", runs[i]));
    }
    out.push_str(&format!("  {key}\n"));
}

/// `show_perf_change`'s change: `%.1f` (`%.2g` from 100,000 on), with its sign.
fn change_text(change: Num) -> String {
    let p = if change.to_f64().abs() < 100_000.0 {
        fmt::fixed(change, 1)
    } else {
        fmt::general(change.to_f64(), 2)
    };
    fmt::plus(p)
}

/// `show_stat`'s average: `%.2f` below 1000, `%.4g` above 1e8, else `%d`.
fn avg_text(avg: Num) -> String {
    let a = avg.to_f64().abs();
    if a < 1000.0 {
        fmt::fixed(avg, 2)
    } else if a > 100_000_000.0 {
        fmt::general(avg.to_f64(), 4)
    } else {
        fmt::integer(avg)
    }
}

/// `show_stat`'s relative standard deviation in percent (`%d`), when it is over 2%.
fn stddev_text(avg: Num, stddev: Num) -> Option<String> {
    let mut sd = stddev.to_f64();
    if !avg.is_zero() {
        sd = 100.0 * sd / avg.to_f64();
    }
    (sd > 2.0).then(|| fmt::integer(Num::Float(sd)))
}

/// `show_perf_change` + `show_stat`.
fn render_perf(
    key: &str,
    avgs: &[Num; 2],
    stddevs: &[Num; 2],
    change: Num,
    absolute: bool,
    out: &mut String,
) {
    for i in 0..2 {
        if i > 0 {
            out.push_str(&fmt::right(&change_text(change), 10));
            out.push_str(if absolute { "  " } else { "% " });
        }
        out.push_str(&fmt::right(&avg_text(avgs[i]), 10));
        match stddev_text(avgs[i], stddevs[i]) {
            Some(sd) => out.push_str(&format!(" ±{}%", fmt::right(&sd, 3))),
            None => out.push_str(&" ".repeat(6)),
        }
    }
    out.push_str(&format!("  {key}\n"));
}

/// One row's cells as lkp-tests prints them, without the padding of its columns: the same
/// numbers as [`render`]'s text, for a table laid out by someone else (an HTML page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cells {
    /// Per side: the average (`3472`, `6.098e+08`, `20.50`); for a failure row its
    /// `fail:runs` (`2:4`, or `:4` when it never failed).
    pub values: [String; 2],
    /// Per side: `± 23%` when the relative standard deviation is over 2%, else empty.
    pub stddevs: [String; 2],
    /// The change: `-6.1%`, `+1.6` (absolute: `perf-profile*` and `…%` keys), or a failure
    /// row's %reproduction (`50%`).
    pub change: String,
}

impl Row {
    /// The row's cells, formatted as [`render`] prints them.
    pub fn cells(&self) -> Cells {
        match &self.stat {
            RowStat::Failure {
                fails,
                runs,
                reproduction,
            } => Cells {
                values: [0, 1].map(|i| {
                    let count = if fails[i].is_zero() {
                        String::new()
                    } else {
                        fmt::integer(fails[i])
                    };
                    format!("{count}:{}", runs[i])
                }),
                stddevs: [String::new(), String::new()],
                change: format!("{}%", fmt::fixed(Num::Float(*reproduction), 0)),
            },
            RowStat::Perf {
                avgs,
                stddevs,
                change,
                absolute,
            } => Cells {
                values: [avg_text(avgs[0]), avg_text(avgs[1])],
                stddevs: [0, 1].map(|i| {
                    stddev_text(avgs[i], stddevs[i])
                        .map(|sd| format!("± {sd}%"))
                        .unwrap_or_default()
                }),
                change: format!(
                    "{}{}",
                    change_text(*change),
                    if *absolute { "" } else { "%" }
                ),
            },
        }
    }
}

/// Every key of `base` and `head` (those with a number on either side) as a row of lkp-tests'
/// table, changed or not, in its print order (failure rows first): what [`compare`] prints
/// when every key counts as changed.
pub fn compare_all(base: &Matrix, head: &Matrix) -> Vec<Row> {
    let mut seen = std::collections::HashSet::new();
    let has_number = |v: &[Value]| v.iter().any(|x| x.num().is_some());
    let keys: Vec<String> = base
        .iter()
        .chain(head.iter())
        .filter(|(k, v)| has_number(v) && seen.insert(*k))
        .map(|(k, _)| k.to_owned())
        .collect();
    rows_of(keys, base, head)
}

/// `show_group` (README "The output"): the header, the failure block, the other block and an
/// empty line; nothing at all when no row.
pub fn render(header: &Header, rows: &[Row]) -> String {
    let mut out = String::new();
    if rows.is_empty() {
        return out;
    }
    render_header(header, &mut out);
    if rows.iter().any(Row::is_failure) {
        out.push_str("       fail:runs  %reproduction    fail:runs\n");
        out.push_str("           |             |             |    \n");
        for r in rows {
            if let RowStat::Failure {
                fails,
                runs,
                reproduction,
            } = &r.stat
            {
                render_failure(&r.key, fails, runs, *reproduction, &mut out);
            }
        }
    }
    if rows.iter().any(|r| !r.is_failure()) {
        out.push_str("         %stddev     %change         %stddev\n");
        out.push_str("             \\          |                \\  \n");
        for r in rows {
            if let RowStat::Perf {
                avgs,
                stddevs,
                change,
                absolute,
            } = &r.stat
            {
                render_perf(&r.key, avgs, stddevs, *change, *absolute, &mut out);
            }
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_profile_sort_key() {
        assert_eq!(
            sort_key("perf-profile.calltrace.cycles-pp.a.b"),
            "perf-profile.calltrace"
        );
        assert_eq!(sort_key("perf-profile.self"), "perf-profile.self");
        assert_eq!(sort_key("perf-profile."), "perf-profile");
        assert_eq!(sort_key("netperf.a.b"), "netperf.a.b");
    }

    #[test]
    fn float_to_s_and_rootfs() {
        assert_eq!(ruby_float_to_s(0.5), "0.5");
        assert_eq!(ruby_float_to_s(2.0), "2.0");
        assert_eq!(ruby_float_to_s(1e20), "1.0e+20");
        assert_eq!(ruby_float_to_s(1.5e-5), "1.5e-05");
        assert_eq!(
            rootfs_filename("/osimage/debian/debian-12-x86_64-20240206.cgz"),
            "debian-12-x86_64-20240206.cgz"
        );
    }

    #[test]
    fn one_perf_row_prints_like_lkp() {
        let mut out = String::new();
        let avgs = [Num::Float(47.9), Num::Float(186.46)];
        let stddevs = [Num::Float(11.1), Num::Float(1.0)];
        render_perf(
            "sched_debug.cpu.clock.stddev",
            &avgs,
            &stddevs,
            Num::Float(289.27),
            false,
            &mut out,
        );
        assert_eq!(
            out,
            "     47.90 ± 23%    +289.3%     186.46        sched_debug.cpu.clock.stddev\n"
        );
        let mut out = String::new();
        render_failure(
            "kmsg.ACPI_Error:AE_NOT_FOUND",
            &[Num::Int(0), Num::Int(8)],
            &[6, 4],
            133.33,
            &mut out,
        );
        assert_eq!(
            out,
            "           :6          133%           8:4     kmsg.ACPI_Error:AE_NOT_FOUND\n"
        );
    }

    #[test]
    fn cells_are_the_printed_numbers_without_padding() {
        let perf = Row {
            key: "sched_debug.cpu.clock.stddev".into(),
            stat: RowStat::Perf {
                avgs: [Num::Float(47.9), Num::Float(186.46)],
                stddevs: [Num::Float(11.1), Num::Float(1.0)],
                change: Num::Float(289.27),
                absolute: false,
            },
        };
        assert_eq!(
            perf.cells(),
            Cells {
                values: ["47.90".into(), "186.46".into()],
                stddevs: ["± 23%".into(), String::new()],
                change: "+289.3%".into(),
            }
        );
        let failure = Row {
            key: "kmsg.ACPI_Error:AE_NOT_FOUND".into(),
            stat: RowStat::Failure {
                fails: [Num::Int(0), Num::Int(8)],
                runs: [6, 4],
                reproduction: 133.33,
            },
        };
        let c = failure.cells();
        assert_eq!(c.values, [":6".to_owned(), "8:4".to_owned()]);
        assert_eq!(c.change, "133%");
    }
}
