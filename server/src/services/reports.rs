// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel test robot's report mails (issue 56): a mail, a pasted body or an mbox is
//! stored as its report sections ([`Services::store_mails`]), one row per section with its
//! cells (`ingest::lkp_mail`), known by Message-ID and section so that the same mail twice
//! stores nothing new; read back by filter and by id.

use serde::{Deserialize, Serialize};

use super::{ServiceError, ServiceResult, Services};
use crate::ingest::lkp_mail::{self, Block, Report, Section};
use app::reports::{
    self, CommitPage, KpiTrend, LabAlert, LabBeside, LabRuns, ReportDetail, ReportList,
    ReportSearch,
};

use crate::store::{LkpReportHead, LkpReportRow, NewLkpReport};

/// At most this many mails in one upload (an mbox); the rest of an archive is
/// `perfline import-mail`'s.
pub const MAX_MAILS: usize = 10_000;

/// Whether bytes are a robot's report mail (or several), by their content.
pub fn is_mail(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4 << 20)];
    let has = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
    has(b"noticed a ") && (has(b"regression of ") || has(b"improvement of ")) && has(b"%stddev")
}

pub use app::reports::{MailsStored, RefusedMail, ReportEntry};

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
            sent_at: r.sent_at,
            subsystem: r.subsystem,
            kpi_base: r.kpi_base,
            kpi_head: r.kpi_head,
        }
    }
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
    /// The bisection's samples from the mail's plots: the headline's section only.
    #[serde(default)]
    pub plots: Vec<lkp_mail::BisectSamples>,
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
            // The KPI's row: its first column is the base, its last the tested commit.
            let (kpi_base, kpi_head) = s
                .blocks
                .iter()
                .find_map(|b| match b {
                    Block::Perf(rows) => rows.iter().find(|r| r.metric == kpi),
                    Block::Failure(_) => None,
                })
                .map_or((None, None), |r| {
                    (
                        r.cells.first().and_then(lkp_mail::PerfCell::mean),
                        r.cells.last().and_then(lkp_mail::PerfCell::mean),
                    )
                });
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
                plots: if i == 0 {
                    report.plots.clone()
                } else {
                    Vec::new()
                },
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
                    subsystem: mail.subject.as_deref().map(subsystem).unwrap_or_default(),
                    sent_at: mail.date.as_deref().map(sent_at).unwrap_or_default(),
                    kpi_base,
                    kpi_head,
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
    ///
    /// The samples of a report's ASCII plots are also stored as runs ([`plot_uploads`]), as
    /// `actor`, marked bisect-good and bisect-bad when `may_mark` (the mark scope); without
    /// it the answer notes that they were not.
    pub async fn store_mails(
        &self,
        files: &[bytes::Bytes],
        actor: &str,
        may_mark: bool,
    ) -> ServiceResult<MailsStored> {
        let mut new_reports = Vec::new();
        let mut refused = Vec::new();
        let mut plots = Vec::new();
        let mut notes = Vec::new();
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
                    Ok((mail, id, report)) => {
                        let sections = sections_of(&mail, &id, &report);
                        if report.plots.is_empty() {
                        } else if !may_mark {
                            notes.push(format!("mail {index}: its plots' samples are not stored as runs: marking them bisect-good and bad needs the mark scope"));
                        } else {
                            match plots_of(&sections, &report) {
                                Ok(uploads) => plots.extend(uploads),
                                Err(why) => notes.push(format!("mail {index}: {why}")),
                            }
                        }
                        new_reports.extend(sections);
                    }
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
        // The plots' runs after their reports: a retry after a failure here stores what is
        // missing (both are known by their content).
        let mut plot_ids = Vec::new();
        for (meta, files) in plots {
            let uploaded = self.upload(meta, files, actor, false).await?;
            plot_ids.push(uploaded.answer.upload.id);
        }
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
            plot_uploads: plot_ids,
            notes,
        })
    }

    /// A page of the stored reports a (checked) search asks for, newest first.
    pub async fn report_list(&self, search: ReportSearch) -> ServiceResult<ReportList> {
        let limit = search.limit.unwrap_or(reports::DEFAULT_LIMIT);
        let mut rows = self
            .store
            // One more, to know whether there are more.
            .lkp_reports(&search, limit + 1, search.offset.unwrap_or(0))
            .await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(ReportList {
            search,
            reports: rows.into_iter().map(ReportEntry::from).collect(),
            more,
        })
    }

    /// One report section with what its page links to: the reports that named its commits,
    /// its KPI over the reports, and what the lab's own uploads have of its commits.
    pub async fn report_detail(&self, id: i64) -> ServiceResult<ReportDetail> {
        let (entry, stored) = self.lkp_report(id).await?;
        let mut related = Vec::new();
        for c in [&entry.commit, &entry.base] {
            if !is_commit(c) {
                continue;
            }
            let rows = self.store.lkp_reports(&by_commit(c), 100, 0).await?;
            for r in rows {
                if r.id != id && !related.iter().any(|e: &ReportEntry| e.id == r.id) {
                    related.push(ReportEntry::from(r));
                }
            }
        }
        related.sort_by(|a, b| (&b.sent_at, b.id).cmp(&(&a.sent_at, a.id)));
        let trend = self
            .store
            .lkp_report_trend(&entry.testcase, &entry.kpi, reports::TREND_REPORTS)
            .await?
            .into_iter()
            .map(ReportEntry::from)
            .collect();
        let mut lab = self.lab_beside(&[&entry.commit, &entry.base]).await?;
        let benchmark = plot_benchmark(&entry.testcase);
        let stored_as_runs = lab
            .take_plot_runs()
            .iter()
            .any(|r| r.benchmark == benchmark && r.machine == entry.machine);
        let plot_trends = if stored_as_runs {
            let param = plot_param(&stored.section);
            stored
                .plots
                .iter()
                .map(|p| {
                    let href = format!(
                        "/trend?benchmark={}&machine={}&metric={}&param={}",
                        app::url::encode(&benchmark),
                        app::url::encode(&entry.machine),
                        app::url::encode(&p.metric),
                        app::url::encode(&param)
                    );
                    (p.metric.clone(), href)
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(ReportDetail {
            plot_trends,
            headline_kpi: stored.headline_kpi,
            headline_change: stored.headline_change,
            commits: stored
                .section
                .commits
                .iter()
                .map(|c| (c.id.clone(), c.subject.clone()))
                .collect(),
            parameters: stored.parameters,
            notes: stored.notes,
            plots: stored.plots,
            text: stored.section.text(),
            entry,
            related,
            trend,
            lab,
        })
    }

    /// `/commits/{sha}`: every report that named the commit (tested, or as the base), and
    /// what the lab has of it.
    pub async fn commit_page(&self, commit: &str) -> ServiceResult<CommitPage> {
        if !is_commit(commit) {
            return Err(ServiceError::Invalid(
                "a commit is 7 to 40 hex digits".into(),
            ));
        }
        let commit = commit.to_ascii_lowercase();
        let rows = self
            .store
            .lkp_reports(&by_commit(&commit), reports::MAX_LIMIT, 0)
            .await?;
        let (tested, base_of): (Vec<ReportEntry>, Vec<ReportEntry>) = rows
            .into_iter()
            .map(ReportEntry::from)
            .partition(|r| reports::prefix_match(&r.commit, &commit));
        let mut subject = None;
        if let Some(first) = tested.first().or(base_of.first()) {
            let (_, stored) = self.lkp_report(first.id).await?;
            subject = stored
                .section
                .commits
                .iter()
                .find(|c| reports::prefix_match(&c.id, &commit))
                .and_then(|c| c.subject.clone())
                .or(stored.commit_subject.filter(|_| !tested.is_empty()));
        }
        // The KPIs the robot named at this commit, each over its testcase's reports.
        let mut trends: Vec<KpiTrend> = Vec::new();
        for r in &tested {
            if trends.len() == reports::COMMIT_TRENDS {
                break;
            }
            if trends
                .iter()
                .any(|t| t.testcase == r.testcase && t.kpi == r.kpi)
            {
                continue;
            }
            let reports = self
                .store
                .lkp_report_trend(&r.testcase, &r.kpi, reports::TREND_REPORTS)
                .await?
                .into_iter()
                .map(ReportEntry::from)
                .collect();
            trends.push(KpiTrend {
                testcase: r.testcase.clone(),
                kpi: r.kpi.clone(),
                this: r.id,
                reports,
            });
        }
        let mut lab = self.lab_beside(&[&commit]).await?;
        lab.take_plot_runs();
        Ok(CommitPage {
            commit,
            subject,
            tested,
            base_of,
            trends,
            lab,
        })
    }

    /// The lab's runs at these commits and Perfline's alerts whose first bad commit is the
    /// first of them.
    async fn lab_beside(&self, commits: &[&String]) -> ServiceResult<LabBeside> {
        let hex: Vec<String> = commits
            .iter()
            .filter(|c| is_commit(c))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let runs = self
            .store
            .runs_at_commits(&hex)
            .await?
            .into_iter()
            .map(|(benchmark, machine, commit, runs)| LabRuns {
                benchmark,
                machine,
                commit,
                runs,
            })
            .collect();
        let alerts = match commits.first().filter(|c| is_commit(c)) {
            None => Vec::new(),
            Some(head) => self
                .store
                .alerts_at_commit(&head.to_ascii_lowercase())
                .await?
                .into_iter()
                .map(
                    |(
                        id,
                        benchmark,
                        machine,
                        good_sha,
                        bad_sha,
                        status,
                        regressions,
                        improvements,
                        worst_pct,
                    )| {
                        LabAlert {
                            id,
                            benchmark,
                            machine,
                            good_sha,
                            bad_sha,
                            status,
                            regressions,
                            improvements,
                            worst_pct,
                        }
                    },
                )
                .collect(),
        };
        Ok(LabBeside { runs, alerts })
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

/// The search for the reports naming a commit (checked: `is_commit`).
fn by_commit(commit: &str) -> ReportSearch {
    ReportSearch {
        commit: Some(commit.to_ascii_lowercase()),
        ..ReportSearch::default()
    }
}

/// A commit as the searches take it: 7 to 40 hex digits (a base may be a tag, `v6.8-rc1`).
fn is_commit(c: &str) -> bool {
    (7..=40).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The subsystem a robot's subject names: the bracket just before the commit
/// (`[linus:master] [mm/slub]  3bd4fe..: ...` → `mm/slub`, `[xfs]  490d45..: ...` → `xfs`);
/// for a reply to a patch, what its subject names before the first colon
/// (`Re: [PATCH 07/16] btrfs: Lock ...` → `btrfs`). Empty when neither.
pub fn subsystem(subject: &str) -> String {
    let subject = subject.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut rest = subject.as_str();
    // Reply prefixes, then the brackets in order.
    while let Some(r) = rest
        .strip_prefix("Re: ")
        .or_else(|| rest.strip_prefix("RE: "))
    {
        rest = r;
    }
    let mut brackets = Vec::new();
    while let Some(r) = rest.strip_prefix('[') {
        let Some((inside, after)) = r.split_once(']') else {
            break;
        };
        brackets.push(inside);
        rest = after.trim_start();
    }
    let patch = brackets
        .iter()
        .any(|b| b.starts_with("PATCH") || b.starts_with("RFC"));
    if patch {
        return rest
            .split_once(':')
            .map(|(s, _)| s.trim())
            .filter(|s| !s.is_empty() && !s.contains(' '))
            .unwrap_or("")
            .to_owned();
    }
    // `[tree:branch]` names the tree; the subsystem is the last bracket without a colon.
    brackets
        .iter()
        .rev()
        .find(|b| !b.contains(':') && !b.is_empty())
        .map(|b| (*b).to_owned())
        .unwrap_or_default()
}

/// A mail's `Date:` as ISO-8601 in UTC; empty when it does not parse.
fn sent_at(date: &str) -> String {
    mailparse::dateparse(date)
        .ok()
        .and_then(|secs| secs.checked_mul(1000))
        .map(app::text::utc_seconds)
        .unwrap_or_default()
}

/// The benchmark the samples of a report's plots are runs of: the testcase's, apart from
/// the lab's own measured runs of it (they are values read off a text plot).
pub fn plot_benchmark(testcase: &str) -> String {
    format!("{}{testcase}", reports::PLOT_BENCHMARK_PREFIX)
}

/// The axes that are the run's benchmark and machine, not its parameter.
const NOT_PARAM: [&str; 2] = ["testcase", "tbox_group"];

/// The parameter of a report's plotted runs: its section's axes other than the testcase and
/// the machine, `key=value` in the mail's order, so that two setups of a testcase on one
/// machine are two series.
fn plot_param(section: &Section) -> String {
    let mut out = String::new();
    for (k, v) in section
        .axis_keys
        .split('/')
        .zip(section.axis_values.split('/'))
        .filter(|(k, _)| !NOT_PARAM.contains(k))
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(k);
        out.push('=');
        out.push_str(v);
    }
    // A parameter is at most 200 characters: a longer one keeps its head and a digest of all.
    if out.chars().count() > app::label::LABEL_MAX_CHARS {
        use sha2::Digest as _;
        let digest = hex::encode(sha2::Sha256::digest(out.as_bytes()));
        let head: String = out.chars().take(180).collect();
        out = format!("{head} #{}", app::text::head(&digest, 12));
    }
    out
}

/// The upload that holds a report's plots as runs of [`plot_benchmark`] on its machine: the
/// bisect-good samples as a run at the base commit, marked good, and the bisect-bad ones as
/// a run at the tested commit, marked bad; from a CSV Perfline writes from the plots (stored
/// as the upload's file, naming the mail's Message-ID). Their content is their identity, so the
/// same mail twice stores nothing new. Why not, when the report has no machine or commits to put them at.
pub fn plot_uploads(head: &LkpReportHead, report: &Report) -> Result<PlotUploads, String> {
    use app::trend::Mark;
    let Some(section) = report.sections.first() else {
        return Ok(Vec::new());
    };
    if head.machine.is_empty() || head.testcase.is_empty() {
        return Err("its plots' samples are not stored as runs: the report names no machine (tbox_group) or testcase".into());
    }
    let param = plot_param(section);
    // A CSV cell: what would need quoting is left out.
    let plain = |t: &str| !t.contains([',', '"', '\n', '\r']);
    if !plain(&param) {
        return Err(
            "its plots' samples are not stored as runs: its parameters hold a comma or a quote"
                .into(),
        );
    }
    // The mail it came from, in a comment: each mail's plots are an upload of their own.
    let mut csv = format!(
        "# the bisect-good samples of the plots of mail {} at its base, the bisect-bad ones at its tested commit\nkernel,commit,metric,param,iteration,value\n",
        head.message_id.replace(['\n', '\r'], " ")
    );
    let before = csv.len();
    let mut kernel_marks = Vec::new();
    for (mark, commit) in [(Mark::Good, &head.base), (Mark::Bad, &head.commit_sha)] {
        if commit.is_empty() || !plain(commit) {
            continue;
        }
        // A tag (`v6.14-rc4`) is the kernel's name only; a hash is the commit too.
        let sha = if app::label::CommitSha::parse(commit).is_ok() {
            commit.as_str()
        } else {
            ""
        };
        let at = csv.len();
        for p in report.plots.iter().filter(|p| plain(&p.metric)) {
            let values = if mark == Mark::Good { &p.good } else { &p.bad };
            for (i, v) in values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                csv.push_str(&format!("{commit},{sha},{},{param},{i},{v}\n", p.metric));
            }
        }
        if csv.len() > at {
            kernel_marks.push((commit.clone(), mark));
        }
    }
    if csv.len() == before {
        return Ok(Vec::new());
    }
    let mut meta = crate::ingest::UploadMeta::default();
    let fields = [
        ("benchmark", plot_benchmark(&head.testcase)),
        ("machine", head.machine.clone()),
        ("format", "csv".to_owned()),
    ];
    for (name, value) in &fields {
        meta.set(name, value)
            .map_err(|e| format!("its plots' samples are not stored as runs: {e}"))?;
    }
    meta.kernel_marks = kernel_marks;
    let name = format!("plots-{}.csv", app::text::head(&head.commit_sha, 40));
    Ok(vec![(meta, vec![(Some(name), bytes::Bytes::from(csv))])])
}

/// The uploads of a report's plots, by its headline's section (none without plots).
fn plots_of(sections: &[NewLkpReport], report: &Report) -> Result<PlotUploads, String> {
    match sections.first() {
        Some(first) if !report.plots.is_empty() => plot_uploads(&first.head, report),
        _ => Ok(Vec::new()),
    }
}

/// The uploads of a report's plots ([`plot_uploads`]).
pub type PlotUploads = Vec<(crate::ingest::UploadMeta, Vec<super::upload::UploadFile>)>;

/// The report sections of one mail's bytes, to store, and its plots' uploads (or why there
/// are none); or why the mail is no report.
pub fn reports_of_mail(
    raw: &[u8],
) -> Result<(Vec<NewLkpReport>, Result<PlotUploads, String>), String> {
    let (mail, id, report) = read_mail(raw).map_err(|(_, reason)| reason)?;
    let sections = sections_of(&mail, &id, &report);
    let plots = plots_of(&sections, &report);
    Ok((sections, plots))
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

#[cfg(test)]
mod tests {
    use super::subsystem;

    #[test]
    fn the_subsystem_is_the_subjects_bracket() {
        for (subject, want) in [
            ("[xfs]  490d451fa5:  aim7.jobs-per-min -6.3% regression", "xfs"),
            ("[linus:master] [cpuidle]  5484e31bbb:\n adrestia.wakeup_cost_periodic_us -33.3% improvement", "cpuidle"),
            ("[dhowells-fs:iov-extract] [iov_iter] 64ea9d6c5f: fio.read_iops", "iov_iter"),
            ("[linus:master] [io_uring/io]  8343cae362:", "io_uring/io"),
            ("Re: [PATCH 07/16] btrfs: Lock extents before folio for read()s", "btrfs"),
            ("Re: [PATCH v3 5/5] mm: memcg: restore subtree stats flushing", "mm"),
            ("[linux-next:master] 01d37228d3: netperf.Throughput_Mbps", ""),
            ("no brackets at all", ""),
        ] {
            assert_eq!(subsystem(subject), want, "{subject}");
        }
    }
}
