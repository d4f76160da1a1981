// SPDX-License-Identifier: GPL-3.0-or-later
//! Expensive work (parsing, statistics, trends, charts) off the async workers, bounded and
//! cancellable.
//!
//! - At most `max_heavy` run at once; a request waits up to [`QUEUE_WAIT`] for a turn, then is
//!   answered 503 with `Retry-After` (load shedding, not an unbounded queue).
//! - When the request is dropped (its timeout fired, the client went away), the work is told
//!   through [`crate::ingest::cancel`]: long loops check it and stop early, so a timed-out
//!   request does not keep burning a CPU.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::ingest::cancel;
use crate::services::ServiceError;

/// How long an expensive request waits for a turn before it is shed.
pub const QUEUE_WAIT: Duration = Duration::from_secs(1);

/// The limit of expensive requests running at once.
pub struct Heavy {
    permits: Arc<Semaphore>,
}

impl Heavy {
    pub fn new(limit: usize) -> Heavy {
        Heavy {
            permits: Arc::new(Semaphore::new(limit.max(1))),
        }
    }

    /// Runs `work` on a blocking thread once a turn is free; 503 if none frees up in time.
    /// Dropping the returned future flags the work as cancelled.
    pub async fn run<R, F>(&self, work: F) -> Result<R, ServiceError>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let permit = tokio::time::timeout(QUEUE_WAIT, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| ServiceError::Overloaded)?
            .map_err(|_| ServiceError::Overloaded)?;
        let flag = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(flag.clone());
        // The turn is held by the work itself: a cancelled request's work keeps it until it
        // has stopped, so the limit bounds the CPU in use, not just the requests waiting.
        // The work runs in the caller's span (request → stage), so what it logs says where.
        let span = tracing::Span::current();
        let task = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let _span = span.enter();
            cancel::with(flag, work)
        });
        task.await
            .map_err(|e| ServiceError::Internal(anyhow::anyhow!("background task failed: {e}")))
    }
}

/// Sets the flag when the request's future is dropped before the work finished.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `fut` as one stage of a request (`parse`, `store`, `query`, `stats`, `render`, ...)
/// in `span`, under the request's span, and logs its duration at `debug` in it: with
/// `--log perfline_server=debug` every upload shows request → parse → store, and every
/// comparison request → query → stats → render, with their times.
pub async fn stage<F: std::future::Future>(span: tracing::Span, fut: F) -> F::Output {
    use tracing::Instrument as _;
    let started = std::time::Instant::now();
    let out = fut.instrument(span.clone()).await;
    span.in_scope(|| {
        tracing::debug!(ms = started.elapsed().as_secs_f64() * 1e3, "stage done");
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// With every turn taken, the next expensive request waits [`QUEUE_WAIT`] and is shed.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_full_limit_sheds_with_503() {
        let heavy = Arc::new(Heavy::new(1));
        let busy = {
            let heavy = heavy.clone();
            tokio::spawn(async move {
                heavy
                    .run(|| std::thread::sleep(Duration::from_millis(1500)))
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let started = Instant::now();
        let shed = heavy.run(|| ()).await.unwrap_err();
        assert!(matches!(shed, ServiceError::Overloaded));
        // The edge answers it 503.
        let answer = crate::http::error::ApiError::from(shed);
        assert_eq!(answer.status().as_u16(), 503);
        assert!(started.elapsed() >= QUEUE_WAIT);
        busy.await.unwrap().unwrap();
        heavy.run(|| ()).await.expect("a free turn again");
    }

    /// Dropping the request (its timeout fired) tells the work, which stops early.
    #[tokio::test(flavor = "multi_thread")]
    async fn dropped_work_is_cancelled() {
        let heavy = Heavy::new(1);
        let stopped = Arc::new(AtomicBool::new(false));
        let seen = stopped.clone();
        let started = Instant::now();
        let timed_out = tokio::time::timeout(
            Duration::from_millis(100),
            heavy.run(move || {
                // Spins for up to 20 s unless cancelled, as a long parse would.
                while started.elapsed() < Duration::from_secs(20) {
                    if cancel::requested() {
                        seen.store(true, Ordering::Relaxed);
                        return;
                    }
                    std::hint::spin_loop();
                }
            }),
        )
        .await;
        assert!(timed_out.is_err());
        // The turn comes back as soon as the work has noticed.
        heavy.run(|| ()).await.expect("the turn is released");
        assert!(
            stopped.load(Ordering::Relaxed),
            "the work saw the cancellation"
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }
}
