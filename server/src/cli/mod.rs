// SPDX-License-Identifier: GPL-3.0-or-later
//! The `perfline` binary's command line: what it parses and where each command goes. Serving
//! (no subcommand) is `start`; the commands on the database without a server (`token`,
//! `backup`, `migrate-db`) are `admin`; the client commands against a running server
//! (`upload`, `history`, `bisect-log`, `compare`, `trend`) are `client`.

pub mod admin;
pub mod client;
mod import_mail;
pub mod start;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::config::Config;

/// `perfline --version`: the version, the licence and where the source is.
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\nLicence: GPL-3.0-or-later (ported parts from mmtests and lkp-tests: GPL-2.0-or-later)",
    "\nSource: `perfline source > perfline-src.tar.gz`, or /source.tar.gz on a running server",
);

/// Perfline: upload, compare and chart kernel benchmark results.
#[derive(Debug, Clone, Parser)]
#[command(name = "perfline", version, long_version = LONG_VERSION, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub config: Config,
}

/// What else the binary does than serve.
#[derive(Debug, Clone, clap::Subcommand)]
#[expect(
    clippy::large_enum_variant,
    reason = "parsed once at start; boxing would only obscure the clap derive"
)]
pub enum Command {
    /// Manage API tokens (in the database given by --db).
    Token {
        #[command(subcommand)]
        action: TokenCommand,
    },
    /// Copies the database given by --db to a new file, consistently, while servers go on
    /// serving it (SQLite's `VACUUM INTO`): a complete, compacted database, checked before it
    /// takes its name. Refuses a file that exists.
    Backup {
        /// The new file.
        to: PathBuf,
    },
    /// Copies a SQLite store into a new PostgreSQL database: every table with its ids (uploads
    /// with their raw bytes, runs, series, histories, marks, permalinks, tokens, alerts, the
    /// audit trail), in one transaction, then checks every table's rows and checksum on both
    /// sides. Refuses a database that holds data.
    MigrateDb {
        /// The SQLite file.
        #[arg(long)]
        from: PathBuf,
        /// The PostgreSQL database: `postgres://user:password@host:port/name`.
        #[arg(long)]
        to: String,
    },
    /// Imports the kernel test robot's report mails of an archive into the database given by
    /// --db: a directory of mails or mbox files (walked recursively), an mbox, or a
    /// public-inbox git archive (`git/0.git`, ... or one epoch). Mails that are not
    /// performance reports are skipped; a re-run adds only new mails. The samples of the
    /// older mails' ASCII plots are stored as runs too (`lkp-mail:TESTCASE`, marked
    /// bisect-good and bad).
    ImportMail {
        /// The directory, mbox or public-inbox archive.
        path: PathBuf,
        /// Stores the reports only, not their plots' samples as runs (faster).
        #[arg(long)]
        no_plot_runs: bool,
    },
    /// Writes the source this binary was built from (a .tar.gz: the workspace's code, scripts,
    /// docs and licence texts) to standard output, or to `--output`.
    Source {
        /// The file to write (refused if it exists); default: standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// The client commands, run against a server (`--server`, `PERFLINE_SERVER`).
    #[command(flatten)]
    Client(client::ClientCommand),
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum TokenCommand {
    /// Creates a token and prints it once, on one line; only its SHA-256 is kept.
    Create {
        /// A unique name: the robot or person (shown in the audit trail).
        #[arg(long)]
        name: String,
        /// Comma-separated: read, upload, mark, admin.
        #[arg(long)]
        scope: String,
        /// Days until it expires (default: never).
        #[arg(long)]
        expires_days: Option<u32>,
    },
    /// Lists tokens: name, scopes, created, expires, last used, revoked.
    List,
    /// Revokes a token by name or id.
    Revoke {
        /// The token's name or id.
        token: String,
    },
}

/// Runs the command line of this process.
pub async fn main() -> ExitCode {
    let Cli { command, config } = Cli::parse();
    match command {
        // The client commands print only their answers on stdout and their messages on
        // stderr: no log subscriber.
        Some(Command::Client(command)) => client::run(command).await,
        Some(Command::Source { output }) => write_source(output.as_deref()),
        Some(command) => {
            start::init_logging(&config);
            admin::run(&config, command).await
        }
        None => {
            start::init_logging(&config);
            start::serve_until_signalled(config).await
        }
    }
}

/// `perfline source`: the embedded source archive, to a new file or standard output.
fn write_source(output: Option<&std::path::Path>) -> ExitCode {
    use std::io::Write as _;
    let archive = crate::http::source::ARCHIVE;
    let written = match output {
        Some(path) => std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .and_then(|mut f| f.write_all(archive)),
        None => std::io::stdout().lock().write_all(archive),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("perfline source: {e}");
            ExitCode::FAILURE
        }
    }
}
