// SPDX-License-Identifier: GPL-3.0-or-later
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
    /// This robot's name, as the server lists it (default `MACHINE@HOST`). Runs it takes are
    /// leased to it (`--lease-secs` on the server) and renewed while its command runs.
    #[arg(long)]
    pub robot: Option<String>,
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
    /// Kill a command still running after SECS seconds (and everything it started); the run
    /// is given back to the server as failed.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Run as a service: never end, ask for work every `--poll` seconds (default 30), and
    /// when the server is away or a command fails, say so and try again later (backing off
    /// up to a minute). SIGTERM gives back the run in progress and ends.
    #[arg(long)]
    pub forever: bool,
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

/// The longest pause after failures in `--forever`.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// This robot's default name: `MACHINE@HOST`.
pub(super) fn default_robot(machine: &str) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into());
    format!("{machine}@{host}")
}

/// Pause `wait`, or less when SIGTERM comes: whether it came.
async fn pause(wait: Duration, term: &mut tokio::signal::unix::Signal) -> bool {
    tokio::select! {
        () = tokio::time::sleep(wait) => false,
        _ = term.recv() => true,
    }
}

pub(super) async fn work(a: WorkArgs) -> Result<Outcome, CliError> {
    exec::check_template(&a.exec, &NAMES)?;
    let http = Http::new(&a.client)?;
    let robot = a.robot.clone().unwrap_or_else(|| default_robot(&a.machine));
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|source| CliError::File {
            path: "SIGTERM".into(),
            source,
        })?;
    let path = format!(
        "/api/v1/work?{}",
        query(&[
            ("machine", Some(a.machine.as_str())),
            ("robot", Some(robot.as_str()))
        ])
    );
    let poll = a
        .poll
        .or(a.forever.then_some(30))
        .map(|s| Duration::from_secs(s.max(1)));
    let mut done = 0u32;
    let mut trouble = 0u32;
    let mut idle_since: Option<Instant> = None;
    loop {
        let list: WorkList = match http.get_json(&path).await {
            Ok(list) => list,
            Err(e) if a.forever => {
                let wait = backoff(trouble).min(MAX_BACKOFF);
                trouble += 1;
                eprintln!("perfline: {e}; asking again in {:.0} s", wait.as_secs_f64());
                if pause(wait, &mut term).await {
                    return stopped(&robot, done);
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        let wanted: Vec<(WorkRequest, u32)> = list
            .requests
            .into_iter()
            .map(|r| {
                let left = r.runs.saturating_sub(r.received);
                (r, left)
            })
            .filter(|(_, left)| *left > 0)
            .collect();
        let mut took = false;
        'requests: for (r, left) in &wanted {
            let lease = match claim(&http, r.id, &robot, *left).await {
                Ok(lease) => lease,
                Err(e) if a.forever => {
                    eprintln!("perfline: request {}: {e}", r.id);
                    break 'requests;
                }
                Err(e) => return Err(e),
            };
            if lease.runs == 0 {
                continue;
            }
            took = true;
            let renewal = exec::Renewal {
                request: r.id,
                robot: &robot,
                every: Duration::from_millis(lease.renew_every_ms.max(100)),
            };
            let watch = exec::Watch {
                timeout: a.timeout.map(Duration::from_secs),
                lease: Some(renewal),
            };
            for k in 1..=lease.runs {
                match run_one(&http, &a, r, k, lease.runs, &watch).await {
                    Ok(()) => {
                        done += 1;
                        trouble = 0;
                    }
                    Err(e) => {
                        let why = e.to_string();
                        // The run and those taken with it go back to the server at once.
                        exec::release(&http, r.id, &robot, lease.runs - k + 1, &why).await;
                        eprintln!("perfline: request {}: {why}; the run is given back", r.id);
                        if why.contains("(SIGTERM)") {
                            return stopped(&robot, done);
                        }
                        if !a.forever {
                            return Err(e);
                        }
                        let wait = backoff(trouble).min(MAX_BACKOFF);
                        trouble += 1;
                        if pause(wait, &mut term).await {
                            return stopped(&robot, done);
                        }
                        break 'requests;
                    }
                }
            }
        }
        if took {
            idle_since = None;
            continue;
        }
        if let Some(wait) = poll {
            if pause(wait, &mut term).await {
                return stopped(&robot, done);
            }
            continue;
        }
        // Requests whose runs are all in (or out with other robots) are judged by the
        // server in a moment; it may ask for more. None left at all: done.
        let pending = !wanted.is_empty()
            || http
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
        if pause(Duration::from_millis(500), &mut term).await {
            return stopped(&robot, done);
        }
    }
}

fn stopped(robot: &str, done: u32) -> Result<Outcome, CliError> {
    eprintln!("perfline: {robot} stopped ({done} runs done)");
    Ok(Outcome::Done)
}

/// Takes up to `runs` runs of request `id` for `robot`.
async fn claim(
    http: &Http,
    id: i64,
    robot: &str,
    runs: u32,
) -> Result<app::alerts::Lease, CliError> {
    let body = serde_json::json!({ "robot": robot, "runs": runs })
        .to_string()
        .into_bytes();
    let r = http
        .send_json(
            reqwest::Method::POST,
            &format!("/api/v1/work/{id}/claim"),
            &body,
        )
        .await?;
    let status = r.status();
    r.json().await.map_err(|e| CliError::Server {
        status,
        message: format!("an answer that is not a lease: {e}"),
    })
}

/// Runs the command once for request `r` and uploads what it prints.
async fn run_one(
    http: &Http,
    a: &WorkArgs,
    r: &WorkRequest,
    k: u32,
    of: u32,
    watch: &exec::Watch<'_>,
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
        watch,
    )
    .await?;
    if let Some(summary) = uploaded {
        print_text(&summary);
    }
    Ok(())
}
