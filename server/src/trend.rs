//! Trends as a service: the runs of one metric in commit order, their marks, and the change
//! points; also the parsers of what users upload about history (`git log`, `git bisect log`).

use std::collections::HashMap;
use std::sync::Arc;

use app::kernel::compare_kernels;
use app::label::{Direction, Label};
use app::trend::{Mark, Trend, TrendChange, TrendPoint, TrendQuery, TrendRun};

use crate::changepoint;
use crate::error::ApiError;
use crate::ingest::IngestError;
use crate::store::{CommitMarks, History, HistoryCommit, TrendRun as StoredRun, TrendRuns};
use crate::AppState;

/// Checks a trend query at the edge.
pub fn validate(q: &TrendQuery) -> Result<(), ApiError> {
    let label = |field: &str, value: &str| {
        Label::parse(value).map_err(|e| ApiError::BadRequest(format!("{field} {e}")))
    };
    label("benchmark", &q.benchmark)?;
    label("machine", &q.machine)?;
    label("metric", &q.metric)?;
    if q.param.chars().any(char::is_control) {
        return Err(ApiError::BadRequest(
            "param contains a control character".into(),
        ));
    }
    if let Some(h) = &q.history {
        if !h.contains('/') {
            return Err(ApiError::BadRequest(format!(
                "history must be repo/branch, not {h:?}"
            )));
        }
    }
    Ok(())
}

/// Whether `short` names `full` (a full sha, or an abbreviation of at least 7 characters).
fn names(short: &str, full: &str) -> bool {
    short == full || (short.len() >= 7 && full.starts_with(short))
}

/// How many of a trend's newest commits choose the history it is ordered by, when it names none.
const HISTORY_CHOOSERS: usize = 200;

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
    let mut points: Vec<TrendPoint> = groups
        .map(|(key, runs)| {
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
    let change_points = changepoint::change_points(&means, &changepoint::Options::default())
        .into_iter()
        .map(|c| {
            let p = &points[c.index];
            let worse = match direction {
                Direction::Higher => c.after < c.before,
                Direction::Lower => c.after > c.before,
            };
            TrendChange {
                x: c.index,
                sha: p.sha.clone(),
                kernel: p.kernel.clone(),
                before: c.before,
                after: c.after,
                change_pct: c.change_pct,
                verdict: if worse { "regression" } else { "improvement" }.to_owned(),
                p_value: c.p_value,
            }
        })
        .collect();
    Trend {
        query,
        order,
        unit,
        direction,
        points,
        change_points,
    }
}

/// Trends computed for the current store generation, and their rendered bodies: a trend of
/// 50,000 runs takes ~10–15 ms to read and compute and as much again to render as JSON or SVG,
/// and is then served from here until the next write (upload, mark, history, bisect log).
#[derive(Default)]
pub struct TrendCache {
    trends: std::sync::Mutex<HashMap<TrendQuery, (u64, Arc<Trend>)>>,
    bodies: std::sync::Mutex<HashMap<(TrendQuery, String), (u64, bytes::Bytes)>>,
}

/// Entries per map before it is emptied (a crude bound; trends are few and hot).
const CACHE_ENTRIES: usize = 64;

impl TrendCache {
    fn get_trend(&self, q: &TrendQuery, generation: u64) -> Option<Arc<Trend>> {
        let map = self.trends.lock().ok()?;
        map.get(q)
            .filter(|(g, _)| *g == generation)
            .map(|(_, t)| t.clone())
    }

    fn put_trend(&self, q: TrendQuery, generation: u64, t: Arc<Trend>) {
        let stale = match self.trends.lock() {
            Ok(mut map) => {
                if map.len() >= CACHE_ENTRIES {
                    map.clear();
                }
                map.insert(q, (generation, t))
            }
            Err(_) => None,
        };
        // Freeing a stale trend of 10,000 points takes a few milliseconds: not the request's.
        if let Some(stale) = stale {
            tokio::task::spawn_blocking(move || drop(stale));
        }
    }

    /// A rendered body of `q` in `shape` for this generation.
    pub fn get_body(&self, q: &TrendQuery, shape: &str, generation: u64) -> Option<bytes::Bytes> {
        let map = self.bodies.lock().ok()?;
        map.get(&(q.clone(), shape.to_owned()))
            .filter(|(g, _)| *g == generation)
            .map(|(_, b)| b.clone())
    }

    pub fn put_body(&self, q: TrendQuery, shape: String, generation: u64, body: bytes::Bytes) {
        if let Ok(mut map) = self.bodies.lock() {
            if map.len() >= CACHE_ENTRIES {
                map.clear();
            }
            map.insert((q, shape), (generation, body));
        }
    }
}

impl AppState {
    /// The trend of `query`, from the cache when nothing was written since it was computed.
    pub async fn trend(&self, query: TrendQuery) -> Result<Arc<Trend>, ApiError> {
        validate(&query)?;
        let generation = self.store.generation().await?;
        if let Some(t) = self.trend_cache.get_trend(&query, generation) {
            return Ok(t);
        }
        let trend = Arc::new(self.compute_trend(query.clone()).await?);
        self.trend_cache.put_trend(query, generation, trend.clone());
        Ok(trend)
    }

    async fn compute_trend(&self, query: TrendQuery) -> Result<Trend, ApiError> {
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
            return Err(ApiError::NotFound(format!(
                "no runs of benchmark {} on machine {} with metric {} at param {:?}",
                query.benchmark, query.machine, query.metric, query.param
            )));
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
        let wanted = query.history.as_deref().and_then(|h| h.split_once('/'));
        let history = self.store.history_for(wanted, &shas).await?;
        if wanted.is_some() && history.is_none() {
            return Err(ApiError::NotFound(format!(
                "no history {}; upload one with POST /api/v1/commits?repo=R&branch=B",
                query.history.as_deref().unwrap_or_default()
            )));
        }
        let marks = self.store.commit_marks().await?;
        self.heavy
            .run(move || build(query, &runs, history.as_deref(), &marks))
            .await
    }
}

impl AppState {
    /// The LKP robot's regression mail for `bad` against `base`: the `%stddev %change %stddev`
    /// table of every metric LKP's rule calls changed, then the ASCII trend of each.
    pub async fn report(
        &self,
        benchmark: &str,
        machine: &str,
        base: &str,
        bad: &str,
        link: &str,
    ) -> Result<String, ApiError> {
        for (name, v) in [("benchmark", benchmark), ("machine", machine)] {
            Label::parse(v).map_err(|e| ApiError::BadRequest(format!("{name} {e}")))?;
        }
        for (name, v) in [("base", base), ("bad", bad)] {
            if !is_sha(v) {
                return Err(ApiError::BadRequest(format!(
                    "{name} must be a commit id (7 to 64 hex digits), not {v:?}"
                )));
            }
        }
        let (base, bad) = (base.to_ascii_lowercase(), bad.to_ascii_lowercase());
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
                return Err(ApiError::NotFound(format!(
                    "no runs of benchmark {benchmark} on machine {machine} at {name} commit {c}"
                )));
            }
        }
        let query = app::types::CompareQuery {
            benchmark: benchmark.to_owned(),
            machine: machine.to_owned(),
            kernels: vec![base.clone(), bad.clone()],
            metric: None,
        };
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
                out.push_str(&format!(
                    "FYI, we noticed a {pct:+.1}% {} of {}.{} due to commit:\n\n",
                    if worse { "regression" } else { "improvement" },
                    benchmark,
                    row.label
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
            let trend = self
                .trend(TrendQuery {
                    benchmark: benchmark.to_owned(),
                    machine: machine.to_owned(),
                    metric: row.metric.clone(),
                    param: row.param.clone(),
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

/// A full or abbreviated commit id: 7 to 64 hex digits.
fn is_sha(s: &str) -> bool {
    (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Parses `git log --format='%H %ct %s'` or `git rev-list` output (newest first, as git prints
/// it) into a history, oldest first.
pub fn parse_git_log(text: &str) -> Result<Vec<HistoryCommit>, IngestError> {
    let mut commits = Vec::new();
    for (no, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.splitn(3, ' ');
        let sha = parts.next().unwrap_or_default();
        if !is_sha(sha) {
            return Err(IngestError::at_line(
                no as u64 + 1,
                format!("'{sha}' is not a commit id; expected lines of `git log --format='%H %ct %s'` or `git rev-list`"),
            ));
        }
        let (time, subject) = match parts.next() {
            Some(t) if t.bytes().all(|b| b.is_ascii_digit()) => (
                t.parse::<i64>().ok(),
                parts.next().map(|s| s.trim().to_owned()),
            ),
            Some(t) => (
                None,
                Some(
                    format!("{t} {}", parts.next().unwrap_or_default())
                        .trim()
                        .to_owned(),
                ),
            ),
            None => (None, None),
        };
        commits.push(HistoryCommit {
            sha: sha.to_ascii_lowercase(),
            time,
            // ESC, BEL and the like never reach a terminal through a report.
            subject: subject
                .map(|s| app::label::clean_subject(&s))
                .filter(|s| !s.is_empty()),
        });
    }
    if commits.is_empty() {
        return Err(IngestError::new("the commit list is empty"));
    }
    commits.reverse();
    Ok(commits)
}

/// The most verdicts one bisect log may carry.
pub const MAX_BISECT_VERDICTS: usize = 10_000;

/// A bisect log's verdicts per commit, and the first bad commit.
pub type BisectVerdicts = (Vec<(String, Mark)>, Option<String>);

/// The verdicts of a `git bisect log`, and the first bad commit if the bisection found it.
pub fn parse_bisect_log(text: &str) -> Result<BisectVerdicts, IngestError> {
    let mut marks: Vec<(String, Mark)> = Vec::new();
    let mut first_bad = None;
    let bracketed = |rest: &str| -> Option<String> {
        let inner = rest.trim().strip_prefix('[')?.split(']').next()?;
        is_sha(inner).then(|| inner.to_ascii_lowercase())
    };
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("# first bad commit:") {
            first_bad = bracketed(rest);
        } else if let Some(rest) = line.strip_prefix("git bisect ") {
            let mut words = rest.split_whitespace();
            let mark = match words.next() {
                Some("good") | Some("old") => Mark::Good,
                Some("bad") | Some("new") => Mark::Bad,
                Some("skip") => Mark::Skip,
                _ => continue,
            };
            for sha in words.filter(|w| is_sha(w)) {
                marks.push((sha.to_ascii_lowercase(), mark));
            }
        } else if let Some(rest) = line.strip_prefix("# good:") {
            if let Some(sha) = bracketed(rest) {
                marks.push((sha, Mark::Good));
            }
        } else if let Some(rest) = line.strip_prefix("# bad:") {
            if let Some(sha) = bracketed(rest) {
                marks.push((sha, Mark::Bad));
            }
        } else if let Some(rest) = line.strip_prefix("# skip:") {
            if let Some(sha) = bracketed(rest) {
                marks.push((sha, Mark::Skip));
            }
        }
    }
    if marks.len() > MAX_BISECT_VERDICTS {
        return Err(IngestError::new(format!(
            "{} verdicts in one bisect log; at most {MAX_BISECT_VERDICTS} are accepted (a bisection of a million commits takes about 20)",
            marks.len()
        )));
    }
    if marks.is_empty() && first_bad.is_none() {
        return Err(IngestError::new(
            "no verdicts found; expected the output of `git bisect log`",
        ));
    }
    // The last verdict on a commit wins.
    let mut seen = std::collections::HashSet::new();
    marks.reverse();
    marks.retain(|(sha, _)| seen.insert(sha.clone()));
    marks.reverse();
    if let Some(fb) = &first_bad {
        if !marks.iter().any(|(s, _)| s == fb) {
            marks.push((fb.clone(), Mark::Bad));
        }
    }
    Ok((marks, first_bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_lose_their_control_characters() {
        let h = parse_git_log("a337531b94 1538000000 tcp:\u{1b}[2J fix\u{7}\n").unwrap();
        assert_eq!(h[0].subject.as_deref(), Some("tcp:[2J fix"));
    }

    #[test]
    fn commit_marks_are_found_by_abbreviation_either_way() {
        let marks = CommitMarks::new(HashMap::from([
            ("a337531b942bd8a03e7052444d7e36972aac2d92".to_owned(), (Mark::Bad, true)),
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

    #[test]
    fn bisect_logs_have_a_bound() {
        let log: String = (0..=MAX_BISECT_VERDICTS)
            .map(|i| format!("git bisect good {i:040x}\n"))
            .collect();
        let e = parse_bisect_log(&log).unwrap_err();
        assert!(e.message.starts_with("10001 verdicts in one bisect log; at most 10000"), "{e}");
    }

    #[test]
    fn git_log_and_rev_list_become_a_history_oldest_first() {
        let log =
            "a337531b942bd8a03e7052444d7e36972aac2d92 1538000000 tcp: up initial rmem to 128KB\n\
                   3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b 1537990000 hns3: Another build fix.\n";
        let h = parse_git_log(log).unwrap();
        assert_eq!(h[0].sha, "3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b");
        assert_eq!(h[0].time, Some(1537990000));
        assert_eq!(
            h[1].subject.as_deref(),
            Some("tcp: up initial rmem to 128KB")
        );
        let h = parse_git_log("a337531b94\n3ff6cde846\n").unwrap();
        assert_eq!((h[0].sha.as_str(), h[0].time), ("3ff6cde846", None));
        let err = parse_git_log("a337531b94\nnot-a-sha x\n").unwrap_err();
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn bisect_logs_mark_commits() {
        let log = "git bisect start\n\
                   # bad: [a337531b942bd8a03e7052444d7e36972aac2d92] tcp: up initial rmem\n\
                   git bisect bad a337531b942bd8a03e7052444d7e36972aac2d92\n\
                   # good: [3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b] hns3: Another build fix.\n\
                   git bisect good 3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b\n\
                   git bisect skip 1111111111111111111111111111111111111111\n\
                   # first bad commit: [a337531b942bd8a03e7052444d7e36972aac2d92] tcp: up initial rmem\n";
        let (marks, first) = parse_bisect_log(log).unwrap();
        assert_eq!(
            first.as_deref(),
            Some("a337531b942bd8a03e7052444d7e36972aac2d92")
        );
        assert_eq!(marks.len(), 3);
        assert!(marks.contains(&(
            "3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b".into(),
            Mark::Good
        )));
        assert!(marks.contains(&(
            "1111111111111111111111111111111111111111".into(),
            Mark::Skip
        )));
        assert!(parse_bisect_log("hello\n").is_err());
    }
}
