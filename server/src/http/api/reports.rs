// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel test robot's report mails (issue 56): a mail, a pasted body or an mbox posted
//! to `POST /api/v1/upload` is stored as its report sections ([`store_mails`]);
//! `GET /api/v1/reports` lists them and `GET /api/v1/reports/{id}` shows one, as JSON or, with
//! `format=text`, as the mail prints its table.

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

use crate::http::error::{ApiError, ApiResult};
use crate::ingest::lkp_mail::{self, Block, Report, Section};
use crate::store::{LkpReportFilter, LkpReportRow, NewLkpReport};
use crate::AppState;

/// At most this many mails in one upload (an mbox); the rest of an archive is
/// `perfline import-mail`'s.
pub const MAX_MAILS: usize = 10_000;

/// Whether bytes are a robot's report mail (or several), by their content.
pub fn is_mail(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4 << 20)];
    let has = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
    has(b"noticed a ") && (has(b"regression of ") || has(b"improvement of ")) && has(b"%stddev")
}

/// One stored section, as the upload and the list answer it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ReportEntry {
    pub id: i64,
    pub message_id: String,
    /// The tested commit and the base, as the section's `commit:` block names them (the
    /// tested commit in full where the mail's header gives it).
    pub commit: String,
    pub base: String,
    pub testcase: String,
    pub machine: String,
    pub kpi: String,
    /// As the mail prints it, e.g. `-6.1%`.
    pub change: String,
    /// `regression` or `improvement`.
    pub kind: String,
    pub subject: String,
    pub date: String,
    /// `https://lore.kernel.org/r/<Message-ID>`.
    pub lore: String,
}

impl From<LkpReportRow> for ReportEntry {
    fn from(r: LkpReportRow) -> Self {
        ReportEntry {
            lore: format!("https://lore.kernel.org/r/{}", r.message_id),
            id: r.id,
            message_id: r.message_id,
            commit: r.commit_sha,
            base: r.base,
            testcase: r.testcase,
            machine: r.machine,
            kpi: r.kpi,
            change: r.change,
            kind: r.kind,
            subject: r.subject,
            date: r.mail_date,
        }
    }
}

/// A mail of an upload that is not stored, and why.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RefusedMail {
    /// Its place in the upload (0 = first).
    pub mail: usize,
    pub message_id: Option<String>,
    pub reason: String,
}

/// The answer to an upload of mails.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MailsStored {
    pub reports: Vec<ReportEntry>,
    /// How many of `reports` were new.
    pub new: usize,
    pub refused: Vec<RefusedMail>,
}

/// The JSON kept per section: the mail's header facts and the section.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    headline_kpi: String,
    headline_change: String,
    commit_subject: Option<String>,
    parameters: Vec<(String, String)>,
    notes: Vec<String>,
    section: Section,
}

/// The report sections of `report`, to store.
fn sections_of(mail: &lkp_mail::Mail, message_id: &str, report: &Report) -> Vec<NewLkpReport> {
    report
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // The first section is the headline's; the others are the box's, in order.
            let also = i.checked_sub(1).and_then(|k| report.also.get(k));
            let (kpi, change, kind) = match also {
                Some(a) => (a.kpi.clone(), a.change.clone(), a.kind),
                None => (report.kpi.clone(), report.change.clone(), report.kind),
            };
            let head = s.commits.last().map_or("", |c| c.id.as_str());
            // The header's commit in full when the section names it by a prefix.
            let commit = if report.commit.starts_with(head) && !head.is_empty() {
                report.commit.clone()
            } else {
                head.to_owned()
            };
            let metrics = s
                .blocks
                .iter()
                .flat_map(|b| match b {
                    Block::Perf(rows) => rows.iter().map(|r| r.metric.clone()).collect::<Vec<_>>(),
                    Block::Failure(rows) => rows.iter().map(|r| r.metric.clone()).collect(),
                })
                .collect();
            let stored = Stored {
                headline_kpi: report.kpi.clone(),
                headline_change: report.change.clone(),
                commit_subject: report.commit_subject.clone(),
                parameters: report.parameters.clone(),
                notes: report.notes.clone(),
                section: s.clone(),
            };
            NewLkpReport {
                message_id: message_id.to_owned(),
                section: i as i64,
                kind: kind.as_str().to_owned(),
                kpi,
                change,
                commit_sha: commit,
                base: s.commits.first().map(|c| c.id.clone()).unwrap_or_default(),
                testcase: s.testcase().unwrap_or(&report.testcase).to_owned(),
                machine: s.axis("tbox_group").unwrap_or("").to_owned(),
                subject: mail.subject.clone().unwrap_or_default(),
                mail_date: mail.date.clone().unwrap_or_default(),
                report: serde_json::to_string(&stored).unwrap_or_default(),
                metrics,
            }
        })
        .collect()
}

/// Stores the reports of the uploaded files (mails, pasted bodies or mboxes): every mail that
/// parses, whatever the others do. 201 when something new was stored, 200 when all of it
/// was stored before, 422 when no mail was a report.
pub async fn store_mails(
    state: &AppState,
    files: &[bytes::Bytes],
    text: bool,
) -> ApiResult<Response> {
    let mut new_reports = Vec::new();
    let mut refused = Vec::new();
    let mut n = 0;
    for file in files {
        for raw in lkp_mail::split_mbox(file) {
            let index = n;
            n += 1;
            if n > MAX_MAILS {
                return Err(ApiError::BadRequest(format!(
                    "more than {MAX_MAILS} mails in one upload: use perfline import-mail"
                )));
            }
            // A pasted body has no headers: it is its own mail, known by its digest.
            let pasted = !raw.iter().take_while(|b| **b != b'\n').any(|b| *b == b':');
            let mail = if pasted {
                Ok(lkp_mail::Mail {
                    message_id: None,
                    subject: None,
                    date: None,
                    from: None,
                    body: String::from_utf8_lossy(raw).into_owned(),
                })
            } else {
                lkp_mail::decode(raw)
            };
            let outcome = mail.and_then(|m| {
                lkp_mail::parse_report(&m.body.replace("\r\n", "\n")).map(|r| (m, r))
            });
            match outcome {
                Ok((mail, report)) => {
                    let id = mail.message_id.clone().unwrap_or_else(|| {
                        use sha2::Digest as _;
                        format!(
                            "sha256:{}",
                            hex::encode(sha2::Sha256::digest(mail.body.as_bytes()))
                        )
                    });
                    new_reports.extend(sections_of(&mail, &id, &report));
                }
                Err(reason) => refused.push(RefusedMail {
                    mail: index,
                    message_id: lkp_mail::decode(raw).ok().and_then(|m| m.message_id),
                    reason,
                }),
            }
        }
    }
    if new_reports.is_empty() {
        let why = refused
            .iter()
            .map(|r| format!("mail {}: {}", r.mail, r.reason))
            .collect::<Vec<_>>()
            .join("; ");
        return Err(ApiError::BadRequest(format!(
            "no LKP report in the upload: {why}"
        )));
    }
    let ids = state.store.insert_lkp_reports(&new_reports).await?;
    let new = ids.iter().filter(|(_, fresh)| *fresh).count();
    let reports = new_reports
        .into_iter()
        .zip(&ids)
        .map(|(r, (id, _))| {
            ReportEntry::from(LkpReportRow {
                id: *id,
                message_id: r.message_id,
                section: r.section,
                kind: r.kind,
                kpi: r.kpi,
                change: r.change,
                commit_sha: r.commit_sha,
                base: r.base,
                testcase: r.testcase,
                machine: r.machine,
                subject: r.subject,
                mail_date: r.mail_date,
                created_at: String::new(),
            })
        })
        .collect();
    let status = if new > 0 {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let answer = MailsStored {
        reports,
        new,
        refused,
    };
    if text {
        return Ok((
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text_summary(&answer),
        )
            .into_response());
    }
    Ok((status, Json(answer)).into_response())
}

/// The answer to `perfline upload` (`Accept: text/plain`): a line per report, a line per
/// refused mail.
fn text_summary(a: &MailsStored) -> String {
    let mut out = format!("{} LKP report(s), {} new\n", a.reports.len(), a.new);
    for r in &a.reports {
        out.push_str(&format!(
            "  report {}  {} {} of {}  {} on {}  {}..{}  {}\n",
            r.id, r.change, r.kind, r.kpi, r.testcase, r.machine, r.base, r.commit, r.lore
        ));
    }
    for r in &a.refused {
        out.push_str(&format!("  mail {} refused: {}\n", r.mail, r.reason));
    }
    out
}

/// `GET /api/v1/reports` filters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ReportQuery {
    /// A prefix of the tested or base commit (7 to 40 hex digits).
    pub commit: Option<String>,
    pub testcase: Option<String>,
    /// A metric the report's table names.
    pub metric: Option<String>,
    /// At most this many (default 100, at most 1,000).
    pub limit: Option<i64>,
}

/// `GET /api/v1/reports`: the stored robot reports, newest first.
#[utoipa::path(get, path = "/reports", tag = "reports", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(ReportQuery),
    responses((status = 200, description = "`{reports: [...]}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn list(
    State(state): State<AppState>,
    Query(q): Query<ReportQuery>,
) -> ApiResult<Json<serde_json::Value>> {
    if let Some(c) = &q.commit {
        if !(7..=40).contains(&c.len()) || !c.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ApiError::BadRequest(
                "commit must be 7 to 40 hex digits".into(),
            ));
        }
    }
    for (name, v) in [("testcase", &q.testcase), ("metric", &q.metric)] {
        if v.as_ref().is_some_and(|v| v.is_empty() || v.len() > 500) {
            return Err(ApiError::BadRequest(format!(
                "{name} must be 1 to 500 characters"
            )));
        }
    }
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::BadRequest(
            "limit must be between 1 and 1000".into(),
        ));
    }
    let rows = state
        .store
        .lkp_reports(&LkpReportFilter {
            commit: q.commit.map(|c| c.to_ascii_lowercase()),
            testcase: q.testcase,
            metric: q.metric,
            limit,
        })
        .await?;
    let reports: Vec<ReportEntry> = rows.into_iter().map(ReportEntry::from).collect();
    Ok(Json(serde_json::json!({ "reports": reports })))
}

/// `GET /api/v1/reports/{id}` options.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ShowQuery {
    /// `text`: the section's tables as the mail prints them.
    pub format: Option<String>,
}

/// `GET /api/v1/reports/{id}`: one report section, as JSON (its cells) or as text.
#[utoipa::path(get, path = "/reports/{id}", tag = "reports", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = i64, Path, description = "The report section"), ShowQuery),
    responses((status = 200, description = "The report, or its text", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<i64>,
    Query(q): Query<ShowQuery>,
) -> ApiResult<Response> {
    let Some((row, json)) = state.store.lkp_report(id).await? else {
        return Err(ApiError::NotFound(format!("no report {id}")));
    };
    let stored: Stored = serde_json::from_str(&json)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("report {id} is stored corrupt: {e}")))?;
    match q.format.as_deref() {
        Some("text") => Ok((
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            stored.section.text(),
        )
            .into_response()),
        None | Some("json") => Ok(Json(serde_json::json!({
            "report": ReportEntry::from(row),
            "parameters": stored.parameters,
            "notes": stored.notes,
            "commit_subject": stored.commit_subject,
            "section": stored.section,
        }))
        .into_response()),
        Some(other) => Err(ApiError::BadRequest(format!(
            "format must be json or text, not {other:?}"
        ))),
    }
}
