// SPDX-License-Identifier: GPL-3.0-or-later
//! The storage layer. Architecture invariant: this module is the only one that speaks SQL.
//!
//! Two engines behind one `Store`, its queries written once (`sql.rs`: the engine boundary):
//! - SQLite (the default) in WAL mode with two pools: one writer connection (SQLite allows one
//!   writer at a time; queueing in the pool is cheaper than `SQLITE_BUSY` retries) and several
//!   read-only readers that never wait for it.
//! - PostgreSQL (`postgres.rs`): one pool shared by any number of servers; write transactions
//!   take one advisory lock, so they are serialised across servers as SQLite's are on a file.
//!
//! One upload is one write transaction.

mod alerts;
mod bisection;
mod cache;
mod checkpoint;
mod console;
mod database;
mod delete;
pub mod health;
mod history;
mod lease;
mod lkp_report;
mod lkp_view;
mod metric_key;
mod migrate;
mod packed;
mod permalink;
pub mod postgres;
mod quarantine;
mod read;
mod run_pack;
mod sql;
#[cfg(test)]
pub(crate) mod testdb;
#[cfg(test)]
pub(crate) use testdb::on_both_engines;
mod fold;
mod tokens;
mod trend_block;
mod trend_pack;
mod work;
mod work_lease;
mod write;

mod error;
mod open;

pub use error::{StoreError, StoreResult};
pub use open::Connect;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::ConnectOptions;

pub use database::Database;
use sql::{query, query_as, sql, Pool, Target};
pub use sql::{Engine, WRITE_LOCK};

pub use alerts::{
    AlertJob, ConfirmPolicy, Delivery, KnownAlert, NewAlert, NewNotice, PendingEvent, SummaryFilter,
};
pub use bisection::{BisectRequest, StoredBisection};
pub use console::AuditFilter;
pub use delete::{Correction, Deleted, Gone};
pub use history::{CommitMarks, SeriesMarks};
pub use lkp_report::{LkpReportHead, LkpReportRow, NewLkpReport};
pub use migrate::{sqlite_to_postgres, Copied};
pub use permalink::{Ensured, Keep};
pub use quarantine::{NewQuarantine, Quarantined};
pub use read::{CalibrationRun, CompareSeries, RunFilter, StoredFile, MAX_CALIBRATION_RUNS};
pub use tokens::{AuditEntry, TokenInfo};
pub use trend_pack::{History, HistoryCommit, TrendRun, TrendRuns};
pub use work::{Awaiting, AwaitingAlert, RerunMean, StoredRequest};
pub use work_lease::{Taken, MAX_REASON_CHARS};
pub use write::{Inserted, NewFile, NewUpload};

#[derive(Clone)]
pub struct Store {
    /// Where writes go: SQLite's one writer connection, or the PostgreSQL pool.
    writer: Pool,
    /// Where reads go: SQLite's read-only connections, or the same PostgreSQL pool.
    reader: Pool,
    /// Runs ever deleted (see [`Store::rewrites`]).
    rewrites: std::sync::Arc<std::sync::atomic::AtomicI64>,
    /// How the data version is read (see [`Store::generation`]), and the version last seen.
    watcher: std::sync::Arc<Watcher>,
    /// Copies of data that does not change (full trend chunks, histories by version).
    caches: std::sync::Arc<cache::Caches>,
    /// The metric dictionary's ids, both ways (`metric_key.rs`).
    keys: std::sync::Arc<metric_key::Keys>,
    /// Told when an upload queues series for the alert detector.
    alert_jobs_queued: std::sync::Arc<tokio::sync::Notify>,
    /// Whether the database answers, as the probe found last.
    health: std::sync::Arc<health::Health>,
    /// Told when an upload has committed: SQLite's checkpointer copies the log into the file
    /// (`checkpoint.rs`); unused on PostgreSQL.
    wal_written: std::sync::Arc<tokio::sync::Notify>,
    /// The benchmarks and machines whose runs the folder may fold into trend blocks
    /// (`fold.rs`).
    folds: std::sync::Arc<fold::Folds>,
}

impl Store {
    /// The data version: it changes with every write of data that pages and the API derive
    /// anything from (uploads, marks, histories, bisect logs, deletions, corrections, alerts),
    /// by this process or any other on the same file, and with nothing else (a new permalink,
    /// a token, a session, the audit log). Caches of derived data are keyed by it.
    ///
    /// It is a counter in the database (`data_version`) that triggers on the data's tables bump
    /// in the writing transaction itself, whoever writes (this store, another server on the
    /// same file, a maintenance script's SQL); read here on a dedicated connection, so what
    /// another process committed is seen at once.
    ///
    /// On PostgreSQL the counter is read from the database at every call too, not only taken
    /// from the `NOTIFY` that its trigger sends at commit: a notice arrives a moment after the
    /// writer's answer, and a client that uploads through one server and reads through another
    /// at once must see its upload. The notices wake this server's background work instead.
    pub async fn generation(&self) -> StoreResult<u64> {
        use std::sync::atomic::Ordering;
        let version = sql!("SELECT version FROM data_version WHERE id = 1");
        let changed = |seen: &mut Option<i64>, version: i64| {
            let changed = *seen != Some(version);
            *seen = Some(version);
            changed
        };
        let (version, rewrites) = match &*self.watcher {
            Watcher::Sqlite(watcher) => {
                let mut guard = watcher.lock().await;
                let (conn, seen) = &mut *guard;
                let (version,): (i64,) = query_as(version).fetch_one(&mut *conn).await?;
                let rewrites = if changed(seen, version) {
                    Some(Store::rewrites_in(&mut *conn).await?)
                } else {
                    None
                };
                (version, rewrites)
            }
            Watcher::Postgres { seen, .. } => {
                let (version,): (i64,) = query_as(version).fetch_one(&self.reader).await?;
                let rewrites = if changed(&mut *seen.lock().await, version) {
                    Some(Store::rewrites_in(&self.reader).await?)
                } else {
                    None
                };
                (version, rewrites)
            }
        };
        // Did anyone take stored runs away? Then what was cached as immutable is not.
        if let Some(rewrites) = rewrites {
            if self.rewrites.swap(rewrites, Ordering::AcqRel) != rewrites {
                self.caches.clear();
            }
        }
        Ok(u64::try_from(version).unwrap_or_default())
    }

    /// How many stored runs were ever deleted, as of the last [`Store::generation`] call: a
    /// permalink's cached comparison is valid while it stays the same.
    pub fn rewrites(&self) -> i64 {
        self.rewrites.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Notified when an upload has queued series for the alert detector.
    pub fn alert_jobs_queued(&self) -> std::sync::Arc<tokio::sync::Notify> {
        self.alert_jobs_queued.clone()
    }

    /// Whether the database answers, as the health probe found last (see [`health`]); the
    /// probe runs once [`Store::start_probe`] is called.
    pub fn health(&self) -> &health::Health {
        &self.health
    }

    /// Starts the health probe (a server does; the command-line tools need none).
    pub fn start_probe(&self, db: &Database) {
        match (db, &self.reader) {
            (Database::Postgres(url), _) => {
                if let Ok(options) = <sqlx::postgres::PgConnectOptions as FromStr>::from_str(url) {
                    self.health
                        .spawn_postgres(options.application_name("perfline-probe"));
                }
            }
            (Database::Sqlite(path), Pool::Sqlite(pool)) => {
                self.health
                    .spawn_sqlite(pool.clone(), path.display().to_string());
            }
            _ => {}
        }
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> StoreResult<()> {
        query(sql!("SELECT 1")).execute(&self.reader).await?;
        Ok(())
    }

    /// The size of a PostgreSQL database on disk (`None` for SQLite: its file tells).
    pub async fn database_bytes(&self) -> StoreResult<Option<i64>> {
        if self.engine() == Engine::Sqlite {
            return Ok(None);
        }
        let (bytes,): (i64,) = query_as(sql!("SELECT pg_database_size(current_database())"))
            .fetch_one(&self.reader)
            .await?;
        Ok(Some(bytes))
    }

    /// PostgreSQL only: the bytes of the table that keeps the raw files (with its TOAST data
    /// and indexes), to tell them from what the rest of the database takes.
    pub async fn raw_file_bytes(&self) -> StoreResult<Option<i64>> {
        if self.engine() == Engine::Sqlite {
            return Ok(None);
        }
        let (bytes,): (i64,) = query_as(sql!("SELECT pg_total_relation_size('upload_file')"))
            .fetch_one(&self.reader)
            .await?;
        Ok(Some(bytes))
    }

    /// Row counts of every table, for tests and the health check.
    pub async fn table_counts(&self) -> StoreResult<Vec<(String, i64)>> {
        Store::counts_in(Target::from(&self.reader)).await
    }

    async fn counts_in(mut target: Target<'_>) -> StoreResult<Vec<(String, i64)>> {
        let mut out = Vec::new();
        for (table, sql) in [
            ("machine", sql!("SELECT COUNT(*) FROM machine")),
            ("kernel", sql!("SELECT COUNT(*) FROM kernel")),
            ("upload", sql!("SELECT COUNT(*) FROM upload")),
            ("upload_file", sql!("SELECT COUNT(*) FROM upload_file")),
            ("run", sql!("SELECT COUNT(*) FROM run")),
            ("run_data", sql!("SELECT COUNT(*) FROM run_data")),
            ("series", sql!("SELECT COUNT(*) FROM series")),
            ("sample", sql!("SELECT COUNT(*) FROM sample")),
            ("permalink", sql!("SELECT COUNT(*) FROM permalink")),
        ] {
            let (n,): (i64,) = query_as(sql).fetch_one(target.reborrow()).await?;
            out.push((table.to_owned(), n));
        }
        Ok(out)
    }

    /// Copies the whole database file `from` to the new file `to` with `VACUUM INTO` on a
    /// read-only connection: one consistent snapshot, while writers go on. It is written as `to.partial`,
    /// checked (`PRAGMA integrity_check`), then renamed, so `to` is never a half copy. Answers
    /// the copy's row counts.
    pub async fn backup(from: &Path, to: &Path) -> anyhow::Result<Vec<(String, i64)>> {
        use anyhow::bail;
        use sqlx::Connection as _;
        if !from.is_file() {
            bail!("{} is no database file", from.display());
        }
        if to.exists() {
            bail!("{} exists; name a new file", to.display());
        }
        let mut partial = to.as_os_str().to_owned();
        partial.push(".partial");
        let partial = std::path::PathBuf::from(partial);
        if partial.exists() {
            std::fs::remove_file(&partial)
                .with_context(|| format!("cannot remove the stale {}", partial.display()))?;
        }
        let target = partial
            .to_str()
            .with_context(|| format!("{} is not UTF-8", partial.display()))?;
        // A read-only connection of its own: the file is neither migrated nor written, so a
        // server of another version may go on serving it.
        let mut source = SqliteConnectOptions::new()
            .filename(from)
            .read_only(true)
            .busy_timeout(Duration::from_secs(10))
            .connect()
            .await
            .with_context(|| format!("cannot open {}", from.display()))?;
        query(sql!("VACUUM INTO ?"))
            .bind(target)
            .execute(&mut source)
            .await
            .with_context(|| format!("cannot write {}", partial.display()))?;
        source.close().await?;
        // One connection, closed before the rename: no WAL or shared-memory file stays.
        let mut copy = SqliteConnectOptions::new()
            .filename(&partial)
            .connect()
            .await
            .with_context(|| format!("cannot open the copy {}", partial.display()))?;
        let (check,): (String,) = query_as(sql!("PRAGMA integrity_check"))
            .fetch_one(&mut copy)
            .await?;
        let counts = Store::counts_in(Target::from(&mut copy)).await?;
        copy.close().await?;
        if check != "ok" {
            bail!(
                "the copy {} failed its integrity check: {check}",
                partial.display()
            );
        }
        std::fs::rename(&partial, to)
            .with_context(|| format!("cannot rename {} to {}", partial.display(), to.display()))?;
        Ok(counts)
    }

    pub async fn close(&self) {
        self.health.stop();
        if let Watcher::Postgres { listener, .. } = &*self.watcher {
            listener.abort();
        }
        self.writer.close().await;
        self.reader.close().await;
    }
}

/// How a store reads the data version.
enum Watcher {
    /// A read-only connection of its own (so what another process committed is seen at
    /// once), and the version last seen.
    Sqlite(tokio::sync::Mutex<(sqlx::SqliteConnection, Option<i64>)>),
    /// The version last seen, and the task listening for the version's notices.
    Postgres {
        seen: tokio::sync::Mutex<Option<i64>>,
        listener: tokio::task::JoinHandle<()>,
    },
}

#[cfg(test)]
mod tests;
