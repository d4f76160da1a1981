// SPDX-License-Identifier: GPL-3.0-or-later
//! SQLite's write-ahead log copied back into the database file by a task of its own, not by
//! the writer's commits.
//!
//! By default SQLite checkpoints inside the commit that takes the log past 1,000 pages: every
//! eighth upload of an mmtests tree (1.3 MB of log each) held the one writer 14 ms longer
//! (commit 2 → 16 ms) while it copied 16 MB into the file and synced it, and every write
//! waiting behind it waited too. Here the writer's automatic checkpoint is only a backstop
//! ([`BACKSTOP_PAGES`]), and a task on a connection of its own runs `PASSIVE` checkpoints
//! (which wait for no reader and no writer) after each upload and every
//! [`PERIOD`] otherwise. A checkpoint with nothing new to copy reads the log's header and
//! returns: the idle server does almost nothing.

use std::sync::Weak;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::Connection as _;
use tokio::sync::Notify;

/// The writer's own automatic checkpoint, kept only for a checkpointer that cannot keep up
/// (or cannot connect): 128 MiB of log at 16 KiB pages.
pub(super) const BACKSTOP_PAGES: &str = "8192";

/// How often the log is checkpointed when no upload asks sooner.
const PERIOD: Duration = Duration::from_secs(1);

/// Starts the checkpointer of the database `options` open (read-write, not created). It runs
/// while `written` lives (the store's clones hold it), woken by it after each upload.
pub(super) fn spawn(options: SqliteConnectOptions, written: Weak<Notify>) {
    tokio::spawn(async move {
        let mut conn: Option<SqliteConnection> = None;
        while let Some(notify) = written.upgrade() {
            // Woken by an upload, or by the period.
            let _ = tokio::time::timeout(PERIOD, notify.notified()).await;
            drop(notify);
            if written.strong_count() == 0 {
                break;
            }
            if let Err(e) = checkpoint(&mut conn, &options).await {
                // Tried again next time on a new connection; the writer's backstop bounds the
                // log meanwhile.
                conn = None;
                tracing::warn!(error = %e, "cannot checkpoint the database's log");
            }
        }
        if let Some(c) = conn {
            let _ = c.close().await;
        }
    });
}

/// One `PASSIVE` checkpoint, on `conn` (connected first if need be).
async fn checkpoint(
    conn: &mut Option<SqliteConnection>,
    options: &SqliteConnectOptions,
) -> Result<(), sqlx::Error> {
    let c = match conn {
        Some(c) => c,
        None => conn.insert(SqliteConnection::connect_with(options).await?),
    };
    let (busy, log, copied): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
        .fetch_one(&mut *c)
        .await?;
    tracing::trace!(busy, log, copied, "checkpoint");
    Ok(())
}
