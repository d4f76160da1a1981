//! The client commands of the `perfline` binary (`upload`, `history`, `bisect-log`, `compare`,
//! `trend`): what a robot or an engineer in a terminal runs against a Perfline server. They
//! speak only the public HTTP API (`PERFLINE_SERVER`, `PERFLINE_TOKEN`), retry what is safe to
//! retry, and print what the server prints for `curl`.
//!
//! Exit codes: 0 done; 1 an error (the server's message is printed); 2 a usage error (clap);
//! 3 `--fail-on-regression` found a significant regression.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use reqwest::header::{HeaderMap, ACCEPT, AUTHORIZATION, RETRY_AFTER};
use reqwest::{Method, StatusCode};

/// The exit code of `--fail-on-regression` when it finds one.
pub const EXIT_REGRESSION: u8 = 3;

/// Where the server is and who we are, for every client command.
#[derive(Debug, Clone, Args)]
pub struct Client {
    /// The Perfline server's URL.
    #[arg(long, env = "PERFLINE_SERVER", default_value = "http://127.0.0.1:3000")]
    pub server: String,
    /// A bearer token (`perfline_...`): for writes, and for reads on a private server.
    #[arg(long, env = "PERFLINE_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Attempts after the first when the server answers 429 or 503 or cannot be reached,
    /// waiting longer each time (or as `Retry-After` says). Safe: uploads are idempotent.
    #[arg(long, default_value_t = 5)]
    pub retries: u32,
}

/// The client commands.
#[derive(Debug, Clone, Subcommand)]
pub enum ClientCommand {
    /// Upload result files (the format is detected), an LKP result directory or an mmtests
    /// `work/log` directory; prints the server's summary.
    Upload(UploadArgs),
    /// Upload a git history (`git log` of GIT_DIR, run here) that orders trends by commit.
    History(HistoryArgs),
    /// Upload `git bisect log` of GIT_DIR: marks its commits good, bad or skip.
    BisectLog(BisectArgs),
    /// Print a comparison of kernels as mmtests (default) or LKP prints it.
    Compare(CompareArgs),
    /// Print a metric's trend by commit as an ASCII chart.
    Trend(TrendArgs),
}

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

#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub client: Client,
    /// The repository's name on the server (default: the checkout directory's name).
    #[arg(long)]
    pub repo: Option<String>,
    /// The branch's name on the server (default: the checked-out branch).
    #[arg(long)]
    pub branch: Option<String>,
    /// What `git log` walks (default `HEAD`), e.g. `v6.6..v6.7`.
    #[arg(long, default_value = "HEAD")]
    pub range: String,
    /// The git checkout (default: the current directory).
    #[arg(default_value = ".")]
    pub git_dir: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct BisectArgs {
    #[command(flatten)]
    pub client: Client,
    /// The git checkout being bisected (default: the current directory).
    #[arg(default_value = ".")]
    pub git_dir: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub client: Client,
    #[arg(long)]
    pub benchmark: String,
    #[arg(long)]
    pub machine: String,
    /// Kernels, the baseline first: `5.4.0,5.5.0`.
    #[arg(long)]
    pub kernels: String,
    /// Only this metric.
    #[arg(long)]
    pub metric: Option<String>,
    /// LKP's `%change` report instead of mmtests' table.
    #[arg(long, conflicts_with = "ratio")]
    pub lkp: bool,
    /// mmtests' `--print-ratio` table.
    #[arg(long)]
    pub ratio: bool,
    /// Exit 3 when a kernel is significantly worse than the baseline (mmtests' significance;
    /// with `--lkp`, LKP's "changed" rule).
    #[arg(long)]
    pub fail_on_regression: bool,
}

#[derive(Debug, Clone, Args)]
pub struct TrendArgs {
    #[command(flatten)]
    pub client: Client,
    #[arg(long)]
    pub benchmark: String,
    #[arg(long)]
    pub machine: String,
    #[arg(long)]
    pub metric: String,
    #[arg(long)]
    pub param: Option<String>,
    /// Order by this uploaded history (`repo/branch`).
    #[arg(long)]
    pub history: Option<String>,
    #[arg(long, default_value_t = 80)]
    pub width: usize,
    #[arg(long, default_value_t = 20)]
    pub height: usize,
    /// Exit 3 when the newest commits are a significant step for the worse, by the server's
    /// alert rules (the step an alert would be raised for).
    #[arg(long)]
    pub fail_on_regression: bool,
}

/// A client command's failure: what to print before exiting 1.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {source}")]
    File {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot reach {server}: {source}")]
    Connect {
        server: String,
        source: reqwest::Error,
    },
    /// The server's answer was an error: its status and the envelope's message.
    #[error("server answered {status}: {message}")]
    Server { status: StatusCode, message: String },
    #[error("{0}")]
    Git(String),
}

/// Runs one client command.
pub async fn run(command: ClientCommand) -> ExitCode {
    let result = match command {
        ClientCommand::Upload(a) => upload(a).await,
        ClientCommand::History(a) => history(a).await,
        ClientCommand::BisectLog(a) => bisect_log(a).await,
        ClientCommand::Compare(a) => compare(a).await,
        ClientCommand::Trend(a) => trend(a).await,
    };
    match result {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Regression(why)) => {
            eprintln!("perfline: regression: {why}");
            ExitCode::from(EXIT_REGRESSION)
        }
        Err(e) => {
            eprintln!("perfline: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What a command found.
enum Outcome {
    Done,
    /// `--fail-on-regression` found one: what it is.
    Regression(String),
}

/// The HTTP side of the client: one connection pool, the token, and the retry loop.
struct Http {
    base: String,
    token: Option<String>,
    retries: u32,
    client: reqwest::Client,
}

impl Http {
    fn new(c: &Client) -> Result<Http, CliError> {
        let base = c.server.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(CliError::Usage(format!(
                "--server '{base}' is not an http:// or https:// URL"
            )));
        }
        let client = reqwest::Client::builder()
            .user_agent(concat!("perfline-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| CliError::Connect {
                server: base.clone(),
                source: e,
            })?;
        Ok(Http {
            base,
            token: c.token.clone().filter(|t| !t.is_empty()),
            retries: c.retries,
            client,
        })
    }

    /// Sends the request `build` makes, again after a pause while the server answers 429 or
    /// 503 or cannot be reached; answers the final response, or its error envelope as
    /// `CliError::Server`.
    async fn send(
        &self,
        method: Method,
        path: &str,
        accept: &str,
        body: impl Fn() -> Option<Body>,
    ) -> Result<reqwest::Response, CliError> {
        let url = format!("{}{path}", self.base);
        let mut attempt = 0;
        loop {
            let mut req = self
                .client
                .request(method.clone(), &url)
                .header(ACCEPT, accept);
            if let Some(t) = &self.token {
                req = req.header(AUTHORIZATION, format!("Bearer {t}"));
            }
            req = match body() {
                Some(Body::Bytes(b)) => req.body(b),
                Some(Body::Multipart(m)) => req.multipart(m),
                None => req,
            };
            let wait = match req.send().await {
                Ok(r) if r.status().is_success() => return Ok(r),
                Ok(r)
                    if matches!(
                        r.status(),
                        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
                    ) && attempt < self.retries =>
                {
                    eprintln!("perfline: {} answered {}", self.base, r.status());
                    retry_after(r.headers()).unwrap_or_else(|| backoff(attempt))
                }
                Ok(r) => return Err(server_error(r).await),
                Err(e)
                    if attempt < self.retries
                        && (e.is_connect() || e.is_timeout() || e.is_request()) =>
                {
                    eprintln!("perfline: {}: {e}", self.base);
                    backoff(attempt)
                }
                Err(e) => {
                    return Err(CliError::Connect {
                        server: self.base.clone(),
                        source: e,
                    })
                }
            };
            attempt += 1;
            eprintln!(
                "perfline: retrying in {:.1} s ({attempt} of {})",
                wait.as_secs_f64(),
                self.retries
            );
            tokio::time::sleep(wait).await;
        }
    }

    async fn get_text(&self, path: &str) -> Result<String, CliError> {
        let r = self.send(Method::GET, path, "text/plain", || None).await?;
        read_text(r).await
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, CliError> {
        let r = self
            .send(Method::GET, path, "application/json", || None)
            .await?;
        let status = r.status();
        r.json().await.map_err(|e| CliError::Server {
            status,
            message: format!("an answer that is not the expected JSON: {e}"),
        })
    }
}

/// A request body, made afresh for every attempt.
enum Body {
    Bytes(Vec<u8>),
    Multipart(reqwest::multipart::Form),
}

async fn read_text(r: reqwest::Response) -> Result<String, CliError> {
    let status = r.status();
    r.text().await.map_err(|e| CliError::Server {
        status,
        message: format!("the answer broke off: {e}"),
    })
}

/// Backoff before retry `attempt` (0-based): 0.5 s doubling, at most 30 s, with up to a
/// quarter of jitter so that a fleet of robots does not come back at once.
fn backoff(attempt: u32) -> Duration {
    let base = 0.5 * 2f64.powi(attempt.min(6) as i32);
    let jitter = rand::random::<f64>() * 0.25 * base;
    Duration::from_secs_f64((base + jitter).min(30.0))
}

/// `Retry-After` in seconds (the only form Perfline sends), at most a minute.
fn retry_after(h: &HeaderMap) -> Option<Duration> {
    let secs: u64 = h.get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(secs.min(60)))
}

/// The error envelope's message (with file and line when it names them), or the body's start.
async fn server_error(r: reqwest::Response) -> CliError {
    let status = r.status();
    let text = r.text().await.unwrap_or_default();
    let message = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) if v["error"]["message"].is_string() => {
            let e = &v["error"];
            let mut m = e["message"].as_str().unwrap_or_default().to_owned();
            if let (Some(file), false) = (e["file"].as_str(), m.contains("line")) {
                m = format!("{file}: {m}");
            }
            m
        }
        _ => text.chars().take(300).collect(),
    };
    CliError::Server { status, message }
}

/// A query string from pairs, skipping the absent ones.
fn query(pairs: &[(&str, Option<&str>)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v {
            s.append_pair(k, v);
        }
    }
    s.finish()
}

fn read_file(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::File {
        path: path.display().to_string(),
        source,
    })
}

/// One file of an upload: its name as the server sees it, and its bytes.
struct UploadFile {
    name: String,
    bytes: Vec<u8>,
}

async fn upload(a: UploadArgs) -> Result<Outcome, CliError> {
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
fn progress_bar(total: u64) -> indicatif::ProgressBar {
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
fn streamed_part(
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
struct Meta {
    benchmark: Option<String>,
    machine: Option<String>,
    kernel: Option<String>,
    commit: Option<String>,
}

impl Meta {
    /// Fills what the command line left open.
    fn fill_from(&mut self, other: Meta) {
        self.benchmark = self.benchmark.take().or(other.benchmark);
        self.machine = self.machine.take().or(other.machine);
        self.kernel = self.kernel.take().or(other.kernel);
        self.commit = self.commit.take().or(other.commit);
    }
}

/// An mmtests `work/log` directory as the `.tar.gz` of `log/` the server reads (the same as
/// `tar czf work-log.tar.gz -C work log`), built in memory.
fn pack_mmtests_log(dir: &Path) -> Result<UploadFile, CliError> {
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
fn lkp_result(dir: &Path) -> Result<(Vec<UploadFile>, Meta), CliError> {
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

/// Runs git in `dir` and answers its standard output.
fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, CliError> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| CliError::Git(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        return Err(CliError::Git(format!(
            "git {} in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

fn git_line(dir: &Path, args: &[&str]) -> Result<String, CliError> {
    Ok(String::from_utf8_lossy(&git(dir, args)?).trim().to_owned())
}

async fn history(a: HistoryArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let repo = match a.repo {
        Some(r) => r,
        None => {
            let top = git_line(&a.git_dir, &["rev-parse", "--show-toplevel"])?;
            Path::new(&top)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .ok_or_else(|| CliError::Usage("cannot name the repository: give --repo".into()))?
        }
    };
    let branch = match a.branch {
        Some(b) => b,
        None => {
            let b = git_line(&a.git_dir, &["rev-parse", "--abbrev-ref", "HEAD"])?;
            if b == "HEAD" {
                return Err(CliError::Usage(
                    "the checkout is on no branch (detached HEAD): give --branch".into(),
                ));
            }
            b
        }
    };
    if a.range.starts_with('-') {
        return Err(CliError::Usage(format!(
            "--range '{}' is not a revision range",
            a.range
        )));
    }
    let log = git(&a.git_dir, &["log", "--format=%H %ct %s", &a.range, "--"])?;
    eprintln!(
        "perfline: uploading {} commits of {repo}/{branch}",
        log.iter().filter(|&&b| b == b'\n').count()
    );
    let path = format!(
        "/api/v1/commits?{}",
        query(&[("repo", Some(&repo)), ("branch", Some(&branch))])
    );
    let r = http
        .send(Method::POST, &path, "application/json", || {
            Some(Body::Bytes(log.clone()))
        })
        .await?;
    let v: serde_json::Value = r.json().await.unwrap_or_default();
    println!(
        "history {}/{}: {} commits",
        v["repo"].as_str().unwrap_or(&repo),
        v["branch"].as_str().unwrap_or(&branch),
        v["commits"]
    );
    Ok(Outcome::Done)
}

async fn bisect_log(a: BisectArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let log = git(&a.git_dir, &["bisect", "log"])?;
    let r = http
        .send(Method::POST, "/api/v1/bisect", "application/json", || {
            Some(Body::Bytes(log.clone()))
        })
        .await?;
    let v: serde_json::Value = r.json().await.unwrap_or_default();
    let marks = v["marks"].as_array().map_or(0, Vec::len);
    print!("bisect log: {marks} commits marked");
    match v["first_bad"].as_str() {
        Some(sha) => println!("; first bad commit {sha}"),
        None => println!(),
    }
    Ok(Outcome::Done)
}

async fn compare(a: CompareArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let base = [
        ("benchmark", Some(a.benchmark.as_str())),
        ("machine", Some(a.machine.as_str())),
        ("kernels", Some(a.kernels.as_str())),
        ("metric", a.metric.as_deref()),
    ];
    let mut text_query = base.to_vec();
    text_query.push(("format", Some("text")));
    if a.lkp {
        text_query.push(("style", Some("lkp")));
    }
    if a.ratio {
        text_query.push(("ratio", Some("1")));
    }
    let text = http
        .get_text(&format!("/api/v1/compare?{}", query(&text_query)))
        .await?;
    print_text(&text);
    if !a.fail_on_regression {
        return Ok(Outcome::Done);
    }
    let mut json_query = base.to_vec();
    json_query.push(("format", Some("json")));
    let c: app::compare::Comparison = http
        .get_json(&format!("/api/v1/compare?{}", query(&json_query)))
        .await?;
    Ok(match regressions(&c, a.lkp).as_slice() {
        [] => Outcome::Done,
        found => Outcome::Regression(found.join(", ")),
    })
}

/// The rows and kernels worse than the baseline: mmtests' significant regressions, or with
/// `lkp` the changes LKP's rule calls real in the worse direction.
fn regressions(c: &app::compare::Comparison, lkp: bool) -> Vec<String> {
    use app::compare::Verdict;
    use app::label::Direction;
    let mut found = Vec::new();
    for row in &c.rows {
        for (i, cell) in row.cells.iter().enumerate().skip(1) {
            let Some(cell) = cell else { continue };
            let worse = if lkp {
                let change = cell.lkp_change.unwrap_or(0.0);
                cell.lkp_changed
                    && match row.direction {
                        Direction::Higher => change < 0.0,
                        Direction::Lower => change > 0.0,
                    }
            } else {
                cell.verdict == Verdict::Regression
            };
            if worse {
                let kernel = c.runs.get(i).map_or("?", |k| k.kernel.as_str());
                found.push(format!("{} on {kernel}", row.label));
            }
        }
    }
    found
}

async fn trend(a: TrendArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let width = a.width.to_string();
    let height = a.height.to_string();
    let q = [
        ("benchmark", Some(a.benchmark.as_str())),
        ("machine", Some(a.machine.as_str())),
        ("metric", Some(a.metric.as_str())),
        ("param", a.param.as_deref()),
        ("history", a.history.as_deref()),
    ];
    let mut text_query = q.to_vec();
    text_query.extend([
        ("format", Some("text")),
        ("width", Some(width.as_str())),
        ("height", Some(height.as_str())),
    ]);
    let text = http
        .get_text(&format!("/api/v1/trend?{}", query(&text_query)))
        .await?;
    print_text(&text);
    if !a.fail_on_regression {
        return Ok(Outcome::Done);
    }
    let mut json_query = q.to_vec();
    json_query.push(("format", Some("json")));
    let t: app::trend::Trend = http
        .get_json(&format!("/api/v1/trend?{}", query(&json_query)))
        .await?;
    let rules: RulesAnswer = http.get_json("/api/v1/alert-rules").await?;
    let settings = crate::services::alerts::detect::settings_for(
        &rules.rules,
        &a.benchmark,
        &a.metric,
        a.param.as_deref().unwrap_or(""),
    );
    Ok(match newest_regression(&t, &settings) {
        Some(why) => Outcome::Regression(why),
        None => Outcome::Done,
    })
}

#[derive(serde::Deserialize)]
struct RulesAnswer {
    rules: Vec<crate::services::alerts::detect::Rule>,
}

/// The step at the trend's newest commits that an alert would name, when it is for the worse.
fn newest_regression(
    t: &app::trend::Trend,
    settings: &crate::services::alerts::detect::Settings,
) -> Option<String> {
    use app::label::Direction;
    let means: Vec<f64> = t.points.iter().map(|p| p.mean).collect();
    let step = crate::services::alerts::detect::newest_step(&means, settings, None)?;
    let worse = match t.direction {
        Direction::Higher => step.after < step.before,
        Direction::Lower => step.after > step.before,
    };
    if !worse {
        return None;
    }
    let at = &t.points[step.index];
    Some(format!(
        "{} changed {:+.2}% at {} ({}), p = {:.2e}, {} commits before and {} after",
        t.title(),
        step.change_pct,
        at.sha
            .as_deref()
            .map_or(at.kernel.as_str(), |s| &s[..s.len().min(12)]),
        at.kernel,
        step.p_value,
        step.points_before,
        step.points_after
    ))
}

fn print_text(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
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

    #[test]
    fn backoff_doubles_up_to_thirty_seconds_and_retry_after_is_read() {
        assert!(
            backoff(0) >= Duration::from_millis(500) && backoff(0) <= Duration::from_millis(625)
        );
        assert!(backoff(3) >= Duration::from_secs(4) && backoff(3) <= Duration::from_secs(5));
        assert_eq!(backoff(20), Duration::from_secs(30));
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), None);
    }
}
