// SPDX-License-Identifier: GPL-3.0-or-later
//! The trend chart, drawn with plotters as SVG by the same code on the server (`format=svg`) and
//! in the browser (the trend page): one or more trends (machines or params) on one commit axis,
//! each with its mean line and min–max band, markers by bisect mark, change points as vertical
//! lines, LTTB downsampling. It also returns where each drawn point landed, so that the page can
//! put its tooltips and click targets over the picture.

use std::cmp::Ordering;

#[cfg(feature = "ssr")]
use plotters::coord::Shift;
#[cfg(feature = "ssr")]
use plotters::prelude::*;

use crate::kernel::compare_kernels;
#[cfg(feature = "ssr")]
use crate::trend::{lttb, Mark};
use crate::trend::{Trend, TrendPoint};

#[cfg(feature = "ssr")]
/// Series colours (Okabe–Ito, readable by the colour-blind); marks use their own.
const SERIES: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];
#[cfg(feature = "ssr")]
pub const GOOD: RGBColor = RGBColor(0, 158, 115);
#[cfg(feature = "ssr")]
pub const BAD: RGBColor = RGBColor(213, 94, 0);
#[cfg(feature = "ssr")]
pub const SKIP: RGBColor = RGBColor(150, 150, 150);

#[cfg(feature = "ssr")]
pub const NOISE: RGBColor = RGBColor(120, 120, 120);

pub use crate::axis::{axis_range, plot_value, PLOT_LIMIT};

/// The noise band of a trend drawn on axis positions `xs`, in the window `from..=to` and
/// the value range `lo..hi`: the newest level (the points since the last change point) ± 2
/// standard deviations of a point's mean, where the next commit is expected to fall.
pub fn noise_band(
    t: &Trend,
    xs: &[usize],
    (from, to, lo, hi): (usize, usize, f64, f64),
) -> Option<[(f64, f64); 2]> {
    let cv = t.noise.point_cv()?;
    let start = t.change_points.last().map_or(0, |c| c.x);
    let level_points = t.points.get(start..).filter(|p| !p.is_empty())?;
    let level = level_points.iter().map(|p| p.mean).sum::<f64>() / level_points.len() as f64;
    let half = 2.0 * cv * level.abs();
    if !level.is_finite() || !half.is_finite() {
        return None;
    }
    let x0 = (xs.get(start)?.max(&from).to_owned() as f64 - 0.5).min(to as f64 + 0.5);
    let x1 = xs.last().map_or(x0, |&x| x.min(to) as f64 + 0.5);
    (x1 > x0).then(|| {
        [
            (x0, (level - half).clamp(lo, hi)),
            (x1, (level + half).clamp(lo, hi)),
        ]
    })
}

/// User text for a chart: control characters removed (plotters escapes the rest).
pub fn clean(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).collect()
}

/// The label of the category at x (categories sit on whole numbers; nothing in between).
pub fn category_label(labels: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 1e-6 && i >= 0.0 {
        labels.get(i as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

/// `svg` as a `data:` URL for an `<img>`: only what a URL cannot carry as it is gets
/// percent-encoded (markup characters, `%`, `#`, quotes, whitespace controls, non-ASCII).
pub fn svg_data_url(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + svg.len() / 8 + 32);
    out.push_str("data:image/svg+xml;charset=utf-8,");
    for b in svg.bytes() {
        match b {
            b'%' | b'#' | b'<' | b'>' | b'"' | b'\'' | b'&' | 0..=0x20 | 0x7f.. => {
                out.push_str(&format!("%{b:02X}"));
            }
            _ => out.push(b as char),
        }
    }
    out
}

/// How a commit (or a kernel without one) is told apart on a shared axis.
fn identity(p: &TrendPoint) -> String {
    match &p.sha {
        Some(sha) => format!("commit {sha}"),
        None => format!("kernel {}", p.kernel),
    }
}

/// The x axis several trends share: every commit (or kernel) of any of them, ordered as a trend
/// orders its points (history position, commit time, kernel version). Returns the axis' labels
/// and, per trend, the axis position of each of its points.
pub fn shared_axis(trends: &[&Trend]) -> (Vec<String>, Vec<Vec<usize>>) {
    let short = |p: &TrendPoint| {
        clean(
            &p.sha
                .as_ref()
                .map_or_else(|| p.kernel.clone(), |s| s.chars().take(10).collect()),
        )
    };
    if let [t] = trends {
        return (
            t.points.iter().map(short).collect(),
            vec![(0..t.points.len()).collect()],
        );
    }
    let mut seen = std::collections::HashMap::new();
    let mut axis: Vec<&TrendPoint> = Vec::new();
    for t in trends {
        for p in &t.points {
            seen.entry(identity(p)).or_insert_with(|| {
                axis.push(p);
                axis.len() - 1
            });
        }
    }
    let mut order: Vec<usize> = (0..axis.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (axis[a], axis[b]);
        let key = |p: &TrendPoint| (p.position.unwrap_or(usize::MAX), p.time.unwrap_or(i64::MAX));
        key(a)
            .cmp(&key(b))
            .then_with(|| compare_kernels(&a.kernel, &b.kernel))
            .then(Ordering::Equal)
    });
    let mut at = vec![0; axis.len()];
    for (x, &i) in order.iter().enumerate() {
        at[i] = x;
    }
    let labels = order.iter().map(|&i| short(axis[i])).collect();
    let xs = trends
        .iter()
        .map(|t| t.points.iter().map(|p| at[seen[&identity(p)]]).collect())
        .collect();
    (labels, xs)
}

#[cfg(feature = "ssr")]
/// Where a drawn point landed, in the SVG's pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Which series (index into the chart's series).
    pub series: usize,
    /// Which point of that series' trend.
    pub point: usize,
    pub px: f64,
    pub py: f64,
}

#[cfg(feature = "ssr")]
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub svg: String,
    pub width: u32,
    pub height: u32,
    pub hits: Vec<Hit>,
}

#[cfg(feature = "ssr")]
/// What to draw: named trends on one axis, the axis window `from..=to` (all when `None`), at
/// most `max_points` points per series (LTTB), in `size` pixels.
pub struct TrendChart<'a> {
    pub series: Vec<(String, &'a Trend)>,
    pub window: Option<(usize, usize)>,
    pub max_points: usize,
    pub size: (u32, u32),
}

#[cfg(feature = "ssr")]
fn plot_err<E: std::fmt::Debug>(e: E) -> String {
    format!("chart: {e:?}")
}

#[cfg(feature = "ssr")]
impl TrendChart<'_> {
    /// One trend, whole, as the server's `format=svg` draws it.
    pub fn single(t: &Trend) -> TrendChart<'_> {
        TrendChart {
            series: vec![(t.query.machine.to_string(), t)],
            window: None,
            max_points: 2000,
            size: (960, 420),
        }
    }

    pub fn draw(&self) -> Result<Drawn, String> {
        let trends: Vec<&Trend> = self.series.iter().map(|(_, t)| *t).collect();
        let (labels, xs) = shared_axis(&trends);
        let last = labels.len().saturating_sub(1);
        let (from, to) = self.window.unwrap_or((0, last));
        let (from, to) = (from.min(to).min(last), to.max(from).min(last));
        // Per series: the points in the window, downsampled.
        let kept: Vec<Vec<usize>> = trends
            .iter()
            .zip(&xs)
            .map(|(t, xs)| {
                let inside: Vec<usize> = (0..t.points.len())
                    .filter(|&i| (from..=to).contains(&xs[i]))
                    .collect();
                let means: Vec<f64> = inside.iter().map(|&i| t.points[i].mean).collect();
                lttb(&means, self.max_points)
                    .into_iter()
                    .map(|k| inside[k])
                    .collect()
            })
            .collect();
        let values = || {
            trends
                .iter()
                .zip(&kept)
                .flat_map(|(t, k)| k.iter().flat_map(|&i| [t.points[i].min, t.points[i].max]))
        };
        let lo = values().fold(f64::INFINITY, f64::min);
        let hi = values().fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = axis_range(lo, hi, 0.08);
        let first = trends.first().ok_or("a chart needs a trend")?;
        let unit = first
            .unit
            .as_ref()
            .map(|u| format!(" ({})", clean(u)))
            .unwrap_or_default();
        let caption = if trends.len() == 1 {
            format!(
                "{} on {}: {}{unit} by commit ({})",
                clean(&first.query.benchmark),
                clean(&first.query.machine),
                clean(&first.title()),
                first.order
            )
        } else {
            format!(
                "{}: {}{unit} by commit",
                clean(&first.query.benchmark),
                clean(&first.query.metric)
            )
        };
        let mut svg = String::new();
        let mut hits = Vec::new();
        {
            let root = SVGBackend::with_string(&mut svg, self.size).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            self.draw_on(
                &root,
                &trends,
                (&labels, &xs, &kept),
                (from, to, lo, hi),
                (caption, unit),
                &mut hits,
            )?;
            root.present().map_err(plot_err)?;
        }
        Ok(Drawn {
            svg,
            width: self.size.0,
            height: self.size.1,
            hits,
        })
    }

    fn draw_on(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
        trends: &[&Trend],
        (labels, xs, kept): (&[String], &[Vec<usize>], &[Vec<usize>]),
        (from, to, lo, hi): (usize, usize, f64, f64),
        (caption, unit): (String, String),
        hits: &mut Vec<Hit>,
    ) -> Result<(), String> {
        let mut chart = ChartBuilder::on(root)
            .caption(caption, ("sans-serif", 15))
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(70)
            .build_cartesian_2d(from as f64 - 0.5..to as f64 + 0.5, lo..hi)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(8)
            .x_label_formatter(&|x| category_label(labels, *x))
            .y_desc(format!("{}{unit}", clean(&trends[0].query.metric)))
            .draw()
            .map_err(plot_err)?;
        let many = trends.len() > 1;
        if let Some(band) = noise_band(trends[0], &xs[0], (from, to, lo, hi)).filter(|_| !many) {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    band,
                    NOISE.mix(0.16).filled(),
                )))
                .map_err(plot_err)?;
        }
        for (s, t) in trends.iter().enumerate() {
            let colour = SERIES[s % SERIES.len()];
            let x = |i: usize| xs[s][i] as f64;
            for c in &t.change_points {
                if !(from..=to).contains(&xs[s][c.x]) {
                    continue;
                }
                let colour = if c.verdict == "regression" { BAD } else { GOOD };
                // Where the first bad point may be (the position's 95 % interval).
                if c.x_hi > c.x_lo && c.x_hi < xs[s].len() {
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            [(x(c.x_lo) - 0.5, lo), (x(c.x_hi) + 0.5, hi)],
                            colour.mix(0.12).filled(),
                        )))
                        .map_err(plot_err)?;
                }
                chart
                    .draw_series(LineSeries::new(
                        [(x(c.x) - 0.5, lo), (x(c.x) - 0.5, hi)],
                        colour.stroke_width(2),
                    ))
                    .map_err(plot_err)?;
            }
            let k = &kept[s];
            // The min–max band: above along the maxima, back along the minima.
            let band: Vec<(f64, f64)> = k
                .iter()
                .map(|&i| (x(i), plot_value(t.points[i].max)))
                .chain(k.iter().rev().map(|&i| (x(i), plot_value(t.points[i].min))))
                .collect();
            chart
                .draw_series(std::iter::once(Polygon::new(
                    band,
                    colour.mix(0.18).filled(),
                )))
                .map_err(plot_err)?;
            let line = chart
                .draw_series(LineSeries::new(
                    k.iter().map(|&i| (x(i), plot_value(t.points[i].mean))),
                    colour.stroke_width(if many { 2 } else { 1 }),
                ))
                .map_err(plot_err)?;
            if many {
                line.label(clean(&self.series[s].0)).legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], colour.stroke_width(2))
                });
            }
            for &i in k {
                let p = &t.points[i];
                let (px, py) = chart.backend_coord(&(x(i), plot_value(p.mean)));
                hits.push(Hit {
                    series: s,
                    point: i,
                    px: f64::from(px),
                    py: f64::from(py),
                });
            }
        }
        // Markers: by mark, over every series (unmarked ones in their series' colour).
        for (mark, name) in [
            (Some(Mark::Good), "bisect good"),
            (Some(Mark::Bad), "bisect bad"),
            (Some(Mark::Skip), "skipped"),
            (None, "unmarked"),
        ] {
            let mut drawn = false;
            for (s, t) in trends.iter().enumerate() {
                let colour = match mark {
                    Some(Mark::Good) => GOOD,
                    Some(Mark::Bad) => BAD,
                    Some(Mark::Skip) => SKIP,
                    None => SERIES[s % SERIES.len()],
                };
                let pts: Vec<(f64, f64)> = kept[s]
                    .iter()
                    .filter(|&&i| t.points[i].mark == mark)
                    .map(|&i| (xs[s][i] as f64, plot_value(t.points[i].mean)))
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                let size = if mark.is_some() { 5 } else { 3 };
                let series = chart
                    .draw_series(
                        pts.into_iter()
                            .map(move |(x, y)| Circle::new((x, y), size, colour.filled())),
                    )
                    .map_err(plot_err)?;
                // One legend entry per mark (the series have theirs when there are several).
                if !drawn && (mark.is_some() || !many) {
                    series
                        .label(name)
                        .legend(move |(x, y)| Circle::new((x + 8, y), size, colour.filled()));
                    drawn = true;
                }
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(plot_err)?;
        Ok(())
    }
}

#[cfg(feature = "ssr")]
#[cfg(test)]
mod tests {
    use super::*;
    use crate::trend::{TrendQuery, TrendRun};

    fn point(sha: &str, position: usize, mean: f64, mark: Option<Mark>) -> TrendPoint {
        TrendPoint {
            x: 0,
            sha: Some(sha.into()),
            kernel: format!("k-{sha}"),
            position: Some(position),
            time: None,
            subject: None,
            mean,
            min: mean - 1.0,
            max: mean + 1.0,
            n: 1,
            mark,
            first_bad: false,
            runs: vec![TrendRun {
                id: position as i64,
                mark,
                mean,
                n: 1,
            }],
        }
    }

    fn trend(machine: &str, points: Vec<TrendPoint>) -> Trend {
        let mut points = points;
        for (x, p) in points.iter_mut().enumerate() {
            p.x = x;
        }
        Trend {
            query: TrendQuery::parse("hackbench", machine, "time", "").unwrap(),
            order: "history linux/master".into(),
            unit: Some("s".into()),
            direction: crate::label::Direction::Lower,
            points,
            change_points: Vec::new(),
            noise: Default::default(),
            advice: None,
        }
    }

    #[test]
    fn data_urls_carry_the_svg() {
        assert_eq!(
            svg_data_url("<svg a=\"1\">50% #x é</svg>"),
            "data:image/svg+xml;charset=utf-8,%3Csvg%20a=%221%22%3E50%25%20%23x%20%C3%A9%3C/svg%3E"
        );
    }

    /// Two machines that ran different commits share one axis in history order.
    #[test]
    fn machines_share_one_commit_axis() {
        let a = trend(
            "a",
            vec![point("c1", 1, 10.0, None), point("c3", 3, 11.0, None)],
        );
        let b = trend(
            "b",
            vec![point("c2", 2, 20.0, None), point("c3", 3, 21.0, None)],
        );
        let (labels, xs) = shared_axis(&[&a, &b]);
        assert_eq!(labels, ["c1", "c2", "c3"]);
        assert_eq!(xs, [vec![0, 2], vec![1, 2]]);
    }

    /// Every kept point is hit-tested where plotters drew it, inside the picture; marks and the
    /// series' names are in the SVG, user text escaped and without control characters.
    #[test]
    fn draws_every_series_and_reports_where_points_are() {
        // A machine's name cannot hold a control character any more (it is a `Label`), but
        // a series' name is any text: the chart still escapes and cleans it.
        let hostile = "<script>a\u{1}</script>";
        let a = trend(
            "a",
            vec![
                point("c1", 1, 10.0, Some(Mark::Good)),
                point("c2", 2, 12.0, Some(Mark::Bad)),
            ],
        );
        let b = trend(
            "b",
            vec![point("c1", 1, 20.0, None), point("c2", 2, 21.0, None)],
        );
        let chart = TrendChart {
            series: vec![(hostile.to_string(), &a), ("b".into(), &b)],
            window: None,
            max_points: 100,
            size: (600, 300),
        };
        let drawn = chart.draw().unwrap();
        assert_eq!(drawn.hits.len(), 4);
        for h in &drawn.hits {
            assert!(
                (0.0..600.0).contains(&h.px) && (0.0..300.0).contains(&h.py),
                "{h:?}"
            );
        }
        // Higher means are drawn higher up.
        let y = |s: usize, p: usize| {
            drawn
                .hits
                .iter()
                .find(|h| h.series == s && h.point == p)
                .unwrap()
                .py
        };
        assert!(y(1, 0) < y(0, 0) && y(0, 1) < y(0, 0));
        assert!(drawn.svg.contains("bisect good") && drawn.svg.contains("bisect bad"));
        assert!(
            drawn.svg.contains("&lt;script&gt;a&lt;/script&gt;"),
            "{}",
            drawn.svg
        );
        assert!(!drawn.svg.contains("<script") && !drawn.svg.contains('\u{1}'));
        // A window keeps only its points.
        let window = TrendChart {
            window: Some((1, 1)),
            ..chart
        };
        let drawn = window.draw().unwrap();
        assert_eq!(
            drawn.hits.iter().map(|h| h.point).collect::<Vec<_>>(),
            [1, 1]
        );
    }
}

/// Every renderer draws any finite values — ±`f64::MAX`, subnormals, all equal — within a time
/// and size budget (plotters loops forever on an infinite axis; the ASCII chart once grew
/// without bound).
#[cfg(test)]
mod overflow {
    use super::*;
    use crate::trend::{ascii_chart, ChartSample, TrendQuery};
    use proptest::prelude::*;
    use std::time::{Duration, Instant};

    fn finite() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>().prop_filter("finite", |v| v.is_finite()),
            Just(f64::MAX),
            Just(-f64::MAX),
            Just(f64::MIN_POSITIVE),
            Just(5e-324),
            Just(-5e-324),
            Just(0.0),
            -1e3..1e3f64,
        ]
    }

    fn trend_of(values: &[f64]) -> Trend {
        Trend {
            query: TrendQuery::parse("b", "m", "tput", "").unwrap(),
            order: "kernel version".into(),
            unit: None,
            direction: crate::label::Direction::Higher,
            points: values
                .iter()
                .enumerate()
                .map(|(x, &v)| TrendPoint {
                    x,
                    sha: None,
                    kernel: format!("6.{x}"),
                    position: None,
                    time: None,
                    subject: None,
                    mean: v,
                    min: v,
                    max: v,
                    n: 1,
                    mark: (x % 3 == 0).then_some(Mark::Good),
                    first_bad: false,
                    runs: Vec::new(),
                })
                .collect(),
            change_points: Vec::new(),
            noise: Default::default(),
            advice: None,
        }
    }

    /// Draws `values` through the SVG and ASCII trend charts within the budget.
    fn check(values: &[f64]) -> Result<(), TestCaseError> {
        let t = trend_of(values);
        let started = Instant::now();
        let drawn = TrendChart::single(&t).draw();
        prop_assert!(drawn.is_ok(), "{:?}", drawn.err());
        let svg = drawn.unwrap().svg;
        prop_assert!(svg.len() < 2 << 20, "SVG of {} bytes", svg.len());
        prop_assert!(
            !svg.contains("NaN") && !svg.contains("inf"),
            "non-finite coordinates"
        );
        let samples: Vec<ChartSample> = values
            .iter()
            .map(|&value| ChartSample { value, mark: None })
            .collect();
        let ascii = ascii_chart("t", &samples, 80, 20);
        prop_assert!(ascii.lines().count() <= 25);
        prop_assert!(
            ascii.len() < 80 * 25 * 8,
            "ASCII chart of {} bytes",
            ascii.len()
        );
        prop_assert!(
            started.elapsed() < Duration::from_secs(2),
            "took {:?}",
            started.elapsed()
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_finite_values_draw(values in prop::collection::vec(finite(), 1..40)) {
            check(&values)?;
        }

        #[test]
        fn all_equal_values_draw(v in finite(), n in 1usize..30) {
            check(&vec![v; n])?;
        }
    }

    #[test]
    fn the_extremes_draw() {
        for values in [
            vec![f64::MAX, -f64::MAX],
            vec![1.7e308, 1.0],
            vec![5e-324, 0.0, -5e-324],
            vec![f64::MAX; 3],
        ] {
            check(&values).unwrap();
        }
        assert_eq!(
            axis_range(f64::INFINITY, f64::NEG_INFINITY, 0.1),
            (0.0, 1.0)
        );
        let (lo, hi) = axis_range(-f64::MAX, f64::MAX, 0.1);
        assert!(lo.is_finite() && hi.is_finite() && lo < hi);
    }
}
