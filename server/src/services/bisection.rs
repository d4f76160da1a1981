// SPDX-License-Identifier: GPL-3.0-or-later
//! Bisections Perfline drives: started from an alert or a series and two commits, advanced by
//! replaying `bisection::walk` over the runs uploaded since the start (on every read and in each
//! detector pass), each verdict written as a bisect mark, the next commit handed to robots
//! (`GET /api/v1/bisections/{id}/next`, and `GET /api/v1/work` for the machine), and the end
//! recorded: the culprit moves the alert to it (a `bisected` event, mailed in the alert's
//! thread), or the reason it failed.

use std::collections::HashMap;
use std::sync::Arc;

use app::bisection::{Bisection, BisectionState, NewBisection, NextRun, TestedCommit};
use app::label::{Label, Metric, Param};
use app::trend::{Mark, TrendQuery};

use crate::domain::bisection::{self, Next, Plan, Walk};
use crate::domain::verdict::Verdict;
use crate::services::{ServiceError, Services};
use crate::store::{HistoryCommit, StoredBisection};

/// The most commits a bisection's range may hold.
pub const MAX_RANGE: usize = 100_000;

/// Who holds the runs of a request while its lease holds: the holder, how many runs, since
/// when and until when (times in UTC); `None` once the lease ended.
pub fn waiting_for(lease: &app::alerts::LeaseState, commit: &str, now: i64) -> Option<String> {
    if !lease.holds(now) {
        return None;
    }
    let holder = lease.holder.as_deref().unwrap_or("a robot");
    Some(format!(
        "{holder} holds {} run{} of {} since {}, lease until {}",
        lease.handed,
        if lease.handed == 1 { "" } else { "s" },
        app::text::short_commit(commit),
        app::text::utc_seconds(lease.since),
        app::text::utc_seconds(lease.until)
    ))
}

/// A bisection's walk and what it walked over.
struct Advanced {
    b: StoredBisection,
    commits: Vec<HistoryCommit>,
    runs: Vec<Vec<f64>>,
    skip: Vec<bool>,
    walk: Walk,
}

fn bad(m: impl Into<String>) -> ServiceError {
    ServiceError::Invalid(m.into())
}

/// Whether two commit names are the same commit (either abbreviates the other).
fn same(a: &str, b: &str) -> bool {
    !a.is_empty() && !b.is_empty() && (a.starts_with(b) || b.starts_with(a))
}

fn short(sha: &str) -> &str {
    app::text::short_commit(sha)
}

impl Services {
    /// Starts a bisection from `new` (checked here) as `actor`.
    pub async fn start_bisection(
        &self,
        new: &NewBisection,
        actor: &str,
    ) -> Result<Bisection, ServiceError> {
        let max_runs = new.max_runs.unwrap_or(bisection::DEFAULT_MAX_RUNS);
        if !(1..=200).contains(&max_runs) {
            return Err(bad(format!(
                "max_runs must be between 1 and 200, not {max_runs}"
            )));
        }
        let mut b = match new.alert {
            Some(id) => self.bisection_of_alert(id, new).await?,
            None => self.bisection_of_series(new).await?,
        };
        b.max_runs = max_runs;
        b.created_by = actor.to_owned();
        let id = self.store.insert_bisection(&b).await?;
        self.bisection_view(id).await
    }

    async fn bisection_of_alert(
        &self,
        id: i64,
        new: &NewBisection,
    ) -> Result<StoredBisection, ServiceError> {
        if new.benchmark.is_some() || new.good.is_some() || new.bad.is_some() {
            return Err(bad(
                "give either alert, or benchmark, machine, metric, history, good and bad",
            ));
        }
        let s = self
            .store
            .alert_summary(id)
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("no alert summary {id}")))?;
        let lead = s
            .alerts
            .first()
            .ok_or_else(|| bad(format!("alert summary {id} has no alerts")))?;
        let history = s.history.clone().ok_or_else(|| {
            bad(format!(
                "alert summary {id} has no history to bisect: upload one (POST /api/v1/commits) before its runs"
            ))
        })?;
        let (Some(good), Some(bad_sha)) = (s.good.sha.clone(), s.bad.sha.clone()) else {
            return Err(bad(format!("alert summary {id}'s runs named no commits")));
        };
        let run_sd = self
            .store
            .alert_run_sd(lead.id)
            .await?
            .unwrap_or((lead.after - lead.before).abs() / 10.0);
        Ok(StoredBisection {
            summary_id: Some(id),
            benchmark: s.benchmark.to_string(),
            machine: s.machine.to_string(),
            metric: lead.metric.to_string(),
            param: lead.param.clone(),
            history,
            good,
            bad: bad_sha,
            step: lead.after - lead.before,
            run_sd,
            ..blank()
        })
    }

    async fn bisection_of_series(
        &self,
        new: &NewBisection,
    ) -> Result<StoredBisection, ServiceError> {
        let need = |field: &str, v: &Option<String>| -> Result<String, ServiceError> {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| bad(format!("{field} is missing: give alert, or benchmark, machine, metric, history, good and bad")))
        };
        let benchmark = Label::parse(&need("benchmark", &new.benchmark)?)
            .map_err(|e| bad(format!("benchmark {e}")))?;
        let machine = Label::parse(&need("machine", &new.machine)?)
            .map_err(|e| bad(format!("machine {e}")))?;
        let metric =
            Metric::parse(&need("metric", &new.metric)?).map_err(|e| bad(format!("metric {e}")))?;
        let param = Param::parse(new.param.as_deref().unwrap_or(""))
            .map_err(|e| bad(format!("param {e}")))?;
        let history = need("history", &new.history)?;
        let (good, bad_sha) = (need("good", &new.good)?, need("bad", &new.bad)?);
        for (field, sha) in [("good", &good), ("bad", &bad_sha)] {
            if let Err(e) = app::label::CommitSha::parse(sha) {
                return Err(ServiceError::Field {
                    field,
                    message: format!("{field} {e}"),
                });
            }
        }
        let h = app::label::HistoryName::parse(&history).map_err(bad)?;
        let trend = self
            .trend(TrendQuery {
                benchmark: benchmark.clone(),
                machine: machine.clone(),
                metric: metric.clone(),
                param: param.clone(),
                history: Some(h.clone()),
            })
            .await?;
        // The step and the spread as the trend sees them: the mean of the points up to the
        // good commit against those from the bad one (at most ten each).
        let at = |sha: &str| {
            trend
                .points
                .iter()
                .position(|p| p.sha.as_deref().is_some_and(|s| same(s, sha)))
        };
        let (Some(g), Some(bd)) = (at(&good), at(&bad_sha)) else {
            return Err(bad(
                "good and bad must both be commits of the series' trend (runs with those commits)",
            ));
        };
        if g >= bd {
            return Err(bad("good must come before bad in the history"));
        }
        let mean = |v: &[app::trend::TrendPoint]| {
            v.iter().map(|p| p.mean).sum::<f64>() / v.len().max(1) as f64
        };
        let before = mean(&trend.points[g.saturating_sub(9)..=g]);
        let after = mean(&trend.points[bd..(bd + 10).min(trend.points.len())]);
        let level = before.abs();
        let run_sd = trend
            .noise
            .between_cv
            .or(trend.noise.within_cv)
            .map(|cv| cv * level)
            .filter(|v| *v > 0.0)
            .unwrap_or((after - before).abs() / 10.0);
        Ok(StoredBisection {
            benchmark: benchmark.as_str().to_owned(),
            machine: machine.as_str().to_owned(),
            metric: metric.as_str().to_owned(),
            param: param.as_str().to_owned(),
            history: h.to_string(),
            good,
            bad: bad_sha,
            step: after - before,
            run_sd,
            ..blank()
        })
    }

    /// Replays bisection `b` over its runs and records what changed: new verdicts (as
    /// bisect marks and events), its end, the request for the next commit.
    async fn advance(&self, b: StoredBisection) -> Result<Advanced, ServiceError> {
        let (repo, branch) = b.history.split_once('/').unwrap_or((&b.history, ""));
        let history: Arc<crate::store::History> = self
            .store
            .history_for(Some((repo, branch)), &[])
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("no history {}", b.history)))?;
        let pos = |sha: &str| history.commits.iter().position(|c| same(&c.sha, sha));
        let (Some(g), Some(bd)) = (pos(&b.good), pos(&b.bad)) else {
            return Err(bad(format!(
                "the history {} no longer holds {} and {}",
                b.history,
                short(&b.good),
                short(&b.bad)
            )));
        };
        if bd <= g || bd - g + 1 > MAX_RANGE {
            return Err(bad(format!(
                "good must come before bad in {}, at most {MAX_RANGE} commits apart",
                b.history
            )));
        }
        let commits: Vec<HistoryCommit> = history.commits[g..=bd].to_vec();
        let index: HashMap<&str, usize> = commits
            .iter()
            .enumerate()
            .map(|(i, c)| (c.sha.as_str(), i))
            .collect();
        let mut runs = vec![Vec::new(); commits.len()];
        let shas: Vec<&str> = commits.iter().map(|c| c.sha.as_str()).collect();
        for (sha, mean) in self.store.bisection_runs(&b, &shas).await? {
            let i = index
                .get(sha.as_str())
                .copied()
                .or_else(|| commits.iter().position(|c| same(&c.sha, &sha)));
            if let Some(i) = i {
                runs[i].push(mean);
            }
        }
        let marks = self.store.commit_marks().await?;
        let skip: Vec<bool> = commits
            .iter()
            .map(|c| marks.get(&c.sha).is_some_and(|(m, _)| m == Mark::Skip))
            .collect();
        let plan = Plan {
            runs: runs.clone(),
            skip: skip.clone(),
            step: b.step,
            run_sd: b.run_sd,
            max_runs: b.max_runs,
        };
        let walk = bisection::walk(&plan);
        if b.state == BisectionState::Running {
            let own = self.store.bisection_marks(b.id).await?;
            self.record(&b, &commits, &runs, &walk, &own).await?;
        }
        // Read again: it may have ended just now.
        let b = self.store.bisection(b.id).await?.unwrap_or(b);
        Ok(Advanced {
            b,
            commits,
            runs,
            skip,
            walk,
        })
    }

    async fn record(
        &self,
        b: &StoredBisection,
        commits: &[HistoryCommit],
        runs: &[Vec<f64>],
        walk: &Walk,
        marks: &crate::store::CommitMarks,
    ) -> Result<(), ServiceError> {
        let mut new_marks = Vec::new();
        // A weak call (a guess at the run cap) is no verdict: the bisection fails, saying
        // where the balance points, and marks nothing for it.
        for (i, call) in walk.standing() {
            let mark = if call.verdict == Verdict::Bad {
                Mark::Bad
            } else {
                Mark::Good
            };
            if marks.get(&commits[i].sha).map(|(m, _)| m) != Some(mark) {
                new_marks.push((commits[i].sha.clone(), mark));
                let r = &runs[i];
                let detail = format!(
                    "{}: {}{} ({} over {} run{})",
                    short(&commits[i].sha),
                    mark.as_str(),
                    if call.forced {
                        ", on the balance at the run cap"
                    } else {
                        ""
                    },
                    fmt_mean(r),
                    r.len(),
                    if r.len() == 1 { "" } else { "s" }
                );
                self.store
                    .bisection_event(b.id, "perfline", "verdict", &detail, None)
                    .await?;
            }
        }
        let culprit = match &walk.next {
            Next::Done { culprit } => Some(commits[*culprit].sha.clone()),
            _ => None,
        };
        if let Some(c) = &culprit {
            if !new_marks.iter().any(|(sha, _)| sha == c) {
                new_marks.push((c.clone(), Mark::Bad));
            }
        }
        if !new_marks.is_empty() {
            self.store
                .set_bisection_marks(b.id, &new_marks, culprit.as_deref())
                .await?;
        }
        match &walk.next {
            Next::Done { culprit } => {
                let c = &commits[*culprit];
                // A merge, or a commit that cannot change the kernel: say so, and how to
                // re-test it and its parent with more runs.
                let why = match self.store.commit_detail(&c.sha).await? {
                    Some((parents, files)) => {
                        let arch = self.store.machine_fact(&b.machine, "arch").await?;
                        bisection::suspicious(parents, files.as_deref(), arch.as_deref())
                    }
                    None => None,
                };
                if let Some(why) = why {
                    let parent = &commits[culprit.saturating_sub(1)].sha;
                    let text = format!(
                        "suspicious culprit: {why}; re-test it and its parent with more runs: {}",
                        retest_command(b, parent, &c.sha)
                    );
                    self.store.set_bisection_suspicious(b.id, &text).await?;
                }
                let detail = format!(
                    "the first bad commit is {}{}",
                    c.sha,
                    c.subject
                        .as_deref()
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default()
                );
                // The alert moves to the culprit and its parent in the same transaction;
                // its thread gets the news.
                let ended = match b.summary_id {
                    Some(summary) => {
                        self.store
                            .end_bisection_at_culprit(b.id, "perfline", &detail, &c.sha, summary)
                            .await?
                    }
                    None => {
                        self.store
                            .bisection_event(
                                b.id,
                                "perfline",
                                "done",
                                &detail,
                                Some((BisectionState::Done, Some(&c.sha))),
                            )
                            .await?
                    }
                };
                if ended && b.summary_id.is_some() {
                    self.wakers.events.notify_one();
                }
            }
            Next::Failed(reason) => {
                // Where the verdicts decided at the cap point: said, with how to be sure.
                let reason = match walk.on_balance {
                    Some(i) => format!(
                        "{reason}; on that balance the first bad commit would be {}{}; start again with a higher max_runs (e.g. {}) to be sure",
                        short(&commits[i].sha),
                        commits[i]
                            .subject
                            .as_deref()
                            .map(|s| format!(" ({s})"))
                            .unwrap_or_default(),
                        (b.max_runs * 2).min(200)
                    ),
                    None => reason.clone(),
                };
                self.store
                    .bisection_event(
                        b.id,
                        "perfline",
                        "failed",
                        &reason,
                        Some((BisectionState::Failed, None)),
                    )
                    .await?;
            }
            Next::Run { index, runs: want } => {
                let c = &commits[*index];
                let reason = format!(
                    "bisection {}: run {} on {} at {} ({} commits left between the bounds)",
                    b.id,
                    app::alerts::series_name(&b.benchmark, &b.metric),
                    b.machine,
                    short(&c.sha),
                    walk.bad.saturating_sub(walk.good + 1)
                );
                self.store.bisect_request(b, &c.sha, *want, &reason).await?;
            }
        }
        Ok(())
    }

    async fn stored_bisection(&self, id: i64) -> Result<StoredBisection, ServiceError> {
        self.store
            .bisection(id)
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("no bisection {id}")))
    }

    /// One bisection, advanced, with its events.
    pub async fn bisection_view(&self, id: i64) -> Result<Bisection, ServiceError> {
        let b = self.stored_bisection(id).await?;
        let a = self.advance(b).await?;
        let mut view = view_of(&a);
        view.events = self.store.bisection_events(id).await?;
        if let Some(r) = self.store.bisection_request(id).await? {
            if let Some(next) = view.next.as_mut() {
                next.request = Some(r.request.id);
                if next.commit.as_deref() == Some(r.request.commit.as_str()) {
                    next.until = r.request.lease.until;
                    next.waiting =
                        waiting_for(&r.request.lease, &r.request.commit, super::now_ms());
                }
            }
            view.lease = Some(r.request.lease);
        }
        Ok(view)
    }

    /// The newest bisections (at most `limit`), advanced.
    pub async fn bisection_list(&self, limit: i64) -> Result<Vec<Bisection>, ServiceError> {
        let mut out = Vec::new();
        for b in self.store.bisections(limit).await? {
            out.push(view_of(&self.advance(b).await?));
        }
        Ok(out)
    }

    /// The commit to run next and how many runs it needs now, taken for `robot` on a lease
    /// ([`Services::claim_work`]'s rules): runs out with a robot whose lease holds are not
    /// handed out again; runs given back or whose lease ended are.
    pub async fn next_run(&self, id: i64, robot: &str) -> Result<NextRun, ServiceError> {
        let b = self.stored_bisection(id).await?;
        let a = self.advance(b).await?;
        let state = a.b.state;
        let none = NextRun {
            state,
            commit: None,
            runs: 0,
            request: None,
            until: 0,
            renew_every_ms: 0,
            waiting: None,
        };
        let (BisectionState::Running, Next::Run { index, runs: want }) = (state, &a.walk.next)
        else {
            return Ok(none);
        };
        let sha = &a.commits[*index].sha;
        let reason = format!("bisection {id}");
        let r = self.store.bisect_request(&a.b, sha, *want, &reason).await?;
        let lease = self.claim_work(r.id, robot, *want).await?;
        if lease.runs == 0 {
            let waiting = match self.store.work_request(r.id).await? {
                Some(held) => waiting_for(&held.request.lease, sha, super::now_ms()),
                None => None,
            }
            .or_else(|| {
                Some(format!(
                    "the runs of {} are in; judging them",
                    app::text::short_commit(sha)
                ))
            });
            return Ok(NextRun {
                request: Some(r.id),
                waiting,
                ..none
            });
        }
        Ok(NextRun {
            state,
            commit: Some(sha.clone()),
            runs: lease.runs,
            request: Some(r.id),
            until: lease.until,
            renew_every_ms: lease.renew_every_ms,
            waiting: None,
        })
    }

    /// Cancels a running bisection.
    pub async fn cancel_bisection(&self, id: i64, actor: &str) -> Result<Bisection, ServiceError> {
        let b = self.stored_bisection(id).await?;
        if b.state == BisectionState::Running {
            self.store
                .bisection_event(
                    id,
                    actor,
                    "cancelled",
                    &format!("cancelled by {actor}"),
                    Some((BisectionState::Cancelled, None)),
                )
                .await?;
        }
        self.bisection_view(id).await
    }

    /// The bisection as a `git bisect log` that `git bisect replay` accepts: the two ends,
    /// then each verdict in the order the walk reached it, and the culprit.
    pub async fn bisection_log(&self, id: i64) -> Result<String, ServiceError> {
        let b = self.stored_bisection(id).await?;
        let a = self.advance(b).await?;
        Ok(log_of(&a))
    }
}

/// One pass over the running bisections (in the detector's pass): each advanced, so that one
/// whose runs are in ends without anyone asking. Each on its own (`background::isolate`): one
/// that panics or fails for good is set aside and the others advance.
pub async fn bisect_once(state: &Services) -> Result<usize, ServiceError> {
    use crate::services::background::{isolate, set_aside, Item};
    let mut ended = 0;
    for id in state.store.running_bisections().await? {
        match isolate(bisect_one(state, id)).await {
            Ok(true) => ended += 1,
            Ok(false) => {}
            Err(caught) => {
                let item = Item {
                    task: "bisection",
                    kind: "bisection",
                    id,
                    series: None,
                    what: format!("bisection {id}"),
                };
                set_aside(state, &item, caught).await?;
            }
        }
    }
    Ok(ended)
}

/// The most summaries one pass looks at for a bisection their rule starts.
const AUTO_BISECT_BATCH: i64 = 20;

/// One pass over announced regressions whose rule bisects (`"bisect": true`, or a rule that
/// names a history): each starts its bisection, once; one that cannot start says why on the
/// alert's timeline. How many started.
pub async fn auto_bisect_once(state: &Services) -> Result<usize, ServiceError> {
    let candidates = state.store.summaries_to_bisect(AUTO_BISECT_BATCH).await?;
    if candidates.is_empty() {
        return Ok(0);
    }
    let rules = state.store.alert_rules().await?;
    let mut started = 0;
    for id in candidates {
        let Some(s) = state.store.alert_summary(id).await? else {
            continue;
        };
        let Some(lead) = s.lead() else { continue };
        let rule = rules
            .iter()
            .find(|r| r.matches(&s.benchmark, &lead.metric, &lead.param));
        let Some(rule) = rule.filter(|r| r.bisects()) else {
            // No rule bisects it: looked at, so it is not read again (a rule added later
            // bisects the regressions announced after it).
            state.store.record_bisecting(id, None).await?;
            continue;
        };
        if let (Some(wanted), Some(have)) = (&rule.history, &s.history) {
            if wanted != have {
                let note =
                    format!("not started: the rule bisects in {wanted}, the alert is in {have}");
                state.store.record_bisecting(id, Some(&note)).await?;
                continue;
            }
        }
        let new = NewBisection {
            alert: Some(id),
            ..NewBisection::default()
        };
        let note = match state.start_bisection(&new, "perfline").await {
            Ok(b) => {
                started += 1;
                tracing::info!(summary = id, bisection = b.id, "a rule started a bisection");
                format!("bisection {} started by its alert rule", b.id)
            }
            Err(ServiceError::Store(e)) => return Err(ServiceError::Store(e)),
            Err(e) => format!("could not start a bisection: {e}"),
        };
        state.store.record_bisecting(id, Some(&note)).await?;
    }
    Ok(started)
}

/// Advances running bisection `id`: whether it ended.
async fn bisect_one(state: &Services, id: i64) -> Result<bool, ServiceError> {
    crate::services::background::fault(state, &format!("bisection {id}"));
    let Some(b) = state.store.bisection(id).await? else {
        return Ok(false);
    };
    match state.advance(b).await {
        Ok(a) => Ok(a.b.state != BisectionState::Running),
        // A history replaced under it: the bisection cannot go on.
        Err(ServiceError::Invalid(reason)) => {
            state
                .store
                .bisection_event(
                    id,
                    "perfline",
                    "failed",
                    &reason,
                    Some((BisectionState::Failed, None)),
                )
                .await?;
            Ok(true)
        }
        Err(e) => Err(e),
    }
}

fn blank() -> StoredBisection {
    StoredBisection {
        id: 0,
        state: BisectionState::Running,
        summary_id: None,
        benchmark: String::new(),
        machine: String::new(),
        metric: String::new(),
        param: String::new(),
        history: String::new(),
        good: String::new(),
        bad: String::new(),
        step: 0.0,
        run_sd: 0.0,
        max_runs: bisection::DEFAULT_MAX_RUNS,
        after_run: 0,
        culprit: None,
        reason: None,
        suspicious: None,
        created_by: String::new(),
        created_at: String::new(),
        updated_at: String::new(),
    }
}

/// The command that re-tests a suspicious culprit `bad` and its parent `good` with more runs,
/// every value quoted for a shell (the names are any uploader's).
fn retest_command(b: &StoredBisection, good: &str, bad: &str) -> String {
    use app::shell::option;
    let mut words = vec![
        "perfline bisect start".to_owned(),
        option("benchmark", &b.benchmark),
        option("machine", &b.machine),
        option("metric", &b.metric),
    ];
    if !b.param.is_empty() {
        words.push(option("param", &b.param));
    }
    words.extend([
        option("history", &b.history),
        option("good", good),
        option("bad", bad),
        format!("--max-runs={}", (b.max_runs * 2).min(200)),
    ]);
    words.join(" ")
}

fn fmt_mean(v: &[f64]) -> String {
    if v.is_empty() {
        return "no runs".into();
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    let digits = (3 - m.abs().max(1e-9).log10().floor() as i32).clamp(0, 6) as usize;
    format!("mean {m:.digits$}")
}

fn view_of(a: &Advanced) -> Bisection {
    let b = &a.b;
    let w = &a.walk;
    let last = a.commits.len() - 1;
    let tested = (0..a.commits.len())
        .filter(|&i| {
            !a.runs[i].is_empty() || w.calls[i].is_some() || (a.skip[i] && i > w.good && i < w.bad)
        })
        .map(|i| {
            let r = &a.runs[i];
            let (verdict, forced) = match w.calls[i] {
                Some(c) if c.verdict == Verdict::Bad => ("bad", c.forced),
                Some(c) => ("good", c.forced),
                None if a.skip[i] => ("skip", false),
                None => ("unsure", false),
            };
            TestedCommit {
                commit: a.commits[i].sha.clone(),
                subject: a.commits[i].subject.clone(),
                runs: r.len() as u32,
                mean: (!r.is_empty()).then(|| r.iter().sum::<f64>() / r.len() as f64),
                verdict: verdict.to_owned(),
                forced,
            }
        })
        .collect();
    let running = b.state == BisectionState::Running;
    let next = match (&w.next, running) {
        (Next::Run { index, runs }, true) => Some(NextRun {
            state: b.state,
            commit: Some(a.commits[*index].sha.clone()),
            runs: runs.saturating_sub(a.runs[*index].len() as u32),
            request: None,
            until: 0,
            renew_every_ms: 0,
            waiting: None,
        }),
        _ => None,
    };
    let culprit_subject = b.culprit.as_deref().and_then(|c| {
        a.commits
            .iter()
            .find(|x| same(&x.sha, c))
            .and_then(|x| x.subject.clone())
    });
    Bisection {
        id: b.id,
        state: b.state,
        alert: b.summary_id,
        benchmark: b.benchmark.clone(),
        machine: b.machine.clone(),
        metric: b.metric.clone(),
        param: b.param.clone(),
        history: b.history.clone(),
        good: a.commits[w.good.min(last)].sha.clone(),
        bad: a.commits[w.bad.min(last)].sha.clone(),
        culprit: b.culprit.clone(),
        culprit_subject,
        reason: b.reason.clone(),
        suspicious: b.suspicious.clone(),
        runs_total: a.runs.iter().map(|r| r.len() as u32).sum(),
        max_runs: b.max_runs,
        remaining: w.bad.saturating_sub(w.good + 1) as u32,
        tested,
        next,
        lease: None,
        created_by: b.created_by.clone(),
        created_at: b.created_at.clone(),
        updated_at: b.updated_at.clone(),
        events: Vec::new(),
    }
}

fn log_of(a: &Advanced) -> String {
    let w = &a.walk;
    let line = |i: usize| {
        let c = &a.commits[i];
        format!("[{}] {}", c.sha, c.subject.as_deref().unwrap_or(""))
    };
    let mut out = String::from("git bisect start\n");
    for (i, call) in w.standing() {
        let word = if call.verdict == Verdict::Bad {
            "bad"
        } else {
            "good"
        };
        let r = &a.runs[i];
        out.push_str(&format!(
            "# {word}: {} (perfline: {} over {} run{}{})\n",
            line(i),
            fmt_mean(r),
            r.len(),
            if r.len() == 1 { "" } else { "s" },
            if call.forced {
                ", decided at the run cap"
            } else {
                ""
            }
        ));
        out.push_str(&format!("git bisect {word} {}\n", a.commits[i].sha));
    }
    match (&w.next, a.b.state) {
        (Next::Done { culprit }, _) => {
            out.push_str(&format!("# first bad commit: {}\n", line(*culprit)));
        }
        (_, BisectionState::Failed) => {
            out.push_str(&format!(
                "# perfline: the bisection failed: {}\n",
                a.b.reason.as_deref().unwrap_or("")
            ));
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advice, pasted into a shell, runs `perfline` with each name as one `--name=VALUE`
    /// word, whatever the names carry (audit 2026-12-06 #7).
    #[test]
    fn the_retest_command_is_safe_to_paste() {
        let b = StoredBisection {
            benchmark: "bb;touch /tmp/perfline-pwned-advice;echo".into(),
            machine: "m'$(reboot)'".into(),
            metric: "thr`id`".into(),
            param: "-rf *".into(),
            history: "linux/master".into(),
            ..blank()
        };
        let command = retest_command(&b, "a337531b94", "b337531b94");
        // `perfline` replaced by a printer of its arguments, one a line.
        let printed = command.replacen("perfline", "printf '%s\\n'", 1);
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&printed)
            .output()
            .expect("sh runs");
        assert!(out.status.success(), "{command}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "bisect\nstart\n--benchmark=bb;touch /tmp/perfline-pwned-advice;echo\n\
             --machine=m'$(reboot)'\n--metric=thr`id`\n--param=-rf *\n--history=linux/master\n\
             --good=a337531b94\n--bad=b337531b94\n--max-runs=60\n",
            "{command}"
        );
    }
}
