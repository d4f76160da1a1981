//! The storage layer. Architecture invariant: this module is the only one that speaks SQL.
//!
//! SQLite in WAL mode with two pools: one writer connection (SQLite allows one writer at a time;
//! queueing in the pool is cheaper than `SQLITE_BUSY` retries) and several read-only readers that
//! never wait for it. One upload is one transaction on the writer.

mod read;
mod write;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

pub use read::{CompareSeries, RunFilter, StoredFile};
pub use write::{Inserted, NewFile, NewUpload};

#[derive(Clone)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
}

impl Store {
    /// Opens (creating if needed) the database file and runs the migrations.
    pub async fn open(path: &Path) -> anyhow::Result<Store> {
        let base = SqliteConnectOptions::from_str("sqlite://")?
            .filename(path)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10))
            // 64 MiB of page cache per connection: an upload of a million samples stays in memory
            // until commit.
            .pragma("cache_size", "-65536")
            // Larger pages mean fewer b-tree splits on bulk inserts and fewer overflow pages for
            // raw files. Only takes effect when the file is created.
            .page_size(16384);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(base.clone().create_if_missing(true))
            .await
            .with_context(|| format!("cannot open the database {}", path.display()))?;
        sqlx::migrate!("../migrations")
            .run(&writer)
            .await
            .with_context(|| format!("cannot migrate the database {}", path.display()))?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(base.read_only(true))
            .await
            .with_context(|| format!("cannot open the database {} for reading", path.display()))?;
        Ok(Store { writer, reader })
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> anyhow::Result<()> {
        sqlx::query("SELECT 1").execute(&self.reader).await?;
        Ok(())
    }

    /// Row counts of every table, for tests and the health check.
    pub async fn table_counts(&self) -> anyhow::Result<Vec<(String, i64)>> {
        let mut out = Vec::new();
        for table in [
            "machine",
            "kernel",
            "upload",
            "upload_file",
            "run",
            "series",
            "sample",
            "permalink",
        ] {
            let sql = format!("SELECT COUNT(*) FROM {table}");
            let (n,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .fetch_one(&self.reader)
                .await?;
            out.push((table.to_owned(), n));
        }
        Ok(out)
    }

    pub async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
    }
}
