// SPDX-License-Identifier: GPL-3.0-or-later
//! Regression alerts: the pipeline from an upload to a mail.
//!
//! upload transaction → `alert_job` rows (one per series touched) → [`detector`] (the trend of
//! each series, its newest step under the rules of `detect`) → `alert_summary` / `alert` rows and
//! an `alert_event` → [`notify::run_notifier`] (renders each event once per channel into the
//! `outbox`) → [`notify::run_deliverer`] (webhook POSTs, SMTP) with retries. Every arrow is a
//! table written in one transaction with what caused it, so a server that stops anywhere
//! resumes where it was when it starts again. A person's triage of a summary ([`triage`])
//! adds an event of its own.

pub mod confirm;
pub mod detect;
pub mod detector;
pub mod feed;
pub mod mail;
pub mod notify;
pub mod triage;

use app::alerts::{AlertFilter, AlertStatus};
use app::label::Label;
use futures_util::FutureExt;

use crate::services::ServiceError;
use crate::store::SummaryFilter;

/// Wakes the pipeline's background tasks.
#[derive(Default)]
pub struct Wakers {
    /// New events to render into the outbox.
    pub events: tokio::sync::Notify,
    /// New notifications to deliver.
    pub outbox: tokio::sync::Notify,
    /// Set by the detector after every batch; tests and benchmarks wait on it.
    pub detected: tokio::sync::Notify,
}

/// How long a background task's lease lasts unrenewed: a server that dies is replaced by
/// another on the same database after at most this long. (Servers' clocks must agree to well
/// within it.)
pub const LEASE_TTL: std::time::Duration = std::time::Duration::from_secs(15);

/// How often a server without the lease asks for it again.
pub const LEASE_RETRY: std::time::Duration = std::time::Duration::from_secs(2);

/// This process's claim on one background task that must run once across the servers sharing
/// a database (`detector`, `notifier`, `deliverer`), renewed when half of it has passed.
pub struct Lease {
    name: &'static str,
    until: Option<std::time::Instant>,
}

impl Lease {
    pub fn new(name: &'static str) -> Lease {
        Lease { name, until: None }
    }

    /// Whether this process holds the lease now (taking or renewing it as needed).
    pub async fn held(&mut self, state: &crate::services::Services) -> bool {
        let now = std::time::Instant::now();
        if self.until.is_some_and(|u| u > now + LEASE_TTL / 2) {
            return true;
        }
        match state
            .store
            .take_lease(self.name, &state.worker_id, LEASE_TTL)
            .await
        {
            Ok(true) => {
                if self.until.is_none() {
                    tracing::info!(task = self.name, "this server runs the task");
                }
                self.until = Some(now + LEASE_TTL);
                true
            }
            Ok(false) => {
                self.until = None;
                false
            }
            Err(e) => {
                tracing::warn!(task = self.name, error = %e, "cannot take the task's lease");
                self.until = None;
                false
            }
        }
    }
}

/// What one pass of a leased task says about the next one.
pub enum Next {
    /// There may be more at once: pass again now.
    Now,
    /// Nothing more now: pass again after this long, or when woken.
    After(std::time::Duration),
}

/// Runs a background task that must run once across the servers sharing a database (the
/// detector, the notifier, the deliverer) until `stop`: holds its [`Lease`] (a server without
/// it asks again every [`LEASE_RETRY`]), runs `pass` while it holds it, and between passes
/// waits for `wake`, the pass's own delay, or `stop`. With `quiet` (`(quiet, at_most)`), a wake
/// first waits for a burst of wakes to end: until `quiet` passes without one, `at_most` in all.
/// The one loop of every leased task. A pass that panics is logged and counted as failed
/// (`background::pass_failed`), and the task passes again a second later: items are isolated
/// inside the passes (`background::isolate`), this catches what panics between them.
pub async fn run_leased<F, Fut>(
    state: &crate::services::Services,
    name: &'static str,
    wake: &tokio::sync::Notify,
    quiet: Option<(std::time::Duration, std::time::Duration)>,
    mut stop: tokio::sync::watch::Receiver<bool>,
    mut pass: F,
) where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Next>,
{
    let mut lease = Lease::new(name);
    loop {
        if *stop.borrow() {
            return;
        }
        // One server at a time runs this task (the others wait for the lease).
        if !lease.held(state).await {
            tokio::select! {
                () = tokio::time::sleep(LEASE_RETRY) => continue,
                _ = stop.changed() => return,
            }
        }
        // Registered before the pass, so that work queued during it still wakes us.
        let notified = wake.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let wait = match std::panic::AssertUnwindSafe(pass()).catch_unwind().await {
            Ok(Next::Now) => continue,
            Ok(Next::After(wait)) => wait,
            Err(panic) => {
                let error = crate::services::background::panic_text(&*panic);
                tracing::error!(task = name, error = %error, "a background pass panicked; passing again in a second");
                crate::services::background::pass_failed(
                    state,
                    name,
                    &format!("panicked: {error}"),
                );
                std::time::Duration::from_secs(1)
            }
        };
        tokio::select! {
            () = &mut notified => {
                if let Some((quiet, at_most)) = quiet {
                    let until = tokio::time::Instant::now() + at_most;
                    loop {
                        let again = wake.notified();
                        tokio::select! {
                            () = again => if tokio::time::Instant::now() >= until { break },
                            () = tokio::time::sleep(quiet) => break,
                            _ = stop.changed() => return,
                        }
                    }
                }
            }
            // Another process (a second server on the same database) may queue work too.
            () = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
    }
}

pub use crate::services::now_ms;

/// Parses the filter of `GET /api/v1/alerts` and the alerts page.
pub fn parse_filter(f: &AlertFilter) -> Result<SummaryFilter, ServiceError> {
    let bad = |m: String| ServiceError::Invalid(m);
    let statuses = match f.status.as_deref().map(str::trim) {
        None | Some("" | "all") => None,
        Some("open") => Some(
            AlertStatus::ALL
                .into_iter()
                .filter(|s| s.is_open() || *s == AlertStatus::AwaitingConfirmation)
                .collect(),
        ),
        Some(list) => Some(
            list.split(',')
                .map(|s| AlertStatus::try_from(s.trim().to_owned()).map_err(bad))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    let label = |field: &str, v: &Option<String>| -> Result<Option<String>, ServiceError> {
        match v.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(v) => Label::parse(v)
                .map(|l| Some(l.as_str().to_owned()))
                .map_err(|e| ServiceError::Invalid(format!("{field} {e}"))),
        }
    };
    let regression = match f.direction.as_deref().map(str::trim) {
        None | Some("" | "any") => None,
        Some("regression") => Some(true),
        Some("improvement") => Some(false),
        Some(d) => {
            return Err(bad(format!(
                "direction must be regression, improvement or any, not {d:?}"
            )))
        }
    };
    let since = match f.since.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(parse_since(s).ok_or_else(|| {
            bad(format!(
                "since must be a date (2026-12-01) or a UTC time (2026-12-01T10:00:00Z), not {s:?}"
            ))
        })?),
    };
    let limit = f.limit.unwrap_or(50);
    if !(1..=1000).contains(&limit) {
        return Err(bad(format!(
            "limit must be between 1 and 1000, not {limit}"
        )));
    }
    let offset = f.offset.unwrap_or(0);
    if !(0..=100_000_000).contains(&offset) {
        return Err(bad(format!(
            "offset must be between 0 and 100000000, not {offset}"
        )));
    }
    Ok(SummaryFilter {
        statuses,
        benchmark: label("benchmark", &f.benchmark)?,
        machine: label("machine", &f.machine)?,
        metric: match f.metric.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(m) => Some(
                app::label::Metric::parse(m)
                    .map(|m| m.as_str().to_owned())
                    .map_err(|e| ServiceError::Invalid(format!("metric {e}")))?,
            ),
        },
        regression,
        since,
        limit,
        offset,
    })
}

/// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS[.fff]Z`, as the stored times are written, so that text
/// order is time order.
fn parse_since(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let date = b.len() >= 10
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10);
    if !date {
        return None;
    }
    if b.len() == 10 {
        return Some(s.to_owned());
    }
    let time = b.len() >= 20
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b.last() == Some(&b'Z')
        && b[19..b.len() - 1]
            .iter()
            .all(|c| c.is_ascii_digit() || *c == b'.');
    time.then(|| s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_at_the_edge() {
        let f = parse_filter(&AlertFilter {
            status: Some("open".into()),
            direction: Some("regression".into()),
            since: Some("2026-12-01".into()),
            ..AlertFilter::default()
        })
        .unwrap();
        assert_eq!(f.statuses.as_ref().map(Vec::len), Some(4));
        assert_eq!(f.regression, Some(true));
        assert_eq!(f.limit, 50);
        for bad in [
            AlertFilter {
                status: Some("closed".into()),
                ..AlertFilter::default()
            },
            AlertFilter {
                since: Some("yesterday".into()),
                ..AlertFilter::default()
            },
            AlertFilter {
                limit: Some(0),
                ..AlertFilter::default()
            },
            AlertFilter {
                machine: Some("a\u{1}b".into()),
                ..AlertFilter::default()
            },
        ] {
            assert!(parse_filter(&bad).is_err(), "{bad:?}");
        }
        assert!(parse_since("2026-12-01T10:00:00Z").is_some());
        assert!(parse_since("2026-12-01T10:00:00.5Z").is_some());
        assert!(parse_since("2026-12-01 10:00").is_none());
    }
}
