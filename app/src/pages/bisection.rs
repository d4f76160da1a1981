// SPDX-License-Identifier: GPL-3.0-or-later
//! `/bisections/{id}`: a bisection Perfline drives: its state, bounds, the tested commits with
//! their verdicts (on the trend chart, as bisect marks, and in a table), the next commit, the
//! culprit or why it failed, and its log.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::{error_view, loading, parse_id};
use crate::api::get_bisection;
use crate::bisection::{Bisection, BisectionState};
use crate::url::encode;

#[component]
pub fn BisectionPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || parse_id(params.read().get("id"));
    let data = Resource::new(id, |id| async move {
        match id {
            Some(id) => get_bisection(id).await.map(Some),
            None => Ok(None),
        }
    });
    view! {
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(Some(b)) => bisection_view(b),
                    Ok(None) => super::not_there("No such bisection".into()),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn short(s: &str) -> String {
    crate::text::short_commit(s).to_owned()
}

fn bisection_view(b: Bisection) -> AnyView {
    let series = if b.param.is_empty() {
        crate::alerts::series_name(&b.benchmark, &b.metric)
    } else {
        crate::alerts::series_name(&b.benchmark, &format!("{}.{}", b.metric, b.param))
    };
    let mut trend = vec![
        format!("benchmark={}", encode(&b.benchmark)),
        format!("machine={}", encode(&b.machine)),
        format!("metric={}", encode(&b.metric)),
        format!("history={}", encode(&b.history)),
    ];
    if !b.param.is_empty() {
        trend.push(format!("param={}", encode(&b.param)));
    }
    let trend = trend.join("&");
    let chart = format!("/api/v1/trend?{trend}&format=svg");
    let trend_page = format!(
        "/trend?{trend}&good={}&bad={}",
        encode(&b.good),
        encode(&b.bad)
    );
    let outcome = match b.state {
        BisectionState::Done => view! {
            <p id="bisection-culprit" class="culprit">
                <strong>"First bad commit: "</strong>
                <code>{b.culprit.clone().unwrap_or_default()}</code>
                {b.culprit_subject.clone().map(|s| format!(" ({s})"))}
            </p>
            {b.suspicious.clone().map(|s| view! { <p id="bisection-suspicious" class="reason">{s}</p> })}
        }
        .into_any(),
        BisectionState::Failed | BisectionState::Cancelled => view! {
            <p id="bisection-reason" class="reason">
                <strong>{format!("{}: ", b.state)}</strong>
                {b.reason.clone().unwrap_or_default()}
            </p>
        }
        .into_any(),
        BisectionState::Running => match &b.next {
            Some(n) => view! {
                <p id="bisection-next">
                    "Next: " <code>{n.commit.as_deref().map(short).unwrap_or_default()}</code>
                    {format!(", {} more run{}", n.runs, if n.runs == 1 { "" } else { "s" })}
                    <span class="muted">{format!(" — robots get it from GET /api/v1/bisections/{}/next or GET /api/v1/work?machine={}", b.id, b.machine)}</span>
                </p>
            }
            .into_any(),
            None => view! { <p id="bisection-next">"Waiting for the runs handed out."</p> }.into_any(),
        },
    };
    let lease = (b.state == BisectionState::Running).then(|| {
        let waits = match b.next.as_ref().and_then(|n| n.waiting.clone()) {
            Some(w) => format!("Waits for: {w}."),
            None => "No robot holds its runs: waiting for a robot to take them.".to_owned(),
        };
        let failed = b.lease.as_ref().and_then(|l| {
            l.last_failure.as_ref().map(|f| {
                format!(
                    "Last failure ({} in all): {f}, at {}.",
                    l.failures,
                    l.last_failure_at
                        .map(crate::text::utc_seconds)
                        .unwrap_or_default()
                )
            })
        });
        view! {
            <p id="bisection-lease">{waits}</p>
            {failed.map(|f| view! { <p id="bisection-failure" class="reason">{f}</p> })}
        }
    });
    let rows = b
        .tested
        .iter()
        .map(|t| {
            let mean = t.mean.map_or_else(|| "-".to_owned(), |m| format!("{m:.4}"));
            let verdict = if t.forced {
                format!("{} (at the run cap)", t.verdict)
            } else {
                t.verdict.clone()
            };
            view! {
                <tr class=format!("verdict-{}", t.verdict) data-commit=t.commit.clone()>
                    <td><code>{short(&t.commit)}</code></td>
                    <td>{t.subject.clone().unwrap_or_default()}</td>
                    <td class="num">{t.runs}</td>
                    <td class="num">{mean}</td>
                    <td class="verdict">{verdict}</td>
                </tr>
            }
        })
        .collect_view();
    let events = b
        .events
        .iter()
        .map(|e| view! { <li>{format!("{} {}: {} — {}", e.at, e.actor, e.kind, e.detail)}</li> })
        .collect_view();
    let alert = b.alert.map(|a| {
        view! { " · " <a href=format!("/alerts?id={a}")>{format!("alert #{a}")}</a> }
    });
    let log = format!("/api/v1/bisections/{}/log", b.id);
    view! {
        <h1>
            {format!("Bisection #{} ", b.id)}
            <span id="bisection-state" class=format!("badge state-{}", b.state)>{b.state.as_str()}</span>
        </h1>
        <p class="muted">
            {format!("{series} on {} in {} · started by {} {}", b.machine, b.history, b.created_by, b.created_at)}
            {alert}
        </p>
        <p id="bisection-bounds">
            "Last good " <code>{short(&b.good)}</code> " · first bad " <code>{short(&b.bad)}</code>
            {format!(" · {} commits between · {} runs so far (at most {} a commit)", b.remaining, b.runs_total, b.max_runs)}
        </p>
        {outcome}
        {lease}
        {(b.state == BisectionState::Running).then(|| view! {
            <BisectionWatch id=b.id runs_total=b.runs_total events=b.events.len() />
        })}
        <p><a href=trend_page>"The trend"</a> " · " <a href=log.clone()>"git bisect log"</a>
            <span class="muted">" (for " <code>"git bisect replay"</code> ")"</span></p>
        <img class="bisection-chart" src=chart alt=format!("The trend of {series}, the tested commits marked good and bad") />
        <table id="bisection-tested">
            <caption>"Tested commits, in history order"</caption>
            <thead><tr><th>"Commit"</th><th>"Subject"</th><th class="num">"Runs"</th><th class="num">"Mean"</th><th>"Verdict"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
        <h2>"History"</h2>
        <ul class="events">{events}</ul>
    }
    .into_any()
}

/// While a bisection runs, its page follows it: every few seconds the island asks for the
/// bisection and reloads the page when a run, a verdict or the state has changed (the page
/// itself stays HTML from the server).
#[island]
fn BisectionWatch(id: i64, runs_total: u32, events: usize) -> impl IntoView {
    Effect::new(move |_| {
        let _ = set_interval_with_handle(
            move || {
                leptos::task::spawn_local(async move {
                    if let Ok((state, runs, seen)) = crate::api::get_bisection_progress(id).await {
                        if state != BisectionState::Running || runs != runs_total || seen != events
                        {
                            let _ = window().location().reload();
                        }
                    }
                });
            },
            std::time::Duration::from_secs(3),
        );
    });
    view! {
        <p id="bisection-watch" class="muted">
            "This page follows the bisection: it reloads as runs and verdicts come in."
        </p>
    }
}

/// The alert page's "Bisect" button (scope `mark`): starts a bisection of the summary and
/// opens its page. A component of the alert list's island.
#[component]
pub fn BisectButton(alert: i64) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let start = move |_| {
        leptos::task::spawn_local(async move {
            match crate::api::start_bisection(alert).await {
                Ok(id) => {
                    let _ = window().location().set_href(&format!("/bisections/{id}"));
                }
                Err(e) => status.set(format!("Could not start a bisection: {e}")),
            }
        });
    };
    view! {
        <button type="button" class="bisect-button" on:click=start>"Bisect"</button>
        <span class="status" aria-live="polite">{move || status.get()}</span>
    }
}
