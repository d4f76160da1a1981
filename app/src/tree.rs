// SPDX-License-Identifier: GPL-3.0-or-later
//! A whole mmtests tree compared (`/compare?benchmark=*&machine=M&kernels=K0,K1`), as
//! compare-kernels.sh's HTML report shows one: what the page and its saved copy (the API's
//! `format=html`) are drawn from, and the one-line verdict of each benchmark.

use serde::{Deserialize, Serialize};

use crate::compare::{Comparison, Verdict};
use crate::types::CompareQuery;

/// A page of a whole tree: a comparison per benchmark the baseline ran, in the tree's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeReport {
    pub query: CompareQuery,
    pub sections: Vec<Comparison>,
    /// Benchmarks of this page not shown, with why.
    pub left_out: Vec<(String, String)>,
    /// The tree's benchmarks, and where in them this page starts.
    pub benchmarks: usize,
    pub offset: usize,
    /// When the page stopped at its bound: where the next page starts and what it holds.
    pub rest: Option<TreeRest>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeRest {
    pub offset: usize,
    pub benchmarks: Vec<String>,
}

/// What a compared kernel did to one benchmark: its operations (rows) significantly better
/// and worse than the baseline's (as mmtests marks them), and the largest change each way.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelVerdict {
    pub kernel: String,
    pub rows: usize,
    pub better: usize,
    pub worse: usize,
    /// Significant changes of metrics whose direction is unknown.
    pub changed: usize,
    /// The largest significant improvement and regression, in mmtests' percent (positive is
    /// better).
    pub best: Option<f64>,
    pub worst: Option<f64>,
}

/// The word a verdict is summed up by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    Better,
    Worse,
    Mixed,
    Unchanged,
}

impl Word {
    pub fn as_str(self) -> &'static str {
        match self {
            Word::Better => "better",
            Word::Worse => "worse",
            Word::Mixed => "mixed",
            Word::Unchanged => "unchanged",
        }
    }
}

impl KernelVerdict {
    pub fn word(&self) -> Word {
        match (self.better > 0, self.worse > 0) {
            (true, false) => Word::Better,
            (false, true) => Word::Worse,
            (true, true) => Word::Mixed,
            (false, false) if self.changed > 0 => Word::Mixed,
            (false, false) => Word::Unchanged,
        }
    }

    /// One line: `worse: 2 of 14 operations worse (down to -8.12%), 1 better (up to +2.00%)`.
    pub fn sentence(&self) -> String {
        let mut parts = Vec::new();
        if self.worse > 0 {
            parts.push(format!(
                "{} of {} worse (down to {:+.2}%)",
                self.worse,
                self.rows,
                self.worst.unwrap_or_default()
            ));
        }
        if self.better > 0 {
            parts.push(format!(
                "{} of {} better (up to {:+.2}%)",
                self.better,
                self.rows,
                self.best.unwrap_or_default()
            ));
        }
        if self.changed > 0 {
            parts.push(format!(
                "{} of {} changed (direction unknown)",
                self.changed, self.rows
            ));
        }
        if parts.is_empty() {
            parts.push(format!("no significant change in {} operations", self.rows));
        }
        format!("{}: {}", self.word().as_str(), parts.join(", "))
    }
}

/// Each compared kernel's verdict on one benchmark (the baseline has none).
pub fn verdicts(c: &Comparison) -> Vec<KernelVerdict> {
    c.query
        .kernels
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, kernel)| {
            let mut v = KernelVerdict {
                kernel: kernel.to_string(),
                rows: 0,
                better: 0,
                worse: 0,
                changed: 0,
                best: None,
                worst: None,
            };
            for row in c
                .rows
                .iter()
                .filter(|r| r.cells.first().is_some_and(Option::is_some))
            {
                v.rows += 1;
                let Some(Some(cell)) = row.cells.get(k) else {
                    continue;
                };
                let pct = cell.changes.mean.unwrap_or_default();
                match cell.verdict {
                    Verdict::Improvement => {
                        v.better += 1;
                        v.best = Some(v.best.map_or(pct, |b: f64| b.max(pct)));
                    }
                    Verdict::Regression => {
                        v.worse += 1;
                        v.worst = Some(v.worst.map_or(pct, |w: f64| w.min(pct)));
                    }
                    Verdict::Changed => v.changed += 1,
                    _ => {}
                }
            }
            v
        })
        .collect()
}

/// How many benchmarks each compared kernel made better, worse, mixed and left unchanged:
/// `(kernel, [better, worse, mixed, unchanged])`.
pub fn tally(sections: &[Comparison]) -> Vec<(String, [usize; 4])> {
    let mut out: Vec<(String, [usize; 4])> = Vec::new();
    for c in sections {
        for v in verdicts(c) {
            let i = match v.word() {
                Word::Better => 0,
                Word::Worse => 1,
                Word::Mixed => 2,
                Word::Unchanged => 3,
            };
            match out.iter_mut().find(|(k, _)| *k == v.kernel) {
                Some((_, n)) => n[i] += 1,
                None => {
                    let mut n = [0; 4];
                    n[i] = 1;
                    out.push((v.kernel, n));
                }
            }
        }
    }
    out
}

/// The anchor of a benchmark's section on the page.
pub fn anchor(benchmark: &str) -> String {
    let mut out = String::from("b-");
    for c in benchmark.chars() {
        out.push(if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '_'
        });
    }
    out
}

/// The most operations a section's chart draws (in the table's order).
pub const CHART_ROWS: usize = 12;

/// One bar of a section's chart: a compared kernel's change of an operation's mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub kernel: usize,
    pub pct: f64,
    pub verdict: Verdict,
}

/// A section's chart: per operation (at most [`CHART_ROWS`]) the change of each compared
/// kernel's mean against the baseline's, as mmtests' percentages (positive is better).
pub fn chart(c: &Comparison) -> Vec<(String, Vec<Bar>)> {
    c.rows
        .iter()
        .filter(|r| r.cells.first().is_some_and(Option::is_some))
        .take(CHART_ROWS)
        .map(|row| {
            let bars = row
                .cells
                .iter()
                .enumerate()
                .skip(1)
                .filter_map(|(k, cell)| {
                    let cell = cell.as_ref()?;
                    let pct = cell.changes.mean.filter(|p| p.is_finite())?;
                    Some(Bar {
                        kernel: k,
                        pct,
                        verdict: cell.verdict,
                    })
                })
                .collect();
            (row.label.clone(), bars)
        })
        .collect()
}

/// The fact that says where a benchmark ran in its tree (1 = first): the tree's order.
pub const POSITION_FACT: &str = "mmtests.position";

/// The trees of one upload's runs, one per machine with more than one benchmark: its kernels
/// (in version order, as many as a comparison takes), its benchmarks in the order they ran,
/// and the link to the page of them all.
pub fn summaries(
    upload_id: i64,
    runs: &[crate::types::RunSummary],
) -> Vec<crate::types::TreeSummary> {
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
            .find(|(k, _)| k == POSITION_FACT)
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
            kernels.sort_by(|a, b| crate::kernel::compare_kernels(a, b));
            kernels.truncate(crate::label::MAX_KERNELS);
            benchmarks.sort();
            let report = format!(
                "/compare?machine={}&benchmark=*&kernels={}",
                crate::url::encode(machine),
                kernels
                    .iter()
                    .map(|k| crate::url::encode(k))
                    .collect::<Vec<_>>()
                    .join(",")
            );
            crate::types::TreeSummary {
                upload_id,
                machine: machine.to_owned(),
                kernels,
                benchmarks: benchmarks.into_iter().map(|(_, b)| b).collect(),
                report,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_plain() {
        assert_eq!(anchor("netperf-tcp"), "b-netperf-tcp");
        assert_eq!(anchor("a b/c"), "b-a_b_c");
    }

    #[test]
    fn words_follow_the_counts() {
        let v = |better, worse, changed| KernelVerdict {
            kernel: "k".into(),
            rows: 10,
            better,
            worse,
            changed,
            best: Some(3.0),
            worst: Some(-4.5),
        };
        assert_eq!(v(1, 0, 0).word(), Word::Better);
        assert_eq!(v(0, 2, 0).word(), Word::Worse);
        assert_eq!(v(1, 2, 0).word(), Word::Mixed);
        assert_eq!(v(0, 0, 0).word(), Word::Unchanged);
        assert_eq!(
            v(1, 2, 0).sentence(),
            "mixed: 2 of 10 worse (down to -4.50%), 1 of 10 better (up to +3.00%)"
        );
        assert_eq!(
            v(0, 0, 0).sentence(),
            "unchanged: no significant change in 10 operations"
        );
    }
}
