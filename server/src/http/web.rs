//! The [`app::api::Backend`] the pages use, implemented over the store and the statistics.

use app::api::Backend;
use app::compare::Comparison;
use app::kernel::compare_kernels;
use app::trend::{Mark, ReportQuery, Trend, TrendQuery};
use app::types::*;

use crate::AppState;

pub struct StoreBackend(pub AppState);

/// What a page is told of an error: the message when it is about the request (an unknown
/// run, a bad name); when the database is busy or anything else failed, the words of the
/// driver stay in the log (with the request id) and the page gets a plain sentence and the
/// API's status (503 with `Retry-After`, or 500).
fn msg(e: impl Into<anyhow::Error>) -> String {
    use crate::http::error::ApiError;
    use crate::store::StoreError;
    let e: anyhow::Error = e.into();
    let store = e.chain().find_map(|c| c.downcast_ref::<StoreError>());
    let api = e.chain().find_map(|c| c.downcast_ref::<ApiError>());
    // An error the API layer already classified: busy, or an internal failure, is the
    // server's; anything else (not found, a bad name) is about the request and said as it is.
    let busy = matches!(
        store,
        Some(StoreError::Busy(_) | StoreError::Unreachable(_))
    ) || matches!(api, Some(ApiError::Unavailable { .. }));
    let failed = busy
        || store.is_some()
        || matches!(api, Some(ApiError::Internal(_)))
        || e.chain()
            .any(<dyn std::error::Error + 'static>::is::<sqlx::Error>);
    if !failed {
        // A page about something that is not there (an unknown permalink or kernel, a
        // deleted one) is answered with the API's status for it: 404, 410, 400...
        if let (Some(api), Some(response)) = (
            api,
            leptos::prelude::use_context::<leptos_axum::ResponseOptions>(),
        ) {
            if api.status().is_client_error() {
                response.set_status(api.status());
            }
        }
        return e.to_string();
    }
    let parts = leptos::prelude::use_context::<axum::http::request::Parts>();
    let request_id = parts
        .as_ref()
        .and_then(|p| p.headers.get("x-request-id"))
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-")
        .to_owned();
    let response = leptos::prelude::use_context::<leptos_axum::ResponseOptions>();
    if busy {
        tracing::warn!(request_id, error = ?e, "the database is busy");
        if let Some(r) = response {
            r.set_status(axum::http::StatusCode::SERVICE_UNAVAILABLE);
            r.insert_header(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
        }
        return match api {
            // Its own sentence (the database is busy, or too many expensive requests).
            Some(a @ ApiError::Unavailable { .. }) => a.to_string(),
            _ if matches!(store, Some(StoreError::Unreachable(_))) => {
                crate::http::error::UNREACHABLE.to_owned()
            }
            _ => crate::http::error::BUSY.to_owned(),
        };
    }
    tracing::error!(request_id, error = ?e, "a page's request failed");
    if let Some(r) = response {
        r.set_status(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    }
    format!("internal error; the server's log has the details (request id {request_id})")
}

impl AppState {
    pub async fn run_detail(&self, id: i64) -> anyhow::Result<Option<RunDetail>> {
        let Some(run) = self.store.run(id).await? else {
            return Ok(None);
        };
        let series = self.store.run_series(id).await?;
        Ok(Some(RunDetail { run, series }))
    }

    pub async fn upload_detail(&self, id: i64) -> anyhow::Result<Option<UploadDetail>> {
        let Some(upload) = self.store.upload(id).await? else {
            return Ok(None);
        };
        let filter = crate::store::RunFilter {
            upload: Some(id),
            ..Default::default()
        };
        let (mut runs, _) = self.store.list_runs(&filter, i64::MAX, 0).await?;
        runs.reverse();
        Ok(Some(UploadDetail { upload, runs }))
    }
}

#[async_trait::async_trait]
impl Backend for StoreBackend {
    async fn dashboard(&self) -> Result<Dashboard, String> {
        let s = &self.0.store;
        // Five queries and a few sorts, the same until the next write: kept per generation.
        let generation = s.generation().await.map_err(msg)?;
        if let Ok(cached) = self.0.dashboard_cache.lock() {
            if let Some((g, d)) = cached.as_ref() {
                if *g == generation {
                    return Ok(d.clone());
                }
            }
        }
        let (recent_runs, _) = s.list_runs(&Default::default(), 20, 0).await.map_err(msg)?;
        let dashboard = Dashboard {
            benchmarks: s.benchmarks().await.map_err(msg)?,
            machines: s.machines().await.map_err(msg)?,
            kernels: s.kernels().await.map_err(msg)?,
            recent_uploads: s.recent_uploads(10).await.map_err(msg)?,
            recent_runs,
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
                .map_err(msg)?
                .summaries,
        };
        if let Ok(mut cached) = self.0.dashboard_cache.lock() {
            *cached = Some((generation, dashboard.clone()));
        }
        Ok(dashboard)
    }

    async fn run(&self, id: i64) -> Result<Option<RunDetail>, String> {
        self.0.run_detail(id).await.map_err(msg)
    }

    async fn upload(&self, id: i64) -> Result<Option<UploadDetail>, String> {
        self.0.upload_detail(id).await.map_err(msg)
    }

    async fn compare_choices(
        &self,
        benchmark: Option<String>,
        machine: Option<String>,
    ) -> Result<CompareChoices, String> {
        let s = &self.0.store;
        let benchmarks = s.benchmarks().await.map_err(msg)?;
        let machines = match &benchmark {
            Some(b) => benchmarks
                .iter()
                .find(|x| &x.name == b)
                .map(|x| x.machines.clone())
                .unwrap_or_default(),
            None => s
                .machines()
                .await
                .map_err(msg)?
                .into_iter()
                .map(|m| m.name)
                .collect(),
        };
        let mut kernels = match (&benchmark, &machine) {
            (Some(b), Some(m)) => s.kernels_for(b, m).await.map_err(msg)?,
            _ => Vec::new(),
        };
        kernels.sort_by(|a, b| compare_kernels(a, b));
        Ok(CompareChoices {
            benchmarks: benchmarks.into_iter().map(|b| b.name).collect(),
            machines,
            kernels,
        })
    }

    async fn compare(&self, query: CompareQuery) -> Result<Comparison, String> {
        Ok(self
            .0
            .compare_live(query, None)
            .await
            .map_err(msg)?
            .comparison
            .clone())
    }

    async fn report(&self, q: ReportQuery, link: String) -> Result<String, String> {
        self.0
            .report(&q.benchmark, &q.machine, &q.base, &q.bad, &link)
            .await
            .map_err(msg)
    }

    async fn trend(&self, query: TrendQuery) -> Result<Trend, String> {
        Ok((*self.0.trend(query).await.map_err(msg)?).clone())
    }

    async fn trend_choices(
        &self,
        benchmark: String,
        machine: String,
    ) -> Result<Vec<(String, String)>, String> {
        let mut pairs = self
            .0
            .store
            .trend_choices(&benchmark, &machine)
            .await
            .map_err(msg)?;
        pairs.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| compare_params(&a.1, &b.1)));
        Ok(pairs)
    }

    async fn mark_runs(&self, runs: Vec<i64>, mark: Option<Mark>) -> Result<(), String> {
        if runs.len() > 1000 {
            return Err("at most 1000 runs at a time".into());
        }
        let actor = actor();
        for id in runs {
            if !self
                .0
                .store
                .set_run_mark(id, mark, &actor)
                .await
                .map_err(msg)?
            {
                return Err(format!("no run {id}"));
            }
        }
        Ok(())
    }

    async fn whoami(&self) -> Result<Who, String> {
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

    async fn alerts(
        &self,
        filter: app::alerts::AlertFilter,
    ) -> Result<app::alerts::AlertPage, String> {
        let filter = crate::services::alerts::parse_filter(&filter).map_err(msg)?;
        self.0.store.alert_summaries(&filter).await.map_err(msg)
    }

    async fn alert(&self, id: i64) -> Result<app::alerts::AlertSummary, String> {
        self.0
            .store
            .alert_summary(id)
            .await
            .map_err(msg)?
            .ok_or_else(|| format!("no alert summary {id}"))
    }

    async fn triage_alert(
        &self,
        id: i64,
        patch: app::alerts::AlertPatch,
    ) -> Result<app::alerts::AlertSummary, String> {
        crate::http::api::alerts::triage(&self.0, id, &patch, &actor())
            .await
            .map_err(msg)
    }

    async fn delete_upload(&self, id: i64) -> Result<(), String> {
        match self
            .0
            .store
            .delete_upload(id, &actor())
            .await
            .map_err(msg)?
        {
            Some(_) => Ok(()),
            None => Err(format!("no upload {id}")),
        }
    }

    async fn correct_run(&self, id: i64, fix: RunFix) -> Result<String, String> {
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
        .map_err(|e| e.message)?;
        self.0
            .store
            .correct_run(id, &correction, &actor())
            .await
            .map_err(msg)?
            .ok_or_else(|| format!("no run {id}"))
    }

    async fn permalink(&self, id: String) -> Result<Comparison, String> {
        Ok(self
            .0
            .compare_permalink(&id, None)
            .await
            .map_err(msg)?
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
