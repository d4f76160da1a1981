use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::{error_view, loading, parse_id};
use crate::api::get_run;
use crate::types::{format_value, RunDetail, Series};

#[component]
pub fn RunView() -> impl IntoView {
    let params = use_params_map();
    let id = move || parse_id(params.read().get("id"));
    let data = Resource::new(id, |id| async move {
        match id {
            Some(id) => get_run(id).await,
            None => Ok(None),
        }
    });
    view! {
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(Some(d)) => run_view(d),
                    Ok(None) => super::not_there("No such run".into()),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn run_view(d: RunDetail) -> AnyView {
    let r = d.run;
    let run_id = r.id;
    let tags = r
        .tags
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ");
    view! {
        <h1>{format!("Run #{}: {}", r.id, r.benchmark)}</h1>
        <dl class="facts">
            <dt>"Machine"</dt><dd id="run-machine">{r.machine}</dd>
            <dt>"Kernel"</dt><dd id="run-kernel">{r.kernel}</dd>
            <dt>"Commit"</dt><dd class="mono">{r.commit.unwrap_or_else(|| "-".into())}</dd>
            <dt>"Tags"</dt><dd>{if tags.is_empty() { "-".to_owned() } else { tags }}</dd>
            <dt>"Samples"</dt><dd>{r.samples}</dd>
            {r.facts.into_iter().map(|(k, v)| view! { <dt class="fact">{k}</dt><dd>{v}</dd> }).collect_view()}
            <dt>"Uploaded"</dt><dd>{r.created_at} " in " <a href=format!("/uploads/{}", r.upload_id)>{format!("upload #{}", r.upload_id)}</a>
                {r.uploaded_by.map(|by| view! { " by " <strong class="uploaded-by">{by}</strong> })}</dd>
        </dl>
        <table class="series">
            <thead>
                <tr>
                    <th>"Metric"</th><th>"Param"</th><th>"Unit"</th><th>"Better"</th>
                    <th class="num">"n"</th><th class="num">"Mean"</th><th class="num">"Min"</th><th class="num">"Max"</th>
                    <th>"Samples"</th>
                </tr>
            </thead>
            <tbody>
                {d.series.into_iter().map(series_row).collect_view()}
            </tbody>
        </table>
        <super::admin::CorrectRun id=run_id />
    }
    .into_any()
}

fn series_row(s: Series) -> impl IntoView {
    let n = s.samples.len();
    let values: Vec<f64> = s.samples.iter().map(|(_, v)| *v).collect();
    let mean = values.iter().sum::<f64>() / n.max(1) as f64;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let shown: Vec<String> = values.iter().take(12).map(|v| format_value(*v)).collect();
    let more = if n > 12 {
        format!(" … ({} more)", n - 12)
    } else {
        String::new()
    };
    view! {
        <tr>
            <td>{s.metric}</td>
            <td>{s.param}</td>
            <td>{s.unit.unwrap_or_default()}</td>
            <td>{s.direction.as_str()}</td>
            <td class="num">{n}</td>
            <td class="num">{format_value(mean)}</td>
            <td class="num">{format_value(min)}</td>
            <td class="num">{format_value(max)}</td>
            <td class="mono small">{shown.join(" ")}{more}</td>
        </tr>
    }
}
