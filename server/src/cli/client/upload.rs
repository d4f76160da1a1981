// SPDX-License-Identifier: GPL-3.0-or-later
//! `perfline upload`: files, an mmtests `work/log` directory or an LKP result directory, streamed
//! with a progress bar.

use super::http::*;
use super::*;
use clap::Args;
use reqwest::{Method, StatusCode};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Args)]
pub struct UploadArgs {
    #[command(flatten)]
    pub client: Client,
    /// Result files, uploaded together as one upload (side files such as `job.yaml` or a
    /// kernel config go beside them).
    pub files: Vec<PathBuf>,
    /// An LKP result directory: its `stats.json` (else the benchmark's raw log) and its
    /// `job.yaml`, with machine, commit and kernel taken from the job.
    #[arg(long, value_name = "DIR", conflicts_with = "mmtests_log")]
    pub lkp_result: Option<PathBuf>,
    /// An mmtests `work/log` directory (or the `work` directory holding it), packed in memory
    /// as the `.tar.gz` the server reads.
    #[arg(long, value_name = "DIR")]
    pub mmtests_log: Option<PathBuf>,
    /// The benchmark, when the files do not name it.
    #[arg(long)]
    pub benchmark: Option<String>,
    /// The machine the results come from.
    #[arg(long)]
    pub machine: Option<String>,
    /// The kernel version (`6.7.0-rc1`).
    #[arg(long)]
    pub kernel: Option<String>,
    /// The commit the kernel was built from (a full or abbreviated sha).
    #[arg(long)]
    pub commit: Option<String>,
    /// The commit's time, in seconds since the epoch.
    #[arg(long)]
    pub commit_time: Option<i64>,
    /// `k=v,k=v`
    #[arg(long)]
    pub tags: Option<String>,
    /// A bisect mark for every run: `good`, `bad` or `skip`.
    #[arg(long)]
    pub mark: Option<String>,
    /// The format, when detection should not decide (`csv`, `json`, `netperf`, `lkp`, ...).
    #[arg(long)]
    pub format: Option<String>,
}

/// One file of an upload: its name as the server sees it, and its bytes.
pub(super) struct UploadFile {
    name: String,
    bytes: Vec<u8>,
}

pub(super) async fn upload(a: UploadArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let mut files = Vec::new();
    let mut meta = Meta {
        benchmark: a.benchmark.clone(),
        machine: a.machine.clone(),
        kernel: a.kernel.clone(),
        commit: a.commit.clone(),
    };
    for path in &a.files {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        files.push(UploadFile {
            name,
            bytes: read_file(path)?,
        });
    }
    if let Some(dir) = &a.mmtests_log {
        files.push(pack_mmtests_log(dir)?);
    }
    if let Some(dir) = &a.lkp_result {
        let (lkp_files, job) = lkp_result(dir)?;
        files.extend(lkp_files);
        meta.fill_from(job);
    }
    if files.is_empty() {
        return Err(CliError::Usage(
            "nothing to upload: name files, --lkp-result DIR or --mmtests-log DIR".into(),
        ));
    }
    let total: u64 = files.iter().map(|f| f.bytes.len() as u64).sum();
    let fields: Vec<(&str, String)> = [
        ("benchmark", meta.benchmark),
        ("machine", meta.machine),
        ("kernel", meta.kernel),
        ("commit", meta.commit),
        ("commit_time", a.commit_time.map(|t| t.to_string())),
        ("tags", a.tags.clone()),
        ("mark", a.mark.clone()),
        ("format", a.format.clone()),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect();
    // Files are read once; each attempt streams them again from memory, the bar following
    // what has been handed to the connection.
    let files: Vec<(String, bytes::Bytes)> = files
        .into_iter()
        .map(|f| (f.name, bytes::Bytes::from(f.bytes)))
        .collect();
    let bar = progress_bar(total);
    let form = || {
        bar.set_position(0);
        let mut form = reqwest::multipart::Form::new();
        for (k, v) in &fields {
            form = form.text(*k, v.clone());
        }
        for (name, bytes) in &files {
            form = form.part("file", streamed_part(name, bytes.clone(), bar.clone()));
        }
        Some(Body::Multipart(form))
    };
    let r = http
        .send(Method::POST, "/api/v1/upload", "text/plain", form)
        .await;
    bar.finish_and_clear();
    let r = r?;
    let created = r.status() == StatusCode::CREATED;
    let text = read_text(r).await?;
    print!("{text}");
    if !text.ends_with('\n') {
        println!();
    }
    if !created {
        eprintln!("perfline: already stored (the same bytes and metadata were uploaded before)");
    }
    Ok(Outcome::Done)
}

/// A progress bar on stderr for uploads of a megabyte or more (drawn only on a terminal).
pub(super) fn progress_bar(total: u64) -> indicatif::ProgressBar {
    if total < 1 << 20 {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
        )
        .expect("the template is valid"),
    );
    bar
}

/// A multipart file part that streams `bytes` in 64 KiB chunks, advancing `bar`.
pub(super) fn streamed_part(
    name: &str,
    bytes: bytes::Bytes,
    bar: indicatif::ProgressBar,
) -> reqwest::multipart::Part {
    const CHUNK: usize = 64 * 1024;
    let len = bytes.len() as u64;
    let chunks: Vec<bytes::Bytes> = (0..bytes.len())
        .step_by(CHUNK)
        .map(|i| bytes.slice(i..(i + CHUNK).min(bytes.len())))
        .collect();
    let stream = futures_util::stream::iter(chunks.into_iter().map(move |c| {
        bar.inc(c.len() as u64);
        Ok::<_, std::io::Error>(c)
    }));
    reqwest::multipart::Part::stream_with_length(reqwest::Body::wrap_stream(stream), len)
        .file_name(name.to_owned())
}

/// Upload fields a directory can state.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Meta {
    benchmark: Option<String>,
    machine: Option<String>,
    kernel: Option<String>,
    commit: Option<String>,
}

impl Meta {
    /// Fills what the command line left open.
    pub(super) fn fill_from(&mut self, other: Meta) {
        self.benchmark = self.benchmark.take().or(other.benchmark);
        self.machine = self.machine.take().or(other.machine);
        self.kernel = self.kernel.take().or(other.kernel);
        self.commit = self.commit.take().or(other.commit);
    }
}

/// An mmtests `work/log` directory as the `.tar.gz` of `log/` the server reads (the same as
/// `tar czf work-log.tar.gz -C work log`), built in memory.
pub(super) fn pack_mmtests_log(dir: &Path) -> Result<UploadFile, CliError> {
    let dir = if dir.join("log").is_dir() {
        dir.join("log")
    } else {
        dir.to_path_buf()
    };
    if !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "--mmtests-log {}: not a directory",
            dir.display()
        )));
    }
    let file_err = |source| CliError::File {
        path: dir.display().to_string(),
        source,
    };
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.follow_symlinks(false);
    tar.append_dir_all("log", &dir).map_err(file_err)?;
    let gz = tar.into_inner().map_err(file_err)?;
    let bytes = gz.finish().map_err(file_err)?;
    Ok(UploadFile {
        name: "work-log.tar.gz".into(),
        bytes,
    })
}

/// An LKP result directory (`/result/<testcase>/.../<commit>/<n>`): the files
/// `app::resultdir::lkp_files` picks, and the machine, commit and kernel the job names.
pub(super) fn lkp_result(dir: &Path) -> Result<(Vec<UploadFile>, Meta), CliError> {
    let job_path = dir.join("job.yaml");
    let job = std::fs::read_to_string(&job_path).map_err(|source| CliError::File {
        path: job_path.display().to_string(),
        source,
    })?;
    let listing = std::fs::read_dir(dir).map_err(|source| CliError::File {
        path: dir.display().to_string(),
        source,
    })?;
    let names: Vec<String> = listing
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let picked = app::resultdir::lkp_files(&names, &job)
        .map_err(|e| CliError::Usage(format!("--lkp-result {}: {e}", dir.display())))?;
    let mut files = Vec::new();
    for name in picked {
        files.push(UploadFile {
            bytes: read_file(&dir.join(&name))?,
            name,
        });
    }
    let job = app::resultdir::job_meta(&job);
    let meta = Meta {
        benchmark: None,
        machine: job.machine,
        kernel: job.kernel,
        commit: job.commit,
    };
    Ok((files, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_what_a_directory_states() {
        let mut m = Meta {
            machine: Some("from-flag".into()),
            ..Meta::default()
        };
        m.fill_from(Meta {
            machine: Some("from-job".into()),
            commit: Some("abc".into()),
            ..Meta::default()
        });
        assert_eq!(m.machine.as_deref(), Some("from-flag"));
        assert_eq!(m.commit.as_deref(), Some("abc"));
    }
}
