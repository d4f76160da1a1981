// SPDX-License-Identifier: GPL-3.0-or-later
//! Type-to-search metric pickers: an input whose list of matches the server filters as the
//! user types (KPIs first, at most fifty), chosen with the arrow keys and Enter or a click —
//! a job's 5,000 metrics are never all sent to the browser. An ARIA combobox.

use leptos::prelude::*;

use crate::api::get_metric_matches;
use crate::types::{MetricMatch, MetricMatches, MetricSearch};

/// The combobox. `on_text` hears every change of the text, as `(text, "")` while typing and
/// as the match's `(metric, param)` when one is chosen. With `name`, the input is a field
/// of its form (holding the metric's name).
#[component]
pub(crate) fn MetricCombo(
    id: String,
    #[prop(optional)] name: Option<String>,
    initial: String,
    benchmark: Signal<String>,
    machine: Signal<String>,
    #[prop(optional)] alerts: bool,
    #[prop(optional)] on_text: Option<Callback<(String, String)>>,
    #[prop(optional)] placeholder: Option<String>,
) -> impl IntoView {
    let text = RwSignal::new(initial);
    let found = RwSignal::new(MetricMatches::default());
    // The text the shown matches answer: answers overtake keystrokes.
    let answered = RwSignal::new(String::new());
    let open = RwSignal::new(false);
    let active = RwSignal::new(None::<usize>);
    let problem = RwSignal::new(String::new());
    let latest = super::Latest::new();
    let ask = move || {
        let search = MetricSearch {
            benchmark: benchmark.get_untracked(),
            machine: machine.get_untracked(),
            alerts,
            text: text.get_untracked(),
        };
        let asked = search.text.clone();
        let ticket = latest.ask();
        leptos::task::spawn_local(async move {
            let answer = get_metric_matches(search).await;
            if !latest.is_latest(ticket) {
                return;
            }
            match answer {
                Ok(m) => {
                    // A match highlighted before this answer stays highlighted if it is
                    // still offered: an arrow key pressed while typing is not lost.
                    let kept = active.get_untracked().and_then(|i| {
                        let was = found.with_untracked(|f| f.matches.get(i).cloned())?;
                        m.matches
                            .iter()
                            .position(|n| n.metric == was.metric && n.param == was.param)
                    });
                    found.set(m);
                    answered.set(asked);
                    problem.set(String::new());
                    active.set(kept);
                    open.set(true);
                }
                Err(e) => problem.set(e.to_string()),
            }
        });
    };
    let named = name.is_some();
    let choose = move |m: &MetricMatch| {
        let shown = if named { m.metric.clone() } else { m.label() };
        text.set(shown);
        if let Some(cb) = on_text {
            cb.run((m.metric.clone(), m.param.clone()));
        }
        open.set(false);
        active.set(None);
    };
    let list_id = format!("{id}-list");
    let option_id = move |i: usize| format!("{}-opt-{i}", list_id.clone());
    let option_ids = option_id.clone();
    let keys = move |ev: leptos::ev::KeyboardEvent| {
        let n = found.with_untracked(|f| f.matches.len());
        if let Some(i) = combo_keys(&ev, n, open, active, ask) {
            if let Some(m) = found.with_untracked(|f| f.matches.get(i).cloned()) {
                choose(&m);
            }
        }
    };
    let list_id = format!("{id}-list");
    let status_id = format!("{id}-status");
    view! {
        <div class="combo">
            <input
                type="search"
                id=id.clone()
                name=name.clone()
                role="combobox"
                autocomplete="off"
                spellcheck="false"
                aria-autocomplete="list"
                aria-controls=list_id.clone()
                aria-describedby=status_id.clone()
                aria-expanded=move || if open.get() { "true" } else { "false" }
                aria-activedescendant=move || active.get().map(&option_ids)
                placeholder=placeholder.unwrap_or_else(|| "type a part of a metric's name".into())
                prop:value=move || text.get()
                value=text.get_untracked()
                on:input=move |ev| {
                    let v = event_target_value(&ev);
                    text.set(v.clone());
                    if let Some(cb) = on_text {
                        cb.run((v, String::new()));
                    }
                    ask();
                }
                on:focus=move |_| ask()
                on:blur=move |_| open.set(false)
                on:keydown=keys
            />
            <ul id=list_id class="combo-list" role="listbox" data-for=move || answered.get() hidden=move || !open.get() || found.with(|f| f.matches.is_empty())>
                {move || {
                    found.with(|f| {
                        f.matches.iter().enumerate().map(|(i, m)| {
                            let m2 = m.clone();
                            let kpi = m.kpi.then(|| view! { <span class="kpi">"KPI"</span> });
                            view! {
                                <li role="option" id=option_id(i)
                                    class=move || if active.get() == Some(i) { "active" } else { "" }
                                    aria-selected=move || if active.get() == Some(i) { "true" } else { "false" }
                                    data-metric=m.metric.clone() data-param=m.param.clone()
                                    // Before the input's blur closes the list.
                                    on:mousedown=move |ev| { ev.prevent_default(); choose(&m2); }>
                                    {m.label()} " " {kpi}
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
                    } else if f.matching > f.matches.len() {
                        format!("{} of {} matches shown (of {} metrics); type more to narrow.", f.matches.len(), f.matching, f.total)
                    } else {
                        format!("{} matches of {} metrics.", f.matching, f.total)
                    }
                })
            }}</span>
        </div>
    }
}

/// The picker as a field of a plain GET form on a page rendered on the server (the alerts
/// filter, the compare page's metric filter): without WebAssembly it is a text field.
#[island]
pub fn MetricSearchField(
    id: String,
    name: String,
    initial: String,
    benchmark: String,
    machine: String,
    alerts: bool,
    placeholder: String,
) -> impl IntoView {
    view! {
        <MetricCombo id=id name=name initial=initial
            benchmark=Signal::stored(benchmark) machine=Signal::stored(machine)
            alerts=alerts placeholder=placeholder />
    }
}

/// The keys a type-to-search list answers: ↓ opens it (`ask`) or moves down, ↑ moves up,
/// Enter on a highlighted match returns its index (otherwise the form is sent as typed),
/// Escape closes it. Shared by the metric and the commit pickers.
pub(super) fn combo_keys(
    ev: &leptos::ev::KeyboardEvent,
    n: usize,
    open: RwSignal<bool>,
    active: RwSignal<Option<usize>>,
    ask: impl Fn(),
) -> Option<usize> {
    match ev.key().as_str() {
        "ArrowDown" => {
            ev.prevent_default();
            if !open.get_untracked() {
                ask();
            } else if n > 0 {
                active.update(|a| *a = Some(a.map_or(0, |i| (i + 1).min(n - 1))));
            }
        }
        "ArrowUp" => {
            ev.prevent_default();
            active.update(|a| *a = a.and_then(|i| i.checked_sub(1)));
        }
        "Enter" => {
            if let (true, Some(i)) = (open.get_untracked(), active.get_untracked()) {
                ev.prevent_default();
                return Some(i);
            }
        }
        "Escape" => {
            open.set(false);
            active.set(None);
        }
        _ => {}
    }
    None
}
