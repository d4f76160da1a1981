// SPDX-License-Identifier: GPL-3.0-or-later
//! The client commands of the `perfline` binary (`upload`, `history`, `bisect-log`, `compare`,
//! `trend`, `work`, `bisect`): what a robot or an engineer in a terminal runs against a Perfline server. They
//! speak only the public HTTP API (`PERFLINE_SERVER`, `PERFLINE_TOKEN`), retry what is safe to
//! retry (`http`), and print what the server prints for `curl`. One file per command.
//!
//! Exit codes: 0 done; 1 an error (the server's message is printed); 2 a usage error (clap);
//! 3 `--fail-on-regression` found a significant regression.

mod bisect;
mod compare;
mod exec;
mod history;
mod http;
mod placeholders;
mod trend;
mod upload;
mod work;

pub use bisect::{BisectCommand, BisectRunArgs, BisectStartArgs};
pub use compare::CompareArgs;
pub use history::{BisectArgs, HistoryArgs};
pub use trend::TrendArgs;
pub use upload::UploadArgs;
pub use work::WorkArgs;

use clap::{Args, Subcommand};
use reqwest::StatusCode;
use std::io::Write as _;
use std::process::ExitCode;

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
    /// Start a bisection Perfline drives, or run one to its end like `git bisect run`.
    #[command(subcommand)]
    Bisect(BisectCommand),
    /// Run what Perfline asks of this machine (reruns that confirm alerts): a command per
    /// run, its output uploaded; until nothing is asked.
    Work(WorkArgs),
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
    /// What was asked cannot be done (a bisection that failed, a command that failed).
    #[error("{0}")]
    Failed(String),
}

/// Runs one client command.
pub async fn run(command: ClientCommand) -> ExitCode {
    let result = match command {
        ClientCommand::Upload(a) => upload::upload(a).await,
        ClientCommand::History(a) => history::history(a).await,
        ClientCommand::BisectLog(a) => history::bisect_log(a).await,
        ClientCommand::Compare(a) => compare::compare(a).await,
        ClientCommand::Trend(a) => trend::trend(a).await,
        ClientCommand::Work(a) => work::work(a).await,
        ClientCommand::Bisect(c) => bisect::bisect(c).await,
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

fn print_text(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
}
