//! The storage layer. Architecture invariant: this module is the only one that speaks SQL.
//!
//! SQLite in WAL mode with two pools: one writer connection (SQLite allows one writer at a time;
//! queueing in the pool is cheaper than `SQLITE_BUSY` retries) and several read-only readers that
//! never wait for it. One upload is one transaction on the writer.

mod history;
mod packed;
mod read;
mod write;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

pub use history::{History, HistoryCommit, TrendRun};
pub use read::{CompareSeries, RunFilter, StoredFile};
pub use write::{Inserted, NewFile, NewUpload};

#[derive(Clone)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
    /// Bumped after every committed write, so that caches of derived data know they are stale.
    generation: std::sync::Arc<std::sync::atomic::AtomicU64>,
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
        Ok(Store {
            writer,
            reader,
            generation: Default::default(),
        })
    }

    /// The write generation: it changes whenever anything is written.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    fn wrote(&self) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{parse_file, test_meta, Format};
    use app::types::CompareQuery;

    /// Series stored before `series.packed` existed are read from the `sample` table, with the
    /// same result, by comparisons and by the run page.
    #[tokio::test]
    async fn series_without_packed_samples_read_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).await.unwrap();
        let csv = b"benchmark,metric,param,iteration,value\nb,tput,64,2,1.25\nb,tput,64,1,0.1\nb,tput,128,1,3e10\n";
        let (_, runs) = parse_file(csv, Some(Format::Csv), &test_meta()).unwrap();
        let upload = NewUpload {
            digest: "d".into(),
            metadata: "{}".into(),
            files: Vec::new(),
            runs,
            mark: None,
            commit_time: None,
        };
        store.insert_upload(&upload).await.unwrap();
        let query = CompareQuery {
            benchmark: "b".into(),
            machine: "m1".into(),
            kernels: vec!["6.1.0".into()],
            metric: None,
        };
        let read = |s: Vec<CompareSeries>| {
            s.into_iter()
                .map(|s| (s.param, s.iterations, s.values))
                .collect::<Vec<_>>()
        };
        let packed = read(store.compare_series(&query, None).await.unwrap());
        assert_eq!(
            packed,
            [
                ("64".to_owned(), vec![1, 2], vec![0.1, 1.25]),
                ("128".to_owned(), vec![1], vec![3e10])
            ]
        );
        // Make it a database from before `series.packed`: samples as rows, no packed blobs.
        let run_before = store.run_series(1).await.unwrap();
        let packed_rows: Vec<(i64, Vec<u8>)> = sqlx::query_as("SELECT id, packed FROM series")
            .fetch_all(&store.writer)
            .await
            .unwrap();
        for (id, bytes) in packed_rows {
            let (iterations, values) = packed::unpack(&bytes).unwrap();
            for (i, v) in iterations.into_iter().zip(values) {
                sqlx::query("INSERT INTO sample (series_id, iteration, value) VALUES (?, ?, ?)")
                    .bind(id)
                    .bind(i)
                    .bind(v)
                    .execute(&store.writer)
                    .await
                    .unwrap();
            }
        }
        sqlx::query("UPDATE series SET packed = NULL")
            .execute(&store.writer)
            .await
            .unwrap();
        assert_eq!(store.run_series(1).await.unwrap(), run_before);
        let from_rows = read(store.compare_series(&query, None).await.unwrap());
        assert_eq!(from_rows, packed);
    }
}
