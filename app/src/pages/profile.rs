// SPDX-License-Identifier: GPL-3.0-or-later
//! The differential profile page (`/profile?benchmark=B&machine=M&kernels=K0,K1`, or
//! `commits=C0,C1`: the query of `/compare`): where the cycles went and where they moved
//! between two kernels or commits. The LKP jobs' `perf-profile.calltrace` keys as a call-chain
//! tree (HTML `<details>`, no script), the `children` and `self` keys side by side, and the
//! folded stacks uploaded beside the runs as a differential flame graph drawn here, on the
//! server, as SVG whose hover text is each frame's `<title>` (`crate::profile`).

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::dashboard::encode;
use super::{error_view, loading};
use crate::api::get_profile;
use crate::profile::{ChainNode, FlameGraph, Profile, Share, Side};
use crate::types::CompareForm;

/// The form of the query string: `kernels=K0,K1`, or `commits=C0,C1` (columns `commit=C`).
fn form_from_map(map: &leptos_router::params::ParamsMap) -> CompareForm {
    let list = |name: &str| -> Vec<String> {
        map.get(name)
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let commits = list("commits");
    let (kernels, columns) = if commits.is_empty() {
        (list("kernels"), false)
    } else {
        (
            commits.iter().map(|c| format!("commit={c}")).collect(),
            true,
        )
    };
    CompareForm {
        benchmark: map.get("benchmark").unwrap_or_default(),
        machine: map.get("machine").unwrap_or_default(),
        kernels,
        metric: None,
        columns,
    }
}

/// The query string of a form, for the links between `/profile` and `/compare`.
fn query_string(f: &CompareForm) -> String {
    let (name, list) = if f.columns {
        let commits: Vec<&str> = f
            .kernels
            .iter()
            .map(|k| k.strip_prefix("commit=").unwrap_or(k))
            .collect();
        ("commits", commits.join(","))
    } else {
        ("kernels", f.kernels.join(","))
    };
    format!(
        "benchmark={}&machine={}&{name}={}",
        encode(&f.benchmark),
        encode(&f.machine),
        encode(&list)
    )
}

#[component]
pub fn ProfilePage() -> impl IntoView {
    let query_map = use_query_map();
    let form = Memo::new(move |_| form_from_map(&query_map.read()));
    let data = Resource::new(
        move || form.get(),
        |f| async move {
            match f.parse() {
                Ok(None) => Ok(None),
                Ok(Some(q)) => get_profile(q).await.map(Some),
                Err(e) => Err(crate::error::PageError::BadRequest(e)),
            }
        },
    );
    let f = form.get_untracked();
    let commits = f.columns.then(|| {
        f.kernels
            .iter()
            .map(|k| k.strip_prefix("commit=").unwrap_or(k).to_owned())
            .collect::<Vec<_>>()
            .join(",")
    });
    let kernels = (!f.columns).then(|| f.kernels.join(","));
    view! {
        <h1>"Differential profile"</h1>
        <form class="form profile-form" method="get" action="/profile">
            <label>"Benchmark " <input type="text" name="benchmark" value=f.benchmark.clone() /></label>
            " "
            <label>"Machine " <input type="text" name="machine" value=f.machine.clone() /></label>
            " "
            <label>"Kernels " <input type="text" name="kernels" placeholder="K0,K1" value=kernels.unwrap_or_default() /></label>
            " "
            <label>"or commits " <input type="text" name="commits" placeholder="BASE,HEAD" value=commits.unwrap_or_default() /></label>
            " "
            <button type="submit">"Show"</button>
        </form>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(Some(p)) => profile_view(p, &form.get_untracked()),
                    Ok(None) => view! {
                        <p class="muted" id="profile-empty">
                            "Name a benchmark, a machine and two kernels (or two commits) whose LKP "
                            "jobs have perf-profile keys: this page shows where the cycles moved "
                            "between them."
                        </p>
                    }
                    .into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// A side's percentage with its stddev, `-` when the side has no such key.
fn pct(s: Option<Side>) -> String {
    s.map_or_else(
        || "-".to_owned(),
        |s| {
            if s.runs > 1 {
                format!("{:.2} ± {:.2}", s.mean, s.stddev)
            } else {
                format!("{:.2}", s.mean)
            }
        },
    )
}

/// The change in points and its class (`grew`, `shrank`, or none under 0.05).
fn delta(share: &Share) -> (String, &'static str) {
    match share.delta() {
        None => ("-".to_owned(), "delta"),
        Some(d) if d >= 0.05 => (format!("{d:+.2}"), "delta grew"),
        Some(d) if d <= -0.05 => (format!("{d:+.2}"), "delta shrank"),
        Some(d) => (format!("{d:+.2}"), "delta"),
    }
}

fn node_view(n: ChainNode, depth: usize) -> AnyView {
    let (d, class) = delta(&n.share);
    let head = view! {
        <span class="sym">{n.symbol}</span>
        <span class="num">{pct(n.share.base)}</span>
        <span class="num">{pct(n.share.new)}</span>
        <span class=class>{d}</span>
    };
    if n.children.is_empty() {
        return view! { <li class="leaf"><div class="node">{head}</div></li> }.into_any();
    }
    let children = n
        .children
        .into_iter()
        .map(|c| node_view(c, depth + 1))
        .collect_view();
    view! {
        <li>
            <details open=depth < 2>
                <summary class="node">{head}</summary>
                <ul>{children}</ul>
            </details>
        </li>
    }
    .into_any()
}

fn flame_view(g: FlameGraph) -> AnyView {
    let frames = g
        .frames
        .into_iter()
        .map(|f| {
            let text = (!f.label.is_empty()).then(|| {
                view! {
                    <text x=format!("{:.2}", f.x + 3.0) y=format!("{:.2}", f.y + 11.5)>
                        {f.label}
                    </text>
                }
            });
            view! {
                <g>
                    <title>{f.title}</title>
                    <rect x=f.x y=f.y width=f.w height=f.h fill=f.fill></rect>
                    {text}
                </g>
            }
        })
        .collect_view();
    let merged = (g.merged > 0).then(|| {
        view! {
            <p class="muted">
                {format!(
                    "{} frames too narrow or too deep to draw are merged into \"…\" frames or left out.",
                    g.merged,
                )}
            </p>
        }
    });
    view! {
        <div class="flame-scroll" tabindex="0" role="region" aria-label="Flame graph">
            <svg
                class="flame"
                id="flame-graph"
                xmlns="http://www.w3.org/2000/svg"
                viewBox=format!("0 0 {} {}", g.width, g.height)
                role="img"
                aria-label="Differential flame graph: widths are the second side's samples, red grew, blue shrank; hover a frame for its numbers"
            >
                {frames}
            </svg>
        </div>
        {merged}
    }
    .into_any()
}

fn profile_view(p: Profile, form: &CompareForm) -> AnyView {
    let side = |i: usize| {
        p.runs.get(i).map_or_else(String::new, |k| {
            format!(
                "{} ({} run{})",
                k.kernel,
                k.runs.len(),
                if k.runs.len() == 1 { "" } else { "s" }
            )
        })
    };
    let compare = format!("/compare?{}", query_string(form));
    let sides = format!("{} → {}", side(0), side(1));
    let none = (p.keys == 0).then(|| {
        view! {
            <p class="empty" id="profile-no-keys">
                "These runs have no perf-profile keys (LKP jobs run with the perf-profile "
                "monitor have them). Folded stacks uploaded beside them still give the flame "
                "graph below."
            </p>
        }
    });
    let left_out = (p.left_out > 0).then(|| {
        view! {
            <p class="muted">
                {format!("{} chains too deep or past the tree's bound are left out.", p.left_out)}
            </p>
        }
    });
    let tree = (!p.tree.is_empty()).then(|| {
        let nodes = p.tree.into_iter().map(|n| node_view(n, 0)).collect_view();
        view! {
            <section id="chains">
                <h2>"Call chains"</h2>
                <p class="muted">
                    "LKP's perf-profile.calltrace keys, outermost caller first: open a node for "
                    "its callees. Each node: the share of cycles through that chain on the "
                    "baseline and on the other side (mean ± stddev over the runs, in %), then "
                    "the change in percentage points; the largest change first."
                </p>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Call-chain tree">
                    <div class="chain-head node">
                        <span class="sym">"Symbol"</span>
                        <span class="num">"Base %"</span>
                        <span class="num">"New %"</span>
                        <span class="delta">"Δ pp"</span>
                    </div>
                    <ul class="chain-tree">{nodes}</ul>
                </div>
                {left_out}
            </section>
        }
    });
    let symbols = (!p.symbols.is_empty()).then(|| {
        let rows = p
            .symbols
            .into_iter()
            .map(|r| {
                let (dc, cc) = delta(&r.children);
                let (ds, cs) = delta(&r.own);
                view! {
                    <tr>
                        <td class="sym">{r.symbol}</td>
                        <td class="num">{pct(r.children.base)}</td>
                        <td class="num">{pct(r.children.new)}</td>
                        <td class=format!("num {cc}")>{dc}</td>
                        <td class="num">{pct(r.own.base)}</td>
                        <td class="num">{pct(r.own.new)}</td>
                        <td class=format!("num {cs}")>{ds}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <section id="symbols">
                <h2>"Children and self"</h2>
                <p class="muted">
                    "Per symbol: children is the share of cycles in it and everything it calls, "
                    "self in it alone; sorted by the larger change, in percentage points."
                </p>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Children and self by symbol">
                    <table class="runs profile-symbols">
                        <thead>
                            <tr>
                                <th>"Symbol"</th>
                                <th class="num">"Children base"</th>
                                <th class="num">"Children new"</th>
                                <th class="num">"Δ pp"</th>
                                <th class="num">"Self base"</th>
                                <th class="num">"Self new"</th>
                                <th class="num">"Δ pp"</th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </section>
        }
    });
    let flame = p.flame.map(flame_view);
    view! {
        <p id="profile-sides">
            {sides}
            {format!(", {} perf-profile keys. ", p.keys)}
            <a href=compare>"The whole comparison"</a>
        </p>
        {none}
        {tree}
        {symbols}
        <section id="flame">
            <h2>"Flame graph"</h2>
            <p class="muted" id="flame-note">{p.flame_note}</p>
            {flame}
        </section>
    }
    .into_any()
}
