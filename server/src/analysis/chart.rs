// SPDX-License-Identifier: GPL-3.0-or-later
//! The comparison chart: the mean of one metric per parameter for each kernel, with error bars
//! of one standard deviation, drawn as SVG with plotters.

use app::chart::{category_label, plot_value, TrendChart};
use app::compare::{Comparison, Stat};
use plotters::prelude::*;

/// Colours of the kernels' lines, baseline first (Okabe–Ito, readable by the colour-blind).
const COLOURS: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(213, 94, 0),
    RGBColor(0, 114, 178),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(240, 228, 66),
];

/// The metric a chart shows: the one asked for, else the comparison's first.
pub fn chart_metric<'a>(c: &'a Comparison, metric: Option<&'a str>) -> Option<&'a str> {
    metric
        .filter(|m| c.rows.iter().any(|r| r.metric == *m))
        .or_else(|| c.rows.first().map(|r| r.metric.as_str()))
}

/// The chart as an SVG document.
pub fn svg(c: &Comparison, metric: Option<&str>) -> anyhow::Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (860, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let Some(metric) = chart_metric(c, metric) else {
            root.draw(&Text::new(
                "no samples",
                (20, 20),
                ("sans-serif", 16).into_font(),
            ))
            .map_err(plot_err)?;
            root.present().map_err(plot_err)?;
            drop(root);
            return Ok(out);
        };
        let rows: Vec<_> = c.rows.iter().filter(|r| r.metric == metric).collect();
        let direction = rows[0].direction;
        // A sweep over powers of two (netperf's message sizes) is drawn on a log₂ axis; any
        // other params are evenly spaced categories.
        let powers: Option<Vec<f64>> = rows
            .iter()
            .map(|r| {
                r.param
                    .parse::<u64>()
                    .ok()
                    .filter(|p| p.is_power_of_two())
                    .map(|p| f64::from(p.trailing_zeros()))
            })
            .collect::<Option<Vec<f64>>>()
            .filter(|v| v.len() >= 2);
        let x_of = |i: usize| powers.as_ref().map_or(i as f64, |p| p[i]);
        let mean = Stat::mean(direction);
        // (x, mean, spread) per kernel.
        let series: Vec<Vec<(f64, f64, f64)>> = (0..c.query.kernels.len())
            .map(|k| {
                rows.iter()
                    .enumerate()
                    .filter_map(|(i, row)| {
                        let x = x_of(i);
                        let stats = &row.cells.get(k)?.as_ref()?.stats;
                        let m = mean.of(stats)?;
                        let sd = match direction {
                            app::label::Direction::Higher => stats.hstddev,
                            app::label::Direction::Lower | app::label::Direction::Unknown => {
                                stats.stddev
                            }
                        }
                        .unwrap_or(0.0);
                        Some((x, plot_value(m), plot_value(sd)))
                    })
                    .collect()
            })
            .collect();
        let lo = series
            .iter()
            .flatten()
            .map(|(_, m, sd)| m - sd)
            .fold(f64::INFINITY, f64::min);
        let hi = series
            .iter()
            .flatten()
            .map(|(_, m, sd)| m + sd)
            .fold(f64::NEG_INFINITY, f64::max);
        // From zero when every bar is above it; `axis_range` keeps the bounds finite whatever
        // the means and spreads are.
        let (lo, hi) = app::chart::axis_range(if lo >= 0.0 { 0.0 } else { lo }, hi, 0.1);
        let labels: Vec<String> = rows.iter().map(|r| r.param.clone()).collect();
        let unit = rows[0]
            .unit
            .as_ref()
            .map(|u| format!(" ({u})"))
            .unwrap_or_default();
        let caption = format!(
            "{} on {}: {} {}{unit}, {}",
            c.query.benchmark,
            c.query.machine_name(),
            mean.name(),
            metric,
            match direction {
                app::label::Direction::Higher => "higher is better",
                app::label::Direction::Lower => "lower is better",
                app::label::Direction::Unknown => "direction unknown",
            }
        );
        let (x_lo, x_hi) = match &powers {
            Some(p) => (p[0].min(p[p.len() - 1]), p[0].max(p[p.len() - 1])),
            None => (0.0, rows.len().max(1) as f64 - 1.0),
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(x_lo - 0.5..x_hi + 0.5, lo..hi)
            .map_err(plot_err)?;
        let log_label = |x: &f64| {
            let r = x.round();
            if (x - r).abs() < 1e-6 && (0.0..64.0).contains(&r) {
                (1u64 << r as u32).to_string()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(match &powers {
                Some(_) => (x_hi - x_lo) as usize + 1,
                None => rows.len().max(2),
            })
            .x_label_formatter(&|x| match &powers {
                Some(_) => log_label(x),
                None => category_label(&labels, *x),
            })
            .x_desc(if powers.is_some() {
                "param (log₂ scale)"
            } else {
                "param"
            })
            .y_desc(format!("{}{unit}", mean.name()))
            .draw()
            .map_err(plot_err)?;
        for (k, points) in series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let style = colour.stroke_width(2);
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|&(x, m, _)| (x, m)),
                    style,
                ))
                .map_err(plot_err)?
                .label(c.query.kernels[k].clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
            chart
                .draw_series(points.iter().map(|&(x, m, sd)| {
                    ErrorBar::new_vertical(x, m - sd, m, m + sd, colour.filled(), 8)
                }))
                .map_err(plot_err)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerRight)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

fn plot_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("chart: {e:?}")
}

/// The trend chart of one trend (see `app::chart`, which the trend page draws with too).
pub fn trend_svg(t: &app::trend::Trend) -> anyhow::Result<String> {
    Ok(TrendChart::single(t)
        .draw()
        .map_err(anyhow::Error::msg)?
        .svg)
}

/// Several trends (machines or params) on one commit axis.
pub fn trends_svg(series: Vec<(String, &app::trend::Trend)>) -> anyhow::Result<String> {
    let chart = TrendChart {
        series,
        window: None,
        max_points: 2000,
        size: (960, 420),
    };
    Ok(chart.draw().map_err(anyhow::Error::msg)?.svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::CompareSeries;
    use app::label::Direction;
    use app::types::CompareQuery;
    use proptest::prelude::*;
    use std::time::{Duration, Instant};

    fn finite() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>().prop_filter("finite", |v| v.is_finite()),
            Just(f64::MAX),
            Just(-f64::MAX),
            Just(5e-324),
            Just(0.0),
        ]
    }

    /// The comparison chart of two kernels whose samples are `a` and `b`.
    fn check(a: Vec<f64>, b: Vec<f64>) -> Result<(), TestCaseError> {
        let series = |kernel: &str, run_id, values: Vec<f64>| CompareSeries {
            run_id,
            kernel: kernel.into(),
            metric: "tput".into(),
            param: "64".into(),
            unit: Some("Mbps".into()),
            direction: Direction::Higher,
            integer: false,
            iterations: (0..values.len() as i64).collect(),
            values,
        };
        let query = CompareQuery::parse("b", "m", &["6.1", "6.2"]).unwrap();
        let started = Instant::now();
        let c = crate::analysis::stats::compare(
            query,
            &[series("6.1", 1, a), series("6.2", 2, b)],
            None,
        )
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let svg = svg(&c, None).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(svg.len() < 1 << 20, "SVG of {} bytes", svg.len());
        prop_assert!(!svg.contains("NaN") && !svg.contains("inf"));
        prop_assert!(
            started.elapsed() < Duration::from_secs(2),
            "took {:?}",
            started.elapsed()
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn the_comparison_chart_draws_any_finite_values(
            a in prop::collection::vec(finite(), 1..8),
            b in prop::collection::vec(finite(), 1..8),
        ) {
            check(a, b)?;
        }
    }

    #[test]
    fn the_comparison_chart_draws_the_extremes() {
        check(vec![1.7e308, 1.0], vec![f64::MAX, -f64::MAX]).unwrap();
        check(vec![5e-324; 3], vec![5e-324; 3]).unwrap();
    }
}
