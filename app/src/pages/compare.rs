// SPDX-License-Identifier: GPL-3.0-or-later
//! The compare page (`/compare?benchmark=B&machine=M&kernels=K0,K1`) and the permalink page
//! (`/c/{id}`): choose what to compare, then the mmtests table, the chart and the exports.

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::dashboard::encode;
use super::{copy_to_clipboard, error_view, loading, select_options};
use crate::api::{get_compare, get_compare_choices, get_permalink};
use crate::compare::{Cell, Comparison, Stat, Verdict, SIGNIFICANCE_Z};
use crate::compare_text::{self, Table, TextOptions};
use crate::label::Direction;
use crate::types::{CompareChoices, CompareForm};

/// Reads the compare state from the query string: `kernels=K0,K1` and/or repeated `kernel=K`.
pub(super) fn query_from_map(map: &leptos_router::params::ParamsMap) -> CompareForm {
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
    // `columns=6.1.0@box-a,6.1.0@box-b`: columns across machines or configurations.
    let columns = map.get("columns").filter(|c| !c.trim().is_empty());
    if let Some(list) = &columns {
        kernels = list
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_owned)
            .collect();
    }
    // `commits=BASE,HEAD`: a robot's commits under one kernel version (or `commits=BASE&
    // commits=HEAD`, as the commit picker's form sends them).
    let commits = map
        .get_all("commits")
        .map(|all| {
            all.iter()
                .map(|c| c.trim())
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
                .join(",")
        })
        .filter(|c| !c.is_empty());
    if let (Some(list), None) = (&commits, &columns) {
        kernels = list
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(|c| format!("commit={c}"))
            .collect();
    }
    let columns = columns.or(commits);
    // A kernel named twice is the API's 400 ("kernels names K twice"), never folded silently.
    CompareForm {
        benchmark: map.get("benchmark").unwrap_or_default(),
        machine: map.get("machine").unwrap_or_default(),
        kernels,
        metric: map.get("metric").filter(|m| !m.is_empty()),
        columns: columns.is_some(),
    }
}

/// What the compare page shows: two LKP jobs as lkp-tests' table, or mmtests' statistics.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
enum Shown {
    Lkp(Box<crate::lkp_view::LkpCompare>),
    Mmtests(Box<Comparison>),
}

#[component]
pub fn ComparePage() -> impl IntoView {
    let query_map = use_query_map();
    // `benchmark=*`: every benchmark of a tree, on its own page.
    if query_map.read_untracked().get("benchmark").as_deref() == Some("*") {
        return view! { <super::tree::TreePage /> }.into_any();
    }
    let query = Memo::new(move |_| query_from_map(&query_map.read()));
    // The form parses here, with the API's types, before the server is asked.
    // Two LKP jobs are shown as lkp-tests' table (`view=mmtests` for the statistics).
    let lkp_state = {
        let m = query_map.read_untracked();
        (
            m.get("view").as_deref() != Some("mmtests"),
            m.get("all").as_deref() == Some("1"),
            m.get("filter").unwrap_or_default(),
            m.get("page").and_then(|p| p.parse().ok()).unwrap_or(1),
        )
    };
    let lkp_filter = StoredValue::new(lkp_state.2.clone());
    let table = Resource::new(
        move || query.get(),
        move |q| {
            let (lkp_wanted, all, filter, page) = lkp_state.clone();
            async move {
                match q.parse() {
                    Ok(None) => Ok(None),
                    Ok(Some(q)) => {
                        if lkp_wanted && q.kernels.len() == 2 {
                            let asked = crate::lkp_view::LkpQuery {
                                query: q.clone(),
                                all,
                                filter,
                                page,
                            };
                            if let Some(l) = crate::api::get_lkp_compare(asked).await? {
                                return Ok(Some(Shown::Lkp(Box::new(l))));
                            }
                        }
                        get_compare(q)
                            .await
                            .map(|c| Some(Shown::Mmtests(Box::new(c))))
                    }
                    Err(e) => Err(crate::error::PageError::BadRequest(e)),
                }
            }
        },
    );
    let picker = {
        let q = query.get_untracked();
        let commits: Vec<String> = q
            .kernels
            .iter()
            .filter_map(|k| k.strip_prefix("commit=").map(str::to_owned))
            .collect();
        (!q.benchmark.is_empty() && !q.machine.is_empty()).then(|| {
            view! {
                <details id="commit-picker" open=!commits.is_empty()>
                    <summary>"Compare two commits (type a sha or words of its subject)"</summary>
                    <super::lkp_compare::CommitPicker
                        benchmark=q.benchmark.clone()
                        machine=q.machine.clone()
                        base=commits.first().cloned().unwrap_or_default()
                        head=commits.get(1).cloned().unwrap_or_default() />
                </details>
            }
        })
    };
    let choices = Resource::new(
        move || query.get(),
        |q| async move {
            get_compare_choices(
                (!q.benchmark.is_empty()).then_some(q.benchmark),
                (!q.machine.is_empty()).then_some(q.machine),
            )
            .await
        },
    );
    let ratio = query_map.read_untracked().get("ratio").as_deref() == Some("1");
    let rows_view = move || {
        let q = query.get_untracked();
        let mut hidden = vec![
            ("benchmark".to_owned(), q.benchmark.clone()),
            ("machine".to_owned(), q.machine.clone()),
            (
                if q.columns { "columns" } else { "kernels" }.to_owned(),
                q.kernels.join(","),
            ),
        ];
        if let Some(m) = &q.metric {
            hidden.push(("metric".to_owned(), m.clone()));
        }
        if ratio {
            hidden.push(("ratio".to_owned(), "1".to_owned()));
        }
        // The statistics of two LKP jobs stay the statistics from page to page.
        if query_map.read_untracked().get("view").as_deref() == Some("mmtests") {
            hidden.push(("view".to_owned(), "mmtests".to_owned()));
        }
        RowsView::from_map(&query_map.read_untracked(), "/compare".to_owned(), hidden)
    };
    view! {
        <h1>"Compare kernels"</h1>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match choices.await {
                    Ok(c) => view! { <ChoiceForm initial=query.get_untracked() choices=c /> }.into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
        {picker}
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match table.await {
                    Ok(Some(Shown::Lkp(l))) => view! { <super::lkp_compare::LkpView l=*l filter=lkp_filter.get_value() /> }.into_any(),
                    Ok(Some(Shown::Mmtests(c))) => view! { <ComparisonView c=*c ratio=ratio rows=rows_view() /> }.into_any(),
                    Ok(None) => view! {
                        <p class="muted">"Pick a benchmark, a machine and kernels (the first is the baseline)."</p>
                    }.into_any(),
                    Err(e) => {
                        super::set_page_status(e.status());
                        error_view(e)
                    }
                }
            })}
        </Suspense>
    }    .into_any()
}

#[component]
pub fn PermalinkPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let query_map = use_query_map();
    let ratio = query_map.read_untracked().get("ratio").as_deref() == Some("1");
    let comparison = Resource::new(move || id.get(), get_permalink);
    let rows_view = move || {
        let hidden = if ratio {
            vec![("ratio".to_owned(), "1".to_owned())]
        } else {
            Vec::new()
        };
        RowsView::from_map(
            &query_map.read_untracked(),
            format!("/c/{}", id.get_untracked()),
            hidden,
        )
    };
    view! {
        <h1>"Comparison " <span class="mono">{move || id.get()}</span></h1>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match comparison.await {
                    Ok(c) => {
                        let live = live_href(&CompareForm::from(&c.query));
                        view! {
                            <p class="muted">
                                "A permalink: these are the runs and numbers it was made with, whatever was uploaded since. "
                                <a href=live>"Compare again with today's runs"</a>
                            </p>
                            <ComparisonView c=c ratio=ratio rows=rows_view() />
                        }.into_any()
                    }
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// Which rows of a large comparison the page shows (`filter=`, `page=` in its URL), and how to
/// link to another page of them: the page's path and the rest of its query.
#[derive(Clone)]
pub struct RowsView {
    action: String,
    hidden: Vec<(String, String)>,
    filter: String,
    page: usize,
}

impl RowsView {
    /// The benchmark and machine the filter's picker searches, when the comparison names both.
    fn search(&self) -> Option<(String, String)> {
        let get = |k: &str| {
            self.hidden
                .iter()
                .find(|(key, v)| key == k && !v.is_empty())
                .map(|(_, v)| v.clone())
        };
        Some((get("benchmark")?, get("machine")?))
    }

    fn from_map(
        map: &leptos_router::params::ParamsMap,
        action: String,
        hidden: Vec<(String, String)>,
    ) -> RowsView {
        RowsView {
            action,
            hidden,
            filter: map.get("filter").unwrap_or_default(),
            page: map.get("page").and_then(|p| p.parse().ok()).unwrap_or(1),
        }
    }

    fn href(&self, page: usize) -> String {
        let mut pairs: Vec<String> = self
            .hidden
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect();
        if !self.filter.is_empty() {
            pairs.push(format!("filter={}", encode(&self.filter)));
        }
        pairs.push(format!("page={page}"));
        format!("{}?{}", self.action, pairs.join("&"))
    }
}

/// The filter and the pages of a large comparison: a plain GET form (it works before and
/// without the WASM) and links to the previous and next pages.
fn rows_pager(rows: &RowsView, p: &crate::compare::RowsPage) -> AnyView {
    let first = (p.page - 1) * crate::compare::PAGE_ROWS + 1;
    let last = (first + crate::compare::PAGE_ROWS - 1).min(p.matched);
    let what = if rows.filter.is_empty() {
        format!("{} metrics", p.total)
    } else {
        format!(
            "{} of {} metrics match \"{}\"",
            p.matched, p.total, rows.filter
        )
    };
    let place = if p.matched == 0 {
        format!("{what}: none to show.")
    } else {
        format!(
            "{what}; {} changed, shown first. Rows {first}–{last}, page {} of {}.",
            p.changed, p.page, p.pages
        )
    };
    let prev = (p.page > 1).then(|| rows.href(p.page - 1));
    let next = (p.page < p.pages).then(|| rows.href(p.page + 1));
    view! {
        {super::metric_filter("rows-filter", rows.action.clone(), &rows.hidden, rows.filter.clone(), rows.search())}
        <p class="rows-page" id="rows-page">{place}" " {super::prev_next(prev, next)}</p>
    }
    .into_any()
}

/// The live compare URL of a query; all of its state is in the query string.
fn live_href(q: &CompareForm) -> String {
    let mut url = format!(
        "/compare?benchmark={}&machine={}&{}={}",
        encode(&q.benchmark),
        encode(&q.machine),
        if q.columns { "columns" } else { "kernels" },
        q.kernels
            .iter()
            .map(|k| encode(k))
            .collect::<Vec<_>>()
            .join(",")
    );
    if let Some(m) = &q.metric {
        url.push_str(&format!("&metric={}", encode(m)));
    }
    url
}

/// Benchmark, machine and the ordered kernel list (baseline first; drag or ↑/↓ to reorder).
/// An island: choosing a benchmark or a machine fetches what there is to choose from then.
#[island]
fn ChoiceForm(initial: CompareForm, choices: CompareChoices) -> impl IntoView {
    let benchmark = RwSignal::new(initial.benchmark.clone());
    let machine = RwSignal::new(initial.machine.clone());
    let order = RwSignal::new(initial.kernels.clone());
    let dragged = RwSignal::new(None::<usize>);
    let choices = RwSignal::new(Ok::<_, String>(choices));
    let latest = super::Latest::new();
    let refresh = move || {
        let (b, m) = (benchmark.get_untracked(), machine.get_untracked());
        let ticket = latest.ask();
        leptos::task::spawn_local(async move {
            let fresh =
                get_compare_choices((!b.is_empty()).then_some(b), (!m.is_empty()).then_some(m))
                    .await;
            if latest.is_latest(ticket) {
                choices.set(fresh.map_err(|e| e.to_string()));
            }
        });
    };
    let move_item = move |from: usize, to: usize| {
        order.update(|o| {
            if from < o.len() && to < o.len() && from != to {
                let k = o.remove(from);
                o.insert(to, k);
            }
        });
    };
    // The form is checked here with the API's own parsing before the browser sends it.
    let problem = RwSignal::new(String::new());
    let metric = initial.metric.clone();
    let check = move |ev: leptos::ev::SubmitEvent| {
        let form = CompareForm {
            benchmark: benchmark.get_untracked(),
            machine: machine.get_untracked(),
            kernels: order.get_untracked(),
            metric: metric.clone(),
            columns: false,
        };
        match form.parse() {
            Err(e) => {
                ev.prevent_default();
                problem.set(e);
            }
            Ok(_) => problem.set(String::new()),
        }
    };
    view! {
        <form id="compare-form" method="get" action="/compare" class="form" on:submit=check>
                {move || match choices.get() {
                        Ok(c) => {
                            let available = c.kernels.clone();
                            view! {
                                <label for="benchmark">"Benchmark"</label>
                                <select id="benchmark" name="benchmark"
                                    on:change=move |ev| { benchmark.set(event_target_value(&ev)); order.set(Vec::new()); refresh(); }>
                                    <option value="">"—"</option>
                                    {select_options(c.benchmarks, &benchmark.get_untracked())}
                                </select>
                                <label for="machine">"Machine"</label>
                                <select id="machine" name="machine"
                                    on:change=move |ev| { machine.set(event_target_value(&ev)); order.set(Vec::new()); refresh(); }>
                                    <option value="">"—"</option>
                                    {select_options(c.machines, &machine.get_untracked())}
                                </select>
                                <span class="label">"Add kernels"</span>
                                <div id="kernel-choices" class="kernels">
                                    {if available.is_empty() {
                                        view! { <span class="muted">"Choose a benchmark and a machine to list their kernels."</span> }.into_any()
                                    } else {
                                        available.into_iter().map(|k| {
                                            let name = k.clone();
                                            let chosen = {
                                                let k = k.clone();
                                                move || order.with(|o| o.contains(&k))
                                            };
                                            view! {
                                                <button type="button" class="add-kernel" data-kernel=k.clone()
                                                    disabled=chosen
                                                    on:click=move |_| order.update(|o| if !o.contains(&name) { o.push(name.clone()) })>
                                                    "+ " {k.clone()}
                                                </button>
                                            }
                                        }).collect_view().into_any()
                                    }}
                                </div>
                            }.into_any()
                        }
                        Err(e) => error_view(e),
                }}
            <span class="label">"Kernels"</span>
            <div>
                <ol id="kernel-order" class="kernel-order">
                    {move || order.get().into_iter().enumerate().map(|(i, k)| view! {
                        <li draggable="true" data-kernel=k.clone()
                            on:dragstart=move |_| dragged.set(Some(i))
                            on:dragover=|ev| ev.prevent_default()
                            on:drop=move |ev| {
                                ev.prevent_default();
                                if let Some(from) = dragged.get_untracked() { move_item(from, i); }
                                dragged.set(None);
                            }>
                            <span class="grip" aria-hidden="true">"⠿"</span>
                            <span class="kernel-name">{k.clone()}</span>
                            {(i == 0).then(|| view! { <span class="badge">"baseline"</span> })}
                            <button type="button" class="up" title="Move up" disabled=i == 0
                                on:click=move |_| { if i > 0 { move_item(i, i - 1) } }>"↑"</button>
                            <button type="button" class="down" title="Move down"
                                on:click=move |_| move_item(i, i + 1)>"↓"</button>
                            <button type="button" class="remove" title="Remove"
                                on:click=move |_| order.update(|o| { if i < o.len() { o.remove(i); } })>"×"</button>
                        </li>
                    }).collect_view()}
                </ol>
                <p class="muted small">"The first kernel is the baseline. Drag the kernels, or use ↑ ↓, to reorder."</p>
                <input type="hidden" name="kernels" prop:value=move || order.get().join(",") value=initial.kernels.join(",") />
                {initial.metric.clone().map(|m| view! { <input type="hidden" name="metric" value=m /> })}
            </div>
            <div></div>
            <button type="submit" id="compare-submit">"Compare"</button>
            <p class="error" id="compare-problem" hidden=move || problem.get().is_empty()>{move || problem.get()}</p>
        </form>
    }
}

/// Formats a percentage cell the way the page shows it.
fn pct_text(p: f64) -> String {
    format!("{p:+.2}%")
}

/// The class and hover text of one cell of statistic row `i`.
fn cell_class(stat_row: usize, cell: &Cell, direction: Direction) -> String {
    let mut class = String::from("num");
    if cell.verdict == Verdict::Baseline {
        class.push_str(" baseline");
        return class;
    }
    match cell.changes.by_row(stat_row) {
        // Of a metric whose direction is unknown, a change is a change.
        Some(p) if p != 0.0 && !direction.is_known() => class.push_str(" changed"),
        Some(p) if p > 0.0 => class.push_str(" better"),
        Some(p) if p < 0.0 => class.push_str(" worse"),
        _ => {}
    }
    if stat_row == 1 {
        match cell.verdict {
            Verdict::Improvement => class.push_str(" significant improvement"),
            Verdict::Regression => class.push_str(" significant regression"),
            Verdict::Changed => class.push_str(" significant changed"),
            Verdict::NeedsMoreRuns => class.push_str(" needs-more-runs"),
            _ => {}
        }
    }
    class
}

fn interval(mean: Option<f64>, sd: Option<f64>, precision: usize) -> String {
    match (mean, sd) {
        (Some(m), Some(sd)) => format!(
            "[{:.p$}, {:.p$}]",
            m - SIGNIFICANCE_Z * sd,
            m + SIGNIFICANCE_Z * sd,
            p = precision
        ),
        _ => "undefined (one sample)".to_owned(),
    }
}

fn cell_title(
    stat_row: usize,
    cell: &Cell,
    base: Option<&Cell>,
    direction: Direction,
    runs: &[i64],
    precision: usize,
) -> String {
    let s = &cell.stats;
    let cv = match direction {
        Direction::Higher => s.hcoeffvar,
        Direction::Lower | Direction::Unknown => s.coeffvar,
    };
    let mut t = format!(
        "n={} samples from run{} {}; CoeffVar {}",
        s.n,
        if runs.len() == 1 { "" } else { "s" },
        runs.iter()
            .map(|r| format!("#{r}"))
            .collect::<Vec<_>>()
            .join(", "),
        cv.map_or_else(|| "-".into(), |v| format!("{v:.2}%"))
    );
    if stat_row == 1 {
        if let Some(base) = base.filter(|_| cell.verdict != Verdict::Baseline) {
            let mean = Stat::mean(direction);
            let spread = |c: &Cell| match direction {
                Direction::Higher => c.stats.hstddev,
                Direction::Lower | Direction::Unknown => c.stats.stddev,
            };
            let bi = interval(mean.of(&base.stats), spread(base), precision);
            let ni = interval(mean.of(&cell.stats), spread(cell), precision);
            let verdict = match cell.verdict {
                Verdict::Improvement | Verdict::Regression | Verdict::Changed => format!(
                    "Significant: the intervals mean ± {SIGNIFICANCE_Z}·stddev do not overlap (baseline {bi}, this {ni})."
                ),
                Verdict::NeedsMoreRuns => format!(
                    "Needs more runs: the mean moved by more than 1% but the intervals mean ± {SIGNIFICANCE_Z}·stddev overlap (baseline {bi}, this {ni})."
                ),
                _ => format!(
                    "Not significant: the intervals mean ± {SIGNIFICANCE_Z}·stddev overlap (baseline {bi}, this {ni})."
                ),
            };
            t.push('\n');
            t.push_str(&verdict);
        }
    }
    t
}

/// The ratio view: a row per param, a column per kernel with its mean, then each kernel's ratio
/// to the baseline (as in a mailing-list sweep table), from [`crate::mmtests::ratios`].
fn ratio_view(c: &Comparison) -> AnyView {
    let tables = crate::mmtests::ratios(c);
    let p = c.precision;
    tables
        .into_iter()
        .map(|t| {
            let mean = Stat::mean(t.direction);
            let kernels = t.kernels.clone();
            let head = view! {
                <tr>
                    <th>"Param"</th>
                    {kernels.iter().map(|k| view! { <th class="num">{format!("{} {}", mean.name(), k)}</th> }).collect_view()}
                    {kernels.iter().skip(1).map(|k| view! { <th class="num">{format!("{k} / {}", kernels[0])}</th> }).collect_view()}
                </tr>
            };
            let rows = t
                .rows
                .iter()
                .map(|r| {
                    let row = c
                        .rows
                        .iter()
                        .find(|x| x.label == r.label && x.direction == t.direction);
                    let means = (0..kernels.len())
                        .map(|k| {
                            let v = row
                                .and_then(|x| x.cells.get(k))
                                .and_then(|c| c.as_ref())
                                .and_then(|c| mean.of(&c.stats)).map_or_else(|| "-".into(), |v| format!("{v:.p$}"));
                            view! { <td class="num">{v}</td> }
                        })
                        .collect_view();
                    let ratios = r
                        .cells
                        .iter()
                        .skip(1)
                        .map(|cell| {
                            let class = if cell.pct > 0.0 {
                                "num better"
                            } else if cell.pct < 0.0 {
                                "num worse"
                            } else {
                                "num"
                            };
                            view! {
                                <td class=class title=format!("{:+.2}% against the baseline", cell.pct)>
                                    {format!("{:.0}%", 100.0 * cell.ratio)}
                                </td>
                            }
                        })
                        .collect_view();
                    view! {
                        <tr data-param=r.param.clone()>
                            <td class="row-label">{r.param.clone()}</td>
                            {means}
                            {ratios}
                        </tr>
                    }
                })
                .collect_view();
            let gmean = t
                .gmean
                .iter()
                .skip(1)
                .map(|g| view! { <td class="num">{format!("{:.0}%", 100.0 * g)}</td> })
                .collect_view();
            view! {
                <table class="compare ratio-table">
                    <thead>{head}</thead>
                    <tbody>
                        {rows}
                        <tr class="gmean">
                            <td>"Geometric mean"</td>
                            {kernels.iter().map(|_| view! { <td></td> }).collect_view()}
                            {gmean}
                        </tr>
                    </tbody>
                </table>
            }
            .into_any()
        })
        .collect_view()
        .into_any()
}

/// The comparison: actions, chart, mmtests table, and its text.
#[component]
fn ComparisonView(
    c: Comparison,
    /// The ratio view first (`ratio=1` in the page's URL).
    ratio: bool,
    /// Which rows of a large comparison to show.
    rows: RowsView,
) -> impl IntoView {
    if c.rows.is_empty() {
        return view! { <p class="muted" id="compare-empty">"No samples for this choice."</p> }
            .into_any();
    }
    // An LKP job's thousands of keys: a page of rows at a time, changed ones first.
    let (c, paging) = c.page(&rows.filter, rows.page);
    let pager = paging.as_ref().map(|p| rows_pager(&rows, p));
    let id = c.permalink.clone().unwrap_or_default();
    let doc = format!("/c/{id}");
    // The text under the table, its permalink a path; the copy's is made whole in the browser.
    let mmtests = |origin| TextOptions {
        table: Table::Mmtests,
        advice: None,
        origin,
        facts: false,
    };
    let text = compare_text::text(&c, &mmtests(Some("")));
    let copied_text = compare_text::text(&c, &mmtests(None));
    let kernels: Vec<String> = c.query.kernels.iter().map(ToString::to_string).collect();
    let precision = c.precision;
    let ratio_view = ratio_view(&c);
    // What else differs between the baseline's runs and each kernel's (machine, CPU, config,
    // sysctl, command line, governor...), loudly when more than the kernel changed.
    let facts_view = (!c.facts.is_empty()).then(|| {
        let baseline = kernels.first().cloned().unwrap_or_default();
        let warnings: Vec<String> = c
            .facts
            .iter()
            .filter(|d| d.warning)
            .map(|d| d.kernel.clone())
            .collect();
        let text = compare_text::facts(&c);
        view! {
            <section id="facts-diff">
                {(!warnings.is_empty()).then(|| view! {
                    <p id="facts-warning" class="error">
                        {format!("More than the kernel changed between {baseline} and {}: compare with care.", warnings.join(", "))}
                    </p>
                })}
                <details open=!warnings.is_empty()>
                    <summary>"What differs besides the kernel"</summary>
                    <pre id="facts-text">{text}</pre>
                </details>
            </section>
        }
        .into_any()
    });
    let ratio_text = crate::mmtests::ratio_text(&c);
    let runs_of: Vec<Vec<i64>> = kernels
        .iter()
        .map(|k| {
            c.runs
                .iter()
                .find(|r| &r.kernel == k)
                .map(|r| r.runs.clone())
                .unwrap_or_default()
        })
        .collect();
    // One chart per metric (most comparisons have one).
    let mut metrics: Vec<String> = Vec::new();
    for row in &c.rows {
        if !metrics.contains(&row.metric) {
            metrics.push(row.metric.clone());
        }
    }
    // A page of a large comparison charts its first few (changed) metrics only.
    if paging.is_some() {
        metrics.truncate(4);
    }
    let charts = metrics
        .into_iter()
        .enumerate()
        .map(|(i, metric)| {
            let alt = format!(
                "Mean of {metric} per parameter for each kernel, with error bars of one standard deviation"
            );
            let src = format!("{doc}?format=svg&chart={}", encode(&metric));
            let id = if i == 0 { "compare-chart".to_owned() } else { format!("compare-chart-{i}") };
            view! { <img id=id class="chart" src=src alt=alt width="860" height="460" /> }
        })
        .collect_view();
    let mut body = Vec::new();
    for direction in [Direction::Higher, Direction::Lower, Direction::Unknown] {
        let rows: Vec<_> = c.rows.iter().filter(|r| r.direction == direction).collect();
        if rows.is_empty() {
            continue;
        }
        body.push(
            view! {
                <tr class="direction">
                    <th colspan=2 + kernels.len()>
                        {match direction {
                            Direction::Higher => "Higher is better",
                            Direction::Lower => "Lower is better",
                            Direction::Unknown => "Direction unknown: changes are changes",
                        }}
                    </th>
                </tr>
            }
            .into_any(),
        );
        for (i, stat) in Stat::rows(direction).into_iter().enumerate() {
            for row in &rows {
                let base = row.cells.first().cloned().flatten();
                let cells = row
                    .cells
                    .iter()
                    .enumerate()
                    .map(|(k, cell)| match cell {
                        None => {
                            view! { <td class="num muted" title="no samples">"-"</td> }.into_any()
                        }
                        Some(cell) => {
                            let value = stat
                                .of(&cell.stats)
                                .map_or_else(|| "-".into(), |v| format!("{v:.precision$}"));
                            let pct = cell.changes.by_row(i);
                            let class = cell_class(i, cell, direction);
                            let title = cell_title(
                                i,
                                cell,
                                base.as_ref(),
                                direction,
                                &runs_of[k],
                                precision,
                            );
                            let marker = (i == 1 && cell.significant).then_some("*");
                            let hint =
                                (i == 1 && cell.verdict == Verdict::NeedsMoreRuns).then(|| {
                                    let (short, full) = match &row.advice {
                                        Some(a) if a.needs_more_runs() => (a.short(), a.sentence()),
                                        _ => ("needs more runs".to_owned(), String::new()),
                                    };
                                    view! { <span class="hint" title=full>{short}</span> }
                                });
                            let verdict = format!("{:?}", cell.verdict).to_lowercase();
                            view! {
                                <td class=class title=title data-verdict=verdict>
                                    <span class="value">{value}</span>
                                    " "
                                    <span class="pct">
                                        {pct.map_or_else(|| "n/a".into(), pct_text)}
                                    </span>
                                    {marker.map(|m| view! { <span class="marker">{m}</span> })}
                                    {hint}
                                </td>
                            }
                            .into_any()
                        }
                    })
                    .collect_view();
                body.push(
                    view! {
                        <tr class=format!("stat-{}", stat.name().replace('.', "")) data-label=row.label.clone()>
                            <td class="stat">{stat.name()}</td>
                            <td class="row-label">
                                {row.label.clone()}
                                // The advice is about telling a small change; beside a change the
                                // runs did tell (marked `*`), it would read as "not proven".
                                {(i == 1 && !row.cells.iter().flatten().any(|c| c.significant))
                                    .then(|| row.advice.filter(crate::noise::Advice::needs_more_runs))
                                    .flatten()
                                    .map(|a| view! {
                                        <span class="advice" title=a.sentence()>{a.short()}</span>
                                    })}
                            </td>
                            {cells}
                        </tr>
                    }
                    .into_any(),
                );
            }
        }
    }
    view! {
        <section id="comparison" data-permalink=id.clone()>
            <p class="meta">
                <strong>{c.query.benchmark.to_string()}</strong> " on " <strong>{c.query.machine_name().to_owned()}</strong>
                ", baseline " <strong>{kernels.first().cloned().unwrap_or_default()}</strong>
            </p>
            <CompareActions doc=doc.clone() permalink=id.clone() text=copied_text ratio=ratio />
            {facts_view}
            <div id="ratio-view" class="ratio-view" class:hidden=!ratio>
                {ratio_view}
                <details>
                    <summary>"As text (mmtests --print-ratio)"</summary>
                    <pre id="ratio-text">{ratio_text}</pre>
                </details>
            </div>
            {pager}
            {charts}
            <table id="compare-table" class="compare" class:hidden=ratio>
                <thead>
                    <tr>
                        <th>"Statistic"</th>
                        <th>"Metric-param"</th>
                        {kernels.iter().enumerate().map(|(i, k)| view! {
                            <th class="num">{k.clone()}{if i == 0 { " (baseline)" } else { "" }}</th>
                        }).collect_view()}
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
            <p class="muted small">
                "Percentages are mmtests': positive is better, green better and red worse than the baseline. "
                "* marks a significant change of the mean (the intervals mean ± 1.96·stddev do not overlap); "
                "\"needs ≥ N runs\" marks a row whose runs cannot tell a 2% change (two-sided t test, 95% confidence, 80% power; hover for the spread it used); \"needs more runs\" marks a change over 1% that the noise hides. "
                "CoeffVar rows show the noise. Hover a cell for its sample count and runs."
            </p>
            <details>
                <summary>"As text (mmtests)"</summary>
                <pre id="compare-text">{text}</pre>
            </details>
        </section>
    }
    .into_any()
}

/// The comparison's actions: links, copy buttons, and the switch between the statistics table
/// and the ratio view. An island; the table and the ratio view around it are the server's HTML,
/// so the switch shows and hides them by their ids.
#[island]
fn CompareActions(
    /// The permalink's path (`/c/{id}`).
    doc: String,
    /// The permalink's id.
    permalink: String,
    /// mmtests' text of the comparison, without the permalink line.
    text: String,
    ratio: bool,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let ratio_on = RwSignal::new(ratio);
    let copy = move |what: &'static str, payload: String| copy_to_clipboard(what, payload, status);
    let link_path = doc.clone();
    let copy_link = move |_| {
        let origin = window().location().origin().unwrap_or_default();
        copy("link", format!("{origin}{link_path}"));
    };
    let copy_text = move |_| {
        let origin = window().location().origin().unwrap_or_default();
        let line = compare_text::permalink_line(&origin, &permalink);
        copy("text", format!("{text}\n{line}"));
    };
    let toggle = move |_| {
        ratio_on.update(|r| *r = !*r);
        let on = ratio_on.get_untracked();
        for (id, hidden) in [("ratio-view", !on), ("compare-table", on)] {
            if let Some(el) = document().get_element_by_id(id) {
                let _ = if hidden {
                    el.class_list().add_1("hidden")
                } else {
                    el.class_list().remove_1("hidden")
                };
            }
        }
    };
    view! {
        <div class="actions">
            <a id="permalink" href=doc.clone()>"Permalink"</a>
            <button type="button" id="copy-link" on:click=copy_link>"Copy link"</button>
            <button type="button" id="copy-text" on:click=copy_text>"Copy as text"</button>
            <a id="download-csv" href=format!("{doc}?format=csv") download="comparison-samples.csv">"Samples (CSV)"</a>
            <a id="download-svg" href=format!("{doc}?format=svg") download="comparison.svg">"Chart (SVG)"</a>
            <a id="lkp-text" href=format!("{doc}?format=text&style=lkp")>"LKP report"</a>
            <button type="button" id="toggle-ratio" on:click=toggle>
                {move || if ratio_on.get() { "Statistics view" } else { "Ratio view" }}
            </button>
            <span id="copy-status" class="muted" role="status">{move || status.get()}</span>
        </div>
    }
}
