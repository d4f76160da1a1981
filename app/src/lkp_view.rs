// SPDX-License-Identifier: GPL-3.0-or-later
//! A comparison of two LKP jobs as LKP users read it: lkp-tests' own `%stddev %change
//! %stddev` table (the cells as its text prints them, KPIs first, a page at a time), the
//! robot's headline, the job's parameters and axes, and the two commits with their subjects.
//! The server fills it (`Backend::lkp_compare`); the compare page lays it out.

use serde::{Deserialize, Serialize};

use crate::types::CompareQuery;

/// The rows one page of the LKP table shows.
pub const LKP_PAGE_ROWS: usize = 50;

/// What the compare page asks for an LKP comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LkpQuery {
    pub query: CompareQuery,
    /// Every key (lkp-tests' layout of each), not only those lkp-tests calls changed.
    pub all: bool,
    /// Rows whose key holds this (case-insensitive); empty for all.
    pub filter: String,
    /// 1-based.
    pub page: usize,
}

/// Which way a row moved, when its direction is known (a KPI, a failure).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tone {
    Better,
    Worse,
    Neutral,
}

/// One row of lkp-tests' table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LkpRow {
    /// The stats key, as lkp-tests names it (the row's label).
    pub key: String,
    /// The stored metric and param the key is (for its trend).
    pub metric: String,
    pub param: String,
    /// One of lkp-tests' KPIs.
    pub kpi: bool,
    /// A `fail:runs` row.
    pub failure: bool,
    /// Per side, as lkp-tests prints them (`lkp::Cells` on the server).
    pub values: [String; 2],
    pub stddevs: [String; 2],
    pub change: String,
    pub tone: Tone,
}

/// One side of the comparison: its column label, its commit and subject when known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LkpSide {
    pub label: String,
    pub commit: Option<String>,
    pub subject: Option<String>,
    pub runs: usize,
}

impl LkpSide {
    /// `a337531b94 ("tcp: up initial rmem…")`, as the robot's mail names a commit.
    pub fn line(&self) -> String {
        let name = self
            .commit
            .as_deref()
            .map_or(self.label.as_str(), |c| crate::text::head(c, 10));
        match &self.subject {
            Some(s) => format!("{name} (\"{s}\")"),
            None => name.to_owned(),
        }
    }
}

/// A comparison of two LKP jobs, one page of its table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LkpCompare {
    pub query: CompareQuery,
    pub permalink: Option<String>,
    /// The robot mail's first line (`FYI, we noticed a -6.1% regression of … due to commit:`).
    pub headline: String,
    pub sides: [LkpSide; 2],
    /// The job's axes as lkp-tests' group header names them (`tbox_group`, `testcase`,
    /// `rootfs`, `kconfig`, `compiler`, then the parameters).
    pub axes: Vec<(String, String)>,
    /// "with following parameters": the job's parameters, as the runs' tags and job files
    /// state them.
    pub params: Vec<(String, String)>,
    /// "on test machine": what the runs' files say of it (CPUs, model, memory), if anything.
    pub test_machine: Option<String>,
    /// This page's rows, KPIs first, then lkp-tests' order (failure rows first).
    pub rows: Vec<LkpRow>,
    /// Every row shown, not only the changed ones.
    pub all: bool,
    /// Keys compared, rows lkp-tests calls changed, rows matching the filter.
    pub keys: usize,
    pub changed: usize,
    pub matched: usize,
    pub page: usize,
    pub pages: usize,
}

impl LkpCompare {
    /// The axes line of lkp-tests' group header: names, then values, `/`-joined.
    pub fn axes_lines(&self) -> (String, String) {
        let names: Vec<&str> = self.axes.iter().map(|(k, _)| k.as_str()).collect();
        let values: Vec<&str> = self.axes.iter().map(|(_, v)| v.as_str()).collect();
        (names.join("/"), values.join("/"))
    }
}

/// The steps the robot's mail gives to run the job again.
pub const REPRODUCE: &str = "git clone https://github.com/intel/lkp-tests.git\n\
cd lkp-tests\n\
bin/lkp install job.yaml  # the job file of these runs\n\
bin/lkp split-job --compatible job.yaml  # if job.yaml has multiple jobs\n\
bin/lkp run job.yaml\n";

/// The job parameters a run's facts and tags state: its tags (`tag.ip` → `ip`) and the LKP
/// job file's parameters (`param.runtime` → `runtime`), with the governor as lkp-tests names
/// it; sorted by name.
pub fn params_of(facts: &std::collections::BTreeMap<String, String>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in facts {
        let name = if let Some(t) = k.strip_prefix("tag.") {
            t
        } else if let Some(p) = k.strip_prefix("param.") {
            p
        } else if k == "governor" {
            "cpufreq_governor"
        } else {
            continue;
        };
        if !out.iter().any(|(n, _)| n == name) {
            out.push((name.to_owned(), v.clone()));
        }
    }
    out.sort();
    out
}

/// The axes of lkp-tests' group header from what is known of the job: the machine and the
/// benchmark, then rootfs, kconfig and compiler when the job file said, then the parameters.
pub fn axes_of(
    machine: &str,
    benchmark: &str,
    facts: &std::collections::BTreeMap<String, String>,
    params: &[(String, String)],
) -> Vec<(String, String)> {
    let mut axes = vec![
        ("tbox_group".to_owned(), machine.to_owned()),
        ("testcase".to_owned(), benchmark.to_owned()),
    ];
    for k in ["rootfs", "kconfig", "compiler"] {
        if let Some(v) = facts.get(k) {
            axes.push((k.to_owned(), v.clone()));
        }
    }
    axes.extend(params.iter().cloned());
    axes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_and_axes_come_from_tags_and_job_facts() {
        let facts: std::collections::BTreeMap<String, String> = [
            ("tag.ip", "ipv4"),
            ("param.runtime", "300s"),
            ("governor", "performance"),
            ("kconfig", "x86_64-rhel-9.4"),
            ("cpu.count", "16"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let params = params_of(&facts);
        assert_eq!(
            params,
            [
                ("cpufreq_governor".to_owned(), "performance".to_owned()),
                ("ip".to_owned(), "ipv4".to_owned()),
                ("runtime".to_owned(), "300s".to_owned()),
            ]
        );
        let axes = axes_of("lkp-icl-2sp2", "netperf", &facts, &params);
        assert_eq!(
            axes[0],
            ("tbox_group".to_owned(), "lkp-icl-2sp2".to_owned())
        );
        assert_eq!(
            axes[2],
            ("kconfig".to_owned(), "x86_64-rhel-9.4".to_owned())
        );
        assert_eq!(axes.len(), 6);
        let side = LkpSide {
            label: "commit=a337531b942bd8a03e7052444d7e36972aac2d92".into(),
            commit: Some("a337531b942bd8a03e7052444d7e36972aac2d92".into()),
            subject: Some("tcp: up initial rmem".into()),
            runs: 4,
        };
        assert_eq!(side.line(), "a337531b94 (\"tcp: up initial rmem\")");
    }
}

/// What the commit picker asks: the commits a benchmark ran at on a machine whose sha or
/// subject holds `text` (case-insensitive).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CommitSearch {
    pub benchmark: String,
    pub machine: String,
    pub text: String,
}

/// A commit the benchmark ran at, with its subject when an uploaded git log names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitMatch {
    pub sha: String,
    pub subject: Option<String>,
    /// Runs of the benchmark on the machine at this commit.
    pub runs: usize,
}

impl CommitMatch {
    /// `a337531b94 tcp: up initial rmem…`, as the picker lists it.
    pub fn label(&self) -> String {
        let sha = crate::text::head(&self.sha, 10);
        match &self.subject {
            Some(s) => format!("{sha} {s}"),
            None => sha.to_owned(),
        }
    }
}

/// The picker's answer: the newest matches first, at most [`MAX_COMMIT_MATCHES`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CommitMatches {
    pub matches: Vec<CommitMatch>,
    /// Commits matching, and commits in all.
    pub matching: usize,
    pub total: usize,
}

/// The most commits a picker lists.
pub const MAX_COMMIT_MATCHES: usize = 30;

/// The matches of `text` among `commits` (newest first), by sha prefix or anywhere in the
/// subject, case-insensitive.
pub fn commit_matches(commits: Vec<CommitMatch>, text: &str) -> CommitMatches {
    let text = text.trim().to_lowercase();
    let total = commits.len();
    let matching: Vec<CommitMatch> = commits
        .into_iter()
        .filter(|c| {
            text.is_empty()
                || c.sha.to_lowercase().starts_with(&text)
                || c.subject
                    .as_deref()
                    .is_some_and(|s| s.to_lowercase().contains(&text))
        })
        .collect();
    CommitMatches {
        matching: matching.len(),
        matches: matching.into_iter().take(MAX_COMMIT_MATCHES).collect(),
        total,
    }
}
