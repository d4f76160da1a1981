// SPDX-License-Identifier: GPL-3.0-or-later
//! Opening a store: a SQLite file (created and migrated, WAL, one writer and read-only
//! readers) or a PostgreSQL database (waited for, migrated, its data-version notices listened
//! to), as [`Connect`] says.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::ConnectOptions;

use super::*;

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
                    .synchronous(SqliteSynchronous::Full)
                    // Checkpoints are the checkpointer's (`checkpoint.rs`), not the commits'.
                    .pragma("wal_autocheckpoint", checkpoint::BACKSTOP_PAGES),
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
        let wal_written: std::sync::Arc<tokio::sync::Notify> = Default::default();
        checkpoint::spawn(base.clone(), std::sync::Arc::downgrade(&wal_written));
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
            keys: Default::default(),
            alert_jobs_queued: Default::default(),
            health: Default::default(),
            wal_written,
            folds: Default::default(),
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
            keys: Default::default(),
            alert_jobs_queued,
            health: Default::default(),
            wal_written: Default::default(),
            folds: Default::default(),
        };
        store
            .fill_packed()
            .await
            .context("cannot fill the packed trends")?;
        Ok(store)
    }
}
