//! The PostgreSQL engine, as far as it goes today: its schema (`migrations/postgres/`, the
//! same tables and columns as SQLite's, checked by the conformance test `it::postgres`) and the
//! data version's change notices. The store's reads and writes speak SQLite only so far;
//! `--db postgres://...` is refused at start until they speak PostgreSQL too (issue 15).

use std::time::Duration;

use anyhow::Context;
use sqlx::postgres::{PgListener, PgPool, PgPoolOptions};

/// The channel the data version's trigger notifies, with the new version as payload, when a
/// transaction that changed data commits.
pub const DATA_VERSION_CHANNEL: &str = "perfline_data_version";

/// Connects to the database at `url` and brings its schema up to date. Safe when several
/// servers start at once: sqlx holds a PostgreSQL advisory lock while it migrates.
pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<PgPool> {
    let pool = PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(10))
        .connect(url)
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
