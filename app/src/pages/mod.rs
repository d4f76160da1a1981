// SPDX-License-Identifier: GPL-3.0-or-later
//! The pages. Every one renders on the server first; user text is always rendered as text.

mod admin;
mod alerts;
mod bisection;
mod calibration;
mod compare;
mod console;
mod dashboard;
mod lkp_compare;
mod picker;
mod profile;
// The robot's report mails (issue 56).
mod reports;
mod run;
mod signin;
mod trend;
mod upload;
// The whole tree's page (issue 54).
mod tree;
#[cfg(feature = "ssr")]
pub use tree::{title as tree_title, tree_html};

pub use alerts::AlertsPage;
pub use bisection::{BisectButton, BisectionPage};
pub use calibration::CalibrationPage;
pub use compare::{ComparePage, PermalinkPage};
pub use console::{AdminAuditPage, AdminPage, AdminRulesPage};
pub use dashboard::Dashboard;
pub use profile::ProfilePage;
pub use reports::{CommitReportsPage, ReportPage, ReportsPage};
pub use run::RunView;
pub use signin::{Account, SignInPage};
pub use trend::TrendPage;
pub use upload::{UploadPage, UploadView};

use leptos::prelude::*;

use crate::types::RunSummary;

#[component]
pub fn NotFound() -> impl IntoView {
    set_page_status(404);
    view! {
        <h1>"Not found"</h1>
        <p>"There is no page here. " <a href="/">"Back to the dashboard"</a></p>
    }
}

/// How a page tells the server rendering it its HTTP status (404 for a run that is not
/// there): the server provides it as context; in the browser there is none.
#[derive(Clone)]
pub struct PageStatus(pub std::sync::Arc<dyn Fn(u16) + Send + Sync>);

/// Answers this page with `code` (on the server; nothing in the browser).
pub(crate) fn set_page_status(code: u16) {
    if let Some(PageStatus(set)) = use_context::<PageStatus>() {
        set(code);
    }
}

/// A page about something that is not there: 404, and a way back.
pub(crate) fn not_there(what: String) -> AnyView {
    set_page_status(404);
    view! { <h1>{what}</h1> <p><a href="/">"Back to the dashboard"</a></p> }.into_any()
}

/// Renders a server function error as a visible message.
pub(crate) fn error_view(e: impl std::fmt::Display) -> AnyView {
    view! { <p class="error">{format!("Error: {e}")}</p> }.into_any()
}

/// Keeps the answer to the newest question only: when a page asks the server again before the
/// last answer came (a benchmark picked, then a machine), whichever answer arrives last, the
/// page shows the newest question's.
#[derive(Clone, Copy)]
pub(crate) struct Latest(StoredValue<u64>);

impl Latest {
    pub(crate) fn new() -> Latest {
        Latest(StoredValue::new(0))
    }

    /// A ticket for a new question.
    pub(crate) fn ask(self) -> u64 {
        let ticket = self.0.get_value() + 1;
        self.0.set_value(ticket);
        ticket
    }

    /// Whether `ticket`'s question is still the newest.
    pub(crate) fn is_latest(self, ticket: u64) -> bool {
        self.0.get_value() == ticket
    }
}

/// The `<option>`s of a select, `chosen` selected.
pub(crate) fn select_options(items: Vec<String>, chosen: &str) -> impl IntoView {
    items
        .into_iter()
        .map(|item| {
            let selected = item == chosen;
            let label = item.clone();
            view! { <option value=item selected=selected>{label}</option> }
        })
        .collect_view()
}

/// Copies `text` to the clipboard and says in `status` whether the browser let it.
pub(crate) fn copy_to_clipboard(what: &'static str, text: String, status: RwSignal<String>) {
    #[cfg(feature = "hydrate")]
    {
        let promise = window().navigator().clipboard().write_text(&text);
        leptos::task::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(_) => status.set(format!("Copied the {what}.")),
                Err(_) => status.set(format!(
                    "Could not copy the {what}: the browser refused; select it by hand."
                )),
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = (what, text, status);
    }
}

/// The key of a page shortcut: `None` with a modifier held or while the user types in a field.
pub(crate) fn shortcut(ev: &leptos::ev::KeyboardEvent) -> Option<String> {
    if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
        return None;
    }
    let typing = document()
        .active_element()
        .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
    (!typing).then(|| ev.key())
}

pub(crate) fn loading() -> impl IntoView {
    view! { <p class="muted">"Loading…"</p> }
}

/// A JSON value's text field, or empty (answers the islands read as values).
pub(crate) fn json_text(v: &serde_json::Value, k: &str) -> String {
    v[k].as_str().unwrap_or_default().to_owned()
}

/// What [`RunTable`] shows of a run: a server page's `RunSummary`, or the upload form's answer
/// read as JSON values (its decoder stays out of the browser's WASM).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunRow {
    pub id: i64,
    pub page: String,
    pub benchmark: String,
    pub machine: String,
    pub kernel: String,
    pub commit: Option<String>,
    pub samples: i64,
    pub created_at: String,
}

impl From<RunSummary> for RunRow {
    fn from(r: RunSummary) -> Self {
        RunRow {
            id: r.id,
            page: r.page,
            benchmark: r.benchmark,
            machine: r.machine,
            kernel: r.kernel,
            commit: r.commit,
            samples: r.samples,
            created_at: r.created_at,
        }
    }
}

impl RunRow {
    /// The row of a run's JSON (`RunSummary`'s fields).
    pub(crate) fn of_json(v: &serde_json::Value) -> Self {
        RunRow {
            id: v["id"].as_i64().unwrap_or_default(),
            page: json_text(v, "page"),
            benchmark: json_text(v, "benchmark"),
            machine: json_text(v, "machine"),
            kernel: json_text(v, "kernel"),
            commit: v["commit"].as_str().map(str::to_owned),
            samples: v["samples"].as_i64().unwrap_or_default(),
            created_at: json_text(v, "created_at"),
        }
    }

    /// Each run's row.
    pub(crate) fn of_runs(runs: Vec<RunSummary>) -> Vec<Self> {
        runs.into_iter().map(Self::from).collect()
    }
}

/// A table of runs, used by the dashboard and the upload page.
#[component]
pub(crate) fn RunTable(runs: Vec<RunRow>) -> impl IntoView {
    if runs.is_empty() {
        return view! { <p class="muted">"No runs yet."</p> }.into_any();
    }
    view! {
        <table class="runs">
            <thead>
                <tr>
                    <th>"Run"</th>
                    <th>"Benchmark"</th>
                    <th>"Machine"</th>
                    <th>"Kernel"</th>
                    <th>"Commit"</th>
                    <th class="num">"Samples"</th>
                    <th>"Uploaded"</th>
                </tr>
            </thead>
            <tbody>
                {runs
                    .into_iter()
                    .map(|r| {
                        view! {
                            <tr class="run-row" data-run-id=r.id>
                                <td><a href=r.page.clone()>{format!("#{}", r.id)}</a></td>
                                <td>{r.benchmark}</td>
                                <td>{r.machine}</td>
                                <td>{r.kernel}</td>
                                <td class="mono">{r.commit.unwrap_or_default()}</td>
                                <td class="num">{r.samples}</td>
                                <td>{r.created_at}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

/// Parses a route parameter as a positive id.
pub(crate) fn parse_id(raw: Option<String>) -> Option<i64> {
    raw.and_then(|s| s.parse::<i64>().ok()).filter(|id| *id > 0)
}

/// The filter of a long list of metrics (a compare page's rows, a run's series): a plain GET
/// form to `action`, carrying `hidden` fields, so it works before hydration and by keyboard.
/// With `search` (benchmark, machine), its field is a type-to-search picker once hydrated.
pub fn metric_filter(
    id: &'static str,
    action: String,
    hidden: &[(String, String)],
    filter: String,
    search: Option<(String, String)>,
) -> impl IntoView {
    let hidden = hidden
        .iter()
        .map(|(k, v)| view! { <input type="hidden" name=k.clone() value=v.clone() /> })
        .collect_view();
    let placeholder = "a prefix or part of a name".to_owned();
    let field = match search {
        Some((benchmark, machine)) => view! {
            <picker::MetricSearchField id=format!("{id}-metric") name="filter".to_owned()
                initial=filter benchmark=benchmark machine=machine alerts=false
                placeholder=placeholder />
        }
        .into_any(),
        None => view! {
            <input type="search" name="filter" value=filter placeholder=placeholder
                aria-label="Filter metrics by name" />
        }
        .into_any(),
    };
    view! {
        <form class="rows-filter" id=id method="get" action=action role="search">
            {hidden}
            <label for=format!("{id}-metric")>"Filter metrics "</label>
            {field}
            " "
            <button type="submit">"Filter"</button>
        </form>
    }
}

/// Links to the previous and next pages of a list, where there are such pages.
pub fn prev_next(prev: Option<String>, next: Option<String>) -> impl IntoView {
    let prev =
        prev.map(|href| view! { <a class="rows-prev" rel="prev" href=href>"← Previous"</a> });
    let next = next.map(|href| view! { <a class="rows-next" rel="next" href=href>"Next →"</a> });
    view! { {prev} " " {next} }
}
