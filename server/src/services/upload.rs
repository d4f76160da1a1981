// SPDX-License-Identifier: GPL-3.0-or-later
//! Uploads as a service: what happens to an upload's files once the edge has read them. The
//! work request and the bisection it answers fill in what it left out; every file is parsed
//! (within one [`ingest::Budget`]: runs, series, samples and inflated bytes are the upload's,
//! not each file's) and hashed before anything is stored; side files (LKP's `job.yaml`, a
//! kernel config...) give their facts to every run; directions come from the upload, then from
//! the alert rules; the store writes the upload, its raw files and its runs in one transaction.
//! Reading the body and the shape of the answer are the edge's (`http::api::upload`).

use bytes::Bytes;
use sha2::{Digest, Sha256};

use app::label::Direction;
use app::types::UploadResponse;

use crate::ingest::{self, IngestError, UploadMeta};
use crate::services::{ServiceError, ServiceResult, Services};
use crate::store::{Inserted, NewFile, NewUpload};

/// One file of an upload: its name (none for a raw body) and its bytes.
pub type UploadFile = (Option<String>, Bytes);

/// What an upload stored, or found stored before.
pub struct Uploaded {
    /// True when the upload is new; false when the same bytes and metadata were stored before
    /// (the answer is then the existing upload's).
    pub created: bool,
    pub answer: UploadResponse,
    /// The answer as JSON, when it was asked for: written while the commit reached the disk.
    /// `None` also when it could not be written (the edge then writes it and says why).
    pub json: Option<Vec<u8>>,
}

impl Services {
    /// Parses and stores the upload of `files` with `meta`, as `actor`; with `json`, the answer
    /// is written as JSON too. Refused (nothing stored) when a file does not parse, the work
    /// request or bisection it names does not exist or does not match, or there are only side
    /// files.
    pub async fn upload(
        &self,
        mut meta: UploadMeta,
        files: Vec<UploadFile>,
        actor: &str,
        json: bool,
    ) -> ServiceResult<Uploaded> {
        if let Some(id) = meta.request {
            let request = self.store.work_request(id).await?.ok_or_else(|| {
                ServiceError::Invalid(format!(
                    "request={id}: there is no work request {id} (GET /api/v1/work lists them)"
                ))
            })?;
            meta.answer(&request.request)?;
        }
        if let Some(id) = meta.bisection {
            let b = self.store.bisection(id).await?.ok_or_else(|| {
                ServiceError::Invalid(format!("bisection={id}: there is no bisection {id}"))
            })?;
            meta.for_bisection(id, &b.benchmark, &b.machine)?;
        }
        // The alert rules that give metrics a direction, compiled once for the upload's series
        // (rules were checked when they were stored).
        let rule_directions: Vec<(crate::domain::alert_rule::Globs, Direction)> = self
            .store
            .alert_rules()
            .await?
            .into_iter()
            .filter_map(|r| Some((r.globs()?, r.direction?)))
            .collect();
        // Parsing is CPU work: keep it off the async workers.
        let parse_span = tracing::info_span!("parse", files = files.len());
        let uploaded_by = actor.to_owned();
        let (parsed, directories) = crate::services::heavy::stage(
            parse_span,
            self.heavy
                .run(move || parse(meta, files, &rule_directions, uploaded_by)),
        )
        .await??;
        let store_span = tracing::info_span!("store", runs = parsed.runs.len());
        // The answer is built inside the storing transaction: once it commits, nothing more
        // can fail, so a 201 is never lost to a database that goes away a moment later. Its
        // JSON is written while the commit reaches the disk.
        let skipped: Vec<String> = parsed
            .runs
            .iter()
            .flat_map(|r| r.skipped.iter().cloned())
            .collect();
        let answered = |inserted: Inserted, detail: app::types::UploadDetail| {
            let answer = UploadResponse {
                created: matches!(inserted, Inserted::Created(_)),
                upload: detail.upload,
                runs: detail.runs,
                skipped,
                directories,
            };
            let json = json.then(|| serde_json::to_vec(&answer).ok()).flatten();
            Uploaded {
                created: answer.created,
                answer,
                json,
            }
        };
        let uploaded = crate::services::heavy::stage(
            store_span,
            self.store.insert_upload_answered(&parsed, answered),
        )
        .await?;
        if uploaded.created {
            self.metrics.uploads.inc();
            let samples: usize = parsed
                .runs
                .iter()
                .map(ingest::ParsedRun::sample_count)
                .sum();
            self.metrics.samples.inc_by(samples as u64);
        }
        Ok(uploaded)
    }
}

/// The upload to store, parsed from its files (side files' facts merged into every run, the
/// directions applied, the digest of metadata and files taken), and the directories its
/// archives held.
fn parse(
    meta: UploadMeta,
    files: Vec<UploadFile>,
    rule_directions: &[(crate::domain::alert_rule::Globs, Direction)],
    uploaded_by: String,
) -> Result<(NewUpload, Vec<app::types::TreeDir>), IngestError> {
    // Each file's SHA-256 beside the parse (an 800 KB tree's is half a millisecond the
    // parse's tail would otherwise wait for).
    let mut shas = Hashes::start(&files);
    // One budget for the whole upload: its files' runs, series and samples, and what their
    // archives inflate to, count together (in the order the files came).
    let budget =
        ingest::Budget::for_upload(files.iter().map(|(_, bytes)| bytes.len() as u64).sum());
    let mut digest = Sha256::new();
    digest.update(meta.canonical().as_bytes());
    let mut new_files = Vec::with_capacity(files.len());
    let mut runs = Vec::new();
    let mut directories = Vec::new();
    let mut side: Vec<(String, String)> = Vec::new();
    for (i, (name, bytes)) in files.into_iter().enumerate() {
        if ingest::cancel::requested() {
            return Err(IngestError::new("the request was cancelled"));
        }
        let label = name.clone().unwrap_or_else(|| {
            if i == 0 {
                "request body".to_owned()
            } else {
                format!("file {i}")
            }
        });
        // A side file (LKP's job.yaml, a kernel config, lscpu...) says what the results of
        // this upload ran on: its facts go to every run of the upload.
        if let Some(facts) = name
            .as_deref()
            .and_then(|n| ingest::facts::side_file(n, &bytes))
        {
            if facts.len() + side.len() > ingest::facts::MAX_FACTS {
                return Err(IngestError::new(format!(
                    "more than {} facts in the side files",
                    ingest::facts::MAX_FACTS
                ))
                .in_file(&label));
            }
            side.extend(facts);
            let sha = shas.get(i);
            digest.update(sha.as_bytes());
            new_files.push(NewFile {
                name,
                format: "facts".to_owned(),
                sha256: sha,
                bytes,
            });
            continue;
        }
        let (format, mut file_runs, dirs) =
            ingest::parse_file_within(&bytes, meta.format, &meta, &budget)
                .map_err(|e| e.in_file(&label))?;
        directories.extend(dirs);
        for s in file_runs.iter_mut().flat_map(|r| r.skipped.iter_mut()) {
            *s = format!("{label}: {s}");
        }
        let sha = shas.get(i);
        digest.update(sha.as_bytes());
        new_files.push(NewFile {
            name,
            format: format.as_str().to_owned(),
            sha256: sha,
            bytes,
        });
        runs.extend(file_runs);
    }
    if runs.is_empty() {
        return Err(IngestError::new(
            "only side files (job.yaml, kernel config, folded stacks, ...): upload them with the results they describe",
        ));
    }
    apply_directions(&mut runs, &meta, rule_directions);
    for run in &mut runs {
        run.facts.extend(side.iter().cloned());
        if let Some((_, mark)) = meta
            .kernel_marks
            .iter()
            .find(|(k, _)| k == run.key.kernel.as_str())
        {
            run.mark = Some(*mark);
        }
    }
    Ok((
        NewUpload {
            digest: hex::encode(digest.finalize()),
            metadata: meta.canonical(),
            files: new_files,
            runs,
            mark: meta.mark,
            commit_time: meta.commit_time,
            uploaded_by,
            calibration: meta.calibration.as_ref().map(|c| c.as_str().to_owned()),
        },
        directories,
    ))
}

/// An upload parsed as [`Services::upload`] parses it, for a writer without the server's
/// services (`perfline import-mail`'s plots): the directions the upload states and `rules`.
pub(crate) fn parse_upload(
    meta: UploadMeta,
    files: Vec<UploadFile>,
    rules: &[(crate::domain::alert_rule::Globs, Direction)],
    uploaded_by: &str,
) -> Result<NewUpload, IngestError> {
    parse(meta, files, rules, uploaded_by.to_owned()).map(|(upload, _)| upload)
}

/// Directions the upload states win; then those of alert rules, for metrics that have none.
fn apply_directions(
    runs: &mut [ingest::ParsedRun],
    meta: &UploadMeta,
    rule_directions: &[(crate::domain::alert_rule::Globs, Direction)],
) {
    let stated: std::collections::HashMap<&str, Direction> = meta
        .directions
        .iter()
        .map(|(m, d)| (m.as_str(), *d))
        .collect();
    if stated.is_empty() && rule_directions.is_empty() {
        return;
    }
    ingest::known::apply(runs, |benchmark, metric, param, had| {
        if let Some(d) = stated.get(metric) {
            return Some(*d);
        }
        if had.is_known() {
            return None;
        }
        rule_directions
            .iter()
            .find(|(globs, _)| globs.matches(benchmark, metric, param))
            .map(|(_, d)| *d)
    });
}

/// The SHA-256 (hex) of each file of an upload: worked out on a thread of their own when
/// they are large enough for it to matter, else when asked for.
enum Hashes {
    Here(Vec<Bytes>),
    Beside(std::thread::JoinHandle<Vec<String>>, Vec<Bytes>),
    Done(Vec<String>),
}

impl Hashes {
    /// Below this many bytes in all, a thread costs more than it saves.
    const BESIDE: usize = 256 << 10;

    fn start(files: &[UploadFile]) -> Hashes {
        let bytes: Vec<Bytes> = files.iter().map(|(_, b)| b.clone()).collect();
        if bytes.iter().map(Bytes::len).sum::<usize>() < Self::BESIDE {
            return Hashes::Here(bytes);
        }
        let theirs = bytes.clone();
        match std::thread::Builder::new()
            .name("upload-sha256".into())
            .spawn(move || Self::hash(&theirs))
        {
            Ok(handle) => Hashes::Beside(handle, bytes),
            Err(_) => Hashes::Here(bytes),
        }
    }

    fn hash(bytes: &[Bytes]) -> Vec<String> {
        bytes
            .iter()
            .map(|b| hex::encode(Sha256::digest(b)))
            .collect()
    }

    /// File `i`'s hash.
    fn get(&mut self, i: usize) -> String {
        let done = match std::mem::replace(self, Hashes::Done(Vec::new())) {
            Hashes::Here(bytes) => Self::hash(&bytes),
            // (A thread that cannot have panicked; if it did, the hashes are made here.)
            Hashes::Beside(handle, bytes) => handle.join().unwrap_or_else(|_| Self::hash(&bytes)),
            Hashes::Done(done) => done,
        };
        let sha = done[i].clone();
        *self = Hashes::Done(done);
        sha
    }
}
