// SPDX-License-Identifier: GPL-3.0-or-later
//! The trend page (`/trend?benchmark=B&machine=M&metric=X&param=P`): a metric by commit as SVG
//! or ASCII, bisect marks set with the keyboard (`j`/`k` move, `g`/`b`/`s` mark, `u` unmarks),
//! and the marks and change points beside it. All of its state is in the query string.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::dashboard::encode;
use super::picker::MetricCombo;
use super::{copy_to_clipboard, error_view, loading, select_options};
use crate::api::{
    get_compare_choices, get_report, get_trend_choices, get_trend_multiples, get_trend_point,
    get_trend_view, mark_runs,
};
use crate::trend::{
    lttb, Mark, ReportQuery, Trend, TrendFigure, TrendForm, TrendView, TrendViewQuery,
    ALL_PARAMS as ALL,
};
use crate::types::CompareChoices;

fn query_from_map(map: &leptos_router::params::ParamsMap) -> TrendForm {
    TrendForm {
        benchmark: map.get("benchmark").unwrap_or_default(),
        machine: map.get("machine").unwrap_or_default(),
        metric: map.get("metric").unwrap_or_default(),
        param: map.get("param").unwrap_or_default(),
        history: map.get("history").filter(|h| !h.is_empty()),
    }
}

/// The URL of this view.
fn trend_href(q: &TrendForm) -> String {
    let mut url = format!(
        "/trend?benchmark={}&machine={}&metric={}&param={}",
        encode(&q.benchmark),
        encode(&q.machine),
        encode(&q.metric),
        encode(&q.param)
    );
    if let Some(h) = &q.history {
        url.push_str(&format!("&history={}", encode(h)));
    }
    url
}

/// The page, rendered on the server: the form, the small multiples of `param=*`, and the
/// trend's own panel (an island, with only what its first view shows).
#[component]
pub fn TrendPage() -> impl IntoView {
    let map = use_query_map().read_untracked().clone();
    let query = query_from_map(&map);
    // With `param=*`: all params on one chart (`overlay=1`) instead of small multiples.
    let overlay = map.get("overlay").as_deref() == Some("1");
    // Other machines to draw on the same axis (`also=M`, repeated).
    let also: Vec<String> = map
        .get_all("also")
        .unwrap_or_default()
        .into_iter()
        .filter(|m| !m.is_empty())
        .take(11)
        .collect();
    let view_query = TrendViewQuery {
        trend: query.clone(),
        also: also.clone(),
        from: None,
        to: None,
        selected: None,
        good: map.get("good"),
        bad: map.get("bad"),
    };
    let choices = {
        let q = query.clone();
        Resource::new(
            || (),
            move |()| {
                let (b, m) = (q.benchmark.clone(), q.machine.clone());
                async move { form_choices(b, m).await }
            },
        )
    };
    let multiples = {
        let q = query.clone();
        Resource::new(
            || (),
            move |()| {
                let q = q.clone();
                async move {
                    if q.param != ALL || q.benchmark.is_empty() || q.machine.is_empty() {
                        return Ok(None);
                    }
                    get_trend_multiples(q, overlay).await.map(Some)
                }
            },
        )
    };
    let trend = Resource::new(|| (), move |()| get_trend_view(view_query.clone()));
    let form = {
        let query = query.clone();
        move || {
            let (query, also) = (query.clone(), also.clone());
            Suspend::new(async move {
                match choices.await {
                    Ok((c, series, n)) => {
                        view! { <TrendChooser initial=query also=also choices=c series=series n_series=n /> }
                            .into_any()
                    }
                    Err(e) => error_view(e),
                }
            })
        }
    };
    let small = move || {
        let q = query.clone();
        Suspend::new(async move {
            match multiples.await {
                Ok(Some(m)) if !m.trends.is_empty() => {
                    multiples_view(&q, overlay, &m.trends, m.total, m.overlay)
                }
                Ok(_) => ().into_any(),
                Err(e) => error_view(e),
            }
        })
    };
    view! {
        <h1>"Trends by commit"</h1>
        <Suspense fallback=loading>{form}</Suspense>
        <Suspense fallback=loading>{small}</Suspense>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match trend.await {
                    Ok(Some(v)) if v.n == 0 => view! { <p class="muted">"No runs."</p> }.into_any(),
                    Ok(Some(v)) => view! { <TrendPanel v=v /> }.into_any(),
                    Ok(None) => view! {
                        <p class="muted">"Pick a benchmark, a machine and a metric."</p>
                    }.into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

/// Up to this many series, the trend form's metric is a `<select>`; beyond, a type-to-search
/// picker that asks the server (an LKP job's 5,000 keys are never all in the page).
pub const MAX_SELECT_SERIES: usize = 200;

/// What the form offers: benchmarks and machines, and the chosen pair's metrics and params
/// (none when there are more than [`MAX_SELECT_SERIES`]), and how many there are.
async fn form_choices(
    b: String,
    m: String,
) -> crate::error::PageResult<(CompareChoices, Vec<(String, String)>, usize)> {
    let mut c = get_compare_choices(
        (!b.is_empty()).then_some(b.clone()),
        (!m.is_empty()).then_some(m.clone()),
    )
    .await?;
    // The form offers no kernels (a long history has thousands): not in the island's props.
    c.kernels.clear();
    let mut series = if b.is_empty() || m.is_empty() {
        Vec::new()
    } else {
        get_trend_choices(b, m).await?
    };
    let n = series.len();
    if n > MAX_SELECT_SERIES {
        series = Vec::new();
    }
    Ok((c, series, n))
}

/// The small multiples of `param=*`, or (`overlay`) all of them on one chart.
fn multiples_view(
    q: &TrendForm,
    one_chart: bool,
    all: &[Trend],
    total: usize,
    overlay: Option<Result<TrendFigure, String>>,
) -> AnyView {
    let more = (total > all.len()).then(|| {
        view! {
            <p class="meta" id="trend-more">
                {format!(
                    "The first {} of {total} params; choose a param to see another.",
                    all.len()
                )}
            </p>
        }
    });
    let switch = if one_chart {
        view! { <a id="as-multiples" href=trend_href(q)>"Small multiples"</a> }
    } else {
        view! { <a id="as-one-chart" href=format!("{}&overlay=1", trend_href(q))>"All params on one chart"</a> }
    };
    let body = match overlay {
        Some(Ok(figure)) => {
            view! { <div id="trend-overlay">{figure_view(&figure, None)}</div> }.into_any()
        }
        Some(Err(e)) => view! { <p class="error">{e}</p> }.into_any(),
        None => view! {
            <div id="trend-multiples" class="multiples">
                {all.iter().map(small_chart).collect_view()}
            </div>
        }
        .into_any(),
    };
    view! { <p class="meta">{switch}</p> {more} {body} }.into_any()
}

/// Benchmark, machine, other machines and the metric: an island, fetching what there is to
/// choose from when the benchmark or the machine changes.
#[island]
fn TrendChooser(
    initial: TrendForm,
    also: Vec<String>,
    choices: CompareChoices,
    series: Vec<(String, String)>,
    n_series: usize,
) -> impl IntoView {
    let benchmark = RwSignal::new(initial.benchmark.clone());
    let machine = RwSignal::new(initial.machine.clone());
    let choices = RwSignal::new(Ok::<_, String>((choices, series, n_series)));
    let latest = super::Latest::new();
    let refresh = move || {
        let (b, m) = (benchmark.get_untracked(), machine.get_untracked());
        let ticket = latest.ask();
        leptos::task::spawn_local(async move {
            let fresh = form_choices(b, m).await.map_err(|e| e.to_string());
            if latest.is_latest(ticket) {
                choices.set(fresh);
            }
        });
    };
    let chosen = format!("{}\u{1f}{}", initial.metric, initial.param);
    let (initial_metric, initial_param) = (initial.metric.clone(), initial.param.clone());
    let metric = RwSignal::new(initial.metric.clone());
    let param = RwSignal::new(initial.param.clone());
    // The form is checked here with the API's own parsing before the browser sends it.
    let problem = RwSignal::new(String::new());
    let history = initial.history.clone();
    let check = move |ev: leptos::ev::SubmitEvent| {
        let form = TrendForm {
            benchmark: benchmark.get_untracked(),
            machine: machine.get_untracked(),
            metric: metric.get_untracked(),
            param: param.get_untracked(),
            history: history.clone(),
        };
        match form.parse_any_param() {
            Err(e) if !form.metric.is_empty() => {
                ev.prevent_default();
                problem.set(e);
            }
            _ => problem.set(String::new()),
        }
    };
    view! {
        <form id="trend-form" method="get" action="/trend" class="form" on:submit=check>
                {move || {
                    let chosen = chosen.clone();
                    let also = also.clone();
                    match choices.get() {
                        Ok((c, series, n_series)) => view! {
                            <label for="benchmark">"Benchmark"</label>
                            <select id="benchmark" name="benchmark" on:change=move |ev| { benchmark.set(event_target_value(&ev)); refresh(); }>
                                <option value="">"—"</option>
                                {select_options(c.benchmarks, &benchmark.get_untracked())}
                            </select>
                            <label for="machine">"Machine"</label>
                            <select id="machine" name="machine" on:change=move |ev| { machine.set(event_target_value(&ev)); refresh(); }>
                                <option value="">"—"</option>
                                {select_options(c.machines.clone(), &machine.get_untracked())}
                            </select>
                            <label for="also">"With machines"</label>
                            <select id="also" name="also" multiple size="3" title="Other machines to draw on the same commit axis (Ctrl-click to choose several)">
                                {c.machines.iter().filter(|m| **m != machine.get_untracked()).map(|m| {
                                    let selected = also.contains(m);
                                    view! { <option value=m.clone() selected=selected>{m.clone()}</option> }
                                }).collect_view()}
                            </select>
                            <label for="series">"Metric"</label>
                            {if n_series > MAX_SELECT_SERIES {
                                let shown = if initial_param.is_empty() || initial_param == ALL {
                                    initial_metric.clone()
                                } else {
                                    format!("{initial_metric} @ {initial_param}")
                                };
                                view! {
                                    <MetricCombo id="series".to_owned() initial=shown
                                        benchmark=Signal::from(benchmark) machine=Signal::from(machine)
                                        on_text=Callback::new(move |(m, p): (String, String)| {
                                            metric.set(m);
                                            param.set(p);
                                        })
                                        placeholder=format!("type to search {n_series} metrics")
                                    />
                                }.into_any()
                            } else { view! {
                            <select id="series" on:change=move |ev| {
                                let v = event_target_value(&ev);
                                let (m, p) = v.split_once('\u{1f}').unwrap_or((&v, ""));
                                metric.set(m.to_owned());
                                param.set(p.to_owned());
                            }>
                                <option value="">"—"</option>
                                {
                                    let mut metrics: Vec<String> = series.iter().map(|(m, _)| m.clone()).collect();
                                    metrics.dedup();
                                    metrics.into_iter().filter(|m| series.iter().filter(|(x, _)| x == m).count() > 1).map(|m| {
                                        let value = format!("{m}\u{1f}{ALL}");
                                        let selected = value == chosen;
                                        view! { <option value=value selected=selected>{format!("{m} @ every param")}</option> }
                                    }).collect_view()
                                }
                                {series.into_iter().map(|(m, p)| {
                                    let value = format!("{m}\u{1f}{p}");
                                    let label = if p.is_empty() { m.clone() } else { format!("{m} @ {p}") };
                                    let selected = value == chosen;
                                    view! { <option value=value selected=selected>{label}</option> }
                                }).collect_view()}
                            </select>
                            }.into_any() }}
                        }.into_any(),
                        Err(e) => error_view(e),
                    }
                }}
            <input type="hidden" name="metric" prop:value=move || metric.get() value=initial.metric.clone() />
            <input type="hidden" name="param" prop:value=move || param.get() value=initial.param.clone() />
            <div></div>
            <button type="submit" id="trend-submit">"Show"</button>
            <p class="error" id="trend-problem" hidden=move || problem.get().is_empty()>{move || problem.get()}</p>
        </form>
    }
}

/// One small chart of the small multiples, linking to its full view.
fn small_chart(t: &Trend) -> AnyView {
    let (w, h, pad) = (300.0, 130.0, 8.0);
    let means: Vec<f64> = t
        .points
        .iter()
        .map(|p| crate::chart::plot_value(p.mean))
        .collect();
    let keep = lttb(&means, 300);
    let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = crate::chart::axis_range(lo, hi, 0.0);
    let span = (t.points.len().max(2) - 1) as f64;
    let x = move |i: usize| pad + i as f64 / span * (w - 2.0 * pad);
    let y = move |v: f64| pad + (hi - v) / (hi - lo) * (h - 2.0 * pad);
    let line: String = keep
        .iter()
        .map(|&i| format!("{:.1},{:.1}", x(i), y(means[i])))
        .collect::<Vec<_>>()
        .join(" ");
    let cps = t
        .change_points
        .iter()
        .map(|c| view! { <line class=format!("cp {}", c.verdict) x1=x(c.x) y1=0 x2=x(c.x) y2=h /> })
        .collect_view();
    let marks = keep
        .iter()
        .filter(|&&i| t.points[i].mark.is_some())
        .map(|&i| view! { <circle class=format!("point {}", mark_class(t.points[i].mark)) cx=x(i) cy=y(means[i]) r="3" /> })
        .collect_view();
    let title = if t.query.param.is_empty() {
        t.query.metric.to_string()
    } else {
        format!("{} @ {}", t.query.metric, t.query.param)
    };
    view! {
        <figure class="small-multiple" data-param=t.query.param.to_string()>
            <a href=trend_href(&TrendForm::from(&t.query))>
                <svg class="trend small" viewBox=format!("0 0 {w} {h}") width=w height=h role="img">
                    <title>{title.clone()}</title>
                    <polyline class="trend-line" points=line />
                    {cps}
                    {marks}
                </svg>
            </a>
            <figcaption>{title}{format!(" · {} commits · {} change point(s)", t.points.len(), t.change_points.len())}</figcaption>
        </figure>
    }
    .into_any()
}

/// A chart the server drew, shown as an image (so that nothing in it can run), with a
/// transparent layer over it that puts a tooltip and a click target on every drawn point. With
/// `selected`, the first series' points can be selected and show their marks.
fn figure_view(f: &TrendFigure, selected: Option<RwSignal<usize>>) -> AnyView {
    let hits = f
        .points
        .iter()
        .map(|p| {
            let title = p.title.clone();
            let Some(selected) = selected.filter(|_| p.series == 0) else {
                return view! {
                    <circle class="peer" cx=p.px cy=p.py r="5" data-series=p.series data-x=p.x>
                        <title>{title}</title>
                    </circle>
                }
                .into_any();
            };
            let i = p.index;
            let (mark, first_bad) = (p.mark, p.first_bad);
            let class = move || {
                format!(
                    "point {}{}{}",
                    mark_class(mark),
                    if first_bad { " first-bad" } else { "" },
                    if selected.get() == i { " selected" } else { "" }
                )
            };
            view! {
                <circle class=class cx=p.px cy=p.py r="6" data-x=i on:click=move |_| selected.set(i)>
                    <title>{title}</title>
                </circle>
            }
            .into_any()
        })
        .collect_view();
    let id = selected.map(|_| "trend-svg");
    view! {
        <div class="chart-box" style=format!("max-width: {}px", f.width)>
            <img class="trend-chart" src=f.src.clone() alt=f.alt.clone() width=f.width height=f.height />
            <svg id=id class="overlay" viewBox=format!("0 0 {} {}", f.width, f.height) role="presentation">
                {hits}
            </svg>
        </div>
    }
    .into_any()
}

fn mark_class(m: Option<Mark>) -> &'static str {
    match m {
        Some(Mark::Good) => "good",
        Some(Mark::Bad) => "bad",
        Some(Mark::Skip) => "skip",
        None => "none",
    }
}

/// The trend itself: chart or ASCII, the range shown, the selected commit, the marks and the
/// change points, with the keys that mark. An island whose props are what the first view
/// shows (`TrendView`); another window, a mark or a selection asks the server again.
#[island]
fn TrendPanel(v: TrendView) -> impl IntoView {
    let q = TrendForm::from(&v.query);
    let also = v.also.clone();
    let n = v.n;
    let axis = v.axis;
    let alert_range = v.alert_range.clone();
    let selected = RwSignal::new(v.selected);
    let detail = RwSignal::new(v.point.clone());
    let from = RwSignal::new(v.window.0);
    let to = RwSignal::new(v.window.1);
    let ascii = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    let data = RwSignal::new(v);
    // Asks the server for the view of the current window and selection.
    let latest = super::Latest::new();
    let reload = {
        let (q, also) = (q.clone(), also.clone());
        move || {
            let ticket = latest.ask();
            let query = TrendViewQuery {
                trend: q.clone(),
                also: also.clone(),
                from: Some(from.get_untracked()),
                to: Some(to.get_untracked()),
                selected: Some(selected.get_untracked()),
                good: None,
                bad: None,
            };
            leptos::task::spawn_local(async move {
                let answer = get_trend_view(query).await;
                if !latest.is_latest(ticket) {
                    return;
                }
                match answer {
                    Ok(Some(v)) => {
                        detail.set(v.point.clone());
                        data.set(v);
                    }
                    Ok(None) => {}
                    Err(e) => status.set(format!("Could not draw the trend: {e}")),
                }
            });
        }
    };
    // The selected commit's runs, fetched when the selection moves to another commit.
    {
        let q = q.clone();
        Effect::new(move |_| {
            let i = selected.get();
            if detail.with_untracked(|d| d.as_ref().is_some_and(|p| p.x == i)) {
                return;
            }
            let q = q.clone();
            leptos::task::spawn_local(async move {
                if let Ok(p) = get_trend_point(q, i).await {
                    if selected.get_untracked() == i {
                        detail.set(p);
                    }
                }
            });
        });
    }
    // Whether this reader may mark (signed in with the mark scope, or an open instance),
    // asked once the page runs in the browser; until the answer comes, the server decides.
    let may_mark = RwSignal::new(None::<bool>);
    Effect::new(move |_| {
        leptos::task::spawn_local(async move {
            let can = crate::api::get_whoami().await.map(|w| w.can_mark).ok();
            may_mark.set(can);
        });
    });
    let set_mark = {
        let (q, reload) = (q.clone(), reload.clone());
        move |mark: Option<Mark>| {
            if may_mark.get_untracked() == Some(false) {
                status.set(
                    "Marking commits needs a sign-in with a token that has the mark scope (Sign in, at the top right)."
                        .to_owned(),
                );
                return;
            }
            let i = selected.get_untracked();
            let known = detail.with_untracked(|d| {
                d.as_ref()
                    .filter(|p| p.x == i)
                    .map(|p| p.runs.iter().map(|r| r.id).collect::<Vec<i64>>())
            });
            let (q, reload) = (q.clone(), reload.clone());
            leptos::task::spawn_local(async move {
                let runs = match known {
                    Some(runs) => runs,
                    None => match get_trend_point(q, i).await {
                        Ok(Some(p)) => p.runs.iter().map(|r| r.id).collect(),
                        _ => return,
                    },
                };
                match mark_runs(runs, mark).await {
                    Ok(()) => {
                        status.set(match mark {
                            Some(m) => format!("Marked the selected commit {}.", m.as_str()),
                            None => "Unmarked the selected commit.".to_owned(),
                        });
                        reload();
                    }
                    Err(e) => status.set(format!("Could not mark: {e}")),
                }
            });
        }
    };
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        let Some(key) = super::shortcut(&ev) else {
            return;
        };
        match key.as_str() {
            "j" if n > 0 => selected.update(|s| *s = (*s + 1).min(n - 1)),
            "k" => selected.update(|s| *s = s.saturating_sub(1)),
            "g" => set_mark(Some(Mark::Good)),
            "b" => set_mark(Some(Mark::Bad)),
            "s" => set_mark(Some(Mark::Skip)),
            "u" => set_mark(None),
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());
    let range_view =
        alert_range.map(|text| view! { <p id="alert-range" class="alert-range">{text}</p> });
    let mut href = trend_href(&q);
    for o in &also {
        href.push_str(&format!("&also={}", encode(o)));
    }
    let details = move || {
        let p = detail.get()?;
        Some(view! {
            <dl id="trend-selected" class="facts" data-x=p.x>
                <dt>"Commit"</dt><dd class="mono">{p.sha.clone().unwrap_or_else(|| "(none)".into())}</dd>
                <dt>"Subject"</dt><dd>{p.subject.clone().unwrap_or_default()}</dd>
                <dt>"Kernel"</dt><dd>{p.kernel.clone()}</dd>
                <dt>"Mean"</dt><dd>{format!("{} (min {}, max {}, n={})", crate::types::format_value(p.mean), crate::types::format_value(p.min), crate::types::format_value(p.max), p.n)}</dd>
                <dt>"Mark"</dt><dd id="trend-selected-mark">{p.mark.map_or("none", Mark::as_str)}</dd>
                <dt>"Runs"</dt><dd>{p.runs.iter().map(|r| view! { <a href=format!("/runs/{}", r.id)>{format!("#{} ", r.id)}</a> }).collect_view()}</dd>
            </dl>
        })
    };
    let marks = move || {
        data.with(|d| {
            d.marks
                .iter()
                .map(|m| {
                    let x = m.x;
                    view! {
                        <li data-x=x data-mark=m.mark.as_str() class=mark_class(Some(m.mark))>
                            <a href="#" on:click=move |ev| { ev.prevent_default(); selected.set(x); }>{m.label.clone()}</a>
                            {format!(" {}{}", m.mark.as_str(), if m.first_bad { " (first bad commit)" } else { "" })}
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let changes = move || {
        data.with(|d| {
            d.changes
                .iter()
                .map(|c| {
                    let x = c.x;
                    view! {
                        <li data-x=x class=c.verdict.clone()>
                            <a href="#" on:click=move |ev| { ev.prevent_default(); selected.set(x); }>{c.label.clone()}</a>
                            {c.text.clone()}
                            " · " <a href=c.compare.clone()>"compare before/after"</a>
                            {c.report.clone().map(|r| view! { " · " <a class="report" href=r>"LKP report"</a> })}
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let chart = move || {
        data.with(|d| match &d.figure {
            Ok(f) => figure_view(f, Some(selected)),
            Err(e) => view! { <p class="error">{e.clone()}</p> }.into_any(),
        })
    };
    let (title, order) = data.with_untracked(|d| (d.title.clone(), d.order.clone()));
    let report = data.with_untracked(|d| d.report.clone());
    let noise = move || data.with(|d| d.noise.clone());
    let advice = move || data.with(|d| d.advice.clone());
    let zoom = {
        let reload = reload.clone();
        move || reload()
    };
    let zoom_to = zoom.clone();
    view! {
        // Whether the marking keys work here, once the browser knows (for tests and styles).
        <span id="may-mark" hidden=true
            data-may=move || may_mark.get().map(|m| if m { "yes" } else { "no" })></span>
        <section id="trend" data-points=n>
            <p class="meta">
                <strong>{title}</strong>
                {format!(" of {} on {}, ordered by {order}", q.benchmark, q.machine)}
                {(!also.is_empty()).then(|| format!(" · with {}", also.join(", ")))}
                " · " <a id="trend-link" href=href.clone()>"Link to this view"</a>
                " · " <a href=format!("{}&format=svg", href.replace("/trend?", "/api/v1/trend?")) download="trend.svg">"SVG"</a>
            </p>
            {range_view}
            <div class="actions">
                <button type="button" id="show-svg" on:click=move |_| ascii.set(false) class:active=move || !ascii.get()>"Chart"</button>
                <button type="button" id="show-ascii" on:click=move |_| ascii.set(true) class:active=move || ascii.get()>"ASCII"</button>
                <label>"From " <input type="range" id="range-from" min="0" max=axis - 1 prop:value=move || from.get()
                    on:change=move |ev| { from.set(event_target_value(&ev).parse().unwrap_or(0)); zoom(); } /></label>
                <label>"to " <input type="range" id="range-to" min="0" max=axis - 1 prop:value=move || to.get()
                    on:change=move |ev| { to.set(event_target_value(&ev).parse().unwrap_or(axis - 1)); zoom_to(); } /></label>
                <span id="trend-status" class="muted" role="status">{move || status.get()}</span>
            </div>
            <div class="trend-grid">
                <div>
                    <div class:hidden=move || ascii.get()>{chart}</div>
                    <pre id="trend-ascii" class="ascii" class:hidden=move || !ascii.get()>{move || data.with(|d| d.ascii.clone())}</pre>
                    <p class="muted small">"Keys: j / k select the next / previous commit, g b s mark its runs good, bad or skip, u unmarks. Click a point to select it."</p>
                </div>
                <aside>
                    <h2>"Selected"</h2>
                    {details}
                    <h2>"Marks"</h2>
                    <ul id="trend-marks">{marks}</ul>
                    <h2>"Change points"</h2>
                    <ul id="trend-changes">{changes}</ul>
                    <h2>"Noise"</h2>
                    <p id="trend-noise" class="small">{noise}</p>
                    <p id="trend-advice" class="small">{move || advice().map(|a| format!("Newest step: {a}."))}</p>
                    <p class="muted small">"The grey band on the chart is the newest level ± 2 standard deviations of a commit's mean. "
                        <a href="/calibration">"A/A calibration"</a></p>
                    {report.map(|r| view! { <ReportPanel query=r /> })}
                </aside>
            </div>
        </section>
    }
}

/// The robot's mail for the first change point: shown on demand, copied with a click.
#[component]
fn ReportPanel(query: ReportQuery) -> impl IntoView {
    let path = query.path();
    let report = RwSignal::new(None::<Result<String, String>>);
    let status = RwSignal::new(String::new());
    let show = move |_| {
        let query = query.clone();
        leptos::task::spawn_local(async move {
            report.set(Some(get_report(query).await.map_err(|e| e.to_string())));
        });
    };
    let copy = move |_| {
        if let Some(Ok(text)) = report.get_untracked() {
            copy_to_clipboard("report", text, status);
        }
    };
    view! {
        <h2>"Regression report"</h2>
        <p class="actions">
            <button type="button" id="show-report" on:click=show>"Show the report"</button>
            <button type="button" id="copy-report" on:click=copy disabled=move || !matches!(report.get(), Some(Ok(_)))>"Copy"</button>
            <a href=path>"as text"</a>
            <span id="report-status" class="muted" role="status">{move || status.get()}</span>
        </p>
        {move || report.get().map(|r| match r {
            Ok(text) => view! { <pre id="trend-report" class="ascii">{text}</pre> }.into_any(),
            Err(e) => error_view(e),
        })}
    }
}
