// SPDX-License-Identifier: GPL-3.0-or-later
//! Leases on work requests: the runs of a request a robot took are promised to it until its
//! lease ends; the robot renews it while its command runs and gives runs back when the
//! command fails. A robot that died frees its runs when the lease ends, so the next robot
//! (or the same one, back) is handed them again. And the robots seen (`robot`).
//!
//! Architecture invariant: a request never promises more runs than it wants; runs received
//! always count (a lease only adds runs that are out with robots).

use app::alerts::Robot;

use super::sql::{query, query_as, sql};
use super::work::StoredRequest;
use super::{Store, StoreResult};

/// The most characters of a failure's reason kept.
pub const MAX_REASON_CHARS: usize = 500;

/// Runs taken: how many now and until when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    pub runs: u32,
    pub until: i64,
}

impl Store {
    /// Takes up to `want` runs of pending request `r` (with `received` runs in) for `robot`
    /// at `now` (unix ms), leased for `lease_ms`: the runs not in and not promised to a
    /// holding lease.
    pub async fn take_runs(
        &self,
        r: &StoredRequest,
        received: u32,
        robot: &str,
        want: u32,
        now: i64,
        lease_ms: i64,
    ) -> StoreResult<Taken> {
        let mut tx = self.writer.begin_write().await?;
        let row: Option<(i64, i64, i64)> = query_as(sql!(
            "SELECT runs, handed, lease_until FROM work_request WHERE id = ? AND state = 'pending'"
        ))
        .bind(r.request.id)
        .fetch_optional(&mut tx)
        .await?;
        let Some((runs, handed, until)) = row else {
            return Ok(Taken { runs: 0, until: 0 });
        };
        let runs = u32::try_from(runs).unwrap_or(0);
        let handed = u32::try_from(handed).unwrap_or(0);
        let promised = if until > now {
            handed.max(received)
        } else {
            received
        };
        let granted = want.min(runs.saturating_sub(promised));
        let taken = if granted == 0 {
            Taken { runs: 0, until }
        } else {
            let until = now + lease_ms;
            query(sql!(
                "UPDATE work_request SET handed = ?, handed_at = ?, holder = ?, lease_until = ? WHERE id = ?"
            ))
            .bind(i64::from(promised + granted))
            .bind(now)
            .bind(robot)
            .bind(until)
            .bind(r.request.id)
            .execute(&mut tx)
            .await?;
            Taken {
                runs: granted,
                until,
            }
        };
        if granted > 0 {
            seen(
                &mut tx,
                robot,
                &r.request.machine,
                now,
                &format!(
                    "took {granted} run{} of request {} ({})",
                    if granted == 1 { "" } else { "s" },
                    r.request.id,
                    app::text::short_commit(&r.request.commit)
                ),
            )
            .await?;
        }
        tx.commit().await?;
        Ok(taken)
    }

    /// Renews `robot`'s lease on request `id` to `now + lease_ms`: the new end, or `None` when
    /// the request is no longer pending or another robot took its runs since.
    pub async fn renew_lease(
        &self,
        id: i64,
        robot: &str,
        now: i64,
        lease_ms: i64,
    ) -> StoreResult<Option<i64>> {
        let mut tx = self.writer.begin_write().await?;
        let until = now + lease_ms;
        let n = query(sql!(
            "UPDATE work_request SET lease_until = ? WHERE id = ? AND state = 'pending' AND holder = ?"
        ))
        .bind(until)
        .bind(id)
        .bind(robot)
        .execute(&mut tx)
        .await?
        .rows_affected();
        let machine: Option<(String,)> =
            query_as(sql!("SELECT machine FROM work_request WHERE id = ?"))
                .bind(id)
                .fetch_optional(&mut tx)
                .await?;
        if let Some((machine,)) = machine {
            seen(
                &mut tx,
                robot,
                &machine,
                now,
                &format!("running request {id}"),
            )
            .await?;
        }
        tx.commit().await?;
        Ok((n > 0).then_some(until))
    }

    /// `robot` gives back `runs` runs of request `id` (with `received` runs in) after a
    /// failure for `reason` (one failure, however many runs): they are handed out again at
    /// once. Whether the robot held them.
    pub async fn release_runs(
        &self,
        id: i64,
        received: u32,
        robot: &str,
        runs: u32,
        reason: &str,
        now: i64,
    ) -> StoreResult<bool> {
        let reason = app::text::head(reason, MAX_REASON_CHARS);
        let mut tx = self.writer.begin_write().await?;
        let row: Option<(i64, String, Option<String>)> = query_as(sql!(
            "SELECT handed, machine, holder FROM work_request WHERE id = ?"
        ))
        .bind(id)
        .fetch_optional(&mut tx)
        .await?;
        let Some((handed, machine, holder)) = row else {
            return Ok(false);
        };
        let held = holder.as_deref() == Some(robot);
        let handed = u32::try_from(handed).unwrap_or(0);
        let left = handed.saturating_sub(runs).max(received);
        // The lease ends with its last run out; another robot's lease is left alone.
        query(sql!(
            "UPDATE work_request SET failures = failures + 1, last_failure = ?, last_failure_at = ?, \
             handed = CASE WHEN holder = ? THEN ? ELSE handed END, \
             lease_until = CASE WHEN holder = ? AND ? <= ? THEN 0 ELSE lease_until END \
             WHERE id = ?"
        ))
        .bind(format!("{robot}: {reason}"))
        .bind(now)
        .bind(robot)
        .bind(i64::from(left))
        .bind(robot)
        .bind(i64::from(left))
        .bind(i64::from(received))
        .bind(id)
        .execute(&mut tx)
        .await?;
        seen(
            &mut tx,
            robot,
            &machine,
            now,
            &format!("gave back {runs} run(s) of request {id}: {reason}"),
        )
        .await?;
        tx.commit().await?;
        Ok(held)
    }

    /// Records that `robot` on `machine` asked for work at `now`.
    pub async fn robot_asked(&self, robot: &str, machine: &str, now: i64) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        query(sql!(
            "INSERT INTO robot (name, machine, first_seen, last_seen, last_work) VALUES (?, ?, ?, ?, 'asked for work') \
             ON CONFLICT (name) DO UPDATE SET machine = excluded.machine, last_seen = excluded.last_seen"
        ))
        .bind(robot)
        .bind(machine)
        .bind(now)
        .bind(now)
        .execute(&mut tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The robots seen, the most recent first (at most `limit`); `silent` filled in by the
    /// caller.
    pub async fn robots(&self, limit: i64) -> StoreResult<Vec<Robot>> {
        let rows: Vec<(String, String, i64, i64, String)> = query_as(sql!(
            "SELECT name, machine, first_seen, last_seen, last_work FROM robot \
             ORDER BY last_seen DESC, name LIMIT ?"
        ))
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(name, machine, first_seen, last_seen, last_work)| Robot {
                name,
                machine,
                first_seen,
                last_seen,
                last_work,
                silent: false,
            })
            .collect())
    }
}

/// Records `robot` on `machine` seen at `now`, doing `what`.
async fn seen(
    tx: &mut super::sql::Tx,
    robot: &str,
    machine: &str,
    now: i64,
    what: &str,
) -> StoreResult<()> {
    query(sql!(
        "INSERT INTO robot (name, machine, first_seen, last_seen, last_work) VALUES (?, ?, ?, ?, ?) \
         ON CONFLICT (name) DO UPDATE SET machine = excluded.machine, last_seen = excluded.last_seen, \
         last_work = excluded.last_work"
    ))
    .bind(robot)
    .bind(machine)
    .bind(now)
    .bind(now)
    .bind(what)
    .execute(&mut *tx)
    .await?;
    Ok(())
}
