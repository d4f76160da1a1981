// SPDX-License-Identifier: GPL-3.0-or-later
//! A comparison of two LKP jobs as the compare page shows it (`app::lkp_view`): lkp-tests'
//! rows (`lkp::compare`, or every key with `all`) with their cells as its text prints them,
//! KPIs first, a page at a time; the robot mail's headline (the report's own,
//! `trend::headline`); the job's parameters and axes from the runs' facts and tags; the two
//! commits with their subjects. And the commit picker's matches.

use std::collections::HashMap;

use app::lkp_view::{
    CommitMatch, CommitMatches, CommitSearch, LkpCompare, LkpQuery, LkpRow, LkpSide, Tone,
    LKP_PAGE_ROWS,
};

use super::Asker;
use crate::services::trend::{headline, kpi_direction, names};
use crate::services::{ServiceError, Services};

impl Services {
    /// `q` as lkp-tests' table, or `None` when it is not a comparison of two columns whose
    /// runs are all LKP jobs'.
    pub async fn lkp_compare(
        &self,
        q: LkpQuery,
        asker: Asker,
    ) -> Result<Option<LkpCompare>, ServiceError> {
        if q.query.kernels.len() != 2 {
            return Ok(None);
        }
        let computed = self.compare_live(q.query.clone(), None, asker).await?;
        let c = &computed.comparison;
        let side_runs: Vec<Vec<i64>> = c
            .query
            .kernels
            .iter()
            .map(|k| {
                c.runs
                    .iter()
                    .filter(|r| r.kernel == k.as_str())
                    .flat_map(|r| r.runs.iter().copied())
                    .collect()
            })
            .collect();
        let ids: Vec<i64> = side_runs.iter().flatten().copied().collect();
        if ids.is_empty() || side_runs.iter().any(Vec::is_empty) {
            return Ok(None);
        }
        let lkp = self.store.lkp_runs(&ids).await?;
        if !ids.iter().all(|id| lkp.contains(id)) {
            return Ok(None);
        }
        // The job: what the runs' files and tags say (the baseline's, then the other's).
        let facts = self.store.run_facts(&ids).await?;
        let merged = app::facts::merge(
            &side_runs
                .iter()
                .flatten()
                .filter_map(|id| facts.get(id).cloned())
                .collect::<Vec<_>>(),
        );
        let benchmark = c.query.benchmark.to_string();
        let machine = c.query.machine_name().to_owned();
        let params = app::lkp_view::params_of(&merged);
        let axes = app::lkp_view::axes_of(&machine, &benchmark, &merged, &params);
        let test_machine = test_machine(&merged);
        // The commits and their subjects, from the uploaded git logs.
        let commits: Vec<Option<String>> = c
            .query
            .kernels
            .iter()
            .map(|k| k.as_str().strip_prefix("commit=").map(str::to_owned))
            .collect();
        let shas: Vec<&str> = commits.iter().flatten().map(String::as_str).collect();
        let history = if shas.is_empty() {
            None
        } else {
            self.store.history_for(None, &shas).await?
        };
        let subject = |sha: &str| {
            history
                .as_ref()
                .and_then(|h| h.commits.iter().find(|x| names(sha, &x.sha)))
                .and_then(|x| x.subject.as_deref().map(app::label::clean_subject))
        };
        let sides = [0, 1].map(|i| LkpSide {
            label: c.query.kernels[i].to_string(),
            commit: commits[i].clone(),
            subject: commits[i].as_deref().and_then(subject),
            runs: side_runs[i].len(),
        });
        let permalink = c.permalink.clone();
        let query = c.query.clone();
        // lkp-tests' rows, off the async threads.
        let work = computed.clone();
        let (filter, all, page) = (q.filter.to_lowercase(), q.all, q.page.max(1));
        let bench = benchmark.clone();
        let mach = machine.clone();
        let (headline, keys, changed, matched, pages, page, rows) = self
            .heavy
            .run(move || {
                let c = &work.comparison;
                let m = crate::analysis::stats::lkp_matrices(&c.query, &work.series);
                let changed = lkp::compare(&m[0], &m[1]);
                let headline = headline(&bench, &mach, &changed).trim_end().to_owned();
                let keys = m[0]
                    .iter()
                    .map(|(k, _)| k)
                    .chain(m[1].iter().map(|(k, _)| k))
                    .collect::<std::collections::HashSet<_>>()
                    .len();
                let n_changed = changed.len();
                let rows = if all {
                    lkp::compare_all(&m[0], &m[1])
                } else {
                    changed
                };
                let mut rows: Vec<lkp::Row> = rows
                    .into_iter()
                    .filter(|r| filter.is_empty() || r.key.to_lowercase().contains(&filter))
                    .collect();
                // KPIs first (lkp-tests' order kept within each part).
                rows.sort_by_key(|r| kpi_direction(&bench, &r.key).is_none() || r.is_failure());
                let matched = rows.len();
                let pages = matched.div_ceil(LKP_PAGE_ROWS).max(1);
                let page = page.min(pages);
                let stored: HashMap<String, (String, String)> = work
                    .series
                    .iter()
                    .filter(|s| !s.param.is_empty())
                    .map(|s| {
                        let label = app::compare::row_label(&s.metric, &s.param);
                        (label, (s.metric.clone(), s.param.clone()))
                    })
                    .collect();
                let shown: Vec<LkpRow> = rows
                    .iter()
                    .skip((page - 1) * LKP_PAGE_ROWS)
                    .take(LKP_PAGE_ROWS)
                    .map(|r| row(&bench, r, &stored))
                    .collect();
                (headline, keys, n_changed, matched, pages, page, shown)
            })
            .await?;
        Ok(Some(LkpCompare {
            query,
            permalink,
            headline,
            sides,
            axes,
            params,
            test_machine,
            rows,
            all,
            keys,
            changed,
            matched,
            page,
            pages,
        }))
    }

    /// The commits `search` names (by sha prefix or a word of the subject), newest first.
    pub async fn commit_matches(
        &self,
        search: &CommitSearch,
    ) -> Result<CommitMatches, ServiceError> {
        if search.benchmark.is_empty() || search.machine.is_empty() {
            return Ok(CommitMatches::default());
        }
        let commits = self
            .store
            .commits_of(&search.benchmark, &search.machine)
            .await?
            .into_iter()
            .map(|(sha, subject, runs)| CommitMatch {
                sha,
                subject: subject.as_deref().map(app::label::clean_subject),
                runs: usize::try_from(runs).unwrap_or(0),
            })
            .collect();
        Ok(app::lkp_view::commit_matches(commits, &search.text))
    }
}

/// "on test machine: 16 threads Intel(R) Xeon(R) CPU D-1541 @ 2.10GHz with 8G memory", from
/// what the runs' files say.
fn test_machine(facts: &std::collections::BTreeMap<String, String>) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(n) = facts.get("cpu.count") {
        parts.push(format!("{n} threads"));
    }
    if let Some(m) = facts.get("cpu.model") {
        parts.push(m.clone());
    }
    if let Some(m) = facts.get("memory") {
        parts.push(format!("with {m} memory"));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// One of lkp-tests' rows for the page: its cells as the text prints them, and which way it
/// moved when that is known.
fn row(benchmark: &str, r: &lkp::Row, stored: &HashMap<String, (String, String)>) -> LkpRow {
    let cells = r.cells();
    let direction = kpi_direction(benchmark, &r.key);
    let tone = match (&r.stat, direction) {
        (lkp::RowStat::Failure { reproduction, .. }, _) => {
            if *reproduction > 0.0 {
                Tone::Worse
            } else if *reproduction < 0.0 {
                Tone::Better
            } else {
                Tone::Neutral
            }
        }
        (lkp::RowStat::Perf { change, .. }, Some(d)) => {
            let up = change.to_f64() > 0.0;
            let down = change.to_f64() < 0.0;
            match d {
                app::label::Direction::Higher if up => Tone::Better,
                app::label::Direction::Higher if down => Tone::Worse,
                app::label::Direction::Lower if up => Tone::Worse,
                app::label::Direction::Lower if down => Tone::Better,
                _ => Tone::Neutral,
            }
        }
        _ => Tone::Neutral,
    };
    let (metric, param) = stored
        .get(&r.key)
        .cloned()
        .unwrap_or_else(|| (r.key.clone(), String::new()));
    LkpRow {
        key: r.key.clone(),
        metric,
        param,
        kpi: direction.is_some() && !r.is_failure(),
        failure: r.is_failure(),
        values: cells.values,
        stddevs: cells.stddevs,
        change: cells.change,
        tone,
    }
}
