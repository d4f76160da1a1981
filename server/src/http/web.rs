// SPDX-License-Identifier: GPL-3.0-or-later
//! The [`app::api::Backend`] the pages use, implemented over the store and the statistics.

use app::api::Backend;
use app::compare::Comparison;
use app::error::{PageError, PageResult};
use app::kernel::compare_kernels;
use app::trend::{Mark, ReportQuery, Trend, TrendQuery};
use app::types::*;

use crate::http::error::ApiError;
use crate::AppState;

pub struct StoreBackend(pub AppState);

/// The page edge: what a page is told of an error. Everything arrives classified as the API
/// would answer it ([`ApiError`]: store and service errors convert into it), and leaves as a
/// [`PageError`] with the same status, set on the page's response here. A failure about the
/// request (an unknown run, a bad name) is said as it is; a busy or unreachable database gets
/// its plain sentence and `Retry-After`; anything else is logged once, with the request id,
/// and the page gets only that id. Driver text never reaches a browser.
fn page_error(e: impl Into<ApiError>) -> PageError {
    let e: ApiError = e.into();
    let response = leptos::prelude::use_context::<leptos_axum::ResponseOptions>();
    let status = e.status();
    if let Some(r) = &response {
        r.set_status(status);
    }
    match e {
        ApiError::NotFound(m) => PageError::NotFound(m),
        ApiError::Gone(m) => PageError::Gone(m),
        ApiError::Conflict(m) => PageError::Conflict(m),
        ApiError::Unauthorized(m) | ApiError::Forbidden(m) => PageError::Forbidden(m),
        ApiError::Unavailable {
            message,
            retry_after,
        }
        | ApiError::TooManyRequests {
            message,
            retry_after,
        } => {
            if let Some(r) = &response {
                r.insert_header(axum::http::header::RETRY_AFTER, retry_after.into());
            }
            PageError::Unavailable(message)
        }
        ApiError::Internal(e) => {
            let request_id = leptos::prelude::use_context::<axum::http::request::Parts>()
                .as_ref()
                .and_then(|p| p.headers.get("x-request-id"))
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-")
                .to_owned();
            tracing::error!(request_id, error = ?e, "a page's request failed");
            PageError::Internal { request_id }
        }
        other => PageError::BadRequest(other.to_string()),
    }
}

/// The series the calibration page lists, noisiest first.
const CALIBRATION_PAGE_ROWS: usize = 200;

#[async_trait::async_trait]
impl Backend for StoreBackend {
    async fn dashboard(&self) -> PageResult<Dashboard> {
        let s = &self.0.store;
        // Five queries and a few sorts, the same until the next write: kept per generation.
        let generation = s.generation().await.map_err(page_error)?;
        // Robots are seen between writes of data: read each time, never cached.
        let mut robots = self.0.robot_list().await.map_err(page_error)?.robots;
        robots.truncate(20);
        if let Ok(cached) = self.0.dashboard_cache.lock() {
            if let Some((g, d)) = cached.as_ref() {
                if *g == generation {
                    return Ok(Dashboard {
                        robots,
                        ..d.clone()
                    });
                }
            }
        }
        let (recent_runs, _) = s
            .list_runs(&Default::default(), 20, 0)
            .await
            .map_err(page_error)?;
        let recent_uploads = s.recent_uploads(10).await.map_err(page_error)?;
        let mut trees = Vec::new();
        // The trees of the recent uploads, and the newest of every machine (issue 54: robots'
        // uploads would push a machine's tree out of the recent ones).
        let mut tree_uploads: Vec<i64> = recent_uploads
            .iter()
            .filter(|u| u.files.iter().any(|f| f.format == "mmtests"))
            .map(|u| u.id)
            .collect();
        tree_uploads.extend(s.newest_tree_uploads(50).await.map_err(page_error)?);
        tree_uploads.sort_unstable_by(|a, b| b.cmp(a));
        tree_uploads.dedup();
        for id in tree_uploads {
            let filter = crate::store::RunFilter {
                upload: Some(id),
                ..Default::default()
            };
            let (runs, _) = s.list_runs(&filter, 5_000, 0).await.map_err(page_error)?;
            trees.extend(app::tree::summaries(id, &runs));
        }
        let dashboard = Dashboard {
            benchmarks: s.benchmarks().await.map_err(page_error)?,
            machines: s.machines().await.map_err(page_error)?,
            kernels: s.kernels().await.map_err(page_error)?,
            recent_uploads,
            recent_runs,
            trees,
            robots: Vec::new(),
            open_regressions: s
                .alert_summaries(&crate::store::SummaryFilter {
                    statuses: Some(vec![
                        app::alerts::AlertStatus::New,
                        app::alerts::AlertStatus::Acknowledged,
                        app::alerts::AlertStatus::Investigating,
                    ]),
                    regression: Some(true),
                    limit: 5,
                    ..Default::default()
                })
                .await
                .map_err(page_error)?
                .summaries,
        };
        if let Ok(mut cached) = self.0.dashboard_cache.lock() {
            *cached = Some((generation, dashboard.clone()));
        }
        let dashboard = Dashboard {
            robots,
            ..dashboard
        };
        Ok(dashboard)
    }

    async fn run(&self, id: i64) -> PageResult<Option<RunDetail>> {
        self.0.run_detail(id).await.map_err(page_error)
    }

    async fn upload(&self, id: i64) -> PageResult<Option<UploadDetail>> {
        self.0.upload_detail(id).await.map_err(page_error)
    }

    async fn compare_choices(
        &self,
        benchmark: Option<String>,
        machine: Option<String>,
    ) -> PageResult<CompareChoices> {
        let s = &self.0.store;
        let benchmarks = s.benchmarks().await.map_err(page_error)?;
        let machines = match &benchmark {
            Some(b) => benchmarks
                .iter()
                .find(|x| &x.name == b)
                .map(|x| x.machines.clone())
                .unwrap_or_default(),
            None => s
                .machines()
                .await
                .map_err(page_error)?
                .into_iter()
                .map(|m| m.name)
                .collect(),
        };
        let mut kernels = match (&benchmark, &machine) {
            (Some(b), Some(m)) => s.kernels_for(b, m).await.map_err(page_error)?,
            _ => Vec::new(),
        };
        kernels.sort_by(|a, b| compare_kernels(a, b));
        Ok(CompareChoices {
            benchmarks: benchmarks.into_iter().map(|b| b.name).collect(),
            machines,
            kernels,
        })
    }

    async fn compare(&self, query: CompareQuery) -> PageResult<Comparison> {
        Ok(self
            .0
            .compare_live(query, None, asker())
            .await
            .map_err(page_error)?
            .comparison
            .clone())
    }

    async fn report(&self, q: ReportQuery, link: String) -> PageResult<String> {
        self.0.report(&q, &link).await.map_err(page_error)
    }

    async fn trend(&self, query: TrendQuery) -> PageResult<Trend> {
        Ok((*self.0.trend(query).await.map_err(page_error)?).clone())
    }

    async fn trend_choices(
        &self,
        benchmark: String,
        machine: String,
    ) -> PageResult<Vec<(String, String)>> {
        let mut pairs = self
            .0
            .store
            .trend_choices(&benchmark, &machine)
            .await
            .map_err(page_error)?;
        pairs.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| compare_params(&a.1, &b.1)));
        Ok(pairs)
    }

    async fn metric_matches(&self, search: MetricSearch) -> PageResult<MetricMatches> {
        self.0.metric_matches(&search).await.map_err(page_error)
    }

    async fn mark_runs(&self, runs: Vec<i64>, mark: Option<Mark>) -> PageResult<()> {
        if runs.len() > 1000 {
            return Err(page_error(ApiError::BadRequest(
                "at most 1000 runs at a time".into(),
            )));
        }
        let actor = actor();
        for id in runs {
            if !self
                .0
                .store
                .set_run_mark(id, mark, &actor)
                .await
                .map_err(page_error)?
            {
                return Err(page_error(ApiError::NotFound(format!("no run {id}"))));
            }
        }
        Ok(())
    }

    async fn whoami(&self) -> PageResult<Who> {
        use crate::http::auth::{AuthMode, Principal, Scope};
        let principal = leptos::prelude::use_context::<axum::http::request::Parts>()
            .and_then(|p| p.extensions.get::<Principal>().cloned());
        let token_mode = self.0.config.auth_mode() == AuthMode::Token;
        let may = |scope: Scope| match &principal {
            Some(Principal::Open) => true,
            Some(Principal::Token { scopes, .. }) => scopes.allow(scope),
            _ => false,
        };
        Ok(Who {
            token_mode,
            name: match &principal {
                Some(Principal::Token { name, .. }) => Some(name.clone()),
                _ => None,
            },
            can_upload: may(Scope::Upload),
            can_mark: may(Scope::Mark),
            is_admin: may(Scope::Admin),
        })
    }

    async fn alerts(&self, filter: app::alerts::AlertFilter) -> PageResult<app::alerts::AlertPage> {
        let filter = crate::services::alerts::parse_filter(&filter).map_err(page_error)?;
        self.0
            .store
            .alert_summaries(&filter)
            .await
            .map_err(page_error)
    }

    async fn calibration(&self) -> PageResult<app::noise::Calibration> {
        self.0
            .calibration(None, None, CALIBRATION_PAGE_ROWS)
            .await
            .map_err(page_error)
    }

    async fn bisection(&self, id: i64) -> PageResult<app::bisection::Bisection> {
        self.0.bisection_view(id).await.map_err(page_error)
    }

    async fn profile(&self, query: CompareQuery) -> PageResult<app::profile::Profile> {
        self.0.profile(query, asker()).await.map_err(page_error)
    }

    async fn lkp_compare(
        &self,
        query: app::lkp_view::LkpQuery,
    ) -> PageResult<Option<app::lkp_view::LkpCompare>> {
        self.0.lkp_compare(query, asker()).await.map_err(page_error)
    }

    async fn commit_matches(
        &self,
        search: app::lkp_view::CommitSearch,
    ) -> PageResult<app::lkp_view::CommitMatches> {
        self.0.commit_matches(&search).await.map_err(page_error)
    }

    async fn lkp_reports(
        &self,
        search: app::reports::ReportSearch,
    ) -> PageResult<app::reports::ReportList> {
        let search = search
            .checked()
            .map_err(|m| page_error(ApiError::BadRequest(m)))?;
        self.0.report_list(search).await.map_err(page_error)
    }

    async fn lkp_report(&self, id: i64) -> PageResult<app::reports::ReportDetail> {
        self.0.report_detail(id).await.map_err(page_error)
    }

    async fn commit_reports(&self, commit: String) -> PageResult<app::reports::CommitPage> {
        self.0.commit_page(&commit).await.map_err(page_error)
    }

    async fn start_bisection(&self, alert: i64) -> PageResult<i64> {
        let new = app::bisection::NewBisection {
            alert: Some(alert),
            ..Default::default()
        };
        self.0
            .start_bisection(&new, &actor())
            .await
            .map(|b| b.id)
            .map_err(page_error)
    }

    async fn alert(&self, id: i64) -> PageResult<app::alerts::AlertSummary> {
        self.0
            .alert_summary(id)
            .await
            .map_err(page_error)?
            .ok_or_else(|| page_error(ApiError::NotFound(format!("no alert summary {id}"))))
    }

    async fn triage_alert(
        &self,
        id: i64,
        patch: app::alerts::AlertPatch,
    ) -> PageResult<app::alerts::AlertSummary> {
        self.0
            .triage(id, &patch, &actor())
            .await
            .map_err(page_error)
    }

    async fn delete_upload(&self, id: i64) -> PageResult<()> {
        match self
            .0
            .store
            .delete_upload(id, &actor())
            .await
            .map_err(page_error)?
        {
            Some(_) => Ok(()),
            None => Err(page_error(ApiError::NotFound(format!("no upload {id}")))),
        }
    }

    async fn correct_run(&self, id: i64, fix: RunFix) -> PageResult<String> {
        // On the page an empty field leaves the run as it is.
        fn given(v: &str) -> Option<&str> {
            Some(v.trim()).filter(|v| !v.is_empty())
        }
        let correction = crate::store::Correction::parse(
            given(&fix.machine),
            given(&fix.kernel),
            given(&fix.commit),
            given(&fix.tags),
        )
        .map_err(|e| page_error(ApiError::BadRequest(e.message)))?;
        self.0
            .store
            .correct_run(id, &correction, &actor())
            .await
            .map_err(page_error)?
            .ok_or_else(|| page_error(ApiError::NotFound(format!("no run {id}"))))
    }

    async fn permalink(&self, id: String) -> PageResult<Comparison> {
        let id =
            app::label::PermalinkId::parse(&id).map_err(|e| page_error(ApiError::NotFound(e)))?;
        Ok(self
            .0
            .compare_permalink(&id, None)
            .await
            .map_err(page_error)?
            .comparison
            .clone())
    }

    // The admin's console: each checks the reader itself (a page calls these on the server,
    // past the scope table).
    async fn admin_tokens(&self) -> PageResult<Vec<app::console::TokenRow>> {
        require_admin()?;
        self.0.store.list_tokens().await.map_err(page_error)
    }

    async fn admin_create_token(
        &self,
        form: app::console::NewTokenForm,
    ) -> PageResult<app::console::IssuedToken> {
        require_admin()?;
        let bad = |m: String| page_error(ApiError::BadRequest(m));
        let name =
            app::label::Label::parse(form.name.trim()).map_err(|e| bad(format!("name {e}")))?;
        let scopes = crate::http::auth::Scopes::parse(&form.scopes).map_err(bad)?;
        if form.expires_days.is_some_and(|d| !(1..=3650).contains(&d)) {
            return Err(bad("expires in 1 to 3650 days (or never)".into()));
        }
        let created = crate::http::auth::issue_token(
            &self.0.store,
            name.as_str(),
            &scopes,
            form.expires_days,
            &actor(),
        )
        .await
        .map_err(page_error)?;
        let Some((id, token)) = created else {
            return Err(page_error(ApiError::Conflict(format!(
                "a token named '{name}' exists; revoke it or choose another name"
            ))));
        };
        Ok(app::console::IssuedToken {
            id,
            name: name.to_string(),
            scopes: scopes.to_string(),
            token,
        })
    }

    async fn admin_revoke_token(&self, id: i64) -> PageResult<()> {
        require_admin()?;
        let live = self
            .0
            .store
            .list_tokens()
            .await
            .map_err(page_error)?
            .into_iter()
            .find(|t| t.id == id && t.revoked_at.is_none());
        let Some(token) = live else {
            return Err(page_error(ApiError::NotFound(format!(
                "no live token {id}"
            ))));
        };
        // By name: a name is unique, and a name made of digits is not taken for an id.
        if self
            .0
            .store
            .revoke_token(&token.name, &actor())
            .await
            .map_err(page_error)?
        {
            Ok(())
        } else {
            Err(page_error(ApiError::NotFound(format!(
                "no live token {id}"
            ))))
        }
    }

    async fn admin_rules(&self) -> PageResult<app::console::RuleSet> {
        require_admin()?;
        let rules = self.0.store.alert_rules().await.map_err(page_error)?;
        Ok(crate::services::console::rule_set(&rules))
    }

    async fn admin_preview_rules(&self, json: String) -> PageResult<app::console::RulePreview> {
        require_admin()?;
        let rules = crate::services::console::parse_rules(&json).map_err(page_error)?;
        self.0.preview_rules(&rules).await.map_err(page_error)
    }

    async fn admin_save_rules(&self, json: String) -> PageResult<app::console::RuleSet> {
        require_admin()?;
        let rules = crate::services::console::parse_rules(&json).map_err(page_error)?;
        self.0
            .store
            .replace_alert_rules(&rules, &actor())
            .await
            .map_err(page_error)?;
        Ok(crate::services::console::rule_set(&rules))
    }

    async fn admin_notify(&self) -> PageResult<app::console::NotifySettings> {
        require_admin()?;
        self.0.notify_settings().await.map_err(page_error)
    }

    async fn admin_audit(
        &self,
        search: app::console::AuditSearch,
    ) -> PageResult<app::console::AuditPage> {
        require_admin()?;
        let filter = crate::store::AuditFilter::of(&search)
            .map_err(|e| page_error(ApiError::BadRequest(e)))?;
        let limit = app::console::AUDIT_PAGE;
        let (entries, total) = self
            .0
            .store
            .audit_search(&filter, limit, search.offset)
            .await
            .map_err(page_error)?;
        Ok(app::console::AuditPage {
            entries: entries
                .into_iter()
                .map(|e| app::console::AuditRow {
                    id: e.id,
                    at: e.at,
                    actor: e.actor,
                    action: e.action,
                    target: e.target,
                    detail: e.detail,
                })
                .collect(),
            total,
            offset: search.offset,
            limit,
        })
    }
    async fn compare_tree(
        &self,
        query: CompareQuery,
        offset: usize,
    ) -> PageResult<app::tree::TreeReport> {
        let report = self
            .0
            .compare_tree(query, None, offset, asker())
            .await
            .map_err(page_error)?;
        Ok(tree_report(&report))
    }
}

/// Refuses a reader who may not administer: anonymous (401, sign in) or a token without the
/// admin scope (403). Deny by default: no principal is no admin.
fn require_admin() -> PageResult<()> {
    use crate::http::auth::{Principal, Scope};
    let principal = leptos::prelude::use_context::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<Principal>().cloned());
    match principal {
        Some(p) if p.may(Scope::Admin) => Ok(()),
        Some(Principal::Token { name, .. }) => Err(page_error(ApiError::Forbidden(format!(
            "token '{name}' may not administer this server: this needs the admin scope"
        )))),
        _ => Err(page_error(ApiError::Unauthorized(
            "sign in with a token that has the admin scope".into(),
        ))),
    }
}

/// A whole tree's report as the page (and its saved copy) shows it.
pub(crate) fn tree_report(report: &crate::services::compare::TreeReport) -> app::tree::TreeReport {
    app::tree::TreeReport {
        query: report.query.clone(),
        sections: report
            .sections
            .iter()
            .map(|c| c.comparison.clone())
            .collect(),
        left_out: report.left_out.clone(),
        benchmarks: report.benchmarks,
        offset: report.offset,
        rest: report
            .rest
            .as_ref()
            .map(|(offset, benchmarks)| app::tree::TreeRest {
                offset: *offset,
                benchmarks: benchmarks.clone(),
            }),
    }
}

/// The principal the access check found for this server function's request, for the audit
/// trail.
fn actor() -> String {
    leptos::prelude::use_context::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<crate::http::auth::Principal>().cloned())
        .map_or_else(|| "open".to_owned(), |p| p.actor().to_owned())
}

/// Who asks for this server function's comparison: a reader without a token makes one of the
/// bounded anonymous permalinks (so does a request whose principal is unknown).
fn asker() -> crate::services::compare::Asker {
    leptos::prelude::use_context::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<crate::http::auth::Principal>().cloned())
        .map_or(crate::services::compare::Asker::Anonymous, |p| p.asker())
}
