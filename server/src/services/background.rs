// SPDX-License-Identifier: GPL-3.0-or-later
//! Background tasks that no item can stop (issue 51: one stored commit name panicked the
//! detector on every pass, for good).
//!
//! Every item a background task works on (a series for the detector, a summary awaiting
//! confirmation, a running bisection, an event to render, a notification to deliver) runs
//! through [`isolate`]: a panic is caught like an error. An error retrying can mend (the
//! database busy or unreachable, Perfline overloaded) ends the pass, which runs again later; any
//! other failure, and every panic, [`set_aside`]s the item: logged with what it was, counted,
//! and stored in `quarantine` (so a restart does not try it again for ever), while the task
//! goes on with the rest. The tasks' reads leave quarantined items out until an admin releases
//! them (`DELETE /api/v1/background/quarantine/{id}`).
//!
//! A pass that panics outside an item is caught by `alerts::run_leased`, and a task that ends
//! by a panic anyway is started again by [`supervise`]. What each task did last is kept here
//! ([`Background`]) for `/healthz`, `/metrics` and `GET /api/v1/background`.

use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::FutureExt;

use crate::services::{ServiceError, Services};
use crate::store::{NewQuarantine, StoreError};

pub use crate::services::telemetry::BACKGROUND_TASKS as TASKS;

/// The first wait before a task that died is started again; doubled each time it dies again
/// soon after, up to [`RESTART_MAX`].
const RESTART_FIRST: Duration = Duration::from_secs(1);
const RESTART_MAX: Duration = Duration::from_secs(60);

/// The most quarantined items `GET /api/v1/background` lists.
pub const LISTED: i64 = 1000;

/// How one task stands in this process.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TaskState {
    pub name: String,
    /// `idle` (not run by this process yet: another server may hold its lease), `ok` (its
    /// last pass went through), `failing` (its last pass failed), `restarting` (it ended by a
    /// panic and is started again).
    pub state: String,
    /// Passes that went through, and failures: failed passes, items set aside, restarts.
    pub passes: u64,
    pub failures: u64,
    pub restarts: u64,
    /// When its last pass went through (UTC).
    pub last_ok: Option<String>,
    /// Its last failure: when, on what, and why.
    pub last_failure: Option<Failure>,
}

/// One failure of a task.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Failure {
    pub at: String,
    /// What it was working on (`the whole pass` when no one item).
    pub what: String,
    pub error: String,
}

/// What every background task did last, and how many items are set aside (as this process
/// last counted them).
#[derive(Debug)]
pub struct Background {
    tasks: Mutex<BTreeMap<&'static str, TaskState>>,
    quarantined: AtomicI64,
}

impl Default for Background {
    fn default() -> Self {
        let tasks = TASKS
            .iter()
            .map(|&name| {
                (
                    name,
                    TaskState {
                        name: name.to_owned(),
                        state: "idle".into(),
                        passes: 0,
                        failures: 0,
                        restarts: 0,
                        last_ok: None,
                        last_failure: None,
                    },
                )
            })
            .collect();
        Background {
            tasks: Mutex::new(tasks),
            quarantined: AtomicI64::new(0),
        }
    }
}

impl Background {
    fn update(&self, task: &'static str, f: impl FnOnce(&mut TaskState)) {
        if let Ok(mut tasks) = self.tasks.lock() {
            if let Some(t) = tasks.get_mut(task) {
                f(t);
            }
        }
    }

    /// Every task's state, in [`TASKS`] order.
    pub fn tasks(&self) -> Vec<TaskState> {
        let Ok(tasks) = self.tasks.lock() else {
            return Vec::new();
        };
        TASKS
            .iter()
            .filter_map(|name| tasks.get(name).cloned())
            .collect()
    }

    /// Items set aside, as last counted.
    pub fn quarantined(&self) -> i64 {
        self.quarantined.load(Ordering::Relaxed)
    }

    /// What `/healthz` says beside `ok`: `None` when every task's last pass went through and
    /// nothing is set aside; else one line naming the failing tasks and the count, with no
    /// stored names (anyone may read `/healthz`).
    pub fn degraded(&self) -> Option<String> {
        let mut parts: Vec<String> = self
            .tasks()
            .iter()
            .filter_map(|t| match t.state.as_str() {
                "failing" => Some(format!(
                    "the {}'s last pass failed{}",
                    t.name,
                    t.last_failure
                        .as_ref()
                        .map(|f| format!(" at {}", f.at))
                        .unwrap_or_default()
                )),
                "restarting" => Some(format!(
                    "the {} panicked and is being restarted ({} restart{})",
                    t.name,
                    t.restarts,
                    if t.restarts == 1 { "" } else { "s" }
                )),
                _ => None,
            })
            .collect();
        match self.quarantined() {
            0 => {}
            1 => parts.push("1 item set aside".into()),
            n => parts.push(format!("{n} items set aside")),
        }
        (!parts.is_empty()).then(|| {
            format!(
                "degraded: {}; an admin sees why at GET /api/v1/background",
                parts.join("; ")
            )
        })
    }
}

/// A pass of `task` went through.
pub fn passed(state: &Services, task: &'static str) {
    state.background.update(task, |t| {
        t.state = "ok".into();
        t.passes += 1;
        t.last_ok = Some(utc_now());
    });
    state.metrics.background_up(task, true);
}

/// A pass of `task` failed as a whole (it runs again later).
pub fn pass_failed(state: &Services, task: &'static str, error: &str) {
    state.background.update(task, |t| {
        t.state = "failing".into();
        t.failures += 1;
        t.last_failure = Some(Failure {
            at: utc_now(),
            what: "the whole pass".into(),
            error: error.to_owned(),
        });
    });
    state.metrics.background_failed(task);
    state.metrics.background_up(task, false);
}

/// `task` ended by a panic and is started again.
fn died(state: &Services, task: &'static str, error: &str) {
    state.background.update(task, |t| {
        t.state = "restarting".into();
        t.failures += 1;
        t.restarts += 1;
        t.last_failure = Some(Failure {
            at: utc_now(),
            what: "the task".into(),
            error: error.to_owned(),
        });
    });
    state.metrics.background_failed(task);
    state.metrics.background_up(task, false);
}

/// How one item's work failed.
#[derive(Debug)]
pub enum Caught {
    Panicked(String),
    Failed(ServiceError),
}

impl Caught {
    /// Retrying can mend it: the database busy or unreachable, Perfline overloaded. The pass
    /// ends and runs again later; the item is not set aside.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            Caught::Failed(
                ServiceError::Overloaded
                    | ServiceError::Store(StoreError::Busy(_) | StoreError::Unreachable(_))
            )
        )
    }

    pub fn text(&self) -> String {
        match self {
            Caught::Panicked(m) => format!("panicked: {m}"),
            Caught::Failed(e) => e.to_string(),
        }
    }

    /// The error to end the pass with.
    pub fn into_error(self) -> ServiceError {
        match self {
            Caught::Failed(e) => e,
            Caught::Panicked(m) => ServiceError::Internal(anyhow::anyhow!("panicked: {m}")),
        }
    }
}

/// The message of a panic's payload.
pub fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs one item's work, a panic caught like an error.
pub async fn isolate<T>(work: impl Future<Output = Result<T, ServiceError>>) -> Result<T, Caught> {
    match AssertUnwindSafe(work).catch_unwind().await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Caught::Failed(e)),
        Err(panic) => Err(Caught::Panicked(panic_text(&*panic))),
    }
}

/// One item a background task works on.
#[derive(Debug, Clone)]
pub struct Item<'a> {
    pub task: &'static str,
    /// `series`, `summary`, `bisection`, `event`, `delivery`.
    pub kind: &'static str,
    /// The summary, bisection, event or outbox row; for a series, the upload that queued it.
    pub id: i64,
    /// A series: (benchmark, machine id, metric, param).
    pub series: Option<(&'a str, i64, &'a str, &'a str)>,
    /// The item in words, for the log and the admin.
    pub what: String,
}

/// Sets `item` aside after `caught`: logged with what it was, counted, stored in `quarantine`;
/// the task goes on with the rest. A failure retrying can mend is answered as it is instead
/// (the pass ends; the item is tried again with it), as is one storing the quarantine.
pub async fn set_aside(
    state: &Services,
    item: &Item<'_>,
    caught: Caught,
) -> Result<(), ServiceError> {
    if caught.is_transient() {
        return Err(caught.into_error());
    }
    let error = caught.text();
    tracing::error!(
        task = item.task,
        item = %item.what,
        error = %error,
        "a background task failed on one item; it is set aside (quarantined) and the task goes on"
    );
    state.background.update(item.task, |t| {
        t.failures += 1;
        t.last_failure = Some(Failure {
            at: utc_now(),
            what: item.what.clone(),
            error: error.clone(),
        });
    });
    state.metrics.background_failed(item.task);
    state
        .store
        .quarantine(&NewQuarantine {
            task: item.task,
            kind: item.kind,
            item_id: item.id,
            series: item.series,
            what: &item.what,
            error: &error,
        })
        .await?;
    recount(state).await;
    Ok(())
}

/// Counts the quarantined items again (for `/healthz` and the gauge); kept as it was when the
/// database does not answer.
pub async fn recount(state: &Services) {
    if let Ok(n) = state.store.quarantined_count().await {
        state.background.quarantined.store(n, Ordering::Relaxed);
        state.metrics.background_quarantined.set(n);
    }
}

/// For tests (`Config::fail_items`): panics, as a bug would, on an item whose description
/// contains the configured text. Does nothing otherwise.
pub fn fault(state: &Services, what: &str) {
    if let Some(text) = state.config.fail_items.as_deref() {
        if !text.is_empty() && what.contains(text) {
            panic!("fault injected for a test on {what}");
        }
    }
}

/// Runs a background task (`start` makes it) until it returns, which it does when told to
/// stop; when it ends by a panic it is logged, counted, and started again after a pause
/// (doubling while it keeps dying, reset once it ran a while), unless `stop` says so.
pub async fn supervise<F, Fut>(
    state: Services,
    task: &'static str,
    mut stop: tokio::sync::watch::Receiver<bool>,
    mut start: F,
) where
    F: FnMut() -> Fut,
    Fut: Future<Output = ()>,
{
    recount(&state).await;
    let mut delay = RESTART_FIRST;
    loop {
        let started = Instant::now();
        match AssertUnwindSafe(start()).catch_unwind().await {
            Ok(()) => return,
            Err(panic) => {
                let error = panic_text(&*panic);
                tracing::error!(task, error = %error, "a background task panicked; it is started again");
                died(&state, task, &error);
            }
        }
        if started.elapsed() > RESTART_MAX {
            delay = RESTART_FIRST;
        }
        if *stop.borrow() {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            _ = stop.changed() => return,
        }
        delay = (delay * 2).min(RESTART_MAX);
    }
}

fn utc_now() -> String {
    utc_text(crate::services::now_ms())
}

/// Unix milliseconds as `2026-12-06T14:02:11.042Z`, as the database writes times.
pub(crate) fn utc_text(ms: i64) -> String {
    app::text::utc_from_ms(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_the_database_writes_them() {
        assert_eq!(utc_text(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc_text(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(utc_text(1_796_567_731_042), "2026-12-06T14:35:31.042Z");
    }

    #[tokio::test]
    async fn a_panic_is_caught_like_an_error() {
        let caught = isolate(async {
            if true {
                panic!("byte index 12 is not a char boundary");
            }
            Ok::<(), ServiceError>(())
        })
        .await
        .unwrap_err();
        assert!(!caught.is_transient());
        assert_eq!(
            caught.text(),
            "panicked: byte index 12 is not a char boundary"
        );
        let busy =
            isolate(async { Err::<(), _>(ServiceError::Store(StoreError::Busy("locked".into()))) })
                .await
                .unwrap_err();
        assert!(busy.is_transient());
        assert_eq!(
            isolate(async { Ok::<_, ServiceError>(3) }).await.unwrap(),
            3
        );
    }

    #[test]
    fn healthz_names_failing_tasks_and_counts_what_is_set_aside() {
        let b = Background::default();
        assert_eq!(b.degraded(), None);
        b.update("notifier", |t| {
            t.state = "failing".into();
            t.last_failure = Some(Failure {
                at: "2026-12-06T14:02:11.000Z".into(),
                what: "the whole pass".into(),
                error: "x".into(),
            });
        });
        b.quarantined.store(2, Ordering::Relaxed);
        assert_eq!(
            b.degraded().unwrap(),
            "degraded: the notifier's last pass failed at 2026-12-06T14:02:11.000Z; 2 items set \
             aside; an admin sees why at GET /api/v1/background"
        );
    }
}
