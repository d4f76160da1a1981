// SPDX-License-Identifier: GPL-3.0-or-later
//! Server functions: how the pages get their data. On the server they call the [`Backend`]
//! provided as context by the `server` crate; in the browser they are HTTP calls to it.

use leptos::prelude::*;

use crate::compare::Comparison;
#[cfg(feature = "ssr")]
use crate::error::PageError;
use crate::error::PageResult;
use crate::needs;
#[cfg(feature = "ssr")]
use crate::trend::TrendQuery;
use crate::trend::{Mark, ReportQuery, TrendForm};
use crate::types::*;

/// What the pages need from the server. Implemented by the `server` crate over its store, so
/// that this crate never sees SQL.
#[cfg(feature = "ssr")]
#[async_trait::async_trait]
pub trait Backend: Send + Sync + 'static {
    async fn dashboard(&self) -> PageResult<Dashboard>;
    async fn run(&self, id: i64) -> PageResult<Option<RunDetail>>;
    async fn upload(&self, id: i64) -> PageResult<Option<UploadDetail>>;
    async fn compare_choices(
        &self,
        benchmark: Option<String>,
        machine: Option<String>,
    ) -> PageResult<CompareChoices>;
    async fn compare(&self, query: CompareQuery) -> PageResult<Comparison>;
    async fn permalink(&self, id: String) -> PageResult<Comparison>;
    async fn trend(&self, query: TrendQuery) -> PageResult<crate::trend::Trend>;
    /// The (metric, param) pairs of a benchmark on a machine.
    async fn trend_choices(
        &self,
        benchmark: String,
        machine: String,
    ) -> PageResult<Vec<(String, String)>>;
    /// A type-to-search picker's matches.
    async fn metric_matches(&self, search: MetricSearch) -> PageResult<MetricMatches>;
    async fn mark_runs(&self, runs: Vec<i64>, mark: Option<Mark>) -> PageResult<()>;
    /// Who is asking (signed in or not) and what they may write.
    async fn whoami(&self) -> PageResult<Who>;
    /// Deletes an upload (admin).
    async fn delete_upload(&self, id: i64) -> PageResult<()>;
    /// Corrects a run's names (admin); empty fields are left as they are. What changed.
    async fn correct_run(&self, id: i64, fix: RunFix) -> PageResult<String>;
    /// The LKP-style regression mail of `bad` against `base`, ending with `link`.
    async fn report(&self, query: ReportQuery, link: String) -> PageResult<String>;
    /// Alert summaries matching a filter, newest first.
    async fn alerts(
        &self,
        filter: crate::alerts::AlertFilter,
    ) -> PageResult<crate::alerts::AlertPage>;
    /// One alert summary with its events.
    async fn alert(&self, id: i64) -> PageResult<crate::alerts::AlertSummary>;
    /// A triage change (scope `mark`).
    async fn triage_alert(
        &self,
        id: i64,
        patch: crate::alerts::AlertPatch,
    ) -> PageResult<crate::alerts::AlertSummary>;
    /// The series with A/A runs, noisiest first.
    async fn calibration(&self) -> PageResult<crate::noise::Calibration>;
    /// One bisection, advanced, with its events.
    async fn bisection(&self, id: i64) -> PageResult<crate::bisection::Bisection>;
    /// Starts a bisection of alert summary `alert` (scope `mark`): its id.
    async fn start_bisection(&self, alert: i64) -> PageResult<i64>;

    // The admin's console (`/admin`): each refuses a reader who is not an admin.
    /// Every token, never the tokens themselves.
    async fn admin_tokens(&self) -> PageResult<Vec<crate::console::TokenRow>>;
    /// Makes a token: the secret, shown this once.
    async fn admin_create_token(
        &self,
        form: crate::console::NewTokenForm,
    ) -> PageResult<crate::console::IssuedToken>;
    /// Revokes token `id` (its sessions end with it).
    async fn admin_revoke_token(&self, id: i64) -> PageResult<()>;
    /// The alert rules, as a table and as the editor's JSON.
    async fn admin_rules(&self) -> PageResult<crate::console::RuleSet>;
    /// What the rules in `json` would have raised over the last days of stored series.
    async fn admin_preview_rules(&self, json: String) -> PageResult<crate::console::RulePreview>;
    /// Replaces the alert rules with those in `json`.
    async fn admin_save_rules(&self, json: String) -> PageResult<crate::console::RuleSet>;
    /// The webhooks and mail settings, without secrets.
    async fn admin_notify(&self) -> PageResult<crate::console::NotifySettings>;
    /// A page of the audit trail.
    async fn admin_audit(
        &self,
        search: crate::console::AuditSearch,
    ) -> PageResult<crate::console::AuditPage>;
    /// The differential profile of a comparison's two columns (`/profile`).
    async fn profile(&self, query: CompareQuery) -> PageResult<crate::profile::Profile>;
    /// Every benchmark of a tree (`benchmark=*`), a page of them from `offset` (issue 54).
    async fn compare_tree(
        &self,
        query: CompareQuery,
        offset: usize,
    ) -> PageResult<crate::tree::TreeReport>;
    /// A comparison of two LKP jobs laid out as lkp-tests' table (one page of it); `None`
    /// when the comparison is not of two LKP jobs' runs.
    async fn lkp_compare(
        &self,
        query: crate::lkp_view::LkpQuery,
    ) -> PageResult<Option<crate::lkp_view::LkpCompare>>;
    /// The commit picker's matches.
    async fn commit_matches(
        &self,
        search: crate::lkp_view::CommitSearch,
    ) -> PageResult<crate::lkp_view::CommitMatches>;
    /// A page of the robot's stored report mails (`/reports`).
    async fn lkp_reports(
        &self,
        search: crate::reports::ReportSearch,
    ) -> PageResult<crate::reports::ReportList>;
    /// One stored report section with its links (`/reports/{id}`).
    async fn lkp_report(&self, id: i64) -> PageResult<crate::reports::ReportDetail>;
    /// Every report that named a commit, and the lab's findings (`/commits/{sha}`).
    async fn commit_reports(&self, commit: String) -> PageResult<crate::reports::CommitPage>;
}

#[cfg(feature = "ssr")]
pub type SharedBackend = std::sync::Arc<dyn Backend>;

/// JSON answers read as text. Leptos reads the islands' props with `serde_json::from_str`;
/// its default JSON codec reads answers with `from_slice`, a second reader, so every type both
/// ways had its decoder twice in the WASM (72 KB of `deserialize_struct` before `wasm-opt`).
pub struct TextJsonEncoding;

impl server_fn::ContentType for TextJsonEncoding {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl server_fn::FormatType for TextJsonEncoding {
    const FORMAT_TYPE: server_fn::Format = server_fn::Format::Text;
}

impl<T: serde::Serialize> server_fn::Encodes<T> for TextJsonEncoding {
    type Error = serde_json::Error;

    fn encode(output: &T) -> Result<server_fn::Bytes, Self::Error> {
        serde_json::to_vec(output).map(server_fn::Bytes::from)
    }
}

impl<T: serde::de::DeserializeOwned> server_fn::Decodes<T> for TextJsonEncoding {
    type Error = serde_json::Error;

    fn decode(bytes: server_fn::Bytes) -> Result<T, Self::Error> {
        let text = std::str::from_utf8(&bytes).map_err(serde::de::Error::custom)?;
        serde_json::from_str(text)
    }
}

/// The server functions' answers: JSON in a `POST`'s answer, read as text.
pub type TextJson = server_fn::codec::Post<TextJsonEncoding>;

#[cfg(feature = "ssr")]
fn backend() -> PageResult<SharedBackend> {
    use_context::<SharedBackend>().ok_or_else(|| PageError::Internal {
        request_id: "-".into(),
    })
}

#[server(prefix = "/sfn", endpoint = "delete_upload", output = TextJson)]
pub async fn delete_upload(id: i64) -> PageResult<()> {
    backend()?.delete_upload(id).await
}
needs!(DeleteUpload, Admin);

#[server(prefix = "/sfn", endpoint = "correct_run", output = TextJson)]
pub async fn correct_run(id: i64, fix: RunFix) -> PageResult<String> {
    backend()?.correct_run(id, fix).await
}
needs!(CorrectRun, Admin);

#[server(prefix = "/sfn", endpoint = "whoami", output = TextJson)]
pub async fn get_whoami() -> PageResult<Who> {
    backend()?.whoami().await
}
needs!(GetWhoami, Read);

#[server(prefix = "/sfn", endpoint = "dashboard", output = TextJson)]
pub async fn get_dashboard() -> PageResult<Dashboard> {
    backend()?.dashboard().await
}
needs!(GetDashboard, Read);

#[server(prefix = "/sfn", endpoint = "calibration", output = TextJson)]
pub async fn get_calibration() -> PageResult<crate::noise::Calibration> {
    backend()?.calibration().await
}
needs!(GetCalibration, Read);

#[server(prefix = "/sfn", endpoint = "bisection", output = TextJson)]
pub async fn get_bisection(id: i64) -> PageResult<crate::bisection::Bisection> {
    backend()?.bisection(id).await
}
needs!(GetBisection, Read);

/// How far a bisection has come, for its page to follow it: the state, the runs so far and
/// the events (a small answer: the browser deserialises only this).
#[server(prefix = "/sfn", endpoint = "bisection_progress", output = TextJson)]
pub async fn get_bisection_progress(
    id: i64,
) -> PageResult<(crate::bisection::BisectionState, u32, usize)> {
    let b = backend()?.bisection(id).await?;
    Ok((b.state, b.runs_total, b.events.len()))
}
needs!(GetBisectionProgress, Read);

/// The alert page's "Bisect" button.
#[server(prefix = "/sfn", endpoint = "start_bisection", output = TextJson)]
pub async fn start_bisection(alert: i64) -> PageResult<i64> {
    backend()?.start_bisection(alert).await
}
needs!(StartBisection, Mark);

#[server(prefix = "/sfn", endpoint = "run", output = TextJson)]
pub async fn get_run(id: i64) -> PageResult<Option<RunDetail>> {
    backend()?.run(id).await
}
needs!(GetRun, Read);

#[server(prefix = "/sfn", endpoint = "upload", output = TextJson)]
pub async fn get_upload(id: i64) -> PageResult<Option<UploadDetail>> {
    backend()?.upload(id).await
}
needs!(GetUpload, Read);

#[server(prefix = "/sfn", endpoint = "compare_choices", output = TextJson)]
pub async fn get_compare_choices(
    benchmark: Option<String>,
    machine: Option<String>,
) -> PageResult<CompareChoices> {
    backend()?.compare_choices(benchmark, machine).await
}
needs!(GetCompareChoices, Read);

#[server(prefix = "/sfn", endpoint = "compare", output = TextJson)]
pub async fn get_compare(query: CompareQuery) -> PageResult<Comparison> {
    backend()?.compare(query).await
}
needs!(GetCompare, Read);

#[server(prefix = "/sfn", endpoint = "permalink", output = TextJson)]
pub async fn get_permalink(id: String) -> PageResult<Comparison> {
    backend()?.permalink(id).await
}
needs!(GetPermalink, Read);

/// The trend page's form as a query, parsed here at the edge (`None` until it names a trend).
#[cfg(feature = "ssr")]
fn trend_of(form: &TrendForm) -> PageResult<Option<TrendQuery>> {
    form.parse().map_err(PageError::BadRequest)
}

/// The trend page's view of a trend (`None` until benchmark, machine and metric are chosen):
/// the chart drawn here, the marks, the change points and the selected commit.
#[server(prefix = "/sfn", endpoint = "trend_view", output = TextJson)]
pub async fn get_trend_view(
    query: crate::trend::TrendViewQuery,
) -> PageResult<Option<crate::trend::TrendView>> {
    let Some(q) = trend_of(&query.trend)? else {
        return Ok(None);
    };
    let backend = backend()?;
    let mut others = Vec::new();
    for machine in query.also.iter().filter(|m| **m != q.machine).take(11) {
        let machine = crate::label::Label::parse(machine)
            .map_err(|e| PageError::BadRequest(format!("machine {e}")))?;
        others.push(backend.trend(q.on(machine)).await?);
    }
    let t = backend.trend(q).await?;
    Ok(Some(crate::trend_page::view(&t, &others, &query)))
}
needs!(GetTrendView, Read);

/// One point of a trend with its runs: the trend page's selected commit.
#[server(prefix = "/sfn", endpoint = "trend_point", output = TextJson)]
pub async fn get_trend_point(
    query: TrendForm,
    index: usize,
) -> PageResult<Option<crate::trend::TrendPoint>> {
    let Some(query) = trend_of(&query)? else {
        return Ok(None);
    };
    let t = backend()?.trend(query).await?;
    Ok(t.points.into_iter().nth(index))
}
needs!(GetTrendPoint, Read);

/// Every param of a metric (`param=*`), and with `overlay` all of them drawn on one chart.
#[server(prefix = "/sfn", endpoint = "trend_multiples", output = TextJson)]
pub async fn get_trend_multiples(
    query: TrendForm,
    overlay: bool,
) -> PageResult<crate::trend::TrendMultiples> {
    let query = query.parse_any_param().map_err(PageError::BadRequest)?;
    let backend = backend()?;
    let pairs = backend
        .trend_choices(query.benchmark.to_string(), query.machine.to_string())
        .await?;
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
        // Stored params were parsed at upload; one that no longer parses is left out.
        let Ok(param) = crate::label::Param::parse(&param) else {
            continue;
        };
        trends.push(backend.trend(query.at(param)).await?);
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

#[server(prefix = "/sfn", endpoint = "trend_choices", output = TextJson)]
pub async fn get_trend_choices(
    benchmark: String,
    machine: String,
) -> PageResult<Vec<(String, String)>> {
    backend()?.trend_choices(benchmark, machine).await
}
needs!(GetTrendChoices, Read);

/// What a type-to-search metric picker offers for the text typed so far.
#[server(prefix = "/sfn", endpoint = "metric_matches", output = TextJson)]
pub async fn get_metric_matches(search: MetricSearch) -> PageResult<MetricMatches> {
    backend()?.metric_matches(search).await
}
needs!(GetMetricMatches, Read);

#[server(prefix = "/sfn", endpoint = "alerts", output = TextJson)]
pub async fn get_alerts(
    filter: crate::alerts::AlertFilter,
) -> PageResult<crate::alerts::AlertPage> {
    backend()?.alerts(filter).await
}
needs!(GetAlerts, Read);

#[server(prefix = "/sfn", endpoint = "alert", output = TextJson)]
pub async fn get_alert(id: i64) -> PageResult<crate::alerts::AlertSummary> {
    backend()?.alert(id).await
}
needs!(GetAlert, Read);

/// Triage from the alerts page: its a/i/f keys and the note form.
#[server(prefix = "/sfn", endpoint = "triage_alert", output = TextJson)]
pub async fn triage_alert(
    id: i64,
    patch: crate::alerts::AlertPatch,
) -> PageResult<crate::alerts::AlertSummary> {
    backend()?.triage_alert(id, patch).await
}
needs!(TriageAlert, Mark);

/// Marks (or with `None` unmarks) runs; the trend page's g/b/s keys.
#[server(prefix = "/sfn", endpoint = "mark_runs", output = TextJson)]
pub async fn mark_runs(runs: Vec<i64>, mark: Option<Mark>) -> PageResult<()> {
    backend()?.mark_runs(runs, mark).await
}
needs!(MarkRuns, Mark);

/// The origin (`http://host:port`) the user reached this server at, for the curl examples.
#[server(prefix = "/sfn", endpoint = "origin", output = TextJson)]
pub async fn get_origin() -> PageResult<String> {
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
#[server(prefix = "/sfn", endpoint = "report", output = TextJson)]
pub async fn get_report(query: ReportQuery) -> PageResult<String> {
    let link = format!("{}{}", origin(), query.path());
    backend()?.report(query, link).await
}
needs!(GetReport, Read);

// The admin's console: every one needs `admin`, over HTTP (the scope table) and when a page
// calls it on the server (the backend checks the reader itself).

#[server(prefix = "/sfn", endpoint = "admin_tokens", output = TextJson)]
pub async fn get_admin_tokens() -> PageResult<Vec<crate::console::TokenRow>> {
    backend()?.admin_tokens().await
}
needs!(GetAdminTokens, Admin);

#[server(prefix = "/sfn", endpoint = "admin_create_token", output = TextJson)]
pub async fn admin_create_token(
    form: crate::console::NewTokenForm,
) -> PageResult<crate::console::IssuedToken> {
    backend()?.admin_create_token(form).await
}
needs!(AdminCreateToken, Admin);

#[server(prefix = "/sfn", endpoint = "admin_revoke_token", output = TextJson)]
pub async fn admin_revoke_token(id: i64) -> PageResult<()> {
    backend()?.admin_revoke_token(id).await
}
needs!(AdminRevokeToken, Admin);

#[server(prefix = "/sfn", endpoint = "admin_rules", output = TextJson)]
pub async fn get_admin_rules() -> PageResult<crate::console::RuleSet> {
    backend()?.admin_rules().await
}
needs!(GetAdminRules, Admin);

#[server(prefix = "/sfn", endpoint = "admin_preview_rules", output = TextJson)]
pub async fn admin_preview_rules(json: String) -> PageResult<crate::console::RulePreview> {
    backend()?.admin_preview_rules(json).await
}
needs!(AdminPreviewRules, Admin);

/// How many rules are now in force. (The editor reloads its page to show them: answering
/// the rules themselves put their decoder in the WASM for one number.)
#[server(prefix = "/sfn", endpoint = "admin_save_rules", output = TextJson)]
pub async fn admin_save_rules(json: String) -> PageResult<usize> {
    Ok(backend()?.admin_save_rules(json).await?.rows.len())
}
needs!(AdminSaveRules, Admin);

#[server(prefix = "/sfn", endpoint = "admin_notify", output = TextJson)]
pub async fn get_admin_notify() -> PageResult<crate::console::NotifySettings> {
    backend()?.admin_notify().await
}
needs!(GetAdminNotify, Admin);

#[server(prefix = "/sfn", endpoint = "admin_audit", output = TextJson)]
pub async fn get_admin_audit(
    search: crate::console::AuditSearch,
) -> PageResult<crate::console::AuditPage> {
    backend()?.admin_audit(search).await
}
needs!(GetAdminAudit, Admin);
/// The profile page's answer: the perf-profile keys of two kernels' or commits' runs, and the
/// flame graph of the folded stacks uploaded beside them.
#[server(prefix = "/sfn", endpoint = "profile", output = TextJson)]
pub async fn get_profile(query: CompareQuery) -> PageResult<crate::profile::Profile> {
    backend()?.profile(query).await
}
needs!(GetProfile, Read);
/// The whole tree's page (`/compare?benchmark=*`): a page of its benchmarks from `offset`.
#[server(prefix = "/sfn", endpoint = "compare_tree", output = TextJson)]
pub async fn get_compare_tree(
    query: CompareQuery,
    offset: usize,
) -> PageResult<crate::tree::TreeReport> {
    backend()?.compare_tree(query, offset).await
}
needs!(GetCompareTree, Read);
/// A comparison of two LKP jobs as lkp-tests' table, or `None` when it is not one.
#[server(prefix = "/sfn", endpoint = "lkp_compare", output = TextJson)]
pub async fn get_lkp_compare(
    query: crate::lkp_view::LkpQuery,
) -> PageResult<Option<crate::lkp_view::LkpCompare>> {
    backend()?.lkp_compare(query).await
}
needs!(GetLkpCompare, Read);

/// What the type-to-search commit picker offers for the text typed so far.
#[server(prefix = "/sfn", endpoint = "commit_matches", output = TextJson)]
pub async fn get_commit_matches(
    search: crate::lkp_view::CommitSearch,
) -> PageResult<crate::lkp_view::CommitMatches> {
    backend()?.commit_matches(search).await
}
needs!(GetCommitMatches, Read);

/// A page of the robot's stored report mails.
#[server(prefix = "/sfn", endpoint = "lkp_reports", output = TextJson)]
pub async fn get_lkp_reports(
    search: crate::reports::ReportSearch,
) -> PageResult<crate::reports::ReportList> {
    backend()?.lkp_reports(search).await
}
needs!(GetLkpReports, Read);

/// One stored report section with what its page links to.
#[server(prefix = "/sfn", endpoint = "lkp_report", output = TextJson)]
pub async fn get_lkp_report(id: i64) -> PageResult<crate::reports::ReportDetail> {
    backend()?.lkp_report(id).await
}
needs!(GetLkpReport, Read);

/// Every report that named a commit, and what the lab has of it.
#[server(prefix = "/sfn", endpoint = "commit_reports", output = TextJson)]
pub async fn get_commit_reports(commit: String) -> PageResult<crate::reports::CommitPage> {
    backend()?.commit_reports(commit).await
}
needs!(GetCommitReports, Read);
