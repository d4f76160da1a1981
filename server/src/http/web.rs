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
        for u in recent_uploads
            .iter()
            .filter(|u| u.files.iter().any(|f| f.format == "mmtests"))
        {
            let filter = crate::store::RunFilter {
                upload: Some(u.id),
                ..Default::default()
            };
            let (runs, _) = s.list_runs(&filter, 5_000, 0).await.map_err(page_error)?;
            trees.extend(tree_summaries(u.id, &runs));
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

/// The trees of one mmtests upload, one per machine: its kernels, its benchmarks in the order
/// they ran (`mmtests.position`), and the link to the report of them all.
fn tree_summaries(upload_id: i64, runs: &[RunSummary]) -> Vec<TreeSummary> {
    // Per machine: its kernels, and its benchmarks with where each ran in the tree.
    type Tree = (Vec<String>, Vec<(usize, String)>);
    let mut machines: std::collections::BTreeMap<&str, Tree> = Default::default();
    for r in runs {
        let (kernels, benchmarks) = machines.entry(r.machine.as_str()).or_default();
        if !kernels.contains(&r.kernel) {
            kernels.push(r.kernel.clone());
        }
        let position = r
            .facts
            .iter()
            .find(|(k, _)| k == crate::ingest::mmtests::lines::FACT_POSITION)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(usize::MAX);
        if !benchmarks.iter().any(|(_, b)| *b == r.benchmark) {
            benchmarks.push((position, r.benchmark.clone()));
        }
    }
    machines
        .into_iter()
        .filter(|(_, (_, benchmarks))| benchmarks.len() > 1)
        .map(|(machine, (mut kernels, mut benchmarks))| {
            kernels.sort_by(|a, b| compare_kernels(a, b));
            kernels.truncate(app::label::MAX_KERNELS);
            benchmarks.sort();
            let report = format!(
                "/api/v1/compare?machine={}&benchmark=*&kernels={}&format=html",
                encode(machine),
                kernels
                    .iter()
                    .map(|k| encode(k))
                    .collect::<Vec<_>>()
                    .join(",")
            );
            TreeSummary {
                upload_id,
                machine: machine.to_owned(),
                kernels,
                benchmarks: benchmarks.into_iter().map(|(_, b)| b).collect(),
                report,
            }
        })
        .collect()
}
