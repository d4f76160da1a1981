//! Trends as a service: the runs of one metric in commit order, their marks, and the change
//! points. `build` is the pure computation, `cache` keeps computed trends and rendered bodies
//! per store generation, `report` writes the LKP robot's regression mail; the parsers of
//! `git log` and `git bisect log` are in `ingest::history`.

mod build;
mod cache;
mod report;

use std::sync::Arc;

use app::trend::{Trend, TrendQuery};

use crate::services::ServiceError;
use crate::services::Services;

pub use crate::ingest::history::{
    parse_bisect_log, parse_git_log, parse_git_log_detailed, BisectVerdicts, MAX_BISECT_VERDICTS,
};
pub use build::build;
pub(crate) use build::names;
pub use cache::TrendCache;

/// How many of a trend's newest commits choose the history it is ordered by, when it names none.
const HISTORY_CHOOSERS: usize = 200;

impl Services {
    /// The trend of `query`, from the cache when nothing was written since it was computed.
    pub async fn trend(&self, query: TrendQuery) -> Result<Arc<Trend>, ServiceError> {
        let generation = self.store.generation().await?;
        if let Some(t) = self
            .metrics
            .cache("trend", self.trend_cache.get_trend(&query, generation))
        {
            return Ok(t);
        }
        let trend = crate::services::work::stage(
            tracing::info_span!("trend"),
            self.compute_trend(query.clone()),
        )
        .await?;
        let trend = Arc::new(trend);
        self.trend_cache.put_trend(query, generation, trend.clone());
        Ok(trend)
    }

    /// Why a trend has no runs, as a sentence that names the nearest metric there is (a robot's
    /// job has thousands; a typo should not mean reading them all).
    async fn no_such_metric(&self, query: &TrendQuery) -> Result<String, ServiceError> {
        let (benchmark, machine) = (query.benchmark.as_str(), query.machine.as_str());
        let choices = self.store.trend_choices(benchmark, machine).await?;
        let (metric, param) = (query.metric.as_str(), query.param.as_str());
        let named = if param.is_empty() {
            format!("a metric named {metric}")
        } else {
            format!("a metric named {metric} at param {param}")
        };
        let nearest = choices.iter().max_by(|a, b| {
            let score = |c: &(String, String)| {
                strsim::jaro_winkler(metric, &c.0) + 0.1 * strsim::jaro_winkler(param, &c.1)
            };
            score(a).total_cmp(&score(b))
        });
        Ok(match nearest {
            None => format!("No runs of {benchmark} on {machine}."),
            Some((m, p)) if p.is_empty() => {
                format!("No runs of {benchmark} on {machine} have {named}; did you mean {m}?")
            }
            Some((m, p)) => format!(
                "No runs of {benchmark} on {machine} have {named}; did you mean {m} at param {p}?"
            ),
        })
    }

    async fn compute_trend(&self, query: TrendQuery) -> Result<Trend, ServiceError> {
        let runs = self
            .store
            .trend_runs(
                &query.benchmark,
                &query.machine,
                &query.metric,
                &query.param,
            )
            .await?;
        if runs.is_empty() {
            return Err(ServiceError::NotFound(self.no_such_metric(&query).await?));
        }
        // The newest runs' commits choose the history (they tell branches apart best).
        let mut shas: Vec<&str> = Vec::new();
        let newest_first = runs.chunks.iter().rev().flat_map(|c| c.iter().rev());
        for c in newest_first.filter_map(|r| r.commit.as_deref()) {
            if shas.len() == HISTORY_CHOOSERS {
                break;
            }
            if shas.last() != Some(&c) {
                shas.push(c);
            }
        }
        let wanted = query.history.as_ref().map(|h| (h.repo(), h.branch()));
        let history = self.store.history_for(wanted, &shas).await?;
        if let (Some(name), None) = (&query.history, &history) {
            return Err(ServiceError::NotFound(format!(
                "no history {name}; upload one with POST /api/v1/commits?repo=R&branch=B"
            )));
        }
        let marks = self.store.commit_marks().await?;
        self.heavy
            .run(move || build(query, &runs, history.as_deref(), &marks))
            .await
    }
}
