// SPDX-License-Identifier: GPL-3.0-or-later
//! `perfline import-mail PATH`: the kernel test robot's report mails of a whole archive into
//! the database given by `--db` — a directory of mails (`.eml`, mbox files, walked
//! recursively), an mbox, or a public-inbox git archive (v2: `git/0.git`, `git/1.git`, ...;
//! or one epoch's bare repository), whose commits each hold one mail as the file `m`. What is
//! not a performance report is skipped; what was stored before is not stored again, so a
//! re-run adds only new mails. Progress and the summary go to stderr.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use crate::services::reports::{is_mail, reports_of_mail, PlotUploads};
use crate::services::upload::parse_upload;
use crate::store::{Inserted, NewLkpReport, NewUpload, Store};

/// Sections stored per transaction.
const BATCH: usize = 500;

/// Mails parsed per task, and at most this many bytes of them.
const PARSE_CHUNK: usize = 64;
const PARSE_CHUNK_BYTES: usize = 8 << 20;

/// Parse threads in flight: with the writer, they keep both cores busy (a single parser left
/// the second core idle half the time). They run below the writer's priority: on two cores
/// the writer's chain of statements is what the import waits for, and parsers that took its
/// core made the import with plot runs slower than one parser.
const PARSING: usize = 2;

/// How much lower than the writer's the parse threads' priority is (`nice`).
#[cfg_attr(
    not(target_os = "linux"),
    allow(dead_code, reason = "a thread's own priority is Linux's")
)]
const PARSE_NICE: i32 = 10;

#[derive(Debug, Default)]
struct Tally {
    mails: usize,
    skipped: usize,
    refused: usize,
    /// Sections parsed, stored or not yet.
    parsed: usize,
    reports: usize,
    new: usize,
    /// The uploads of plots' samples as runs stored, new or not, and new.
    plot_uploads: usize,
    plot_new: usize,
    /// Reports whose plots could not be stored as runs.
    plots_left_out: usize,
}

/// What a batch wrote: each section's id and whether it is new; each plot upload's newness;
/// the mails whose plots were left out.
type Written = (Vec<(i64, bool)>, Vec<bool>, usize);

/// A batch being written.
type Writing = tokio::task::JoinHandle<Result<Written, String>>;

/// What one mail is.
enum Parsed {
    /// Not a mail at all.
    Skipped,
    /// A mail, but no report.
    Refused,
    /// A report: its sections, and its plots' uploads (or why there are none).
    Report(Vec<NewLkpReport>, Result<PlotUploads, String>),
}

fn parse(raw: &[u8]) -> Parsed {
    if !is_mail(raw) {
        return Parsed::Skipped;
    }
    match reports_of_mail(raw) {
        Ok((sections, plots)) => Parsed::Report(sections, plots),
        Err(_) => Parsed::Refused,
    }
}

struct Importer<'a> {
    store: &'a Store,
    pending: Vec<NewLkpReport>,
    /// Whether the plots' samples are stored as runs (not `--no-plot-runs`).
    plot_runs: bool,
    /// The plots' uploads of the pending batch's mails, each mail's to parse
    /// (`services::reports::plot_uploads`).
    pending_plots: Vec<PlotUploads>,
    /// The batch being written while the next is parsed (two cores: a parse and a write).
    writing: Option<Writing>,
    /// Mails read, not yet given to a parse task, and their bytes.
    chunk: Vec<Vec<u8>>,
    chunk_bytes: usize,
    /// The parse threads in flight, oldest first: their mails are taken in the order read.
    parsing: std::collections::VecDeque<tokio::sync::oneshot::Receiver<Vec<Parsed>>>,
    tally: Tally,
    started: std::time::Instant,
}

impl Importer<'_> {
    /// One mail read: parsed by a task beside the others and the writer.
    async fn mail(&mut self, raw: &[u8]) -> Result<(), String> {
        self.tally.mails += 1;
        self.chunk_bytes += raw.len();
        self.chunk.push(raw.to_vec());
        if self.chunk.len() >= PARSE_CHUNK || self.chunk_bytes >= PARSE_CHUNK_BYTES {
            self.dispatch().await?;
        }
        if self.tally.mails.is_multiple_of(10_000) {
            self.progress();
        }
        Ok(())
    }

    /// Gives the mails read to a parse task; takes the oldest task's mails when too many are
    /// in flight.
    async fn dispatch(&mut self) -> Result<(), String> {
        if !self.chunk.is_empty() {
            let chunk = std::mem::take(&mut self.chunk);
            self.chunk_bytes = 0;
            let (done, parsed) = tokio::sync::oneshot::channel();
            std::thread::Builder::new()
                .name("import-parse".into())
                .spawn(move || {
                    #[cfg(target_os = "linux")]
                    let _ = rustix::process::setpriority_process(None, PARSE_NICE);
                    let _ = done.send(chunk.iter().map(|raw| parse(raw)).collect());
                })
                .map_err(|e| format!("a parse thread: {e}"))?;
            self.parsing.push_back(parsed);
        }
        while self.parsing.len() > PARSING {
            self.take_oldest().await?;
        }
        Ok(())
    }

    /// The oldest parse task's mails into the pending batch.
    async fn take_oldest(&mut self) -> Result<(), String> {
        let Some(task) = self.parsing.pop_front() else {
            return Ok(());
        };
        for parsed in task.await.map_err(|_| "a parse thread failed".to_owned())? {
            match parsed {
                Parsed::Skipped => self.tally.skipped += 1,
                Parsed::Refused => self.tally.refused += 1,
                Parsed::Report(sections, plots) => {
                    self.tally.parsed += sections.len();
                    self.pending.extend(sections);
                    match plots {
                        Ok(uploads) if self.plot_runs => self.pending_plots.push(uploads),
                        Ok(_) => {}
                        Err(_) if self.plot_runs => self.tally.plots_left_out += 1,
                        Err(_) => {}
                    }
                }
            }
            if self.pending.len() >= BATCH {
                self.flush().await?;
            }
        }
        Ok(())
    }

    /// Every mail read parsed, stored and counted.
    async fn finish(&mut self) -> Result<(), String> {
        self.dispatch().await?;
        while !self.parsing.is_empty() {
            self.take_oldest().await?;
        }
        self.flush().await?;
        self.written().await
    }

    /// Starts writing the pending batch once the one before it is written.
    async fn flush(&mut self) -> Result<(), String> {
        self.written().await?;
        if self.pending.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.pending);
        let plots = std::mem::take(&mut self.pending_plots);
        let store = self.store.clone();
        // The plots are parsed beside the reports' insert (and the next batch's mails). A
        // mail's plots that do not parse are left out (counted), not the batch.
        let parsing = tokio::task::spawn_blocking(move || {
            let mut left_out = 0;
            let mut parsed = Vec::new();
            for uploads in plots {
                let one: Result<Vec<NewUpload>, _> = uploads
                    .into_iter()
                    .map(|(meta, files)| parse_upload(meta, files, &[], "import-mail"))
                    .collect();
                match one {
                    Ok(u) => parsed.extend(u),
                    Err(_) => left_out += 1,
                }
            }
            (parsed, left_out)
        });
        self.writing = Some(tokio::spawn(async move {
            let ids = store
                .insert_lkp_reports(&batch)
                .await
                .map_err(|e| e.to_string())?;
            // The plots' runs after their reports, as uploads, all in one transaction.
            let (plots, left_out) = parsing.await.map_err(|e| e.to_string())?;
            let inserted = store
                .insert_uploads(&plots)
                .await
                .map_err(|e| e.to_string())?;
            let new = inserted
                .iter()
                .map(|i| matches!(i, Inserted::Created(_)))
                .collect();
            Ok((ids, new, left_out))
        }));
        Ok(())
    }

    /// Waits for the batch being written, and counts it.
    async fn written(&mut self) -> Result<(), String> {
        let Some(writing) = self.writing.take() else {
            return Ok(());
        };
        let (ids, plots, left_out) = writing.await.map_err(|e| e.to_string())??;
        self.tally.plots_left_out += left_out;
        self.tally.reports += ids.len();
        self.tally.new += ids.iter().filter(|(_, fresh)| *fresh).count();
        self.tally.plot_uploads += plots.len();
        self.tally.plot_new += plots.iter().filter(|fresh| **fresh).count();
        Ok(())
    }

    fn progress(&self) {
        let t = &self.tally;
        eprintln!(
            "perfline: import-mail: {} mails read, {} not reports, {} refused, {} report sections so far",
            t.mails, t.skipped, t.refused, t.parsed
        );
    }
}

pub async fn run(store: &Store, path: &Path, plot_runs: bool) -> ExitCode {
    // Small pages, as the server: a fifth of a parse otherwise goes to zeroing huge ones.
    crate::small_pages();
    let mut im = Importer {
        store,
        pending: Vec::new(),
        plot_runs,
        pending_plots: Vec::new(),
        writing: None,
        chunk: Vec::new(),
        chunk_bytes: 0,
        parsing: std::collections::VecDeque::new(),
        tally: Tally::default(),
        started: std::time::Instant::now(),
    };
    let result = walk(&mut im, path).await;
    let result = match result {
        Ok(()) => im.finish().await,
        // What was parsed before the error is still stored.
        Err(e) => {
            let _ = im.finish().await;
            Err(e)
        }
    };
    if let Err(e) = result {
        eprintln!("perfline: import-mail: {e}");
        return ExitCode::FAILURE;
    }
    let t = &im.tally;
    let secs = im.started.elapsed().as_secs_f64();
    eprintln!(
        "perfline: import-mail: {} mails in {secs:.1} s ({:.0} a second): {} report sections stored, {} new; {} uploads of plots' samples as runs, {} new{}; {} mails not performance reports, {} refused",
        t.mails,
        t.mails as f64 / secs.max(1e-9),
        t.reports,
        t.new,
        t.plot_uploads,
        t.plot_new,
        if t.plots_left_out > 0 {
            format!(" ({} reports' plots left out)", t.plots_left_out)
        } else {
            String::new()
        },
        t.skipped,
        t.refused
    );
    ExitCode::SUCCESS
}

async fn walk(im: &mut Importer<'_>, path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_file() {
        return file_mails(im, path).await;
    }
    let epochs = epochs(path);
    if !epochs.is_empty() {
        for epoch in epochs {
            git_mails(im, &epoch).await?;
        }
        return Ok(());
    }
    let mut files = Vec::new();
    list_files(path, &mut files)?;
    files.sort();
    for f in files {
        file_mails(im, &f).await?;
    }
    Ok(())
}

/// The mails of one file: an mbox read a mail at a time (a list's mbox is gigabytes); any
/// other file is one mail.
async fn file_mails(im: &mut Importer<'_>, path: &Path) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut file = BufReader::with_capacity(1 << 20, std::fs::File::open(path).map_err(failed)?);
    if !file.fill_buf().map_err(failed)?.starts_with(b"From ") {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(failed)?;
        return im.mail(&bytes).await;
    }
    let mut mails = MboxMails::new(file);
    while let Some(mail) = mails.next_mail().map_err(failed)? {
        im.mail(mail).await?;
    }
    Ok(())
}

/// An mbox's mails one at a time, split as `lkp_mail::split_mbox` splits a whole one: a mail
/// starts at a `From ` line after an empty line (or the first line), and that empty line is
/// the separator's.
struct MboxMails<R> {
    reader: R,
    mail: Vec<u8>,
    line: Vec<u8>,
    started: bool,
    after_blank: bool,
    done: bool,
}

impl<R: std::io::BufRead> MboxMails<R> {
    fn new(reader: R) -> Self {
        MboxMails {
            reader,
            mail: Vec::new(),
            line: Vec::new(),
            started: false,
            after_blank: false,
            done: false,
        }
    }

    /// The next mail, its `From ` line dropped; `None` at the end.
    fn next_mail(&mut self) -> std::io::Result<Option<&[u8]>> {
        if self.done {
            return Ok(None);
        }
        // The mail returned last time is over.
        if self.started {
            self.mail.clear();
        }
        loop {
            self.line.clear();
            if self.reader.read_until(b'\n', &mut self.line)? == 0 {
                self.done = true;
                return Ok(self.started.then_some(self.mail.as_slice()));
            }
            let separator = self.line.starts_with(b"From ") && (!self.started || self.after_blank);
            self.after_blank = self.line == b"\n";
            if !separator {
                self.mail.extend_from_slice(&self.line);
            } else if self.started {
                self.mail.pop();
                return Ok(Some(self.mail.as_slice()));
            } else {
                self.started = true;
            }
        }
    }
}

/// A public-inbox archive's epochs in order (`git/0.git`, `git/1.git`, ...), or the bare
/// repository `path` itself; none for a directory of mail files.
fn epochs(path: &Path) -> Vec<PathBuf> {
    if path.join("HEAD").is_file() && path.join("objects").is_dir() {
        return vec![path.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(path.join("git")) else {
        return Vec::new();
    };
    let mut epochs: Vec<(u64, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_suffix(".git")?.parse().ok()?;
            Some((n, e.path()))
        })
        .collect();
    epochs.sort();
    epochs.into_iter().map(|(_, p)| p).collect()
}

fn list_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries {
        let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = e.path();
        let kind = e
            .file_type()
            .map_err(|err| format!("{}: {err}", path.display()))?;
        if kind.is_dir() {
            list_files(&path, out)?;
        } else if kind.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Every mail of one public-inbox epoch, oldest first: each commit's file `m`, read with
/// `git cat-file --batch` (one process for the whole epoch).
async fn git_mails(im: &mut Importer<'_>, git_dir: &Path) -> Result<(), String> {
    let git = |args: &[&str]| {
        let mut c = Command::new("git");
        c.arg("--git-dir").arg(git_dir).args(args);
        c
    };
    let listed = git(&["rev-list", "--reverse", "--all"])
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !listed.status.success() {
        return Err(format!(
            "{}: git rev-list: {}",
            git_dir.display(),
            String::from_utf8_lossy(&listed.stderr).trim()
        ));
    }
    let commits = String::from_utf8_lossy(&listed.stdout).into_owned();
    let mut child = git(&["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("git cat-file: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("git cat-file: no stdin")?;
    let writer = std::thread::spawn(move || {
        for c in commits.lines() {
            if writeln!(stdin, "{c}:m").is_err() {
                break;
            }
        }
    });
    let mut out = BufReader::new(child.stdout.take().ok_or("git cat-file: no stdout")?);
    let mut header = String::new();
    loop {
        header.clear();
        if out
            .read_line(&mut header)
            .map_err(|e| format!("git cat-file: {e}"))?
            == 0
        {
            break;
        }
        // `<oid> blob <size>`, or `<object> missing` for a commit without `m`.
        let mut words = header.split_whitespace();
        let (Some(_), Some("blob"), Some(size)) = (words.next(), words.next(), words.next()) else {
            continue;
        };
        let size: usize = size
            .parse()
            .map_err(|_| format!("git cat-file: {header:?}"))?;
        let mut mail = vec![0; size + 1];
        out.read_exact(&mut mail)
            .map_err(|e| format!("git cat-file: {e}"))?;
        mail.pop();
        im.mail(&mail).await?;
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::MboxMails;
    use crate::ingest::lkp_mail::split_mbox;

    /// Read a mail at a time, an mbox splits as it does whole.
    #[test]
    fn an_mbox_read_a_mail_at_a_time_splits_as_a_whole_one() {
        let boxes: [&[u8]; 5] = [
            b"From a\nSubject: 1\n\nbody\n\nFrom b\nSubject: 2\n\nFrom c\n",
            b"From a\n\nFrom b\n",
            b"From a\nx\nFrom not a separator\n\n\nFrom b\ny",
            b"From only\n",
            b"From a\r\nSubject: crlf\r\n\r\nbody\n\nFrom b\r\nz\r\n",
        ];
        for mbox in boxes {
            let mut mails = MboxMails::new(std::io::BufReader::with_capacity(3, mbox));
            let mut streamed: Vec<Vec<u8>> = Vec::new();
            while let Some(m) = mails.next_mail().unwrap() {
                streamed.push(m.to_vec());
            }
            let whole: Vec<Vec<u8>> = split_mbox(mbox).iter().map(|m| m.to_vec()).collect();
            assert_eq!(streamed, whole, "{}", String::from_utf8_lossy(mbox));
        }
    }
}
