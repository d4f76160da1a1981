// SPDX-License-Identifier: GPL-3.0-or-later
//! Bisections: their rows, their audit trail, their runs, and the work requests that hand
//! their commits to robots.

use app::bisection::{BisectionEvent, BisectionState};

use super::sql::{query, query_as, sql, Row, Tx};
use super::{Store, StoreResult};

/// A bisection as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredBisection {
    pub id: i64,
    pub state: BisectionState,
    pub summary_id: Option<i64>,
    pub benchmark: String,
    pub machine: String,
    pub metric: String,
    pub param: String,
    pub history: String,
    pub good: String,
    pub bad: String,
    pub step: f64,
    pub run_sd: f64,
    pub max_runs: u32,
    pub after_run: i64,
    pub culprit: Option<String>,
    pub reason: Option<String>,
    pub suspicious: Option<String>,
    pub created_by: String,
    pub created_at: String,
    pub updated_at: String,
}

/// The columns `bisection_row` reads.
macro_rules! bisection_columns {
    () => {
        "SELECT id, state, summary_id, benchmark, machine, metric, param, history, good, bad, step, \
         run_sd, max_runs, after_run, culprit, reason, suspicious, created_by, created_at, updated_at \
         FROM bisection"
    };
}

fn bisection_row(r: &Row) -> StoredBisection {
    StoredBisection {
        id: r.get(0),
        state: BisectionState::parse(r.get::<&str, _>(1)).unwrap_or(BisectionState::Failed),
        summary_id: r.get(2),
        benchmark: r.get(3),
        machine: r.get(4),
        metric: r.get(5),
        param: r.get(6),
        history: r.get(7),
        good: r.get(8),
        bad: r.get(9),
        step: r.get(10),
        run_sd: r.get(11),
        max_runs: u32::try_from(r.get::<i64, _>(12)).unwrap_or(1),
        after_run: r.get(13),
        culprit: r.get(14),
        reason: r.get(15),
        suspicious: r.get(16),
        created_by: r.get(17),
        created_at: r.get(18),
        updated_at: r.get(19),
    }
}

/// A pending request of a bisection, for handing its runs out.
#[derive(Debug, Clone, PartialEq)]
pub struct BisectRequest {
    pub id: i64,
    pub commit: String,
    pub runs: u32,
    pub handed: u32,
    pub handed_at: i64,
    pub after_run: i64,
}

impl Store {
    /// Stores a new bisection (`b`'s id, state, times and `after_run` are set here) with its
    /// `start` event and an audit line; its id.
    pub async fn insert_bisection(&self, b: &StoredBisection) -> StoreResult<i64> {
        let mut tx = self.writer.begin_write().await?;
        let (after_run,): (i64,) = query_as(sql!("SELECT coalesce(max(id), 0) FROM run"))
            .fetch_one(&mut tx)
            .await?;
        let (id,): (i64,) = query_as(sql!(
            "INSERT INTO bisection (summary_id, benchmark, machine, metric, param, history, good, bad, \
             step, run_sd, max_runs, after_run, created_by) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"
        ))
        .bind(b.summary_id)
        .bind(&b.benchmark)
        .bind(&b.machine)
        .bind(&b.metric)
        .bind(&b.param)
        .bind(&b.history)
        .bind(&b.good)
        .bind(&b.bad)
        .bind(b.step)
        .bind(b.run_sd)
        .bind(i64::from(b.max_runs))
        .bind(after_run)
        .bind(&b.created_by)
        .fetch_one(&mut tx)
        .await?;
        let detail = format!(
            "{} on {} in {}: good {}, bad {}",
            app::alerts::series_name(&b.benchmark, &b.metric),
            b.machine,
            b.history,
            b.good,
            b.bad
        );
        query(sql!(
            "INSERT INTO bisection_event (bisection_id, actor, kind, detail) VALUES (?, ?, 'start', ?)"
        ))
        .bind(id)
        .bind(&b.created_by)
        .bind(&detail)
        .execute(&mut tx)
        .await?;
        super::tokens::audit_in(
            &mut tx,
            &b.created_by,
            "bisection.start",
            &format!("bisection {id}"),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    pub async fn bisection(&self, id: i64) -> StoreResult<Option<StoredBisection>> {
        let row = query(sql!(bisection_columns!(), " WHERE id = ?"))
            .bind(id)
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.as_ref().map(bisection_row))
    }

    /// The newest `limit` bisections.
    pub async fn bisections(&self, limit: i64) -> StoreResult<Vec<StoredBisection>> {
        let rows = query(sql!(bisection_columns!(), " ORDER BY id DESC LIMIT ?"))
            .bind(limit)
            .fetch_all(&self.reader)
            .await?;
        Ok(rows.iter().map(bisection_row).collect())
    }

    /// The newest value of fact `key` among the runs of `machine` (an LKP job's `arch`, an
    /// uploaded `lscpu`'s architecture).
    pub async fn machine_fact(&self, machine: &str, key: &str) -> StoreResult<Option<String>> {
        let rows: Vec<(String,)> = query_as(sql!(
            "SELECT r.facts FROM run r JOIN machine m ON m.id = r.machine_id \
             WHERE m.name = ? AND r.facts LIKE ? ORDER BY r.id DESC LIMIT 1"
        ))
        .bind(machine)
        .bind(format!("%[\"{key}\",%"))
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().find_map(|(facts,)| {
            let facts: Vec<(String, String)> = serde_json::from_str(&facts).ok()?;
            facts.into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
        }))
    }

    /// Records why a bisection's culprit is suspicious.
    pub async fn set_bisection_suspicious(&self, id: i64, text: &str) -> StoreResult<()> {
        query(sql!(
            "UPDATE bisection SET suspicious = ?, updated_at = {now_ms} WHERE id = ?"
        ))
        .bind(text)
        .bind(id)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// The newest finished bisection of alert summary `id`.
    pub async fn done_bisection_of(&self, id: i64) -> StoreResult<Option<i64>> {
        let row: Option<(i64,)> = query_as(sql!(
            "SELECT id FROM bisection WHERE summary_id = ? AND state = 'done' ORDER BY id DESC LIMIT 1"
        ))
        .bind(id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|(id,)| id))
    }

    /// The ids of the running bisections, oldest first (not those set aside).
    pub async fn running_bisections(&self) -> StoreResult<Vec<i64>> {
        let rows: Vec<(i64,)> = query_as(sql!(
            "SELECT id FROM bisection WHERE state = 'running' \
             AND id NOT IN (SELECT item_id FROM quarantine WHERE kind = 'bisection') ORDER BY id LIMIT 256"
        ))
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    pub async fn bisection_events(&self, id: i64) -> StoreResult<Vec<BisectionEvent>> {
        let rows: Vec<(String, String, String, String)> = query_as(sql!(
            "SELECT at, actor, kind, detail FROM bisection_event WHERE bisection_id = ? ORDER BY id"
        ))
        .bind(id)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(at, actor, kind, detail)| BisectionEvent {
                at,
                actor,
                kind,
                detail,
            })
            .collect())
    }

    /// The means of `metric` at `param` of the runs of the bisection's benchmark and machine
    /// stored since it started whose commit is one of `commits` (full shas) or abbreviates
    /// one (matched by the caller): (commit as stored, mean), in run order. Only those runs'
    /// samples are read, however much else the machine uploads meanwhile.
    pub async fn bisection_runs(
        &self,
        b: &StoredBisection,
        commits: &[&str],
    ) -> StoreResult<Vec<(String, f64)>> {
        let shas = serde_json::to_string(commits)?;
        let rows: Vec<(i64, String, Vec<u8>)> = query_as(sql!(
            "SELECT r.id, r.commit_sha, d.packed FROM run r \
             JOIN machine m ON m.id = r.machine_id JOIN run_data d ON d.run_id = r.id \
             WHERE r.benchmark = ? AND m.name = ? AND r.id > ? AND r.commit_sha IS NOT NULL \
             AND (r.commit_sha IN {texts} OR length(r.commit_sha) < 40) \
             ORDER BY r.id LIMIT 20000"
        ))
        .bind(&b.benchmark)
        .bind(&b.machine)
        .bind(b.after_run)
        .bind(shas)
        .fetch_all(&self.reader)
        .await?;
        let series = self.decode_runs(rows, Some(&b.metric)).await?;
        Ok(series
            .into_iter()
            .filter(|s| s.param == b.param && !s.values.is_empty())
            .map(|s| {
                let mean = s.values.iter().sum::<f64>() / s.values.len() as f64;
                (s.kernel, mean)
            })
            .collect())
    }

    /// Records an event; with `end`, the bisection also ends in that state (done, failed,
    /// cancelled) with the culprit or the reason, and its requests are ended. False when it
    /// had ended already.
    pub async fn bisection_event(
        &self,
        id: i64,
        actor: &str,
        kind: &str,
        detail: &str,
        end: Option<(BisectionState, Option<&str>)>,
    ) -> StoreResult<bool> {
        let mut tx = self.writer.begin_write().await?;
        if !bisection_event_in(&mut tx, id, actor, kind, detail, end).await? {
            tx.rollback().await?;
            return Ok(false);
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Ends bisection `id` done at `culprit` and, in the same transaction, moves the alert
    /// summary it was started from (`summary`) to the culprit ([`Store::move_to_culprit`]):
    /// a bisection is never done with its alert left where it was (a PostgreSQL outage
    /// between the two left the lab simulator's alert without its culprit). False when it had
    /// ended already.
    pub async fn end_bisection_at_culprit(
        &self,
        id: i64,
        actor: &str,
        detail: &str,
        culprit: &str,
        summary: i64,
    ) -> StoreResult<bool> {
        let mut tx = self.writer.begin_write().await?;
        let end = Some((BisectionState::Done, Some(culprit)));
        if !bisection_event_in(&mut tx, id, actor, "done", detail, end).await? {
            tx.rollback().await?;
            return Ok(false);
        }
        super::alerts::move_to_culprit_in(&mut tx, culprit, actor, Some(summary)).await?;
        tx.commit().await?;
        Ok(true)
    }
}

/// [`Store::bisection_event`] in `tx`; false (nothing written) when it had ended already.
async fn bisection_event_in(
    tx: &mut Tx,
    id: i64,
    actor: &str,
    kind: &str,
    detail: &str,
    end: Option<(BisectionState, Option<&str>)>,
) -> StoreResult<bool> {
    {
        if let Some((state, culprit)) = end {
            let changed = query(sql!(
                "UPDATE bisection SET state = ?, culprit = ?, reason = CASE WHEN ? = 'done' THEN NULL ELSE ? END, \
                 updated_at = {now_ms} WHERE id = ? AND state = 'running'"
            ))
            .bind(state.as_str())
            .bind(culprit)
            .bind(state.as_str())
            .bind(detail)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if changed == 0 {
                return Ok(false);
            }
            query(sql!(
                "UPDATE work_request SET state = 'cancelled', updated_at = {now_ms} \
                 WHERE bisection_id = ? AND state = 'pending'"
            ))
            .bind(id)
            .execute(&mut *tx)
            .await?;
        } else {
            query(sql!(
                "UPDATE bisection SET updated_at = {now_ms} WHERE id = ?"
            ))
            .bind(id)
            .execute(&mut *tx)
            .await?;
        }
        query(sql!(
            "INSERT INTO bisection_event (bisection_id, actor, kind, detail) VALUES (?, ?, ?, ?)"
        ))
        .bind(id)
        .bind(actor)
        .bind(kind)
        .bind(detail)
        .execute(&mut *tx)
        .await?;
        if end.is_some() {
            super::tokens::audit_in(
                &mut *tx,
                actor,
                &format!("bisection.{kind}"),
                &format!("bisection {id}"),
                detail,
            )
            .await?;
        }
        Ok(true)
    }
}

impl Store {
    /// The pending request of bisection `b` for `commit`, made (or its runs raised to `runs`)
    /// as needed; a pending request of the bisection for another commit is done with.
    pub async fn bisect_request(
        &self,
        b: &StoredBisection,
        commit: &str,
        runs: u32,
        reason: &str,
    ) -> StoreResult<BisectRequest> {
        let mut tx = self.writer.begin_write().await?;
        query(sql!(
            "UPDATE work_request SET state = 'done', updated_at = {now_ms} \
             WHERE bisection_id = ? AND state = 'pending' AND commit_sha <> ?"
        ))
        .bind(b.id)
        .bind(commit)
        .execute(&mut tx)
        .await?;
        query(sql!(
            "UPDATE work_request SET runs = ?, reason = ?, updated_at = {now_ms} \
             WHERE bisection_id = ? AND state = 'pending' AND commit_sha = ? AND runs <> ?"
        ))
        .bind(i64::from(runs))
        .bind(reason)
        .bind(b.id)
        .bind(commit)
        .bind(i64::from(runs))
        .execute(&mut tx)
        .await?;
        query(sql!(
            "INSERT INTO work_request (kind, bisection_id, summary_id, side, benchmark, machine, metric, param, \
             commit_sha, kernel, runs, after_run, reason) \
             SELECT 'bisect', ?, ?, '', ?, ?, ?, ?, ?, '', ?, ?, ? \
             WHERE NOT EXISTS (SELECT 1 FROM work_request WHERE bisection_id = ? AND state = 'pending')"
        ))
        .bind(b.id)
        .bind(b.summary_id)
        .bind(&b.benchmark)
        .bind(&b.machine)
        .bind(&b.metric)
        .bind(&b.param)
        .bind(commit)
        .bind(i64::from(runs))
        .bind(b.after_run)
        .bind(reason)
        .bind(b.id)
        .execute(&mut tx)
        .await?;
        let (id, runs, handed, handed_at, after_run): (i64, i64, i64, i64, i64) = query_as(sql!(
            "SELECT id, runs, handed, handed_at, after_run FROM work_request \
             WHERE bisection_id = ? AND state = 'pending'"
        ))
        .bind(b.id)
        .fetch_one(&mut tx)
        .await?;
        tx.commit().await?;
        Ok(BisectRequest {
            id,
            commit: commit.to_owned(),
            runs: u32::try_from(runs).unwrap_or(0),
            handed: u32::try_from(handed).unwrap_or(0),
            handed_at,
            after_run,
        })
    }

    /// Records that `handed` runs of request `id` are out with robots since `at` (unix ms).
    pub async fn hand_out(&self, id: i64, handed: u32, at: i64) -> StoreResult<()> {
        query(sql!(
            "UPDATE work_request SET handed = ?, handed_at = ? WHERE id = ?"
        ))
        .bind(i64::from(handed))
        .bind(at)
        .bind(id)
        .execute(&self.writer)
        .await?;
        Ok(())
    }
}
