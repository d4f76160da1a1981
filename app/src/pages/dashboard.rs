// SPDX-License-Identifier: GPL-3.0-or-later
use leptos::prelude::*;

use super::{error_view, loading, RunRow, RunTable};
use crate::api::get_dashboard;
use crate::types::Dashboard as DashboardData;

#[component]
pub fn Dashboard() -> impl IntoView {
    let data = Resource::new(|| (), |_| get_dashboard());
    view! {
        <h1>"Dashboard"</h1>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(d) => dashboard_view(d),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn dashboard_view(d: DashboardData) -> AnyView {
    if d.benchmarks.is_empty() {
        return view! {
            <p class="empty">"Nothing uploaded yet. " <a href="/upload">"Upload a results file"</a> " to begin."</p>
        }
        .into_any();
    }
    let regressions = (!d.open_regressions.is_empty()).then(|| {
        let items = d
            .open_regressions
            .iter()
            .map(|s| {
                let href = format!("/alerts?id={}", s.id);
                view! {
                    <li data-id=s.id>
                        <a href=href>{s.subject()}</a>
                        <span class="muted">{format!(" {} · {}", s.status, s.created_at)}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <section id="open-regressions" class="alerts-box">
                <h2>"Open regressions"</h2>
                <ul>{items}</ul>
                <p><a href="/alerts">"All alerts"</a></p>
            </section>
        }
    });
    // The robots: when each was seen, what it did last, which went silent.
    let robots = (!d.robots.is_empty()).then(|| {
        let rows = d
            .robots
            .iter()
            .map(|r| {
                view! {
                    <tr class=if r.silent { "robot silent" } else { "robot" } data-robot=r.name.clone()>
                        <td>{r.name.clone()}</td>
                        <td>{r.machine.clone()}</td>
                        <td>{crate::text::utc_seconds(r.last_seen)}</td>
                        <td>{r.last_work.clone()}</td>
                        <td>{if r.silent { "silent" } else { "seen" }}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <section id="robots">
                <h2>"Robots"</h2>
                <table>
                    <thead><tr><th>"Robot"</th><th>"Machine"</th><th>"Last seen (UTC)"</th><th>"Last work"</th><th>"State"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
                <p class="muted">"Silent: not seen for three leases. Its work goes to another robot of the machine; see docs/lab.md."</p>
            </section>
        }
    });
    // An mmtests tree's benchmarks together, with the report of them all.
    let trees = (!d.trees.is_empty()).then(|| {
        let items = d
            .trees
            .iter()
            .map(|t| {
                let upload = format!("/uploads/{}", t.upload_id);
                view! {
                    <li>
                        <a href=t.report.clone()>{format!("{}: {} benchmarks", t.machine, t.benchmarks.len())}</a>
                        <span class="muted">{format!(" on {} ", t.kernels.join(", "))}</span>
                        <a class="muted" href=upload>{format!("(upload #{})", t.upload_id)}</a>
                        <div class="small">{t.benchmarks.join(", ")}</div>
                    </li>
                }
            })
            .collect_view();
        view! {
            <section id="trees">
                <h2>"mmtests trees"</h2>
                <p class="muted small">"The newest tree of every machine, and those of the recent uploads: each links the page of all its benchmarks."</p>
                <ul>{items}</ul>
            </section>
        }
    });
    view! {
        {regressions}
        {robots}
        {trees}
        <div class="grid">
            <section>
                <h2>"Benchmarks"</h2>
                <table id="benchmarks">
                    <thead>
                        <tr><th>"Benchmark"</th><th class="num">"Runs"</th><th>"Machines"</th><th>"Kernels"</th></tr>
                    </thead>
                    <tbody>
                        {d.benchmarks.into_iter().map(|b| {
                            let machine = b.machines.first().cloned().unwrap_or_default();
                            // With one machine, all kernels are its own: compare the newest
                            // (at most 16, a comparison's limit). Otherwise let the user choose.
                            let kernels: &[String] = if b.machines.len() == 1 {
                                &b.kernels[b.kernels.len().saturating_sub(16)..]
                            } else {
                                &[]
                            };
                            let href = compare_href(&b.name, &machine, kernels);
                            view! {
                                <tr>
                                    <td><a href=href>{b.name}</a></td>
                                    <td class="num">{b.runs}</td>
                                    <td>{b.machines.join(", ")}</td>
                                    <td>{b.kernels.join(", ")}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </section>
            <section>
                <h2>"Machines"</h2>
                <ul id="machines">
                    {d.machines.into_iter().map(|m| view! { <li>{m.name} <span class="muted">{format!(" {} runs", m.runs)}</span></li> }).collect_view()}
                </ul>
                <h2>"Kernels"</h2>
                <ul id="kernels">
                    {d.kernels.into_iter().map(|k| view! { <li>{k.name} <span class="muted">{format!(" {} runs", k.runs)}</span></li> }).collect_view()}
                </ul>
            </section>
        </div>
        <section>
            <h2>"Recent uploads"</h2>
            <table id="uploads">
                <thead>
                    <tr><th>"Upload"</th><th>"When"</th><th>"Files"</th><th class="num">"Runs"</th><th class="num">"Samples"</th></tr>
                </thead>
                <tbody>
                    {d.recent_uploads.into_iter().map(|u| {
                        let files = u.files.iter().map(|f| format!("{} ({})", f.name.clone().unwrap_or_else(|| "body".into()), f.format)).collect::<Vec<_>>().join(", ");
                        view! {
                            <tr>
                                <td><a href=u.page.clone()>{format!("#{}", u.id)}</a></td>
                                <td>{u.created_at}</td>
                                <td>{files}</td>
                                <td class="num">{u.runs}</td>
                                <td class="num">{u.samples}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </section>
        <section id="recent-runs">
            <h2>"Recent runs"</h2>
            <RunTable runs=RunRow::of_runs(d.recent_runs) />
        </section>
    }
    .into_any()
}

/// The URL of the compare page for a benchmark, machine and kernels.
pub(crate) fn compare_href(benchmark: &str, machine: &str, kernels: &[String]) -> String {
    let mut url = format!(
        "/compare?benchmark={}&machine={}",
        encode(benchmark),
        encode(machine)
    );
    if !kernels.is_empty() {
        url.push_str("&kernels=");
        url.push_str(
            &kernels
                .iter()
                .map(|k| encode(k))
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    url
}

pub(crate) use crate::types::encode;
