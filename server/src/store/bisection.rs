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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::store::alerts::tests::{step, NOW};
    use crate::store::testdb::TestDb;
    use crate::store::tests::{runs_csv, upload_csv};
    use crate::store::SummaryFilter;
    use app::alerts::WorkKind;

    crate::store::on_both_engines!(
        a_bisection_reads_back_as_started_and_ends_once,
        a_bisection_asks_robots_for_one_commit_at_a_time,
        a_bisections_runs_are_those_of_its_series_stored_since_it_started,
        two_servers_see_one_bisection_and_its_culprit_moves_its_summary,
    );

    /// A bisection of `b.tput` on `m1` in `linux/master` between `good` and `bad`, started by
    /// ann from summary `summary_id`, as a caller hands it to [`Store::insert_bisection`].
    pub(in crate::store) fn bisection(
        summary_id: Option<i64>,
        good: &str,
        bad: &str,
    ) -> StoredBisection {
        StoredBisection {
            id: 0,
            state: BisectionState::Running,
            summary_id,
            benchmark: "b".into(),
            machine: "m1".into(),
            metric: "tput".into(),
            param: String::new(),
            history: "linux/master".into(),
            good: good.into(),
            bad: bad.into(),
            step: -10.0,
            run_sd: 1.5,
            max_runs: 3,
            after_run: 0,
            culprit: None,
            reason: None,
            suspicious: None,
            created_by: "ann".into(),
            created_at: String::new(),
            updated_at: String::new(),
        }
    }

    /// (kind, actor, detail) of each event of bisection `id`, oldest first.
    async fn events(store: &Store, id: i64) -> Vec<(String, String, String)> {
        store
            .bisection_events(id)
            .await
            .unwrap()
            .into_iter()
            .map(|e| (e.kind, e.actor, e.detail))
            .collect()
    }

    fn event(kind: &str, actor: &str, detail: &str) -> (String, String, String) {
        (kind.into(), actor.into(), detail.into())
    }

    /// A bisection reads back as started (running, counting the runs stored after it began),
    /// records its events, and ends once: a second end writes nothing.
    async fn a_bisection_reads_back_as_started_and_ends_once(db: &TestDb) {
        let store = db.open().await;
        upload_csv(&store, &runs_csv(0, 2)).await;
        let asked = bisection(None, "00000000", "00000001");
        let id = store.insert_bisection(&asked).await.unwrap();
        let b = store.bisection(id).await.unwrap().expect("the bisection");
        assert_eq!(
            b,
            StoredBisection {
                id,
                after_run: 2,
                created_at: b.created_at.clone(),
                updated_at: b.updated_at.clone(),
                ..asked
            }
        );
        assert!(!b.created_at.is_empty());
        assert_eq!(
            store.bisections(10).await.unwrap(),
            std::slice::from_ref(&b)
        );
        assert_eq!(store.running_bisections().await.unwrap(), [id]);
        assert!(store
            .bisection_event(id, "perfline", "step", "00000001: 2 runs", None)
            .await
            .unwrap());
        let failed = Some((BisectionState::Failed, None));
        assert!(store
            .bisection_event(id, "perfline", "failed", "no step", failed)
            .await
            .unwrap());
        let done = Some((BisectionState::Done, Some("00000001")));
        assert!(!store
            .bisection_event(id, "perfline", "done", "late", done)
            .await
            .unwrap());
        let b = store.bisection(id).await.unwrap().unwrap();
        assert_eq!(
            (b.state, b.culprit, b.reason.as_deref()),
            (BisectionState::Failed, None, Some("no step"))
        );
        assert!(store.running_bisections().await.unwrap().is_empty());
        assert_eq!(
            events(&store, id).await,
            [
                event(
                    "start",
                    "ann",
                    "b.tput on m1 in linux/master: good 00000000, bad 00000001"
                ),
                event("step", "perfline", "00000001: 2 runs"),
                event("failed", "perfline", "no step"),
            ]
        );
        store
            .set_bisection_suspicious(id, "it touches docs only")
            .await
            .unwrap();
        let b = store.bisection(id).await.unwrap().unwrap();
        assert_eq!(b.suspicious.as_deref(), Some("it touches docs only"));
        assert!(store.bisection(id + 1).await.unwrap().is_none());
    }

    /// A bisection has one pending request at a time: asked again for its commit, the
    /// request's runs are raised; asked for another commit, the first is done; when the
    /// bisection ends, its pending request is cancelled.
    async fn a_bisection_asks_robots_for_one_commit_at_a_time(db: &TestDb) {
        let store = db.open().await;
        upload_csv(&store, &runs_csv(0, 3)).await;
        let id = store
            .insert_bisection(&bisection(None, "00000000", "00000002"))
            .await
            .unwrap();
        let b = store.bisection(id).await.unwrap().unwrap();
        let first = store
            .bisect_request(&b, "00000001", 2, "test 00000001")
            .await
            .unwrap();
        assert_eq!(
            (
                first.commit.as_str(),
                first.runs,
                first.handed,
                first.after_run
            ),
            ("00000001", 2, 0, 3)
        );
        let again = store
            .bisect_request(&b, "00000001", 3, "more")
            .await
            .unwrap();
        assert_eq!((again.id, again.runs), (first.id, 3));
        store.hand_out(first.id, 2, 1_000).await.unwrap();
        let pending = store.bisection_request(id).await.unwrap().expect("pending");
        let w = &pending.request;
        assert_eq!(
            (
                w.id,
                w.kind,
                w.bisection,
                w.commit.as_str(),
                w.runs,
                w.reason.as_str()
            ),
            (first.id, WorkKind::Bisect, Some(id), "00000001", 3, "more")
        );
        assert_eq!((w.lease.handed, w.lease.since), (2, 1_000));
        assert_eq!((pending.state.as_str(), pending.after_run), ("pending", 3));
        let robot = |machine: &'static str| {
            let store = store.clone();
            async move {
                let work = store.pending_work(machine, 10).await.unwrap();
                work.iter().map(|w| w.id).collect::<Vec<_>>()
            }
        };
        assert_eq!(robot("m1").await, [first.id]);
        assert!(robot("m2").await.is_empty());
        let next = store
            .bisect_request(&b, "00000002", 2, "test 00000002")
            .await
            .unwrap();
        assert_ne!(next.id, first.id);
        assert_eq!(next.handed, 0);
        let state = |id: i64| {
            let store = store.clone();
            async move { store.work_request(id).await.unwrap().unwrap().state }
        };
        assert_eq!(state(first.id).await, "done");
        assert_eq!(robot("m1").await, [next.id]);
        let cancel = Some((BisectionState::Cancelled, None));
        assert!(store
            .bisection_event(id, "ann", "cancel", "enough", cancel)
            .await
            .unwrap());
        assert_eq!(state(next.id).await, "cancelled");
        assert!(store.bisection_request(id).await.unwrap().is_none());
        assert!(robot("m1").await.is_empty());
    }

    /// A bisection reads the means of its series from the runs of its benchmark and machine
    /// stored since it started, of the commits asked (or abbreviated ones, for the caller
    /// to match), in run order.
    async fn a_bisections_runs_are_those_of_its_series_stored_since_it_started(db: &TestDb) {
        let store = db.open().await;
        let [c5, c6] = ['5', '6'].map(|x| x.to_string().repeat(40));
        let run = |commit: &str, values: [f64; 2]| {
            format!(
                "benchmark,commit,metric,iteration,value\n\
                 b,{commit},tput,1,{}\nb,{commit},tput,2,{}\nb,{commit},lat,1,99\n",
                values[0], values[1]
            )
        };
        // Before it started.
        upload_csv(&store, &run(&c5, [1.0, 1.0])).await;
        let id = store
            .insert_bisection(&bisection(None, &c5, &c6))
            .await
            .unwrap();
        let b = store.bisection(id).await.unwrap().unwrap();
        upload_csv(&store, &run(&c5, [5.0, 6.0])).await;
        upload_csv(&store, &run(&c6, [7.0, 8.0])).await;
        upload_csv(&store, &run(&c5, [4.0, 4.0])).await;
        let short = app::text::head(&c6, 10);
        upload_csv(&store, &run(short, [9.0, 9.0])).await;
        let runs = store.bisection_runs(&b, &[&c5]).await.unwrap();
        assert_eq!(
            runs,
            [
                (c5.clone(), 5.5),
                (c5.clone(), 4.0),
                (short.to_owned(), 9.0)
            ]
        );
        let both = store.bisection_runs(&b, &[&c5, &c6]).await.unwrap();
        assert_eq!(both.len(), 4);
        assert_eq!(both[1], (c6.clone(), 7.5));
    }

    /// Two servers on one database see one bisection: either reads it as the other stored
    /// it, one ends it done at its culprit (moving the alert summary it was started from
    /// there, in the same transaction), and the other can no longer end it.
    async fn two_servers_see_one_bisection_and_its_culprit_moves_its_summary(db: &TestDb) {
        let (a, b) = (db.open().await, db.open().await);
        let commits: Vec<crate::store::HistoryCommit> = (0..10)
            .map(|i| crate::store::HistoryCommit {
                sha: format!("c{i:039x}"),
                time: None,
                subject: None,
            })
            .collect();
        let sha = |i: usize| commits[i].sha.clone();
        a.put_history("linux", "master", &commits, "ann")
            .await
            .unwrap();
        let mut found = step("b", "m1", "tput", [&sha(2), &sha(7)], -10.0);
        found.history = Some("linux/master".into());
        found.between = Some(4);
        a.record_alerts(&[], &[found], NOW).await.unwrap();
        let filter = SummaryFilter {
            limit: 10,
            ..Default::default()
        };
        let summary = a.alert_summaries(&filter).await.unwrap().summaries[0].id;
        let id = a
            .insert_bisection(&bisection(Some(summary), &sha(2), &sha(7)))
            .await
            .unwrap();
        let seen = b
            .bisection(id)
            .await
            .unwrap()
            .expect("the other server sees it");
        assert_eq!(Some(&seen), a.bisection(id).await.unwrap().as_ref());
        assert_eq!(b.running_bisections().await.unwrap(), [id]);
        assert!(b
            .end_bisection_at_culprit(id, "perfline", "first bad", &sha(5), summary)
            .await
            .unwrap());
        assert!(!a
            .end_bisection_at_culprit(id, "perfline", "first bad", &sha(6), summary)
            .await
            .unwrap());
        let failed = Some((BisectionState::Failed, None));
        assert!(!a
            .bisection_event(id, "perfline", "failed", "late", failed)
            .await
            .unwrap());
        let done = a.bisection(id).await.unwrap().unwrap();
        assert_eq!(
            (done.state, done.culprit, done.reason),
            (BisectionState::Done, Some(sha(5)), None)
        );
        assert!(a.running_bisections().await.unwrap().is_empty());
        assert_eq!(a.done_bisection_of(summary).await.unwrap(), Some(id));
        let moved = a.alert_summary(summary).await.unwrap().unwrap();
        assert_eq!(
            (moved.good.sha, moved.bad.sha, moved.between),
            (Some(sha(4)), Some(sha(5)), Some(0))
        );
        assert_eq!(moved.events.last().unwrap().kind, "bisected");
        assert_eq!(moved.bisections, [(id, "done".to_owned())]);
        let kinds: Vec<String> = events(&b, id).await.into_iter().map(|e| e.0).collect();
        assert_eq!(kinds, ["start", "done"]);
    }
}
