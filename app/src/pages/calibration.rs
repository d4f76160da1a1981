// SPDX-License-Identifier: GPL-3.0-or-later
//! `/calibration`: the series with A/A runs (`calibration=NAME` uploads), noisiest first: the
//! spread within a run and between boots, and how often mmtests' significance and the alert
//! rule fire where nothing changed.

use leptos::prelude::*;

use super::{error_view, loading};
use crate::api::get_calibration;
use crate::noise::{Basis, Calibration};

#[component]
pub fn CalibrationPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| get_calibration());
    view! {
        <h1>"Noise and A/A calibration"</h1>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(c) => calibration_view(c),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn pct(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{:.digits$} %", v * 100.0))
}

fn calibration_view(c: Calibration) -> AnyView {
    if c.series.is_empty() {
        return view! {
            <p class="empty" id="calibration-empty">
                "No A/A runs yet. Run one kernel several times (rebooting between runs, as you "
                "would between kernels) and upload each run with "
                <code>"calibration=NAME"</code>
                ", e.g. "
                <code>"curl -F file=@run1.txt -F calibration=reboots -F kernel=6.1.0 ... /api/v1/upload"</code>
                ". This page then shows how noisy each series is and how often a test finds a "
                "change where there is none."
            </p>
        }
        .into_any();
    }
    let left_out = (c.left_out > 0).then(
        || view! { <p class="muted">{format!("{} quieter series not shown.", c.left_out)}</p> },
    );
    let rows = c
        .series
        .into_iter()
        .map(|s| {
            let series = if s.param.is_empty() {
                s.metric.clone()
            } else {
                format!("{}.{}", s.metric, s.param)
            };
            let dominant = match s.dominant {
                Some(Basis::Between) => "between boots",
                Some(Basis::Within) => "within a run",
                None => "-",
            };
            let fpr_sig = match s.fpr_significance {
                Some(f) => format!("{:.0} % of {} pairs", f * 100.0, s.pairs),
                None => "- (one sample a run)".to_owned(),
            };
            let fpr_alert = match s.fpr_alert {
                Some(f) => format!("{:.1} % (alpha {})", f * 100.0, s.alert_alpha),
                None => "- (under 3 runs)".to_owned(),
            };
            let warning = s.warning.clone();
            let class = if warning.is_some() { "warn" } else { "" };
            let key = series.clone();
            view! {
                <tr class=class data-series=key>
                    <td>{s.calibration.clone()}</td>
                    <td>{s.benchmark.clone()}</td>
                    <td>{s.machine.clone()}</td>
                    <td>{s.kernel.clone()}</td>
                    <td>{series}</td>
                    <td class="num">{s.runs}</td>
                    <td class="num within">{pct(s.within_cv, 2)}</td>
                    <td class="num between">{pct(s.between_cv, 2)}</td>
                    <td class="dominant">{dominant}</td>
                    <td class="num">{fpr_sig}</td>
                    <td class="num">{fpr_alert}</td>
                    <td class="warning">{warning.unwrap_or_default()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="muted">
            "Each series of A/A runs (one kernel and setup, uploaded with calibration=NAME): the "
            "coefficient of variation within a run (its iterations) and between runs (reboots); "
            "how often mmtests' significance marks one A/A run against another, where 5 % is its "
            "nominal rate; and how often the alert rule fires on pretend histories drawn from "
            "the runs, against its alpha. A warning means a test cries wolf more than it says."
        </p>
        <table id="calibration" class="runs">
            <thead>
                <tr>
                    <th>"Calibration"</th>
                    <th>"Benchmark"</th>
                    <th>"Machine"</th>
                    <th>"Kernel"</th>
                    <th>"Series"</th>
                    <th class="num">"Runs"</th>
                    <th class="num">"Within-run CV"</th>
                    <th class="num">"Between-boot CV"</th>
                    <th>"Dominant"</th>
                    <th class="num">"mmtests * on A/A"</th>
                    <th class="num">"Alert rule on A/A"</th>
                    <th>"Warning"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        {left_out}
    }
    .into_any()
}
