// SPDX-License-Identifier: GPL-3.0-or-later
//! What a store method fails with: [`StoreError`], and how a driver's error is classified.

/// What a store method fails with. Which to use where:
/// - [`StoreError::Busy`]: locked by another writer or connection, or the pool exhausted:
///   worth retrying (the edge answers 503 with `Retry-After`).
/// - [`StoreError::Unreachable`]: the database server is down, restarting, or the connection
///   was lost (503 too).
/// - [`StoreError::NotFound`]: a row the operation needs is not there.
/// - [`StoreError::Conflict`]: a row with that name or key exists.
/// - [`StoreError::Invalid`]: the operation's input breaks a rule of the store.
/// - [`StoreError::Corrupt`]: a stored value cannot be read back (a torn blob, bad JSON).
/// - [`StoreError::Other`]: anything else the driver reports.
///
/// The strings of `Busy`, `Unreachable`, `Corrupt` and `Other` are the driver's or the
/// decoder's words, for the log only; those of `NotFound`, `Conflict` and `Invalid` are
/// sentences for the person asking.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database busy: {0}")]
    Busy(String),
    #[error("database unreachable: {0}")]
    Unreachable(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Invalid(String),
    #[error("stored data cannot be read: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Other(sqlx::Error),
}

pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// The error a sqlx error is: busy, unreachable, or another.
    fn of(e: sqlx::Error) -> StoreError {
        if StoreError::is_unreachable(&e) {
            StoreError::Unreachable(e.to_string())
        } else if StoreError::is_busy(&e) {
            StoreError::Busy(e.to_string())
        } else {
            StoreError::Other(e)
        }
    }

    /// Whether a sqlx error means the database server cannot be reached: the connection
    /// failed or was lost, or the server is shutting down, crashed, or starting.
    fn is_unreachable(e: &sqlx::Error) -> bool {
        match e {
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => true,
            sqlx::Error::Database(d) => {
                let code = d.code().unwrap_or_default();
                // PostgreSQL: admin shutdown, crash shutdown, cannot connect now, and every
                // connection exception (class 08).
                matches!(code.as_ref(), "57P01" | "57P02" | "57P03") || code.starts_with("08")
            }
            _ => false,
        }
    }

    /// Whether a sqlx error means "busy, try again".
    fn is_busy(e: &sqlx::Error) -> bool {
        match e {
            // The pool is exhausted (every connection in use, or none can be made).
            sqlx::Error::PoolTimedOut => true,
            sqlx::Error::Database(d) => {
                let code = d.code().unwrap_or_default();
                match code.parse::<i32>() {
                    // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
                    Ok(code) => matches!(code & 0xff, 5 | 6),
                    // PostgreSQL: serialization failure, deadlock, lock not available, too many
                    // connections, a statement cancelled (its timeout), not accepting
                    // connections yet.
                    Err(_) => matches!(
                        code.as_ref(),
                        "40001" | "40P01" | "55P03" | "53300" | "57014" | "57P03"
                    ),
                }
            }
            _ => false,
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::of(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Corrupt(format!("JSON: {e}"))
    }
}

impl StoreError {
    /// A stored value that cannot be decoded (a torn blob, a bad packing).
    pub fn corrupt(e: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}

/// A stored name of a closed set (a status, a direction) read back as its type: a value the
/// code never writes is [`StoreError::Corrupt`], never a default that would pass for data.
pub fn decode<T>(column: &str, raw: &str, parse: impl FnOnce(&str) -> Option<T>) -> StoreResult<T> {
    parse(raw)
        .ok_or_else(|| StoreError::Corrupt(format!("{column}: {raw:?} is not a value it holds")))
}
