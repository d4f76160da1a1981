// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see LICENSES/PROVENANCE.md.
//! Comparisons of kernels: the statistics of each kernel's samples, the mmtests verdicts
//! computed from them, and LKP's `%change` layout of every row ([`lkp_approximation`]). The
//! text of a comparison, whichever table, is `compare_text`'s.
//!
//! The statistics themselves are computed by the server (with polars); everything here is pure
//! and shared with the browser, so the page and `curl` show the very same numbers and text.

use serde::{Deserialize, Serialize};

use crate::label::Direction;
use crate::types::CompareQuery;

/// The two-sided 95% normal quantile mmtests uses for its significance test.
pub const SIGNIFICANCE_Z: f64 = 1.95996;

/// The statistics of one kernel's samples at one (metric, param).
///
/// A statistic that is undefined for these samples is `None` (JSON `null`), never NaN:
/// `stddev` needs two samples, harmonic statistics need every sample to be positive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Stats {
    pub n: i64,
    pub min: f64,
    pub max: f64,
    /// Arithmetic mean.
    pub amean: f64,
    /// Harmonic mean n/Σ(1/x).
    pub hmean: Option<f64>,
    /// Sample standard deviation (÷ n−1).
    pub stddev: Option<f64>,
    /// mmtests' harmonic standard deviation √(Σ(1/x − 1/H)² · H⁴ / n).
    pub hstddev: Option<f64>,
    /// 100 · stddev / amean.
    pub coeffvar: Option<f64>,
    /// 100 · hstddev / hmean.
    pub hcoeffvar: Option<f64>,
    /// Arithmetic mean of the best ⌊0.95·n⌋ samples (at least one).
    pub bamean95: f64,
    /// Harmonic mean of the best ⌊0.95·n⌋ samples (at least one).
    pub bhmean95: Option<f64>,
    /// The median (mean of the two middle samples when n is even).
    pub median: f64,
    /// Population standard deviation (÷ n): LKP's stddev.
    pub pstddev: f64,
    /// `sorted[n/2]`: the "median" LKP's change detection uses.
    pub upper_median: f64,
    /// The half-width of the mean's 95 % interval as mmtests has R print it (`None` with one
    /// sample, or no mean).
    #[serde(default)]
    pub ci: Option<f64>,
    /// Samples above 0: for a failure key, the runs in which the failure was seen.
    #[serde(default)]
    pub present: i64,
    /// The statistics an mmtests summary style prints beyond these (`Pctile.95`,
    /// `BAmean.50`, `Ops`...), by the name mmtests prints; `null` where undefined.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<(String, Option<f64>)>,
}

/// A row statistic of the mmtests table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stat {
    Min,
    Amean,
    Hmean,
    Stddev,
    HStddev,
    CoeffVar,
    HCoeffVar,
    Max,
    BAmean95,
    BHmean95,
}

impl Stat {
    /// The rows mmtests prints for a direction, in its order.
    pub fn rows(direction: Direction) -> [Stat; 6] {
        match direction {
            Direction::Higher => [
                Stat::Min,
                Stat::Hmean,
                Stat::HStddev,
                Stat::HCoeffVar,
                Stat::Max,
                Stat::BHmean95,
            ],
            // A metric of unknown direction is summarised as lower-is-better's are (arithmetic).
            Direction::Lower | Direction::Unknown => [
                Stat::Min,
                Stat::Amean,
                Stat::Stddev,
                Stat::CoeffVar,
                Stat::Max,
                Stat::BAmean95,
            ],
        }
    }

    /// The mean a direction is judged by (mmtests: Hmean for higher, Amean for lower).
    pub fn mean(direction: Direction) -> Stat {
        match direction {
            Direction::Higher => Stat::Hmean,
            Direction::Lower | Direction::Unknown => Stat::Amean,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stat::Min => "Min",
            Stat::Amean => "Amean",
            Stat::Hmean => "Hmean",
            Stat::Stddev => "Stddev",
            Stat::HStddev => "HStddev",
            Stat::CoeffVar => "CoeffVar",
            Stat::HCoeffVar => "HCoeffVar",
            Stat::Max => "Max",
            Stat::BAmean95 => "BAmean.95",
            Stat::BHmean95 => "BHmean.95",
        }
    }

    /// Whether a smaller value of this row is better: every spread row, and every row of a
    /// lower-is-better metric.
    pub fn smaller_is_better(self, direction: Direction) -> bool {
        matches!(
            self,
            Stat::Stddev | Stat::HStddev | Stat::CoeffVar | Stat::HCoeffVar
        ) || direction == Direction::Lower
    }

    pub fn of(self, s: &Stats) -> Option<f64> {
        match self {
            Stat::Min => Some(s.min),
            Stat::Amean => Some(s.amean),
            Stat::Hmean => s.hmean,
            Stat::Stddev => s.stddev,
            Stat::HStddev => s.hstddev,
            Stat::CoeffVar => s.coeffvar,
            Stat::HCoeffVar => s.hcoeffvar,
            Stat::Max => Some(s.max),
            Stat::BAmean95 => Some(s.bamean95),
            Stat::BHmean95 => s.bhmean95,
        }
    }

    /// The spread that goes with a mean in the significance test.
    fn spread(self, s: &Stats) -> Option<f64> {
        match self {
            Stat::Hmean => s.hstddev,
            _ => s.stddev,
        }
    }
}

/// mmtests' percentage for one statistic: positive is always better.
pub fn change(stat: Stat, direction: Direction, new: f64, base: f64) -> f64 {
    if stat.smaller_is_better(direction) {
        mmtests_compare::arith::pndiff(Some(new), Some(base))
    } else {
        mmtests_compare::arith::pdiff(Some(new), Some(base))
    }
}

/// mmtests' significance test on the mean row: the intervals mean ± 1.95996·stddev of the
/// two kernels do not overlap, i.e. |base − new| > 1.95996 · (sd_base + sd_new).
///
/// Undefined spreads (a single sample) cannot show significance; two spreads of zero make any
/// difference significant.
pub fn significant(base: f64, base_sd: Option<f64>, new: f64, new_sd: Option<f64>) -> bool {
    let (Some(sb), Some(sn)) = (base_sd, new_sd) else {
        return false;
    };
    let d = base - new;
    let s = SIGNIFICANCE_Z * (sb + sn);
    if s == 0.0 {
        return d != 0.0;
    }
    (d / s).abs() > 1.0
}

/// The verdict of a mean's change (positive = better, or up when the direction is unknown) and
/// its significance.
pub fn verdict(significant: bool, mean_change: Option<f64>, direction: Direction) -> Verdict {
    match mean_change {
        Some(c) if significant && c != 0.0 && !direction.is_known() => Verdict::Changed,
        Some(c) if significant && c > 0.0 => Verdict::Improvement,
        Some(c) if significant && c < 0.0 => Verdict::Regression,
        Some(c) if !significant && c.abs() > 1.0 => Verdict::NeedsMoreRuns,
        _ => Verdict::Unchanged,
    }
}

/// What a cell says about its kernel against the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Verdict {
    /// This is the baseline.
    Baseline,
    /// A significant change for the better.
    Improvement,
    /// A significant change for the worse.
    Regression,
    /// A significant change of a metric whose direction is unknown: neither better nor worse.
    Changed,
    /// The mean moved by more than 1% but the noise hides whether it is real.
    NeedsMoreRuns,
    /// Within 1% and not significant.
    Unchanged,
}

/// mmtests' percentages of one kernel against the baseline, positive = better; `None` where a
/// statistic is undefined on either side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Changes {
    pub min: Option<f64>,
    /// Of the direction's mean (Hmean for higher-is-better, Amean for lower-is-better).
    pub mean: Option<f64>,
    /// Of the direction's spread (HStddev / Stddev).
    pub stddev: Option<f64>,
    /// Of the direction's coefficient of variation (HCoeffVar / CoeffVar).
    pub coeffvar: Option<f64>,
    pub max: Option<f64>,
    /// Of the direction's best-95% mean (BHmean.95 / BAmean.95).
    pub bmean95: Option<f64>,
}

impl Changes {
    /// The percentage of row `i` of [`Stat::rows`].
    pub fn by_row(&self, i: usize) -> Option<f64> {
        [
            self.min,
            self.mean,
            self.stddev,
            self.coeffvar,
            self.max,
            self.bmean95,
        ][i]
    }
}

/// One kernel at one (metric, param).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Cell {
    pub stats: Stats,
    pub changes: Changes,
    /// mmtests' significance of the mean change (never for the baseline).
    pub significant: bool,
    pub verdict: Verdict,
    /// LKP's `%change`: 100·(amean − base amean)/base amean (an absolute difference for metrics
    /// ending in `%`).
    pub lkp_change: Option<f64>,
    /// LKP's min/median/max rule says this kernel is clearly apart from the baseline.
    pub lkp_changed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Row {
    pub metric: String,
    pub param: String,
    /// `metric-param` as mmtests prints it (`tcpstream-send-64`, `time-8`).
    pub label: String,
    pub unit: Option<String>,
    pub direction: Direction,
    /// One cell per kernel, in the comparison's order; `None` where that kernel has no samples.
    pub cells: Vec<Option<Cell>>,
    /// The row's noise: within each compared kernel's runs, and between its runs.
    #[serde(default)]
    pub noise: Option<crate::noise::Noise>,
    /// What the compared runs can tell, and the runs per kernel a `detect` change needs
    /// (`None` where no spread is known: one sample per kernel).
    #[serde(default)]
    pub advice: Option<crate::noise::Advice>,
}

/// The lines `advice=1` adds under a comparison's text: one per row whose runs cannot tell a
/// `detect` change, saying how many would (and a line when every row's can, or none can say).
pub fn advice_text(rows: &[Row], detect: f64) -> String {
    let mut out = format!(
        "\nRun-count advice (a {:.1} % change; two-sided t test, 95 % confidence, 80 % power):\n",
        detect * 100.0
    );
    let mut short = 0;
    let mut unknown = 0;
    for row in rows {
        match &row.advice {
            Some(a) if a.needs_more_runs() => {
                short += 1;
                out.push_str(&format!("{}: {}\n", row.label, a.sentence()));
            }
            Some(_) => {}
            None => unknown += 1,
        }
    }
    if short == 0 {
        out.push_str("Every row with a known spread has runs enough.\n");
    }
    if unknown > 0 {
        out.push_str(&format!(
            "{unknown} row(s) have one sample per kernel: no spread to advise from.\n"
        ));
    }
    out
}

/// The runs each kernel's samples came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct KernelRuns {
    pub kernel: String,
    pub runs: Vec<i64>,
}

/// A whole comparison: what was asked, which runs answered, and a row per (metric, param).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Comparison {
    pub query: CompareQuery,
    pub runs: Vec<KernelRuns>,
    /// Decimal places of the text table (mmtests: netperf 2, hackbench 4).
    pub precision: usize,
    /// The permalink id (`/c/{id}`), when one has been made.
    pub permalink: Option<String>,
    pub rows: Vec<Row>,
    /// What differs between the baseline's runs and each kernel's, besides the kernel
    /// (`crate::facts`): kernels without differences are left out.
    #[serde(default)]
    pub facts: Vec<crate::facts::FactsDiff>,
    /// Of a comparison over [`PAGE_ROWS`] rows (an LKP job's thousands of keys): the labels
    /// lkp-tests' rules select as changed between the first two kernels, in its order. Pages
    /// show these rows first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    /// How mmtests compares this benchmark, when it is one of its families (or an upload of
    /// its rows said): the tables follow it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<mmtests_compare::summarise::Family>,
}

/// A comparison of more rows than this is shown a page at a time, changed rows first.
pub const PAGE_ROWS: usize = 50;

/// Which rows of a large comparison a page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RowsPage {
    /// Rows in all, rows whose label holds the filter, and how many of those changed.
    pub total: usize,
    pub matched: usize,
    pub changed: usize,
    /// 1-based, within `1..=pages`.
    pub page: usize,
    pub pages: usize,
}

impl Comparison {
    /// Whether a row changed: lkp-tests selects it, or one of its cells is a significant change.
    fn row_changed(changed: &std::collections::HashSet<&str>, row: &Row) -> bool {
        changed.contains(row.label.as_str())
            || row.cells.iter().flatten().any(|c| {
                matches!(
                    c.verdict,
                    Verdict::Improvement | Verdict::Regression | Verdict::Changed
                )
            })
    }

    /// The comparison a page shows: the rows whose label holds `filter` (in any case), changed
    /// ones first (lkp-tests' selection in its order, then significant changes), then the rest
    /// in their order; [`PAGE_ROWS`] of them from page `page` (1-based, clamped). A comparison
    /// of at most [`PAGE_ROWS`] rows is shown whole, as it is.
    pub fn page(&self, filter: &str, page: usize) -> (Comparison, Option<RowsPage>) {
        if self.rows.len() <= PAGE_ROWS && filter.is_empty() {
            return (self.clone(), None);
        }
        let needle = filter.trim().to_lowercase();
        let changed: std::collections::HashSet<&str> =
            self.changed.iter().map(String::as_str).collect();
        let rank: std::collections::HashMap<&str, usize> = self
            .changed
            .iter()
            .enumerate()
            .map(|(i, l)| (l.as_str(), i))
            .collect();
        let mut rows: Vec<(usize, &Row)> = self
            .rows
            .iter()
            .filter(|r| needle.is_empty() || r.label.to_lowercase().contains(&needle))
            .map(|r| {
                let order = match rank.get(r.label.as_str()) {
                    Some(&i) => i,
                    None if Comparison::row_changed(&changed, r) => self.changed.len(),
                    None => usize::MAX,
                };
                (order, r)
            })
            .collect();
        // Stable: rows of one rank keep the comparison's order.
        rows.sort_by_key(|(order, _)| *order);
        let matched = rows.len();
        let n_changed = rows.iter().filter(|(o, _)| *o != usize::MAX).count();
        let pages = matched.div_ceil(PAGE_ROWS).max(1);
        let page = page.clamp(1, pages);
        let shown: Vec<Row> = rows
            .into_iter()
            .skip((page - 1) * PAGE_ROWS)
            .take(PAGE_ROWS)
            .map(|(_, r)| r.clone())
            .collect();
        let c = Comparison {
            query: self.query.clone(),
            runs: self.runs.clone(),
            precision: self.precision,
            permalink: self.permalink.clone(),
            rows: shown,
            facts: self.facts.clone(),
            changed: self.changed.clone(),
            family: self.family.clone(),
        };
        (
            c,
            Some(RowsPage {
                total: self.rows.len(),
                matched,
                changed: n_changed,
                page,
                pages,
            }),
        )
    }
}

/// The label mmtests gives a row.
pub fn row_label(metric: &str, param: &str) -> String {
    if param.is_empty() {
        metric.to_owned()
    } else {
        format!("{metric}-{param}")
    }
}

/// Decimal places mmtests uses for a benchmark's table.
pub fn default_precision(benchmark: &str) -> usize {
    if benchmark.starts_with("hackbench") {
        4
    } else {
        2
    }
}

/// Whether LKP reports this metric's change as an absolute difference.
/// Whether an LKP key counts failures or warnings per run (`dmesg.*`, `kmsg.*`,
/// `last_state.*`): LKP reports these as `fail:runs` with `%reproduction`, not as means.
pub fn is_failure_key(metric: &str) -> bool {
    ["dmesg.", "kmsg.", "last_state."]
        .iter()
        .any(|p| metric.starts_with(p))
}

pub fn lkp_absolute(metric: &str) -> bool {
    metric.ends_with('%') || metric.starts_with("perf-profile")
}

/// LKP's rule for "clearly apart": one side's min is above the other's median and its median
/// above the other's max, and the medians differ by more than 1%.
pub fn lkp_changed(base: &Stats, new: &Stats) -> bool {
    let apart = |a: &Stats, b: &Stats| a.min > b.upper_median && a.upper_median > b.max;
    if !(apart(base, new) || apart(new, base)) {
        return false;
    }
    let (high, low) = if new.upper_median > base.upper_median {
        (new.upper_median, base.upper_median)
    } else {
        (base.upper_median, new.upper_median)
    };
    let ratio = if low > 0.0 { high / low } else { 5.0 };
    ratio > 1.01
}

/// Builds a cell of `stats` against the baseline's (None for the baseline itself).
pub fn cell(stats: Stats, base: Option<&Stats>, metric: &str, direction: Direction) -> Cell {
    let Some(base) = base else {
        return Cell {
            changes: Changes {
                min: Some(0.0),
                mean: Some(0.0),
                stddev: Some(0.0),
                coeffvar: Some(0.0),
                max: Some(0.0),
                bmean95: Some(0.0),
            },
            significant: false,
            verdict: Verdict::Baseline,
            lkp_change: Some(0.0),
            lkp_changed: false,
            stats,
        };
    };
    let rows = Stat::rows(direction);
    let pct = |i: usize| {
        let stat = rows[i];
        match (stat.of(&stats), stat.of(base)) {
            (Some(new), Some(old)) => Some(change(stat, direction, new, old)),
            _ => None,
        }
    };
    let changes = Changes {
        min: pct(0),
        mean: pct(1),
        stddev: pct(2),
        coeffvar: pct(3),
        max: pct(4),
        bmean95: pct(5),
    };
    let mean = Stat::mean(direction);
    let significant = match (mean.of(base), mean.of(&stats)) {
        (Some(b), Some(n)) => significant(b, mean.spread(base), n, mean.spread(&stats)),
        _ => false,
    };
    let verdict = verdict(significant, changes.mean, direction);
    let lkp_change = if lkp_absolute(metric) {
        Some(stats.amean - base.amean)
    } else if base.amean != 0.0 {
        Some(100.0 * (stats.amean - base.amean) / base.amean)
    } else {
        None
    };
    Cell {
        changes,
        significant,
        verdict,
        lkp_change,
        lkp_changed: lkp_changed(base, &stats),
        stats,
    }
}

/// LKP's number column: `%10.2f` below 1000, `%10.4g` above 1e8, `%10d` (truncated) between.
fn lkp_value(avg: f64) -> String {
    let a = avg.abs();
    if a < 1000.0 {
        format!("{avg:10.2}")
    } else if a > 100_000_000.0 {
        format!("{:>10}", crate::text::g(avg, 4))
    } else {
        format!("{:10}", avg.trunc() as i64)
    }
}

/// LKP's ` ±NN%` after a value, shown only above 2%.
fn lkp_stddev(s: &Stats) -> String {
    let pct = if s.n < 2 {
        -1.0
    } else if s.amean != 0.0 {
        100.0 * s.pstddev / s.amean
    } else {
        s.pstddev
    };
    if pct > 2.0 {
        format!(" ±{:3}%", pct.trunc() as i64)
    } else {
        " ".repeat(6)
    }
}

/// LKP's `%change` column.
fn lkp_change_text(change: Option<f64>, absolute: bool) -> String {
    let Some(p) = change else {
        return format!("{:>10}  ", "-");
    };
    let num = if p.abs() < 100_000.0 {
        format!("{p:+10.1}")
    } else {
        let g = crate::text::g(p, 2);
        let g = if g.starts_with('-') {
            g
        } else {
            format!("+{g}")
        };
        format!("{g:>10}")
    };
    if absolute {
        format!("{num}  ")
    } else {
        format!("{num}% ")
    }
}

/// Every row of a comparison in the layout of LKP's `ncompare` (its `fail:runs` block, then
/// `%stddev %change %stddev`), computed from the statistics here: an approximation, for the
/// rows lkp-tests itself would not print (`style=lkp&all=1`, the offline report). lkp-tests'
/// own table of the changed rows, byte for byte, is the port in `app::lkp`, which needs the
/// runs' samples (the server's `stats::lkp_text`).
pub fn lkp_approximation(c: &Comparison) -> String {
    let kernels = &c.query.kernels;
    let mut out = String::new();
    out.push_str(&"=".repeat(89));
    out.push('\n');
    // lkp-tests' group header, its axes as far as Perfline knows them.
    out.push_str("tbox_group/testcase:\n");
    out.push_str(&format!(
        "  {}/{}\n\n",
        c.query.machine_name(),
        c.query.benchmark
    ));
    out.push_str("commit: \n");
    for k in kernels {
        out.push_str(&format!("  {k}\n"));
    }
    out.push('\n');
    let truncate = |s: &str, n: usize| s.chars().take(n).collect::<String>();
    if let Some(first) = kernels.first() {
        out.push_str(&format!("{:>16} ", truncate(first, 16)));
    }
    for k in kernels.iter().skip(1) {
        out.push_str(&format!("{:>27} ", truncate(k, 27)));
    }
    out.push('\n');
    out.push_str(&format!("{} ", "-".repeat(16)));
    for _ in kernels.iter().skip(1) {
        out.push_str(&format!("{} ", "-".repeat(27)));
    }
    out.push('\n');
    let others = kernels.len().saturating_sub(1);
    out.push_str(&fail_runs_block(c));
    out.push_str(&format!(
        "         %stddev{}\n",
        "     %change         %stddev".repeat(others)
    ));
    out.push_str(&format!(
        "             \\  {}\n",
        "        |                \\  ".repeat(others)
    ));
    for row in c.rows.iter().filter(|r| !is_failure_key(&r.metric)) {
        let absolute = lkp_absolute(&row.metric);
        for (i, cell) in row.cells.iter().enumerate() {
            if i > 0 {
                out.push_str(&lkp_change_text(
                    cell.as_ref().and_then(|c| c.lkp_change),
                    absolute,
                ));
            }
            match cell {
                Some(cell) => {
                    out.push_str(&lkp_value(cell.stats.amean));
                    out.push_str(&lkp_stddev(&cell.stats));
                }
                None => out.push_str(&format!("{:>10}{}", "-", " ".repeat(6))),
            }
        }
        out.push_str(&format!("  {}\n", row.label));
    }
    out.push('\n');
    out
}

/// [`lkp_approximation`]'s `fail:runs  %reproduction  fail:runs` block: per failure key
/// (`is_failure_key`) and kernel, the runs it was seen in out of the kernel's runs, and the
/// change of that rate against the baseline. Empty without failure keys.
fn fail_runs_block(c: &Comparison) -> String {
    let runs: Vec<usize> = c
        .query
        .kernels
        .iter()
        .map(|k| {
            c.runs
                .iter()
                .find(|r| &r.kernel == k)
                .map_or(0, |r| r.runs.len())
        })
        .collect();
    let fail = |row: &Row, k: usize| -> usize {
        row.cells
            .get(k)
            .and_then(|c| c.as_ref())
            .map_or(0, |c| c.stats.present.max(0) as usize)
    };
    let rate = |f: usize, n: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * f as f64 / n as f64
        }
    };
    let mut lines = String::new();
    for row in c.rows.iter().filter(|r| is_failure_key(&r.metric)) {
        let base = rate(fail(row, 0), runs[0]);
        let count = |f: usize| if f == 0 { String::new() } else { f.to_string() };
        lines.push_str(&format!("{:>11}:{:<3}", count(fail(row, 0)), runs[0]));
        for (k, n) in runs.iter().enumerate().skip(1) {
            let pct = rate(fail(row, k), *n) - base;
            lines.push_str(&format!(
                "{:>12}{:>12}:{:<3}",
                format!("{pct:.0}%"),
                count(fail(row, k)),
                n
            ));
        }
        lines.push_str(&format!("   {}\n", row.label));
    }
    if lines.is_empty() {
        return lines;
    }
    let others = runs.len().saturating_sub(1);
    format!(
        "{:>16}{}\n{:>12}{}\n{lines}",
        "fail:runs",
        format!("{:>15}{:>13}", "%reproduction", "fail:runs").repeat(others),
        "|",
        format!("{:>14}{:>14}", "|", "|").repeat(others),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(values: &[f64]) -> Stats {
        // A plain reference implementation, for the pure functions under test here.
        let n = values.len() as f64;
        let amean = values.iter().sum::<f64>() / n;
        let mut sorted = values.to_vec();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let var = values.iter().map(|x| (x - amean).powi(2)).sum::<f64>();
        Stats {
            more: Vec::new(),
            n: values.len() as i64,
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            amean,
            hmean: None,
            stddev: (values.len() > 1).then(|| (var / (n - 1.0)).sqrt()),
            hstddev: None,
            coeffvar: None,
            hcoeffvar: None,
            bamean95: amean,
            bhmean95: None,
            median: sorted[sorted.len() / 2],
            pstddev: (var / n).sqrt(),
            upper_median: sorted[sorted.len() / 2],
            ci: None,
            present: values.iter().filter(|v| **v > 0.0).count() as i64,
        }
    }

    #[test]
    fn kernel_names_split_like_mmtests() {
        let check = |input: &str, (top, bottom): (&str, &str)| {
            let got = crate::mmtests::header_parts(input);
            assert_eq!(got, (top.to_owned(), bottom.to_owned()), "{input}");
        };
        check("5.4.0-vanilla", ("5.4.0", "vanilla"));
        check("5.5.0-rc3-vanilla", ("5.5.0-rc3", "vanilla"));
        // mmtests moves past four characters, `-rcN`, and drops the one after: a two-digit
        // rc loses its second digit.
        check("4.16.0-rc12-foo-bar", ("4.16.0-rc1", "-foo-bar"));
        check("4.16.0-rc1", ("4.16.0-rc1", ""));
        // No dash: Perl's substr(name, 0, -1) on top, the whole name below.
        check("6.1.0", ("6.1.", "6.1.0"));
        check("6.1.0-rcx", ("6.1.0", "rcx"));
    }

    #[test]
    fn percentages_follow_mmtests_edge_cases() {
        use mmtests_compare::arith::{pdiff, pndiff};
        assert_eq!(pdiff(Some(5.0), Some(5.0)), 0.0);
        assert_eq!(pdiff(Some(0.0), Some(5.0)), 0.0);
        assert_eq!(pdiff(Some(5.0), Some(0.0)), 100.0);
        assert!((pdiff(Some(945.46), Some(1784.43)) - -47.0165).abs() < 1e-3);
        assert_eq!(pndiff(Some(5.0), Some(5.0)), 0.0);
        assert_eq!(pndiff(Some(0.0), Some(5.0)), 100.0);
        assert_eq!(pndiff(Some(5.0), Some(0.0)), -99.0);
        assert!((pndiff(Some(0.0553), Some(0.0505)) - -9.5049).abs() < 1e-3);
    }

    #[test]
    fn significance_needs_non_overlapping_intervals() {
        // hackbench time-8 in the fixture: close, but not significant.
        assert!(!significant(0.2702, Some(0.0067), 0.3052, Some(0.0116)));
        assert!(significant(1784.43, Some(28.33), 945.46, Some(14.38)));
        assert!(
            !significant(1.0, None, 2.0, Some(0.1)),
            "one sample proves nothing"
        );
        assert!(significant(1.0, Some(0.0), 1.1, Some(0.0)));
        assert!(!significant(1.0, Some(0.0), 1.0, Some(0.0)));
    }

    #[test]
    fn verdicts_and_lkp_rule() {
        let base = stats(&[10.0, 10.1, 9.9, 10.0]);
        let worse = stats(&[9.0, 9.1, 8.9, 9.0]);
        let noisy = stats(&[9.0, 11.5, 8.0, 10.2]);
        let c = cell(worse.clone(), Some(&base), "tput", Direction::Lower);
        assert_eq!(
            c.verdict,
            Verdict::Improvement,
            "lower is better: 9 beats 10"
        );
        let c = cell(worse, Some(&base), "tput", Direction::Higher);
        // Hmean is undefined in these hand-made stats, so no mean change can be judged.
        assert_eq!(c.verdict, Verdict::Unchanged);
        assert!(c.lkp_changed);
        assert!((c.lkp_change.unwrap() - -10.0).abs() < 1e-9);
        let c = cell(noisy, Some(&base), "tput", Direction::Lower);
        assert_eq!(c.verdict, Verdict::NeedsMoreRuns);
        assert!(!c.lkp_changed);
    }

    #[test]
    fn undefined_statistics_print_as_mmtests_does() {
        let one = stats(&[0.0]);
        let base = cell(one.clone(), None, "t", Direction::Higher);
        let other = cell(one, Some(&base.stats), "t", Direction::Higher);
        let c = Comparison {
            query: CompareQuery::parse("b", "m", &["a", "b"]).unwrap(),
            runs: Vec::new(),
            precision: 2,
            permalink: None,
            rows: vec![Row {
                metric: "t".into(),
                param: "1".into(),
                label: "t-1".into(),
                unit: None,
                direction: Direction::Higher,
                cells: vec![Some(base), Some(other)],
                noise: None,
                advice: None,
            }],
            facts: Vec::new(),
            changed: Vec::new(),
            family: None,
        };
        // A 0 throughput has no harmonic mean: mmtests prints the cell as 0.00 (np22).
        let text = crate::mmtests::table(&c);
        assert!(!text.contains("inf"), "{text}");
        let hmean = text.lines().find(|l| l.starts_with("Hmean")).unwrap();
        assert!(
            hmean.ends_with("0.00 (   0.00%)              0.00 (   0.00%)"),
            "{hmean:?}"
        );
        let lkp = lkp_approximation(&c);
        assert!(!lkp.contains("NaN") && !lkp.contains("inf"), "{lkp}");
    }

    #[test]
    fn lkp_columns_match_the_robots_mails() {
        assert_eq!(lkp_value(138055.0), "    138055");
        assert_eq!(lkp_value(0.36), "      0.36");
        assert_eq!(lkp_value(5.488e8), " 5.488e+08");
        assert_eq!(lkp_change_text(Some(33.4), false), "     +33.4% ");
        assert_eq!(lkp_change_text(Some(-0.04), true), "      -0.0  ");
        assert_eq!(lkp_change_text(Some(210000.0), false), "  +2.1e+05% ");
        let mut s = stats(&[1.0, 2.0]);
        s.amean = 100.0;
        s.pstddev = 18.7;
        assert_eq!(lkp_stddev(&s), " ± 18%");
        s.pstddev = 2.0;
        assert_eq!(lkp_stddev(&s), "      ");
    }
}
