// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel test robot's report mails, stored a row per detail section
//! (`ingest::lkp_mail`): written in one transaction per upload, read by the reports API.

use std::collections::{HashMap, HashSet};

use app::reports::ReportSearch;

use super::sql::{query, query_as, sql, Builder};
use super::{Store, StoreResult};

/// What a stored report section is listed and searched by.
#[derive(Debug, Clone, PartialEq)]
pub struct LkpReportHead {
    pub message_id: String,
    pub section: i64,
    pub kind: String,
    pub kpi: String,
    pub change: String,
    pub commit_sha: String,
    pub base: String,
    pub testcase: String,
    pub machine: String,
    pub subject: String,
    pub mail_date: String,
    /// The subject's bracket before the commit (`mm`, `btrfs`); empty when it has none.
    pub subsystem: String,
    /// The mail's `Date:` in UTC, ISO-8601 (`2025-03-10T12:54:00Z`); empty when unreadable.
    pub sent_at: String,
    /// The KPI row's means, base and tested commit, where the table has the row.
    pub kpi_base: Option<f64>,
    pub kpi_head: Option<f64>,
}

/// A report section to store.
#[derive(Debug, Clone)]
pub struct NewLkpReport {
    pub head: LkpReportHead,
    /// The mail's header facts and the section, as deflated JSON (`services::reports`).
    pub report: Vec<u8>,
    /// Every metric of the section's table.
    pub metrics: Vec<String>,
}

/// A stored report section.
#[derive(Debug, Clone, PartialEq)]
pub struct LkpReportRow {
    pub id: i64,
    pub head: LkpReportHead,
    pub created_at: String,
}

/// Metric names interned per statement (one JSON parameter).
const NAMES_PER_STATEMENT: usize = 2_000;

/// Rows of `lkp_report_metric` per INSERT (two parameters each, well under either engine's
/// limit of parameters).
const PAIRS_PER_STATEMENT: usize = 2_000;

const COLUMNS: &str = "id, message_id, section, kind, kpi, change, commit_sha, base, testcase, machine, subject, mail_date, subsystem, sent_at, kpi_base, kpi_head, created_at";

impl Store {
    /// Stores the sections not stored before (by Message-ID and section): each one's id and
    /// whether it is new, in the order given. One transaction.
    pub async fn insert_lkp_reports(
        &self,
        reports: &[NewLkpReport],
    ) -> StoreResult<Vec<(i64, bool)>> {
        let mut tx = self.writer.begin_write().await?;
        let mut out = Vec::with_capacity(reports.len());
        let mut fresh: Vec<(i64, &Vec<String>)> = Vec::new();
        for r in reports {
            let created: Option<(i64,)> = query_as(sql!(
                "INSERT INTO lkp_report (message_id, section, kind, kpi, change, commit_sha, base, testcase, machine, subject, mail_date, subsystem, sent_at, kpi_base, kpi_head, report) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id"
            ))
            .bind(&r.head.message_id)
            .bind(r.head.section)
            .bind(&r.head.kind)
            .bind(&r.head.kpi)
            .bind(&r.head.change)
            .bind(&r.head.commit_sha)
            .bind(&r.head.base)
            .bind(&r.head.testcase)
            .bind(&r.head.machine)
            .bind(&r.head.subject)
            .bind(&r.head.mail_date)
            .bind(&r.head.subsystem)
            .bind(&r.head.sent_at)
            .bind(r.head.kpi_base)
            .bind(r.head.kpi_head)
            .bind(&r.report)
            .fetch_optional(&mut tx)
            .await?;
            match created {
                Some((id,)) => {
                    fresh.push((id, &r.metrics));
                    out.push((id, true));
                }
                None => {
                    let (id,) = query_as::<(i64,)>(sql!(
                        "SELECT id FROM lkp_report WHERE message_id = ? AND section = ?"
                    ))
                    .bind(&r.head.message_id)
                    .bind(r.head.section)
                    .fetch_one(&mut tx)
                    .await?;
                    out.push((id, false));
                }
            }
        }
        // The new sections' metrics by id: the names interned once for the batch.
        // Distinct first: sorting 300 names a section, most sharing a long prefix, costs more.
        let distinct: HashSet<&str, foldhash::fast::RandomState> = fresh
            .iter()
            .flat_map(|(_, m)| m.iter().map(String::as_str))
            .collect();
        let mut names: Vec<&str> = distinct.into_iter().collect();
        names.sort_unstable();
        let mut ids: HashMap<&str, i64, foldhash::fast::RandomState> = HashMap::default();
        for chunk in names.chunks(NAMES_PER_STATEMENT) {
            let json = serde_json::to_string(chunk).unwrap_or_default();
            query(sql!(
                "INSERT INTO lkp_metric (name) SELECT value FROM {texts} AS t WHERE true ON CONFLICT (name) DO NOTHING"
            ))
            .bind(json.as_str())
            .execute(&mut tx)
            .await?;
            let rows: Vec<(i64, String)> = query_as(sql!(
                "SELECT id, name FROM lkp_metric WHERE name IN {texts}"
            ))
            .bind(json.as_str())
            .fetch_all(&mut tx)
            .await?;
            for (id, name) in rows {
                // `chunk` is sorted (byte order, as `str`'s `Ord`).
                if let Ok(k) = chunk.binary_search(&name.as_str()) {
                    ids.insert(chunk[k], id);
                }
            }
        }
        let mut pairs: Vec<(i64, i64)> = fresh
            .iter()
            .flat_map(|(report, metrics)| {
                metrics
                    .iter()
                    .filter_map(|m| ids.get(m.as_str()).map(|metric| (*metric, *report)))
            })
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        // Many rows a statement: an archive's batch names hundreds of thousands.
        for chunk in pairs.chunks(PAIRS_PER_STATEMENT) {
            let mut b =
                Builder::new("INSERT INTO lkp_report_metric (metric_id, report_id) VALUES ");
            for (k, (metric, report)) in chunk.iter().enumerate() {
                if k > 0 {
                    b.push(", ");
                }
                b.push("(")
                    .push_bind(*metric)
                    .push(", ")
                    .push_bind(*report)
                    .push(")");
            }
            b.build().execute(&mut tx).await?;
        }
        tx.commit().await?;
        Ok(out)
    }

    /// Reports matching a checked `filter` (its commit 7 to 40 hex digits, its days
    /// `YYYY-MM-DD`: `ReportSearch::checked`), newest mail first, at most `limit` after
    /// skipping `offset`.
    pub async fn lkp_reports(
        &self,
        filter: &ReportSearch,
        limit: i64,
        offset: i64,
    ) -> StoreResult<Vec<LkpReportRow>> {
        let mut b = Builder::new(&format!("SELECT {COLUMNS} FROM lkp_report WHERE 1 = 1"));
        let prefix = filter.commit.as_ref().map(|c| format!("{c}%"));
        if let (Some(p), Some(c)) = (&prefix, &filter.commit) {
            // Either names the other by a prefix (a section may name its commits by 10 digits).
            b.push(" AND (commit_sha LIKE ").push_bind(p.as_str());
            b.push(" OR base LIKE ").push_bind(p.as_str());
            b.push(" OR (LENGTH(commit_sha) >= 7 AND ")
                .push_bind(c.as_str())
                .push(" LIKE commit_sha || '%')");
            b.push(" OR (LENGTH(base) >= 7 AND ")
                .push_bind(c.as_str())
                .push(" LIKE base || '%'))");
        }
        for (column, value) in [
            ("testcase", &filter.testcase),
            ("kpi", &filter.kpi),
            ("subsystem", &filter.subsystem),
            ("machine", &filter.machine),
        ] {
            if let Some(v) = value {
                b.push(" AND ")
                    .push(column)
                    .push(" = ")
                    .push_bind(v.as_str());
            }
        }
        if let Some(m) = &filter.metric {
            // Row by row through the index (metric, report), so that the newest matches
            // come first without collecting every report of a common metric.
            b.push(
                " AND EXISTS (SELECT 1 FROM lkp_report_metric r WHERE r.report_id = lkp_report.id \
                 AND r.metric_id = (SELECT id FROM lkp_metric WHERE name = ",
            )
            .push_bind(m.as_str())
            .push("))");
        }
        if let Some(d) = &filter.since {
            b.push(" AND sent_at >= ").push_bind(d.as_str());
        }
        // Before the day after: every time of that day sorts below `DAY~`.
        let until = filter.until.as_ref().map(|d| format!("{d}~"));
        if let Some(d) = &until {
            b.push(" AND sent_at < ").push_bind(d.as_str());
        }
        b.push(" ORDER BY sent_at DESC, id DESC LIMIT ")
            .push_bind(limit)
            .push(" OFFSET ")
            .push_bind(offset);
        let rows = b.build().fetch_all(&self.reader).await?;
        Ok(rows.iter().map(row).collect())
    }

    /// The reports of `testcase` whose KPI is `kpi`, oldest mail first (at most `limit`, the
    /// newest kept): the KPI's trend over the robot's reports.
    pub async fn lkp_report_trend(
        &self,
        testcase: &str,
        kpi: &str,
        limit: i64,
    ) -> StoreResult<Vec<LkpReportRow>> {
        let mut b = Builder::new(&format!(
            "SELECT {COLUMNS} FROM lkp_report WHERE testcase = ? AND kpi = ? \
             ORDER BY sent_at DESC, id DESC LIMIT ?"
        ));
        b.push_arg(testcase).push_arg(kpi).push_arg(limit);
        let rows = b.build().fetch_all(&self.reader).await?;
        let mut out: Vec<LkpReportRow> = rows.iter().map(row).collect();
        out.reverse();
        Ok(out)
    }

    /// One report: its row and its JSON.
    pub async fn lkp_report(&self, id: i64) -> StoreResult<Option<(LkpReportRow, Vec<u8>)>> {
        let r = query(sql!(
            "SELECT id, message_id, section, kind, kpi, change, commit_sha, base, testcase, machine, subject, mail_date, subsystem, sent_at, kpi_base, kpi_head, created_at, report \
             FROM lkp_report WHERE id = ?"
        ))
        .bind(id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(r.map(|r| (row(&r), r.get(17))))
    }
}

fn row(r: &super::sql::Row) -> LkpReportRow {
    LkpReportRow {
        id: r.get(0),
        head: LkpReportHead {
            message_id: r.get(1),
            section: r.get::<i64, _>(2),
            kind: r.get(3),
            kpi: r.get(4),
            change: r.get(5),
            commit_sha: r.get(6),
            base: r.get(7),
            testcase: r.get(8),
            machine: r.get(9),
            subject: r.get(10),
            mail_date: r.get(11),
            subsystem: r.get(12),
            sent_at: r.get(13),
            kpi_base: r.get(14),
            kpi_head: r.get(15),
        },
        created_at: r.get(16),
    }
}

/// An alert summary at a commit: (id, benchmark, machine, good sha, bad sha, status,
/// regressions, improvements, worst %).
pub type AlertAtCommit = (i64, String, String, String, String, String, i64, i64, f64);

/// At most this many (benchmark, machine, commit) groups of lab runs beside a report.
const MAX_LAB_GROUPS: i64 = 200;
/// At most this many of Perfline's alert summaries beside a report.
const MAX_LAB_ALERTS: i64 = 50;

impl Store {
    /// The lab's runs at commits named by these prefixes (hex, at least 7 digits: the caller
    /// checks): (benchmark, machine, commit, runs), most runs first.
    pub async fn runs_at_commits(
        &self,
        prefixes: &[String],
    ) -> StoreResult<Vec<(String, String, String, i64)>> {
        if prefixes.is_empty() {
            return Ok(Vec::new());
        }
        let mut b = Builder::new(
            "SELECT r.benchmark, m.name, r.commit_sha, COUNT(*) FROM run r \
             JOIN machine m ON m.id = r.machine_id WHERE ",
        );
        for (i, p) in prefixes.iter().enumerate() {
            if i > 0 {
                b.push(" OR ");
            }
            // Either names the other by a prefix: a robot may upload `01d37228d3`.
            b.push("(r.commit_sha LIKE ")
                .push_bind(format!("{p}%"))
                .push(" OR (LENGTH(r.commit_sha) >= 7 AND ")
                .push_bind(p.as_str())
                .push(" LIKE r.commit_sha || '%'))");
        }
        b.push(" GROUP BY r.benchmark, m.name, r.commit_sha ORDER BY COUNT(*) DESC, r.benchmark, m.name LIMIT ")
            .push_bind(MAX_LAB_GROUPS);
        b.build_query_as().fetch_all(&self.reader).await
    }

    /// Perfline's alert summaries whose first bad commit `prefix` names (hex, at least 7
    /// digits), newest first: (id, benchmark, machine, good sha, bad sha, status,
    /// regressions, improvements, worst %).
    pub async fn alerts_at_commit(&self, prefix: &str) -> StoreResult<Vec<AlertAtCommit>> {
        query_as(sql!(
            "SELECT id, benchmark, machine, good_sha, bad_sha, status, regressions, improvements, worst_pct \
             FROM alert_summary WHERE bad_sha LIKE ? OR (LENGTH(bad_sha) >= 7 AND ? LIKE bad_sha || '%') \
             ORDER BY id DESC LIMIT ?"
        ))
        .bind(format!("{prefix}%"))
        .bind(prefix)
        .bind(MAX_LAB_ALERTS)
        .fetch_all(&self.reader)
        .await
    }
}
