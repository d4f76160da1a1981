// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel test robot's report mails (issue 56): a mail, a pasted body or an mbox is
//! stored as its report sections ([`Services::store_mails`]), one row per section with its
//! cells (`ingest::lkp_mail`), known by Message-ID and section so that the same mail twice
//! stores nothing new; read back by filter and by id.

use serde::{Deserialize, Serialize};

use super::{ServiceError, ServiceResult, Services};
use crate::ingest::lkp_mail::{self, Block, Report, Section};
use crate::store::{LkpReportFilter, LkpReportHead, LkpReportRow, NewLkpReport};

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
    fn from(LkpReportRow { id, head: r, .. }: LkpReportRow) -> Self {
        ReportEntry {
            lore: format!("https://lore.kernel.org/r/{}", r.message_id),
            id,
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
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredReport {
    pub headline_kpi: String,
    pub headline_change: String,
    pub commit_subject: Option<String>,
    pub parameters: Vec<(String, String)>,
    pub notes: Vec<String>,
    pub section: Section,
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
            let stored = StoredReport {
                headline_kpi: report.kpi.clone(),
                headline_change: report.change.clone(),
                commit_subject: report.commit_subject.clone(),
                parameters: report.parameters.clone(),
                notes: report.notes.clone(),
                section: s.clone(),
            };
            NewLkpReport {
                head: LkpReportHead {
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
                },
                report: deflate(&serde_json::to_vec(&stored).unwrap_or_default()),
                metrics,
            }
        })
        .collect()
}

impl Services {
    /// Stores the reports of the uploaded files (mails, pasted bodies or mboxes): every mail
    /// that parses, whatever the others do; the sections stored before are answered as they
    /// are. Invalid when no mail is a report.
    pub async fn store_mails(&self, files: &[bytes::Bytes]) -> ServiceResult<MailsStored> {
        let mut new_reports = Vec::new();
        let mut refused = Vec::new();
        let mut n = 0;
        for file in files {
            for raw in lkp_mail::split_mbox(file) {
                let index = n;
                n += 1;
                if n > MAX_MAILS {
                    return Err(ServiceError::Invalid(format!(
                        "more than {MAX_MAILS} mails in one upload: use perfline import-mail"
                    )));
                }
                match read_mail(raw) {
                    Ok((mail, id, report)) => new_reports.extend(sections_of(&mail, &id, &report)),
                    Err((message_id, reason)) => refused.push(RefusedMail {
                        mail: index,
                        message_id,
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
            return Err(ServiceError::Invalid(format!(
                "no LKP report in the upload: {why}"
            )));
        }
        let ids = self.store.insert_lkp_reports(&new_reports).await?;
        let new = ids.iter().filter(|(_, fresh)| *fresh).count();
        let reports = new_reports
            .into_iter()
            .zip(&ids)
            .map(|(r, (id, _))| {
                ReportEntry::from(LkpReportRow {
                    id: *id,
                    head: r.head,
                    created_at: String::new(),
                })
            })
            .collect();
        Ok(MailsStored {
            reports,
            new,
            refused,
        })
    }

    /// The stored reports `filter` asks for, newest first.
    pub async fn lkp_reports(&self, filter: &LkpReportFilter) -> ServiceResult<Vec<ReportEntry>> {
        let rows = self.store.lkp_reports(filter).await?;
        Ok(rows.into_iter().map(ReportEntry::from).collect())
    }

    /// One stored report section with its mail's facts.
    pub async fn lkp_report(&self, id: i64) -> ServiceResult<(ReportEntry, StoredReport)> {
        let Some((row, json)) = self.store.lkp_report(id).await? else {
            return Err(ServiceError::NotFound(format!("no report {id}")));
        };
        let json = inflate(&json).map_err(|e| {
            ServiceError::Internal(anyhow::anyhow!("report {id} is stored corrupt: {e}"))
        })?;
        let stored: StoredReport = serde_json::from_slice(&json).map_err(|e| {
            ServiceError::Internal(anyhow::anyhow!("report {id} is stored corrupt: {e}"))
        })?;
        Ok((ReportEntry::from(row), stored))
    }
}

/// Deflates a report's JSON (zlib, fast level: its tables repeat themselves).
fn deflate(json: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing to a Vec cannot fail.
    let _ = z.write_all(json);
    z.finish().unwrap_or_default()
}

/// A stored report's JSON, at most 64 MiB of it.
fn inflate(stored: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(stored)
        .take(64 << 20)
        .read_to_end(&mut out)?;
    Ok(out)
}

/// The report sections of one mail's bytes, to store; or why it is none.
pub fn reports_of_mail(raw: &[u8]) -> Result<Vec<NewLkpReport>, String> {
    let (mail, id, report) = read_mail(raw).map_err(|(_, reason)| reason)?;
    Ok(sections_of(&mail, &id, &report))
}

/// One mail's bytes: the mail, the id it is known by, its report; or why it is none. A pasted
/// body (no headers) is its own mail, known by its digest. A refusal carries the mail's
/// Message-ID where it has one.
fn read_mail(raw: &[u8]) -> Result<(lkp_mail::Mail, String, Report), (Option<String>, String)> {
    let pasted = !raw.iter().take_while(|b| **b != b'\n').any(|b| *b == b':');
    let mail = if pasted {
        lkp_mail::Mail {
            message_id: None,
            subject: None,
            date: None,
            from: None,
            body: String::from_utf8_lossy(raw).into_owned(),
        }
    } else {
        lkp_mail::decode(raw).map_err(|reason| (None, reason))?
    };
    // (`parse_report` reads lines, so CRLF bodies need no copy.)
    let report =
        lkp_mail::parse_report(&mail.body).map_err(|reason| (mail.message_id.clone(), reason))?;
    let id = mail.message_id.clone().unwrap_or_else(|| {
        use sha2::Digest as _;
        format!(
            "sha256:{}",
            hex::encode(sha2::Sha256::digest(mail.body.as_bytes()))
        )
    });
    Ok((mail, id, report))
}
