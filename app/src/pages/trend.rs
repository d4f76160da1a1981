//! The trend page (`/trend?benchmark=B&machine=M&metric=X&param=P`): a metric by commit as SVG
//! or ASCII, bisect marks set with the keyboard (`j`/`k` move, `g`/`b`/`s` mark, `u` unmarks),
//! and the marks and change points beside it. All of its state is in the query string.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::dashboard::encode;
use super::{copy_to_clipboard, error_view, loading, select_options};
use crate::api::{get_compare_choices, get_report, get_trend, get_trend_choices, mark_runs};
use crate::chart::{Drawn, TrendChart};
use crate::trend::{lttb, Mark, ReportQuery, Trend, TrendQuery};

fn query_from_map(map: &leptos_router::params::ParamsMap) -> TrendQuery {
    TrendQuery {
        benchmark: map.get("benchmark").unwrap_or_default(),
        machine: map.get("machine").unwrap_or_default(),
        metric: map.get("metric").unwrap_or_default(),
        param: map.get("param").unwrap_or_default(),
        history: map.get("history").filter(|h| !h.is_empty()),
    }
}

/// The URL of this view.
fn trend_href(q: &TrendQuery) -> String {
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

#[component]
pub fn TrendPage() -> impl IntoView {
    let query_map = use_query_map();
    let query = Memo::new(move |_| query_from_map(&query_map.read()));
    // Bumped after a mark is set, to fetch the trend again.
    let version = RwSignal::new(0u32);
    let selected = RwSignal::new(0usize);
    let ascii = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    // With `param=*`: all params on one chart (`overlay=1`) instead of small multiples.
    let overlay = Memo::new(move |_| query_map.read().get("overlay").as_deref() == Some("1"));
    // Other machines to draw on the same axis (`also=M`, repeated).
    let also = Memo::new(move |_| {
        query_map
            .read()
            .get_all("also")
            .unwrap_or_default()
            .into_iter()
            .filter(|m| !m.is_empty())
            .take(11)
            .collect::<Vec<String>>()
    });
    let trend = Resource::new(
        move || (query.get(), also.get(), version.get()),
        |(q, also, _)| async move {
            if q.benchmark.is_empty()
                || q.machine.is_empty()
                || q.metric.is_empty()
                || q.param == ALL
            {
                return Ok::<_, ServerFnError>(None);
            }
            let mut others = Vec::new();
            for machine in also.into_iter().filter(|m| *m != q.machine) {
                let other = TrendQuery {
                    machine,
                    ..q.clone()
                };
                others.push(get_trend(other).await?);
            }
            Ok(Some((get_trend(q).await?, others)))
        },
    );
    // `param=*`: every param of the metric, as small multiples.
    let multiples = Resource::new(
        move || query.get(),
        |q| async move {
            if q.param != ALL || q.benchmark.is_empty() || q.machine.is_empty() {
                return Ok(Vec::new());
            }
            let pairs = get_trend_choices(q.benchmark.clone(), q.machine.clone()).await?;
            let mut out = Vec::new();
            for (m, p) in pairs.into_iter().filter(|(m, _)| *m == q.metric) {
                let one = TrendQuery {
                    param: p,
                    metric: m,
                    ..q.clone()
                };
                out.push(get_trend(one).await?);
            }
            Ok::<_, ServerFnError>(out)
        },
    );
    // The runs of the selected commit and how many commits there are.
    let selected_runs = move || -> Option<(usize, Vec<i64>)> {
        trend.with(|t| {
            let (t, _) = t.as_ref()?.as_ref().ok()?.as_ref()?;
            let p = t.points.get(selected.get_untracked())?;
            Some((t.points.len(), p.runs.iter().map(|r| r.id).collect()))
        })
    };
    // Whether this reader may mark (signed in with the mark scope, or an open instance),
    // asked once the page runs in the browser; until the answer comes, the server decides.
    let may_mark = RwSignal::new(None::<bool>);
    Effect::new(move |_| {
        leptos::task::spawn_local(async move {
            let can = crate::api::get_whoami().await.map(|w| w.can_mark).ok();
            may_mark.set(can);
        });
    });
    let set_mark = move |mark: Option<Mark>| {
        if may_mark.get_untracked() == Some(false) {
            status.set(
                "Marking commits needs a sign-in with a token that has the mark scope (Sign in, at the top right)."
                    .to_owned(),
            );
            return;
        }
        let Some((_, runs)) = selected_runs() else {
            return;
        };
        leptos::task::spawn_local(async move {
            match mark_runs(runs, mark).await {
                Ok(()) => {
                    status.set(match mark {
                        Some(m) => format!("Marked the selected commit {}.", m.as_str()),
                        None => "Unmarked the selected commit.".to_owned(),
                    });
                    version.update(|v| *v += 1);
                }
                Err(e) => status.set(format!("Could not mark: {e}")),
            }
        });
    };
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        let Some(key) = super::shortcut(&ev) else {
            return;
        };
        let n = selected_runs().map_or(0, |(n, _)| n);
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
    view! {
        <h1>"Trends by commit"</h1>
        // Whether the marking keys work here, once the browser knows (for tests and styles).
        <span id="may-mark" hidden=true
            data-may=move || may_mark.get().map(|m| if m { "yes" } else { "no" })></span>
        <TrendForm initial=query.get_untracked() also=also.get_untracked() />
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match multiples.await {
                    Ok(all) if !all.is_empty() => {
                        let q = query.get_untracked();
                        let one_chart = overlay.get_untracked();
                        let switch = if one_chart {
                            view! { <a id="as-multiples" href=trend_href(&q)>"Small multiples"</a> }
                        } else {
                            view! { <a id="as-one-chart" href=format!("{}&overlay=1", trend_href(&q))>"All params on one chart"</a> }
                        };
                        let body = if one_chart {
                            let chart = TrendChart {
                                series: all.iter().map(|t| (format!("{} {}", t.query.metric, t.query.param), t)).collect(),
                                window: None,
                                max_points: 1500,
                                size: (W, H),
                            };
                            match chart.draw() {
                                Ok(drawn) => {
                                    let names: Vec<String> = chart.series.iter().map(|(n, _)| n.clone()).collect();
                                    let trends: Vec<&Trend> = all.iter().collect();
                                    view! { <div id="trend-overlay">{chart_view(drawn, &names, &trends, None)}</div> }.into_any()
                                }
                                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                            }
                        } else {
                            view! {
                                <div id="trend-multiples" class="multiples">
                                    {all.iter().map(small_chart).collect_view()}
                                </div>
                            }.into_any()
                        };
                        view! { <p class="meta">{switch}</p> {body} }.into_any()
                    }
                    Ok(_) => ().into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match trend.await {
                    Ok(Some((t, others))) => view! { <TrendView t=t others=others selected=selected ascii=ascii status=status /> }.into_any(),
                    Ok(None) => view! {
                        <p class="muted">"Pick a benchmark, a machine and a metric."</p>
                    }.into_any(),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

#[component]
fn TrendForm(initial: TrendQuery, also: Vec<String>) -> impl IntoView {
    let benchmark = RwSignal::new(initial.benchmark.clone());
    let machine = RwSignal::new(initial.machine.clone());
    let choices = Resource::new(
        move || (benchmark.get(), machine.get()),
        |(b, m)| async move {
            let c = get_compare_choices(
                (!b.is_empty()).then_some(b.clone()),
                (!m.is_empty()).then_some(m.clone()),
            )
            .await?;
            let series = if b.is_empty() || m.is_empty() {
                Vec::new()
            } else {
                get_trend_choices(b, m).await?
            };
            Ok::<_, ServerFnError>((c, series))
        },
    );
    let chosen = format!("{}\u{1f}{}", initial.metric, initial.param);
    let metric = RwSignal::new(initial.metric.clone());
    let param = RwSignal::new(initial.param.clone());
    view! {
        <form id="trend-form" method="get" action="/trend" class="form">
            <Suspense fallback=loading>
                {move || {
                    let chosen = chosen.clone();
                    let also = also.clone();
                    Suspend::new(async move {
                    match choices.await {
                        Ok((c, series)) => view! {
                            <label for="benchmark">"Benchmark"</label>
                            <select id="benchmark" name="benchmark" on:change=move |ev| benchmark.set(event_target_value(&ev))>
                                <option value="">"—"</option>
                                {select_options(c.benchmarks, &benchmark.get_untracked())}
                            </select>
                            <label for="machine">"Machine"</label>
                            <select id="machine" name="machine" on:change=move |ev| machine.set(event_target_value(&ev))>
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
                        }.into_any(),
                        Err(e) => error_view(e),
                    }
                })}}
            </Suspense>
            <input type="hidden" name="metric" prop:value=move || metric.get() value=initial.metric.clone() />
            <input type="hidden" name="param" prop:value=move || param.get() value=initial.param.clone() />
            <div></div>
            <button type="submit" id="trend-submit">"Show"</button>
        </form>
    }
}

/// The `param` that asks for every param of the metric.
const ALL: &str = "*";

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
        t.query.metric.clone()
    } else {
        format!("{} @ {}", t.query.metric, t.query.param)
    };
    view! {
        <figure class="small-multiple" data-param=t.query.param.clone()>
            <a href=trend_href(&t.query)>
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

/// The chart's size in pixels.
const W: u32 = 900;
const H: u32 = 340;

/// What hovering a point says.
fn tooltip(series: &str, p: &crate::trend::TrendPoint) -> String {
    format!(
        "{series} #{}: {}{}\nkernel {}\nmean {} (min {}, max {}, n={}){}",
        p.x,
        p.sha.clone().unwrap_or_else(|| "(no commit)".into()),
        p.subject
            .as_ref()
            .map(|s| format!(" {s}"))
            .unwrap_or_default(),
        p.kernel,
        crate::types::format_value(p.mean),
        crate::types::format_value(p.min),
        crate::types::format_value(p.max),
        p.n,
        p.mark
            .map(|m| format!("\nmarked {}", m.as_str()))
            .unwrap_or_default()
    )
}

/// A chart drawn by plotters (`app::chart`), shown as an image (so that nothing in it can
/// run), with a transparent layer over it that puts a tooltip and a click target on every drawn
/// point. With `selected`, the first series' points can be selected and show their marks.
fn chart_view(
    drawn: Drawn,
    names: &[String],
    trends: &[&Trend],
    selected: Option<RwSignal<usize>>,
) -> AnyView {
    let src = crate::chart::svg_data_url(&drawn.svg);
    let alt = format!("{} by commit", trends[0].title());
    let hits = drawn
        .hits
        .iter()
        .map(|h| {
            let p = &trends[h.series].points[h.point];
            let title = tooltip(&names[h.series], p);
            if h.series > 0 || selected.is_none() {
                return view! {
                    <circle class="peer" cx=h.px cy=h.py r="5" data-series=h.series data-x=p.x>
                        <title>{title}</title>
                    </circle>
                }
                .into_any();
            }
            let i = h.point;
            let (mark, first_bad) = (p.mark, p.first_bad);
            let class = move || {
                format!(
                    "point {}{}{}",
                    mark_class(mark),
                    if first_bad { " first-bad" } else { "" },
                    if selected.is_some_and(|s| s.get() == i) {
                        " selected"
                    } else {
                        ""
                    }
                )
            };
            view! {
                <circle class=class cx=h.px cy=h.py r="6" data-x=i
                    on:click=move |_| if let Some(s) = selected { s.set(i) }>
                    <title>{title}</title>
                </circle>
            }
            .into_any()
        })
        .collect_view();
    let id = selected.map(|_| "trend-svg");
    view! {
        <div class="chart-box" style=format!("max-width: {}px", drawn.width)>
            <img class="trend-chart" src=src alt=alt width=drawn.width height=drawn.height />
            <svg id=id class="overlay" viewBox=format!("0 0 {} {}", drawn.width, drawn.height) role="presentation">
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

fn short(p: &crate::trend::TrendPoint) -> String {
    p.sha
        .as_ref()
        .map_or_else(|| p.kernel.clone(), |s| s.chars().take(12).collect())
}

#[component]
fn TrendView(
    t: Trend,
    /// Other machines' trends of the same metric, drawn on the same commit axis.
    others: Vec<Trend>,
    selected: RwSignal<usize>,
    ascii: RwSignal<bool>,
    status: RwSignal<String>,
) -> impl IntoView {
    if t.points.is_empty() {
        return view! { <p class="muted">"No runs."</p> }.into_any();
    }
    let n = t.points.len();
    if selected.get_untracked() >= n {
        selected.set(n - 1);
    }
    // The commits on the axis (more than this trend's when other machines ran other commits).
    let axis = {
        let mut all = vec![&t];
        all.extend(others.iter());
        crate::chart::shared_axis(&all).0.len()
    };
    // The range shown (a range selector; all by default).
    let from = RwSignal::new(0usize);
    let to = RwSignal::new(axis - 1);
    // An alert's commit range (`good=` and `bad=`, full or abbreviated shas, or kernels):
    // the first bad commit selected, the chart zoomed to the commits around it.
    let range = {
        let map = use_query_map();
        let map = map.read_untracked();
        let find = |name: &str| -> Option<(usize, String)> {
            let want = map.get(name).filter(|v| !v.is_empty())?;
            let i = t.points.iter().position(|p| {
                p.kernel == want
                    || p.sha
                        .as_deref()
                        .is_some_and(|s| want.len() >= 7 && s.starts_with(want.as_str()))
            })?;
            Some((i, want))
        };
        find("bad").map(|(bad, bad_name)| (bad, bad_name, find("good")))
    };
    if let Some((bad, _, _)) = &range {
        selected.set(*bad);
        if others.is_empty() {
            from.set(bad.saturating_sub(60));
            to.set((bad + 30).min(axis - 1));
        }
    }
    let range_view = range.map(|(_, bad, good)| {
        let good = good.map_or_else(|| "?".to_owned(), |(_, g)| g);
        view! {
            <p id="alert-range" class="alert-range">
                {format!("Alert range: last good {good} → first bad {bad} (selected; the chart shows the commits around it)")}
            </p>
        }
    });
    let text = t.ascii(80, 20);
    let mut href = trend_href(&t.query);
    for o in &others {
        href.push_str(&format!("&also={}", encode(&o.query.machine)));
    }
    let report_for = t.change_points.first().and_then(|c| {
        let before = t.points.get(c.x.checked_sub(1)?)?;
        Some((before.sha.clone()?, t.points[c.x].sha.clone()?))
    });
    let t = StoredValue::new(t);
    let others = StoredValue::new(others);
    let chart = move || {
        t.with_value(|t| {
            others.with_value(|others| {
                let mut series = vec![(t.query.machine.clone(), t)];
                series.extend(others.iter().map(|o| (o.query.machine.clone(), o)));
                let chart = TrendChart {
                    series,
                    window: Some((from.get(), to.get())),
                    max_points: 1500,
                    size: (W, H),
                };
                match chart.draw() {
                    Ok(drawn) => {
                        let names: Vec<String> =
                            chart.series.iter().map(|(n, _)| n.clone()).collect();
                        let trends: Vec<&Trend> = chart.series.iter().map(|(_, t)| *t).collect();
                        chart_view(drawn, &names, &trends, Some(selected))
                    }
                    Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                }
            })
        })
    };
    let details = move || {
        t.with_value(|t| {
            let p = t.points.get(selected.get())?.clone();
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
        })
    };
    let (marks, changes) = t.with_value(|t| {
        let q = &t.query;
        let marks = t.points.iter().filter(|p| p.mark.is_some()).map(|p| {
            let x = p.x;
            view! {
                <li data-x=x data-mark=p.mark.map(Mark::as_str).unwrap_or_default() class=mark_class(p.mark)>
                    <a href="#" on:click=move |ev| { ev.prevent_default(); selected.set(x); }>{short(p)}</a>
                    {format!(" {}{}", p.mark.map(Mark::as_str).unwrap_or_default(), if p.first_bad { " (first bad commit)" } else { "" })}
                </li>
            }
        }).collect_view();
        let changes = t.change_points.iter().map(|c| {
            let before = &t.points[c.x.saturating_sub(1)];
            let after = &t.points[c.x];
            let compare = format!(
                "/compare?benchmark={}&machine={}&kernels={},{}&metric={}",
                encode(&q.benchmark), encode(&q.machine), encode(&before.kernel), encode(&after.kernel), encode(&q.metric)
            );
            let report = match (&before.sha, &after.sha) {
                (Some(base), Some(bad)) => Some(format!(
                    "/api/v1/report?benchmark={}&machine={}&base={}&bad={}",
                    encode(&q.benchmark), encode(&q.machine), encode(base), encode(bad)
                )),
                _ => None,
            };
            let x = c.x;
            view! {
                <li data-x=x class=c.verdict.clone()>
                    <a href="#" on:click=move |ev| { ev.prevent_default(); selected.set(x); }>{short(after)}</a>
                    {format!(" {} {:+.1}% ({} → {})", c.verdict, c.change_pct, crate::types::format_value(c.before), crate::types::format_value(c.after))}
                    " · " <a href=compare>"compare before/after"</a>
                    {report.map(|r| view! { " · " <a class="report" href=r>"LKP report"</a> })}
                </li>
            }
        }).collect_view();
        (marks, changes)
    });
    view! {
        <section id="trend" data-points=n>
            <p class="meta">
                <strong>{t.with_value(Trend::title)}</strong>
                {t.with_value(|t| format!(" of {} on {}, ordered by {}", t.query.benchmark, t.query.machine, t.order))}
                {others.with_value(|o| (!o.is_empty()).then(|| format!(" · with {}", o.iter().map(|t| t.query.machine.as_str()).collect::<Vec<_>>().join(", "))))}
                " · " <a id="trend-link" href=href.clone()>"Link to this view"</a>
                " · " <a href=format!("{}&format=svg", href.replace("/trend?", "/api/v1/trend?")) download="trend.svg">"SVG"</a>
            </p>
            {range_view}
            <div class="actions">
                <button type="button" id="show-svg" on:click=move |_| ascii.set(false) class:active=move || !ascii.get()>"Chart"</button>
                <button type="button" id="show-ascii" on:click=move |_| ascii.set(true) class:active=move || ascii.get()>"ASCII"</button>
                <label>"From " <input type="range" id="range-from" min="0" max=axis - 1 prop:value=move || from.get()
                    on:input=move |ev| from.set(event_target_value(&ev).parse().unwrap_or(0)) /></label>
                <label>"to " <input type="range" id="range-to" min="0" max=axis - 1 prop:value=move || to.get()
                    on:input=move |ev| to.set(event_target_value(&ev).parse().unwrap_or(axis - 1)) /></label>
                <span id="trend-status" class="muted" role="status">{move || status.get()}</span>
            </div>
            <div class="trend-grid">
                <div>
                    <div class:hidden=move || ascii.get()>{chart}</div>
                    <pre id="trend-ascii" class="ascii" class:hidden=move || !ascii.get()>{text}</pre>
                    <p class="muted small">"Keys: j / k select the next / previous commit, g b s mark its runs good, bad or skip, u unmarks. Click a point to select it."</p>
                </div>
                <aside>
                    <h2>"Selected"</h2>
                    {details}
                    <h2>"Marks"</h2>
                    <ul id="trend-marks">{marks}</ul>
                    <h2>"Change points"</h2>
                    <ul id="trend-changes">{changes}</ul>
                    {report_for.map(|(base, bad)| t.with_value(|t| view! { <ReportPanel q=t.query.clone() base=base bad=bad /> }))}
                </aside>
            </div>
        </section>
    }
    .into_any()
}

/// The robot's mail for the first change point: shown on demand, copied with a click.
#[component]
fn ReportPanel(q: TrendQuery, base: String, bad: String) -> impl IntoView {
    let query = ReportQuery {
        benchmark: q.benchmark,
        machine: q.machine,
        base,
        bad,
    };
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
