//! `perfline work`: a robot's loop over the runs Perfline asks of its machine
//! (`GET /api/v1/work`): reruns that confirm an alert, commits a bisection tests. For each run
//! still wanted it runs the command (which builds, boots and benchmarks); a non-empty standard
//! output is uploaded as that run (`request=ID`), an empty one means the command uploaded
//! itself. It asks again after each round, since the server may want more runs or another
//! commit, and ends when nothing is asked (or keeps polling with `--poll`).

use super::http::*;
use super::*;
use app::alerts::{WorkList, WorkRequest};
use clap::Args;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Args)]
pub struct WorkArgs {
    #[command(flatten)]
    pub client: Client,
    /// The machine this robot runs on.
    #[arg(long)]
    pub machine: String,
    /// The command to run for each run wanted, through `sh -c`. The run's values are in its
    /// environment as `PERFLINE_COMMIT`, `PERFLINE_BENCHMARK`, `PERFLINE_MACHINE`,
    /// `PERFLINE_KERNEL`, `PERFLINE_METRIC` and `PERFLINE_REQUEST` (beside `PERFLINE_SERVER`
    /// and `PERFLINE_TOKEN`); a bare `{commit}`, `{benchmark}`, ... in the command stands for
    /// `"$PERFLINE_COMMIT"`, ...: one argument, never shell code (refused inside quotes).
    /// Its standard output, when not empty, is uploaded as one run.
    #[arg(long)]
    pub exec: String,
    /// The format of the command's output, when detection should not decide.
    #[arg(long)]
    pub format: Option<String>,
    /// Keep asking for work every SECS seconds instead of ending when there is none.
    #[arg(long, value_name = "SECS")]
    pub poll: Option<u64>,
    /// How long to wait, once every run asked for is uploaded, for the server to judge them
    /// (it may then ask for more) before ending.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub settle: u64,
}

/// The placeholders `--exec` may name.
const NAMES: [&str; 6] = [
    "commit",
    "benchmark",
    "machine",
    "kernel",
    "metric",
    "request",
];

pub(super) async fn work(a: WorkArgs) -> Result<Outcome, CliError> {
    exec::check_template(&a.exec, &NAMES)?;
    let http = Http::new(&a.client)?;
    let path = format!(
        "/api/v1/work?{}",
        query(&[("machine", Some(a.machine.as_str()))])
    );
    let mut done = 0u32;
    let mut idle_since: Option<Instant> = None;
    loop {
        let list: WorkList = http.get_json(&path).await?;
        let wanted: Vec<(WorkRequest, u32)> = list
            .requests
            .into_iter()
            .map(|r| {
                let left = r.runs.saturating_sub(r.received);
                (r, left)
            })
            .filter(|(_, left)| *left > 0)
            .collect();
        if wanted.is_empty() {
            if let Some(secs) = a.poll {
                tokio::time::sleep(Duration::from_secs(secs.max(1))).await;
                continue;
            }
            // Requests whose runs are all in are judged by the server in a moment; it may
            // ask for more. None left at all: done.
            let pending = http
                .get_json::<WorkList>(&path)
                .await?
                .requests
                .iter()
                .any(|r| r.received >= r.runs);
            let since = *idle_since.get_or_insert_with(Instant::now);
            if !pending || since.elapsed() >= Duration::from_secs(a.settle) {
                eprintln!("perfline: no work for {} ({done} runs done)", a.machine);
                return Ok(Outcome::Done);
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        }
        idle_since = None;
        for (r, left) in wanted {
            for k in 1..=left {
                run_one(&http, &a, &r, k, left).await?;
                done += 1;
            }
        }
    }
}

/// Runs the command once for request `r` and uploads what it prints.
async fn run_one(
    http: &Http,
    a: &WorkArgs,
    r: &WorkRequest,
    k: u32,
    of: u32,
) -> Result<(), CliError> {
    if !r.commit.is_empty() && app::label::CommitSha::parse(&r.commit).is_err() {
        return Err(CliError::Failed(format!(
            "request {}: the server asks for a commit that is not one ({:?}); not run",
            r.id,
            app::text::head(&r.commit, 80)
        )));
    }
    let id = r.id.to_string();
    let vars = [
        ("commit", r.commit.as_str()),
        ("benchmark", r.benchmark.as_str()),
        ("machine", r.machine.as_str()),
        ("kernel", r.kernel.as_str()),
        ("metric", r.metric.as_str()),
        ("request", id.as_str()),
    ];
    let commit_name = if r.commit.is_empty() {
        &r.kernel
    } else {
        &r.commit
    };
    eprintln!(
        "perfline: request {id} ({}): run {k} of {of} of {} at {}",
        r.reason,
        r.benchmark,
        app::text::short_commit(commit_name)
    );
    let uploaded = exec::run_and_upload(
        http,
        &a.client,
        &a.exec,
        &vars,
        &[
            ("request", Some(id.as_str())),
            ("format", a.format.as_deref()),
        ],
        &format!("request {id}, commit {commit_name}"),
    )
    .await?;
    if let Some(summary) = uploaded {
        print_text(&summary);
    }
    Ok(())
}
