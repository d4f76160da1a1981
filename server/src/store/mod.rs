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
mod cache;
mod database;
mod delete;
pub mod health;
mod history;
mod lease;
mod migrate;
mod packed;
pub mod postgres;
mod read;
mod sql;
#[cfg(test)]
pub(crate) mod testdb;
#[cfg(test)]
pub(crate) use testdb::on_both_engines;
mod tokens;
mod trend_pack;
mod write;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::ConnectOptions;

pub use database::Database;
use sql::{query, query_as, sql, Pool, Target};
pub use sql::{Engine, WRITE_LOCK};

/// What a store method fails with. Which to use where:
/// - [`StoreError::Busy`]: locked by another writer or connection, or the pool exhausted:
///   worth retrying (the edge answers 503 with `Retry-After`).
/// - [`StoreError::Unreachable`]: the database server is down, restarting, or the connection
///   was lost (503 too).
/// - [`StoreError::NotFound`]: a row the operation needs is not there.
/// - [`StoreError::Conflict`]: a row with that name or key exists.
/// - [`StoreError::Invalid`]: the operation's input breaks a rule of the store.
/// - [`StoreError::Corrupt`]: a stored value cannot be read back (a torn blob, bad JSON).
/// - [`StoreError::Other`]: anything else the driver reports.
///
/// The strings of `Busy`, `Unreachable`, `Corrupt` and `Other` are the driver's or the
/// decoder's words, for the log only; those of `NotFound`, `Conflict` and `Invalid` are
/// sentences for the person asking.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database busy: {0}")]
    Busy(String),
    #[error("database unreachable: {0}")]
    Unreachable(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Invalid(String),
    #[error("stored data cannot be read: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Other(sqlx::Error),
}

pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// The error a sqlx error is: busy, unreachable, or another.
    fn of(e: sqlx::Error) -> StoreError {
        if StoreError::is_unreachable(&e) {
            StoreError::Unreachable(e.to_string())
        } else if StoreError::is_busy(&e) {
            StoreError::Busy(e.to_string())
        } else {
            StoreError::Other(e)
        }
    }

    /// Whether a sqlx error means the database server cannot be reached: the connection
    /// failed or was lost, or the server is shutting down, crashed, or starting.
    fn is_unreachable(e: &sqlx::Error) -> bool {
        match e {
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => true,
            sqlx::Error::Database(d) => {
                let code = d.code().unwrap_or_default();
                // PostgreSQL: admin shutdown, crash shutdown, cannot connect now, and every
                // connection exception (class 08).
                matches!(code.as_ref(), "57P01" | "57P02" | "57P03") || code.starts_with("08")
            }
            _ => false,
        }
    }

    /// Whether a sqlx error means "busy, try again".
    fn is_busy(e: &sqlx::Error) -> bool {
        match e {
            // The pool is exhausted (every connection in use, or none can be made).
            sqlx::Error::PoolTimedOut => true,
            sqlx::Error::Database(d) => {
                let code = d.code().unwrap_or_default();
                match code.parse::<i32>() {
                    // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
                    Ok(code) => matches!(code & 0xff, 5 | 6),
                    // PostgreSQL: serialization failure, deadlock, lock not available, too many
                    // connections.
                    Err(_) => matches!(code.as_ref(), "40001" | "40P01" | "55P03" | "53300"),
                }
            }
            _ => false,
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::of(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Corrupt(format!("JSON: {e}"))
    }
}

impl StoreError {
    /// A stored value that cannot be decoded (a torn blob, a bad packing).
    pub fn corrupt(e: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}

pub use alerts::{
    AlertJob, Delivery, KnownAlert, NewAlert, NewNotice, PendingEvent, SummaryFilter,
};
pub use delete::{Correction, Deleted, Gone};
pub use history::CommitMarks;
pub use migrate::{sqlite_to_postgres, Copied};
pub use read::{CompareSeries, RunFilter, StoredFile};
pub use tokens::{AuditEntry, TokenInfo};
pub use trend_pack::{History, HistoryCommit, TrendRun, TrendRuns};
pub use write::{Inserted, NewFile, NewUpload};

/// How the store connects: waits, timeouts, the pool.
#[derive(Debug, Clone)]
pub struct Connect {
    /// How long a statement waits for another writer's lock before it is busy.
    pub busy_timeout: Duration,
    /// PostgreSQL: connections in the pool.
    pub pool_size: u32,
    /// PostgreSQL: how long a request waits for a connection from the pool.
    pub acquire_timeout: Duration,
    /// PostgreSQL: how long to wait at start for a server that does not answer yet.
    pub wait: Duration,
}

impl Default for Connect {
    fn default() -> Self {
        Connect {
            busy_timeout: Duration::from_secs(5),
            pool_size: 16,
            acquire_timeout: Duration::from_secs(2),
            wait: Duration::ZERO,
        }
    }
}

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
    /// Told when an upload queues series for the alert detector.
    alert_jobs_queued: std::sync::Arc<tokio::sync::Notify>,
    /// Whether the database answers, as the probe found last.
    health: std::sync::Arc<health::Health>,
}

impl Store {
    /// Opens the store `--db` names: a SQLite file (waiting up to `busy_timeout` for another
    /// process's write lock) or a PostgreSQL database (with a pool of `pool_size` connections).
    pub async fn connect(
        db: &Database,
        busy_timeout: Duration,
        pool_size: u32,
    ) -> anyhow::Result<Store> {
        let options = Connect {
            busy_timeout,
            pool_size,
            ..Connect::default()
        };
        Store::connect_with(db, &options).await
    }

    /// Opens the store `--db` names, as `options` say.
    pub async fn connect_with(db: &Database, options: &Connect) -> anyhow::Result<Store> {
        match db {
            Database::Sqlite(path) => Store::open_with(path, options.busy_timeout).await,
            Database::Postgres(url) => Store::open_postgres(url, options).await,
        }
    }

    /// Which engine the store speaks.
    pub fn engine(&self) -> Engine {
        self.writer.engine()
    }

    /// Opens (creating if needed) the database file and runs the migrations.
    pub async fn open(path: &Path) -> anyhow::Result<Store> {
        Store::open_with(path, Duration::from_secs(5)).await
    }

    /// Opens the store; a statement waits up to `busy_timeout` for another process's write
    /// lock before it fails as [`StoreError::Busy`].
    pub async fn open_with(path: &Path, busy_timeout: Duration) -> anyhow::Result<Store> {
        let base = SqliteConnectOptions::from_str("sqlite://")?
            .filename(path)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(busy_timeout)
            // 64 MiB of page cache per connection: an upload of a million samples stays in memory
            // until commit.
            .pragma("cache_size", "-65536")
            // Larger pages mean fewer b-tree splits on bulk inserts and fewer overflow pages for
            // raw files. Only takes effect when the file is created.
            .page_size(16384);
        // synchronous=FULL on the writer: in WAL mode NORMAL may lose the last commits on
        // power loss (never corrupts), and an upload answered 201 must survive. It costs one
        // fsync of the WAL per write transaction (see BENCHMARKS.md).
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(
                base.clone()
                    .create_if_missing(true)
                    .synchronous(SqliteSynchronous::Full),
            )
            .await
            .with_context(|| format!("cannot open the database {}", path.display()))?;
        sqlx::migrate!("../migrations/sqlite")
            .run(&writer)
            .await
            .with_context(|| format!("cannot migrate the database {}", path.display()))?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(base.clone().read_only(true))
            .await
            .with_context(|| format!("cannot open the database {} for reading", path.display()))?;
        let watcher =
            base.read_only(true).connect().await.with_context(|| {
                format!("cannot open the database {} to watch it", path.display())
            })?;
        let store = Store {
            writer: Pool::Sqlite(writer),
            reader: Pool::Sqlite(reader),
            rewrites: Default::default(),
            watcher: std::sync::Arc::new(Watcher::Sqlite(tokio::sync::Mutex::new((watcher, None)))),
            caches: Default::default(),
            alert_jobs_queued: Default::default(),
            health: Default::default(),
        };
        store
            .fill_packed()
            .await
            .with_context(|| format!("cannot fill the packed trends of {}", path.display()))?;
        Ok(store)
    }

    /// Connects to the PostgreSQL database at `url` with a pool of `pool_size` connections,
    /// brings its schema up to date (safe when several servers start at once), and listens for
    /// the data version's notices (see [`Store::generation`]).
    pub async fn open_postgres(url: &str, options: &Connect) -> anyhow::Result<Store> {
        let pool = postgres::connect(url, options).await?;
        let alert_jobs_queued: std::sync::Arc<tokio::sync::Notify> = Default::default();
        let listener = postgres::spawn_listener(url, alert_jobs_queued.clone()).await?;
        let store = Store {
            writer: Pool::Postgres(pool.clone()),
            reader: Pool::Postgres(pool),
            rewrites: Default::default(),
            watcher: std::sync::Arc::new(Watcher::Postgres {
                seen: tokio::sync::Mutex::new(None),
                listener,
            }),
            caches: Default::default(),
            alert_jobs_queued,
            health: Default::default(),
        };
        store
            .fill_packed()
            .await
            .context("cannot fill the packed trends")?;
        Ok(store)
    }

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
mod tests {
    use super::*;
    use crate::ingest::{parse_file, test_meta, Format};
    use app::types::CompareQuery;
    use sha2::Digest;
    use std::collections::HashMap;

    use super::testdb::TestDb;

    crate::store::on_both_engines!(
        series_without_packed_samples_read_the_same,
        trends_read_every_run_across_chunks_and_uploads,
        the_data_version_moves_with_data_only,
        deleting_an_upload_rebuilds_its_trends,
        older_databases_get_their_packed_trends_at_start,
        uploads_through_two_stores_at_once_are_serialised,
    );

    /// Two stores (two servers) upload runs of one series at the same time: every run is in
    /// the trend once, in chunks of the right sizes; the same bytes through both at once are
    /// stored once. Without the write lock (PostgreSQL's advisory lock, SQLite's one writer)
    /// both would find no upload with that digest and the second would fail on the unique
    /// digest.
    async fn uploads_through_two_stores_at_once_are_serialised(db: &TestDb) {
        let (a, b) = (db.open().await, db.open().await);
        let robot = |store: Store, from: usize| async move {
            for i in from..from + 30 {
                upload_csv(&store, &runs_csv(i, i + 1)).await;
            }
        };
        let (ra, rb) = tokio::join!(
            tokio::spawn(robot(a.clone(), 0)),
            tokio::spawn(robot(b.clone(), 30))
        );
        ra.unwrap();
        rb.unwrap();
        for store in [&a, &b] {
            let runs = store.trend_runs("b", "m1", "tput", "").await.unwrap();
            let mut ids: Vec<i64> = runs.iter().map(|r| r.run_id).collect();
            ids.sort_unstable();
            assert_eq!(ids, (1..=60).collect::<Vec<i64>>());
        }
        let stored: Vec<(i64, i64)> = query_as(sql!("SELECT chunk, runs FROM trend_chunk"))
            .fetch_all(&a.reader)
            .await
            .unwrap();
        assert_eq!(stored, [(0, 60)]);
        // The same bytes through both at once: stored once, the other told it exists.
        for round in 0..10 {
            let (_, runs) = parse_file(
                runs_csv(100 + round, 101 + round).as_bytes(),
                Some(Format::Csv),
                &test_meta(),
            )
            .unwrap();
            let upload = std::sync::Arc::new(NewUpload {
                digest: format!("same-{round}"),
                metadata: "{}".into(),
                files: Vec::new(),
                runs,
                mark: None,
                commit_time: None,
                uploaded_by: "test".into(),
            });
            let put = |store: Store| {
                let upload = upload.clone();
                tokio::spawn(async move { store.insert_upload(&upload).await.unwrap() })
            };
            let (x, y) = tokio::join!(put(a.clone()), put(b.clone()));
            let mut both = [x.unwrap(), y.unwrap()];
            both.sort_by_key(|i| matches!(i, Inserted::Existing(_)));
            match both {
                [Inserted::Created(c), Inserted::Existing(e)] => assert_eq!(c, e),
                other => panic!("round {round}: {other:?}"),
            }
        }
    }

    /// Series stored before `series.packed` existed are read from the `sample` table, with the
    /// same result, by comparisons and by the run page.
    async fn series_without_packed_samples_read_the_same(db: &TestDb) {
        let store = db.open().await;
        upload_csv(
            &store,
            "benchmark,metric,param,iteration,value\nb,tput,64,2,1.25\nb,tput,64,1,0.1\nb,tput,128,1,3e10\n",
        )
        .await;
        let compare = CompareQuery::parse("b", "m1", &["6.1.0"]).unwrap();
        let read = |s: Vec<CompareSeries>| {
            s.into_iter()
                .map(|s| (s.param, s.iterations, s.values))
                .collect::<Vec<_>>()
        };
        let packed = read(store.compare_series(&compare, None).await.unwrap());
        assert_eq!(
            packed,
            [
                ("64".to_owned(), vec![1, 2], vec![0.1, 1.25]),
                ("128".to_owned(), vec![1], vec![3e10])
            ]
        );
        // Make it a database from before `series.packed`: samples as rows, no packed blobs.
        let run_before = store.run_series(1).await.unwrap();
        let packed_rows: Vec<(i64, Vec<u8>)> = query_as(sql!("SELECT id, packed FROM series"))
            .fetch_all(&store.writer)
            .await
            .unwrap();
        for (id, bytes) in packed_rows {
            let (iterations, values) = packed::unpack(&bytes).unwrap();
            for (i, v) in iterations.into_iter().zip(values) {
                query(sql!(
                    "INSERT INTO sample (series_id, iteration, value) VALUES (?, ?, ?)"
                ))
                .bind(id)
                .bind(i)
                .bind(v)
                .execute(&store.writer)
                .await
                .unwrap();
            }
        }
        query(sql!("UPDATE series SET packed = NULL"))
            .execute(&store.writer)
            .await
            .unwrap();
        assert_eq!(store.run_series(1).await.unwrap(), run_before);
        let from_rows = read(store.compare_series(&compare, None).await.unwrap());
        assert_eq!(from_rows, packed);
    }

    /// On PostgreSQL, a write through one store wakes the others' detectors (the data
    /// version's NOTIFY), and still does after the listening connection was cut: it is made
    /// again and listens again.
    #[tokio::test(flavor = "multi_thread")]
    async fn postgres_notices_wake_other_servers_even_after_a_lost_connection() {
        use std::time::Duration;
        let db = TestDb::postgres().await;
        let (a, b) = (db.open().await, db.open().await);
        let woken = b.alert_jobs_queued();
        // Wakes left from before (the reconnection wakes too) are taken first.
        let drain = || async {
            while tokio::time::timeout(Duration::from_millis(300), woken.notified())
                .await
                .is_ok()
            {}
        };
        let woken_by_upload = |csv: String| {
            let (a, woken) = (a.clone(), woken.clone());
            async move {
                let notified = woken.notified();
                upload_csv(&a, &csv).await;
                tokio::time::timeout(Duration::from_secs(5), notified)
                    .await
                    .is_ok()
            }
        };
        drain().await;
        assert!(woken_by_upload(runs_csv(0, 1)).await, "B was not told");
        let (killed,): (i64,) = query_as(sql!(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = current_database() AND query LIKE 'LISTEN%'"
        ))
        .fetch_one(&a.reader)
        .await
        .unwrap();
        assert_eq!(killed, 2, "each store listens on a connection of its own");
        tokio::time::sleep(Duration::from_millis(500)).await;
        drain().await;
        assert!(
            woken_by_upload(runs_csv(1, 2)).await,
            "B was not told after its listening connection was cut"
        );
    }

    /// Stores `csv` (a generic CSV with the test machine and kernel) as one upload.
    async fn upload_csv(store: &Store, csv: &str) {
        let (_, runs) = parse_file(csv.as_bytes(), Some(Format::Csv), &test_meta()).unwrap();
        let upload = NewUpload {
            digest: format!("{:x}", sha2::Sha256::digest(csv.as_bytes())),
            metadata: "{}".into(),
            files: Vec::new(),
            runs,
            mark: None,
            commit_time: None,
            uploaded_by: "test".into(),
        };
        store.insert_upload(&upload).await.unwrap();
    }

    /// Runs `from..to`, one per commit, each with the samples `i` and `i + 1` of `tput`.
    fn runs_csv(from: usize, to: usize) -> String {
        let mut csv = String::from("benchmark,commit,metric,iteration,value\n");
        for i in from..to {
            csv.push_str(&format!(
                "b,{i:08x},tput,1,{i}\nb,{i:08x},tput,2,{}\n",
                i + 1
            ));
        }
        csv
    }

    /// What a trend reads of runs `0..n`: their ids, commits and sample summaries.
    fn expected(n: usize) -> Vec<(i64, String, usize, f64, f64, f64)> {
        (0..n)
            .map(|i| {
                let v = i as f64;
                (i as i64 + 1, format!("{i:08x}"), 2, v + v + 1.0, v, v + 1.0)
            })
            .collect()
    }

    fn summaries(runs: &TrendRuns) -> Vec<(i64, String, usize, f64, f64, f64)> {
        runs.iter()
            .map(|r| {
                let commit = r.commit.as_deref().unwrap().to_owned();
                (r.run_id, commit, r.n, r.sum, r.min, r.max)
            })
            .collect()
    }

    /// A trend reads the same runs whatever the chunks they were appended to, and full chunks
    /// kept in memory never hide runs appended later.
    async fn trends_read_every_run_across_chunks_and_uploads(db: &TestDb) {
        let store = db.open().await;
        let chunk = trend_pack::CHUNK_RUNS as usize;
        // A partial chunk; then one that fills it and starts the next; then a few more.
        for (from, to) in [
            (0, chunk - 24),
            (chunk - 24, 2 * chunk + 10),
            (2 * chunk + 10, 2 * chunk + 13),
        ] {
            upload_csv(&store, &runs_csv(from, to)).await;
            for _ in 0..2 {
                let runs = store.trend_runs("b", "m1", "tput", "").await.unwrap();
                assert_eq!(summaries(&runs), expected(to));
                let sizes: Vec<usize> = runs.chunks.iter().map(|c| c.len()).collect();
                let full = to / chunk;
                assert_eq!(sizes[..full], vec![chunk; full][..], "{sizes:?}");
                assert_eq!(sizes[full..].iter().sum::<usize>(), to % chunk, "{sizes:?}");
            }
        }
        let stored: Vec<(i64, i64)> =
            query_as(sql!("SELECT chunk, runs FROM trend_chunk ORDER BY chunk"))
                .fetch_all(&store.reader)
                .await
                .unwrap();
        let n = 2 * chunk as i64 + 13;
        assert_eq!(
            stored,
            [(0, n.min(chunk as i64)), (1, chunk as i64), (2, 13)]
        );
        // Marks are read with the runs.
        store
            .set_run_mark(3, Some(app::trend::Mark::Bad), "test")
            .await
            .unwrap();
        let runs = store.trend_runs("b", "m1", "tput", "").await.unwrap();
        assert_eq!(runs.marks, HashMap::from([(3, app::trend::Mark::Bad)]));
    }

    /// The data version moves with every write of data, made through this store or another on
    /// the same file, and stays put for writes that change no data.
    async fn the_data_version_moves_with_data_only(db: &TestDb) {
        let a = db.open().await;
        let b = db.open().await;
        let start = a.generation().await.unwrap();
        upload_csv(&a, &runs_csv(0, 3)).await;
        let uploaded = a.generation().await.unwrap();
        assert!(uploaded > start);
        assert_eq!(
            b.generation().await.unwrap(),
            uploaded,
            "the other store sees it at once"
        );
        a.ensure_permalink("digest", "{}", "abc").await.unwrap();
        a.create_token("robot", "hash", "upload", None, "test")
            .await
            .unwrap();
        a.audit("test", "test", "nothing", "").await.unwrap();
        assert_eq!(a.generation().await.unwrap(), uploaded);
        assert_eq!(b.generation().await.unwrap(), uploaded);
        assert!(b
            .set_run_mark(1, Some(app::trend::Mark::Good), "test")
            .await
            .unwrap());
        let marked = a.generation().await.unwrap();
        assert!(marked > uploaded, "a mark through the other store is seen");
        assert_eq!(b.generation().await.unwrap(), marked);
    }

    /// Deleting an upload rebuilds the trend chunks of its series from the runs that remain,
    /// across full chunks, and drops the copies of full chunks kept in memory.
    async fn deleting_an_upload_rebuilds_its_trends(db: &TestDb) {
        let store = db.open().await;
        let chunk = trend_pack::CHUNK_RUNS as usize;
        upload_csv(&store, &runs_csv(0, chunk + 100)).await;
        upload_csv(&store, &runs_csv(chunk + 100, 2 * chunk + 50)).await;
        // Read once, so full chunks are in memory.
        let all = store.trend_runs("b", "m1", "tput", "").await.unwrap();
        assert_eq!(summaries(&all), expected(2 * chunk + 50));
        let deleted = store.delete_upload(1, "test").await.unwrap().unwrap();
        assert_eq!(deleted.runs, chunk + 100);
        store.generation().await.unwrap();
        let left = store.trend_runs("b", "m1", "tput", "").await.unwrap();
        assert_eq!(summaries(&left), expected(2 * chunk + 50)[chunk + 100..]);
        let stored: Vec<(i64, i64)> =
            query_as(sql!("SELECT chunk, runs FROM trend_chunk ORDER BY chunk"))
                .fetch_all(&store.reader)
                .await
                .unwrap();
        assert_eq!(stored, [(0, chunk as i64 - 50)]);
        assert!(store.delete_upload(1, "test").await.unwrap().is_none());
        let gone = store.deleted(&[5, 7]).await.unwrap().unwrap();
        assert_eq!((gone.upload_id, gone.deleted_by.as_str()), (1, "test"));
        assert!(store
            .deleted(&[chunk as i64 + 101])
            .await
            .unwrap()
            .is_none());
    }

    /// A database written before the packed trend chunks and histories existed gets them when
    /// the server starts, with the same content as if they had been written with the runs.
    async fn older_databases_get_their_packed_trends_at_start(db: &TestDb) {
        let store = db.open().await;
        upload_csv(&store, &runs_csv(0, 40)).await;
        let commits: Vec<HistoryCommit> = (0..40)
            .map(|i| HistoryCommit {
                sha: format!("{i:08x}"),
                time: (i % 2 == 0).then_some(i64::from(i)),
                subject: Some(format!("commit {i}")),
            })
            .collect();
        store
            .put_history("linux", "master", &commits, "test")
            .await
            .unwrap();
        let runs = summaries(&store.trend_runs("b", "m1", "tput", "").await.unwrap());
        assert_eq!(runs, expected(40));
        // Make it an older database: no chunks, no packed history, one series as sample rows.
        for sql in [
            sql!("DELETE FROM trend_chunk"),
            sql!("UPDATE history SET packed = NULL"),
            sql!("INSERT INTO sample (series_id, iteration, value) VALUES (7, 1, 6), (7, 2, 7)"),
            sql!("UPDATE series SET packed = NULL WHERE id = 7"),
        ] {
            query(sql).execute(&store.writer).await.unwrap();
        }
        store.close().await;
        let store = db.open().await;
        let again = summaries(&store.trend_runs("b", "m1", "tput", "").await.unwrap());
        assert_eq!(again, runs);
        let history = store
            .history_for(Some(("linux", "master")), &[])
            .await
            .unwrap()
            .unwrap();
        assert_eq!(history.commits, commits);
        // A replaced history is read anew, not from the copy in memory.
        store
            .put_history("linux", "master", &commits[..3], "test")
            .await
            .unwrap();
        let history = store
            .history_for(None, &["00000001"])
            .await
            .unwrap()
            .unwrap();
        assert_eq!(history.commits, commits[..3]);
    }
}
