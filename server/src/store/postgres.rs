// SPDX-License-Identifier: GPL-3.0-or-later
//! The PostgreSQL engine's own parts: connecting (the pool, its lock timeout), its schema
//! (`migrations/postgres/`, the same tables and columns as SQLite's, checked by the conformance
//! test `it::postgres`), and listening for the data version's change notices. The store's
//! queries are shared with SQLite (`sql.rs`).

use std::time::Duration;

use anyhow::Context;
use std::str::FromStr;

use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};

/// The channel the data version's trigger notifies, with the new version as payload, when a
/// transaction that changed data commits.
pub const DATA_VERSION_CHANNEL: &str = "perfline_data_version";

/// Connects to the database at `url` and brings its schema up to date. Safe when several
/// servers start at once: sqlx holds a PostgreSQL advisory lock while it migrates. A statement
/// waits at most `busy_timeout` for a lock (another server's write transaction) before it
/// fails as busy; a request waits at most `acquire_timeout` for a connection. A server that
/// does not answer yet is tried again with backoff for `wait`, each attempt logged with the
/// host and the cause.
pub async fn connect(url: &str, options: &super::Connect) -> anyhow::Result<PgPool> {
    let connect = PgConnectOptions::from_str(url)
        .context("cannot read the PostgreSQL URL")?
        .application_name("perfline")
        .options([(
            "lock_timeout",
            format!("{}ms", options.busy_timeout.as_millis()),
        )]);
    wait_for_server(&connect, options.wait).await?;
    let pool = PgPoolOptions::new()
        .max_connections(options.pool_size)
        .acquire_timeout(options.acquire_timeout)
        .connect_lazy_with(connect.clone());
    sqlx::migrate!("../migrations/postgres")
        .run(&pool)
        .await
        .with_context(|| {
            format!(
                "cannot migrate the PostgreSQL database at {}",
                where_(&connect)
            )
        })?;
    Ok(pool)
}

/// `host:port` of a connection's server, for messages.
pub fn where_(options: &PgConnectOptions) -> String {
    format!("{}:{}", options.get_host(), options.get_port())
}

/// What went wrong connecting, in words an operator can act on: "connection refused",
/// "no answer within 5 s", or the server's own message ("database \"x\" does not exist").
pub fn connect_cause(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Io(io) => match io.kind() {
            std::io::ErrorKind::ConnectionRefused => "connection refused".into(),
            std::io::ErrorKind::ConnectionReset => "connection reset".into(),
            std::io::ErrorKind::TimedOut => "timed out".into(),
            std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionAborted => {
                "connection closed by the server".into()
            }
            _ => io.to_string(),
        },
        sqlx::Error::Database(d) => d.message().to_owned(),
        sqlx::Error::Tls(t) => format!("TLS: {t}"),
        other => other.to_string(),
    }
}

/// The longest one connection attempt may take (a host that drops packets never refuses).
const ATTEMPT: Duration = Duration::from_secs(5);

/// Connects once to see that the server answers, trying again with backoff (0.25 s doubling
/// to 5 s) until `wait` has passed; the error names the server and the last cause.
async fn wait_for_server(options: &PgConnectOptions, wait: Duration) -> anyhow::Result<()> {
    use sqlx::{ConnectOptions, Connection};
    let started = std::time::Instant::now();
    let mut delay = Duration::from_millis(250);
    let mut attempt = 1u32;
    loop {
        let cause = match tokio::time::timeout(ATTEMPT, options.connect()).await {
            Ok(Ok(conn)) => {
                let _ = conn.close().await;
                if attempt > 1 {
                    tracing::info!(server = %where_(options), attempt, "PostgreSQL answers");
                }
                return Ok(());
            }
            Ok(Err(e)) => connect_cause(&e),
            Err(_) => format!("no answer within {} s", ATTEMPT.as_secs()),
        };
        let waited = started.elapsed();
        if waited + delay > wait {
            anyhow::bail!(
                "cannot connect to PostgreSQL at {}: {cause} (after {attempt} attempt(s) in {} s; --db-wait sets how long to wait)",
                where_(options),
                waited.as_secs()
            );
        }
        tracing::warn!(
            server = %where_(options),
            attempt,
            cause = %cause,
            retry_in_ms = delay.as_millis() as u64,
            "PostgreSQL does not answer yet"
        );
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(5));
        attempt += 1;
    }
}

/// The data version as stored (see `Store::generation`).
pub async fn data_version(pool: &PgPool) -> anyhow::Result<i64> {
    let (v,): (i64,) = sqlx::query_as("SELECT version FROM data_version WHERE id = 1")
        .fetch_one(pool)
        .await?;
    Ok(v)
}

/// A connection listening for data version notices.
pub async fn listen(url: &str) -> anyhow::Result<PgListener> {
    let mut listener = PgListener::connect(url)
        .await
        .context("cannot connect to PostgreSQL to listen")?;
    listener.listen(DATA_VERSION_CHANNEL).await?;
    Ok(listener)
}

/// Listens for the data version's notices in a task of its own: each one (a write committed
/// through any server) wakes this server's alert detector, which looks for queued work if it
/// holds the detector's lease. A lost connection is made again, and the detector woken once
/// more, since notices sent meanwhile are lost.
pub async fn spawn_listener(
    url: &str,
    wake: std::sync::Arc<tokio::sync::Notify>,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let mut listener = listen(url).await?;
    Ok(tokio::spawn(async move {
        loop {
            match listener.try_recv().await {
                Ok(Some(_)) => wake.notify_one(),
                // The connection was lost; the next call connects and listens again.
                Ok(None) => {
                    tracing::warn!("lost the PostgreSQL connection that listens for changes");
                    wake.notify_one();
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen for PostgreSQL notices; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }))
}

/// Creates a new empty database, named `prefix` and a random number, on the PostgreSQL server
/// that `base` (a URL of one of its databases) names, and answers its URL: what the tests and
/// benchmarks run each server on.
pub async fn create_database(base: &str, prefix: &str) -> anyhow::Result<String> {
    use sqlx::{Connection, Executor};
    let name = format!("{prefix}_{:016x}", rand::random::<u64>());
    let mut admin = sqlx::PgConnection::connect(base)
        .await
        .context("cannot connect to PostgreSQL")?;
    admin
        .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .await
        .with_context(|| format!("cannot create the database {name}"))?;
    let (server, _) = base.rsplit_once('/').context("the URL names no database")?;
    Ok(format!("{server}/{name}"))
}
