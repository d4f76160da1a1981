use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::{error_view, loading};
use crate::api::{get_compare, get_compare_choices};
use crate::types::{format_value, CompareChoices, CompareQuery, CompareTable};

/// Reads the compare state from the query string: `kernels=K0,K1` and/or repeated `kernel=K`.
fn query_from_map(map: &leptos_router::params::ParamsMap) -> CompareQuery {
    let mut kernels: Vec<String> = Vec::new();
    if let Some(list) = map.get("kernels") {
        kernels.extend(
            list.split(',')
                .map(str::trim)
                .filter(|k| !k.is_empty())
                .map(str::to_owned),
        );
    }
    if let Some(repeated) = map.get_all("kernel") {
        kernels.extend(repeated.into_iter().filter(|k| !k.trim().is_empty()));
    }
    let mut seen = std::collections::HashSet::new();
    kernels.retain(|k| seen.insert(k.clone()));
    CompareQuery {
        benchmark: map.get("benchmark").unwrap_or_default(),
        machine: map.get("machine").unwrap_or_default(),
        kernels,
        metric: map.get("metric").filter(|m| !m.is_empty()),
    }
}

#[component]
pub fn ComparePage() -> impl IntoView {
    let query_map = use_query_map();
    let query = Memo::new(move |_| query_from_map(&query_map.read()));
    let choices = Resource::new(
        move || query.get(),
        |q| async move {
            let b = (!q.benchmark.is_empty()).then_some(q.benchmark);
            let m = (!q.machine.is_empty()).then_some(q.machine);
            get_compare_choices(b, m).await
        },
    );
    let table = Resource::new(
        move || query.get(),
        |q| async move {
            if q.benchmark.is_empty() || q.machine.is_empty() || q.kernels.is_empty() {
                Ok(None)
            } else {
                get_compare(q).await.map(Some)
            }
        },
    );
    view! {
        <h1>"Compare kernels"</h1>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match choices.await {
                    Ok(c) => choice_form(c, query.get_untracked()),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match table.await {
                    Ok(Some(t)) => table_view(t),
                    Ok(None) => view! { <p class="muted">"Pick a benchmark, a machine and kernels (the first is the baseline)."</p> }.into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn choice_form(c: CompareChoices, q: CompareQuery) -> AnyView {
    let options = |items: Vec<String>, chosen: String| {
        items
            .into_iter()
            .map(|item| {
                let selected = item == chosen;
                view! { <option value=item.clone() selected=selected>{item.clone()}</option> }
            })
            .collect_view()
    };
    view! {
        <form id="compare-form" method="get" action="/compare" class="form">
            <label for="benchmark">"Benchmark"</label>
            <select id="benchmark" name="benchmark">
                <option value="">"—"</option>
                {options(c.benchmarks, q.benchmark.clone())}
            </select>
            <label for="machine">"Machine"</label>
            <select id="machine" name="machine">
                <option value="">"—"</option>
                {options(c.machines, q.machine.clone())}
            </select>
            <span class="label">"Kernels"</span>
            <div class="kernels">
                {if c.kernels.is_empty() {
                    view! { <span class="muted">"Choose a benchmark and machine, then press Compare to list kernels."</span> }.into_any()
                } else {
                    c.kernels.into_iter().map(|k| {
                        let checked = q.kernels.contains(&k);
                        view! { <label class="check"><input type="checkbox" name="kernel" value=k.clone() checked=checked />{k.clone()}</label> }
                    }).collect_view().into_any()
                }}
            </div>
            <div></div>
            <button type="submit">"Compare"</button>
        </form>
    }
    .into_any()
}

fn table_view(t: CompareTable) -> AnyView {
    if t.rows.is_empty() {
        return view! { <p class="muted" id="compare-empty">"No samples for this choice."</p> }
            .into_any();
    }
    let kernels = t.query.kernels.clone();
    view! {
        <table id="compare-table" class="compare">
            <thead>
                <tr>
                    <th>"Metric"</th>
                    <th>"Param"</th>
                    {kernels.iter().enumerate().map(|(i, k)| view! {
                        <th class="num">{k.clone()}{if i == 0 { " (base)" } else { "" }}</th>
                    }).collect_view()}
                </tr>
            </thead>
            <tbody>
                {t.rows.into_iter().map(|row| view! {
                    <tr>
                        <td>{row.metric}{row.unit.map(|u| format!(" ({u})")).unwrap_or_default()}</td>
                        <td>{row.param}</td>
                        {row.cells.into_iter().map(|cell| match cell {
                            Some(c) => view! { <td class="num" title=format!("n={}", c.n)>{format_value(c.mean)}</td> }.into_any(),
                            None => view! { <td class="num muted">"-"</td> }.into_any(),
                        }).collect_view()}
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
        <p class="muted small">"Arithmetic mean of all samples per kernel; hover a cell for its sample count."</p>
    }
    .into_any()
}
