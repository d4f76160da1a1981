// SPDX-License-Identifier: GPL-3.0-or-later
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::{error_view, loading, parse_id};
use crate::api::get_run;
use crate::types::{format_value, RunDetail, Series};

#[component]
pub fn RunView() -> impl IntoView {
    let params = use_params_map();
    let id = move || parse_id(params.read().get("id"));
    let query = use_query_map();
    let shown = move || {
        let q = query.read_untracked();
        Shown {
            filter: q.get("filter").unwrap_or_default(),
            page: q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1),
        }
    };
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
                    Ok(Some(d)) => run_view(d, shown()),
                    Ok(None) => super::not_there("No such run".into()),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// A run of more series than this (an LKP job's 5,000 keys) is shown a page at a time.
const PAGE_SERIES: usize = 100;

/// Which series the page shows: `filter=` (part of a name, any case) and `page=` in its URL.
struct Shown {
    filter: String,
    page: usize,
}

/// A page of series, every prefix with its count, and `(page, pages, matched)` when paged.
type Paged = (
    Vec<Series>,
    Vec<(String, usize)>,
    Option<(usize, usize, usize)>,
);

/// The series a page shows, metrics with a direction (a job's KPIs and failure counts) first,
/// then by name (so by prefix), and the prefixes with their counts; the page as a
/// `(page, pages, matched)` when the run is paged.
fn page_of(mut series: Vec<Series>, shown: &Shown) -> Paged {
    if series.len() <= PAGE_SERIES && shown.filter.is_empty() {
        return (series, Vec::new(), None);
    }
    let mut prefixes: std::collections::BTreeMap<String, usize> = Default::default();
    for s in &series {
        let prefix = s
            .metric
            .split_once('.')
            .map_or(s.metric.as_str(), |(p, _)| p);
        *prefixes.entry(prefix.to_owned()).or_default() += 1;
    }
    let needle = shown.filter.trim().to_lowercase();
    series.retain(|s| needle.is_empty() || s.metric.to_lowercase().contains(&needle));
    series.sort_by(|a, b| {
        (!a.direction.is_known(), &a.metric, &a.param).cmp(&(
            !b.direction.is_known(),
            &b.metric,
            &b.param,
        ))
    });
    let matched = series.len();
    let pages = matched.div_ceil(PAGE_SERIES).max(1);
    let page = shown.page.clamp(1, pages);
    let series = series
        .into_iter()
        .skip((page - 1) * PAGE_SERIES)
        .take(PAGE_SERIES)
        .collect();
    (
        series,
        prefixes.into_iter().collect(),
        Some((page, pages, matched)),
    )
}

fn run_view(d: RunDetail, shown: Shown) -> AnyView {
    let r = d.run;
    let run_id = r.id;
    let tags = r
        .tags
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let total = d.series.len();
    let (series, prefixes, paged) = page_of(d.series, &shown);
    let here = format!("/runs/{run_id}");
    let link = |filter: &str, page: usize| {
        let mut url = format!("{here}?page={page}");
        if !filter.is_empty() {
            url.push_str(&format!("&filter={}", crate::url::encode(filter)));
        }
        url
    };
    let pager = paged.map(|(page, pages, matched)| {
        let groups = prefixes
            .iter()
            .map(|(p, n)| {
                let href = link(&format!("{p}."), 1);
                view! { <li><a href=href>{p.clone()}</a>{format!(" {n}")}</li> }
            })
            .collect_view();
        let what = if shown.filter.is_empty() {
            format!("{total} series")
        } else {
            format!("{matched} of {total} series match \"{}\"", shown.filter)
        };
        let first = (page - 1) * PAGE_SERIES + 1;
        let last = (first + PAGE_SERIES - 1).min(matched);
        let prev = (page > 1).then(|| link(&shown.filter, page - 1));
        let next = (page < pages).then(|| link(&shown.filter, page + 1));
        view! {
            <details class="prefixes">
                <summary>{format!("By prefix ({})", prefixes.len())}</summary>
                <ul class="prefixes">{groups}</ul>
            </details>
            {super::metric_filter("series-filter", here.clone(), &[], shown.filter.clone(), None)}
            <p class="rows-page" id="series-page">
                {if matched == 0 {
                    format!("{what}: none to show.")
                } else {
                    format!("{what}; those with a direction first. Rows {first}–{last}, page {page} of {pages}.")
                }}
                " " {super::prev_next(prev, next)}
            </p>
        }
    });
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
        {pager}
        <table class="series">
            <thead>
                <tr>
                    <th>"Metric"</th><th>"Param"</th><th>"Unit"</th><th>"Better"</th>
                    <th class="num">"n"</th><th class="num">"Mean"</th><th class="num">"Min"</th><th class="num">"Max"</th>
                    <th>"Samples"</th>
                </tr>
            </thead>
            <tbody>
                {series.into_iter().map(series_row).collect_view()}
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
