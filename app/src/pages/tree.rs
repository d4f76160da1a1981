// SPDX-License-Identifier: GPL-3.0-or-later
//! The whole tree's page (`/compare?benchmark=*&machine=M&kernels=K0,K1`), as compare-kernels.sh's
//! HTML report: the verdicts (a table of contents that says what got better and worse, and by
//! how much), then each benchmark's mmtests table with its significant cells coloured and a
//! chart drawn here as inline SVG. The API's offline file (`format=html`) is this same view
//! rendered to a string (`tree_html`) in a self-contained document.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::{error_view, loading};
use crate::compare::{Comparison, Verdict};
use crate::label::Direction;
use crate::tree::{self, TreeReport};
use crate::url::encode;

/// The query string naming this tree (machine, kernels; `benchmark=*`), without the page.
fn tree_query(r: &TreeReport) -> String {
    let q = &r.query;
    format!(
        "machine={}&benchmark=*&{}={}",
        encode(q.machine_name()),
        if q.columns { "columns" } else { "kernels" },
        q.kernels
            .iter()
            .map(|k| encode(k.as_str()))
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// `/compare?...&benchmark=*`: the tree's page (the compare page hands it over).
#[component]
pub fn TreePage() -> impl IntoView {
    let query_map = use_query_map();
    let form = super::compare::query_from_map(&query_map.read_untracked());
    let offset: usize = query_map
        .read_untracked()
        .get("offset")
        .and_then(|o| o.parse().ok())
        .unwrap_or(0);
    let report = Resource::new(
        move || (),
        move |()| {
            let form = form.clone();
            async move {
                match form.parse() {
                    Ok(Some(q)) => crate::api::get_compare_tree(q, offset).await.map(Some),
                    Ok(None) => Ok(None),
                    Err(e) => Err(crate::error::PageError::BadRequest(e)),
                }
            }
        },
    );
    view! {
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match report.await {
                    Ok(Some(r)) => view! { <TreeReportView r=r origin=String::new() /> }.into_any(),
                    Ok(None) => view! {
                        <h1>"Every benchmark of a tree"</h1>
                        <p class="muted">"Name a machine and kernels (the first is the baseline): /compare?benchmark=*&machine=M&kernels=K0,K1. Each upload of an mmtests tree links its report."</p>
                    }.into_any(),
                    Err(e) => {
                        super::set_page_status(e.status());
                        view! { <h1>"Every benchmark of a tree"</h1> {error_view(e)} }.into_any()
                    }
                }
            })}
        </Suspense>
    }
}

/// The page's title: `Every benchmark on M: K0 vs K1`.
pub fn title(r: &TreeReport) -> String {
    format!(
        "Every benchmark on {}: {}",
        r.query.machine_name(),
        r.query
            .kernels
            .iter()
            .map(crate::label::Label::as_str)
            .collect::<Vec<_>>()
            .join(" vs ")
    )
}

/// The whole report; `origin` prefixes its links (empty on the page, the server's in the
/// saved file).
#[component]
pub fn TreeReportView(r: TreeReport, origin: String) -> impl IntoView {
    let query = tree_query(&r);
    let kernels: Vec<String> = r.query.kernels.iter().map(ToString::to_string).collect();
    let baseline = kernels.first().cloned().unwrap_or_default();
    let tally = tree::tally(&r.sections)
        .into_iter()
        .map(|(k, [better, worse, mixed, same])| {
            view! {
                <li>
                    <strong>{k}</strong>
                    {format!(" against {baseline}: ")}
                    <span class="v-better">{format!("better in {better}")}</span> ", "
                    <span class="v-worse">{format!("worse in {worse}")}</span> ", "
                    <span class="v-mixed">{format!("mixed in {mixed}")}</span> ", "
                    {format!("unchanged in {same}")}
                    {format!(" of {} benchmarks", r.sections.len())}
                </li>
            }
        })
        .collect_view();
    let toc = r
        .sections
        .iter()
        .map(|c| {
            let name = c.query.benchmark.to_string();
            let href = format!("#{}", tree::anchor(&name));
            let verdicts = tree::verdicts(c)
                .into_iter()
                .map(|v| {
                    let class = format!("v-{}", v.word().as_str());
                    view! { <td class=class>{v.sentence()}</td> }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row"><a href=href>{name}</a></th>
                    {verdicts}
                </tr>
            }
        })
        .collect_view();
    let left_out = (!r.left_out.is_empty()).then(|| {
        let items = r
            .left_out
            .iter()
            .map(|(b, why)| view! { <li><strong>{b.clone()}</strong>": "{why.clone()}</li> })
            .collect_view();
        view! {
            <section id="tree-left-out">
                <h2>"Left out"</h2>
                <ul>{items}</ul>
            </section>
        }
    });
    let rest_view = || {
        r.rest.as_ref().map(|rest| {
        let next = format!("{origin}/compare?{query}&offset={}", rest.offset);
        view! {
            <p id="tree-next" class="error">
                {format!(
                    "This page holds {} of the tree's {} benchmarks (from {}); the rest did not fit in one page: {}. ",
                    r.sections.len(),
                    r.benchmarks,
                    r.offset,
                    rest.benchmarks.join(", ")
                )}
                <a rel="next" href=next>"Next page →"</a>
            </p>
        }
    })
    };
    let (rest_top, rest) = (rest_view(), rest_view());
    let sections = r
        .sections
        .iter()
        .map(|c| section(c, &origin))
        .collect_view();
    let compared = kernels
        .iter()
        .skip(1)
        .map(|k| view! { <th scope="col">{k.clone()}</th> })
        .collect_view();
    view! {
        <h1 id="tree-title">{title(&r)}</h1>
        <p class="meta">
            {format!(
                "{} benchmarks of the tree on {}, baseline {baseline}, in the order the tree ran them. ",
                r.sections.len(),
                r.query.machine_name()
            )}
            <a id="tree-text" href=format!("{origin}/api/v1/compare?{query}&format=text")>"As mmtests' text"</a>
            " · "
            <a id="tree-save" href=format!("{origin}/api/v1/compare?{query}&format=html") download="">"Save as one HTML file"</a>
        </p>
        {rest_top}
        <section id="tree-summary">
            <h2>"Summary"</h2>
            <ul class="tree-tally">{tally}</ul>
            <p class="muted small">
                "A benchmark is better (worse) when some of its operations' means are significantly better (worse) than the baseline's, as mmtests marks them with *...*; mixed when both. Percentages are mmtests': positive is better."
            </p>
            <div class="wide">
                <table id="tree-toc" class="tree-toc">
                    <thead><tr><th scope="col">"Benchmark"</th>{compared}</tr></thead>
                    <tbody>{toc}</tbody>
                </table>
            </div>
        </section>
        <section id="tree-monitors">
            <h2>"Monitors"</h2>
            <p>
                "Not shown: Perfline reads the benchmarks' logs of an mmtests tree, not its monitors' (vmstat, proc-vmstat, iostat, turbostat, ftrace, perf...). compare-kernels.sh's monitor tables and graphs need those logs; the uploaded archive itself is kept unchanged with the upload."
            </p>
        </section>
        {left_out}
        {sections}
        {rest}
    }
}

/// One benchmark: its verdicts, mmtests' table coloured, its chart and its links.
fn section(c: &Comparison, origin: &str) -> AnyView {
    let name = c.query.benchmark.to_string();
    let id = c.permalink.clone().unwrap_or_default();
    let link = format!("{origin}/c/{id}");
    let verdicts = tree::verdicts(c)
        .into_iter()
        .map(|v| {
            let class = format!("v-{}", v.word().as_str());
            view! { <li><strong>{v.kernel.clone()}</strong>": " <span class=class>{v.sentence()}</span></li> }
        })
        .collect_view();
    let warning = c.facts.iter().any(|d| d.warning).then(|| {
        view! { <p class="error small">"More than the kernel changed between these runs: compare with care (see the permalink)."</p> }
    });
    let kernels: Vec<String> = c.query.kernels.iter().map(ToString::to_string).collect();
    let tables = crate::mmtests::tables(c)
        .into_iter()
        .map(|t| {
            let caption = match t.direction {
                Direction::Higher => "Higher is better",
                _ => "Lower is better",
            };
            let head = kernels
                .iter()
                .map(|k| view! { <th scope="col">{k.clone()}</th> })
                .collect_view();
            let lines = t
                .lines
                .into_iter()
                .map(|line| {
                    let cells = line
                        .cells
                        .into_iter()
                        .map(|cell| {
                            let pct = cell.pct.trim();
                            let text = if cell.marked {
                                format!("{} *{pct}%*", cell.value.trim())
                            } else {
                                format!("{} ({pct}%)", cell.value.trim())
                            };
                            // Coloured as mmtests' HTML report colours a significant cell
                            // (`PrintHtml.pm`: `:SIG:` cells green above 0, red otherwise);
                            // Perfline's own additions: a stronger shade from 5 %, and a
                            // change of exactly 0 left neutral.
                            let class = cell.marked.then(|| {
                                let strong = if cell.change.abs() >= 5.0 { " s" } else { "" };
                                if cell.change > 0.0 {
                                    format!("b{strong}")
                                } else if cell.change < 0.0 {
                                    format!("w{strong}")
                                } else {
                                    "m".to_owned()
                                }
                            });
                            match class {
                                Some(class) => leptos::either::Either::Left(
                                    view! { <td class=class>{text}</td> },
                                ),
                                None => leptos::either::Either::Right(view! { <td>{text}</td> }),
                            }
                        })
                        .collect_view();
                    view! { <tr><th>{line.stat}</th><th>{line.label}</th>{cells}</tr> }
                })
                .collect_view();
            view! {
                <div class="wide">
                    <table class="mm">
                        <caption>{caption}</caption>
                        <thead><tr><th></th><th></th>{head}</tr></thead>
                        <tbody>{lines}</tbody>
                    </table>
                </div>
            }
        })
        .collect_view();
    let chart = chart(c, &name);
    let anchor = tree::anchor(&name);
    view! {
        <section class="tree-section" id=anchor>
            <h2>{name}</h2>
            <ul class="tree-verdicts">{verdicts}</ul>
            {warning}
            {tables}
            {chart}
            <p class="small">
                <a href=link.clone()>"Permalink"</a> " · "
                <a href=format!("{link}?format=text")>"As text"</a> " · "
                <a href=format!("{link}?format=svg")>"Full chart (SVG)"</a> " · "
                <a href="#tree-summary">"Summary"</a>
            </p>
        </section>
    }
    .into_any()
}

/// A section's chart as inline SVG (no script, styled by the page's theme): per operation, each
/// compared kernel's change of the mean as a bar from 0, green when significantly better, red
/// when significantly worse, grey otherwise.
fn chart(c: &Comparison, name: &str) -> Option<AnyView> {
    let groups = tree::chart(c);
    if groups.iter().all(|(_, bars)| bars.is_empty()) {
        return None;
    }
    let compared = c.query.kernels.len().saturating_sub(1).max(1);
    let (bar_h, gap, top) = (8.0, 6.0, 16.0);
    let group_h = compared as f64 * bar_h + gap;
    let (w, label_w) = (640.0, 210.0);
    let mid = label_w + (w - label_w) / 2.0;
    let half = (w - label_w) / 2.0 - 8.0;
    let max = groups
        .iter()
        .flat_map(|(_, bars)| bars.iter().map(|b| b.pct.abs()))
        .fold(1.0_f64, f64::max);
    let h = top + groups.len() as f64 * group_h + 14.0;
    let kernels: Vec<String> = c
        .query
        .kernels
        .iter()
        .skip(1)
        .map(ToString::to_string)
        .collect();
    let legend = format!("Bars, top to bottom: {}", kernels.join(", "));
    let rows = groups
        .into_iter()
        .enumerate()
        .map(|(g, (label, bars))| {
            let y0 = top + g as f64 * group_h;
            let label = crate::text::head(&label, 34).to_owned();
            let bars = bars
                .into_iter()
                .map(|b| {
                    let len = (b.pct.abs() / max * half).max(0.5);
                    let x = if b.pct >= 0.0 { mid } else { mid - len };
                    let y = y0 + (b.kernel - 1) as f64 * bar_h;
                    let class = match b.verdict {
                        Verdict::Improvement => "cb",
                        Verdict::Regression => "cw",
                        _ => "cn",
                    };
                    view! {
                        <rect class=class x=format!("{x:.1}") y=format!("{y:.1}") width=format!("{len:.1}") height=format!("{:.1}", bar_h - 1.0)>
                            <title>{format!("{}: {:+.2}%", kernels.get(b.kernel - 1).cloned().unwrap_or_default(), b.pct)}</title>
                        </rect>
                    }
                })
                .collect_view();
            view! {
                <text x=format!("{:.0}", label_w - 6.0) y=format!("{:.1}", y0 + group_h / 2.0) text-anchor="end">{label}</text>
                {bars}
            }
        })
        .collect_view();
    let alt =
        format!(
        "{name}: each operation's change of the mean against {} in percent (positive is better)",
        c.query.kernels.first().map(crate::label::Label::as_str).unwrap_or_default()
    );
    Some(
        view! {
            <figure class="tree-chart">
                <svg xmlns="http://www.w3.org/2000/svg" viewBox=format!("0 0 {w:.0} {h:.0}") role="img" aria-label=alt>
                    <text x="4" y="11">{legend}</text>
                    <line class="axis" x1=format!("{mid:.0}") x2=format!("{mid:.0}") y1=format!("{:.0}", top - 2.0) y2=format!("{:.0}", h - 12.0) />
                    {rows}
                    <text x=format!("{:.0}", mid - half) y=format!("{:.0}", h - 2.0)>{format!("{:+.1}%", -max)}</text>
                    <text x=format!("{mid:.0}") y=format!("{:.0}", h - 2.0) text-anchor="middle">"0"</text>
                    <text x=format!("{:.0}", mid + half) y=format!("{:.0}", h - 2.0) text-anchor="end">{format!("{max:+.1}%")}</text>
                </svg>
            </figure>
        }
        .into_any(),
    )
}

/// The report rendered to HTML (the body of the API's offline file): the same view as the
/// page's.
#[cfg(feature = "ssr")]
pub fn tree_html(r: TreeReport, origin: String) -> String {
    let owner = Owner::new();
    // Without the empty comments that mark where dynamic text ends (there is nothing to
    // hydrate in a file; user text is escaped, so none of them is the user's).
    owner
        .with(|| view! { <TreeReportView r=r origin=origin /> }.to_html())
        .replace("<!>", "")
}
