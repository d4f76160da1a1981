//! The LKP robot's regression mail: the changed metrics between two commits and their trends.

use app::label::{Direction, Label, Metric, Param};
use app::trend::{ReportQuery, TrendQuery};

use super::names;
use crate::services::ServiceError;
use crate::services::Services;

impl Services {
    /// The LKP robot's regression mail for `bad` against `base`: the `%stddev %change %stddev`
    /// table of every metric LKP's rule calls changed, then the ASCII trend of each.
    pub async fn report(&self, q: &ReportQuery, link: &str) -> Result<String, ServiceError> {
        let (benchmark, machine) = (q.benchmark.as_str(), q.machine.as_str());
        let (base, bad) = (q.base.to_string(), q.bad.to_string());
        let mut series = self.store.commit_series(benchmark, machine).await?;
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
        let c = self
            .heavy
            .run(move || crate::stats::compare(query, &series, None))
            .await??;
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
        let changed: Vec<&app::compare::Row> = c
            .rows
            .iter()
            // Failure keys are the fail:runs block's, not changed means with a trend.
            .filter(|r| !app::compare::is_failure_key(&r.metric))
            .filter(|r| {
                r.cells
                    .get(1)
                    .and_then(|x| x.as_ref())
                    .is_some_and(|x| x.lkp_changed)
            })
            .collect();
        let mut out = String::new();
        let worst = changed.iter().max_by(|a, b| {
            let pct = |r: &&&app::compare::Row| {
                r.cells[1]
                    .as_ref()
                    .and_then(|x| x.lkp_change)
                    .unwrap_or(0.0)
                    .abs()
            };
            pct(a).total_cmp(&pct(b))
        });
        match worst {
            Some(row) => {
                let cell = row.cells[1].as_ref().expect("changed rows have the cell");
                let pct = cell.lkp_change.unwrap_or(0.0);
                let worse = match row.direction {
                    Direction::Higher => pct < 0.0,
                    Direction::Lower => pct > 0.0,
                };
                // LKP's stats keys carry their benchmark already (`netperf.Throughput_Mbps`).
                let name = if row.label.starts_with(&format!("{benchmark}.")) {
                    row.label.clone()
                } else {
                    format!("{benchmark}.{}", row.label)
                };
                out.push_str(&format!(
                    "FYI, we noticed a {pct:+.1}% {} of {name} due to commit:\n\n",
                    if worse { "regression" } else { "improvement" },
                ));
            }
            None => out.push_str(&format!(
                "No metric of {benchmark} on {machine} changed between these commits by LKP's rule.\n\n"
            )),
        }
        out.push_str(&format!("commit: {bad}{}\n", subject(&bad)));
        out.push_str(&format!(
            "in testcase: {benchmark}\non test machine: {machine}\n\n"
        ));
        let described: Vec<String> = [&base, &bad]
            .iter()
            .map(|s| format!("{}{}", s.chars().take(10).collect::<String>(), subject(s)))
            .collect();
        out.push_str(&app::compare::lkp_report(&c, false, "commit", &described));
        for row in &changed {
            // Stored names were parsed at upload; a row whose are refused has no trend.
            let (Ok(metric), Ok(param)) = (Metric::parse(&row.metric), Param::parse(&row.param))
            else {
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
        Ok(out)
    }
}
