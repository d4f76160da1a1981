// SPDX-License-Identifier: GPL-3.0-or-later
//! The LKP robot's regression mail: the changed metrics between two commits and their trends.

use app::label::{Direction, Label, Metric, Param};
use app::trend::{ReportQuery, TrendQuery};

use super::names;
use crate::ingest::known;
use crate::services::ServiceError;
use crate::services::Services;

/// lkp-tests' comparison of two commits: its header, its printed rows, and the stored
/// (metric, param) of each key that is not its metric alone.
type LkpRows = (
    lkp::Header,
    Vec<lkp::Row>,
    std::collections::HashMap<String, (String, String)>,
);

impl Services {
    /// lkp-tests' rows (byte for byte its table) for `bad` against `base`.
    async fn lkp_rows(&self, q: &ReportQuery) -> Result<LkpRows, ServiceError> {
        let (benchmark, machine) = (q.benchmark.as_str(), q.machine.as_str());
        let (base, bad) = (q.base.to_string(), q.bad.to_string());
        let started = std::time::Instant::now();
        let mut series = self
            .store
            .commit_series(benchmark, machine, [&base, &bad])
            .await?;
        let read = started.elapsed();
        series.retain_mut(|s| {
            let matches = |c: &str| names(c, &s.kernel) || names(&s.kernel, c);
            if matches(&bad) {
                s.kernel = bad.clone();
                true
            } else if matches(&base) {
                s.kernel = base.clone();
                true
            } else {
                false
            }
        });
        for (name, c) in [("base", &base), ("bad", &bad)] {
            if !series.iter().any(|s| &s.kernel == c) {
                return Err(ServiceError::NotFound(format!(
                    "no runs of benchmark {benchmark} on machine {machine} at {name} commit {c}"
                )));
            }
        }
        let commit =
            |sha: &str| Label::parse(sha).map_err(|e| ServiceError::Invalid(e.to_string()));
        let query = app::types::CompareQuery::new(
            q.benchmark.clone(),
            Some(q.machine.clone()),
            vec![commit(&base)?, commit(&bad)?],
            None,
            false,
        )
        .map_err(ServiceError::Invalid)?;
        // Computed off the async threads.
        self.heavy
            .run(move || {
                let t = std::time::Instant::now();
                // Only labels that differ from their metric (a param) are kept: a row's key
                // is otherwise its stored metric.
                let stored = series
                    .iter()
                    .filter(|s| !s.param.is_empty())
                    .map(|s| {
                        let label = app::compare::row_label(&s.metric, &s.param);
                        (label, (s.metric.clone(), s.param.clone()))
                    })
                    .collect();
                let mut series = series;
                let matrices = crate::analysis::stats::lkp_matrices_taking(&query, &mut series);
                let built = t.elapsed();
                let header = crate::analysis::stats::lkp_header(
                    &query,
                    &query.kernels[0],
                    &query.kernels[1],
                );
                let rows = lkp::compare(&matrices[0], &matrices[1]);
                tracing::debug!(
                    read_ms = read.as_secs_f64() * 1e3,
                    matrices_ms = built.as_secs_f64() * 1e3,
                    compare_ms = (t.elapsed() - built).as_secs_f64() * 1e3,
                    series = series.len(),
                    "lkp rows"
                );
                Ok::<_, ServiceError>((header, rows, stored))
            })
            .await?
    }

    /// The summary `id` with the other metrics that changed at its step (both commits known),
    /// as lkp-tests selects them: seed 001's rows under the KPI.
    pub async fn alert_summary(
        &self,
        id: i64,
    ) -> Result<Option<app::alerts::AlertSummary>, ServiceError> {
        let Some(mut summary) = self.store.alert_summary(id).await? else {
            return Ok(None);
        };
        let (Some(base), Some(bad)) = (&summary.good.sha, &summary.bad.sha) else {
            return Ok(Some(summary));
        };
        // Stored names were parsed at upload.
        let (Ok(base), Ok(bad)) = (
            app::label::CommitSha::parse(base),
            app::label::CommitSha::parse(bad),
        ) else {
            return Ok(Some(summary));
        };
        let q = ReportQuery {
            benchmark: summary.benchmark.clone(),
            machine: summary.machine.clone(),
            base,
            bad,
        };
        let rows = match self.lkp_rows(&q).await {
            Ok((_, rows, _)) => rows,
            // The runs of a commit were deleted since: the summary without its rows.
            Err(ServiceError::NotFound(_)) => return Ok(Some(summary)),
            Err(e) => return Err(e),
        };
        let alerted: std::collections::HashSet<String> = summary
            .alerts
            .iter()
            .map(|a| app::compare::row_label(&a.metric, &a.param))
            .collect();
        let rows: Vec<&lkp::Row> = rows.iter().filter(|r| !alerted.contains(&r.key)).collect();
        summary.supporting_total = rows.len() as u32;
        summary.supporting = rows
            .into_iter()
            .take(app::alerts::MAX_SUPPORTING)
            .map(|r| supporting_row(&summary.benchmark, r))
            .collect();
        Ok(Some(summary))
    }

    /// The LKP robot's regression mail for `bad` against `base`: a first line naming the KPI
    /// that changed, lkp-tests' own table (`lkp`, byte for byte), then the ASCII trends of
    /// the KPIs in it.
    pub async fn report(&self, q: &ReportQuery, link: &str) -> Result<String, ServiceError> {
        let (benchmark, machine) = (q.benchmark.as_str(), q.machine.as_str());
        let (base, bad) = (q.base.to_string(), q.bad.to_string());
        let started = std::time::Instant::now();
        let (header, rows, stored) = self.lkp_rows(q).await?;
        let rows_took = started.elapsed();
        let history = self
            .store
            .history_for(None, &[base.as_str(), bad.as_str()])
            .await?;
        let subject = |sha: &str| -> String {
            history
                .as_ref()
                .and_then(|h| h.commits.iter().find(|x| names(sha, &x.sha)))
                // Histories stored before subjects were cleaned at upload are cleaned here.
                .and_then(|x| x.subject.as_deref().map(app::label::clean_subject))
                .map(|s| format!(" (\"{s}\")"))
                .unwrap_or_default()
        };
        let mut out = String::new();
        out.push_str(&headline(benchmark, machine, &rows));
        out.push_str(&format!("commit: {bad}{}\n", subject(&bad)));
        out.push_str(&format!(
            "in testcase: {benchmark}\non test machine: {machine}\n\n"
        ));
        out.push_str(&lkp::render(&header, &rows));
        // The trends of the KPIs that changed (of the first three changed keys when none is a
        // KPI): a job's table can have hundreds of rows, a mail shows the ones that matter.
        let kpis: Vec<&lkp::Row> = rows
            .iter()
            .filter(|r| !r.is_failure() && kpi_direction(benchmark, &r.key).is_some())
            .collect();
        let shown: Vec<&lkp::Row> = if kpis.is_empty() {
            rows.iter().filter(|r| !r.is_failure()).take(3).collect()
        } else {
            kpis
        };
        for row in shown {
            let (metric, param) = stored
                .get(&row.key)
                .map_or((row.key.as_str(), ""), |(m, p)| (m.as_str(), p.as_str()));
            // Stored names were parsed at upload; a row whose are refused has no trend.
            let (Ok(metric), Ok(param)) = (Metric::parse(metric), Param::parse(param)) else {
                continue;
            };
            let trend = self
                .trend(TrendQuery {
                    benchmark: q.benchmark.clone(),
                    machine: q.machine.clone(),
                    metric,
                    param,
                    history: None,
                })
                .await?;
            out.push_str(&trend.ascii(80, 20));
            out.push('\n');
        }
        out.push_str(&format!("Permalink: {link}\n"));
        tracing::debug!(
            rows_ms = rows_took.as_secs_f64() * 1e3,
            total_ms = started.elapsed().as_secs_f64() * 1e3,
            "report"
        );
        Ok(out)
    }
}

fn supporting_row(benchmark: &str, r: &lkp::Row) -> app::alerts::SupportingRow {
    use lkp::RowStat;
    let direction = if r.is_failure() {
        Direction::Lower
    } else {
        kpi_direction(benchmark, &r.key).unwrap_or(Direction::Unknown)
    };
    let (before, after, change, absolute) = match &r.stat {
        RowStat::Failure {
            fails,
            reproduction,
            ..
        } => (fails[0].to_f64(), fails[1].to_f64(), *reproduction, true),
        RowStat::Perf {
            avgs,
            change,
            absolute,
            ..
        } => (
            avgs[0].to_f64(),
            avgs[1].to_f64(),
            change.to_f64(),
            *absolute,
        ),
    };
    app::alerts::SupportingRow {
        metric: r.key.clone(),
        direction,
        before,
        after,
        change,
        absolute,
    }
}

/// The mail's first line: the first of lkp-tests' rows (in its order) that is one of its KPIs,
/// a regression or an improvement by the KPI's direction; else the first changed key, a change
/// (a key without a known direction is neither better nor worse).
pub(crate) fn headline(benchmark: &str, machine: &str, rows: &[lkp::Row]) -> String {
    use lkp::RowStat;
    let perf = |r: &lkp::Row| match r.stat {
        RowStat::Perf {
            change, absolute, ..
        } => Some((change.to_f64(), absolute)),
        RowStat::Failure { .. } => None,
    };
    let amount = |change: f64, absolute: bool| {
        if absolute {
            format!("{change:+.1}")
        } else {
            format!("{change:+.1}%")
        }
    };
    let kpi = rows
        .iter()
        .find_map(|r| Some((r, perf(r)?, kpi_direction(benchmark, &r.key)?)));
    if let Some((row, (change, absolute), direction)) = kpi {
        let worse = match direction {
            Direction::Higher => change < 0.0,
            Direction::Lower => change > 0.0,
            // lkp-tests' KPIs all have a direction.
            Direction::Unknown => false,
        };
        return format!(
            "FYI, we noticed a {} {} of {} due to commit:\n\n",
            amount(change, absolute),
            if worse { "regression" } else { "improvement" },
            full_name(benchmark, &row.key)
        );
    }
    match rows.iter().find_map(|r| Some((r, perf(r)?))) {
        Some((row, (change, absolute))) => format!(
            "FYI, we noticed a {} change of {} due to commit:\n\n",
            amount(change, absolute),
            full_name(benchmark, &row.key)
        ),
        None => format!(
            "No metric of {benchmark} on {machine} changed between these commits by lkp-tests' rules.\n\n"
        ),
    }
}

/// A key as LKP names it: its stats keys carry their testcase (`netperf.Throughput_Mbps`);
/// other formats' metrics get the benchmark in front.
fn full_name(benchmark: &str, key: &str) -> String {
    app::alerts::series_name(benchmark, key)
}

/// The direction lkp-tests gives a key, by its full name.
pub(crate) fn kpi_direction(benchmark: &str, key: &str) -> Option<Direction> {
    known::kpi_direction(&full_name(benchmark, key))
}
