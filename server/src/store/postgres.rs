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
/// waits at most `lock_timeout` for a lock (another server's write transaction) before it
/// fails as busy.
pub async fn connect(
    url: &str,
    max_connections: u32,
    lock_timeout: Duration,
) -> anyhow::Result<PgPool> {
    let options = PgConnectOptions::from_str(url)
        .context("cannot read the PostgreSQL URL")?
        .application_name("perfline")
        .options([("lock_timeout", format!("{}ms", lock_timeout.as_millis()))]);
    let pool = PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await
        .context("cannot connect to PostgreSQL")?;
    sqlx::migrate!("../migrations/postgres")
        .run(&pool)
        .await
        .context("cannot migrate the PostgreSQL database")?;
    Ok(pool)
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
