// SPDX-License-Identifier: GPL-3.0-or-later
//! The pure computation of a trend: runs grouped by commit, ordered by history, commit time
//! and kernel version, marked, with their change points.

use std::collections::HashMap;
use std::sync::Arc;

use app::kernel::compare_kernels;
use app::label::Direction;
use app::trend::{Mark, Trend, TrendChange, TrendPoint, TrendQuery, TrendRun};

use crate::domain::changepoint;
use crate::store::{CommitMarks, History, TrendRun as StoredRun, TrendRuns};

/// Whether `short` names `full` (a full sha, or an abbreviation of at least 7 characters).
pub(crate) fn names(short: &str, full: &str) -> bool {
    short == full || (short.len() >= 7 && full.starts_with(short))
}

/// Finds commits in a history by full or abbreviated sha.
struct Positions<'a> {
    exact: HashMap<&'a str, usize, foldhash::fast::RandomState>,
    /// Sorted shas, for abbreviations; made when the first one is looked up.
    sorted: Option<Vec<(&'a str, usize)>>,
}

impl<'a> Positions<'a> {
    fn new(history: Option<&'a History>) -> Positions<'a> {
        let mut exact = HashMap::default();
        if let Some(h) = history {
            exact.reserve(h.commits.len());
            exact.extend(
                h.commits
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (c.sha.as_str(), i)),
            );
        }
        Positions {
            exact,
            sorted: None,
        }
    }

    fn get(&mut self, sha: &str) -> Option<usize> {
        if let Some(&i) = self.exact.get(sha) {
            return Some(i);
        }
        if sha.len() < 7 || self.exact.is_empty() {
            return None;
        }
        let sorted = self.sorted.get_or_insert_with(|| {
            let mut v: Vec<(&str, usize)> = self.exact.iter().map(|(s, i)| (*s, *i)).collect();
            v.sort_unstable();
            v
        });
        let start = sorted.partition_point(|(s, _)| *s < sha);
        sorted
            .get(start)
            .filter(|(full, _)| names(sha, full))
            .map(|&(_, i)| i)
    }
}

/// What makes runs one point: their commit's place in the history, else their commit as
/// uploaded, else (without a commit) their kernel.
#[derive(Clone, PartialEq, Eq, Hash)]
enum PointKey {
    Position(usize),
    Commit(Arc<str>),
    Kernel(Arc<str>),
}

/// Builds the trend from the stored runs: one point per commit (or kernel, without a commit),
/// ordered by the history, then commit time, then kernel version; then the change points.
pub fn build(
    query: TrendQuery,
    stored: &TrendRuns,
    history: Option<&History>,
    commit_marks: &CommitMarks,
) -> Trend {
    let runs: Vec<&StoredRun> = stored.iter().filter(|r| r.n > 0).collect();
    let direction = runs.first().map(|r| r.direction).unwrap_or_default();
    let unit = runs
        .iter()
        .find_map(|r| r.unit.as_deref().map(str::to_owned));
    let mut positions = Positions::new(history);
    // Group runs by commit (one commit named by a full or an abbreviated sha is one commit when
    // the history knows it), or by kernel without a commit. A commit's runs usually come
    // together, so the last lookup and the last group are remembered.
    let mut keys: Vec<PointKey> = Vec::new();
    let mut index: HashMap<PointKey, usize, foldhash::fast::RandomState> = HashMap::default();
    let mut group_of: Vec<usize> = Vec::with_capacity(runs.len());
    let mut last: Option<(&Arc<str>, Option<usize>)> = None;
    for run in &runs {
        let key = match &run.commit {
            Some(c) => {
                let position = match last {
                    Some((sha, p)) if Arc::ptr_eq(sha, c) || **sha == **c => p,
                    _ => {
                        let p = positions.get(c);
                        last = Some((c, p));
                        p
                    }
                };
                match position {
                    Some(p) => PointKey::Position(p),
                    None => PointKey::Commit(c.clone()),
                }
            }
            None => PointKey::Kernel(run.kernel.clone()),
        };
        let group = match group_of.last() {
            Some(&g) if keys[g] == key => g,
            _ => *index.entry(key).or_insert_with_key(|key| {
                keys.push(key.clone());
                keys.len() - 1
            }),
        };
        group_of.push(group);
    }
    // The runs of each group, in run order: `order[start[g]..start[g + 1]]`.
    let mut start = vec![0usize; keys.len() + 1];
    for &g in &group_of {
        start[g + 1] += 1;
    }
    for g in 0..keys.len() {
        start[g + 1] += start[g];
    }
    let mut order = vec![0usize; runs.len()];
    let mut next = start.clone();
    for (i, &g) in group_of.iter().enumerate() {
        order[next[g]] = i;
        next[g] += 1;
    }
    let groups = keys.into_iter().enumerate().map(|(g, key)| {
        let members: Vec<&StoredRun> = order[start[g]..start[g + 1]]
            .iter()
            .map(|&i| runs[i])
            .collect();
        (key, members)
    });
    // The noise: each commit's runs one group, their spreads from the blocks' summaries.
    let mut acc = crate::domain::noise::NoiseAcc::default();
    let mut spreads = Vec::new();
    let mut points: Vec<TrendPoint> = groups
        .map(|(key, runs)| {
            spreads.clear();
            spreads
                .extend(runs.iter().map(|r| {
                    crate::domain::noise::RunSpread::of_summary(r.n, r.sum, r.min, r.max)
                }));
            acc.group(&spreads);
            let history_commit = match key {
                PointKey::Position(p) => history.map(|h| &h.commits[p]),
                _ => None,
            };
            let sha: Option<String> = match history_commit {
                Some(c) => Some(c.sha.clone()),
                None => runs[0].commit.as_deref().map(str::to_owned),
            };
            let n: usize = runs.iter().map(|r| r.n).sum();
            let mean = runs.iter().map(|r| r.sum).sum::<f64>() / n as f64;
            let min = runs.iter().map(|r| r.min).fold(f64::INFINITY, f64::min);
            let max = runs.iter().map(|r| r.max).fold(f64::NEG_INFINITY, f64::max);
            let bisect = sha.as_ref().and_then(|s| commit_marks.get(s));
            let mark_of = |r: &StoredRun| stored.marks.get(&r.run_id).copied();
            let from_runs = [Mark::Bad, Mark::Good, Mark::Skip]
                .into_iter()
                .find(|m| runs.iter().any(|r| mark_of(r) == Some(*m)));
            TrendPoint {
                x: 0,
                position: match key {
                    PointKey::Position(p) => Some(p),
                    _ => None,
                },
                time: history_commit
                    .and_then(|c| c.time)
                    .or_else(|| runs.iter().find_map(|r| r.commit_time)),
                subject: history_commit.and_then(|c| c.subject.clone()),
                sha,
                kernel: runs[0].kernel.to_string(),
                mean,
                min,
                max,
                n,
                mark: bisect.map(|b| b.0).or(from_runs),
                first_bad: bisect.is_some_and(|b| b.1),
                runs: runs
                    .iter()
                    .map(|r| TrendRun {
                        id: r.run_id,
                        mark: mark_of(r),
                        mean: r.sum / r.n as f64,
                        n: r.n,
                    })
                    .collect(),
            }
        })
        .collect();
    points.sort_by(|a, b| {
        let key = |p: &TrendPoint| (p.position.unwrap_or(usize::MAX), p.time.unwrap_or(i64::MAX));
        key(a)
            .cmp(&key(b))
            .then_with(|| compare_kernels(&a.kernel, &b.kernel))
            .then_with(|| a.runs[0].id.cmp(&b.runs[0].id))
    });
    for (x, p) in points.iter_mut().enumerate() {
        p.x = x;
    }
    let order = if points.iter().any(|p| p.position.is_some()) {
        let h = history.expect("positions come from a history");
        format!("history {}/{}", h.repo, h.branch)
    } else if points.iter().any(|p| p.time.is_some()) {
        "commit time".to_owned()
    } else {
        "kernel version".to_owned()
    };
    let means: Vec<f64> = points.iter().map(|p| p.mean).collect();
    let change_points: Vec<TrendChange> =
        changepoint::change_points(&means, &changepoint::Options::default())
            .into_iter()
            .map(|c| {
                let p = &points[c.index];
                let verdict = match direction {
                    Direction::Higher if c.after < c.before => "regression",
                    Direction::Lower if c.after > c.before => "regression",
                    Direction::Higher | Direction::Lower => "improvement",
                    // Neither better nor worse.
                    Direction::Unknown => "change",
                };
                TrendChange {
                    x: c.index,
                    sha: p.sha.clone(),
                    kernel: p.kernel.clone(),
                    before: c.before,
                    after: c.after,
                    change_pct: c.change_pct,
                    verdict: verdict.to_owned(),
                    p_value: c.p_value,
                    x_lo: c.index_ci.0,
                    x_hi: c.index_ci.1,
                    change_pct_lo: c.change_pct_ci.0,
                    change_pct_hi: c.change_pct_ci.1,
                }
            })
            .collect();
    let (noise, advice) = noise_and_advice(&points, &change_points, acc);
    Trend {
        query,
        order,
        unit,
        direction,
        points,
        change_points,
        noise,
        advice,
    }
}

/// The trend's noise (`acc`: each commit's runs one group), and the advice for its newest
/// change point on the fewer runs of either side.
fn noise_and_advice(
    points: &[TrendPoint],
    change_points: &[TrendChange],
    mut acc: crate::domain::noise::NoiseAcc,
) -> (app::noise::Noise, Option<app::noise::Advice>) {
    if !acc.has_between() {
        let means: Vec<f64> = points.iter().map(|p| p.mean).collect();
        acc.between_from_sequence(&means);
    }
    let noise = acc.noise();
    let advice = change_points.last().and_then(|c| {
        let start = change_points
            .iter()
            .rev()
            .nth(1)
            .map_or(0, |before| before.x);
        let count = |ps: &[TrendPoint]| {
            (
                ps.iter().map(|p| p.runs.len()).sum::<usize>(),
                ps.iter().map(|p| p.n).sum::<usize>(),
            )
        };
        let (rb, sb) = count(points.get(start..c.x)?);
        let end = points.len();
        let (ra, sa) = count(points.get(c.x..end)?);
        crate::domain::noise::advise(&noise, rb.min(ra), sb.min(sa), app::noise::DEFAULT_DETECT)
    });
    (noise, advice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_marks_are_found_by_abbreviation_either_way() {
        let marks = CommitMarks::new(HashMap::from([
            (
                "a337531b942bd8a03e7052444d7e36972aac2d92".to_owned(),
                (Mark::Bad, true),
            ),
            ("3ff6cde846".to_owned(), (Mark::Good, false)),
        ]));
        assert_eq!(marks.get("a337531b94"), Some((Mark::Bad, true)));
        assert_eq!(
            marks.get("3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b"),
            Some((Mark::Good, false))
        );
        assert_eq!(marks.get("3ff6cde"), Some((Mark::Good, false)));
        assert_eq!(marks.get("3ff6cdf846"), None);
        assert_eq!(marks.get("a337531b95"), None);
        assert_eq!(marks.get("a3375"), None, "under 7 characters");
    }
}
