//! Server functions: how the pages get their data. On the server they call the [`Backend`]
//! provided as context by the `server` crate; in the browser they are HTTP calls to it.

use leptos::prelude::*;

use crate::compare::Comparison;
use crate::needs;
use crate::trend::{Mark, ReportQuery, TrendQuery};
use crate::types::*;

/// What the pages need from the server. Implemented by the `server` crate over its store, so
/// that this crate never sees SQL.
#[cfg(feature = "ssr")]
#[async_trait::async_trait]
pub trait Backend: Send + Sync + 'static {
    async fn dashboard(&self) -> Result<Dashboard, String>;
    async fn run(&self, id: i64) -> Result<Option<RunDetail>, String>;
    async fn upload(&self, id: i64) -> Result<Option<UploadDetail>, String>;
    async fn compare_choices(
        &self,
        benchmark: Option<String>,
        machine: Option<String>,
    ) -> Result<CompareChoices, String>;
    async fn compare(&self, query: CompareQuery) -> Result<Comparison, String>;
    async fn permalink(&self, id: String) -> Result<Comparison, String>;
    async fn trend(&self, query: TrendQuery) -> Result<crate::trend::Trend, String>;
    /// The (metric, param) pairs of a benchmark on a machine.
    async fn trend_choices(
        &self,
        benchmark: String,
        machine: String,
    ) -> Result<Vec<(String, String)>, String>;
    async fn mark_runs(&self, runs: Vec<i64>, mark: Option<Mark>) -> Result<(), String>;
    /// Who is asking (signed in or not) and what they may write.
    async fn whoami(&self) -> Result<Who, String>;
    /// Deletes an upload (admin).
    async fn delete_upload(&self, id: i64) -> Result<(), String>;
    /// Corrects a run's names (admin); empty fields are left as they are. What changed.
    async fn correct_run(&self, id: i64, fix: RunFix) -> Result<String, String>;
    /// The LKP-style regression mail of `bad` against `base`, ending with `link`.
    async fn report(&self, query: ReportQuery, link: String) -> Result<String, String>;
    /// Alert summaries matching a filter, newest first.
    async fn alerts(
        &self,
        filter: crate::alerts::AlertFilter,
    ) -> Result<crate::alerts::AlertPage, String>;
    /// One alert summary with its events.
    async fn alert(&self, id: i64) -> Result<crate::alerts::AlertSummary, String>;
    /// A triage change (scope `mark`).
    async fn triage_alert(
        &self,
        id: i64,
        patch: crate::alerts::AlertPatch,
    ) -> Result<crate::alerts::AlertSummary, String>;
}

#[cfg(feature = "ssr")]
pub type SharedBackend = std::sync::Arc<dyn Backend>;

#[cfg(feature = "ssr")]
fn backend() -> Result<SharedBackend, ServerFnError> {
    use_context::<SharedBackend>().ok_or_else(|| ServerFnError::new("no backend in context"))
}

#[server(prefix = "/sfn", endpoint = "delete_upload")]
pub async fn delete_upload(id: i64) -> Result<(), ServerFnError> {
    backend()?
        .delete_upload(id)
        .await
        .map_err(ServerFnError::new)
}
needs!(DeleteUpload, Admin);

#[server(prefix = "/sfn", endpoint = "correct_run")]
pub async fn correct_run(id: i64, fix: RunFix) -> Result<String, ServerFnError> {
    backend()?
        .correct_run(id, fix)
        .await
        .map_err(ServerFnError::new)
}
needs!(CorrectRun, Admin);

#[server(prefix = "/sfn", endpoint = "whoami")]
pub async fn get_whoami() -> Result<Who, ServerFnError> {
    backend()?.whoami().await.map_err(ServerFnError::new)
}
needs!(GetWhoami, Read);

#[server(prefix = "/sfn", endpoint = "dashboard")]
pub async fn get_dashboard() -> Result<Dashboard, ServerFnError> {
    backend()?.dashboard().await.map_err(ServerFnError::new)
}
needs!(GetDashboard, Read);

#[server(prefix = "/sfn", endpoint = "run")]
pub async fn get_run(id: i64) -> Result<Option<RunDetail>, ServerFnError> {
    backend()?.run(id).await.map_err(ServerFnError::new)
}
needs!(GetRun, Read);

#[server(prefix = "/sfn", endpoint = "upload")]
pub async fn get_upload(id: i64) -> Result<Option<UploadDetail>, ServerFnError> {
    backend()?.upload(id).await.map_err(ServerFnError::new)
}
needs!(GetUpload, Read);

#[server(prefix = "/sfn", endpoint = "compare_choices")]
pub async fn get_compare_choices(
    benchmark: Option<String>,
    machine: Option<String>,
) -> Result<CompareChoices, ServerFnError> {
    backend()?
        .compare_choices(benchmark, machine)
        .await
        .map_err(ServerFnError::new)
}
needs!(GetCompareChoices, Read);

#[server(prefix = "/sfn", endpoint = "compare")]
pub async fn get_compare(query: CompareQuery) -> Result<Comparison, ServerFnError> {
    backend()?.compare(query).await.map_err(ServerFnError::new)
}
needs!(GetCompare, Read);

#[server(prefix = "/sfn", endpoint = "permalink")]
pub async fn get_permalink(id: String) -> Result<Comparison, ServerFnError> {
    backend()?.permalink(id).await.map_err(ServerFnError::new)
}
needs!(GetPermalink, Read);

/// The trend page's view of a trend (`None` until benchmark, machine and metric are chosen):
/// the chart drawn here, the marks, the change points and the selected commit.
#[server(prefix = "/sfn", endpoint = "trend_view")]
pub async fn get_trend_view(
    query: crate::trend::TrendViewQuery,
) -> Result<Option<crate::trend::TrendView>, ServerFnError> {
    let q = &query.trend;
    if q.benchmark.is_empty()
        || q.machine.is_empty()
        || q.metric.is_empty()
        || q.param == crate::trend::ALL_PARAMS
    {
        return Ok(None);
    }
    let backend = backend()?;
    let mut others = Vec::new();
    for machine in query.also.iter().filter(|m| **m != q.machine).take(11) {
        let other = TrendQuery {
            machine: machine.clone(),
            ..q.clone()
        };
        others.push(backend.trend(other).await.map_err(ServerFnError::new)?);
    }
    let t = backend.trend(q.clone()).await.map_err(ServerFnError::new)?;
    Ok(Some(crate::trend_page::view(&t, &others, &query)))
}
needs!(GetTrendView, Read);

/// One point of a trend with its runs: the trend page's selected commit.
#[server(prefix = "/sfn", endpoint = "trend_point")]
pub async fn get_trend_point(
    query: TrendQuery,
    index: usize,
) -> Result<Option<crate::trend::TrendPoint>, ServerFnError> {
    let t = backend()?.trend(query).await.map_err(ServerFnError::new)?;
    Ok(t.points.into_iter().nth(index))
}
needs!(GetTrendPoint, Read);

/// Every param of a metric (`param=*`), and with `overlay` all of them drawn on one chart.
#[server(prefix = "/sfn", endpoint = "trend_multiples")]
pub async fn get_trend_multiples(
    query: TrendQuery,
    overlay: bool,
) -> Result<crate::trend::TrendMultiples, ServerFnError> {
    let backend = backend()?;
    let pairs = backend
        .trend_choices(query.benchmark.clone(), query.machine.clone())
        .await
        .map_err(ServerFnError::new)?;
    // As the API's `params=*`: in param order, and no more than one chart shows.
    let mut params: Vec<String> = pairs
        .into_iter()
        .filter(|(m, _)| *m == query.metric)
        .map(|(_, p)| p)
        .collect();
    params.sort_by(|a, b| compare_params(a, b));
    let total = params.len();
    let mut trends = Vec::new();
    for param in params.into_iter().take(crate::trend::MAX_SERIES) {
        let one = TrendQuery {
            param,
            ..query.clone()
        };
        trends.push(backend.trend(one).await.map_err(ServerFnError::new)?);
    }
    let overlay = overlay.then(|| {
        let chart = crate::chart::TrendChart {
            series: trends
                .iter()
                .map(|t| (format!("{} {}", t.query.metric, t.query.param), t))
                .collect(),
            window: None,
            max_points: crate::trend_page::MAX_POINTS,
            size: (crate::trend_page::W, crate::trend_page::H),
        };
        crate::trend_page::figure(&chart)
    });
    Ok(crate::trend::TrendMultiples {
        trends,
        total,
        overlay,
    })
}
needs!(GetTrendMultiples, Read);

#[server(prefix = "/sfn", endpoint = "trend_choices")]
pub async fn get_trend_choices(
    benchmark: String,
    machine: String,
) -> Result<Vec<(String, String)>, ServerFnError> {
    backend()?
        .trend_choices(benchmark, machine)
        .await
        .map_err(ServerFnError::new)
}
needs!(GetTrendChoices, Read);

#[server(prefix = "/sfn", endpoint = "alerts")]
pub async fn get_alerts(
    filter: crate::alerts::AlertFilter,
) -> Result<crate::alerts::AlertPage, ServerFnError> {
    backend()?.alerts(filter).await.map_err(ServerFnError::new)
}
needs!(GetAlerts, Read);

#[server(prefix = "/sfn", endpoint = "alert")]
pub async fn get_alert(id: i64) -> Result<crate::alerts::AlertSummary, ServerFnError> {
    backend()?.alert(id).await.map_err(ServerFnError::new)
}
needs!(GetAlert, Read);

/// Triage from the alerts page: its a/i/f keys and the note form.
#[server(prefix = "/sfn", endpoint = "triage_alert")]
pub async fn triage_alert(
    id: i64,
    patch: crate::alerts::AlertPatch,
) -> Result<crate::alerts::AlertSummary, ServerFnError> {
    backend()?
        .triage_alert(id, patch)
        .await
        .map_err(ServerFnError::new)
}
needs!(TriageAlert, Mark);

/// Marks (or with `None` unmarks) runs; the trend page's g/b/s keys.
#[server(prefix = "/sfn", endpoint = "mark_runs")]
pub async fn mark_runs(runs: Vec<i64>, mark: Option<Mark>) -> Result<(), ServerFnError> {
    backend()?
        .mark_runs(runs, mark)
        .await
        .map_err(ServerFnError::new)
}
needs!(MarkRuns, Mark);

/// The origin (`http://host:port`) the user reached this server at, for the curl examples.
#[server(prefix = "/sfn", endpoint = "origin")]
pub async fn get_origin() -> Result<String, ServerFnError> {
    Ok(origin())
}
needs!(GetOrigin, Read);

/// The server's `--public-url`, given to the pages as context when it is set.
#[derive(Debug, Clone, PartialEq)]
pub struct PublicUrl(pub Option<String>);

/// The `--public-url`, else `http://host` as the request named it.
#[cfg(feature = "ssr")]
fn origin() -> String {
    if let Some(PublicUrl(Some(url))) = use_context::<PublicUrl>() {
        return url;
    }
    let host = use_context::<http::request::Parts>()
        .and_then(|parts| {
            parts
                .headers
                .get(http::header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    format!("http://{host}")
}

/// The regression report of the trend page, with the link to its API form.
#[server(prefix = "/sfn", endpoint = "report")]
pub async fn get_report(query: ReportQuery) -> Result<String, ServerFnError> {
    let link = format!("{}{}", origin(), query.path());
    backend()?
        .report(query, link)
        .await
        .map_err(ServerFnError::new)
}
needs!(GetReport, Read);
