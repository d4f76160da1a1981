// SPDX-License-Identifier: GPL-3.0-or-later
//! An alert rule as stored and as the detector reads it: below both the store and the alert
//! pipeline, so that neither imports the other to name it.

use serde::{Deserialize, Serialize};

/// One rule: series whose benchmark and metric match the glob patterns (`*`, `?`, `[...]`)
/// take its settings; unset fields keep the defaults. The first matching rule wins.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    #[serde(default = "any")]
    pub benchmark: String,
    /// Matched against the metric, and against `metric.param` for series with a param.
    #[serde(default = "any")]
    pub metric: String,
    /// The smallest |change| in percent that is an alert.
    pub min_change_pct: Option<f64>,
    /// The significance level of the step (the permutation test's p-value at most this).
    pub alpha: Option<f64>,
    /// Commits (points) at the old level before the step, at least.
    pub min_before: Option<usize>,
    /// Commits at the new level, at least: how long a step must last to be believed.
    pub min_after: Option<usize>,
    /// The least Welch t of the step over the 12 commits either side (default 7, Perfherder's
    /// threshold); `0` alerts on whatever `alpha` and `min_change_pct` let through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_local_t: Option<f64>,
    /// Never alert on these series.
    #[serde(default)]
    pub ignore: bool,
    /// `higher` or `lower`: the direction of the matching metrics that have none of their
    /// own (most of an LKP job's keys), given them as they are uploaded, so that they alert.
    #[serde(default)]
    pub direction: Option<app::label::Direction>,
    /// `false`: a step alerts (and is mailed) at once. Left out or `true`: it awaits
    /// confirmation by reruns of its two commits first (`GET /api/v1/work`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<bool>,
    /// `repo/branch`: the history the matching series are bisected in. A rule that names one
    /// bisects by default; its series' alerts bisect only when they are in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<String>,
    /// `true`: a confirmed regression (or one announced without confirmation) starts its
    /// bisection at once, robots run it (`GET /api/v1/work`) and the culprit mail follows in
    /// the alert's thread. Left out: `true` when the rule names a `history`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bisect: Option<bool>,
}

fn any() -> String {
    "*".into()
}

impl Rule {
    /// Whether the matching series' regressions start a bisection by themselves.
    pub fn bisects(&self) -> bool {
        self.bisect.unwrap_or(self.history.is_some())
    }

    /// Checks a rule as received: patterns that compile, settings in range.
    pub fn check(&self) -> Result<(), String> {
        for (field, p) in [("benchmark", &self.benchmark), ("metric", &self.metric)] {
            if p.is_empty() || p.len() > 200 || p.chars().any(char::is_control) {
                return Err(format!(
                    "{field} must be a glob pattern of 1 to 200 characters"
                ));
            }
            glob::Pattern::new(p).map_err(|e| format!("{field} pattern {p:?}: {e}"))?;
        }
        if let Some(v) = self.min_change_pct {
            if !(0.0..=1000.0).contains(&v) {
                return Err("min_change_pct must be between 0 and 1000".into());
            }
        }
        if let Some(v) = self.min_local_t {
            if !(0.0..=100.0).contains(&v) {
                return Err("min_local_t must be between 0 and 100".into());
            }
        }
        if let Some(v) = self.alpha {
            if !(0.0001..=0.2).contains(&v) {
                return Err("alpha must be between 0.0001 and 0.2".into());
            }
        }
        if let Some(h) = &self.history {
            app::label::HistoryName::parse(h)?;
        }
        if self.bisect == Some(true) && self.ignore {
            return Err("a rule that ignores its series cannot bisect them".into());
        }
        if self.direction == Some(app::label::Direction::Unknown) {
            return Err("direction must be higher or lower (leave it out for none)".into());
        }
        for (field, v) in [
            ("min_before", self.min_before),
            ("min_after", self.min_after),
        ] {
            if let Some(v) = v {
                if !(2..=500).contains(&v) {
                    return Err(format!("{field} must be between 2 and 500"));
                }
            }
        }
        Ok(())
    }

    pub(crate) fn matches(&self, benchmark: &str, metric: &str, param: &str) -> bool {
        self.globs()
            .is_some_and(|g| g.matches(benchmark, metric, param))
    }

    /// The rule's patterns compiled, to match many series (`None` for patterns `check`
    /// refuses).
    pub fn globs(&self) -> Option<Globs> {
        Some(Globs {
            benchmark: glob::Pattern::new(&self.benchmark).ok()?,
            metric: glob::Pattern::new(&self.metric).ok()?,
        })
    }
}

/// A rule's benchmark and metric patterns, compiled.
#[derive(Debug, Clone)]
pub struct Globs {
    benchmark: glob::Pattern,
    metric: glob::Pattern,
}

impl Globs {
    /// Whether a series matches: its benchmark, and its metric or `metric.param`.
    pub fn matches(&self, benchmark: &str, metric: &str, param: &str) -> bool {
        self.benchmark.matches(benchmark)
            && (self.metric.matches(metric)
                || (!param.is_empty() && self.metric.matches(&format!("{metric}.{param}"))))
    }
}
