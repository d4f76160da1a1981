// SPDX-License-Identifier: GPL-3.0-or-later
//! The robot's report mails (issue 56): `/reports` lists them by testcase, metric, commit,
//! subsystem, machine and date; `/reports/{id}` is one report: its mail's table as the mail
//! printed it, its lore link, what the robot said before of the same commits, its KPI over
//! the robot's reports, and what the lab's own uploads have of its commits; `/commits/{sha}`
//! is every report that named a commit. Plain server-rendered pages: links and GET forms.

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::{error_view, loading, parse_id};
use crate::api::{get_commit_reports, get_lkp_report, get_lkp_reports};
use crate::reports::{CommitPage, LabBeside, ReportDetail, ReportEntry, ReportList, ReportSearch};
use crate::text::short_commit;
use crate::url::encode;

#[component]
pub fn ReportsPage() -> impl IntoView {
    let search = ReportSearch::from_pairs(|k| use_query_map().read_untracked().get(k));
    let data = {
        let search = search.clone();
        Resource::new(|| (), move |()| get_lkp_reports(search.clone()))
    };
    view! {
        <h1>"The robot's reports"</h1>
        <p class="muted">
            "Performance reports the kernel test robot mailed to the lists, imported with "
            <code>"perfline import-mail"</code>" or uploaded as mails. Each links its mail on lore and its table."
        </p>
        <ReportFilterForm initial=search />
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(list) => report_list_view(list),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

#[component]
fn ReportFilterForm(initial: ReportSearch) -> impl IntoView {
    let field = |name: &'static str,
                 label: &'static str,
                 value: Option<String>,
                 hint: &'static str,
                 size: &'static str| {
        view! {
            <label>{label}" "
                <input name=name value=value.unwrap_or_default() placeholder=hint size=size />
            </label>
        }
    };
    view! {
        <form id="report-filter" method="get" action="/reports" class="controls">
            {field("testcase", "Testcase", initial.testcase, "netperf", "12")}
            {field("kpi", "KPI", initial.kpi, "netperf.Throughput_Mbps", "22")}
            {field("metric", "Any metric", initial.metric, "a row of the table", "22")}
            {field("commit", "Commit", initial.commit, "01d37228d3", "12")}
            {field("subsystem", "Subsystem", initial.subsystem, "mm", "10")}
            {field("machine", "Machine", initial.machine, "lkp-icl-2sp2", "14")}
            {field("since", "Since", initial.since, "2024-01-31", "11")}
            {field("until", "Until", initial.until, "2024-12-31", "11")}
            <button type="submit">"Search"</button>
        </form>
    }
}

fn report_list_view(list: ReportList) -> AnyView {
    if list.reports.is_empty() {
        return view! {
            <p id="reports-none" class="muted">
                "No report matches. Upload a mail (POST /api/v1/upload) or import an archive (perfline import-mail)."
            </p>
        }
        .into_any();
    }
    let offset = list.search.offset.unwrap_or(0);
    let limit = list.search.limit.unwrap_or(crate::reports::DEFAULT_LIMIT);
    let query = list.search.query();
    let page = |o: i64| {
        if query.is_empty() {
            format!("/reports?offset={o}")
        } else {
            format!("/reports?{query}&offset={o}")
        }
    };
    let prev = (offset > 0).then(|| page((offset - limit).max(0)));
    let next = list.more.then(|| page(offset + limit));
    let shown = format!(
        "Reports {} to {}{}.",
        offset + 1,
        offset + list.reports.len() as i64,
        if list.more { ", more after" } else { "" }
    );
    view! {
        <p class="muted">{shown}</p>
        {report_table("reports", list.reports)}
        {super::prev_next(prev, next)}
    }
    .into_any()
}

/// A table of reports, newest first, each row linking its page, its commit and its mail.
fn report_table(id: &'static str, reports: Vec<ReportEntry>) -> AnyView {
    view! {
        <table id=id class="reports">
            <thead>
                <tr>
                    <th>"Sent"</th>
                    <th>"Subsystem"</th>
                    <th>"Commit"</th>
                    <th>"Testcase"</th>
                    <th>"Machine"</th>
                    <th>"KPI"</th>
                    <th class="num">"Change"</th>
                    <th>"Mail"</th>
                </tr>
            </thead>
            <tbody>
                {reports
                    .into_iter()
                    .map(|r| {
                        let tone = if r.kind == "regression" { "num worse" } else { "num better" };
                        let commit_page = format!("/commits/{}", encode(&r.commit));
                        let day = r.day().to_owned();
                        view! {
                            <tr class="report-row" data-report-id=r.id>
                                <td>{day}</td>
                                <td>{r.subsystem.clone()}</td>
                                <td class="mono"><a href=commit_page>{short_commit(&r.commit).to_owned()}</a></td>
                                <td>{r.testcase.clone()}</td>
                                <td>{r.machine.clone()}</td>
                                <td><a href=r.href()>{r.kpi.clone()}</a></td>
                                <td class=tone>{format!("{} {}", r.change, r.kind)}</td>
                                <td><a href=r.lore.clone() rel="noopener noreferrer">"lore"</a></td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
pub fn ReportPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || parse_id(params.read().get("id"));
    let data = Resource::new(id, |id| async move {
        match id {
            Some(id) => get_lkp_report(id).await.map(Some),
            None => Ok(None),
        }
    });
    view! {
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(Some(r)) => report_view(r),
                    Ok(None) => super::not_there("No such report".into()),
                    Err(crate::error::PageError::NotFound(m)) => super::not_there(m),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn commit_line(label: &'static str, id: &str, subject: Option<String>) -> impl IntoView {
    let href = format!("/commits/{}", encode(id));
    view! {
        <li>{label}" " <a class="mono" href=href>{id.to_owned()}</a>
            {subject.map(|s| format!(" (\"{s}\")"))}
        </li>
    }
}

fn report_view(d: ReportDetail) -> AnyView {
    let e = d.entry.clone();
    let title = format!("{} {} of {}", e.change, e.kind, e.kpi);
    let headline = (d.headline_kpi != e.kpi).then(|| {
        view! {
            <p class="muted">{format!("One of the mail's other tests; its headline: {} {}.", d.headline_change, d.headline_kpi)}</p>
        }
    });
    let n = d.commits.len();
    let commits = d
        .commits
        .iter()
        .enumerate()
        .map(|(i, (id, subject))| {
            let label = if i + 1 == n {
                "tested"
            } else if i == 0 {
                "base"
            } else {
                "also"
            };
            commit_line(label, id, subject.clone())
        })
        .collect_view();
    let parameters = (!d.parameters.is_empty()).then(|| {
        view! {
            <h2>"Parameters"</h2>
            <table class="facts">
                {d.parameters.iter().map(|(k, v)| view! { <tr><th>{k.clone()}</th><td>{v.clone()}</td></tr> }).collect_view()}
            </table>
        }
    });
    let notes = (!d.notes.is_empty()).then(|| {
        view! { <ul class="notes">{d.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul> }
    });
    let text_link = format!("/api/v1/reports/{}?format=text", e.id);
    let same_kpi = format!(
        "/reports?testcase={}&kpi={}",
        encode(&e.testcase),
        encode(&e.kpi)
    );
    let related = if d.related.is_empty() {
        view! { <p id="report-related-none" class="muted">"No other stored report names these commits."</p> }.into_any()
    } else {
        report_table("report-related", d.related.clone())
    };
    view! {
        <h1 id="report-title">{title}</h1>
        <p id="report-subject">{e.subject.clone()}</p>
        <p class="muted">
            {format!("Sent {} · {} on {}", if e.sent_at.is_empty() { e.date.clone() } else { e.sent_at.clone() }, e.testcase, e.machine)}
            " · " <a id="report-lore" href=e.lore.clone() rel="noopener noreferrer">{format!("<{}> on lore", e.message_id)}</a>
            " · " <a href=text_link>"as text"</a>
        </p>
        {headline}
        <ul id="report-commits" class="commits">{commits}</ul>
        {notes}
        {parameters}
        <h2>"The mail's table"</h2>
        <p class="muted">"Printed from the stored cells; byte for byte the mail's, from its commit: block on."</p>
        // Focusable, so that a keyboard scrolls its width.
        <pre id="report-text" class="lkp-text" tabindex="0" aria-label="The mail's table">{d.text.clone()}</pre>
        {plots_view(&d.plots, &d.plot_trends)}
        <h2>{format!("{} over the robot's reports", e.kpi)}</h2>
        <p class="muted"><a href=same_kpi>"Every report of this KPI"</a></p>
        {trend_view(&d.trend, e.id, "report-trend")}
        <h2>"What the robot said of these commits"</h2>
        {related}
        <h2>"The lab's own findings"</h2>
        {lab_view(&d.lab, Some((&e.testcase, &e.base, &e.commit)))}
    }
    .into_any()
}

/// The bisection's samples read from the mail's ASCII plots: per metric, the bisect-good and
/// bad samples, their means and change, and every value.
fn plots_view(
    plots: &[crate::reports::BisectSamples],
    trends: &[(String, String)],
) -> Option<AnyView> {
    if plots.is_empty() {
        return None;
    }
    let fmt = |v: Option<f64>| {
        v.map_or_else(
            || "-".to_owned(),
            |v| {
                format!("{v:.6}")
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_owned()
            },
        )
    };
    let rows = plots
        .iter()
        .map(|p| {
            let values = |v: &[f64]| v.iter().map(|x| fmt(Some(*x))).collect::<Vec<_>>().join(" ");
            view! {
                <tr>
                    <td>{p.metric.clone()}</td>
                    <td class="num">{p.good.len()}</td>
                    <td class="num">{fmt(p.good_mean())}</td>
                    <td class="num">{p.bad.len()}</td>
                    <td class="num">{fmt(p.bad_mean())}</td>
                    <td class="num">{p.change_pct().map_or_else(|| "-".into(), |c| format!("{c:+.1}%"))}</td>
                    <td class="num">{format!("± {}", fmt(Some(p.row_step / 2.0)))}</td>
                    <td>
                        <details>
                            <summary>"values"</summary>
                            <p class="mono">"good: "{values(&p.good)}</p>
                            <p class="mono">"bad: "{values(&p.bad)}</p>
                        </details>
                    </td>
                </tr>
            }
        })
        .collect_view();
    Some(
        view! {
            <h2>"The bisection's samples"</h2>
            <p class="muted">"Read off the mail's plots: each bisect-good (+) and bisect-bad (O) sample at its row's value, within half a row."</p>
            <table id="report-samples" class="reports">
                <thead><tr><th>"Metric"</th><th class="num">"Good runs"</th><th class="num">"Good mean"</th><th class="num">"Bad runs"</th><th class="num">"Bad mean"</th><th class="num">"Change"</th><th class="num">"Read within"</th><th>"Samples"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            {if trends.is_empty() {
                view! { <p id="report-plot-runs" class="muted">"Not stored as runs (storing them needs an uploader with the mark scope)."</p> }.into_any()
            } else {
                view! {
                    <p id="report-plot-runs">"Stored as runs marked bisect-good (base) and bad (tested), the trend of each: "
                        {trends.iter().map(|(metric, href)| view! { <a href=href.clone()>{metric.clone()}</a>" " }).collect_view()}
                    </p>
                }.into_any()
            }}
        }
        .into_any(),
    )
}

/// The KPI's means over the reports, oldest first: each report's tested commit (filled) and
/// its base (hollow), this report ringed; and the same as a table (`id`, `id-table`).
fn trend_view(trend: &[ReportEntry], this: i64, id: &str) -> AnyView {
    let values: Vec<f64> = trend
        .iter()
        .flat_map(|r| [r.kpi_base, r.kpi_head])
        .flatten()
        .filter(|v| v.is_finite())
        .collect();
    if values.is_empty() {
        return view! { <p class="muted">"No report of this KPI has its row in the table."</p> }
            .into_any();
    }
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        });
    let (w, h, pad) = (720.0, 180.0, 24.0);
    let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
    let x = |i: usize| pad + (w - 2.0 * pad) * (i as f64 + 0.5) / trend.len() as f64;
    let y = |v: f64| h - pad - (h - 2.0 * pad) * (v - lo) / span;
    let points = trend
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let tip = format!(
                "{} {}: {} → {} ({} {})",
                r.day(),
                short_commit(&r.commit),
                r.kpi_base.map_or("-".into(), |v| v.to_string()),
                r.kpi_head.map_or("-".into(), |v| v.to_string()),
                r.change,
                r.kind
            );
            let cx = format!("{:.1}", x(i));
            let base = r.kpi_base.filter(|v| v.is_finite()).map(|v| {
                view! { <circle class="trend-base" cx=cx.clone() cy=format!("{:.1}", y(v)) r="3"><title>{tip.clone()}</title></circle> }
            });
            let head = r.kpi_head.filter(|v| v.is_finite()).map(|v| {
                let class = match (r.id == this, r.kind.as_str()) {
                    (true, _) => "trend-this",
                    (false, "regression") => "trend-regression",
                    _ => "trend-improvement",
                };
                view! { <circle class=class cx=cx.clone() cy=format!("{:.1}", y(v)) r="4"><title>{tip.clone()}</title></circle> }
            });
            view! { {base} {head} }
        })
        .collect_view();
    let rows = trend
        .iter()
        .rev()
        .map(|r| {
            let this = (r.id == this).then_some("this");
            view! {
                <tr class=this>
                    <td>{r.day().to_owned()}</td>
                    <td class="mono"><a href=format!("/commits/{}", encode(&r.commit))>{short_commit(&r.commit).to_owned()}</a></td>
                    <td class="num">{r.kpi_base.map_or("-".into(), |v| v.to_string())}</td>
                    <td class="num">{r.kpi_head.map_or("-".into(), |v| v.to_string())}</td>
                    <td class="num"><a href=r.href()>{format!("{} {}", r.change, r.kind)}</a></td>
                    <td>{r.machine.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <svg id=id.to_owned() class="report-trend" viewBox=format!("0 0 {w} {h}") width="720" height="180" role="img">
            <title>{format!("{} reports: the KPI's mean at each tested commit (filled) and its base (hollow)", trend.len())}</title>
            <text x="2" y="14" class="axis">{format!("{hi}")}</text>
            <text x="2" y=format!("{}", h - 6.0) class="axis">{format!("{lo}")}</text>
            {points}
        </svg>
        <table id=format!("{id}-table") class="reports">
            <thead><tr><th>"Sent"</th><th>"Commit"</th><th class="num">"Base"</th><th class="num">"Tested"</th><th class="num">"Change"</th><th>"Machine"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

/// What the lab's uploads have of the commits: runs of the testcase (and others), the lab's
/// comparison when it ran both commits, and Perfline's alerts blaming the tested commit.
fn lab_view(lab: &LabBeside, report: Option<(&String, &String, &String)>) -> AnyView {
    if lab.runs.is_empty() && lab.alerts.is_empty() {
        return view! { <p id="lab-none" class="muted">"The lab has no runs at these commits."</p> }.into_any();
    }
    let compare = report.and_then(|(testcase, base, head)| lab.compare_href(testcase, base, head)).map(|href| {
        view! { <p><a id="lab-compare" href=href>"The lab's own comparison of the two commits"</a></p> }
    });
    let runs = lab
        .runs
        .iter()
        .map(|r| {
            view! {
                <tr>
                    <td>{r.benchmark.clone()}</td>
                    <td>{r.machine.clone()}</td>
                    <td class="mono">{short_commit(&r.commit).to_owned()}</td>
                    <td class="num">{r.runs}</td>
                </tr>
            }
        })
        .collect_view();
    let alerts = lab
        .alerts
        .iter()
        .map(|a| {
            view! {
                <li><a href=format!("/alerts?id={}", a.id)>{format!("Alert summary {}", a.id)}</a>
                    {format!(": {} on {}, {} regression(s), {} improvement(s), worst {:.1}% ({}..{}, {})",
                        a.benchmark, a.machine, a.regressions, a.improvements, a.worst_pct,
                        short_commit(&a.good_sha), short_commit(&a.bad_sha), a.status)}
                </li>
            }
        })
        .collect_view();
    view! {
        {compare}
        <table id="lab-runs" class="reports">
            <thead><tr><th>"Benchmark"</th><th>"Machine"</th><th>"Commit"</th><th class="num">"Runs"</th></tr></thead>
            <tbody>{runs}</tbody>
        </table>
        <ul id="lab-alerts">{alerts}</ul>
    }
    .into_any()
}

#[component]
pub fn CommitReportsPage() -> impl IntoView {
    let params = use_params_map();
    let sha = move || params.read().get("sha").unwrap_or_default();
    let data = Resource::new(sha, get_commit_reports);
    view! {
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(c) => commit_view(c),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn commit_view(c: CommitPage) -> AnyView {
    let tested = if c.tested.is_empty() {
        view! { <p class="muted">"No stored report tested this commit."</p> }.into_any()
    } else {
        report_table("commit-tested", c.tested.clone())
    };
    let base_of = if c.base_of.is_empty() {
        view! { <p class="muted">"No stored report compared against it."</p> }.into_any()
    } else {
        report_table("commit-base-of", c.base_of.clone())
    };
    view! {
        <h1>"Commit " <span class="mono" id="commit-sha">{c.commit.clone()}</span></h1>
        {c.subject.clone().map(|s| view! { <p id="commit-subject">{s}</p> })}
        <h2>{format!("Reports that tested it ({})", c.tested.len())}</h2>
        {tested}
        <h2>{format!("Reports with it as their base ({})", c.base_of.len())}</h2>
        {base_of}
        {c.trends.iter().enumerate().map(|(k, t)| view! {
            <h2>{format!("{} over the robot's reports ({})", t.kpi, t.testcase)}</h2>
            {trend_view(&t.reports, t.this, &format!("commit-trend-{k}"))}
        }).collect_view()}
        <h2>"The lab's own findings"</h2>
        {lab_view(&c.lab, None)}
    }
    .into_any()
}
