// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see LICENSES/PROVENANCE.md.
//! mmtests' tables of a Perfline [`Comparison`]: how `compare-mmtests.pl` prints a table and its
//! ratios, and which of its statistics a summary's fields hold (`stat_of`), over the arithmetic
//! of the `mmtests-compare` crate (re-exported here). The rules are
//! in `server/tests/fixtures/mmtests-oracle/README.md`, each with its file and line in mmtests;
//! `docs/statistics.md` explains them.

use crate::label::Direction;
pub use mmtests_compare::arith::*;
pub use mmtests_compare::summarise::{Family, SumStat, Summarise};

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

/// One cell of mmtests' table: the value and the percentage as `compare-mmtests.pl` prints them
/// (padded to their fields), whether it is marked significant (`*pct%*`), and the percentage
/// as a number (positive is better).
#[derive(Debug, Clone, PartialEq)]
pub struct TableCell {
    pub value: String,
    pub pct: String,
    pub marked: bool,
    pub change: f64,
}

/// One line of mmtests' table: a statistic of one operation across the kernels.
#[derive(Debug, Clone, PartialEq)]
pub struct TableLine {
    pub stat: String,
    pub label: String,
    pub cells: Vec<TableCell>,
}

/// One of mmtests' tables of a comparison (one per direction), line by line: what
/// [`table`] prints and the whole-tree page colours.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub direction: Direction,
    stat_len: usize,
    op_len: usize,
    pub lines: Vec<TableLine>,
}

/// mmtests' tables of a comparison, one per direction, as data.
pub fn tables(c: &Comparison) -> Vec<Table> {
    let p = c.precision;
    let style = c
        .family
        .as_ref()
        .map_or(Summarise::Multiops, |f| f.summarise);
    let mut out = Vec::new();
    for direction in [Direction::Higher, Direction::Lower] {
        let rows = table_rows(c, direction);
        if rows.is_empty() {
            continue;
        }
        let stats = style.rows();
        let mean = Stat::mean(direction);
        let stat_len = stats
            .iter()
            .map(|s| s.name(direction).len())
            .max()
            .unwrap_or(0);
        let op_len = rows.iter().map(|r| r.label.len()).max().unwrap_or(0);
        let marks: Vec<Vec<bool>> = rows.iter().map(|r| significance(&rows, r, mean)).collect();
        let mut lines = Vec::new();
        for &stat in stats {
            let lower = stat.smaller_is_better(direction);
            let name = stat.name(direction);
            for (r, row) in rows.iter().enumerate() {
                let of = |c: &Option<crate::compare::Cell>| {
                    c.as_ref().and_then(|c| stat_of(stat, direction, &c.stats))
                };
                let base = row.cells.first().and_then(of);
                let cells = row
                    .cells
                    .iter()
                    .enumerate()
                    .map(|(k, cell)| {
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
                        // Perl builds the cell as a string first: the percentage goes through %.15g.
                        let change = via_string(pct);
                        TableCell {
                            value: fixed(shown, FIELD, p),
                            pct: fixed(change, 7, 2),
                            marked: style.marked() == Some(stat) && marks[r][k],
                            change,
                        }
                    })
                    .collect();
                lines.push(TableLine {
                    stat: name.clone(),
                    label: row.label.clone(),
                    cells,
                });
            }
        }
        out.push(Table {
            direction,
            stat_len,
            op_len,
            lines,
        });
    }
    out
}

pub fn table(c: &Comparison) -> String {
    let kernels = &c.query.kernels;
    let mut out = String::new();
    for t in tables(c) {
        if !out.is_empty() {
            out.push('\n');
        }
        let (stat_len, op_len) = (t.stat_len, t.op_len);
        out.push_str(&header(kernels, stat_len + op_len + 1));
        for line in &t.lines {
            out.push_str(&format!("{:<stat_len$} {:<op_len$}", line.stat, line.label));
            for cell in &line.cells {
                out.push_str(&cell.value);
                if cell.marked {
                    out.push_str(&format!(" *{}%*", cell.pct));
                } else {
                    out.push_str(&format!(" ({}%)", cell.pct));
                }
            }
            out.push('\n');
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
        let subselection = c
            .family
            .as_ref()
            .is_some_and(|f| f.summarise == Summarise::Subselection);
        // A Subselection family compares its SubMean within the subselection interval
        // (`submeanci_low/high`), a Normalisedops or Multiops family its mean within `meanci`.
        let interval_of = |s: &Stats| {
            if single {
                None
            } else if subselection {
                let m = value(mean, Some(s))?;
                let h = submean_ci(s.n as usize, s.pstddev * s.pstddev)?;
                Some((m - h, m + h))
            } else {
                interval(mean, s)
            }
        };
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
