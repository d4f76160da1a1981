// SPDX-License-Identifier: GPL-3.0-or-later
//! Alerts: the detector's job queue, the rules, summaries and their alerts, triage events, and
//! the notification outbox.

use std::collections::HashMap;

use app::alerts::{Alert, AlertEvent, AlertPage, AlertPatch, AlertStatus, AlertSummary, CommitRef};
use app::label::{Label, Metric};

use super::error::decode;
use super::sql::{query, query_as, sql, Builder, Row, Tx};
use super::{Store, StoreResult};
use crate::domain::alert_rule::Rule;

/// A series an upload touched, waiting for the detector.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertJob {
    pub benchmark: String,
    pub machine_id: i64,
    pub machine: String,
    pub metric: String,
    pub param: String,
    pub upload_id: i64,
}

/// An alert the detector found, with the summary it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAlert {
    pub benchmark: String,
    pub machine: String,
    pub good: CommitRef,
    pub bad: CommitRef,
    pub history: Option<String>,
    pub between: Option<u32>,
    pub alert: Alert,
    /// Summaries with open regressions on this series that this improvement undoes.
    pub undoes: Vec<i64>,
    /// The stored summary of the same step (found at a neighbouring commit for another
    /// metric) this alert joins instead of opening its own.
    pub into: Option<i64>,
    /// The spread of one run of the series when the step was found (its between-run noise),
    /// which reruns are judged against.
    pub run_sd: Option<f64>,
    /// Reruns to ask of each commit before the summary this alert opens is announced; `None`:
    /// its rule announces at once.
    pub confirm: Option<u32>,
}

/// When an alert that opens a summary awaiting confirmation is confirmed unchecked, if no
/// reruns settle it first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfirmPolicy {
    /// Unix milliseconds now, and how long to wait for reruns.
    pub now_ms: i64,
    pub timeout_ms: i64,
}

/// A summary's commit range, for the detector to find the one a neighbouring step belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSummary {
    pub id: i64,
    pub good: CommitRef,
    pub bad: CommitRef,
}

/// An alert already stored for a series: where its step is, for the detector's dedup.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownAlert {
    pub summary_id: i64,
    pub status: AlertStatus,
    pub bad: CommitRef,
    pub regression: bool,
    pub before: f64,
    pub after: f64,
}

/// A parsed `AlertFilter`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SummaryFilter {
    /// None: any status.
    pub statuses: Option<Vec<AlertStatus>>,
    pub benchmark: Option<String>,
    pub machine: Option<String>,
    /// Summaries with an alert on this metric.
    pub metric: Option<String>,
    /// Some(true): with a regression; Some(false): with an improvement.
    pub regression: Option<bool>,
    pub since: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// A notification to put in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct NewNotice {
    pub channel: &'static str,
    pub target: String,
    pub payload: Vec<u8>,
}

/// An event whose notifications are not yet in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingEvent {
    pub summary_id: i64,
    pub event: AlertEvent,
}

/// The oldest undelivered notification of one target.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub id: i64,
    pub channel: String,
    pub target: String,
    pub event: String,
    pub payload: Vec<u8>,
    pub attempts: i64,
    pub next_at: i64,
    /// Milliseconds since it was put in the outbox.
    pub age_ms: i64,
}

/// The columns `summary_row` reads.
macro_rules! summary_columns {
    () => {
        "SELECT id, benchmark, machine, good_kernel, good_sha, bad_kernel, bad_sha, \
     history, commits_between, status, note, assignee, fixed_by, regressions, improvements, created_at, updated_at, \
     confirmation FROM alert_summary"
    };
}

/// The `LIKE` pattern of the history commits `sha` abbreviates; for a `sha` that is not hex
/// (stored before commits had to be), the empty pattern, which no history commit matches: a
/// `%` or `_` in it is never a wildcard.
fn sha_prefix(sha: &str) -> String {
    if !sha.is_empty() && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        format!("{}%", sha.to_ascii_lowercase())
    } else {
        String::new()
    }
}

fn commit(kernel: String, sha: String) -> CommitRef {
    CommitRef {
        kernel,
        sha: (!sha.is_empty()).then_some(sha),
    }
}

fn summary_row(r: &Row) -> StoreResult<AlertSummary> {
    Ok(AlertSummary {
        id: r.get(0),
        benchmark: decode("alert_summary.benchmark", r.get(1), |s| {
            Label::parse(s).ok()
        })?,
        machine: decode("alert_summary.machine", r.get(2), |s| Label::parse(s).ok())?,
        good: commit(r.get(3), r.get(4)),
        bad: commit(r.get(5), r.get(6)),
        history: r.get(7),
        between: r.get::<Option<i64>, _>(8).map(|v| v as u32),
        status: decode("alert_summary.status", r.get(9), AlertStatus::parse)?,
        note: r.get(10),
        assignee: r.get(11),
        fixed_by: r.get(12),
        fixes: Vec::new(),
        regressions: r.get::<i64, _>(13) as u32,
        improvements: r.get::<i64, _>(14) as u32,
        created_at: r.get(15),
        updated_at: r.get(16),
        alerts: Vec::new(),
        events: Vec::new(),
        bisections: Vec::new(),
        supporting: Vec::new(),
        supporting_total: 0,
        confirmation: r.get(17),
        requests: Vec::new(),
    })
}

fn alert_row(r: &Row) -> StoreResult<(i64, Alert)> {
    let spark: String = r.get(14);
    Ok((
        r.get(1),
        Alert {
            id: r.get(0),
            metric: decode("alert.metric", r.get(2), |s| Metric::parse(s).ok())?,
            param: r.get(3),
            unit: r.get(4),
            direction: decode("alert.direction", r.get(5), app::label::Direction::parse)?,
            regression: r.get::<i64, _>(6) != 0,
            before: r.get(7),
            after: r.get(8),
            change_pct: r.get(9),
            p_value: r.get(10),
            points_before: r.get::<i64, _>(11) as u32,
            points_after: r.get::<i64, _>(12) as u32,
            spark_step: r.get::<i64, _>(13) as u32,
            spark: serde_json::from_str(&spark)?,
            evidence: r
                .get::<Option<String>, _>(15)
                .map(|e| serde_json::from_str(&e))
                .transpose()?,
        },
    ))
}

/// The columns `alert_row` reads.
macro_rules! alert_columns {
    () => {
        "SELECT id, summary_id, metric, param, unit, direction, regression, level_before, level_after, \
     change_pct, p_value, points_before, points_after, spark_step, spark, evidence FROM alert"
    };
}

fn event_row(r: &Row) -> StoreResult<AlertEvent> {
    Ok(AlertEvent {
        id: r.get(0),
        kind: r.get(1),
        at: r.get(2),
        actor: r.get(3),
        status: decode("alert_event.status", r.get(4), AlertStatus::parse)?,
        note: r.get(5),
        assignee: r.get(6),
    })
}

async fn insert_event(conn: &mut Tx, summary_id: i64, kind: &str, actor: &str) -> StoreResult<()> {
    insert_event_noted(conn, summary_id, kind, actor, true).await
}

/// Records an event; `announce: false` writes it as notified already: it is kept in the
/// summary's history but never becomes a mail or a webhook.
async fn insert_event_noted(
    conn: &mut Tx,
    summary_id: i64,
    kind: &str,
    actor: &str,
    announce: bool,
) -> StoreResult<()> {
    query(sql!(
        "INSERT INTO alert_event (summary_id, kind, actor, status, note, assignee, notified) \
         SELECT id, ?, ?, status, note, assignee, ? FROM alert_summary WHERE id = ?"
    ))
    .bind(kind)
    .bind(actor)
    .bind(i64::from(!announce))
    .bind(summary_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Stores one alert in summary `summary_id`, counts it, and marks fixed the regressions it
/// undoes.
async fn insert_alert(tx: &mut Tx, summary_id: i64, a: &NewAlert) -> StoreResult<()> {
    let x = &a.alert;
    query(
        sql!("INSERT INTO alert (summary_id, metric, param, unit, direction, regression, level_before, level_after, change_pct, \
         p_value, points_before, points_after, spark, spark_step, run_sd, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
    )
    .bind(summary_id)
    .bind(&x.metric)
    .bind(&x.param)
    .bind(&x.unit)
    .bind(x.direction.as_str())
    .bind(i64::from(x.regression))
    .bind(x.before)
    .bind(x.after)
    .bind(x.change_pct)
    .bind(x.p_value)
    .bind(i64::from(x.points_before))
    .bind(i64::from(x.points_after))
    .bind(serde_json::to_string(&x.spark)?)
    .bind(i64::from(x.spark_step))
    .bind(a.run_sd.filter(|v| v.is_finite()))
    .bind(x.evidence.as_ref().map(serde_json::to_string).transpose()?)
    .execute(&mut *tx)
    .await?;
    query(sql!(
        "UPDATE alert_summary SET regressions = regressions + ?, improvements = improvements + ?, \
         worst_pct = {greatest}(worst_pct, ?), updated_at = {now_ms} WHERE id = ?"
    ))
    .bind(i64::from(x.regression))
    .bind(i64::from(!x.regression))
    .bind(x.change_pct.abs())
    .bind(summary_id)
    .execute(&mut *tx)
    .await?;
    for undone in &a.undoes {
        let changed = query(sql!(
            "UPDATE alert_summary SET status = 'fixed', fixed_by = ?, \
             note = CASE WHEN note = '' THEN ? ELSE note END, \
             updated_at = {now_ms} \
             WHERE id = ? AND status IN ('new', 'acknowledged', 'investigating')"
        ))
        .bind(summary_id)
        .bind(format!("undone by the improvement of summary {summary_id}"))
        .bind(undone)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if changed > 0 {
            insert_event(&mut *tx, *undone, "status", "perfline").await?;
        }
    }
    Ok(())
}

/// Puts a summary just created for `a` in `awaiting-confirmation` (deadline from `policy`),
/// records that quietly (no mail, no webhook), and asks for `runs` reruns of its last good and
/// first bad commit.
async fn await_confirmation(
    tx: &mut Tx,
    summary_id: i64,
    a: &NewAlert,
    runs: u32,
    policy: ConfirmPolicy,
) -> StoreResult<()> {
    query(sql!(
        "UPDATE alert_summary SET status = 'awaiting-confirmation', confirm_by = ? WHERE id = ?"
    ))
    .bind(policy.now_ms.saturating_add(policy.timeout_ms))
    .bind(summary_id)
    .execute(&mut *tx)
    .await?;
    insert_event_noted(tx, summary_id, "awaiting", "perfline", false).await?;
    let x = &a.alert;
    for (side, commit, role) in [("good", &a.good, "last good"), ("bad", &a.bad, "first bad")] {
        let reason = format!(
            "confirm the {:+.1} % step of {} on {}: rerun the {role} commit {} {runs} time{}",
            x.change_pct,
            app::alerts::series_name(&a.benchmark, &x.title()),
            a.machine,
            commit.short(),
            if runs == 1 { "" } else { "s" },
        );
        let like = (
            a.benchmark.as_str(),
            a.machine.as_str(),
            x.metric.as_str(),
            x.param.as_str(),
        );
        let commit_sha = commit.sha.as_deref().unwrap_or("");
        super::work::insert_request(
            tx,
            summary_id,
            side,
            like,
            commit_sha,
            &commit.kernel,
            runs,
            &reason,
        )
        .await?;
    }
    Ok(())
}

impl Store {
    /// Series queued for the detector, events not yet in the outbox, notifications not yet
    /// delivered (for `/metrics`).
    pub async fn queue_lengths(&self) -> StoreResult<(i64, i64, i64)> {
        query_as(sql!(
            "SELECT (SELECT count(*) FROM alert_job), \
             (SELECT count(*) FROM alert_event WHERE notified = 0), \
             (SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL)"
        ))
        .fetch_one(&self.reader)
        .await
    }

    /// Up to `limit` series waiting for the detector, oldest first (not those set aside).
    pub async fn alert_jobs(&self, limit: i64) -> StoreResult<Vec<AlertJob>> {
        let rows = query(sql!(
            "SELECT j.benchmark, j.machine_id, m.name, j.metric, j.param, j.upload_id \
             FROM alert_job j JOIN machine m ON m.id = j.machine_id \
             WHERE NOT EXISTS (SELECT 1 FROM quarantine q WHERE q.kind = 'series' \
             AND q.benchmark = j.benchmark AND q.machine_id = j.machine_id \
             AND q.metric = j.metric AND q.param = j.param) \
             ORDER BY j.queued_at LIMIT ?"
        ))
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .iter()
            .map(|r| AlertJob {
                benchmark: r.get(0),
                machine_id: r.get(1),
                machine: r.get(2),
                metric: r.get(3),
                param: r.get(4),
                upload_id: r.get(5),
            })
            .collect())
    }

    /// The rules, in the order they are tried.
    pub async fn alert_rules(&self) -> StoreResult<Vec<Rule>> {
        let rows = query(sql!(
            "SELECT benchmark, metric, min_change_pct, alpha, min_before, min_after, is_ignored, direction, confirm, \
             history, bisect, min_local_t FROM alert_rule ORDER BY position"
        ))
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .iter()
            .map(|r| Rule {
                benchmark: r.get(0),
                metric: r.get(1),
                min_change_pct: r.get(2),
                alpha: r.get(3),
                min_before: r.get::<Option<i64>, _>(4).map(|v| v as usize),
                min_after: r.get::<Option<i64>, _>(5).map(|v| v as usize),
                ignore: r.get::<i64, _>(6) != 0,
                direction: r
                    .get::<Option<&str>, _>(7)
                    .and_then(app::label::Direction::parse),
                confirm: r.get::<Option<i64>, _>(8).map(|v| v != 0),
                history: r.get(9),
                bisect: r.get::<Option<i64>, _>(10).map(|v| v != 0),
                min_local_t: r.get(11),
            })
            .collect())
    }

    /// Replaces all rules (checked by the caller), recorded in the audit trail.
    pub async fn replace_alert_rules(&self, rules: &[Rule], actor: &str) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        query(sql!("DELETE FROM alert_rule"))
            .execute(&mut tx)
            .await?;
        for (i, r) in rules.iter().enumerate() {
            query(
                sql!("INSERT INTO alert_rule (position, benchmark, metric, min_change_pct, alpha, min_before, min_after, is_ignored, direction, confirm, \
                 history, bisect, min_local_t) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
            )
            .bind(i as i64)
            .bind(&r.benchmark)
            .bind(&r.metric)
            .bind(r.min_change_pct)
            .bind(r.alpha)
            .bind(r.min_before.map(|v| v as i64))
            .bind(r.min_after.map(|v| v as i64))
            .bind(i64::from(r.ignore))
            .bind(r.direction.map(app::label::Direction::as_str))
            .bind(r.confirm.map(i64::from))
            .bind(&r.history)
            .bind(r.bisect.map(i64::from))
            .bind(r.min_local_t)
            .execute(&mut tx)
            .await?;
        }
        super::tokens::audit_in(
            &mut tx,
            actor,
            "alert-rules.replace",
            "alert rules",
            &format!("{} rule(s)", rules.len()),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The newest summaries of `benchmark` on `machine` (any status), for the detector to
    /// join an alert to the summary of a step found at a neighbouring commit.
    pub async fn step_summaries(
        &self,
        benchmark: &str,
        machine: &str,
    ) -> StoreResult<Vec<StepSummary>> {
        let rows = query(sql!(
            "SELECT id, good_kernel, good_sha, bad_kernel, bad_sha FROM alert_summary \
             WHERE benchmark = ? AND machine = ? ORDER BY id DESC LIMIT 100"
        ))
        .bind(benchmark)
        .bind(machine)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .iter()
            .map(|r| StepSummary {
                id: r.get(0),
                good: commit(r.get(1), r.get(2)),
                bad: commit(r.get(3), r.get(4)),
            })
            .collect())
    }

    /// Moves the open summaries whose commit range holds `culprit` (a bisection's first bad
    /// commit) in their history to it: the range becomes the culprit's parent and the culprit,
    /// with a `bisected` event. A summary already at that range takes the moved one's alerts.
    /// `only`: the summary a bisection Perfline drove was started from, the only one it moves
    /// (a culprit found on one machine says nothing of another machine's step, though their
    /// ranges overlap in the shared history: the lab simulator's wrong culprits). Which
    /// summaries moved.
    pub async fn move_to_culprit(
        &self,
        culprit: &str,
        actor: &str,
        only: Option<i64>,
    ) -> StoreResult<Vec<i64>> {
        let mut tx = self.writer.begin_write().await?;
        let moved = move_to_culprit_in(&mut tx, culprit, actor, only).await?;
        tx.commit().await?;
        Ok(moved)
    }
}

/// [`Store::move_to_culprit`] in `tx`.
pub(super) async fn move_to_culprit_in(
    tx: &mut Tx,
    culprit: &str,
    actor: &str,
    only: Option<i64>,
) -> StoreResult<Vec<i64>> {
    {
        // Every open summary with a history that knows the culprit, and the positions of
        // its ends and of the culprit there (commits may be abbreviated on either side).
        let rows = query(sql!(
            "SELECT s.id, c.history_id, c.position, \
               (SELECT min(g.position) FROM history_commit g WHERE g.history_id = c.history_id \
                 AND s.good_sha <> '' AND (g.sha = s.good_sha OR substr(g.sha, 1, length(s.good_sha)) = s.good_sha)), \
               (SELECT min(b.position) FROM history_commit b WHERE b.history_id = c.history_id \
                 AND s.bad_sha <> '' AND (b.sha = s.bad_sha OR substr(b.sha, 1, length(s.bad_sha)) = s.bad_sha)), \
               s.benchmark, s.machine, s.good_kernel, s.bad_kernel, c.sha \
             FROM alert_summary s \
             JOIN history h ON s.history = h.repo || '/' || h.branch \
             JOIN history_commit c ON c.history_id = h.id AND c.sha LIKE ? \
             WHERE s.status IN ('new', 'acknowledged', 'investigating')"
        ))
        .bind(sha_prefix(culprit))
        .fetch_all(&mut *tx)
        .await?;
        let mut moved = Vec::new();
        for r in &rows {
            let (id, history_id, at): (i64, i64, i64) = (r.get(0), r.get(1), r.get(2));
            if only.is_some_and(|only| only != id) {
                continue;
            }
            let (Some(good), Some(bad)) = (r.get::<Option<i64>, _>(3), r.get::<Option<i64>, _>(4))
            else {
                continue;
            };
            // Already there, or the culprit is outside the range.
            if !(good < at && at <= bad) || (good == at - 1 && bad == at) {
                continue;
            }
            let Some((parent,)): Option<(String,)> = query_as(sql!(
                "SELECT sha FROM history_commit WHERE history_id = ? AND position = ?"
            ))
            .bind(history_id)
            .bind(at - 1)
            .fetch_optional(&mut *tx)
            .await?
            else {
                continue;
            };
            let (benchmark, machine, good_kernel, bad_kernel): (String, String, String, String) =
                (r.get(5), r.get(6), r.get(7), r.get(8));
            let culprit: String = r.get(9);
            let there: Option<(i64,)> = query_as(sql!(
                "SELECT id FROM alert_summary WHERE benchmark = ? AND machine = ? AND good_kernel = ? \
                 AND good_sha = ? AND bad_kernel = ? AND bad_sha = ? AND id <> ?"
            ))
            .bind(&benchmark)
            .bind(&machine)
            .bind(&good_kernel)
            .bind(&parent)
            .bind(&bad_kernel)
            .bind(&culprit)
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
            let target = match there {
                Some((other,)) => {
                    // The range is another summary's already: it takes this one's alerts.
                    query(sql!("UPDATE alert SET summary_id = ? WHERE summary_id = ?"))
                        .bind(other)
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                    query(sql!(
                        "UPDATE alert_summary SET \
                         regressions = (SELECT count(*) FROM alert WHERE summary_id = ? AND regression <> 0), \
                         improvements = (SELECT count(*) FROM alert WHERE summary_id = ? AND regression = 0), \
                         worst_pct = {greatest}(worst_pct, (SELECT worst_pct FROM alert_summary WHERE id = ?)), \
                         updated_at = {now_ms} WHERE id = ?"
                    ))
                    .bind(other)
                    .bind(other)
                    .bind(id)
                    .bind(other)
                    .execute(&mut *tx)
                    .await?;
                    query(sql!(
                        "UPDATE alert_summary SET fixed_by = NULL WHERE fixed_by = ?"
                    ))
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                    query(sql!("DELETE FROM alert_summary WHERE id = ?"))
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                    other
                }
                None => {
                    query(sql!(
                        "UPDATE alert_summary SET good_sha = ?, bad_sha = ?, commits_between = 0, \
                         updated_at = {now_ms} WHERE id = ?"
                    ))
                    .bind(&parent)
                    .bind(&culprit)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                    id
                }
            };
            insert_event(&mut *tx, target, "bisected", actor).await?;
            moved.push(target);
        }
        moved.dedup();
        Ok(moved)
    }
}

impl Store {
    /// The run spread alert `id` was found with, when known.
    pub async fn alert_run_sd(&self, id: i64) -> StoreResult<Option<f64>> {
        let row: Option<(Option<f64>,)> = query_as(sql!("SELECT run_sd FROM alert WHERE id = ?"))
            .bind(id)
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.and_then(|(v,)| v).filter(|v| v.is_finite() && *v > 0.0))
    }

    /// Every (metric, param) with an alert, for the alerts page's metric picker.
    pub async fn alert_metrics(&self) -> StoreResult<Vec<(String, String)>> {
        query_as(sql!("SELECT DISTINCT metric, param FROM alert"))
            .fetch_all(&self.reader)
            .await
    }

    /// The position of `sha` (full or abbreviated) in history `repo/branch`.
    pub async fn commit_position(&self, history: &str, sha: &str) -> StoreResult<Option<usize>> {
        let row: Option<(Option<i64>,)> = query_as(sql!(
            "SELECT min(c.position) FROM history h JOIN history_commit c ON c.history_id = h.id \
             WHERE h.repo || '/' || h.branch = ? AND c.sha LIKE ?"
        ))
        .bind(history)
        .bind(sha_prefix(sha))
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.and_then(|(p,)| p).and_then(|p| usize::try_from(p).ok()))
    }

    /// The alerts already raised on the series of `benchmark` on `machine`, by series
    /// (metric, param), each series' in the order they were raised: one read for all the
    /// series of a benchmark the detector examines.
    pub async fn series_alerts_of(
        &self,
        benchmark: &str,
        machine: &str,
    ) -> StoreResult<HashMap<(String, String), Vec<KnownAlert>>> {
        let rows = query(
            sql!("SELECT a.metric, a.param, s.id, s.status, s.bad_kernel, s.bad_sha, a.regression, a.level_before, a.level_after \
             FROM alert a JOIN alert_summary s ON s.id = a.summary_id \
             WHERE s.benchmark = ? AND s.machine = ? ORDER BY a.id"),
        )
        .bind(benchmark)
        .bind(machine)
        .fetch_all(&self.reader)
        .await?;
        let mut out: HashMap<(String, String), Vec<KnownAlert>> = HashMap::new();
        for r in &rows {
            out.entry((r.get(0), r.get(1)))
                .or_default()
                .push(KnownAlert {
                    summary_id: r.get(2),
                    status: decode("alert_summary.status", r.get(3), AlertStatus::parse)?,
                    bad: commit(r.get(4), r.get(5)),
                    regression: r.get::<i64, _>(6) != 0,
                    before: r.get(7),
                    after: r.get(8),
                });
        }
        Ok(out)
    }

    /// Stores what the detector found for `done` jobs in one transaction: alerts grouped into
    /// summaries (a new summary gets its `new` event), regressions undone by an improvement
    /// marked fixed, and the jobs removed unless an upload queued them again meanwhile.
    pub async fn record_alerts(
        &self,
        done: &[AlertJob],
        found: &[NewAlert],
        policy: ConfirmPolicy,
    ) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        for a in found {
            if let Some(id) = a.into {
                let still: Option<(i64,)> =
                    query_as(sql!("SELECT id FROM alert_summary WHERE id = ?"))
                        .bind(id)
                        .fetch_optional(&mut tx)
                        .await?;
                if still.is_some() {
                    insert_alert(&mut tx, id, a).await?;
                    continue;
                }
            }
            let key = (
                &a.good.kernel,
                a.good.sha.as_deref().unwrap_or(""),
                &a.bad.kernel,
                a.bad.sha.as_deref().unwrap_or(""),
            );
            let created: Option<(i64,)> = query_as(
                sql!("INSERT INTO alert_summary (benchmark, machine, good_kernel, good_sha, bad_kernel, bad_sha, history, commits_between) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id"),
            )
            .bind(&a.benchmark)
            .bind(&a.machine)
            .bind(key.0)
            .bind(key.1)
            .bind(key.2)
            .bind(key.3)
            .bind(&a.history)
            .bind(a.between.map(i64::from))
            .fetch_optional(&mut tx)
            .await?;
            let summary_id = match created {
                Some((id,)) => {
                    match a.confirm {
                        Some(runs) => {
                            await_confirmation(&mut tx, id, a, runs, policy).await?;
                        }
                        None => insert_event(&mut tx, id, "new", "perfline").await?,
                    }
                    id
                }
                None => {
                    query_as::<(i64,)>(
                        sql!("SELECT id FROM alert_summary WHERE benchmark = ? AND machine = ? AND good_kernel = ? \
                         AND good_sha = ? AND bad_kernel = ? AND bad_sha = ?"),
                    )
                    .bind(&a.benchmark)
                    .bind(&a.machine)
                    .bind(key.0)
                    .bind(key.1)
                    .bind(key.2)
                    .bind(key.3)
                    .fetch_one(&mut tx)
                    .await?
                    .0
                }
            };
            insert_alert(&mut tx, summary_id, a).await?;
        }
        for j in done {
            query(
                sql!("DELETE FROM alert_job WHERE benchmark = ? AND machine_id = ? AND metric = ? AND param = ? AND upload_id = ?"),
            )
            .bind(&j.benchmark)
            .bind(j.machine_id)
            .bind(&j.metric)
            .bind(&j.param)
            .bind(j.upload_id)
            .execute(&mut tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A page of summaries matching `filter`, newest first, with their alerts.
    pub async fn alert_summaries(&self, filter: &SummaryFilter) -> StoreResult<AlertPage> {
        let statuses = filter.statuses.as_ref().map(|s| {
            serde_json::to_string(&s.iter().map(|x| x.as_str()).collect::<Vec<_>>())
                .unwrap_or_default()
        });
        // The same filter for the count and the page.
        let filtered = |select: &str| {
            let mut q = Builder::new(select);
            q.push(" WHERE 1 = 1");
            if let Some(s) = &statuses {
                q.push(" AND status IN {texts}");
                q.push_arg(s.as_str());
            }
            if let Some(b) = &filter.benchmark {
                q.push(" AND benchmark = ").push_bind(b.as_str());
            }
            if let Some(m) = &filter.machine {
                q.push(" AND machine = ").push_bind(m.as_str());
            }
            if let Some(m) = &filter.metric {
                q.push(" AND EXISTS (SELECT 1 FROM alert a WHERE a.summary_id = alert_summary.id AND a.metric = ")
                    .push_bind(m.as_str())
                    .push(")");
            }
            match filter.regression {
                Some(true) => {
                    q.push(" AND regressions > 0");
                }
                Some(false) => {
                    q.push(" AND improvements > 0");
                }
                None => {}
            }
            if let Some(since) = &filter.since {
                q.push(" AND created_at >= ").push_bind(since.as_str());
            }
            q
        };
        let mut tx = self.reader.begin_read().await?;
        let (total,): (i64,) = filtered("SELECT count(*) FROM alert_summary")
            .build_query_as()
            .fetch_one(&mut tx)
            .await?;
        let mut page = filtered(summary_columns!());
        page.push(" ORDER BY id DESC LIMIT ")
            .push_bind(filter.limit)
            .push(" OFFSET ")
            .push_bind(filter.offset);
        let rows = page.build().fetch_all(&mut tx).await?;
        let mut summaries: Vec<AlertSummary> =
            rows.iter().map(summary_row).collect::<StoreResult<_>>()?;
        fill_summaries(&mut tx, &mut summaries).await?;
        tx.commit().await?;
        Ok(AlertPage {
            summaries,
            total,
            limit: filter.limit,
            offset: filter.offset,
        })
    }

    /// One summary with its alerts and its events.
    /// Up to `limit` announced regressions (status `new`) with commits on both sides, never
    /// bisected and never tried: the candidates for a bisection their rule starts.
    pub async fn summaries_to_bisect(&self, limit: i64) -> StoreResult<Vec<i64>> {
        let rows: Vec<(i64,)> = query_as(sql!(
            "SELECT s.id FROM alert_summary s WHERE s.status = 'new' AND s.regressions > 0 \
             AND s.good_sha <> '' AND s.bad_sha <> '' \
             AND s.bisect_checked = 0 \
             AND NOT EXISTS (SELECT 1 FROM bisection b WHERE b.summary_id = s.id) \
             ORDER BY s.id LIMIT ?"
        ))
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Records that summary `id` was looked at for a bisection its rule starts (it is looked
    /// at once), and with `note`, what came of it on its timeline (not announced: the culprit
    /// mail is).
    pub async fn record_bisecting(&self, id: i64, note: Option<&str>) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        query(sql!(
            "UPDATE alert_summary SET bisect_checked = 1 WHERE id = ?"
        ))
        .bind(id)
        .execute(&mut tx)
        .await?;
        if let Some(note) = note {
            query(sql!(
                "INSERT INTO alert_event (summary_id, kind, actor, status, note, assignee, notified) \
                 SELECT id, 'bisecting', 'perfline', status, ?, assignee, 1 FROM alert_summary WHERE id = ?"
            ))
            .bind(note)
            .bind(id)
            .execute(&mut tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn alert_summary(&self, id: i64) -> StoreResult<Option<AlertSummary>> {
        let mut tx = self.reader.begin_read().await?;
        let summary = read_summary(&mut tx, id).await?;
        tx.commit().await?;
        Ok(summary)
    }

    /// Applies a triage change (checked by the caller) and records it as an event, in one
    /// transaction; `None` if there is no such summary. `Err(Some(message))` when `fixed_by`
    /// names no summary.
    pub async fn triage_alert(
        &self,
        id: i64,
        patch: &AlertPatch,
        actor: &str,
    ) -> StoreResult<Result<Option<AlertSummary>, String>> {
        let mut tx = self.writer.begin_write().await?;
        if let Some(f) = patch.fixed_by {
            let exists: Option<(i64,)> = query_as(sql!(
                "SELECT id FROM alert_summary WHERE id = ? AND id != ?"
            ))
            .bind(f)
            .bind(id)
            .fetch_optional(&mut tx)
            .await?;
            if exists.is_none() {
                return Ok(Err(format!(
                    "fixed_by: there is no other alert summary {f}"
                )));
            }
        }
        let was: Option<(String,)> =
            query_as(sql!("SELECT status FROM alert_summary WHERE id = ?"))
                .bind(id)
                .fetch_optional(&mut tx)
                .await?;
        let awaiting = was.is_some_and(|(s,)| s == AlertStatus::AwaitingConfirmation.as_str());
        let changed = query(sql!(
            "UPDATE alert_summary SET status = coalesce(?, status), note = coalesce(?, note), \
             assignee = coalesce(?, assignee), fixed_by = coalesce(?, fixed_by), \
             updated_at = {now_ms} WHERE id = ?"
        ))
        .bind(patch.status.map(AlertStatus::as_str))
        .bind(&patch.note)
        .bind(&patch.assignee)
        .bind(patch.fixed_by)
        .bind(id)
        .execute(&mut tx)
        .await?
        .rows_affected();
        if changed == 0 {
            return Ok(Ok(None));
        }
        // A person settles a confirmation: to an open status it is confirmed (and announced
        // now), to any other the reruns are no longer wanted.
        let settled = awaiting
            && patch
                .status
                .is_some_and(|s| s != AlertStatus::AwaitingConfirmation);
        let kind = if settled {
            query(sql!(
                "UPDATE alert_summary SET confirm_by = NULL, \
                 confirmation = coalesce(confirmation, ?) WHERE id = ?"
            ))
            .bind(format!("settled by {actor} before the reruns did"))
            .bind(id)
            .execute(&mut tx)
            .await?;
            super::work::end_requests(&mut tx, id, "cancelled").await?;
            if patch.status.is_some_and(AlertStatus::is_open) {
                "confirmed"
            } else {
                "status"
            }
        } else {
            "status"
        };
        insert_event(&mut tx, id, kind, actor).await?;
        let detail = serde_json::json!({
            "status": patch.status, "note": patch.note, "assignee": patch.assignee, "fixed_by": patch.fixed_by,
        });
        super::tokens::audit_in(
            &mut tx,
            actor,
            "alert.triage",
            &format!("alert summary {id}"),
            &detail.to_string(),
        )
        .await?;
        let summary = read_summary(&mut tx, id).await?;
        tx.commit().await?;
        Ok(Ok(summary))
    }

    /// Settles a summary awaiting confirmation: `status` (`new` when confirmed, `unconfirmed`
    /// when the reruns did not show the step), what the reruns said, its requests done, and
    /// an event: `confirmed` (announced: mail and webhooks) or `unconfirmed` (quiet). False
    /// when it was no longer awaiting (triaged meanwhile).
    pub async fn settle_confirmation(
        &self,
        id: i64,
        status: AlertStatus,
        text: &str,
    ) -> StoreResult<bool> {
        let mut tx = self.writer.begin_write().await?;
        let changed = query(sql!(
            "UPDATE alert_summary SET status = ?, confirmation = ?, confirm_by = NULL, \
             updated_at = {now_ms} WHERE id = ? AND status = 'awaiting-confirmation'"
        ))
        .bind(status.as_str())
        .bind(text)
        .bind(id)
        .execute(&mut tx)
        .await?
        .rows_affected();
        if changed == 0 {
            tx.rollback().await?;
            return Ok(false);
        }
        super::work::end_requests(&mut tx, id, "done").await?;
        let confirmed = status != AlertStatus::Unconfirmed;
        let kind = if confirmed {
            "confirmed"
        } else {
            "unconfirmed"
        };
        insert_event_noted(&mut tx, id, kind, "perfline", confirmed).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Up to `limit` events whose notifications are not yet in the outbox, oldest first (not
    /// those set aside).
    pub async fn unnotified_events(&self, limit: i64) -> StoreResult<Vec<PendingEvent>> {
        let rows = query(sql!(
            "SELECT id, kind, at, actor, status, note, assignee, summary_id FROM alert_event \
             WHERE notified = 0 AND id NOT IN (SELECT item_id FROM quarantine WHERE kind = 'event') \
             ORDER BY id LIMIT ?"
        ))
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(PendingEvent {
                    summary_id: r.get(7),
                    event: event_row(r)?,
                })
            })
            .collect()
    }

    /// Puts an event's notifications in the outbox and marks it notified, in one transaction.
    pub async fn enqueue_notices(&self, event_id: i64, notices: &[NewNotice]) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        let (summary_id, kind): (i64, String) = query_as(sql!(
            "SELECT summary_id, kind FROM alert_event WHERE id = ?"
        ))
        .bind(event_id)
        .fetch_one(&mut tx)
        .await?;
        for n in notices {
            query(
                sql!("INSERT INTO outbox (channel, target, summary_id, event, payload) VALUES (?, ?, ?, ?, ?)"),
            )
            .bind(n.channel)
            .bind(&n.target)
            .bind(summary_id)
            .bind(&kind)
            .bind(&n.payload)
            .execute(&mut tx)
            .await?;
        }
        // Once only, whatever another process did meanwhile: then this copy is not kept.
        let marked = query(sql!(
            "UPDATE alert_event SET notified = 1 WHERE id = ? AND notified = 0"
        ))
        .bind(event_id)
        .execute(&mut tx)
        .await?;
        if marked.rows_affected() == 0 {
            tx.rollback().await?;
            return Ok(());
        }
        tx.commit().await?;
        Ok(())
    }

    /// The oldest undelivered notification of every target: delivered in order, one target
    /// never waits for another (one set aside is passed over).
    pub async fn outbox_heads(&self) -> StoreResult<Vec<Delivery>> {
        let rows = query(
            sql!("SELECT id, channel, target, event, payload, attempts, next_at, \
             {age_ms} FROM outbox WHERE id IN \
             (SELECT min(id) FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL \
             AND id NOT IN (SELECT item_id FROM quarantine WHERE kind = 'delivery') GROUP BY channel, target) \
             ORDER BY id"),
        )
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .iter()
            .map(|r| Delivery {
                id: r.get(0),
                channel: r.get(1),
                target: r.get(2),
                event: r.get(3),
                payload: r.get(4),
                attempts: r.get(5),
                next_at: r.get(6),
                age_ms: r.get(7),
            })
            .collect())
    }

    /// Records an attempt: delivered, or failed with the next try at `next_at` (unix ms), or
    /// given up on.
    pub async fn delivery_attempt(
        &self,
        id: i64,
        result: Result<(), (&str, i64, bool)>,
    ) -> StoreResult<()> {
        let q = match result {
            Ok(()) => query(sql!(
                "UPDATE outbox SET attempts = attempts + 1, last_error = NULL, \
                 delivered_at = {now_ms} WHERE id = ?"
            ))
            .bind(id),
            Err((error, next_at, give_up)) => query(sql!(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_at = ?, \
                 failed_at = CASE WHEN ? = 1 THEN {now_ms} END WHERE id = ?"
            ))
            .bind(error.to_owned())
            .bind(next_at)
            .bind(give_up)
            .bind(id),
        };
        q.execute(&self.writer).await?;
        Ok(())
    }
}

async fn read_summary(conn: &mut Tx, id: i64) -> StoreResult<Option<AlertSummary>> {
    let Some(row) = query(sql!(summary_columns!(), " WHERE id = ?"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let mut summaries = vec![summary_row(&row)?];
    fill_summaries(conn, &mut summaries).await?;
    let events = query(
        sql!("SELECT id, kind, at, actor, status, note, assignee FROM alert_event WHERE summary_id = ? ORDER BY id"),
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    summaries[0].events = events.iter().map(event_row).collect::<StoreResult<_>>()?;
    summaries[0].bisections = query_as(sql!(
        "SELECT id, state FROM bisection WHERE summary_id = ? ORDER BY id"
    ))
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(summaries.pop())
}

/// Adds the alerts (regressions first, larger changes first) and the `fixes` of summaries.
async fn fill_summaries(conn: &mut Tx, summaries: &mut [AlertSummary]) -> StoreResult<()> {
    if summaries.is_empty() {
        return Ok(());
    }
    let ids = serde_json::to_string(&summaries.iter().map(|s| s.id).collect::<Vec<_>>())?;
    let rows = query(sql!(
        alert_columns!(),
        " WHERE summary_id IN {ids} ORDER BY summary_id, regression DESC, abs(change_pct) DESC, id"
    ))
    .bind(&ids)
    .fetch_all(&mut *conn)
    .await?;
    let position = |id: i64| summaries.iter().position(|s| s.id == id);
    let mut alerts: Vec<(usize, Alert)> = Vec::with_capacity(rows.len());
    for r in &rows {
        let (summary_id, alert) = alert_row(r)?;
        if let Some(i) = position(summary_id) {
            alerts.push((i, alert));
        }
    }
    for (i, a) in alerts {
        summaries[i].alerts.push(a);
    }
    let fixes: Vec<(i64, i64)> = query_as(sql!(
        "SELECT id, fixed_by FROM alert_summary WHERE fixed_by IN {ids} ORDER BY id"
    ))
    .bind(&ids)
    .fetch_all(&mut *conn)
    .await?;
    for (id, by) in fixes {
        if let Some(i) = summaries.iter().position(|s| s.id == by) {
            summaries[i].fixes.push(id);
        }
    }
    for r in super::work::pending_of(conn, &ids).await? {
        if let Some(i) = r
            .alert
            .and_then(|a| summaries.iter().position(|s| s.id == a))
        {
            summaries[i].requests.push(r);
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::store::testdb::TestDb;
    use crate::store::StoreError;
    use app::label::Direction;

    crate::store::on_both_engines!(
        recorded_alerts_read_back_by_summary_and_by_filter,
        a_triage_change_is_an_event_and_a_refused_one_changes_nothing,
        the_outbox_delivers_each_target_in_order_and_backs_off_a_failure,
        a_corrupt_status_reads_as_corrupt_not_new,
    );

    /// What the detector stores for the step of `metric` of `benchmark` on `machine` between
    /// commits `good` and `bad`: a change of `pct` % from 100 (higher is better, so a drop is a
    /// regression), announced at once (`confirm: None`).
    pub(in crate::store) fn step(
        benchmark: &str,
        machine: &str,
        metric: &str,
        [good, bad]: [&str; 2],
        pct: f64,
    ) -> NewAlert {
        let commit = |sha: &str| CommitRef {
            kernel: "6.1.0".into(),
            sha: Some(sha.to_owned()),
        };
        NewAlert {
            benchmark: benchmark.into(),
            machine: machine.into(),
            good: commit(good),
            bad: commit(bad),
            history: None,
            between: Some(0),
            alert: Alert {
                id: 0,
                metric: Metric::parse(metric).expect("a test's metric name"),
                param: String::new(),
                unit: None,
                direction: Direction::Higher,
                regression: pct < 0.0,
                before: 100.0,
                after: 100.0 + pct,
                change_pct: pct,
                p_value: 0.001,
                points_before: 10,
                points_after: 5,
                spark: vec![100.0, 100.0 + pct],
                spark_step: 1,
                evidence: None,
            },
            undoes: Vec::new(),
            into: None,
            run_sd: Some(1.5),
            confirm: None,
        }
    }

    /// Now is 1 s after the epoch; reruns are waited for 0.5 s.
    pub(in crate::store) const NOW: ConfirmPolicy = ConfirmPolicy {
        now_ms: 1_000,
        timeout_ms: 500,
    };

    const AB: [&str; 2] = ["aaaaaaa1", "bbbbbbb2"];
    const CD: [&str; 2] = ["ccccccc3", "ddddddd4"];

    /// The ids of the summaries `filter` (with a limit of 50 unless it sets one) finds, newest
    /// first, and how many it finds in all.
    async fn found(store: &Store, filter: SummaryFilter) -> (i64, Vec<i64>) {
        let limit = if filter.limit == 0 { 50 } else { filter.limit };
        let page = store
            .alert_summaries(&SummaryFilter { limit, ..filter })
            .await
            .unwrap();
        (page.total, page.summaries.iter().map(|s| s.id).collect())
    }

    /// Alerts are stored into one summary per step (a later alert of the same step joins it),
    /// read back one summary at a time with its alerts and events, and as pages by filter.
    async fn recorded_alerts_read_back_by_summary_and_by_filter(db: &TestDb) {
        let store = db.open().await;
        let first = [
            step("b", "m1", "tput", AB, -10.0),
            step("c", "m2", "tput", AB, 5.0),
        ];
        store.record_alerts(&[], &first, NOW).await.unwrap();
        store
            .record_alerts(&[], &[step("b", "m1", "lat", AB, 20.0)], NOW)
            .await
            .unwrap();
        let (total, ids) = found(&store, SummaryFilter::default()).await;
        assert_eq!((total, ids.len()), (2, 2));
        let (c, b) = (ids[0], ids[1]);
        let one = store.alert_summary(b).await.unwrap().expect("the summary");
        assert_eq!(
            (one.benchmark.as_str(), one.machine.as_str(), one.status),
            ("b", "m1", AlertStatus::New)
        );
        assert_eq!(
            (one.good.sha.as_deref(), one.bad.sha.as_deref()),
            (Some(AB[0]), Some(AB[1]))
        );
        assert_eq!((one.regressions, one.improvements), (1, 1));
        // Regressions first.
        let alerts: Vec<(&str, bool, f64, Direction)> = one
            .alerts
            .iter()
            .map(|a| (a.metric.as_str(), a.regression, a.after, a.direction))
            .collect();
        assert_eq!(
            alerts,
            [
                ("tput", true, 90.0, Direction::Higher),
                ("lat", false, 120.0, Direction::Higher)
            ]
        );
        assert_eq!(one.alerts[0].spark, [100.0, 90.0]);
        let events: Vec<(&str, &str, AlertStatus)> = one
            .events
            .iter()
            .map(|e| (e.kind.as_str(), e.actor.as_str(), e.status))
            .collect();
        assert_eq!(events, [("new", "perfline", AlertStatus::New)]);
        assert!(store.alert_summary(c + 100).await.unwrap().is_none());
        for (filter, want) in [
            (
                SummaryFilter {
                    benchmark: Some("c".into()),
                    ..Default::default()
                },
                (1, vec![c]),
            ),
            (
                SummaryFilter {
                    machine: Some("m1".into()),
                    ..Default::default()
                },
                (1, vec![b]),
            ),
            (
                SummaryFilter {
                    metric: Some("lat".into()),
                    ..Default::default()
                },
                (1, vec![b]),
            ),
            (
                SummaryFilter {
                    regression: Some(true),
                    ..Default::default()
                },
                (1, vec![b]),
            ),
            (
                SummaryFilter {
                    regression: Some(false),
                    ..Default::default()
                },
                (2, vec![c, b]),
            ),
            (
                SummaryFilter {
                    statuses: Some(vec![AlertStatus::Acknowledged, AlertStatus::Fixed]),
                    ..Default::default()
                },
                (0, vec![]),
            ),
            (
                SummaryFilter {
                    statuses: Some(vec![AlertStatus::New]),
                    limit: 1,
                    offset: 1,
                    ..Default::default()
                },
                (2, vec![b]),
            ),
        ] {
            assert_eq!(found(&store, filter.clone()).await, want, "{filter:?}");
        }
        let mut metrics = store.alert_metrics().await.unwrap();
        metrics.sort();
        assert_eq!(
            metrics,
            [
                ("lat".to_owned(), String::new()),
                ("tput".to_owned(), String::new())
            ]
        );
        let known = store.series_alerts_of("b", "m1").await.unwrap();
        let tput = &known[&("tput".to_owned(), String::new())];
        assert_eq!(
            tput.iter()
                .map(|k| (k.summary_id, k.status, k.regression, k.before, k.after))
                .collect::<Vec<_>>(),
            [(b, AlertStatus::New, true, 100.0, 90.0)]
        );
        assert_eq!(known.len(), 2);
    }

    /// A triage change (status, note, assignee, the summary that fixed it) is applied and
    /// recorded as an event of the person who made it; an unknown summary is `None`, and a
    /// `fixed_by` naming no other summary is refused with nothing written.
    async fn a_triage_change_is_an_event_and_a_refused_one_changes_nothing(db: &TestDb) {
        let store = db.open().await;
        let steps = [
            step("b", "m1", "tput", AB, -10.0),
            step("b", "m1", "tput", CD, 10.0),
        ];
        store.record_alerts(&[], &steps, NOW).await.unwrap();
        let (_, ids) = found(&store, SummaryFilter::default()).await;
        let (fix, regression) = (ids[0], ids[1]);
        let triage = |id: i64, patch: AlertPatch| {
            let store = store.clone();
            async move { store.triage_alert(id, &patch, "bob").await.unwrap() }
        };
        let s = triage(
            regression,
            AlertPatch {
                status: Some(AlertStatus::Acknowledged),
                note: Some("looking".into()),
                assignee: Some("ann".into()),
                fixed_by: None,
            },
        )
        .await
        .unwrap()
        .expect("the summary");
        assert_eq!(
            (s.status, s.note.as_str(), s.assignee.as_str()),
            (AlertStatus::Acknowledged, "looking", "ann")
        );
        let event = |e: &AlertEvent| {
            (
                e.kind.clone(),
                e.actor.clone(),
                e.status,
                e.note.clone(),
                e.assignee.clone(),
            )
        };
        assert_eq!(
            s.events.iter().map(event).collect::<Vec<_>>(),
            [
                (
                    "new".into(),
                    "perfline".into(),
                    AlertStatus::New,
                    String::new(),
                    String::new()
                ),
                (
                    "status".into(),
                    "bob".into(),
                    AlertStatus::Acknowledged,
                    "looking".into(),
                    "ann".into()
                ),
            ]
        );
        // A note alone keeps the rest.
        let s = triage(
            regression,
            AlertPatch {
                note: Some("bisecting".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(
            (
                s.status,
                s.note.as_str(),
                s.assignee.as_str(),
                s.events.len()
            ),
            (AlertStatus::Acknowledged, "bisecting", "ann", 3)
        );
        let s = triage(
            regression,
            AlertPatch {
                status: Some(AlertStatus::Fixed),
                fixed_by: Some(fix),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!((s.status, s.fixed_by), (AlertStatus::Fixed, Some(fix)));
        let fixer = store.alert_summary(fix).await.unwrap().unwrap();
        assert_eq!(fixer.fixes, [regression]);
        // No such summary.
        let nowhere = fix.max(regression) + 100;
        let patch = AlertPatch {
            status: Some(AlertStatus::Wontfix),
            ..Default::default()
        };
        assert_eq!(triage(nowhere, patch).await, Ok(None));
        // Fixed by itself, or by no summary: refused, nothing written.
        for by in [regression, nowhere] {
            let refused = triage(
                regression,
                AlertPatch {
                    status: Some(AlertStatus::Invalid),
                    fixed_by: Some(by),
                    ..Default::default()
                },
            )
            .await
            .unwrap_err();
            assert!(refused.contains(&by.to_string()), "{refused}");
        }
        let s = store.alert_summary(regression).await.unwrap().unwrap();
        assert_eq!((s.status, s.events.len()), (AlertStatus::Fixed, 4));
    }

    /// An event's notifications go into the outbox once; each target's are delivered oldest
    /// first, a failed one stays at the head of its target until its next try (the other
    /// targets go on), and one given up on leaves the queue.
    async fn the_outbox_delivers_each_target_in_order_and_backs_off_a_failure(db: &TestDb) {
        let store = db.open().await;
        store
            .record_alerts(&[], &[step("b", "m1", "tput", AB, -10.0)], NOW)
            .await
            .unwrap();
        assert_eq!(store.queue_lengths().await.unwrap(), (0, 1, 0));
        let pending = store.unnotified_events(10).await.unwrap();
        assert_eq!(pending.len(), 1);
        let (summary, new) = (pending[0].summary_id, pending[0].event.clone());
        assert_eq!((new.kind.as_str(), new.status), ("new", AlertStatus::New));
        let notice = |channel: &'static str, target: &str, payload: &str| NewNotice {
            channel,
            target: target.into(),
            payload: payload.as_bytes().to_vec(),
        };
        let notices = [
            notice("mail", "ann@example.org", "found"),
            notice("webhook", "http://hook", "{}"),
        ];
        store.enqueue_notices(new.id, &notices).await.unwrap();
        // Once only: another server enqueueing the same event adds nothing.
        store.enqueue_notices(new.id, &notices).await.unwrap();
        assert_eq!(store.queue_lengths().await.unwrap(), (0, 0, 2));
        assert!(store.unnotified_events(10).await.unwrap().is_empty());
        // A triage event, to the same mail target: it waits behind the first.
        let patch = AlertPatch {
            status: Some(AlertStatus::Acknowledged),
            ..Default::default()
        };
        store
            .triage_alert(summary, &patch, "bob")
            .await
            .unwrap()
            .unwrap();
        let pending = store.unnotified_events(10).await.unwrap();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].event.kind, "status");
        store
            .enqueue_notices(
                pending[0].event.id,
                &[notice("mail", "ann@example.org", "acknowledged")],
            )
            .await
            .unwrap();
        let view = |heads: &[Delivery]| {
            heads
                .iter()
                .map(|d| {
                    (
                        d.channel.clone(),
                        d.target.clone(),
                        d.event.clone(),
                        String::from_utf8(d.payload.clone()).unwrap(),
                        d.attempts,
                    )
                })
                .collect::<Vec<_>>()
        };
        let row = |channel: &str, target: &str, event: &str, payload: &str, attempts: i64| {
            (
                channel.to_owned(),
                target.to_owned(),
                event.to_owned(),
                payload.to_owned(),
                attempts,
            )
        };
        let heads = store.outbox_heads().await.unwrap();
        assert_eq!(
            view(&heads),
            [
                row("mail", "ann@example.org", "new", "found", 0),
                row("webhook", "http://hook", "new", "{}", 0)
            ]
        );
        let (mail, hook) = (heads[0].id, heads[1].id);
        store
            .delivery_attempt(mail, Err(("connection refused", 5_000, false)))
            .await
            .unwrap();
        store.delivery_attempt(hook, Ok(())).await.unwrap();
        let heads = store.outbox_heads().await.unwrap();
        assert_eq!(
            view(&heads),
            [row("mail", "ann@example.org", "new", "found", 1)]
        );
        assert_eq!(heads[0].next_at, 5_000);
        assert_eq!(store.queue_lengths().await.unwrap(), (0, 0, 2));
        // Delivered at its next try: the next of its target is the head.
        store.delivery_attempt(mail, Ok(())).await.unwrap();
        let heads = store.outbox_heads().await.unwrap();
        assert_eq!(
            view(&heads),
            [row("mail", "ann@example.org", "status", "acknowledged", 0)]
        );
        // Given up on: nothing is left to deliver.
        store
            .delivery_attempt(heads[0].id, Err(("mailbox full", 9_000, true)))
            .await
            .unwrap();
        assert!(store.outbox_heads().await.unwrap().is_empty());
        assert_eq!(store.queue_lengths().await.unwrap(), (0, 0, 0));
    }

    /// A stored status (or direction) the code never writes is `StoreError::Corrupt` on every
    /// read of it, never a default that passes for data (`new`, `higher`).
    async fn a_corrupt_status_reads_as_corrupt_not_new(db: &TestDb) {
        let store = db.open().await;
        store
            .record_alerts(&[], &[step("b", "m1", "tput", AB, -10.0)], NOW)
            .await
            .unwrap();
        let (_, ids) = found(&store, SummaryFilter::default()).await;
        let id = ids[0];
        query(sql!(
            "UPDATE alert_summary SET status = 'bogus' WHERE id = ?"
        ))
        .bind(id)
        .execute(&store.writer)
        .await
        .unwrap();
        let summary = store.alert_summary(id).await;
        assert!(
            matches!(summary, Err(StoreError::Corrupt(ref e)) if e.contains("bogus")),
            "{summary:?}"
        );
        let page = store
            .alert_summaries(&SummaryFilter {
                limit: 10,
                ..Default::default()
            })
            .await;
        assert!(matches!(page, Err(StoreError::Corrupt(_))), "{page:?}");
        let known = store.series_alerts_of("b", "m1").await;
        assert!(matches!(known, Err(StoreError::Corrupt(_))), "{known:?}");
        // Its status mended, a bad direction of its alert is as corrupt.
        query(sql!("UPDATE alert_summary SET status = 'new' WHERE id = ?"))
            .bind(id)
            .execute(&store.writer)
            .await
            .unwrap();
        assert_eq!(
            store.alert_summary(id).await.unwrap().unwrap().status,
            AlertStatus::New
        );
        query(sql!(
            "UPDATE alert SET direction = 'sideways' WHERE summary_id = ?"
        ))
        .bind(id)
        .execute(&store.writer)
        .await
        .unwrap();
        let summary = store.alert_summary(id).await;
        assert!(
            matches!(summary, Err(StoreError::Corrupt(ref e)) if e.contains("sideways")),
            "{summary:?}"
        );
    }
}
