// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see LICENSES/PROVENANCE.md.
//! mmtests' arithmetic and printing, to the last digit: what `compare-mmtests.pl` computes from
//! an operation's samples (sorted best first, summed left to right, Perl's `**` = glibc `pow`,
//! the CI half-width as R prints it to 7 significant digits) and how it prints a table (value
//! cells from the double, percentages through Perl's `%.15g` first, NaN as `NaN`). The rules are
//! in `server/tests/fixtures/mmtests-oracle/README.md`, each with its file and line in mmtests;
//! `docs/statistics.md` explains them.

use crate::label::Direction;
pub use crate::summarise::{Family, SumStat, Summarise};

/// The value of `stat` in `s`: the fixed statistics from their fields, the others from
/// `s.more`.
pub fn stat_of(stat: SumStat, direction: Direction, s: &Stats) -> Option<f64> {
    let h = direction == Direction::Higher;
    let v = match stat {
        SumStat::Min => Some(s.min),
        SumStat::Max => Some(s.max),
        SumStat::Mean => Stat::mean(direction).of(s),
        SumStat::Stddev => {
            if h {
                s.hstddev
            } else {
                s.stddev
            }
        }
        SumStat::CoeffVar => {
            if h {
                s.hcoeffvar
            } else {
                s.coeffvar
            }
        }
        SumStat::BMean(95) => {
            if h {
                s.bhmean95
            } else {
                Some(s.bamean95)
            }
        }
        _ => {
            let name = stat.name(direction);
            s.more
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, v)| *v)
        }
    };
    v.filter(|v| !v.is_nan())
}

/// The statistics a style prints beyond those every [`Stats`] has, by row name, from the
/// samples sorted best first.
pub fn more_stats(
    style: Summarise,
    sorted: &[f64],
    direction: Direction,
) -> Vec<(String, Option<f64>)> {
    let n = sorted.len();
    let count = |pct: u32| (n * pct as usize / 100).max(1).min(n);
    let mean = |xs: &[f64]| match direction {
        Direction::Higher => hmean(xs),
        _ => amean(xs),
    };
    let mut out = Vec::new();
    for stat in style.rows() {
        let v = match *stat {
            SumStat::BMean(95) => continue,
            SumStat::BMean(p) => (n > 0).then(|| mean(&sorted[..count(p)])).flatten(),
            SumStat::Pctile(p) => (n > 0).then(|| sorted[count(p) - 1]),
            SumStat::Value => sorted.first().copied(),
            // mmtests draws these from an unseeded bootstrap (numpy), different on every
            // run; Perfline gives the plain mean and its t interval, which they estimate.
            SumStat::SubMean => mean(sorted),
            SumStat::SubMeanCi => summarise(sorted, direction).ci,
            _ => continue,
        };
        out.push((stat.name(direction), v));
    }
    out
}

/// R 4.2's `qnorm(1 - 0.05/2)`.
pub const Z975: f64 = 1.959_963_984_540_054;

/// Perl's stringification of a number, `%.15g` (NaN → `NaN`, ±0 → `0`).
pub fn perl_str(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Inf" } else { "-Inf" }.into()
    } else if v == 0.0 {
        "0".into()
    } else {
        crate::compare::format_g(v, 15)
    }
}

/// A number through Perl's string and back: `strtod(sprintf("%.15g", v))`.
pub fn via_string(v: f64) -> f64 {
    if v.is_nan() || v.is_infinite() {
        return v;
    }
    perl_str(v).parse().unwrap_or(v)
}

/// Perl's `**`: an integral base to a non-negative integral power whose result fits in 64 bits
/// is exact; anything else is libm's `pow` (on glibc not always `x*x` for `x ** 2`).
pub fn perl_pow(b: f64, e: f64) -> f64 {
    if b.is_finite() && b == b.floor() && e == e.floor() && e >= 0.0 && b.abs() < 9.2e18 {
        let u = b.abs() as u64;
        let bits = 64 - u.leading_zeros();
        if (e as u64) * u64::from(bits) <= 64 {
            if let Some(r) = u.checked_pow(e as u32) {
                let r = r as f64;
                return if b < 0.0 && (e as u64) % 2 == 1 {
                    -r
                } else {
                    r
                };
            }
        }
    }
    b.powf(e)
}

/// The number R prints for `x` with 7 significant digits, as Perl reads it back.
pub fn r_print7(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    let neg = usize::from(x < 0.0);
    let sci = format!("{:.6e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i64 = exp.parse().unwrap_or(0);
    let mut alpha: u64 = mantissa.replace('.', "").parse().unwrap_or(0);
    let mut nsig: i64 = 7;
    while nsig > 1 && alpha.is_multiple_of(10) {
        alpha /= 10;
        nsig -= 1;
    }
    let left = e + 1;
    let sleft = neg as i64 + if left <= 0 { 1 } else { left };
    let rgt = (nsig - left).max(0);
    let mxsl = if left >= 0 { sleft } else { 1 + neg as i64 };
    let m_f = mxsl + rgt + i64::from(rgt != 0);
    let ee = if left > 100 || left <= -99 { 2 } else { 1 };
    let m_e = neg as i64 + i64::from(nsig - 1 > 0) + (nsig - 1) + 4 + ee;
    let text = if m_f <= m_e {
        format!("{:.*}", rgt as usize, x)
    } else {
        format!("{:.*e}", (nsig - 1) as usize, x)
    };
    text.parse().unwrap_or(f64::NAN)
}

/// mmtests' `pdiff` with Perl's semantics: `None` is the string `NaN`.
pub fn pdiff(a: Option<f64>, b: Option<f64>) -> f64 {
    let (an, bn) = (a.unwrap_or(f64::NAN), b.unwrap_or(f64::NAN));
    if an == bn || an == 0.0 {
        0.0
    } else if bn == 0.0 || b.is_none() || bn.is_nan() {
        100.0
    } else {
        an * 100.0 / bn - 100.0
    }
}

/// mmtests' `pndiff` with Perl's semantics.
pub fn pndiff(a: Option<f64>, b: Option<f64>) -> f64 {
    // Perl numifies the string "NaN" to NaN.
    let (an, bn) = (a.unwrap_or(f64::NAN), b.unwrap_or(f64::NAN));
    if an == bn {
        0.0
    } else if an == 0.0 {
        100.0
    } else if bn == 0.0 {
        -99.0
    } else {
        100.0 - (an * 100.0 / bn)
    }
}

/// mmtests' `cidiff(new, newci, base, baseci)`; a missing interval bound counts as 0.
pub fn cidiff(new: f64, new_ci: Option<(f64, f64)>, base: f64, base_ci: Option<(f64, f64)>) -> f64 {
    let (n0, n1) = new_ci.unwrap_or((0.0, 0.0));
    let (b0, b1) = base_ci.unwrap_or((0.0, 0.0));
    let diff = new - base;
    let cisum = if new < base {
        n1 - new + base - b0
    } else {
        new - n0 + b1 - base
    };
    if cisum == 0.0 {
        diff
    } else {
        diff / cisum
    }
}

/// What mmtests computes for one operation of one kernel. `None` is what Perl holds as the
/// string `NaN` (printed `0.00` in the table).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub max: f64,
    pub amean: Option<f64>,
    pub hmean: Option<f64>,
    /// ÷ (n − 1), summed in the samples' sorted order.
    pub stddev: Option<f64>,
    /// √(Σ(1/x − 1/H)² · H⁴ / n).
    pub hstddev: Option<f64>,
    pub coeffvar: f64,
    pub hcoeffvar: f64,
    pub bamean95: Option<f64>,
    pub bhmean95: Option<f64>,
    /// The half-width of the mean's 95 % interval as R prints it (`None` without a spread).
    pub ci: Option<f64>,
}

fn amean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut s = 0.0;
    for x in xs {
        s += x;
    }
    Some(s / xs.len() as f64)
}

fn hmean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|x| *x <= 0.0 || x.is_nan()) {
        return None;
    }
    let mut s = 0.0;
    for x in xs {
        s += 1.0 / x;
    }
    Some(xs.len() as f64 / s)
}

fn coeffvar(mean: Option<f64>, sd: Option<f64>) -> f64 {
    let s = sd.unwrap_or(0.0);
    let m = mean.unwrap_or(0.0);
    if m != 0.0 && !m.is_nan() {
        (s * 100.0) / m
    } else {
        0.0
    }
}

/// mmtests' summary of one operation: `sorted` are its samples best first (descending for
/// higher-is-better, ascending for lower-is-better), as `Summarise.pm` sorts them.
pub fn summarise(sorted: &[f64], direction: Direction) -> Summary {
    let n = sorted.len();
    let (first, last) = (
        sorted.first().copied().unwrap_or(f64::NAN),
        sorted.last().copied().unwrap_or(f64::NAN),
    );
    let (min, max) = match direction {
        Direction::Lower | Direction::Unknown => (first, last),
        Direction::Higher => (last, first),
    };
    let am = amean(sorted);
    let hm = hmean(sorted);
    let stddev = am.and_then(|m| {
        if n <= 1 {
            return None;
        }
        let mut d = 0.0;
        for x in sorted {
            d += perl_pow(x - m, 2.0);
        }
        Some((d / (n - 1) as f64).sqrt())
    });
    let hstddev = hm.and_then(|h| {
        if n <= 1 {
            return None;
        }
        let mut d = 0.0;
        for x in sorted {
            d += perl_pow(1.0 / x - 1.0 / h, 2.0);
        }
        Some((d * perl_pow(h, 4.0) / n as f64).sqrt())
    });
    let count = (n * 95 / 100).max(1).min(n);
    let best = &sorted[..count];
    let (mean, sd) = match direction {
        Direction::Higher => (hm, hstddev),
        Direction::Lower | Direction::Unknown => (am, stddev),
    };
    // Stat.pm interpolates the stddev into R's input with Perl's %.15g.
    let ci = mean.and(sd).map(|sd| r_print7(via_string(sd) * Z975));
    Summary {
        n,
        min,
        max,
        amean: am,
        hmean: hm,
        stddev,
        hstddev,
        coeffvar: coeffvar(am, stddev),
        hcoeffvar: coeffvar(hm, hstddev),
        bamean95: amean(best),
        bhmean95: hmean(best),
        ci,
    }
}

/// C's `%W.Pf` for a Perl value: NaN right-aligned as `NaN`.
pub fn fixed(v: f64, width: usize, precision: usize) -> String {
    if v.is_nan() {
        format!("{:>width$}", "NaN")
    } else if v.is_infinite() {
        format!("{:>width$}", if v > 0.0 { "Inf" } else { "-Inf" })
    } else {
        format!("{v:>width$.precision$}")
    }
}

/// Perl's `substr($s, $off, $len)` on ASCII names.
fn substr(s: &str, off: i64, len: Option<i64>) -> String {
    let n = s.len() as i64;
    let off = if off < 0 { (n + off).max(0) } else { off };
    if off > n {
        return String::new();
    }
    let end = match len {
        None => n,
        Some(l) if l < 0 => n + l,
        Some(l) => (off + l).min(n),
    };
    if end <= off {
        return String::new();
    }
    s.get(off as usize..end as usize).unwrap_or("").to_owned()
}

/// The two header lines of a run name, split as `Compare.pm` does: at the first `-`, moved
/// past a `-rcN` right there; a name without `-` loses its last character on the top line.
pub fn header_parts(name: &str) -> (String, String) {
    let mut index = name.find('-').map_or(-1, |i| i as i64);
    let window = substr(name, index, Some(index + 3));
    let b = window.as_bytes();
    if b.windows(4)
        .any(|w| &w[..3] == b"-rc" && w[3].is_ascii_digit())
    {
        index += 4;
    }
    (substr(name, 0, Some(index)), substr(name, index + 1, None))
}

/// Two header lines: `first` wide blank cell, then each name's parts right-aligned in 29.
pub fn header<K: AsRef<str>>(kernels: &[K], first: usize) -> String {
    let mut out = String::new();
    let parts: Vec<(String, String)> = kernels.iter().map(|k| header_parts(k.as_ref())).collect();
    for line in 0..2 {
        out.push_str(&format!("{:>first$}", ""));
        for (top, bottom) in &parts {
            let p = if line == 0 { top } else { bottom };
            out.push_str(&format!("{p:>29}"));
        }
        out.push('\n');
    }
    out
}

/// The value width of mmtests' tables.
pub const FIELD: usize = 18;

use crate::compare::{Comparison, Row, Stat, Stats};

/// A statistic of a cell as Perl holds it: `None` is the string `NaN`.
fn value(stat: Stat, s: Option<&Stats>) -> Option<f64> {
    s.and_then(|s| stat.of(s)).filter(|v| !v.is_nan())
}

/// The mean's 95 % interval of a cell, when it has one.
fn interval(stat: Stat, s: &Stats) -> Option<(f64, f64)> {
    let mean = value(stat, Some(s))?;
    let q = s.ci?;
    (!q.is_nan()).then_some((mean - q, mean + q))
}

/// Whether each kernel's mean is significantly apart from the baseline's in `row`, as
/// `Compare.pm` decides: kernels without any interval in the table are never marked; a
/// baseline without any interval compares against 0.
fn significance(rows: &[&Row], row: &Row, mean: Stat) -> Vec<bool> {
    let has_ci = |k: usize| {
        rows.iter().any(|r| {
            r.cells
                .get(k)
                .and_then(|c| c.as_ref())
                .is_some_and(|c| interval(mean, &c.stats).is_some())
        })
    };
    let cell = |k: usize| row.cells.get(k).and_then(|c| c.as_ref()).map(|c| &c.stats);
    let (base_val, base_ci) = if has_ci(0) {
        (
            value(mean, cell(0)).unwrap_or(f64::NAN),
            cell(0).and_then(|s| interval(mean, s)),
        )
    } else {
        (0.0, None)
    };
    (0..row.cells.len())
        .map(|k| {
            if k == 0 || !has_ci(k) {
                return false;
            }
            let Some(ci) = cell(k).and_then(|s| interval(mean, s)) else {
                return false;
            };
            let val = value(mean, cell(k)).unwrap_or(0.0);
            cidiff(base_val, base_ci, val, Some(ci)).abs() > 1.0
        })
        .collect()
}

/// Marks each cell's mean as mmtests does (`significance`), table by table (one per direction),
/// and sets the verdicts to match: the page, the JSON and the text say the same.
pub fn mark_significance(rows: &mut [Row]) {
    for direction in [Direction::Higher, Direction::Lower] {
        let mean = Stat::mean(direction);
        let marks: Vec<(usize, Vec<bool>)> = {
            let table: Vec<&Row> = rows
                .iter()
                .filter(|r| {
                    r.direction == direction && r.cells.first().is_some_and(Option::is_some)
                })
                .collect();
            rows.iter()
                .enumerate()
                .filter(|(_, r)| {
                    r.direction == direction && r.cells.first().is_some_and(Option::is_some)
                })
                .map(|(i, r)| (i, significance(&table, r, mean)))
                .collect()
        };
        for (i, marks) in marks {
            for (k, cell) in rows[i].cells.iter_mut().enumerate().skip(1) {
                if let Some(cell) = cell {
                    cell.significant = marks[k];
                    cell.verdict =
                        crate::compare::verdict(cell.significant, cell.changes.mean, direction);
                }
            }
        }
    }
}

/// The rows of one direction's table: mmtests' rows come from the baseline's operations.
fn table_rows(c: &Comparison, direction: Direction) -> Vec<&Row> {
    c.rows
        .iter()
        .filter(|r| r.direction == direction && r.cells.first().is_some_and(Option::is_some))
        .collect()
}

/// mmtests' comparison table, byte for byte as `compare-mmtests.pl` prints it: rows come from
/// the baseline's operations. A comparison mixing directions gets one table per direction,
/// separated by a blank line.
/// mmtests' comparison table, byte for byte as `compare-mmtests.pl` prints it.
pub fn mmtests_text(c: &Comparison) -> String {
    table(c)
}

pub fn table(c: &Comparison) -> String {
    let kernels = &c.query.kernels;
    let p = c.precision;
    let style = c
        .family
        .as_ref()
        .map_or(Summarise::Multiops, |f| f.summarise);
    let mut out = String::new();
    for direction in [Direction::Higher, Direction::Lower] {
        let rows = table_rows(c, direction);
        if rows.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let stats = style.rows();
        let mean = Stat::mean(direction);
        let stat_len = stats
            .iter()
            .map(|s| s.name(direction).len())
            .max()
            .unwrap_or(0);
        let op_len = rows.iter().map(|r| r.label.len()).max().unwrap_or(0);
        out.push_str(&header(kernels, stat_len + op_len + 1));
        let marks: Vec<Vec<bool>> = rows.iter().map(|r| significance(&rows, r, mean)).collect();
        for &stat in stats {
            let lower = stat.smaller_is_better(direction);
            let name = stat.name(direction);
            for (r, row) in rows.iter().enumerate() {
                out.push_str(&format!("{name:<stat_len$} {:<op_len$}", row.label));
                let of = |c: &Option<crate::compare::Cell>| {
                    c.as_ref().and_then(|c| stat_of(stat, direction, &c.stats))
                };
                let base = row.cells.first().and_then(of);
                for (k, cell) in row.cells.iter().enumerate() {
                    let (shown, pct) = match of(cell) {
                        Some(v) => (
                            v,
                            if lower {
                                pndiff(Some(v), base)
                            } else {
                                pdiff(Some(v), base)
                            },
                        ),
                        None => (0.0, 0.0),
                    };
                    out.push_str(&fixed(shown, FIELD, p));
                    // Perl builds the cell as a string first: the percentage goes through %.15g.
                    let pct = fixed(via_string(pct), 7, 2);
                    if style.marked() == Some(stat) && marks[r][k] {
                        out.push_str(&format!(" *{pct}%*"));
                    } else {
                        out.push_str(&format!(" ({pct}%)"));
                    }
                }
                out.push('\n');
            }
        }
    }
    out
}

/// `rdiff(a, b)`: the ratio of two means (0 without a baseline, 1 without a value).
fn rdiff(a: Option<f64>, b: Option<f64>) -> f64 {
    match (a, b) {
        (_, None | Some(0.0)) => 0.0,
        (Some(a), Some(b)) if a != 0.0 => a / b,
        _ => 1.0,
    }
}

/// One cell of the ratio view: a kernel's mean over the baseline's, that ratio's percentage
/// gain, and the distance between the two means in units of their intervals (`cidiff`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RatioCell {
    pub ratio: f64,
    pub pct: f64,
    /// `None` when the baseline has no interval at all (mmtests prints `NaN`).
    pub normalised: Option<f64>,
}

/// A row of the ratio view: one operation (metric and param).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RatioRow {
    pub label: String,
    pub metric: String,
    pub param: String,
    pub cells: Vec<RatioCell>,
}

/// `--print-ratio`: per operation and kernel the ratio to the baseline, and per kernel the
/// summaries of the column (Dmean/Dmin/Dmax of the normalised values when the baseline has
/// intervals, and the geometric mean of the ratios).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RatioTable {
    pub kernels: Vec<String>,
    pub direction: Direction,
    pub rows: Vec<RatioRow>,
    pub dmean: Option<Vec<f64>>,
    pub dmin: Option<Vec<f64>>,
    pub dmax: Option<Vec<f64>>,
    pub gmean: Vec<f64>,
}

/// The ratio views of a comparison, one per direction (as the tables).
pub fn ratios(c: &Comparison) -> Vec<RatioTable> {
    let mut out = Vec::new();
    for direction in [Direction::Higher, Direction::Lower] {
        // `--print-ratio` lists the operations the parser marked (all if none were).
        let marked = c
            .family
            .as_ref()
            .map(|f| &f.ratio)
            .filter(|r| !r.is_empty());
        let rows: Vec<&Row> = table_rows(c, direction)
            .into_iter()
            .filter(|r| marked.is_none_or(|ops| ops.contains(&r.label)))
            .collect();
        if rows.is_empty() {
            continue;
        }
        let mean = Stat::mean(direction);
        // Singleops compares its one value, which has no interval.
        let single = c
            .family
            .as_ref()
            .is_some_and(|f| f.summarise == Summarise::Singleops);
        let value_of = |s: Option<&Stats>| {
            if single {
                s.and_then(|s| stat_of(SumStat::Value, direction, s))
            } else {
                value(mean, s)
            }
        };
        let interval_of = |s: &Stats| if single { None } else { interval(mean, s) };
        fn stats(r: &Row, k: usize) -> Option<&Stats> {
            r.cells.get(k).and_then(|c| c.as_ref()).map(|c| &c.stats)
        }
        let base_has_ci = rows
            .iter()
            .any(|r| stats(r, 0).is_some_and(|s| interval_of(s).is_some()));
        let table_rows: Vec<RatioRow> = rows
            .iter()
            .map(|r| {
                let bval = value_of(stats(r, 0));
                let bci = stats(r, 0).and_then(interval_of);
                let cells = (0..c.query.kernels.len())
                    .map(|k| {
                        let aval = value_of(stats(r, k));
                        let aci = stats(r, k).and_then(interval_of);
                        match (aval, bval) {
                            (Some(a), Some(b)) => {
                                let ratio = rdiff(Some(a), Some(b));
                                // Unknown: the plain change, neither gain nor loss.
                                let pct = match direction {
                                    Direction::Higher | Direction::Unknown => {
                                        pdiff(Some(ratio), Some(1.0))
                                    }
                                    Direction::Lower => pndiff(Some(ratio), Some(1.0)),
                                };
                                let normalised = base_has_ci.then(|| {
                                    let v = cidiff(a, aci, b, bci);
                                    if v.is_nan() {
                                        0.0
                                    } else {
                                        v
                                    }
                                });
                                RatioCell {
                                    ratio,
                                    pct,
                                    normalised,
                                }
                            }
                            _ => RatioCell {
                                ratio: 1.0,
                                pct: 0.0,
                                normalised: base_has_ci.then_some(0.0),
                            },
                        }
                    })
                    .collect();
                RatioRow {
                    label: r.label.clone(),
                    metric: r.metric.clone(),
                    param: r.param.clone(),
                    cells,
                }
            })
            .collect();
        let kernels = c.query.kernels.len();
        // mmtests walks the operations in Perl's hash order, which changes from run to run;
        // this walks them in the table's order (one of the orders mmtests may print).
        let column = |k: usize, f: &dyn Fn(&RatioCell) -> f64| -> Vec<f64> {
            table_rows.iter().map(|r| f(&r.cells[k])).collect()
        };
        let norm = |cell: &RatioCell| cell.normalised.unwrap_or(0.0);
        let (dmean, dmin, dmax) = if base_has_ci {
            let cols: Vec<Vec<f64>> = (0..kernels).map(|k| column(k, &norm)).collect();
            (
                Some(cols.iter().map(|v| amean(v).unwrap_or(f64::NAN)).collect()),
                Some(cols.iter().map(|v| first_by(v, |a, b| a < b)).collect()),
                Some(cols.iter().map(|v| first_by(v, |a, b| a > b)).collect()),
            )
        } else {
            (None, None, None)
        };
        let gmean = (0..kernels)
            .map(|k| {
                let units = column(k, &|cell| {
                    if cell.ratio.is_nan() {
                        1.0
                    } else if cell.ratio != 0.0 {
                        cell.ratio
                    } else {
                        0.00001
                    }
                });
                let mut product = 1.0;
                for u in &units {
                    product *= u;
                }
                let n = units.len();
                perl_pow(product, if n == 1 { 1.0 } else { 1.0 / n as f64 })
            })
            .collect();
        out.push(RatioTable {
            kernels: c.query.kernels.iter().map(ToString::to_string).collect(),
            direction,
            rows: table_rows,
            dmean,
            dmin,
            dmax,
            gmean,
        });
    }
    out
}

/// Stat.pm's calc_min/calc_max: the first value no other beats.
fn first_by(v: &[f64], better: impl Fn(f64, f64) -> bool) -> f64 {
    let mut m = v.first().copied().unwrap_or(f64::NAN);
    for x in v {
        if better(*x, m) {
            m = *x;
        }
    }
    m
}

/// `compare-mmtests.pl --print-ratio`, byte for byte.
pub fn ratio_text(c: &Comparison) -> String {
    let p = c.precision;
    let mut out = String::new();
    for t in ratios(c) {
        if !out.is_empty() {
            out.push('\n');
        }
        let preferred = match t.direction {
            Direction::Higher => "Higher",
            Direction::Lower => "Lower",
            Direction::Unknown => "Unknown",
        };
        let max_len = t.rows.iter().map(|r| r.label.len()).max().unwrap_or(0) + 6;
        out.push_str(&header(&t.kernels, max_len));
        // Compare.pm makes formats for (operations + 1) kernels; later kernels print every
        // cell as %18.2f.
        let formatted = t.rows.len() + 1;
        let ratio_cell = |k: usize, v: f64| {
            if k < formatted {
                fixed(v, FIELD, p)
            } else {
                fixed(v, FIELD, 2)
            }
        };
        let pct_cell = |k: usize, v: Option<f64>| -> String {
            let text = if k < formatted {
                format!(" ({}%)", fixed(v.unwrap_or(0.0), 0, 2))
            } else {
                fixed(v.unwrap_or(0.0), FIELD, 2)
            };
            if v.is_none() {
                " ".repeat(text.len())
            } else {
                text
            }
        };
        let norm_cell = |k: usize, v: Option<f64>, blank: bool| -> String {
            let text = if k >= formatted {
                match v {
                    Some(v) => fixed(v, FIELD, 2),
                    None => fixed(f64::NAN, FIELD, 2),
                }
            } else {
                match v {
                    Some(v) if v.is_nan() => " (NaNs)".to_owned(),
                    Some(v) => format!(" ({v:+.2}s)"),
                    None => " (NaNs)".to_owned(),
                }
            };
            if blank {
                " ".repeat(text.len())
            } else {
                text
            }
        };
        for r in &t.rows {
            out.push_str(&format!("{:<max_len$}", format!("Ratio {}", r.label)));
            for (k, cell) in r.cells.iter().enumerate() {
                out.push_str(&ratio_cell(k, cell.ratio));
                out.push_str(&pct_cell(k, Some(cell.pct)));
                out.push_str(&norm_cell(k, cell.normalised, false));
            }
            out.push('\n');
        }
        let mut summary = |name: &str, values: &[f64]| {
            out.push_str(&format!("{:<max_len$}", format!("{name} {preferred}")));
            for (k, v) in values.iter().enumerate() {
                out.push_str(&ratio_cell(k, *v));
                out.push_str(&pct_cell(k, None));
                out.push_str(&norm_cell(k, Some(0.0), true));
            }
            out.push('\n');
        };
        if let (Some(dmean), Some(dmin), Some(dmax)) = (&t.dmean, &t.dmin, &t.dmax) {
            summary("Dmean", dmean);
            summary("Dmin ", dmin);
            summary("Dmax ", dmax);
        }
        summary("Gmean", &t.gmean);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_prints_seven_significant_digits() {
        assert_eq!(r_print7(0.4183333342226), 0.4183333);
        assert_eq!(r_print7(58.285_600_000_1), 58.2856);
        assert_eq!(r_print7(12_345_678.9), 12_345_679.0);
        assert_eq!(r_print7(0.0), 0.0);
    }

    #[test]
    fn header_names_split_as_mmtests_does() {
        let check = |name: &str, top: &str, bottom: &str| {
            assert_eq!(
                header_parts(name),
                (top.to_owned(), bottom.to_owned()),
                "{name}"
            );
        };
        check("6.2.0-rc3-sched", "6.2.0-rc3", "sched");
        check("v6.9-rc1", "v6.9-rc1", "");
        check("baseline", "baselin", "baseline");
        check("6.1.0-vanilla", "6.1.0", "vanilla");
        check("patched-v2", "patched", "v2");
    }

    #[test]
    fn sums_follow_the_sorted_order() {
        // hb08: 0.052 0.050 0.051 0.048, summed ascending, prints 0.0502.
        let s = summarise(&[0.048, 0.050, 0.051, 0.052], Direction::Lower);
        assert_eq!(format!("{:.4}", s.amean.unwrap()), "0.0502");
        // np12: Hmean of 1517.25 ×2, 1457.75 ×2 summed descending prints 1486.91.
        let s = summarise(&[1517.25, 1517.25, 1457.75, 1457.75], Direction::Higher);
        assert_eq!(format!("{:.2}", s.hmean.unwrap()), "1486.91");
        assert_eq!(format!("{:.2}", s.bhmean95.unwrap()), "1496.88");
        // Binary ties print half to even, as glibc does.
        assert_eq!(fixed(0.15625, 18, 4).trim(), "0.1562");
        assert_eq!(format!("{:.2}", 12.125), "12.12");
    }
}
