//! The comparison chart: the mean of one metric per parameter for each kernel, with error bars
//! of one standard deviation, drawn as SVG with plotters.

use app::chart::{category_label, TrendChart};
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
        let mean = Stat::mean(direction);
        // (x, mean, spread) per kernel.
        let series: Vec<Vec<(f64, f64, f64)>> = (0..c.query.kernels.len())
            .map(|k| {
                rows.iter()
                    .enumerate()
                    .filter_map(|(x, row)| {
                        let stats = &row.cells.get(k)?.as_ref()?.stats;
                        let m = mean.of(stats)?;
                        let sd = match direction {
                            app::label::Direction::Higher => stats.hstddev,
                            app::label::Direction::Lower => stats.stddev,
                        }
                        .unwrap_or(0.0);
                        Some((x as f64, m, sd))
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
        let (lo, hi) = if lo.is_finite() && hi.is_finite() {
            let lo = if lo >= 0.0 { 0.0 } else { lo * 1.1 };
            (lo, if hi > lo { hi * 1.1 } else { lo + 1.0 })
        } else {
            (0.0, 1.0)
        };
        let labels: Vec<String> = rows.iter().map(|r| r.param.clone()).collect();
        let unit = rows[0]
            .unit
            .as_ref()
            .map(|u| format!(" ({u})"))
            .unwrap_or_default();
        let caption = format!(
            "{} on {}: {} {}{unit}, {} is better",
            c.query.benchmark,
            c.query.machine,
            mean.name(),
            metric,
            match direction {
                app::label::Direction::Higher => "higher",
                app::label::Direction::Lower => "lower",
            }
        );
        let n = rows.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5..n - 0.5, lo..hi)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(rows.len().max(2))
            .x_label_formatter(&|x| category_label(&labels, *x))
            .x_desc("param")
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
