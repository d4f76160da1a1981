// SPDX-License-Identifier: GPL-3.0-or-later
//! The trend page's view of a trend, computed on the server from the whole trend: the chart
//! drawn (plotters never runs in the browser), the points it shows with their tooltips, the
//! marks, the change points and the selected commit. The page ships this, not every run of a
//! long history, and asks again for another window or after a mark.

use crate::chart::{shared_axis, svg_data_url, TrendChart};
use crate::trend::{
    ChangeItem, DrawnPoint, MarkItem, ReportQuery, Trend, TrendFigure, TrendPoint, TrendView,
    TrendViewQuery,
};
use crate::types::{encode, format_value};

/// The trend page's chart, in pixels.
pub const W: u32 = 900;
pub const H: u32 = 340;

/// The points a chart draws of each series at most (LTTB).
pub const MAX_POINTS: usize = 1500;

/// What hovering a point says.
pub fn tooltip(series: &str, p: &TrendPoint) -> String {
    format!(
        "{series} #{}: {}{}\nkernel {}\nmean {} (min {}, max {}, n={}){}",
        p.x,
        p.sha.clone().unwrap_or_else(|| "(no commit)".into()),
        p.subject
            .as_ref()
            .map(|s| format!(" {s}"))
            .unwrap_or_default(),
        p.kernel,
        format_value(p.mean),
        format_value(p.min),
        format_value(p.max),
        p.n,
        p.mark
            .map(|m| format!("\nmarked {}", m.as_str()))
            .unwrap_or_default()
    )
}

/// A commit's short name: 12 digits of its sha, else its kernel.
pub fn short(p: &TrendPoint) -> String {
    p.sha
        .as_ref()
        .map_or_else(|| p.kernel.clone(), |s| s.chars().take(12).collect())
}

/// Draws `chart` and says where each drawn point landed and what it is.
pub fn figure(chart: &TrendChart<'_>) -> Result<TrendFigure, String> {
    let drawn = chart.draw()?;
    let points = drawn
        .hits
        .iter()
        .map(|h| {
            let (name, t) = &chart.series[h.series];
            let p = &t.points[h.point];
            DrawnPoint {
                series: h.series,
                index: h.point,
                x: p.x,
                px: h.px,
                py: h.py,
                title: tooltip(name, p),
                mark: p.mark,
                first_bad: p.first_bad,
            }
        })
        .collect();
    let alt = chart
        .series
        .first()
        .map(|(_, t)| format!("{} by commit", t.title()))
        .unwrap_or_default();
    Ok(TrendFigure {
        src: svg_data_url(&drawn.svg),
        alt,
        width: drawn.width,
        height: drawn.height,
        points,
    })
}

/// The page's view of `t` (with `others` on the same axis) as `q` asks for it.
pub fn view(t: &Trend, others: &[Trend], q: &TrendViewQuery) -> TrendView {
    let n = t.points.len();
    let axis = {
        let mut all = vec![t];
        all.extend(others.iter());
        shared_axis(&all).0.len()
    };
    let last = axis.saturating_sub(1);
    // An alert's commit range: the first bad commit selected, the commits around it shown.
    let find = |want: &Option<String>| -> Option<(usize, String)> {
        let want = want.as_deref().filter(|w| !w.is_empty())?;
        let i = t.points.iter().position(|p| {
            p.kernel == want
                || p.sha
                    .as_deref()
                    .is_some_and(|s| want.len() >= 7 && s.starts_with(want))
        })?;
        Some((i, want.to_owned()))
    };
    let bad = find(&q.bad);
    let mut window = (0, last);
    let mut selected = 0;
    if let Some((i, _)) = &bad {
        selected = *i;
        if others.is_empty() {
            window = (i.saturating_sub(60), (i + 30).min(last));
        }
    }
    if let (Some(from), Some(to)) = (q.from, q.to) {
        window = (from.min(to).min(last), to.max(from).min(last));
    }
    if let Some(s) = q.selected {
        selected = s;
    }
    selected = selected.min(n.saturating_sub(1));
    let alert_range = bad.as_ref().map(|(_, bad)| {
        let good = find(&q.good).map_or_else(|| "?".to_owned(), |(_, g)| g);
        format!("Alert range: last good {good} → first bad {bad} (selected; the chart shows the commits around it)")
    });
    let mut series = vec![(t.query.machine.to_string(), t)];
    series.extend(others.iter().map(|o| (o.query.machine.to_string(), o)));
    let chart = TrendChart {
        series,
        window: Some(window),
        max_points: MAX_POINTS,
        size: (W, H),
    };
    let marks = t
        .points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            Some(MarkItem {
                x: i,
                label: short(p),
                mark: p.mark?,
                first_bad: p.first_bad,
            })
        })
        .collect();
    let tq = &t.query;
    let changes = t
        .change_points
        .iter()
        .filter(|c| c.x < n)
        .map(|c| {
            let before = &t.points[c.x.saturating_sub(1)];
            let after = &t.points[c.x];
            // The step's two commits when both are known (a robot uploads many commits under
            // one kernel version), else its two kernels.
            let (what, a, b) = match (sha(before), sha(after)) {
                (Some(a), Some(b)) => ("commits", a.to_string(), b.to_string()),
                _ => ("kernels", before.kernel.clone(), after.kernel.clone()),
            };
            let compare = format!(
                "/compare?benchmark={}&machine={}&{what}={},{}&metric={}",
                encode(&tq.benchmark),
                encode(&tq.machine),
                encode(&a),
                encode(&b),
                encode(&tq.metric)
            );
            let report = match (sha(before), sha(after)) {
                (Some(base), Some(bad)) => Some(
                    ReportQuery {
                        benchmark: tq.benchmark.clone(),
                        machine: tq.machine.clone(),
                        base,
                        bad,
                    }
                    .path(),
                ),
                _ => None,
            };
            ChangeItem {
                x: c.x,
                label: short(after),
                verdict: c.verdict.clone(),
                text: format!(
                    " {} {:+.1}% (95 % {:+.1}% to {:+.1}%; {} → {}; p {}{})",
                    c.verdict,
                    c.change_pct,
                    c.change_pct_lo,
                    c.change_pct_hi,
                    format_value(c.before),
                    format_value(c.after),
                    crate::alerts::format_p(c.p_value),
                    if c.x_hi > c.x_lo {
                        format!("; first bad within {} points", c.x_hi - c.x_lo + 1)
                    } else {
                        String::new()
                    }
                ),
                compare,
                report,
            }
        })
        .collect();
    let report = t.change_points.first().and_then(|c| {
        let before = t.points.get(c.x.checked_sub(1)?)?;
        Some(ReportQuery {
            benchmark: tq.benchmark.clone(),
            machine: tq.machine.clone(),
            base: sha(before)?,
            bad: sha(t.points.get(c.x)?)?,
        })
    });
    TrendView {
        query: t.query.clone(),
        also: others.iter().map(|o| o.query.machine.to_string()).collect(),
        title: t.title(),
        order: t.order.clone(),
        n,
        axis,
        window,
        selected,
        point: t.points.get(selected).cloned(),
        alert_range,
        figure: figure(&chart),
        ascii: t.ascii(80, 20),
        marks,
        changes,
        report,
        noise: t.noise.sentence(),
        advice: t.advice.map(|a| a.sentence()),
    }
}

/// A point's commit as a query names it (stored commits were parsed at upload).
fn sha(p: &TrendPoint) -> Option<crate::label::CommitSha> {
    crate::label::CommitSha::parse(p.sha.as_deref()?).ok()
}
