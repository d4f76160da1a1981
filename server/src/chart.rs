//! The comparison chart: the mean of one metric per parameter for each kernel, with error bars
//! of one standard deviation, drawn as SVG with plotters.

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

/// The label of the category at x (categories sit on whole numbers; nothing in between).
fn category_label(labels: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 1e-6 && i >= 0.0 {
        labels.get(i as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

fn plot_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("chart: {e:?}")
}

/// User text for a chart: control characters removed (plotters escapes the rest).
fn clean(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).collect()
}

/// The trend chart: per-commit mean with a min–max bar, markers by bisect mark, change points
/// as vertical lines. More than 2,000 commits are downsampled with LTTB.
pub fn trend_svg(t: &app::trend::Trend) -> anyhow::Result<String> {
    use app::trend::Mark;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (960, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let means: Vec<f64> = t.points.iter().map(|p| p.mean).collect();
        let keep = app::trend::lttb(&means, 2000);
        let lo = keep
            .iter()
            .map(|&i| t.points[i].min)
            .fold(f64::INFINITY, f64::min);
        let hi = keep
            .iter()
            .map(|&i| t.points[i].max)
            .fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if lo.is_finite() && hi > lo {
            let pad = (hi - lo) * 0.08;
            (lo - pad, hi + pad)
        } else if lo.is_finite() {
            (lo - 1.0, lo + 1.0)
        } else {
            (0.0, 1.0)
        };
        let n = t.points.len().max(1) as f64;
        let unit = t
            .unit
            .as_ref()
            .map(|u| format!(" ({})", clean(u)))
            .unwrap_or_default();
        let caption = format!(
            "{} on {}: {}{unit} by commit ({})",
            clean(&t.query.benchmark),
            clean(&t.query.machine),
            clean(&t.title()),
            t.order
        );
        let labels: Vec<String> = t
            .points
            .iter()
            .map(|p| {
                clean(
                    &p.sha
                        .as_ref()
                        .map(|s| s.chars().take(10).collect())
                        .unwrap_or_else(|| p.kernel.clone()),
                )
            })
            .collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 15))
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5..n - 0.5, lo..hi)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(8)
            .x_label_formatter(&|x| category_label(&labels, *x))
            .y_desc(format!("{}{unit}", clean(&t.query.metric)))
            .draw()
            .map_err(plot_err)?;
        for c in &t.change_points {
            let colour = if c.verdict == "regression" {
                RGBColor(213, 94, 0)
            } else {
                RGBColor(0, 158, 115)
            };
            chart
                .draw_series(LineSeries::new(
                    [(c.x as f64 - 0.5, lo), (c.x as f64 - 0.5, hi)],
                    colour.stroke_width(2),
                ))
                .map_err(plot_err)?;
        }
        chart
            .draw_series(keep.iter().map(|&i| {
                let p = &t.points[i];
                ErrorBar::new_vertical(
                    i as f64,
                    p.min,
                    p.mean,
                    p.max,
                    RGBColor(150, 150, 150).filled(),
                    4,
                )
            }))
            .map_err(plot_err)?;
        chart
            .draw_series(LineSeries::new(
                keep.iter().map(|&i| (i as f64, t.points[i].mean)),
                RGBColor(0, 114, 178).stroke_width(1),
            ))
            .map_err(plot_err)?;
        for (mark, colour, name) in [
            (Some(Mark::Good), RGBColor(0, 158, 115), "bisect good"),
            (Some(Mark::Bad), RGBColor(213, 94, 0), "bisect bad"),
            (Some(Mark::Skip), RGBColor(150, 150, 150), "skipped"),
            (None, RGBColor(0, 114, 178), "unmarked"),
        ] {
            let pts: Vec<(f64, f64)> = keep
                .iter()
                .filter(|&&i| t.points[i].mark == mark)
                .map(|&i| (i as f64, t.points[i].mean))
                .collect();
            if pts.is_empty() {
                continue;
            }
            chart
                .draw_series(
                    pts.into_iter()
                        .map(|(x, y)| Circle::new((x, y), 4, colour.filled())),
                )
                .map_err(plot_err)?
                .label(name)
                .legend(move |(x, y)| Circle::new((x + 8, y), 4, colour.filled()));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}
