// SPDX-License-Identifier: GPL-3.0-or-later
//! What the background tasks set aside (`quarantine`): an item whose work panicked or failed
//! for good is recorded here and skipped, so the task goes on with the rest and no restart
//! retries it for ever. Released by an admin, it is tried again.
//!
//! The tasks' own reads leave quarantined items out: `alert_jobs` (a series), the summaries
//! awaiting confirmation, the running bisections, the unnotified events and the outbox heads.

use super::sql::{query, query_as, sql, Tx};
use super::{Store, StoreResult};

/// An item to set aside.
#[derive(Debug, Clone, PartialEq)]
pub struct NewQuarantine<'a> {
    /// The task that failed on it: `detector`, `confirmation`, `bisection`, `notifier`,
    /// `deliverer`.
    pub task: &'a str,
    /// `series`, `summary`, `bisection`, `event`, `delivery`.
    pub kind: &'a str,
    /// The summary, bisection, event or outbox row; for a series, the upload that queued it.
    pub item_id: i64,
    /// A series: (benchmark, machine id, metric, param).
    pub series: Option<(&'a str, i64, &'a str, &'a str)>,
    /// The item in words, and why it was set aside.
    pub what: &'a str,
    pub error: &'a str,
}

/// An item set aside, as an admin sees it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Quarantined {
    pub id: i64,
    pub task: String,
    pub kind: String,
    pub item_id: i64,
    pub what: String,
    pub error: String,
    pub at: String,
}

type Row = (i64, String, String, i64, String, String, String);

fn quarantined((id, task, kind, item_id, what, error, at): Row) -> Quarantined {
    Quarantined {
        id,
        task,
        kind,
        item_id,
        what,
        error,
        at,
    }
}

impl Store {
    /// Sets an item aside (again: its error and time are updated); a series' queued job goes
    /// with it, in one transaction.
    pub async fn quarantine(&self, q: &NewQuarantine<'_>) -> StoreResult<()> {
        let (benchmark, machine_id, metric, param) = q.series.unwrap_or(("", 0, "", ""));
        let mut tx = self.writer.begin_write().await?;
        query(sql!(
            "INSERT INTO quarantine (task, kind, item_id, benchmark, machine_id, metric, param, what, error) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (kind, item_id, benchmark, machine_id, metric, param) DO UPDATE SET \
             task = excluded.task, what = excluded.what, error = excluded.error, at = excluded.at"
        ))
        .bind(q.task)
        .bind(q.kind)
        .bind(q.item_id)
        .bind(benchmark)
        .bind(machine_id)
        .bind(metric)
        .bind(param)
        .bind(q.what)
        .bind(q.error)
        .execute(&mut tx)
        .await?;
        if q.series.is_some() {
            query(sql!(
                "DELETE FROM alert_job WHERE benchmark = ? AND machine_id = ? AND metric = ? AND param = ?"
            ))
            .bind(benchmark)
            .bind(machine_id)
            .bind(metric)
            .bind(param)
            .execute(&mut tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every item set aside, oldest first (at most `limit`).
    pub async fn quarantined(&self, limit: i64) -> StoreResult<Vec<Quarantined>> {
        let rows: Vec<Row> = query_as(sql!(
            "SELECT id, task, kind, item_id, what, error, at FROM quarantine ORDER BY id LIMIT ?"
        ))
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(quarantined).collect())
    }

    /// How many items are set aside.
    pub async fn quarantined_count(&self) -> StoreResult<i64> {
        let (n,): (i64,) = query_as(sql!("SELECT count(*) FROM quarantine"))
            .fetch_one(&self.reader)
            .await?;
        Ok(n)
    }

    /// Releases item `id`: its task tries it again (a series is queued for the detector once
    /// more), recorded in the audit trail. `None` when no such item is set aside.
    pub async fn release_quarantined(
        &self,
        id: i64,
        actor: &str,
    ) -> StoreResult<Option<Quarantined>> {
        let mut tx = self.writer.begin_write().await?;
        let Some(found) = take(&mut tx, id).await? else {
            tx.rollback().await?;
            return Ok(None);
        };
        super::tokens::audit_in(
            &mut tx,
            actor,
            "quarantine.release",
            &format!("quarantine {id}"),
            &format!("{}: {}", found.0.task, found.0.what),
        )
        .await?;
        if let Some((benchmark, machine_id, metric, param)) = &found.1 {
            query(sql!(
                "INSERT INTO alert_job (benchmark, machine_id, metric, param, upload_id) \
                 SELECT ?, id, ?, ?, ? FROM machine WHERE id = ? ON CONFLICT DO NOTHING"
            ))
            .bind(benchmark)
            .bind(metric)
            .bind(param)
            .bind(found.0.item_id)
            .bind(machine_id)
            .execute(&mut tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Some(found.0))
    }
}

/// A series' key: benchmark, machine id, metric, param.
type SeriesKey = (String, i64, String, String);

/// A whole `quarantine` row: [`Row`], then the series' key.
type FullRow = (
    i64,
    String,
    String,
    i64,
    String,
    String,
    String,
    String,
    i64,
    String,
    String,
);

/// Deletes item `id`, answering it and, for a series, its key.
async fn take(tx: &mut Tx, id: i64) -> StoreResult<Option<(Quarantined, Option<SeriesKey>)>> {
    let row: Option<FullRow> = query_as(sql!(
        "SELECT id, task, kind, item_id, what, error, at, benchmark, machine_id, metric, param \
             FROM quarantine WHERE id = ?"
    ))
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((id, task, kind, item_id, what, error, at, benchmark, machine_id, metric, param)) =
        row
    else {
        return Ok(None);
    };
    query(sql!("DELETE FROM quarantine WHERE id = ?"))
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let series = (kind == "series").then_some((benchmark, machine_id, metric, param));
    Ok(Some((
        quarantined((id, task, kind, item_id, what, error, at)),
        series,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::store::on_both_engines!(items_set_aside_are_listed_and_released);

    /// An item set aside twice is one row; releasing a series queues it again; a released
    /// item is gone.
    async fn items_set_aside_are_listed_and_released(db: &crate::store::testdb::TestDb) {
        let store = db.open().await;
        let event = NewQuarantine {
            task: "notifier",
            kind: "event",
            item_id: 7,
            series: None,
            what: "event 7 of alert summary 3",
            error: "panicked: boom",
        };
        store.quarantine(&event).await.unwrap();
        store
            .quarantine(&NewQuarantine {
                error: "panicked: boom again",
                ..event.clone()
            })
            .await
            .unwrap();
        assert_eq!(store.quarantined_count().await.unwrap(), 1);
        let listed = store.quarantined(10).await.unwrap();
        assert_eq!(listed[0].error, "panicked: boom again");
        assert_eq!(listed[0].kind, "event");
        let released = store
            .release_quarantined(listed[0].id, "admin")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(released.item_id, 7);
        assert_eq!(store.quarantined_count().await.unwrap(), 0);
        assert!(store
            .release_quarantined(listed[0].id, "admin")
            .await
            .unwrap()
            .is_none());
    }
}
