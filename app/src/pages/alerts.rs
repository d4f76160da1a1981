// SPDX-License-Identifier: GPL-3.0-or-later
//! The alerts page (`/alerts?status=open&benchmark=B&machine=M&direction=regression&since=D`,
//! or `/alerts?id=N` for one summary): newest first, each summary with its changed metrics,
//! sparklines, where to bisect and links; keyboard triage (`j`/`k` move, `a` acknowledge,
//! `i` invalid, `f` fixed, `w` won't fix, `v` investigating) like the trend page.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::{error_view, loading, select_options};
use crate::alerts::{Alert, AlertFilter, AlertPage, AlertPatch, AlertStatus, AlertSummary};
use crate::api::{get_alerts, triage_alert};

fn filter_from_map(map: &leptos_router::params::ParamsMap) -> (AlertFilter, Option<i64>) {
    let get = |k: &str| map.get(k).filter(|v| !v.is_empty());
    let id = get("id").and_then(|v| v.parse::<i64>().ok());
    (
        AlertFilter {
            // The page shows what needs looking at unless asked otherwise.
            status: Some(get("status").unwrap_or_else(|| "open".into())),
            benchmark: get("benchmark"),
            machine: get("machine"),
            metric: get("metric"),
            direction: get("direction"),
            since: get("since"),
            limit: Some(100),
            offset: get("offset").and_then(|v| v.parse().ok()),
        },
        id,
    )
}

#[component]
pub fn AlertsPage() -> impl IntoView {
    let (filter, id) = filter_from_map(&use_query_map().read_untracked());
    let data = {
        let filter = filter.clone();
        // The summaries and whether the visitor may triage them, in one resource: the
        // triage keys and the note form are offered only to who may use them.
        Resource::new(
            || (),
            move |()| {
                let filter = filter.clone();
                async move {
                    let can_mark = crate::api::get_whoami().await.is_ok_and(|w| w.can_mark);
                    fetch_alerts(filter, id).await.map(|page| (page, can_mark))
                }
            },
        )
    };
    view! {
        <h1>"Alerts"</h1>
        <p class="muted">
            "Steps found in the trends after each upload. Keys: j/k move; with the mark scope a acknowledge, v investigating, i invalid, f fixed, w won't fix. "
            <a href="/alerts.atom">"Atom feed"</a>
        </p>
        <AlertFilterForm initial=filter.clone() />
        <Suspense fallback=loading>
            {move || {
                let filter = filter.clone();
                Suspend::new(async move {
                    match data.await {
                        Ok((page, can_mark)) => view! {
                            <AlertList filter=filter id=id page=page can_mark=can_mark />
                        }.into_any(),
                        Err(e) => error_view(e),
                    }
                })
            }}
        </Suspense>
    }
}

/// The summaries the page shows: one by id, whatever its status, or those the filter matches.
async fn fetch_alerts(filter: AlertFilter, id: Option<i64>) -> crate::error::PageResult<AlertPage> {
    match id {
        Some(id) => crate::api::get_alert(id).await.map(|s| AlertPage {
            total: 1,
            limit: 1,
            offset: 0,
            summaries: vec![s],
        }),
        None => get_alerts(filter).await,
    }
}

/// The list with its keyboard triage: an island, fetching the list again after each change.
#[island]
fn AlertList(
    filter: AlertFilter,
    id: Option<i64>,
    page: AlertPage,
    /// Whether the visitor may triage (the `mark` scope): else no keys and no note form.
    can_mark: bool,
) -> impl IntoView {
    let version = RwSignal::new(0u32);
    let selected = RwSignal::new(0usize);
    let status = RwSignal::new(String::new());
    let data = RwSignal::new(Ok::<_, String>(page));
    Effect::new(move |seen: Option<()>| {
        version.track();
        if seen.is_some() {
            let filter = filter.clone();
            leptos::task::spawn_local(async move {
                data.set(fetch_alerts(filter, id).await.map_err(|e| e.to_string()));
            });
        }
    });
    let summary_ids = move || -> Vec<i64> {
        data.with(|d| {
            d.as_ref()
                .map(|p| p.summaries.iter().map(|s| s.id).collect())
                .unwrap_or_default()
        })
    };
    let set_status = move |to: AlertStatus| {
        let ids = summary_ids();
        let Some(id) = ids.get(selected.get_untracked()).copied() else {
            return;
        };
        leptos::task::spawn_local(async move {
            let patch = AlertPatch {
                status: Some(to),
                ..AlertPatch::default()
            };
            match triage_alert(id, patch).await {
                Ok(s) => {
                    status.set(format!("Alert summary {} is now {}.", s.id, s.status));
                    version.update(|v| *v += 1);
                }
                Err(e) => status.set(format!(
                    "Could not change alert summary {id}: {e} (triage needs a sign-in with the mark scope)"
                )),
            }
        });
    };
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        let Some(key) = super::shortcut(&ev) else {
            return;
        };
        let n = summary_ids().len();
        match key.as_str() {
            "j" if n > 0 => selected.update(|s| *s = (*s + 1).min(n - 1)),
            "k" => selected.update(|s| *s = s.saturating_sub(1)),
            "a" if can_mark => set_status(AlertStatus::Acknowledged),
            "v" if can_mark => set_status(AlertStatus::Investigating),
            "i" if can_mark => set_status(AlertStatus::Invalid),
            "f" if can_mark => set_status(AlertStatus::Fixed),
            "w" if can_mark => set_status(AlertStatus::Wontfix),
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());
    view! {
        {(!can_mark).then(|| view! {
            <p id="triage-signin" class="muted">"Triage (a/v/i/f/w, notes) needs a sign-in with a token that has the mark scope: "
                <a href="/signin?next=/alerts">"Sign in"</a></p>
        })}
        <p id="alert-status" class="status" aria-live="polite">{move || status.get()}</p>
        {move || match data.get() {
            Ok(page) if page.summaries.is_empty() => view! {
                <p id="no-alerts" class="empty">"No alerts match."</p>
            }.into_any(),
            Ok(page) => {
                let total = page.total;
                let shown = page.summaries.len();
                view! {
                    <p class="muted" id="alert-count">{format!("{shown} of {total} summaries")}</p>
                    <div id="alert-list">
                        {page.summaries.into_iter().enumerate().map(|(i, s)| view! {
                            <SummaryView s=s index=i selected=selected version=version status=status can_mark=can_mark />
                        }).collect_view()}
                    </div>
                }.into_any()
            }
            Err(e) => error_view(e),
        }}
    }
}

#[component]
fn AlertFilterForm(initial: AlertFilter) -> impl IntoView {
    let statuses: Vec<String> = ["open", "all"]
        .into_iter()
        .map(String::from)
        .chain(AlertStatus::ALL.iter().map(|s| s.as_str().to_owned()))
        .collect();
    let directions: Vec<String> = ["any", "regression", "improvement"]
        .into_iter()
        .map(String::from)
        .collect();
    view! {
        <form id="alert-filter" method="get" action="/alerts" class="controls">
            <label>"Status "
                <select name="status">{select_options(statuses, initial.status.as_deref().unwrap_or("open"))}</select>
            </label>
            <label>"Direction "
                <select name="direction">{select_options(directions, initial.direction.as_deref().unwrap_or("any"))}</select>
            </label>
            <label>"Benchmark " <input name="benchmark" value=initial.benchmark.unwrap_or_default() size="12" /></label>
            <label>"Machine " <input name="machine" value=initial.machine.unwrap_or_default() size="12" /></label>
            <label for="alert-metric">"Metric "</label>
            <super::picker::MetricSearchField id="alert-metric".to_owned() name="metric".to_owned()
                initial=initial.metric.unwrap_or_default() benchmark=String::new() machine=String::new()
                alerts=true placeholder="any metric".to_owned() />
            <label>"Since " <input name="since" placeholder="2026-12-01" value=initial.since.unwrap_or_default() size="11" /></label>
            <button type="submit">"Filter"</button>
        </form>
    }
}

#[component]
fn SummaryView(
    s: AlertSummary,
    index: usize,
    selected: RwSignal<usize>,
    version: RwSignal<u32>,
    status: RwSignal<String>,
    can_mark: bool,
) -> impl IntoView {
    let id = s.id;
    let compare = format!("/compare?{}", s.compare_query());
    let report = s.report_query().map(|q| format!("/api/v1/report?{q}"));
    let bisect = s.bisect();
    // Perfline bisects what has a history and two commits.
    let can_bisect = can_mark
        && s.history.is_some()
        && s.good.sha.is_some()
        && s.bad.sha.is_some()
        && s.between != Some(0);
    let subject = s.subject();
    let range = format!(
        "last good {} (kernel {}) → first bad {} (kernel {})",
        s.good.short(),
        s.good.kernel,
        s.bad.short(),
        s.bad.kernel
    );
    let fixed = s.fixed_by.map(|f| {
        view! { <p class="muted">"Undone by " <a href=format!("/alerts?id={f}")>{format!("summary {f}")}</a></p> }
            .into_any()
    });
    let fixes = (!s.fixes.is_empty()).then(|| {
        let list = s
            .fixes
            .iter()
            .map(|f| format!("{f}"))
            .collect::<Vec<_>>()
            .join(", ");
        view! { <p class="muted">{format!("Undoes the regression of summary {list}")}</p> }
            .into_any()
    });
    let note = RwSignal::new(s.note.clone());
    let assignee = RwSignal::new(s.assignee.clone());
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let patch = AlertPatch {
            note: Some(note.get_untracked()),
            assignee: Some(assignee.get_untracked()),
            ..AlertPatch::default()
        };
        leptos::task::spawn_local(async move {
            match triage_alert(id, patch).await {
                Ok(_) => {
                    status.set(format!("Saved the note of alert summary {id}."));
                    version.update(|v| *v += 1);
                }
                Err(e) => status.set(format!("Could not save: {e}")),
            }
        });
    };
    let rows = s
        .alerts
        .iter()
        .map(|a| {
            let trend = format!("/trend?{}", s.trend_query(a));
            alert_row(a, trend)
        })
        .collect_view();
    // Each part type-erased: one `view!` of them all is too deep a type for the compiler.
    let table = view! {
        <table class="alerts">
            <thead><tr>
                <th>"Metric"</th><th class="num">"Before"</th><th class="num">"After"</th>
                <th class="num">"Change"</th><th class="num" title="Welch's t test of the step, Bonferroni over the series">"p"</th><th>"Trend"</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any();
    let links = view! {
        <p class="links">
            <a class="compare-link" href=compare>"Before/after comparison"</a>
            {report.map(|r| view! { " · " <a class="report-link" href=r>"LKP-style report"</a> })}
        </p>
    }
    .into_any();
    let supporting = supporting_table(&s);
    let pending = pending_reruns(&s);
    let confirmation = s.confirmation.clone().map(|c| {
        view! { <p class="confirmation"><strong>"Confirmation: "</strong>{c}</p> }.into_any()
    });
    let events = s.events.iter().map(|e| view! {
        <li data-kind=e.kind.clone()>{format!("{} {}: {}{}{}", e.at, e.actor, e.what(),
            if e.assignee.is_empty() { String::new() } else { format!(", assigned to {}", e.assignee) },
            if e.note.is_empty() { String::new() } else { format!(" — {}", e.note) })}</li>
    }).collect_view();
    let events =
        (!s.events.is_empty()).then(|| view! { <ul class="events">{events}</ul> }.into_any());
    let bisections = (!s.bisections.is_empty()).then(|| {
        let items = s
            .bisections
            .iter()
            .map(|(id, state)| {
                view! { " " <a class="bisection-link" href=format!("/bisections/{id}")>{format!("#{id} ({state})")}</a> }
            })
            .collect_view();
        view! { <p class="bisections"><strong>"Bisections:"</strong>{items}</p> }.into_any()
    });
    let form = can_mark.then(|| {
        view! {
            <form class="triage" on:submit=save>
                <label>"Assignee " <input class="assignee" prop:value=move || assignee.get()
                    on:input=move |ev| assignee.set(event_target_value(&ev)) size="14" /></label>
                <label>"Note " <input class="note" prop:value=move || note.get()
                    on:input=move |ev| note.set(event_target_value(&ev)) size="40" /></label>
                <button type="submit">"Save"</button>
            </form>
        }
        .into_any()
    });
    let head = view! {
        <h2>
            <a href=format!("/alerts?id={id}")>{format!("#{id}")}</a>" "
            <span class=format!("badge status-{}", s.status)>{s.status.as_str()}</span>" "
            <span class="subject">{subject}</span>
        </h2>
        <p class="muted">{format!("{} · {} · found {}", s.benchmark, s.machine, s.created_at)}</p>
        <p class="range">{range}</p>
        <p>"Bisect: " <code class="bisect">{bisect}</code>" "{can_bisect.then(|| view! { <super::BisectButton alert=id /> })}</p>
    }
    .into_any();
    view! {
        <article class=move || if selected.get() == index { "alert-summary selected" } else { "alert-summary" }
            id=format!("summary-{id}") data-id=id data-status=s.status.as_str()
            on:click=move |_| selected.set(index)>
            {head}
            {pending}
            {confirmation}
            {bisections}
            {fixed}
            {fixes}
            {table}
            {supporting}
            {links}
            {form}
            {events}
        </article>
    }
}

/// The reruns a summary awaiting confirmation waits for, as robots get them from
/// `GET /api/v1/work`.
fn pending_reruns(s: &AlertSummary) -> Option<AnyView> {
    if s.requests.is_empty() {
        return None;
    }
    let items = s
        .requests
        .iter()
        .map(|r| {
            let commit = if r.commit.is_empty() {
                &r.kernel
            } else {
                &r.commit
            };
            let commit = crate::text::short_commit(commit).to_owned();
            view! {
                <li class="rerun" data-request=r.id>
                    <code>{commit}</code>
                    {format!(": {} of {} runs", r.received, r.runs)}
                    <span class="muted">{format!(" — {}", r.reason)}</span>
                </li>
            }
        })
        .collect_view();
    let machine = s.machine.clone();
    Some(
        view! {
            <section class="pending-reruns" aria-label="Pending reruns">
                <h3>"Pending reruns"</h3>
                <p class="muted">
                    "Nobody is told of this step until reruns confirm it. Robots get these from "
                    <code>{format!("GET /api/v1/work?machine={machine}")}</code>
                    " (" <code>"perfline work"</code> ")."
                </p>
                <ul>{items}</ul>
            </section>
        }
        .into_any(),
    )
}

/// The other metrics that changed at the step (one summary's page only): seed 001's rows
/// under the KPI, in lkp-tests' order.
fn supporting_table(s: &AlertSummary) -> Option<AnyView> {
    if s.supporting.is_empty() {
        return None;
    }
    let rows = s
        .supporting
        .iter()
        .map(|r| {
            let change = if r.absolute {
                format!("{:+.2}", r.change)
            } else {
                format!("{:+.1}%", r.change)
            };
            view! {
                <tr class=format!("supporting direction-{}", r.direction.as_str())>
                    <td>{r.metric.clone()}</td>
                    <td class="num">{format!("{:.2}", r.before)}</td>
                    <td class="num">{format!("{:.2}", r.after)}</td>
                    <td class="num change">{change}</td>
                    <td>{r.direction.as_str()}</td>
                </tr>
            }
        })
        .collect_view();
    let shown = s.supporting.len();
    let total = s.supporting_total as usize;
    let more = (total > shown).then(|| {
        view! { <p class="muted">{format!("The first {shown} of {total}; the LKP-style report has every one.")}</p> }
    });
    Some(
        view! {
            <details class="supporting" open>
                <summary>{format!("Changed alongside at this step: {total} other metric(s)")}</summary>
                <div class="table-scroll">
                    <table class="supporting">
                        <thead><tr>
                            <th>"Metric"</th><th class="num">"Before"</th><th class="num">"After"</th>
                            <th class="num">"Change"</th><th>"Direction"</th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
                {more}
            </details>
        }
        .into_any(),
    )
}

fn alert_row(a: &Alert, trend: String) -> impl IntoView {
    let unit = a.unit.clone().map(|u| format!(" {u}")).unwrap_or_default();
    view! {
        <tr class=if a.regression { "alert regression" } else { "alert improvement" }>
            <td>{a.title()}</td>
            <td class="num">{format!("{:.2}{unit}", a.before)}</td>
            <td class="num">{format!("{:.2}{unit}", a.after)}</td>
            <td class="num change">
                {format!("{:+.1}% {}", a.change_pct, a.verdict())}
                {a.evidence.as_ref().map(|e| view! {
                    <span class="interval" title=format!("first bad commit between {} and {} ({} points)", e.first_bad_from.name(), e.first_bad_to.name(), e.first_bad_points)>
                        {format!(" 95 % {:+.1}% to {:+.1}%", e.change_pct_lo, e.change_pct_hi)}
                    </span>
                })}
            </td>
            <td class="num">{crate::alerts::format_p(a.p_value)}</td>
            <td>
                <a class="trend-link" href=trend aria-label=format!("Trend of {}", a.title())>
                    {sparkline(&a.spark, a.spark_step as usize)}
                </a>
            </td>
        </tr>
    }
}

/// A 120×24 line of the per-commit means around the step, the step marked.
fn sparkline(values: &[f64], step: usize) -> impl IntoView {
    let (w, h) = (120.0, 24.0);
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        });
    let span = if hi > lo { hi - lo } else { 1.0 };
    let n = values.len().max(2) - 1;
    let x = |i: usize| i as f64 * w / n as f64;
    let points = values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{:.1},{:.1}", x(i), h - 2.0 - (v - lo) / span * (h - 4.0)))
        .collect::<Vec<_>>()
        .join(" ");
    let sx = format!("{:.1}", x(step));
    view! {
        <svg class="spark" width="120" height="24" viewBox="0 0 120 24" aria-hidden="true">
            <line x1=sx.clone() x2=sx y1="0" y2="24" class="spark-step" />
            <polyline points=points fill="none" class="spark-line" />
        </svg>
    }
}
