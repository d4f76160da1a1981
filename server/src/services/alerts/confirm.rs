// SPDX-License-Identifier: GPL-3.0-or-later
//! Confirmation before alerting: a step found under a rule that confirms opens its summary in
//! `awaiting-confirmation` with two work requests (reruns of the last good and the first bad
//! commit, `GET /api/v1/work`), and nobody is told. Each pass of the detector then looks at
//! the summaries awaiting: once their reruns are in, each alert's reruns are judged between
//! the step's two levels (`verdict`, a sequential test on the series' between-run noise):
//!
//! - a metric whose last good commit reruns good and first bad commit reruns bad confirms the
//!   summary: `new`, and the `confirmed` event is mailed and posted like a new alert;
//! - when every metric reruns on the wrong side, the step was noise: `unconfirmed`, kept with
//!   what the reruns said, never announced;
//! - when the reruns cannot tell yet, more are asked for, up to [`MAX_RERUNS`] per commit;
//!   then the summary is announced with a note that the reruns were inconclusive;
//! - with no reruns after `--confirm-timeout`, it is announced with a note that it went
//!   unchecked.
//!
//! A person may settle it first (`PATCH`): to an open status it is confirmed, to another the
//! requests are cancelled.

use app::alerts::AlertStatus;

use crate::domain::verdict::{self, Verdict};
use crate::services::{ServiceError, Services};
use crate::store::{Awaiting, AwaitingAlert, RerunMean, StoredRequest};

/// The most reruns asked of one commit for one confirmation.
pub const MAX_RERUNS: u32 = 20;

/// Summaries looked at per pass.
const BATCH: i64 = 64;

/// How a summary awaiting confirmation stands after a look.
#[derive(Debug, Clone, PartialEq)]
pub enum Judged {
    /// Settled: the status it takes and what the reruns said.
    Settled(AlertStatus, String),
    /// Still waiting: (request id, runs received, runs wanted) to record.
    Waiting(Vec<(i64, u32, u32)>),
    /// Both commits reran on the same side: the step, if real, is not between them. Rerun a
    /// commit further out on the other side (`Later`: the newest, after the first bad one;
    /// `Earlier`: [`EARLIER`] commits before the last good one), this many times.
    Extend(Extend, u32),
}

/// Which further commit a misplaced step needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extend {
    Later,
    Earlier,
}

impl Extend {
    pub fn side(self) -> &'static str {
        match self {
            Extend::Later => "later",
            Extend::Earlier => "earlier",
        }
    }
}

/// How far before the last good commit the `earlier` rerun goes: past where the detector
/// may have misplaced a step (`detect::same_step_tolerance` of the defaults).
pub const EARLIER: usize = 4;

/// What one pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pass {
    /// Summaries settled.
    pub settled: usize,
    /// The earliest deadline (unix ms) of those still awaiting.
    pub next_deadline: Option<i64>,
}

/// One pass over the summaries awaiting confirmation. Each is looked at on its own
/// (`background::isolate`): one that panics or fails for good is set aside and the others
/// are looked at.
pub async fn confirm_once(state: &Services) -> Result<Pass, ServiceError> {
    use crate::services::background::{isolate, set_aside, Item};
    let awaiting = state.store.awaiting_confirmation(BATCH).await?;
    let mut pass = Pass::default();
    for a in &awaiting {
        match isolate(confirm_one(state, a)).await {
            Ok(Looked::Settled) => pass.settled += 1,
            Ok(Looked::Unchanged) => {}
            Ok(Looked::Waiting) => {
                pass.next_deadline = Some(
                    pass.next_deadline
                        .map_or(a.confirm_by, |d| d.min(a.confirm_by)),
                );
            }
            Err(caught) => {
                let item = Item {
                    task: "confirmation",
                    kind: "summary",
                    id: a.id,
                    series: None,
                    what: awaiting_text(a),
                };
                let why = caught.text();
                set_aside(state, &item, caught).await?;
                // Set aside, it would await for ever and its timeout never raise it: it is
                // announced now, without confirmation, saying why (a regression is never
                // silenced by a failure of the check meant to confirm it).
                let text = format!(
                    "announced without confirmation: checking the reruns failed ({}); an admin sees it at GET /api/v1/background",
                    app::text::head(&why, 200)
                );
                if state
                    .store
                    .settle_confirmation(a.id, AlertStatus::New, &text)
                    .await?
                {
                    pass.settled += 1;
                }
            }
        }
    }
    Ok(pass)
}

/// A summary awaiting confirmation in words, for the log and the admin.
fn awaiting_text(a: &Awaiting) -> String {
    format!(
        "the confirmation of alert summary {} ({} on {})",
        a.id, a.benchmark, a.machine
    )
}

/// What looking at one summary awaiting confirmation came to.
enum Looked {
    /// Settled now.
    Settled,
    /// Settled meanwhile by someone else (triaged): nothing to do.
    Unchanged,
    /// Still waiting for reruns.
    Waiting,
}

/// Looks at one summary awaiting confirmation: settles it, asks for more reruns, or waits.
async fn confirm_one(state: &Services, a: &Awaiting) -> Result<Looked, ServiceError> {
    crate::services::background::fault(state, &awaiting_text(a));
    let judged = match look(state, a).await? {
        Judged::Waiting(progress) if super::now_ms() >= a.confirm_by => {
            let timeout = state.config.confirm_timeout;
            Judged::Settled(AlertStatus::New, timed_out(a, &progress, timeout))
        }
        Judged::Extend(..) if super::now_ms() >= a.confirm_by => {
            let timeout = state.config.confirm_timeout;
            Judged::Settled(AlertStatus::New, timed_out(a, &[], timeout))
        }
        j => j,
    };
    match judged {
        Judged::Settled(status, text) => {
            if state.store.settle_confirmation(a.id, status, &text).await? {
                tracing::info!(summary = a.id, status = %status, "{text}");
                return Ok(Looked::Settled);
            }
            return Ok(Looked::Unchanged);
        }
        Judged::Waiting(progress) => state.store.request_progress(&progress).await?,
        Judged::Extend(side, runs) => {
            if !extend(state, a, side, runs).await? {
                // No commit out there: what the two commits said stands.
                let text = format!(
                    "not reproduced, dismissed as noise: the last good and the first bad commit reran at the same level, and there is no {} commit to rerun",
                    side.side()
                );
                if state
                    .store
                    .settle_confirmation(a.id, AlertStatus::Unconfirmed, &text)
                    .await?
                {
                    return Ok(Looked::Settled);
                }
                return Ok(Looked::Unchanged);
            }
        }
    }
    Ok(Looked::Waiting)
}

/// Counts the reruns in; judges them once every request has the runs asked for.
async fn look(state: &Services, a: &Awaiting) -> Result<Judged, ServiceError> {
    let mut progress = Vec::with_capacity(a.requests.len());
    let mut short = false;
    for r in &a.requests {
        let got = state.store.rerun_count(r).await?;
        progress.push((r.request.id, got, r.request.runs));
        short |= got < r.request.runs;
    }
    if short || a.requests.is_empty() {
        return Ok(Judged::Waiting(progress));
    }
    let wanted: Vec<(String, String)> = a
        .alerts
        .iter()
        .map(|x| (x.metric.clone(), x.param.clone()))
        .collect();
    let mut reruns = Vec::with_capacity(a.requests.len());
    for r in &a.requests {
        let mut r = r.clone();
        let means = state.store.rerun_means(&r, &wanted).await?;
        r.request.received = progress
            .iter()
            .find(|p| p.0 == r.request.id)
            .map_or(0, |p| p.1);
        reruns.push((r, means));
    }
    Ok(judge(a, &reruns))
}

/// Asks for reruns of the commit a misplaced step needs; false when there is none.
async fn extend(
    state: &Services,
    a: &Awaiting,
    side: Extend,
    runs: u32,
) -> Result<bool, ServiceError> {
    let (Some(lead), Some(bad), Some(good)) = (
        a.alerts.first(),
        a.requests.iter().find(|r| r.side == "bad"),
        a.requests.iter().find(|r| r.side == "good"),
    ) else {
        return Ok(false);
    };
    let (Ok(benchmark), Ok(machine), Ok(metric), Ok(param)) = (
        app::label::Label::parse(&a.benchmark),
        app::label::Label::parse(&a.machine),
        app::label::Metric::parse(&lead.metric),
        app::label::Param::parse(&lead.param),
    ) else {
        return Ok(false);
    };
    let trend = match state
        .trend(app::trend::TrendQuery {
            benchmark,
            machine,
            metric,
            param,
            history: None,
        })
        .await
    {
        Ok(t) => t,
        Err(ServiceError::NotFound(_)) => return Ok(false),
        Err(e) => return Err(e),
    };
    let index_of = |w: &app::alerts::WorkRequest| {
        trend.points.iter().position(|p| match &p.sha {
            Some(sha) if !w.commit.is_empty() => {
                crate::services::trend::names(&w.commit, sha)
                    || crate::services::trend::names(sha, &w.commit)
            }
            _ => w.commit.is_empty() && p.kernel == w.kernel,
        })
    };
    let point = match side {
        Extend::Later => index_of(&bad.request)
            .filter(|&i| i + 1 < trend.points.len())
            .map(|_| trend.points.len() - 1),
        Extend::Earlier => index_of(&good.request)
            .filter(|&i| i > 0)
            .map(|i| i.saturating_sub(EARLIER)),
    };
    let Some(p) = point.and_then(|i| trend.points.get(i)) else {
        return Ok(false);
    };
    let commit = p.sha.clone().unwrap_or_default();
    let label = if commit.is_empty() {
        &p.kernel
    } else {
        &commit
    };
    let reason = format!(
        "confirm the step of {} on {}: the last good and first bad commits reran at the same level, so rerun the {} commit {} {runs} time{}",
        app::alerts::series_name(&a.benchmark, &title(lead)),
        a.machine,
        match side {
            Extend::Later => "newer",
            Extend::Earlier => "older",
        },
        app::text::short_commit(label),
        plural(runs as usize),
    );
    state
        .store
        .add_request(
            a.id,
            side.side(),
            &bad.request,
            &commit,
            &p.kernel,
            runs,
            &reason,
        )
        .await?;
    Ok(true)
}

/// What one alert's reruns say on the commits asked.
struct AlertVerdict<'a> {
    alert: &'a AwaitingAlert,
    run_sd: f64,
    /// The part of the step found that reruns must show.
    delta: f64,
    good: Vec<f64>,
    bad: Vec<f64>,
    /// The first bad commit's reruns against the last good one's.
    verdict: Verdict,
}

/// The judgement of a summary whose requests have their reruns: pure, over the reruns'
/// means (`reruns`: each request with the means of its runs). The first bad commit's reruns
/// are compared with the last good one's (`verdict::compare`): fresh runs with fresh runs.
pub fn judge(a: &Awaiting, reruns: &[(StoredRequest, Vec<RerunMean>)]) -> Judged {
    let find = |side: &str| reruns.iter().find(|(r, _)| r.side == side);
    let (Some((good, good_runs)), Some((bad, bad_runs))) = (find("good"), find("bad")) else {
        return Judged::Waiting(Vec::new());
    };
    let of = |runs: &[RerunMean], x: &AwaitingAlert| -> Vec<f64> {
        runs.iter()
            .filter(|r| r.metric == x.metric && r.param == x.param)
            .map(|r| r.mean)
            .collect()
    };
    let verdicts: Vec<AlertVerdict> = a
        .alerts
        .iter()
        .map(|x| {
            let run_sd = run_sd_of(x);
            let delta = verdict::SHRINK * (x.after - x.before);
            let (g, b) = (of(good_runs, x), of(bad_runs, x));
            let v = verdict::compare(&g, &b, delta, run_sd);
            AlertVerdict {
                alert: x,
                run_sd,
                delta,
                good: g,
                bad: b,
                verdict: v,
            }
        })
        .collect();
    let total = verdicts.len();
    let Some(lead) = verdicts.first() else {
        return Judged::Waiting(Vec::new());
    };
    let named = |r: &StoredRequest| short(&r.request.commit, &r.request.kernel).to_owned();
    let (good_short, bad_short) = (named(good), named(bad));
    let describe = |v: &AlertVerdict| {
        format!(
            "{}: the {:+.1} % step; the last good commit {good_short} reran {} ({} run{}) and the first bad {bad_short} {} ({} run{})",
            title(v.alert),
            pct(v.alert.before, v.alert.after),
            mean_text(&v.good),
            v.good.len(),
            plural(v.good.len()),
            mean_text(&v.bad),
            v.bad.len(),
            plural(v.bad.len()),
        )
    };
    let confirmed = verdicts
        .iter()
        .filter(|v| v.verdict == Verdict::Bad)
        .count();
    if let Some(v) = verdicts.iter().find(|v| v.verdict == Verdict::Bad) {
        return Judged::Settled(
            AlertStatus::New,
            format!(
                "confirmed by reruns ({confirmed} of {total} metric{} reproduced): {}",
                plural(total),
                describe(v)
            ),
        );
    }
    let batch = verdict::pair_batch(lead.delta, lead.run_sd);
    let more = |r: &StoredRequest| (r.request.runs + batch).min(MAX_RERUNS);
    let capped = |r: &StoredRequest| r.request.runs >= MAX_RERUNS;
    // At the cap the test must end: on the balance of the evidence (the sign of the
    // likelihood ratio), said as such.
    let inconclusive = |ratio: f64, detail: String| {
        let odds = ratio.abs().exp();
        if ratio >= 0.0 {
            Judged::Settled(
                AlertStatus::New,
                format!(
                    "confirmed on the balance: after {MAX_RERUNS} reruns the step is {odds:.1} times likelier than the noise, short of sure: {detail}"
                ),
            )
        } else {
            Judged::Settled(
                AlertStatus::Unconfirmed,
                format!(
                    "dismissed on the balance: after {MAX_RERUNS} reruns the noise is {odds:.1} times likelier than the step, short of sure: {detail}"
                ),
            )
        }
    };
    if lead.verdict == Verdict::Unsure {
        let wait: Vec<(i64, u32, u32)> = [good, bad]
            .into_iter()
            .filter(|r| !capped(r))
            .map(|r| (r.request.id, r.request.received, more(r)))
            .collect();
        if !wait.is_empty() {
            return Judged::Waiting(wait);
        }
        // At the cap: leaning to the step, it is confirmed on the balance; leaning to one
        // level, the two are taken as one level and a commit further out decides.
        let ratio = verdict::compare_ratio(&lead.good, &lead.bad, lead.delta, lead.run_sd);
        if ratio >= 0.0 {
            return inconclusive(ratio, describe(lead));
        }
    }
    // Both at one level: the step is not between them. Which level they share says where
    // to look: at the old one, a newer commit; at the new one, an older commit.
    let pooled: Vec<f64> = lead.good.iter().chain(&lead.bad).copied().collect();
    let common = pooled.iter().sum::<f64>() / pooled.len().max(1) as f64;
    let x = lead.alert;
    let side = if (common - x.before).abs() <= (common - x.after).abs() {
        Extend::Later
    } else {
        Extend::Earlier
    };
    let Some((further, further_runs)) = find(side.side()) else {
        return Judged::Extend(side, batch);
    };
    let values = of(further_runs, x);
    let shift = match side {
        Extend::Later => lead.delta,
        Extend::Earlier => -lead.delta,
    };
    let at = named(further);
    let word = match side {
        Extend::Later => "newer",
        Extend::Earlier => "older",
    };
    let both = format!(
        "{}: the last good commit {good_short} and the first bad {bad_short} reran at one level ({} and {}, {} runs in all)",
        title(x),
        mean_text(&lead.good),
        mean_text(&lead.bad),
        pooled.len(),
    );
    match verdict::compare(&pooled, &values, shift, lead.run_sd) {
        Verdict::Bad => {
            let (from, to) = match side {
                Extend::Later => (bad_short.clone(), at.clone()),
                Extend::Earlier => (at.clone(), good_short.clone()),
            };
            Judged::Settled(
                AlertStatus::New,
                format!(
                    "confirmed by reruns, at other commits than found: {both}, but the {word} commit {at} reran {} ({} runs): the step is real and lies between {from} and {to}",
                    mean_text(&values),
                    values.len(),
                ),
            )
        }
        Verdict::Good => Judged::Settled(
            AlertStatus::Unconfirmed,
            format!(
                "not reproduced, dismissed as noise: {both}, and so did the {word} commit {at} ({}, {} runs)",
                mean_text(&values),
                values.len(),
            ),
        ),
        Verdict::Unsure if capped(further) => inconclusive(
            verdict::compare_ratio(&pooled, &values, shift, lead.run_sd),
            both,
        ),
        Verdict::Unsure => Judged::Waiting(vec![(
            further.request.id,
            further.request.received,
            more(further),
        )]),
    }
}

/// The spread of one run an alert's reruns are judged with; without one known, a tenth of
/// the step (then two runs decide).
fn run_sd_of(x: &AwaitingAlert) -> f64 {
    x.run_sd
        .filter(|v| v.is_finite() && *v > 0.0)
        .unwrap_or_else(|| (x.after - x.before).abs() / 10.0)
}

fn pct(before: f64, after: f64) -> f64 {
    if before == 0.0 {
        0.0
    } else {
        100.0 * (after - before) / before
    }
}

/// The note of a summary announced because its reruns did not come in time.
fn timed_out(a: &Awaiting, progress: &[(i64, u32, u32)], timeout_secs: u64) -> String {
    let got: Vec<String> = a
        .requests
        .iter()
        .map(|r| {
            let received = progress
                .iter()
                .find(|p| p.0 == r.request.id)
                .map_or(r.request.received, |p| p.1);
            format!(
                "{received} of {} runs of the {} commit {}",
                r.request.runs,
                if r.side == "good" {
                    "last good"
                } else {
                    "first bad"
                },
                short(&r.request.commit, &r.request.kernel)
            )
        })
        .collect();
    format!(
        "announced unchecked: the reruns did not come within {} ({})",
        duration_text(timeout_secs),
        if got.is_empty() {
            "none requested".to_owned()
        } else {
            got.join(", ")
        }
    )
}

fn duration_text(secs: u64) -> String {
    if secs >= 3600 && secs.is_multiple_of(3600) {
        format!("{} h", secs / 3600)
    } else if secs >= 60 && secs.is_multiple_of(60) {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

fn short<'a>(commit: &'a str, kernel: &'a str) -> &'a str {
    if commit.is_empty() {
        kernel
    } else {
        app::text::short_commit(commit)
    }
}

fn title(x: &AwaitingAlert) -> String {
    if x.param.is_empty() {
        x.metric.clone()
    } else {
        format!("{}.{}", x.metric, x.param)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn mean_text(v: &[f64]) -> String {
    if v.is_empty() {
        "nothing".into()
    } else {
        num(v.iter().sum::<f64>() / v.len() as f64)
    }
}

/// Four significant digits, as a person reads a level.
fn num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 8) as usize;
    format!("{v:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::alerts::{WorkKind, WorkRequest};

    fn request(id: i64, side: &str, runs: u32) -> StoredRequest {
        StoredRequest {
            request: WorkRequest {
                id,
                kind: WorkKind::Confirm,
                alert: Some(1),
                bisection: None,
                benchmark: "netperf".into(),
                machine: "m".into(),
                metric: "Throughput".into(),
                param: String::new(),
                commit: format!("{side}0123456789abcdef"),
                kernel: "k".into(),
                runs,
                received: runs,
                reason: String::new(),
                created_at: String::new(),
                lease: Default::default(),
            },
            side: side.into(),
            after_run: 0,
            state: "pending".into(),
        }
    }

    fn awaiting() -> Awaiting {
        Awaiting {
            id: 1,
            benchmark: "netperf".into(),
            machine: "m".into(),
            confirm_by: i64::MAX,
            requests: vec![],
            alerts: vec![AwaitingAlert {
                metric: "Throughput".into(),
                param: String::new(),
                before: 1000.0,
                after: 940.0,
                run_sd: Some(10.0),
                points_before: 30,
                points_after: 30,
            }],
        }
    }

    fn runs(values: &[f64]) -> Vec<RerunMean> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| RerunMean {
                run_id: i as i64,
                metric: "Throughput".into(),
                param: String::new(),
                mean: *v,
            })
            .collect()
    }

    fn check(good: &[f64], bad: &[f64], runs_asked: u32) -> Judged {
        judge(
            &awaiting(),
            &[
                (request(1, "good", runs_asked), runs(good)),
                (request(2, "bad", runs_asked), runs(bad)),
            ],
        )
    }

    #[test]
    fn reruns_confirm_dismiss_or_ask_for_more() {
        let Judged::Settled(status, text) = check(&[1001.0, 995.0], &[938.0, 944.0], 2) else {
            panic!()
        };
        assert_eq!(status, AlertStatus::New);
        assert_eq!(text, "confirmed by reruns (1 of 1 metric reproduced): Throughput: the -6.0 % step; the last good commit good01234567 reran 998.0 (2 runs) and the first bad bad012345678 941.0 (2 runs)");
        // The first bad commit reran at the old level: a newer commit tells noise from a
        // misplaced step.
        assert_eq!(
            check(&[1001.0, 995.0], &[1003.0, 998.0], 2),
            Judged::Extend(Extend::Later, 2)
        );
        let with_later = |later: &[f64]| {
            judge(
                &awaiting(),
                &[
                    (request(1, "good", 2), runs(&[1001.0, 995.0])),
                    (request(2, "bad", 2), runs(&[1003.0, 998.0])),
                    (request(3, "later", 2), runs(later)),
                ],
            )
        };
        let Judged::Settled(status, text) = with_later(&[1002.0, 999.0]) else {
            panic!()
        };
        assert_eq!(status, AlertStatus::Unconfirmed);
        assert!(
            text.contains("reran at one level")
                && text.contains("and so did the newer commit later0123456"),
            "{text}"
        );
        let Judged::Settled(status, text) = with_later(&[941.0, 939.0]) else {
            panic!()
        };
        assert_eq!(status, AlertStatus::New);
        assert!(
            text.contains("the step is real and lies between bad012345678 and later0123456"),
            "{text}"
        );
        // Both at the new level: an older commit.
        assert_eq!(
            check(&[941.0, 939.0], &[938.0, 944.0], 2),
            Judged::Extend(Extend::Earlier, 2)
        );
        // Halfway: a batch more of each.
        assert_eq!(
            check(&[1000.0, 1000.0], &[985.0, 985.0], 2),
            Judged::Waiting(vec![(1, 2, 4), (2, 2, 4)])
        );
        // At the cap: announced, saying the reruns could not tell.
        // At the cap: leaning to the step, confirmed on the balance, said as such; leaning
        // to one level, a commit further out decides.
        let Judged::Settled(status, text) = check(&[1000.0; 20], &[978.5; 20], MAX_RERUNS) else {
            panic!()
        };
        assert_eq!(status, AlertStatus::New);
        assert!(
            text.starts_with(
                "confirmed on the balance: after 20 reruns the step is 8.2 times likelier"
            ),
            "{text}"
        );
        assert_eq!(
            check(&[1000.0; 20], &[979.5; 20], MAX_RERUNS),
            Judged::Extend(Extend::Later, 2)
        );
    }

    #[test]
    fn numbers_read_to_four_digits() {
        assert_eq!(num(1771.31), "1771");
        assert_eq!(num(0.012345), "0.01235");
        assert_eq!(num(94.25), "94.25");
        assert_eq!(duration_text(43_200), "12 h");
        assert_eq!(duration_text(90), "90 s");
    }
}
