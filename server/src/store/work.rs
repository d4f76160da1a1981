// SPDX-License-Identifier: GPL-3.0-or-later
//! Work requests: runs Perfline asks robots for (`GET /api/v1/work`), and the alert summaries
//! awaiting the reruns that confirm them.

use app::alerts::{WorkKind, WorkRequest};

use super::sql::{query, query_as, sql, Row, Tx};
use super::{CompareSeries, Store, StoreResult};

/// The columns `request_row` reads.
macro_rules! request_columns {
    () => {
        "SELECT id, kind, summary_id, bisection_id, benchmark, machine, metric, param, commit_sha, \
         kernel, runs, received, reason, created_at, side, after_run, state, holder, handed, handed_at, \
         lease_until, failures, last_failure, last_failure_at FROM work_request"
    };
}

/// A request as stored: the wire form and what only the server needs.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRequest {
    pub request: WorkRequest,
    /// `good` or `bad`: the side of the step the commit stood on when asked ('' for none).
    pub side: String,
    /// Runs with a greater id are the requested runs.
    pub after_run: i64,
    /// `pending`, `done` or `cancelled`.
    pub state: String,
}

/// One alert of a summary awaiting confirmation: the step its reruns are judged against.
#[derive(Debug, Clone, PartialEq)]
pub struct AwaitingAlert {
    pub metric: String,
    pub param: String,
    pub before: f64,
    pub after: f64,
    pub run_sd: Option<f64>,
    pub points_before: u32,
    pub points_after: u32,
}

/// A summary awaiting confirmation, with its requests and alerts.
#[derive(Debug, Clone, PartialEq)]
pub struct Awaiting {
    pub id: i64,
    pub benchmark: String,
    pub machine: String,
    /// Unix milliseconds after which it is confirmed unchecked.
    pub confirm_by: i64,
    pub requests: Vec<StoredRequest>,
    pub alerts: Vec<AwaitingAlert>,
}

/// One rerun's mean of one series.
#[derive(Debug, Clone, PartialEq)]
pub struct RerunMean {
    pub run_id: i64,
    pub metric: String,
    pub param: String,
    pub mean: f64,
}

fn request_row(r: &Row) -> StoredRequest {
    let kind = match r.get::<&str, _>(1) {
        "bisect" => WorkKind::Bisect,
        _ => WorkKind::Confirm,
    };
    StoredRequest {
        request: WorkRequest {
            id: r.get(0),
            kind,
            alert: r.get(2),
            bisection: r.get(3),
            benchmark: r.get(4),
            machine: r.get(5),
            metric: r.get(6),
            param: r.get(7),
            commit: r.get(8),
            kernel: r.get(9),
            runs: u32::try_from(r.get::<i64, _>(10)).unwrap_or(0),
            received: u32::try_from(r.get::<i64, _>(11)).unwrap_or(0),
            reason: r.get(12),
            created_at: r.get(13),
            lease: app::alerts::LeaseState {
                holder: r.get(17),
                handed: u32::try_from(r.get::<i64, _>(18)).unwrap_or(0),
                since: r.get(19),
                until: r.get(20),
                failures: u32::try_from(r.get::<i64, _>(21)).unwrap_or(0),
                last_failure: r.get(22),
                last_failure_at: r.get(23),
            },
        },
        side: r.get(14),
        after_run: r.get(15),
        state: r.get(16),
    }
}

/// Adds a confirmation request of summary `summary_id` for `commit` (`side`: `good`, `bad`,
/// `later`, `earlier`), counting runs stored from now on; none when one of that side is
/// already pending.
#[allow(
    clippy::too_many_arguments,
    reason = "a request's columns, each its own"
)]
pub(super) async fn insert_request(
    tx: &mut Tx,
    summary_id: i64,
    side: &str,
    like: (&str, &str, &str, &str),
    commit: &str,
    kernel: &str,
    runs: u32,
    reason: &str,
) -> StoreResult<()> {
    let (after_run,): (i64,) = query_as(sql!("SELECT coalesce(max(id), 0) FROM run"))
        .fetch_one(&mut *tx)
        .await?;
    let (benchmark, machine, metric, param) = like;
    query(sql!(
        "INSERT INTO work_request (kind, summary_id, side, benchmark, machine, metric, param, \
         commit_sha, kernel, runs, after_run, reason) \
         SELECT 'confirm', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? \
         WHERE NOT EXISTS (SELECT 1 FROM work_request WHERE summary_id = ? AND side = ? AND state = 'pending')"
    ))
    .bind(summary_id)
    .bind(side)
    .bind(benchmark)
    .bind(machine)
    .bind(metric)
    .bind(param)
    .bind(commit)
    .bind(kernel)
    .bind(i64::from(runs))
    .bind(after_run)
    .bind(reason)
    .bind(summary_id)
    .bind(side)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The pending requests of summaries `ids` (serialised as a JSON array), by summary.
pub(super) async fn pending_of(tx: &mut Tx, ids: &str) -> StoreResult<Vec<WorkRequest>> {
    let rows = query(sql!(
        request_columns!(),
        " WHERE summary_id IN {ids} AND state = 'pending' ORDER BY id"
    ))
    .bind(ids)
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows.iter().map(|r| request_row(r).request).collect())
}

impl Store {
    /// Up to `limit` pending requests for `machine`, oldest first, each with the runs
    /// received so far counted now.
    pub async fn pending_work(&self, machine: &str, limit: i64) -> StoreResult<Vec<WorkRequest>> {
        let rows = query(sql!(
            request_columns!(),
            " WHERE machine = ? AND state = 'pending' ORDER BY id LIMIT ?"
        ))
        .bind(machine)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows.iter().map(request_row) {
            let received = self.rerun_count(&r).await?;
            out.push(WorkRequest {
                received,
                ..r.request
            });
        }
        Ok(out)
    }

    /// The pending request of bisection `id`, if any.
    pub async fn bisection_request(&self, id: i64) -> StoreResult<Option<StoredRequest>> {
        let row = query(sql!(
            request_columns!(),
            " WHERE bisection_id = ? AND state = 'pending' ORDER BY id DESC LIMIT 1"
        ))
        .bind(id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.as_ref().map(request_row))
    }

    /// One request, whatever its state.
    pub async fn work_request(&self, id: i64) -> StoreResult<Option<StoredRequest>> {
        let row = query(sql!(request_columns!(), " WHERE id = ?"))
            .bind(id)
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.as_ref().map(request_row))
    }

    /// Up to `limit` summaries awaiting confirmation, oldest first, with their pending
    /// requests and their alerts (not those set aside).
    pub async fn awaiting_confirmation(&self, limit: i64) -> StoreResult<Vec<Awaiting>> {
        let mut tx = self.reader.begin_read().await?;
        let rows: Vec<(i64, String, String, Option<i64>)> = query_as(sql!(
            "SELECT id, benchmark, machine, confirm_by FROM alert_summary \
             WHERE status = 'awaiting-confirmation' \
             AND id NOT IN (SELECT item_id FROM quarantine WHERE kind = 'summary') ORDER BY id LIMIT ?"
        ))
        .bind(limit)
        .fetch_all(&mut tx)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, benchmark, machine, confirm_by) in rows {
            let requests = query(sql!(
                request_columns!(),
                " WHERE summary_id = ? AND state = 'pending' ORDER BY id"
            ))
            .bind(id)
            .fetch_all(&mut tx)
            .await?
            .iter()
            .map(request_row)
            .collect();
            let alerts = query(sql!(
                "SELECT metric, param, level_before, level_after, run_sd, points_before, points_after \
                 FROM alert WHERE summary_id = ? ORDER BY id"
            ))
            .bind(id)
            .fetch_all(&mut tx)
            .await?
            .iter()
            .map(|r| AwaitingAlert {
                metric: r.get(0),
                param: r.get(1),
                before: r.get(2),
                after: r.get(3),
                run_sd: r.get(4),
                points_before: u32::try_from(r.get::<i64, _>(5)).unwrap_or(0),
                points_after: u32::try_from(r.get::<i64, _>(6)).unwrap_or(0),
            })
            .collect();
            out.push(Awaiting {
                id,
                benchmark,
                machine,
                confirm_by: confirm_by.unwrap_or(i64::MAX),
                requests,
                alerts,
            });
        }
        tx.commit().await?;
        Ok(out)
    }

    /// How many runs have been stored for `r` since it was made (its benchmark and machine,
    /// and its commit, either abbreviating the other, or its kernel when it names no commit).
    pub async fn rerun_count(&self, r: &StoredRequest) -> StoreResult<u32> {
        let w = &r.request;
        let (n,): (i64,) = if w.commit.is_empty() {
            query_as(sql!(
                "SELECT count(*) FROM run r JOIN machine m ON m.id = r.machine_id \
                 JOIN kernel k ON k.id = r.kernel_id \
                 WHERE r.benchmark = ? AND m.name = ? AND k.version = ? AND r.id > ?"
            ))
            .bind(&w.benchmark)
            .bind(&w.machine)
            .bind(&w.kernel)
            .bind(r.after_run)
            .fetch_one(&self.reader)
            .await?
        } else {
            query_as(sql!(
                "SELECT count(*) FROM run r JOIN machine m ON m.id = r.machine_id \
                 WHERE r.benchmark = ? AND m.name = ? AND r.id > ? AND r.commit_sha IS NOT NULL \
                 AND (substr(r.commit_sha, 1, length(?)) = ? OR substr(?, 1, length(r.commit_sha)) = r.commit_sha)"
            ))
            .bind(&w.benchmark)
            .bind(&w.machine)
            .bind(r.after_run)
            .bind(&w.commit)
            .bind(&w.commit)
            .bind(&w.commit)
            .fetch_one(&self.reader)
            .await?
        };
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// The means of the runs stored for `r` since it was made (its benchmark and machine, and
    /// its commit, either abbreviating the other, or its kernel when it names no commit), of
    /// the series `wanted` (metric, param); in run order.
    pub async fn rerun_means(
        &self,
        r: &StoredRequest,
        wanted: &[(String, String)],
    ) -> StoreResult<Vec<RerunMean>> {
        let w = &r.request;
        let rows: Vec<(i64, String, Vec<u8>)> = if w.commit.is_empty() {
            query_as(sql!(
                "SELECT r.id, k.version, d.packed FROM run r \
                 JOIN machine m ON m.id = r.machine_id JOIN kernel k ON k.id = r.kernel_id \
                 JOIN run_data d ON d.run_id = r.id \
                 WHERE r.benchmark = ? AND m.name = ? AND k.version = ? AND r.id > ? ORDER BY r.id"
            ))
            .bind(&w.benchmark)
            .bind(&w.machine)
            .bind(&w.kernel)
            .bind(r.after_run)
            .fetch_all(&self.reader)
            .await?
        } else {
            query_as(sql!(
                "SELECT r.id, r.commit_sha, d.packed FROM run r \
                 JOIN machine m ON m.id = r.machine_id JOIN run_data d ON d.run_id = r.id \
                 WHERE r.benchmark = ? AND m.name = ? AND r.id > ? AND r.commit_sha IS NOT NULL \
                 AND (substr(r.commit_sha, 1, length(?)) = ? OR substr(?, 1, length(r.commit_sha)) = r.commit_sha) ORDER BY r.id"
            ))
            .bind(&w.benchmark)
            .bind(&w.machine)
            .bind(r.after_run)
            .bind(&w.commit)
            .bind(&w.commit)
            .bind(&w.commit)
            .fetch_all(&self.reader)
            .await?
        };
        let series: Vec<CompareSeries> = self.decode_runs(rows, None).await?;
        Ok(series
            .into_iter()
            .filter(|s| {
                !s.values.is_empty() && wanted.iter().any(|(m, p)| *m == s.metric && *p == s.param)
            })
            .map(|s| RerunMean {
                run_id: s.run_id,
                mean: s.values.iter().sum::<f64>() / s.values.len() as f64,
                metric: s.metric,
                param: s.param,
            })
            .collect())
    }

    /// Adds a confirmation request of summary `summary_id` for another commit (`side`:
    /// `later` or `earlier`), of the same benchmark, machine and metric as `like`.
    #[allow(
        clippy::too_many_arguments,
        reason = "a request's columns, each its own"
    )]
    pub async fn add_request(
        &self,
        summary_id: i64,
        side: &str,
        like: &WorkRequest,
        commit: &str,
        kernel: &str,
        runs: u32,
        reason: &str,
    ) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        let like = (
            like.benchmark.as_str(),
            like.machine.as_str(),
            like.metric.as_str(),
            like.param.as_str(),
        );
        insert_request(
            &mut tx, summary_id, side, like, commit, kernel, runs, reason,
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Records how many runs requests have received and how many they now want.
    pub async fn request_progress(&self, updates: &[(i64, u32, u32)]) -> StoreResult<()> {
        if updates.is_empty() {
            return Ok(());
        }
        let mut tx = self.writer.begin_write().await?;
        for (id, received, runs) in updates {
            query(sql!(
                "UPDATE work_request SET received = ?, runs = ?, updated_at = {now_ms} \
                 WHERE id = ? AND state = 'pending' AND (received <> ? OR runs <> ?)"
            ))
            .bind(i64::from(*received))
            .bind(i64::from(*runs))
            .bind(id)
            .bind(i64::from(*received))
            .bind(i64::from(*runs))
            .execute(&mut tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// Ends the pending requests of summary `id` (`done` or `cancelled`).
pub(super) async fn end_requests(tx: &mut Tx, id: i64, state: &str) -> StoreResult<()> {
    query(sql!(
        "UPDATE work_request SET state = ?, updated_at = {now_ms} \
         WHERE summary_id = ? AND state = 'pending'"
    ))
    .bind(state)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::alerts::tests::{step, NOW};
    use crate::store::testdb::TestDb;
    use crate::store::tests::{runs_csv, upload_csv};
    use app::alerts::{AlertPatch, AlertStatus};

    crate::store::on_both_engines!(
        a_step_to_confirm_asks_for_reruns_of_its_two_commits,
        a_request_counts_the_runs_of_its_commit_stored_since_it_was_made,
        a_settled_confirmation_ends_its_requests,
    );

    /// Records the step of `b.tput` on `m1` between commits `good` and `bad` under a rule
    /// that confirms it with `runs` reruns of each; the id of its summary, and its requests.
    async fn confirming(
        store: &Store,
        good: &str,
        bad: &str,
        runs: u32,
    ) -> (i64, Vec<StoredRequest>) {
        let mut found = step("b", "m1", "tput", [good, bad], -10.0);
        found.confirm = Some(runs);
        store.record_alerts(&[], &[found], NOW).await.unwrap();
        let awaiting = store.awaiting_confirmation(10).await.unwrap();
        let a = awaiting
            .into_iter()
            .find(|a| a.requests.iter().any(|r| r.request.commit == bad))
            .expect("the summary awaits confirmation");
        (a.id, a.requests)
    }

    /// A step whose rule confirms it opens a summary awaiting confirmation, quietly (nothing
    /// to announce yet), with a request of reruns of its last good and first bad commit that
    /// robots on its machine are handed; another commit can be asked of it, once per side.
    async fn a_step_to_confirm_asks_for_reruns_of_its_two_commits(db: &TestDb) {
        let store = db.open().await;
        upload_csv(&store, &runs_csv(0, 3)).await;
        let mut found = step("b", "m1", "tput", ["00000001", "00000002"], -10.0);
        found.confirm = Some(2);
        store.record_alerts(&[], &[found], NOW).await.unwrap();
        let awaiting = store.awaiting_confirmation(10).await.unwrap();
        assert_eq!(awaiting.len(), 1);
        let a = &awaiting[0];
        assert_eq!(
            (a.benchmark.as_str(), a.machine.as_str(), a.confirm_by),
            ("b", "m1", 1_500)
        );
        assert_eq!(
            a.alerts,
            [AwaitingAlert {
                metric: "tput".into(),
                param: String::new(),
                before: 100.0,
                after: 90.0,
                run_sd: Some(1.5),
                points_before: 10,
                points_after: 5,
            }]
        );
        let asked: Vec<_> = a
            .requests
            .iter()
            .map(|r| {
                let w = &r.request;
                (
                    r.side.as_str(),
                    w.commit.as_str(),
                    w.kind,
                    w.alert,
                    w.runs,
                    r.after_run,
                    r.state.as_str(),
                )
            })
            .collect();
        let pending = |side, commit| (side, commit, WorkKind::Confirm, Some(a.id), 2, 3, "pending");
        assert_eq!(
            asked,
            [pending("good", "00000001"), pending("bad", "00000002")]
        );
        let summary = store.alert_summary(a.id).await.unwrap().unwrap();
        assert_eq!(summary.status, AlertStatus::AwaitingConfirmation);
        assert_eq!(summary.requests.len(), 2);
        assert_eq!(summary.events.last().unwrap().kind, "awaiting");
        assert!(store.unnotified_events(10).await.unwrap().is_empty());
        let work = store.pending_work("m1", 10).await.unwrap();
        assert_eq!(
            work.iter()
                .map(|w| (w.commit.as_str(), w.received))
                .collect::<Vec<_>>(),
            [("00000001", 0), ("00000002", 0)]
        );
        assert!(store.pending_work("m2", 10).await.unwrap().is_empty());
        assert_eq!(store.pending_work("m1", 1).await.unwrap().len(), 1);
        store
            .add_request(
                a.id,
                "later",
                &work[1],
                "00000003",
                "6.1.0",
                1,
                "a later one",
            )
            .await
            .unwrap();
        store
            .add_request(a.id, "later", &work[1], "00000004", "6.1.0", 1, "again")
            .await
            .unwrap();
        let requests = &store.awaiting_confirmation(10).await.unwrap()[0].requests;
        assert_eq!(
            requests
                .iter()
                .map(|r| (r.side.as_str(), r.request.commit.as_str(), r.request.runs))
                .collect::<Vec<_>>(),
            [
                ("good", "00000001", 2),
                ("bad", "00000002", 2),
                ("later", "00000003", 1)
            ]
        );
    }

    /// A request counts (and averages) the runs of its benchmark and machine stored since it
    /// was made whose commit is its commit or abbreviates it, and records its progress.
    async fn a_request_counts_the_runs_of_its_commit_stored_since_it_was_made(db: &TestDb) {
        let store = db.open().await;
        // Run 3 is of the bad commit, before the request.
        upload_csv(&store, &runs_csv(0, 3)).await;
        let (_, requests) = confirming(&store, "00000001", "00000002", 3).await;
        let (good, bad) = (&requests[0], &requests[1]);
        assert_eq!((good.side.as_str(), bad.side.as_str()), ("good", "bad"));
        assert_eq!(store.rerun_count(bad).await.unwrap(), 0);
        let rerun = |commit: &str, value: f64| {
            format!("benchmark,commit,metric,iteration,value\nb,{commit},tput,1,{value}\n")
        };
        upload_csv(&store, &rerun("00000002", 7.0)).await;
        upload_csv(&store, &rerun("0000000", 9.0)).await;
        upload_csv(&store, &rerun("00000009", 1.0)).await;
        assert_eq!(store.rerun_count(bad).await.unwrap(), 2);
        assert_eq!(store.rerun_count(good).await.unwrap(), 1);
        let received: Vec<(String, u32)> = store
            .pending_work("m1", 10)
            .await
            .unwrap()
            .into_iter()
            .map(|w| (w.commit, w.received))
            .collect();
        assert_eq!(
            received,
            [("00000001".to_owned(), 1), ("00000002".to_owned(), 2)]
        );
        let tput = [("tput".to_owned(), String::new())];
        let means = store.rerun_means(bad, &tput).await.unwrap();
        assert_eq!(
            means,
            [
                RerunMean {
                    run_id: 4,
                    metric: "tput".into(),
                    param: String::new(),
                    mean: 7.0
                },
                RerunMean {
                    run_id: 5,
                    metric: "tput".into(),
                    param: String::new(),
                    mean: 9.0
                },
            ]
        );
        let lat = [("lat".to_owned(), String::new())];
        assert!(store.rerun_means(bad, &lat).await.unwrap().is_empty());
        store
            .request_progress(&[(bad.request.id, 2, 4)])
            .await
            .unwrap();
        let stored = store.work_request(bad.request.id).await.unwrap().unwrap();
        assert_eq!((stored.request.received, stored.request.runs), (2, 4));
        assert!(store
            .work_request(bad.request.id + 100)
            .await
            .unwrap()
            .is_none());
    }

    /// Settled by its reruns, a summary's requests are done and its confirmation announced
    /// (once: a second settlement is refused); settled by a person first, they are cancelled.
    async fn a_settled_confirmation_ends_its_requests(db: &TestDb) {
        let store = db.open().await;
        let (first, first_requests) = confirming(&store, "00000001", "00000002", 2).await;
        let (second, second_requests) = confirming(&store, "00000005", "00000006", 2).await;
        assert!(store
            .settle_confirmation(first, AlertStatus::New, "the reruns agree")
            .await
            .unwrap());
        assert!(!store
            .settle_confirmation(first, AlertStatus::Unconfirmed, "late")
            .await
            .unwrap());
        let s = store.alert_summary(first).await.unwrap().unwrap();
        assert_eq!(
            (s.status, s.confirmation.as_deref()),
            (AlertStatus::New, Some("the reruns agree"))
        );
        assert!(s.requests.is_empty());
        let kinds: Vec<&str> = s.events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["awaiting", "confirmed"]);
        let announced = store.unnotified_events(10).await.unwrap();
        assert_eq!(
            announced
                .iter()
                .map(|p| (p.summary_id, p.event.kind.as_str()))
                .collect::<Vec<_>>(),
            [(first, "confirmed")]
        );
        let patch = AlertPatch {
            status: Some(AlertStatus::Invalid),
            ..Default::default()
        };
        let s = store
            .triage_alert(second, &patch, "ann")
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(
            (s.status, s.confirmation.as_deref()),
            (
                AlertStatus::Invalid,
                Some("settled by ann before the reruns did")
            )
        );
        assert!(store.awaiting_confirmation(10).await.unwrap().is_empty());
        assert!(store.pending_work("m1", 10).await.unwrap().is_empty());
        for (requests, state) in [(first_requests, "done"), (second_requests, "cancelled")] {
            assert_eq!(requests.len(), 2);
            for r in requests {
                let stored = store.work_request(r.request.id).await.unwrap().unwrap();
                assert_eq!(stored.state, state);
            }
        }
    }
}
