// SPDX-License-Identifier: GPL-3.0-or-later
//! `perfline bisect start` and `perfline bisect run`: a bisection Perfline drives, from the
//! terminal. `run` loops like `git bisect run`: it asks for the next commit, runs the command
//! (which builds, boots, benchmarks and uploads, or prints results for it to upload) as many
//! times as the commit needs, and ends when the bisection does: exit 0 with the culprit
//! printed, 1 when it failed (the reason printed).

use super::http::*;
use super::*;
use app::bisection::{Bisection, BisectionState, NewBisection, NextRun};
use clap::{Args, Subcommand};
use reqwest::Method;
use std::time::Duration;

#[derive(Debug, Clone, Subcommand)]
pub enum BisectCommand {
    /// Start a bisection, from an alert or from a series and two commits; prints its id.
    Start(BisectStartArgs),
    /// Run a bisection to its end, like `git bisect run`.
    Run(BisectRunArgs),
}

#[derive(Debug, Clone, Args)]
pub struct BisectStartArgs {
    #[command(flatten)]
    pub client: Client,
    /// The alert summary to bisect (its series, history and commits).
    #[arg(long, conflicts_with_all = ["benchmark", "good", "bad"])]
    pub alert: Option<i64>,
    #[arg(long)]
    pub benchmark: Option<String>,
    #[arg(long)]
    pub machine: Option<String>,
    #[arg(long)]
    pub metric: Option<String>,
    #[arg(long)]
    pub param: Option<String>,
    /// `repo/branch` of the uploaded history.
    #[arg(long)]
    pub history: Option<String>,
    #[arg(long)]
    pub good: Option<String>,
    #[arg(long)]
    pub bad: Option<String>,
    /// The most runs of one commit.
    #[arg(long)]
    pub max_runs: Option<u32>,
}

#[derive(Debug, Clone, Args)]
pub struct BisectRunArgs {
    #[command(flatten)]
    pub client: Client,
    /// The bisection to run.
    #[arg(long)]
    pub bisection: i64,
    /// The command, through `sh -c`, with `PERFLINE_COMMIT` and `PERFLINE_BISECTION` in its
    /// environment (beside `PERFLINE_SERVER` and `PERFLINE_TOKEN`); a bare `{commit}` or
    /// `{bisection}` in the command stands for `"$PERFLINE_COMMIT"` (refused inside quotes).
    /// A non-empty standard output is uploaded as one run of the commit.
    #[arg(long)]
    pub exec: String,
    /// The format of the command's output, when detection should not decide.
    #[arg(long)]
    pub format: Option<String>,
    /// This runner's name, as the bisection's page shows who holds its runs (default
    /// `bisect@HOST`).
    #[arg(long)]
    pub robot: Option<String>,
    /// Kill a command still running after SECS seconds (and everything it started); the run
    /// is given back as failed.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
}

pub(super) async fn bisect(command: BisectCommand) -> Result<Outcome, CliError> {
    match command {
        BisectCommand::Start(a) => start(a).await,
        BisectCommand::Run(a) => run(a).await,
    }
}

async fn start(a: BisectStartArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let new = NewBisection {
        alert: a.alert,
        benchmark: a.benchmark,
        machine: a.machine,
        metric: a.metric,
        param: a.param,
        history: a.history,
        good: a.good,
        bad: a.bad,
        max_runs: a.max_runs,
    };
    let body = serde_json::to_vec(&new).map_err(|e| CliError::Usage(e.to_string()))?;
    let r = http
        .send_json(Method::POST, "/api/v1/bisections", &body)
        .await?;
    let status = r.status();
    let b: Bisection = r.json().await.map_err(|e| CliError::Server {
        status,
        message: format!("an answer that is not a bisection: {e}"),
    })?;
    print_text(&format!(
        "bisection {}: {} {} on {}, good {} bad {} ({} commits between)\nrun it: perfline bisect run --bisection {} --exec 'build-and-bench.sh \"$PERFLINE_COMMIT\"'",
        b.id,
        b.state,
        app::alerts::series_name(&b.benchmark, &b.metric),
        b.machine,
        short(&b.good),
        short(&b.bad),
        b.remaining,
        b.id
    ));
    Ok(Outcome::Done)
}

fn short(s: &str) -> &str {
    app::text::short_commit(s)
}

async fn run(a: BisectRunArgs) -> Result<Outcome, CliError> {
    exec::check_template(&a.exec, &["commit", "bisection"])?;
    let http = Http::new(&a.client)?;
    let id = a.bisection;
    let robot = a
        .robot
        .clone()
        .unwrap_or_else(|| work::default_robot("bisect"));
    let next_path = format!(
        "/api/v1/bisections/{id}/next?{}",
        query(&[("robot", Some(robot.as_str()))])
    );
    let mut said: Option<String> = None;
    loop {
        let next: NextRun = http.post_json(&next_path).await?;
        match (next.state, next.commit) {
            (BisectionState::Running, Some(commit)) => {
                said = None;
                let watch = exec::Watch {
                    timeout: a.timeout.map(Duration::from_secs),
                    lease: next.request.map(|request| exec::Renewal {
                        request,
                        robot: &robot,
                        every: Duration::from_millis(next.renew_every_ms.max(100)),
                    }),
                };
                for k in 1..=next.runs {
                    eprintln!(
                        "perfline: bisection {id}: run {k} of {} of {}",
                        next.runs,
                        short(&commit)
                    );
                    if let Err(e) = run_once(&http, &a, &commit, &watch).await {
                        // Given back at once: the next runner need not wait for the lease.
                        if let Some(request) = next.request {
                            let why = e.to_string();
                            exec::release(&http, request, &robot, next.runs - k + 1, &why).await;
                        }
                        return Err(e);
                    }
                }
            }
            // Every commit handed out is being run elsewhere, or its runs are being judged.
            (BisectionState::Running, None) => {
                if next.waiting != said {
                    if let Some(w) = &next.waiting {
                        eprintln!("perfline: bisection {id}: waiting: {w}");
                    }
                    said = next.waiting;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            (state, _) => {
                let b: Bisection = http.get_json(&format!("/api/v1/bisections/{id}")).await?;
                return finish(state, &b);
            }
        }
    }
}

fn finish(state: BisectionState, b: &Bisection) -> Result<Outcome, CliError> {
    let mut text = String::new();
    for t in &b.tested {
        text.push_str(&format!(
            "{} {:<6} {:>3} runs  {}{}\n",
            short(&t.commit),
            t.verdict,
            t.runs,
            t.mean.map_or("-".to_owned(), |m| format!("{m:.4}")),
            if t.forced {
                "  (decided at the run cap)"
            } else {
                ""
            }
        ));
    }
    match state {
        BisectionState::Done => {
            let culprit = b.culprit.as_deref().unwrap_or("");
            text.push_str(&format!(
                "{culprit} is the first bad commit{}\n({} runs in all)",
                b.culprit_subject
                    .as_deref()
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default(),
                b.runs_total
            ));
            if let Some(why) = &b.suspicious {
                text.push_str(&format!("\n{why}"));
            }
            print_text(&text);
            Ok(Outcome::Done)
        }
        _ => {
            print_text(&text);
            Err(CliError::Failed(format!(
                "bisection {} {}: {}",
                b.id,
                state,
                b.reason.as_deref().unwrap_or("no reason given")
            )))
        }
    }
}

/// Runs the command for `commit` once and uploads what it prints.
async fn run_once(
    http: &Http,
    a: &BisectRunArgs,
    commit: &str,
    watch: &exec::Watch<'_>,
) -> Result<(), CliError> {
    if app::label::CommitSha::parse(commit).is_err() {
        return Err(CliError::Failed(format!(
            "bisection {}: the server asks for a commit that is not one ({:?}); not run",
            a.bisection,
            app::text::head(commit, 80)
        )));
    }
    let id = a.bisection.to_string();
    let vars = [("commit", commit), ("bisection", id.as_str())];
    exec::run_and_upload(
        http,
        &a.client,
        &a.exec,
        &vars,
        &[
            ("bisection", Some(id.as_str())),
            ("commit", Some(commit)),
            ("format", a.format.as_deref()),
        ],
        &format!("commit {commit}"),
        watch,
    )
    .await?;
    Ok(())
}
