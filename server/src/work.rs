//! Expensive work (parsing, statistics, trends, charts) off the async workers, bounded and
//! cancellable.
//!
//! - At most `max_heavy` run at once; a request waits up to [`QUEUE_WAIT`] for a turn, then is
//!   answered 503 with `Retry-After` (load shedding, not an unbounded queue).
//! - When the request is dropped (its timeout fired, the client went away), the work is told
//!   through [`crate::ingest::cancel`]: long loops check it and stop early, so a timed-out
//!   request does not keep burning a CPU.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::ingest::cancel;

/// How long an expensive request waits for a turn before it is shed.
pub const QUEUE_WAIT: Duration = Duration::from_secs(1);

/// The limit of expensive requests running at once.
pub struct Heavy {
    permits: Semaphore,
}

impl Heavy {
    pub fn new(limit: usize) -> Heavy {
        Heavy {
            permits: Semaphore::new(limit.max(1)),
        }
    }

    /// Runs `work` on a blocking thread once a turn is free; 503 if none frees up in time.
    /// Dropping the returned future flags the work as cancelled.
    pub async fn run<R, F>(&self, work: F) -> Result<R, ApiError>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let _permit = tokio::time::timeout(QUEUE_WAIT, self.permits.acquire())
            .await
            .map_err(|_| ApiError::overloaded())?
            .map_err(|_| ApiError::overloaded())?;
        let flag = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(flag.clone());
        let task = tokio::task::spawn_blocking(move || cancel::with(flag, work));
        task.await
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("background task failed: {e}")))
    }

    /// Like [`Heavy::run`] for an async computation that does its own blocking hand-off.
    pub async fn gate<R>(&self, work: impl Future<Output = R>) -> Result<R, ApiError> {
        let _permit = tokio::time::timeout(QUEUE_WAIT, self.permits.acquire())
            .await
            .map_err(|_| ApiError::overloaded())?
            .map_err(|_| ApiError::overloaded())?;
        Ok(work.await)
    }
}

/// Sets the flag when the request's future is dropped before the work finished.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
