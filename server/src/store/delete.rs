//! Deleting an upload: its raw files, runs, series and their trend summaries, in one
//! transaction, with the trend chunks of every series key it touched rebuilt from the runs
//! that remain. The runs it removed are remembered (`deleted_run`), so a permalink that
//! pinned one can say what happened to it.

use std::collections::BTreeMap;

use super::history::TrendKey;
use super::trend_pack::TrendRun;
use super::write::{append_to_trends, trend_records, SeriesRow, SERIES_ROWS};
use super::{Store, StoreResult};

/// What a deletion removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deleted {
    pub runs: usize,
    pub series: usize,
}

/// Why a run is gone: the upload that took it, who deleted it, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gone {
    pub upload_id: i64,
    pub deleted_at: String,
    pub deleted_by: String,
}

impl Store {
    /// Deletes upload `id` and everything stored from it; `None` if there is no such upload.
    pub async fn delete_upload(&self, id: i64, actor: &str) -> StoreResult<Option<Deleted>> {
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        let exists: Option<(i64,)> = sqlx::query_as("SELECT id FROM upload WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Ok(None);
        }
        // The series keys whose trends lose runs.
        let keys: Vec<(String, i64, String, String)> = sqlx::query_as(
            "SELECT DISTINCT r.benchmark, r.machine_id, s.metric, s.param FROM run r \
             JOIN series s ON s.run_id = r.id WHERE r.upload_id = ?",
        )
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
        let (series,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM series s JOIN run r ON r.id = s.run_id WHERE r.upload_id = ?",
        )
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
        let runs = sqlx::query(
            "INSERT INTO deleted_run (run_id, upload_id, deleted_by) \
             SELECT id, upload_id, ? FROM run WHERE upload_id = ?",
        )
        .bind(actor)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected() as usize;
        let names: Vec<(i64, i64)> =
            sqlx::query_as("SELECT DISTINCT kernel_id, machine_id FROM run WHERE upload_id = ?")
                .bind(id)
                .fetch_all(&mut *tx)
                .await?;
        // Files, runs, series and legacy sample rows go by ON DELETE CASCADE.
        sqlx::query("DELETE FROM upload WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // A kernel or machine only this upload named (the robot's typo) goes with it.
        for (kernel_id, machine_id) in names {
            sqlx::query("DELETE FROM kernel WHERE id = ? AND NOT EXISTS (SELECT 1 FROM run WHERE kernel_id = ?)")
                .bind(kernel_id)
                .bind(kernel_id)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "DELETE FROM machine WHERE id = ? AND NOT EXISTS (SELECT 1 FROM run WHERE machine_id = ?) \
                 AND NOT EXISTS (SELECT 1 FROM trend_chunk WHERE machine_id = ?)",
            )
            .bind(machine_id)
            .bind(machine_id)
            .bind(machine_id)
            .execute(&mut *tx)
            .await?;
        }
        for (benchmark, machine_id, metric, param) in keys {
            sqlx::query(
                "DELETE FROM trend_chunk WHERE benchmark = ? AND machine_id = ? AND metric = ? AND param = ?",
            )
            .bind(&benchmark)
            .bind(machine_id)
            .bind(&metric)
            .bind(&param)
            .execute(&mut *tx)
            .await?;
            let rows: Vec<SeriesRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "{SERIES_ROWS} WHERE r.benchmark = ? AND r.machine_id = ? AND s.metric = ? AND s.param = ? \
                 ORDER BY r.id, s.id"
            )))
            .bind(&benchmark)
            .bind(machine_id)
            .bind(&metric)
            .bind(&param)
            .fetch_all(&mut *tx)
            .await?;
            let mut trends: BTreeMap<TrendKey, Vec<TrendRun>> = BTreeMap::new();
            trend_records(&mut tx, rows, &mut trends).await?;
            append_to_trends(&mut tx, &trends).await?;
        }
        super::tokens::audit_in(
            &mut tx,
            actor,
            "upload.delete",
            &format!("upload {id}"),
            &format!("{runs} run(s), {series} series"),
        )
        .await?;
        tx.commit().await?;
        // Full trend chunks were rewritten: the copies in memory are no longer true.
        self.caches.clear();
        self.wrote();
        Ok(Some(Deleted {
            runs,
            series: series as usize,
        }))
    }

    /// Why the first of `runs` that was deleted is gone, if any was.
    pub async fn deleted(&self, runs: &[i64]) -> StoreResult<Option<Gone>> {
        let row: Option<(i64, String, String)> = sqlx::query_as(
            "SELECT upload_id, deleted_at, deleted_by FROM deleted_run \
             WHERE run_id IN (SELECT value FROM json_each(?)) ORDER BY run_id LIMIT 1",
        )
        .bind(serde_json::to_string(runs)?)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|(upload_id, deleted_at, deleted_by)| Gone {
            upload_id,
            deleted_at,
            deleted_by,
        }))
    }

    /// How many runs were ever deleted: it changes whenever stored runs were taken away
    /// (by this process or another), which is what caches of "immutable" data key on.
    pub(super) async fn rewrites_in(conn: &mut sqlx::SqliteConnection) -> StoreResult<i64> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM deleted_run")
            .fetch_one(&mut *conn)
            .await?;
        Ok(n)
    }
}
