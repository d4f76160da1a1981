// SPDX-License-Identifier: GPL-3.0-or-later
//! Trends by commit: the wire types of a metric's history, and its ASCII chart in the style of
//! the LKP robot's mails (gnuplot's `dumb` terminal). Pure, so the server (for `curl`) and the
//! browser draw the very same characters.

use serde::{Deserialize, Serialize};

use crate::label::{CommitSha, HistoryName, Label, Metric, Param};

/// The `param` that asks for every param of a metric (`/trend?param=*`).
pub const ALL_PARAMS: &str = "*";

/// The most trends one chart (or one page of small multiples) shows: the API refuses more,
/// the trend page shows the first ones and says how many there are.
pub const MAX_SERIES: usize = 12;

/// A bisect mark on a run or a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Mark {
    Good,
    Bad,
    Skip,
}

impl Mark {
    pub fn parse(raw: &str) -> Option<Mark> {
        match raw {
            "good" => Some(Mark::Good),
            "bad" => Some(Mark::Bad),
            "skip" => Some(Mark::Skip),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Good => "good",
            Mark::Bad => "bad",
            Mark::Skip => "skip",
        }
    }
}

/// What a trend shows: one metric at one param of one benchmark on one machine.
/// Parsed once where it comes in (the API's query string, the trend page's form); every name
/// is valid from there on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TrendQuery {
    pub benchmark: Label,
    pub machine: Label,
    pub metric: Metric,
    #[serde(default)]
    pub param: Param,
    /// The history (`repo/branch`) to order commits by; default: the one holding most of them.
    pub history: Option<HistoryName>,
}

impl TrendQuery {
    /// The trend of `metric` at `param` of `benchmark` on `machine`, in the default order.
    pub fn parse(
        benchmark: &str,
        machine: &str,
        metric: &str,
        param: &str,
    ) -> Result<TrendQuery, String> {
        TrendForm {
            benchmark: benchmark.into(),
            machine: machine.into(),
            metric: metric.into(),
            param: param.into(),
            history: None,
        }
        .parse_any_param()
    }

    /// The same trend at another param.
    pub fn at(&self, param: Param) -> TrendQuery {
        TrendQuery {
            param,
            ..self.clone()
        }
    }

    /// The same trend on another machine.
    pub fn on(&self, machine: Label) -> TrendQuery {
        TrendQuery {
            machine,
            ..self.clone()
        }
    }
}

/// The trend page's form as typed: any field may still be empty or wrong. [`TrendForm::parse`]
/// makes the [`TrendQuery`] of it, in the browser before the page asks and on the server
/// when it is asked, with the same types the API parses its query string into.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct TrendForm {
    pub benchmark: String,
    pub machine: String,
    pub metric: String,
    pub param: String,
    pub history: Option<String>,
}

impl TrendForm {
    /// `None` until benchmark, machine and metric are chosen, and while `param` is `*` (the
    /// small multiples show those); else the query, or what is wrong with the form.
    pub fn parse(&self) -> Result<Option<TrendQuery>, String> {
        if self.benchmark.trim().is_empty()
            || self.machine.trim().is_empty()
            || self.metric.trim().is_empty()
            || self.param == ALL_PARAMS
        {
            return Ok(None);
        }
        self.parse_any_param().map(Some)
    }

    /// The query, `param` as it is (`*` included, for the small multiples' metric).
    pub fn parse_any_param(&self) -> Result<TrendQuery, String> {
        let label = |field: &str, v: &str| Label::parse(v).map_err(|e| format!("{field} {e}"));
        Ok(TrendQuery {
            benchmark: label("benchmark", &self.benchmark)?,
            machine: label("machine", &self.machine)?,
            metric: Metric::parse(&self.metric).map_err(|e| format!("metric {e}"))?,
            param: Param::parse(&self.param).map_err(|e| format!("param {e}"))?,
            history: match self.history.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(h) => Some(HistoryName::parse(h)?),
            },
        })
    }
}

impl From<&TrendQuery> for TrendForm {
    fn from(q: &TrendQuery) -> TrendForm {
        TrendForm {
            benchmark: q.benchmark.to_string(),
            machine: q.machine.to_string(),
            metric: q.metric.to_string(),
            param: q.param.to_string(),
            history: q.history.as_ref().map(ToString::to_string),
        }
    }
}

/// A regression report: the runs at commit `bad` against those at `base`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportQuery {
    pub benchmark: Label,
    pub machine: Label,
    pub base: CommitSha,
    pub bad: CommitSha,
}

impl ReportQuery {
    /// `/api/v1/report?...`: the report as text.
    pub fn path(&self) -> String {
        let e = crate::types::encode;
        format!(
            "/api/v1/report?benchmark={}&machine={}&base={}&bad={}",
            e(&self.benchmark),
            e(&self.machine),
            e(&self.base),
            e(&self.bad)
        )
    }
}

/// One run at a commit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TrendRun {
    pub id: i64,
    pub mark: Option<Mark>,
    pub mean: f64,
    pub n: usize,
}

/// One x position: a commit (or, for runs without a commit, a kernel) with all its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TrendPoint {
    /// 0, 1, 2, ... in history order.
    pub x: usize,
    pub sha: Option<String>,
    pub kernel: String,
    /// The commit's position in the history, when it is in it.
    pub position: Option<usize>,
    pub time: Option<i64>,
    pub subject: Option<String>,
    /// Over all samples of all runs at this commit.
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
    /// The commit's mark (a bisect log's, else what its runs say: bad over good over skip).
    pub mark: Option<Mark>,
    /// The commit a bisection ended on.
    pub first_bad: bool,
    pub runs: Vec<TrendRun>,
}

/// A level shift found by change-point detection, at the first point of the new level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TrendChange {
    pub x: usize,
    pub sha: Option<String>,
    pub kernel: String,
    pub before: f64,
    pub after: f64,
    /// 100 · (after − before) / before.
    pub change_pct: f64,
    /// `regression` or `improvement`, by the metric's direction; `change` when it is unknown.
    pub verdict: String,
    /// The step's evidence: Welch's t test of the segments on either side (each side's
    /// variance times the long-run factor of the noise's autocorrelation), its p-value after
    /// Bonferroni over every point of the series.
    pub p_value: f64,
    /// The 95 % interval of `x`: the first point at the new level is in `x_lo..=x_hi`.
    #[serde(default)]
    pub x_lo: usize,
    #[serde(default)]
    pub x_hi: usize,
    /// The 95 % interval of `change_pct`.
    #[serde(default)]
    pub change_pct_lo: f64,
    #[serde(default)]
    pub change_pct_hi: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Trend {
    pub query: TrendQuery,
    /// How the x axis is ordered: `history repo/branch`, `commit time` or `kernel version`.
    pub order: String,
    pub unit: Option<String>,
    pub direction: crate::label::Direction,
    pub points: Vec<TrendPoint>,
    pub change_points: Vec<TrendChange>,
    /// The series' noise: within its runs, and between runs of one commit (or, where no
    /// commit ran twice, between successive commits).
    #[serde(default)]
    pub noise: crate::noise::Noise,
    /// For the newest change point: what the runs on either side can tell, and how many a
    /// 2 % change needs (`None` without a change point or a known spread).
    #[serde(default)]
    pub advice: Option<crate::noise::Advice>,
}

impl Trend {
    /// The chart's title: the metric, and the param when there is one.
    pub fn title(&self) -> String {
        if self.query.param.is_empty() {
            self.query.metric.to_string()
        } else {
            format!("{}.{}", self.query.metric, self.query.param)
        }
    }

    /// The ASCII chart of this trend: one column per run, in commit order, marked by the run's
    /// own mark or else its commit's.
    pub fn ascii(&self, width: usize, height: usize) -> String {
        let samples: Vec<ChartSample> = self
            .points
            .iter()
            .flat_map(|p| {
                p.runs.iter().map(move |r| ChartSample {
                    value: r.mean,
                    mark: r.mark.or(p.mark),
                })
            })
            .collect();
        ascii_chart(&self.title(), &samples, width, height)
    }
}

/// Largest-Triangle-Three-Buckets: the indices of at most `threshold` points of `y` that keep
/// the shape of the line (first and last always kept).
pub fn lttb(y: &[f64], threshold: usize) -> Vec<usize> {
    let n = y.len();
    if threshold >= n || threshold < 3 {
        return (0..n).collect();
    }
    let mut out = Vec::with_capacity(threshold);
    out.push(0);
    let bucket = (n - 2) as f64 / (threshold - 2) as f64;
    let mut a = 0usize;
    for i in 0..threshold - 2 {
        let start = (i as f64 * bucket) as usize + 1;
        let end = (((i + 1) as f64 * bucket) as usize + 1).min(n - 1);
        let next_start = end;
        let next_end = (((i + 2) as f64 * bucket) as usize + 1).min(n);
        let (mut avg_x, mut avg_y) = (0.0, 0.0);
        let count = (next_end - next_start).max(1);
        let last = next_end.max(next_start + 1).min(n);
        for (j, &yj) in y.iter().enumerate().take(last).skip(next_start) {
            avg_x += j as f64;
            avg_y += yj;
        }
        avg_x /= count as f64;
        avg_y /= count as f64;
        let (ax, ay) = (a as f64, y[a]);
        let mut best = (start, -1.0);
        for (j, &yj) in y.iter().enumerate().take(end.max(start + 1)).skip(start) {
            let area = ((ax - avg_x) * (yj - ay) - (ax - j as f64) * (avg_y - ay)).abs();
            if area > best.1 {
                best = (j, area);
            }
        }
        out.push(best.0);
        a = best.0;
    }
    out.push(n - 1);
    out
}

/// One sample of an ASCII chart, in x order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartSample {
    pub value: f64,
    pub mark: Option<Mark>,
}

/// Rounds a raw tick step up to 1, 2 or 5 times a power of ten.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(raw.log10().floor());
    let f = raw / power;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// A y-axis tick label: an integer when the step is, else as few decimals as the step needs;
/// gnuplot's `1e+08` style for large values.
fn tick_label(v: f64, step: f64) -> String {
    let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
    if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-3) {
        return crate::text::g(v, 3);
    }
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    format!("{v:.decimals$}")
}

/// The ASCII chart: `title` centred on the first line, then `height − 1` lines of plot with the
/// y axis, all `width` columns wide, then the legend. Good samples are `+` joined by a dotted
/// line, bad samples `O`, unmarked and skipped ones `x`.
pub fn ascii_chart(title: &str, samples: &[ChartSample], width: usize, height: usize) -> String {
    let width = width.clamp(30, 400);
    let height = height.clamp(8, 200);
    let values: Vec<f64> = samples
        .iter()
        .map(|s| s.value)
        .filter(|v| v.is_finite())
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // Finite, never empty, never so huge that a tick overflows (see `axis_range`).
    let (lo, hi) = crate::axis::axis_range(lo, hi, 0.0);
    let value = |s: &ChartSample| crate::axis::plot_value(s.value);
    let rows = height - 1;
    // Ticks: about one per three rows, on nice values enclosing the data.
    let step = nice_step((hi - lo) / ((rows / 3).max(2) as f64));
    // A little air above and below, so that no sample sits on the frame.
    let air = (hi - lo) * 0.05;
    let lo = ((lo - air) / step).floor() * step;
    let hi = ((hi + air) / step).ceil() * step;
    // At most one tick per row, whatever rounding does to the step.
    let ticks: Vec<f64> = (0..)
        .map(|i| lo + f64::from(i) * step)
        .take_while(|t| *t <= hi + step * 1e-9)
        .take(rows + 1)
        .collect();
    let labels: Vec<String> = ticks.iter().map(|t| tick_label(*t, step)).collect();
    let label_w = labels.iter().map(String::len).max().unwrap_or(1);
    // Columns: label, a space, the left border, the plot, the right border.
    let inner = width.saturating_sub(label_w + 3).max(4);
    let row_of = |v: f64| -> usize {
        let r = ((hi - v) / (hi - lo) * (rows - 1) as f64).round();
        (r.max(0.0) as usize).min(rows - 1)
    };
    let col_of = |i: usize| -> usize {
        if samples.len() <= 1 {
            inner / 2
        } else {
            // Leave the first two columns to the tick marks, as gnuplot does.
            2 + (i * (inner - 3) + (samples.len() - 1) / 2) / (samples.len() - 1)
        }
    };
    let mut grid = vec![vec![' '; inner]; rows];
    for (r, line) in grid.iter_mut().enumerate() {
        if r == 0 || r == rows - 1 {
            line.fill('-');
        }
    }
    let tick_rows: Vec<(usize, &str)> = ticks
        .iter()
        .zip(&labels)
        .map(|(t, l)| (row_of(*t), l.as_str()))
        .collect();
    for &(r, _) in &tick_rows {
        grid[r][0] = '-';
        grid[r][1] = '+';
    }
    // The dotted line between consecutive good samples first, so marks draw over it.
    let points: Vec<(usize, usize, Option<Mark>)> = samples
        .iter()
        .enumerate()
        .filter(|(_, s)| s.value.is_finite())
        .map(|(i, s)| (col_of(i), row_of(value(s)), s.mark))
        .collect();
    let good: Vec<&(usize, usize, Option<Mark>)> =
        points.iter().filter(|p| p.2 == Some(Mark::Good)).collect();
    for pair in good.windows(2) {
        let (&(c0, r0, _), &(c1, r1, _)) = (pair[0], pair[1]);
        let steps = (c1 - c0).max(r0.abs_diff(r1)).max(1);
        for k in 1..steps {
            let c = c0 + ((c1 - c0) * k + steps / 2) / steps;
            let r =
                (r0 as f64 + (r1 as f64 - r0 as f64) * k as f64 / steps as f64).round() as usize;
            let cell = &mut grid[r][c];
            if *cell == ' ' || *cell == '-' {
                *cell = if r0 == r1 { '.' } else { ':' };
            }
        }
    }
    for &(c, r, mark) in &points {
        grid[r][c] = match mark {
            Some(Mark::Good) => '+',
            Some(Mark::Bad) => 'O',
            _ => 'x',
        };
    }
    let mut out = String::new();
    let title: String = title.chars().filter(|c| !c.is_control()).collect();
    let pad = (width.saturating_sub(title.chars().count())) / 2;
    out.push_str(&format!("{}{title}\n", " ".repeat(pad)));
    for (r, line) in grid.iter().enumerate() {
        let label = tick_rows
            .iter()
            .find(|(tr, _)| *tr == r)
            .map_or("", |(_, l)| *l);
        let is_tick = !label.is_empty();
        let left = if is_tick || r == 0 || r == rows - 1 {
            '+'
        } else {
            '|'
        };
        let right = if r == 0 || r == rows - 1 { '+' } else { '|' };
        let body: String = line.iter().collect();
        out.push_str(&format!("{label:>label_w$} {left}{body}{right}\n"));
    }
    let has = |m: Option<Mark>| samples.iter().any(|s| s.mark == m);
    if has(Some(Mark::Good)) {
        out.push_str("[*] bisect-good sample\n");
    }
    if has(Some(Mark::Bad)) {
        out.push_str("[O] bisect-bad  sample\n");
    }
    if has(None) || has(Some(Mark::Skip)) {
        out.push_str("[x] unmarked or skipped sample\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(value: f64, mark: Option<Mark>) -> ChartSample {
        ChartSample { value, mark }
    }

    #[test]
    fn lttb_keeps_ends_and_spikes() {
        let mut y: Vec<f64> = (0..10_000).map(|i| f64::from(i % 7)).collect();
        y[5000] = 1000.0;
        let keep = lttb(&y, 500);
        assert_eq!(keep.len(), 500);
        assert_eq!((keep[0], keep[499]), (0, 9999));
        assert!(keep.contains(&5000), "the spike survives");
        assert!(keep.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(lttb(&[1.0, 2.0], 500), vec![0, 1]);
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(130.0), 200.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(0.03), 0.05);
    }

    #[test]
    fn degenerate_inputs_still_draw() {
        let one = ascii_chart("m", &[s(5.0, None)], 40, 10);
        assert_eq!(one.lines().count(), 11);
        assert!(one.contains('x'));
        let none = ascii_chart("m", &[], 40, 10);
        assert_eq!(none.lines().count(), 10);
        let nan = ascii_chart("m", &[s(f64::NAN, Some(Mark::Bad))], 40, 10);
        assert!(!nan.contains("NaN"));
        for line in ascii_chart("m", &[s(1.0, None), s(2.0, None)], 50, 12)
            .lines()
            .skip(1)
            .take(11)
        {
            assert_eq!(line.chars().count(), 50, "{line:?}");
        }
    }
}

#[cfg(test)]
mod golden {
    use super::*;

    /// Seed 001's first plot, in miniature: good samples near 2500, then bad ones near 2345.
    pub(super) fn seed_like() -> Vec<ChartSample> {
        let mut v = Vec::new();
        for i in 0..12 {
            v.push(ChartSample {
                value: 2497.0 + f64::from(i % 3),
                mark: Some(Mark::Good),
            });
        }
        for i in 0..8 {
            v.push(ChartSample {
                value: 2345.0 - f64::from(i % 2) * 3.0,
                mark: Some(Mark::Bad),
            });
        }
        v.push(ChartSample {
            value: 2420.0,
            mark: None,
        });
        v
    }

    /// The expected rendering, fixed: gnuplot-dumb layout, 80 columns, title plus 19 plot lines.
    const EXPECTED: &str = r#"                            netperf.Throughput_Mbps
2550 +-+-----------------------------------------------------------------------+
     |                                                                         |
     |                                                                         |
     |                                                                         |
2500 +-++...+..+...+..+...+..+...+..+...+..+...+                               |
     |                                                                         |
     |                                                                         |
2450 +-+                                                                       |
     |                                                                         |
     |                                                                        x|
     |                                                                         |
2400 +-+                                                                       |
     |                                                                         |
     |                                                                         |
2350 +-+                                                                       |
     |                                            O   O  O   O  O   O  O   O   |
     |                                                                         |
     |                                                                         |
2300 +-+-----------------------------------------------------------------------+
[*] bisect-good sample
[O] bisect-bad  sample
[x] unmarked or skipped sample
"#;

    #[test]
    fn renders_like_the_lkp_mails() {
        let got = ascii_chart("netperf.Throughput_Mbps", &seed_like(), 80, 20);
        assert_eq!(got, EXPECTED, "got:\n{got}");
        for line in got.lines().skip(1).take(19) {
            assert_eq!(line.chars().count(), 80, "{line:?}");
        }
    }
}

/// A point drawn on a trend chart: where it landed in the picture, and what hovering it says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrawnPoint {
    /// Which series (0: the page's own trend; then the other machines or params).
    pub series: usize,
    /// Which point of that series' trend.
    pub index: usize,
    /// The point's `x` (its position in its trend's order).
    pub x: usize,
    pub px: f64,
    pub py: f64,
    pub title: String,
    pub mark: Option<Mark>,
    pub first_bad: bool,
}

/// A trend chart as the server drew it: the picture as a `data:` URL, and its points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrendFigure {
    pub src: String,
    pub alt: String,
    pub width: u32,
    pub height: u32,
    pub points: Vec<DrawnPoint>,
}

/// One entry of the trend page's list of marks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarkItem {
    /// The point's index.
    pub x: usize,
    /// Its short commit (or kernel).
    pub label: String,
    pub mark: Mark,
    pub first_bad: bool,
}

/// One entry of the trend page's list of change points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangeItem {
    /// The index of the first point of the new level.
    pub x: usize,
    pub label: String,
    pub verdict: String,
    /// `regression +12.3% (100 → 112.3)`.
    pub text: String,
    /// The before/after comparison.
    pub compare: String,
    /// The LKP-style report, when both sides have commits.
    pub report: Option<String>,
}

/// What the trend page shows of one trend: computed on the server from the whole trend, so the
/// page carries the drawn chart, the marks and change points, and the selected commit, never
/// every run of a long history. The page asks again for another window or selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrendView {
    pub query: TrendQuery,
    /// Other machines drawn on the same commit axis.
    pub also: Vec<String>,
    /// The metric (and param).
    pub title: String,
    pub order: String,
    /// The points of this trend.
    pub n: usize,
    /// The commits on the shared axis (more than `n` when other machines ran other commits).
    pub axis: usize,
    /// The axis window drawn, inclusive.
    pub window: (usize, usize),
    /// The selected point's index, and that point with its runs.
    pub selected: usize,
    pub point: Option<TrendPoint>,
    /// An alert's commit range asked for by `good=` and `bad=`, as the page says it.
    pub alert_range: Option<String>,
    pub figure: Result<TrendFigure, String>,
    /// The ASCII chart (80×20) of the whole trend.
    pub ascii: String,
    pub marks: Vec<MarkItem>,
    pub changes: Vec<ChangeItem>,
    /// The regression report of the first change point.
    pub report: Option<ReportQuery>,
    /// The series' noise in a sentence, and the advice for its newest step.
    #[serde(default)]
    pub noise: String,
    #[serde(default)]
    pub advice: Option<String>,
}

/// What the trend page asks the server for (sent as a form: every field may be missing).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TrendViewQuery {
    pub trend: TrendForm,
    /// Other machines to draw on the same axis.
    pub also: Vec<String>,
    /// The axis window `from..=to`; all by default, or the commits around `bad`.
    pub from: Option<usize>,
    pub to: Option<usize>,
    /// The point to select; by default `bad`'s, else the last.
    pub selected: Option<usize>,
    /// An alert's range: the last good and first bad commits (full or abbreviated shas, or
    /// kernels).
    pub good: Option<String>,
    pub bad: Option<String>,
}

/// The small multiples of `param=*`, or all params on one chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrendMultiples {
    /// The first [`MAX_SERIES`] params, in param order.
    pub trends: Vec<Trend>,
    /// How many params the metric has (more than `trends.len()` when some were left out).
    pub total: usize,
    /// With `overlay`: all of them drawn on one chart.
    pub overlay: Option<Result<TrendFigure, String>>,
}
