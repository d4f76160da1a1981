// SPDX-License-Identifier: GPL-3.0-or-later
//! Trends as a service: the runs of one metric in commit order, their marks, and the change
//! points. `build` is the pure computation, `cache` keeps computed trends and rendered bodies
//! per store generation, `answer` renders them (and puts several on one chart), `report`
//! writes the LKP robot's regression mail; the parsers of `git log` and `git bisect log` are
//! in `ingest::history`.

mod answer;
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
pub use answer::{change_line, Across, Body, Rendered};
pub use build::build;
pub(crate) use build::names;
pub use cache::TrendCache;
pub(crate) use report::{headline, kpi_direction};

/// How many of a trend's newest commits choose the history it is ordered by, when it names none.
const HISTORY_CHOOSERS: usize = 200;

impl Services {
    /// The trend of `query`, from the cache when nothing was written since it was computed:
    /// [`Services::trends_of`] of one.
    pub async fn trend(&self, query: TrendQuery) -> Result<Arc<Trend>, ServiceError> {
        let mut one = self.trends_of(vec![query]).await?;
        one.pop()
            .unwrap_or_else(|| Err(ServiceError::Internal(anyhow::anyhow!("no trend computed"))))
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

    /// The trends of several series, each from the cache or computed with what they share
    /// read once: the series of one benchmark on one machine by one
    /// [`crate::store::Store::trend_runs_of`], the commit marks and each history choice once for
    /// all, and every trend built on one blocking thread. How the alert detector reads the
    /// series an upload queued. In the order of `queries`; a series without runs is
    /// `NotFound`, as [`Services::trend`] answers it.
    pub async fn trends_of(
        &self,
        queries: Vec<TrendQuery>,
    ) -> Result<Vec<Result<Arc<Trend>, ServiceError>>, ServiceError> {
        let generation = self.store.generation().await?;
        let mut out: Vec<Option<Result<Arc<Trend>, ServiceError>>> = queries
            .iter()
            .map(|q| {
                self.metrics
                    .cache("trend", self.trend_cache.get_trend(q, generation))
                    .map(Ok)
            })
            .collect();
        let missing: Vec<usize> = (0..queries.len()).filter(|&i| out[i].is_none()).collect();
        if !missing.is_empty() {
            let wanted: Vec<TrendQuery> = missing.iter().map(|&i| queries[i].clone()).collect();
            let computed = crate::services::heavy::stage(
                tracing::info_span!("trend", series = wanted.len()),
                self.compute_trends(wanted),
            )
            .await?;
            for (i, trend) in missing.into_iter().zip(computed) {
                out[i] = Some(trend.map(|t| {
                    let t = Arc::new(t);
                    self.trend_cache
                        .put_trend(queries[i].clone(), generation, t.clone());
                    t
                }));
            }
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// [`Services::trends_of`] without the cache.
    async fn compute_trends(
        &self,
        queries: Vec<TrendQuery>,
    ) -> Result<Vec<Result<Trend, ServiceError>>, ServiceError> {
        // The series of each benchmark and machine, read together.
        let groups = crate::services::groups_in_order(
            queries
                .iter()
                .map(|q| (q.benchmark.as_str(), q.machine.as_str())),
        );
        let mut runs_of: Vec<Option<crate::store::TrendRuns>> = Vec::new();
        runs_of.resize_with(queries.len(), || None);
        for group in &groups {
            let first = &queries[group[0]];
            let series: Vec<(&str, &str)> = group
                .iter()
                .map(|&i| (queries[i].metric.as_str(), queries[i].param.as_str()))
                .collect();
            let read = self
                .store
                .trend_runs_of(&first.benchmark, &first.machine, &series)
                .await?;
            for (&i, runs) in group.iter().zip(read) {
                runs_of[i] = Some(runs);
            }
        }
        // Series mostly share their runs' commits, which choose one history.
        type Chooser = (Option<(String, String)>, Vec<String>);
        let mut histories: std::collections::HashMap<Chooser, Option<Arc<_>>> =
            std::collections::HashMap::new();
        let mut jobs = Vec::with_capacity(queries.len());
        let mut out: Vec<Option<Result<Trend, ServiceError>>> = Vec::new();
        for (query, runs) in queries.iter().zip(runs_of) {
            let runs = runs.unwrap_or_default();
            if runs.is_empty() {
                out.push(Some(Err(ServiceError::NotFound(
                    self.no_such_metric(query).await?,
                ))));
                continue;
            }
            // The newest runs' commits choose the history (they tell branches apart best).
            let mut shas: Vec<String> = Vec::new();
            let newest_first = runs.chunks.iter().rev().flat_map(|c| c.iter().rev());
            for c in newest_first.filter_map(|r| r.commit.as_deref()) {
                if shas.len() == HISTORY_CHOOSERS {
                    break;
                }
                if shas.last().map(String::as_str) != Some(c) {
                    shas.push(c.to_owned());
                }
            }
            let wanted = query
                .history
                .as_ref()
                .map(|h| (h.repo().to_owned(), h.branch().to_owned()));
            let chooser = (wanted, shas);
            let history = match histories.get(&chooser) {
                Some(h) => h.clone(),
                None => {
                    let wanted = chooser.0.as_ref().map(|(r, b)| (r.as_str(), b.as_str()));
                    let chosen: Vec<&str> = chooser.1.iter().map(String::as_str).collect();
                    let h = self.store.history_for(wanted, &chosen).await?;
                    histories.insert(chooser, h.clone());
                    h
                }
            };
            if let (Some(name), None) = (&query.history, &history) {
                out.push(Some(Err(ServiceError::NotFound(format!(
                    "no history {name}; upload one with POST /api/v1/commits?repo=R&branch=B"
                )))));
                continue;
            }
            out.push(None);
            jobs.push((query.clone(), runs, history));
        }
        // The marks people uploaded, under those of each series' newest bisection.
        let marks = self.store.commit_marks().await?;
        let series_marks = self.store.series_marks().await?;
        let built = self
            .heavy
            .run(move || {
                jobs.into_iter()
                    .map(|(query, runs, history)| {
                        let key = (
                            query.benchmark.as_str().to_owned(),
                            query.machine.as_str().to_owned(),
                            query.metric.as_str().to_owned(),
                            query.param.as_str().to_owned(),
                        );
                        match series_marks.get(&key) {
                            Some(own) => {
                                build(query, &runs, history.as_deref(), &marks.overlaid(own))
                            }
                            None => build(query, &runs, history.as_deref(), &marks),
                        }
                    })
                    .collect::<Vec<Trend>>()
            })
            .await?;
        let mut built = built.into_iter();
        Ok(out
            .into_iter()
            .map(|o| {
                o.unwrap_or_else(|| {
                    built.next().ok_or_else(|| {
                        ServiceError::Internal(anyhow::anyhow!("a trend was not built"))
                    })
                })
            })
            .collect())
    }
}
