// SPDX-License-Identifier: GPL-3.0-or-later
//! A server's configuration, from the command line and the environment.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

/// How a server runs: every option of the command line and the environment but the
/// subcommand (the binary's `Cli` adds that).
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// The database: a SQLite file (a path, or a `sqlite:` URL), created and migrated on
    /// first start; or a PostgreSQL database (`postgres://user:password@host:port/name`, 15 or
    /// newer), migrated on start, that any number of servers may share.
    #[arg(long, global = true, env = "PERFLINE_DB", default_value = "./perfline.db", value_parser = Database::parse)]
    pub db: Database,

    /// Address to listen on.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_LISTEN",
        default_value = "127.0.0.1:3000"
    )]
    pub listen: SocketAddr,

    /// Serve the site (WASM, JS, CSS) from this directory's `pkg/` (as `scripts/build-site`
    /// writes it) instead of the copy built into the binary: for development.
    #[arg(long, global = true, env = "PERFLINE_SITE_ROOT")]
    pub site_root: Option<PathBuf>,

    /// Largest accepted upload body, in bytes (default 64 MiB).
    #[arg(long, global = true, env = "PERFLINE_MAX_UPLOAD", default_value_t = 64 * 1024 * 1024)]
    pub max_upload: usize,

    /// Seconds a request may take before it is answered with 408.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_REQUEST_TIMEOUT",
        default_value_t = 120
    )]
    pub request_timeout: u64,

    /// Seconds a client may take to send a request's headers; also how long an idle
    /// keep-alive connection stays open waiting for its next request.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_HEADER_TIMEOUT",
        default_value_t = 10
    )]
    pub header_timeout: u64,

    /// Seconds a request body may stall between two chunks before the request fails with 408
    /// (a slow link that keeps sending is never cut off).
    #[arg(
        long,
        global = true,
        env = "PERFLINE_BODY_TIMEOUT",
        default_value_t = 30
    )]
    pub body_timeout: u64,

    /// Open connections at most; one more is answered 503 and closed.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_MAX_CONNECTIONS",
        default_value_t = 1024
    )]
    pub max_connections: usize,

    /// Expensive requests (uploads, comparisons and trends not yet cached, chart renders)
    /// running at once; default: twice the CPUs. Others wait up to a second, then get 503.
    #[arg(long, global = true, env = "PERFLINE_MAX_HEAVY")]
    pub max_heavy: Option<usize>,

    /// Permalinks anonymous readers' comparisons may make (token mode, without a token): past
    /// this many the oldest anonymous one is removed for each new one. A token holder's are
    /// kept for ever (docs/security.md, "Bounded reads").
    #[arg(
        long,
        global = true,
        env = "PERFLINE_MAX_ANONYMOUS_PERMALINKS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub max_anonymous_permalinks: u32,

    /// Milliseconds a database statement waits for another process's write lock (a
    /// maintenance script, a second server) before the request is answered 503.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_BUSY_TIMEOUT",
        default_value_t = 5000
    )]
    pub busy_timeout: u64,

    /// Connections this server keeps to PostgreSQL (its pool; one more listens for changes).
    /// Every server sharing the database has its own: keep their sum under the server's
    /// `max_connections`. Unused with SQLite.
    #[arg(long, global = true, env = "PERFLINE_DB_POOL", default_value_t = 16)]
    pub db_pool: u32,

    /// Milliseconds a request waits for a PostgreSQL connection from the pool before it is
    /// answered 503 (the database unreachable or every connection busy).
    #[arg(
        long,
        global = true,
        env = "PERFLINE_DB_ACQUIRE_TIMEOUT",
        default_value_t = 2000
    )]
    pub db_acquire_timeout: u64,

    /// Seconds Perfline waits at start for a PostgreSQL server that does not answer yet
    /// (retrying with backoff, each attempt logged with the host and the cause) before it
    /// gives up; 0 to try once.
    #[arg(long, global = true, env = "PERFLINE_DB_WAIT", default_value_t = 60)]
    pub db_wait: u64,

    /// Seconds in-flight requests get to finish after SIGTERM or SIGINT.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_SHUTDOWN_TIMEOUT",
        default_value_t = 30
    )]
    pub shutdown_timeout: u64,

    /// Who may write: `open` (anyone who reaches the port) or `token` (a bearer token with the
    /// right scope). Default: `open` on a loopback address without `--public-url` or
    /// `--trusted-proxy` (not behind a proxy), `token` otherwise.
    #[arg(long, global = true, env = "PERFLINE_AUTH", value_enum)]
    pub auth: Option<AuthMode>,

    /// Reads need a token too (any scope); raw files included.
    #[arg(long, global = true, env = "PERFLINE_PRIVATE")]
    pub private: bool,

    /// Days a browser's session (signing in with a token) lasts unused: a session not used
    /// for longer signs no one in. Sessions keep the limit they were made with; signing in
    /// deletes those past the current limits too.
    #[arg(long, global = true, env = "PERFLINE_SESSION_IDLE_DAYS", default_value_t = 7,
        value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub session_idle_days: u32,

    /// Days a browser's session lasts at most from signing in, however much it is used.
    #[arg(long, global = true, env = "PERFLINE_SESSION_MAX_DAYS", default_value_t = 30,
        value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub session_max_days: u32,

    /// The URL users reach Perfline at (`https://perf.example.org`): used in permalinks and
    /// text reports instead of the request's `Host`, and requests naming another `Host` are
    /// refused.
    #[arg(long, global = true, env = "PERFLINE_PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<String>,

    /// Another host name users reach Perfline by (repeatable; env: comma-separated). A request
    /// whose `Host` is neither a loopback name, the `--public-url` host nor one of these is
    /// refused with 421 (DNS rebinding); on a non-loopback address without `--public-url`,
    /// IP addresses are allowed too.
    #[arg(long = "allow-host", global = true, env = "PERFLINE_ALLOW_HOSTS", value_delimiter = ',', value_parser = parse_host)]
    pub allow_hosts: Vec<String>,

    /// A reverse proxy's address block (`127.0.0.1/32`, `10.0.0.0/8`; repeatable; env:
    /// comma-separated): a request from there is counted against the rate limits of the client
    /// its `X-Forwarded-For` names (the nearest address not itself a trusted proxy).
    #[arg(
        long = "trusted-proxy",
        global = true,
        env = "PERFLINE_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Writes a minute per token (anonymous writes in open mode: per client address) before
    /// `429 Too Many Requests`; 0 for no limit.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_WRITE_RATE",
        default_value_t = 120
    )]
    pub write_rate: u32,

    /// Reads a second per client address without a token (and per token with one); 0 for
    /// no limit.
    #[arg(long, global = true, env = "PERFLINE_READ_RATE", default_value_t = 0)]
    pub read_rate: u32,

    /// Do not run the alert detector in this process: uploads still queue the series they
    /// touch, and a server started without the flag examines them.
    #[arg(long, global = true, env = "PERFLINE_NO_ALERTS")]
    pub no_alerts: bool,

    /// For tests only (no flag, no variable): the background tasks panic, as a bug would, on
    /// every item whose description contains this text (`services::background::fault`).
    #[arg(skip)]
    pub fail_items: Option<String>,

    /// A URL that receives every alert event as a signed JSON POST (repeatable; env: comma-separated).
    #[arg(
        long = "webhook",
        global = true,
        env = "PERFLINE_WEBHOOKS",
        value_delimiter = ','
    )]
    pub webhooks: Vec<String>,

    /// The key of the webhooks' `X-Perfline-Signature` (HMAC-SHA256 of the body).
    #[arg(
        long,
        global = true,
        env = "PERFLINE_WEBHOOK_SECRET",
        hide_env_values = true
    )]
    pub webhook_secret: Option<String>,

    /// Let `--webhook` URLs point inside this machine or its networks (loopback, private,
    /// link-local, unique-local, CGNAT, ...): without it they are refused at start, and a
    /// webhook host name that resolves only there is refused at delivery.
    #[arg(long, global = true, env = "PERFLINE_ALLOW_INTERNAL_WEBHOOKS")]
    pub allow_internal_webhooks: bool,

    /// The SMTP relay for alert mails: `smtp://host:port` (STARTTLS when offered: add
    /// `?tls=required` to insist) or `smtps://host:port`; credentials from PERFLINE_SMTP_USER
    /// and PERFLINE_SMTP_PASSWORD.
    #[arg(long, global = true, env = "PERFLINE_SMTP")]
    pub smtp: Option<String>,

    /// The sender of alert mails (`Perfline <perfline@example.org>`).
    #[arg(long, global = true, env = "PERFLINE_MAIL_FROM")]
    pub mail_from: Option<String>,

    /// A recipient of alert mails (repeatable; env: comma-separated).
    #[arg(
        long = "mail-to",
        global = true,
        env = "PERFLINE_MAIL_TO",
        value_delimiter = ','
    )]
    pub mail_to: Vec<String>,

    /// Milliseconds before the first retry of an undelivered notification; doubled each time.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_NOTIFY_RETRY_FIRST_MS",
        default_value_t = 1000
    )]
    pub notify_retry_first_ms: u64,

    /// The longest wait between two retries, in seconds.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_NOTIFY_RETRY_MAX",
        default_value_t = 300
    )]
    pub notify_retry_max: u64,

    /// Seconds a new step waits for the reruns that confirm it (`GET /api/v1/work`) before
    /// it is announced anyway, with a note that it went unchecked.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_CONFIRM_TIMEOUT",
        default_value_t = 43_200
    )]
    pub confirm_timeout: u64,

    /// Seconds runs taken by a robot stay promised to it (`POST /api/v1/work/{id}/claim`, a
    /// bisection's `next`); a running robot renews its lease every third of it, so a robot
    /// that died frees its runs within this time.
    #[arg(
        long,
        global = true,
        env = "PERFLINE_LEASE_SECS",
        default_value_t = 120,
        value_parser = clap::value_parser!(u64).range(1..=86_400)
    )]
    pub lease_secs: u64,

    /// Hours after which an undelivered notification is given up on (logged as an error).
    #[arg(
        long,
        global = true,
        env = "PERFLINE_NOTIFY_GIVE_UP",
        default_value_t = 72
    )]
    pub notify_give_up: u64,

    /// Serve `/metrics` on this address only (e.g. a management network's `10.0.0.5:9464`),
    /// without authentication, instead of on `--listen` beside the API.
    #[arg(long, global = true, env = "PERFLINE_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Log filter, in `tracing_subscriber::EnvFilter` syntax (e.g. `info`, `perfline=debug`).
    #[arg(long, global = true, env = "PERFLINE_LOG", default_value = "info")]
    pub log: String,

    /// Log lines as text for people, or one JSON object per line for a log collector.
    #[arg(long, global = true, env = "PERFLINE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// How Perfline decides who may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthMode {
    /// Anyone who reaches the port may write (the default on a loopback address).
    Open,
    /// Writes need a bearer token with the right scope (the default on any other address).
    Token,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

pub use crate::store::Database;

/// A host name as `Host` carries it, without a port: lower case, letters, digits, `-`, `.`.
fn parse_host(raw: &str) -> Result<String, String> {
    let host = raw.trim().trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty()
        || host.len() > 253
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
    {
        return Err(format!(
            "'{raw}' is not a host name (letters, digits, '-' and '.'; no port)"
        ));
    }
    Ok(host)
}

/// `https://host[:port]` without a path, or a clear error.
fn parse_public_url(raw: &str) -> Result<String, String> {
    let url = raw.trim().trim_end_matches('/');
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or("must start with https:// or http://")?;
    if rest.is_empty() || rest.contains(['/', '?', '#', ' ']) {
        return Err("must be scheme://host[:port] with no path".into());
    }
    Ok(url.to_owned())
}

impl Config {
    /// The auth mode: as given, else `open` on a loopback address and `token` on any other.
    pub fn auth_mode(&self) -> AuthMode {
        // Behind a proxy or a tunnel (`--public-url`, `--trusted-proxy`, or `--allow-host`,
        // which says a network name reaches the port) a loopback port is reachable from
        // elsewhere: writes need tokens there too unless `--auth open` says otherwise.
        let proxied = self.public_url.is_some()
            || !self.trusted_proxies.is_empty()
            || !self.allow_hosts.is_empty();
        self.auth
            .unwrap_or(if self.listen.ip().is_loopback() && !proxied {
                AuthMode::Open
            } else {
                AuthMode::Token
            })
    }

    /// A configuration for tests and benchmarks: a database file and the defaults for the
    /// rest, on port 0, logging warnings only.
    pub fn for_db(db: PathBuf) -> Config {
        #[derive(Parser)]
        struct Only {
            #[command(flatten)]
            config: Config,
        }
        let mut config =
            Only::parse_from(["perfline", "--listen", "127.0.0.1:0", "--log", "warn"]).config;
        config.db = Database::Sqlite(db);
        config
    }

    /// How many expensive requests may run at once.
    pub fn heavy_limit(&self) -> usize {
        self.max_heavy.unwrap_or_else(|| {
            2 * std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(raw: &str, expect: Result<Database, &str>) {
        let got = Database::parse(raw);
        match (&got, &expect) {
            (Ok(g), Ok(e)) => assert_eq!(g, e, "{raw}"),
            (Err(g), Err(e)) => assert!(g.contains(e), "{raw}: {g}"),
            _ => panic!("{raw}: {got:?}, expected {expect:?}"),
        }
    }

    #[test]
    fn database_urls() {
        let file = |p: &str| Ok(Database::Sqlite(PathBuf::from(p)));
        check("./perfline.db", file("./perfline.db"));
        check("/var/lib/perfline/p.db", file("/var/lib/perfline/p.db"));
        check("sqlite:p.db", file("p.db"));
        check("sqlite:///var/lib/p.db", file("/var/lib/p.db"));
        check(
            "postgres://perfline:secret@db:5432/perfline",
            Ok(Database::Postgres(
                "postgres://perfline:secret@db:5432/perfline".into(),
            )),
        );
        check(
            "postgresql://db/perfline",
            Ok(Database::Postgres("postgresql://db/perfline".into())),
        );
        check("", Err("is empty"));
        check("sqlite:", Err("names no file"));
        check("mysql://db/perfline", Err("not a database Perfline knows"));
    }

    #[test]
    fn postgres_urls_never_show_the_password() {
        let db = Database::parse("postgres://perfline:secret@db:5432/perfline").unwrap();
        let e = db.sqlite_path().unwrap_err().to_string();
        assert!(e.contains("pg_dump"), "{e}");
        assert_eq!(db.to_string(), "postgres://...@db:5432/perfline");
    }
}
