// SPDX-License-Identifier: GPL-3.0-or-later
//! The background detector: takes the series uploads queued (`alert_job`), finds the newest
//! step of each under the rules, and stores new alerts grouped into summaries — never in an
//! upload's request path.

use std::time::Duration;

use app::alerts::{Alert, CommitRef};
use app::label::Direction;
use app::label::{Label, Metric, Param};
use app::trend::{Trend, TrendQuery};

use super::detect::{self, Rule};
use crate::services::alerts::Next;
use crate::services::ServiceError;
use crate::services::Services;
use crate::store::{AlertJob, NewAlert};

/// Series examined per batch (one transaction stores what a batch found).
const BATCH: i64 = 512;

/// Series whose trends a pass holds at once: a trend of a long history is megabytes.
const TRENDS_AT_ONCE: usize = 64;

/// After an upload wakes the detector, it waits for this long a pause in uploads (at most
/// `MAX_QUIET`) before it looks: a burst of uploads to one series is examined once, and
/// the detector's reads and its one write stay out of the burst's way.
const QUIET: Duration = Duration::from_millis(150);
const MAX_QUIET: Duration = Duration::from_millis(600);

/// Runs until `stop` resolves: waits for queued series, examines them, stores the alerts.
pub async fn run_detector(state: Services, stop: tokio::sync::watch::Receiver<bool>) {
    let queued = state.store.alert_jobs_queued();
    let st = &state;
    crate::services::alerts::run_leased(
        st,
        "detector",
        &queued,
        Some((QUIET, MAX_QUIET)),
        stop,
        || async move {
            use crate::services::background::{pass_failed, passed};
            let mut next = match detect_once(st).await {
                Ok(n) => {
                    passed(st, "detector");
                    if n == 0 {
                        Next::After(Duration::from_secs(5))
                    } else {
                        st.wakers.events.notify_one();
                        Next::Now
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "alert detection failed; retrying");
                    pass_failed(st, "detector", &e.to_string());
                    Next::After(Duration::from_secs(1))
                }
            };
            // Reruns arrive as uploads, which wake this task; timeouts are checked at least
            // every idle pass.
            match super::confirm::confirm_once(st).await {
                Ok(pass) => {
                    passed(st, "confirmation");
                    if pass.settled > 0 {
                        st.wakers.events.notify_one();
                    }
                    // Back when the earliest confirmation times out.
                    if let (Next::After(wait), Some(deadline)) = (&mut next, pass.next_deadline) {
                        let left = u64::try_from(deadline - super::now_ms()).unwrap_or(0);
                        *wait = (*wait).min(Duration::from_millis(left + 1));
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "alert confirmation failed; retrying");
                    pass_failed(st, "confirmation", &e.to_string());
                }
            }
            match crate::services::bisection::auto_bisect_once(st).await {
                Ok(_) => passed(st, "auto-bisection"),
                Err(e) => {
                    tracing::warn!(error = %e, "starting the bisections rules ask for failed; retrying");
                    pass_failed(st, "auto-bisection", &e.to_string());
                }
            }
            match crate::services::bisection::bisect_once(st).await {
                Ok(_) => passed(st, "bisection"),
                Err(e) => {
                    tracing::warn!(error = %e, "advancing the bisections failed; retrying");
                    pass_failed(st, "bisection", &e.to_string());
                }
            }
            st.wakers.detected.notify_waiters();
            next
        },
    )
    .await;
}

/// One batch: how many series were examined (or set aside).
///
/// The batch is examined as a whole; when that fails in a way retrying cannot mend, or
/// panics, its series are examined one at a time, and each that fails alone is set aside
/// (`background::set_aside`: logged, counted, quarantined) while the others are examined.
pub async fn detect_once(state: &Services) -> Result<usize, ServiceError> {
    use crate::services::background::{isolate, set_aside, Item};
    let started = std::time::Instant::now();
    let jobs = state.store.alert_jobs(BATCH).await?;
    if jobs.is_empty() {
        return Ok(0);
    }
    let rules = state.store.alert_rules().await?;
    if let Err(caught) = isolate(detect_jobs(state, &jobs, &rules)).await {
        if caught.is_transient() {
            return Err(caught.into_error());
        }
        tracing::warn!(series = jobs.len(), error = %caught.text(), "a batch of series failed; examining them one at a time");
        for job in &jobs {
            if let Err(caught) =
                isolate(detect_jobs(state, std::slice::from_ref(job), &rules)).await
            {
                let item = Item {
                    task: "detector",
                    kind: "series",
                    id: job.upload_id,
                    series: Some((&job.benchmark, job.machine_id, &job.metric, &job.param)),
                    what: series_text(job),
                };
                set_aside(state, &item, caught).await?;
            }
        }
    }
    state
        .metrics
        .detector_seconds
        .observe(started.elapsed().as_secs_f64());
    state.metrics.detector_series.inc_by(jobs.len() as u64);
    Ok(jobs.len())
}

/// A queued series in words, for the log and the admin.
fn series_text(job: &AlertJob) -> String {
    let param = if job.param.is_empty() {
        String::new()
    } else {
        format!(" [{}]", job.param)
    };
    format!(
        "the series {} {}{param} on {} (queued by upload {})",
        job.benchmark, job.metric, job.machine, job.upload_id
    )
}

/// Examines `jobs` and stores what they show, in one transaction.
async fn detect_jobs(
    state: &Services,
    jobs: &[AlertJob],
    rules: &[Rule],
) -> Result<(), ServiceError> {
    for job in jobs {
        crate::services::background::fault(state, &series_text(job));
    }
    // The series of one benchmark on one machine are examined together: their trends share
    // runs, read once. (A step found is merged only with those of its benchmark and machine,
    // so the order of the groups changes nothing.)
    let groups: Vec<Vec<&AlertJob>> = crate::services::groups_in_order(
        jobs.iter()
            .map(|j| (j.benchmark.as_str(), j.machine.as_str())),
    )
    .into_iter()
    .map(|g| g.into_iter().map(|i| &jobs[i]).collect())
    .collect();
    // Each group's watched series, in pieces of at most `TRENDS_AT_ONCE`.
    let mut pieces: Vec<Vec<Watched>> = Vec::new();
    for group in &groups {
        let mut w = watched(group, rules);
        while w.len() > TRENDS_AT_ONCE {
            let rest = w.split_off(TRENDS_AT_ONCE);
            pieces.push(std::mem::replace(&mut w, rest));
        }
        if !w.is_empty() {
            pieces.push(w);
        }
    }
    // The trends of as many pieces as fit in `TRENDS_AT_ONCE` in one read (the history choice
    // and the commit marks once), then each piece examined.
    let mut found = Vec::new();
    let mut pieces = pieces.into_iter().peekable();
    while pieces.peek().is_some() {
        let mut batch = Vec::new();
        let mut held = 0;
        while let Some(piece) = pieces.next_if(|p| held == 0 || held + p.len() <= TRENDS_AT_ONCE) {
            held += piece.len();
            batch.push(piece);
        }
        let queries = batch.iter().flatten().map(|w| w.query.clone()).collect();
        let mut trends = state.trends_of(queries).await?.into_iter();
        for piece in batch {
            let trends: Vec<_> = trends.by_ref().take(piece.len()).collect();
            examine(state, piece, trends, &mut found).await?;
        }
    }
    let policy = crate::store::ConfirmPolicy {
        now_ms: super::now_ms(),
        timeout_ms: i64::try_from(state.config.confirm_timeout.saturating_mul(1000))
            .unwrap_or(i64::MAX),
    };
    state.store.record_alerts(jobs, &found, policy).await?;
    if !found.is_empty() {
        tracing::info!(series = jobs.len(), alerts = found.len(), "alerts found");
    }
    Ok(())
}

/// A series with a trend to examine, and where its known alerts sit on it.
struct Examined<'a> {
    job: &'a AlertJob,
    /// The job's metric, as its trend query parsed it.
    metric: Metric,
    settings: detect::Settings,
    trend: std::sync::Arc<Trend>,
    known: Vec<crate::store::KnownAlert>,
    /// `(point, alert)`: the point of the trend each known alert is at (an index into `known`).
    known_at: Vec<(usize, usize)>,
}

/// A job whose series is watched: its rule's settings and its trend's query.
struct Watched<'a> {
    job: &'a AlertJob,
    settings: detect::Settings,
    query: TrendQuery,
}

/// The jobs of `group` (one benchmark on one machine) whose series a rule watches.
fn watched<'a>(group: &[&'a AlertJob], rules: &[Rule]) -> Vec<Watched<'a>> {
    let mut out = Vec::new();
    for &job in group {
        let settings = detect::settings_for(rules, &job.benchmark, &job.metric, &job.param);
        if settings.ignore {
            continue;
        }
        // Stored names were parsed at upload; one a trend query refuses has no trend to watch.
        let (Ok(benchmark), Ok(machine), Ok(metric), Ok(param)) = (
            Label::parse(&job.benchmark),
            Label::parse(&job.machine),
            Metric::parse(&job.metric),
            Param::parse(&job.param),
        ) else {
            continue;
        };
        out.push(Watched {
            job,
            settings,
            query: TrendQuery {
                benchmark,
                machine,
                metric,
                param,
                history: None,
            },
        });
    }
    out
}

/// Examines `watched`, series of one benchmark on one machine (all or some), in order, with
/// their `trends`: the alert of each whose newest step is new and passes its rule is added
/// to `found`.
async fn examine(
    state: &Services,
    watched: Vec<Watched<'_>>,
    trends: Vec<Result<std::sync::Arc<Trend>, ServiceError>>,
    found: &mut Vec<NewAlert>,
) -> Result<(), ServiceError> {
    let Some(first) = watched.first().map(|w| w.job) else {
        return Ok(());
    };
    let mut known_of = state
        .store
        .series_alerts_of(&first.benchmark, &first.machine)
        .await?;
    let mut examined = Vec::with_capacity(watched.len());
    for (
        Watched {
            job,
            settings,
            query,
        },
        trend,
    ) in watched.into_iter().zip(trends)
    {
        let trend = match trend {
            Ok(t) => t,
            // Deleted since it was queued.
            Err(ServiceError::NotFound(_)) => continue,
            Err(e) => return Err(e),
        };
        // A metric whose direction is unknown has no regressions (uploads do not queue one;
        // a deletion may).
        if !trend.direction.is_known() {
            continue;
        }
        let known = known_of
            .remove(&(job.metric.clone(), job.param.clone()))
            .unwrap_or_default();
        let known_at = known_points(state, &trend, &known).await?;
        examined.push(Examined {
            job,
            metric: query.metric,
            settings,
            trend,
            known,
            known_at,
        });
    }
    // The step tests of the whole group on one blocking thread.
    let inputs: Vec<(Vec<f64>, detect::Settings, Option<usize>)> = examined
        .iter()
        .map(|e| {
            let means = e.trend.points.iter().map(|p| p.mean).collect();
            let since = e.known_at.iter().map(|(i, _)| *i).max();
            (means, e.settings, since)
        })
        .collect();
    let steps = tokio::task::spawn_blocking(move || {
        inputs
            .into_iter()
            .map(|(means, settings, since)| {
                detect::newest_step(&means, &settings, since).map(|s| (s, means))
            })
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|e| ServiceError::Internal(anyhow::anyhow!("detector panicked: {e}")))?;
    for (e, step) in examined.iter().zip(steps) {
        let Some((step, means)) = step else {
            continue;
        };
        if let Some(alert) = alert_for(state, e, &step, &means, found).await? {
            found.push(alert);
        }
    }
    Ok(())
}

/// Where each of a series' known alerts sits on its trend: `(point, index into known)`.
async fn known_points(
    state: &Services,
    trend: &Trend,
    known: &[crate::store::KnownAlert],
) -> Result<Vec<(usize, usize)>, ServiceError> {
    let history = trend.order.strip_prefix("history ");
    let mut known_at = Vec::new();
    for (at, k) in known.iter().enumerate() {
        if let Some(i) = index_of(trend, &k.bad) {
            known_at.push((i, at));
            continue;
        }
        // A bisection moved the summary to a commit with no runs: the step is at the first
        // point from it on in the history.
        if let (Some(h), Some(sha)) = (history, k.bad.sha.as_deref()) {
            if let Some(from) = state.store.commit_position(h, sha).await? {
                if let Some(i) = trend
                    .points
                    .iter()
                    .position(|p| p.position.is_some_and(|q| q >= from))
                {
                    known_at.push((i, at));
                }
            }
        }
    }
    Ok(known_at)
}

/// The point of `trend` at commit `c`.
fn index_of(trend: &Trend, c: &CommitRef) -> Option<usize> {
    trend.points.iter().position(|p| match (&c.sha, &p.sha) {
        (Some(a), Some(b)) => {
            crate::services::trend::names(a, b) || crate::services::trend::names(b, a)
        }
        (None, _) => p.kernel == c.kernel,
        _ => false,
    })
}

/// The alert for a series' newest `step`, unless a known alert stands for it; merged into the
/// summary of a step found nearby (in this batch, else stored).
async fn alert_for(
    state: &Services,
    e: &Examined<'_>,
    step: &detect::Step,
    means: &[f64],
    found: &[NewAlert],
) -> Result<Option<NewAlert>, ServiceError> {
    let (job, settings, trend) = (e.job, &e.settings, &*e.trend);
    let known_indices: Vec<usize> = e.known_at.iter().map(|(i, _)| *i).collect();
    if detect::is_known(step.index, &known_indices, settings) {
        return Ok(None);
    }
    let known_at: Vec<(usize, &crate::store::KnownAlert)> = e
        .known_at
        .iter()
        .map(|&(i, at)| (i, &e.known[at]))
        .collect();
    let mut alert = new_alert(job, &e.metric, trend, step, means, &known_at);
    alert.run_sd = run_sd(trend, step);
    alert.confirm = settings.confirm.then(|| first_batch(step, alert.run_sd));
    // One step, one summary: a step of another metric found at a neighbouring commit (noise
    // moves a change point by a commit or two) is the same step.
    let near = |c: &CommitRef| {
        index_of(trend, c)
            .filter(|&i| i.abs_diff(step.index) <= detect::same_step_tolerance(settings))
    };
    let in_batch = found
        .iter()
        .filter(|f| f.benchmark == job.benchmark && f.machine == job.machine)
        .filter(|f| f.into.is_none_or(|id| !alert.undoes.contains(&id)))
        .filter_map(|f| near(&f.bad).map(|i| (i.abs_diff(step.index), f)))
        .min_by_key(|(d, _)| *d);
    if let Some((_, f)) = in_batch {
        alert.good = f.good.clone();
        alert.bad = f.bad.clone();
        alert.history = f.history.clone();
        alert.between = f.between;
        alert.into = f.into;
    } else {
        let stored = state
            .store
            .step_summaries(&job.benchmark, &job.machine)
            .await?;
        alert.into = stored
            .iter()
            .filter(|s| !alert.undoes.contains(&s.id))
            .filter_map(|s| near(&s.bad).map(|i| (i.abs_diff(step.index), s.id)))
            .min_by_key(|(d, _)| *d)
            .map(|(_, id)| id);
    }
    Ok(Some(alert))
}

/// The spread of one run of the series: its between-run noise (run means of one commit, else
/// the scatter of successive commits), else the within-run noise over a run's samples.
fn run_sd(trend: &Trend, step: &detect::Step) -> Option<f64> {
    let level = step.before.abs();
    let n = &trend.noise;
    let cv = match (n.between_cv, n.within_cv) {
        (Some(b), _) if b > 0.0 => b,
        (_, Some(w)) if w > 0.0 => w / n.samples_per_run.unwrap_or(1.0).max(1.0).sqrt(),
        _ => return None,
    };
    Some(cv * level).filter(|v| v.is_finite() && *v > 0.0)
}

/// The reruns asked of each commit of a step at first: enough for `verdict::compare` to tell
/// the part of the step reruns must show (`verdict::SHRINK`), as the run spread goes. Without
/// a known spread, two.
pub fn first_batch(step: &detect::Step, run_sd: Option<f64>) -> u32 {
    let delta = crate::domain::verdict::SHRINK * (step.after - step.before);
    match run_sd {
        Some(sd) => crate::domain::verdict::pair_batch(delta, sd),
        None => crate::domain::verdict::MIN_BATCH,
    }
}

/// The step's intervals with the position's ends named as commits.
fn evidence(trend: &Trend, step: &detect::Step) -> app::alerts::Evidence {
    let at = |i: usize| {
        let p = &trend.points[i.min(trend.points.len() - 1)];
        CommitRef {
            kernel: p.kernel.clone(),
            sha: p.sha.clone(),
        }
    };
    app::alerts::Evidence {
        change_pct_lo: step.change_pct_ci.0,
        change_pct_hi: step.change_pct_ci.1,
        first_bad_from: at(step.index_ci.0),
        first_bad_to: at(step.index_ci.1),
        first_bad_points: (step.index_ci.1 - step.index_ci.0 + 1) as u32,
    }
}

fn new_alert(
    job: &AlertJob,
    metric: &Metric,
    trend: &Trend,
    step: &detect::Step,
    means: &[f64],
    known_at: &[(usize, &crate::store::KnownAlert)],
) -> NewAlert {
    let (good, bad) = (&trend.points[step.index - 1], &trend.points[step.index]);
    let regression = match trend.direction {
        Direction::Higher => step.after < step.before,
        Direction::Lower => step.after > step.before,
        // Not examined (see `examine`); were it, a change would not be a regression.
        Direction::Unknown => false,
    };
    let undoes = if regression {
        Vec::new()
    } else {
        let mut ids: Vec<i64> = known_at
            .iter()
            .filter(|(i, k)| {
                k.regression
                    && k.status.is_open()
                    && *i < step.index
                    && detect::undoes(k.before, k.after, step.before, step.after)
            })
            .map(|(_, k)| k.summary_id)
            .collect();
        ids.dedup();
        ids
    };
    let (spark, spark_step) = detect::spark(means, step.index);
    let between = match (good.position, bad.position) {
        (Some(g), Some(b)) if b > g => Some((b - g - 1) as u32),
        _ => None,
    };
    NewAlert {
        benchmark: job.benchmark.clone(),
        machine: job.machine.clone(),
        good: CommitRef {
            kernel: good.kernel.clone(),
            sha: good.sha.clone(),
        },
        bad: CommitRef {
            kernel: bad.kernel.clone(),
            sha: bad.sha.clone(),
        },
        history: trend.order.strip_prefix("history ").map(str::to_owned),
        between,
        alert: Alert {
            id: 0,
            metric: metric.clone(),
            param: job.param.clone(),
            unit: trend.unit.clone(),
            direction: trend.direction,
            regression,
            before: step.before,
            after: step.after,
            change_pct: step.change_pct,
            p_value: step.p_value,
            points_before: step.points_before as u32,
            points_after: step.points_after as u32,
            spark,
            spark_step: spark_step as u32,
            evidence: Some(evidence(trend, step)),
        },
        undoes,
        into: None,
        run_sd: None,
        confirm: None,
    }
}
