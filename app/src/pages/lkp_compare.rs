// SPDX-License-Identifier: GPL-3.0-or-later
//! The compare page of two LKP jobs (`/compare?…&commits=BASE,HEAD`): what the robot's mail
//! carries, on one page. The headline, the commits with their subjects, the job's parameters
//! and axes, how to reproduce, then lkp-tests' `%stddev %change %stddev` table itself (KPIs
//! first, the rows it calls changed, or every key with `all=1`; a page at a time), each row
//! with its trend on demand (a server-drawn SVG, loaded when its `<details>` opens). Commits
//! are picked by type-to-search with their subjects ([`CommitPicker`]).

use leptos::prelude::*;

use super::dashboard::encode;
use crate::api::get_commit_matches;
use crate::lkp_view::{CommitMatches, CommitSearch, LkpCompare, LkpRow, Tone, LKP_PAGE_ROWS};
use crate::types::CompareQuery;

/// The query string of a comparison's columns: `commits=A,B` when both are commits, else the
/// kernels or column specs.
fn columns_param(q: &CompareQuery) -> String {
    let commits: Option<Vec<&str>> = q
        .kernels
        .iter()
        .map(|k| k.as_str().strip_prefix("commit="))
        .collect();
    match commits {
        Some(c) => format!("commits={}", encode(&c.join(","))),
        None => format!(
            "{}={}",
            if q.columns { "columns" } else { "kernels" },
            encode(
                &q.kernels
                    .iter()
                    .map(crate::label::Label::as_str)
                    .collect::<Vec<_>>()
                    .join(",")
            )
        ),
    }
}

/// The page's URL without its view state (filter, page, all).
pub fn base_href(q: &CompareQuery) -> String {
    format!(
        "/compare?benchmark={}&machine={}&{}",
        encode(q.benchmark.as_str()),
        encode(q.machine_name()),
        columns_param(q)
    )
}

/// The query string of the comparison alone, for the exports and the profile page.
fn bare_query(q: &CompareQuery) -> String {
    base_href(q).trim_start_matches("/compare?").to_owned()
}

fn tone_class(t: Tone) -> &'static str {
    match t {
        Tone::Better => "num better",
        Tone::Worse => "num worse",
        Tone::Neutral => "num",
    }
}

/// One row: the cells as lkp-tests prints them, the key, and its trend on demand.
fn row_view(r: LkpRow, trend: &str) -> impl IntoView {
    let spark = format!(
        "/api/v1/trend?{trend}&metric={}{}&format=svg",
        encode(&r.metric),
        if r.param.is_empty() {
            String::new()
        } else {
            format!("&param={}", encode(&r.param))
        }
    );
    let class = if r.failure {
        "lkp-row failure"
    } else if r.kpi {
        "lkp-row kpi"
    } else {
        "lkp-row"
    };
    let alt = format!("The trend of {} on this machine, by commit", r.key);
    let [v0, v1] = r.values;
    let [s0, s1] = r.stddevs;
    view! {
        <tr class=class data-key=r.key.clone()>
            <td class="num v0">{v0}</td>
            <td class="sd sd0">{s0}</td>
            <td class=format!("{} change", tone_class(r.tone))>{r.change}</td>
            <td class="num v1">{v1}</td>
            <td class="sd sd1">{s1}</td>
            <td class="key">
                <span class="key-name">{r.key.clone()}</span>
                {r.kpi.then(|| view! { " " <span class="kpi">"KPI"</span> })}
                <details class="spark">
                    <summary>"trend"</summary>
                    <img loading="lazy" src=spark alt=alt width="430" height="230" />
                </details>
            </td>
        </tr>
    }
}

/// The LKP-shaped comparison.
#[component]
pub fn LkpView(l: LkpCompare, filter: String) -> impl IntoView {
    let base = base_href(&l.query);
    let bare = bare_query(&l.query);
    let benchmark = l.query.benchmark.to_string();
    let machine = l.query.machine_name().to_owned();
    let trend = format!(
        "benchmark={}&machine={}",
        encode(&benchmark),
        encode(&machine)
    );
    let doc = l.permalink.as_ref().map_or_else(
        || format!("/api/v1/compare?{bare}"),
        |id| format!("/c/{id}"),
    );
    let lkp_text = if l.permalink.is_some() {
        format!("{doc}?format=text&style=lkp")
    } else {
        format!("{doc}&format=text&style=lkp")
    };
    let (axis_names, axis_values) = l.axes_lines();
    let filter_q = if filter.is_empty() {
        String::new()
    } else {
        format!("&filter={}", encode(&filter))
    };
    let all_q = if l.all { "&all=1" } else { "" };
    let toggle = if l.all {
        (
            format!("{base}{filter_q}"),
            format!("Show only the {} changed rows", l.changed),
        )
    } else {
        (
            format!("{base}&all=1{filter_q}"),
            format!("Show all {} keys", l.keys),
        )
    };
    let page_href = |p: usize| format!("{base}{all_q}{filter_q}&page={p}");
    let prev = (l.page > 1).then(|| page_href(l.page - 1));
    let next = (l.page < l.pages).then(|| page_href(l.page + 1));
    let first = (l.page - 1) * LKP_PAGE_ROWS + 1;
    let last = (first + l.rows.len()).saturating_sub(1);
    let what = if l.all { "keys" } else { "changed rows" };
    let place = if l.matched == 0 {
        if filter.is_empty() {
            format!(
                "{} keys compared; none changed by lkp-tests' rules.",
                l.keys
            )
        } else {
            format!("No {what} match \"{filter}\".")
        }
    } else {
        format!(
            "{} keys compared, {} changed by lkp-tests' rules. Showing {} {what}{}: rows {first}–{last}, page {} of {}.",
            l.keys,
            l.changed,
            l.matched,
            if filter.is_empty() { String::new() } else { format!(" matching \"{filter}\"") },
            l.page,
            l.pages
        )
    };
    let mut hidden = vec![
        ("benchmark".to_owned(), benchmark.clone()),
        ("machine".to_owned(), machine.clone()),
    ];
    let columns = columns_param(&l.query);
    if let Some((k, _)) = columns.split_once('=') {
        let values: Vec<&str> = l
            .query
            .kernels
            .iter()
            .map(|c| {
                let c = c.as_str();
                if k == "commits" {
                    c.strip_prefix("commit=").unwrap_or(c)
                } else {
                    c
                }
            })
            .collect();
        hidden.push((k.to_owned(), values.join(",")));
    }
    if l.all {
        hidden.push(("all".to_owned(), "1".to_owned()));
    }
    let filter_form = super::metric_filter(
        "lkp-filter",
        "/compare".to_owned(),
        &hidden,
        filter.clone(),
        Some((benchmark.clone(), machine.clone())),
    );
    // The rows, with lkp-tests' group headers where the kind of row changes.
    let mut body = Vec::new();
    let mut last_failure: Option<bool> = None;
    for r in l.rows {
        if last_failure != Some(r.failure) {
            let head = if r.failure {
                ("fail:runs", "%reproduction", "fail:runs")
            } else {
                ("%stddev", "%change", "%stddev")
            };
            body.push(
                view! {
                    <tr class="group">
                        <th colspan="2" class="num">{head.0}</th>
                        <th class="num">{head.1}</th>
                        <th colspan="2" class="num">{head.2}</th>
                        <th></th>
                    </tr>
                }
                .into_any(),
            );
            last_failure = Some(r.failure);
        }
        body.push(row_view(r, &trend).into_any());
    }
    let [base_side, head_side] = l.sides;
    let params = if l.params.is_empty() {
        view! {
            <p class="muted small" id="lkp-no-params">
                "No parameters were stated: upload the job's tags (tags=ip=ipv4,runtime=300s) or its job.yaml beside stats.json."
            </p>
        }
        .into_any()
    } else {
        view! {
            <pre class="cmd" id="lkp-params">
                {l.params.iter().map(|(k, v)| format!("{k}: {v}\n")).collect::<String>()}
            </pre>
        }
        .into_any()
    };
    view! {
        <section id="lkp-compare" data-permalink=l.permalink.clone().unwrap_or_default()>
            <p id="lkp-headline" class="lkp-headline"><strong>{l.headline}</strong></p>
            <dl class="lkp-job">
                <dt>"commit"</dt>
                <dd id="lkp-head-commit" class="mono">{head_side.line()}</dd>
                <dt>"against"</dt>
                <dd id="lkp-base-commit" class="mono">{base_side.line()}</dd>
                <dt>"in testcase"</dt>
                <dd>{benchmark.clone()}</dd>
                <dt>"on test machine"</dt>
                <dd id="lkp-machine">{machine.clone()}{l.test_machine.map(|m| format!(": {m}"))}</dd>
                <dt>"runs"</dt>
                <dd>{format!("{} against {}", head_side.runs, base_side.runs)}</dd>
            </dl>
            <h2>"with following parameters"</h2>
            {params}
            <details id="lkp-reproduce">
                <summary>"To reproduce"</summary>
                <pre class="cmd">{crate::lkp_view::REPRODUCE}</pre>
            </details>
            <pre class="cmd" id="lkp-axes">{format!("{axis_names}:\n  {axis_values}")}</pre>
            <div class="actions">
                <a id="lkp-text" href=lkp_text>"As lkp-tests prints it (text)"</a>
                {l.permalink.as_ref().map(|id| view! { <a id="permalink" href=format!("/c/{id}")>"Permalink"</a> })}
                <a id="download-csv" href=if l.permalink.is_some() { format!("{doc}?format=csv") } else { format!("{doc}&format=csv") }>"Samples (CSV)"</a>
                <a id="mmtests-view" href=format!("{base}&view=mmtests")>"Statistics (mmtests) view"</a>
                <a id="profile-link" href=format!("/profile?{bare}")>"Differential profile"</a>
            </div>
            {filter_form}
            <p class="rows-page" id="lkp-rows-page">
                {place} " "
                <a id="lkp-toggle" href=toggle.0>{toggle.1}</a>
                " " {super::prev_next(prev, next)}
            </p>
            <div class="table-scroll">
                <table id="lkp-table" class="compare lkp-table">
                    <thead>
                        <tr>
                            <th colspan="2" class="num" title=base_side.label.clone()>{base_side.line()}</th>
                            <th></th>
                            <th colspan="2" class="num" title=head_side.label.clone()>{head_side.line()}</th>
                            <th>"key"</th>
                        </tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            <p class="muted small">
                "lkp-tests' own table (its compare rules and numbers, byte for byte its text): the averages of each commit's runs, "
                "± their relative standard deviation when over 2%, and the change (in points for perf-profile and % keys). "
                "KPIs come first; green is better and red worse by the KPI's direction. Open \"trend\" for a key's trend on this machine."
            </p>
        </section>
    }
}

/// Two commits of a benchmark on a machine, picked by typing a part of their sha or subject:
/// a plain GET form (`commits=BASE&commits=HEAD`) that works without the WASM as two text
/// fields.
#[island]
pub fn CommitPicker(
    benchmark: String,
    machine: String,
    base: String,
    head: String,
) -> impl IntoView {
    view! {
        <form id="commit-form" method="get" action="/compare" class="form commit-form">
            <input type="hidden" name="benchmark" value=benchmark.clone() />
            <input type="hidden" name="machine" value=machine.clone() />
            <label for="commit-base">"Base commit"</label>
            <CommitCombo id="commit-base".into() initial=base benchmark=benchmark.clone() machine=machine.clone() />
            <label for="commit-head">"Commit"</label>
            <CommitCombo id="commit-head".into() initial=head benchmark=benchmark machine=machine />
            <div></div>
            <button type="submit" id="commit-submit">"Compare commits"</button>
        </form>
    }
}

/// A type-to-search commit field (an ARIA combobox, as the metric picker): the server lists
/// the matching commits with their subjects as the user types.
#[component]
fn CommitCombo(id: String, initial: String, benchmark: String, machine: String) -> impl IntoView {
    let text = RwSignal::new(initial);
    let found = RwSignal::new(CommitMatches::default());
    let open = RwSignal::new(false);
    let active = RwSignal::new(None::<usize>);
    let problem = RwSignal::new(String::new());
    let latest = super::Latest::new();
    let (benchmark, machine) = (StoredValue::new(benchmark), StoredValue::new(machine));
    let ask = move || {
        let search = CommitSearch {
            benchmark: benchmark.get_value(),
            machine: machine.get_value(),
            text: text.get_untracked(),
        };
        let ticket = latest.ask();
        leptos::task::spawn_local(async move {
            let answer = get_commit_matches(search).await;
            if !latest.is_latest(ticket) {
                return;
            }
            match answer {
                Ok(m) => {
                    found.set(m);
                    problem.set(String::new());
                    active.set(None);
                    open.set(true);
                }
                Err(e) => problem.set(e.to_string()),
            }
        });
    };
    let choose = move |sha: String| {
        text.set(sha);
        open.set(false);
        active.set(None);
    };
    let list_id = format!("{id}-list");
    let status_id = format!("{id}-status");
    let opt_prefix = format!("{id}-opt-");
    let opt_prefix2 = opt_prefix.clone();
    let keys = move |ev: leptos::ev::KeyboardEvent| {
        let n = found.with_untracked(|f| f.matches.len());
        if let Some(i) = super::picker::combo_keys(&ev, n, open, active, ask) {
            if let Some(m) = found.with_untracked(|f| f.matches.get(i).cloned()) {
                choose(m.sha);
            }
        }
    };
    view! {
        <div class="combo">
            <input
                type="search"
                id=id.clone()
                name="commits"
                role="combobox"
                autocomplete="off"
                spellcheck="false"
                aria-autocomplete="list"
                aria-controls=list_id.clone()
                aria-describedby=status_id.clone()
                aria-expanded=move || if open.get() { "true" } else { "false" }
                aria-activedescendant=move || active.get().map(|i| format!("{opt_prefix2}{i}"))
                placeholder="a sha or words of its subject"
                prop:value=move || text.get()
                value=text.get_untracked()
                on:input=move |ev| {
                    text.set(event_target_value(&ev));
                    ask();
                }
                on:focus=move |_| ask()
                on:blur=move |_| open.set(false)
                on:keydown=keys
            />
            <ul id=list_id class="combo-list" role="listbox" hidden=move || !open.get() || found.with(|f| f.matches.is_empty())>
                {move || {
                    let prefix = opt_prefix.clone();
                    found.with(|f| {
                        f.matches.iter().enumerate().map(|(i, m)| {
                            let sha = m.sha.clone();
                            view! {
                                <li role="option" id=format!("{prefix}{i}")
                                    class=move || if active.get() == Some(i) { "active" } else { "" }
                                    aria-selected=move || if active.get() == Some(i) { "true" } else { "false" }
                                    data-sha=m.sha.clone()
                                    on:mousedown=move |ev| { ev.prevent_default(); choose(sha.clone()); }>
                                    {m.label()} <span class="muted small">{format!(" · {} runs", m.runs)}</span>
                                </li>
                            }
                        }).collect_view()
                    })
                }}
            </ul>
            <span id=status_id class="muted small combo-status" aria-live="polite">{move || {
                let p = problem.get();
                if !p.is_empty() {
                    return p;
                }
                found.with(|f| {
                    if !open.get() {
                        String::new()
                    } else {
                        format!("{} of {} commits match.", f.matching, f.total)
                    }
                })
            }}</span>
        </div>
    }
}
