// SPDX-License-Identifier: GPL-3.0-or-later
//! Whether the database answers, known at every moment without waiting for it: a probe of
//! its own checks the server every [`PERIOD`] (on PostgreSQL with a connection of its own,
//! outside the pool, so a full pool is not an outage) and keeps the state in a watch channel.
//! `/healthz` reads the state; requests fail fast while it is down, and those in flight
//! when it goes down are answered at once.

use std::time::{Duration, SystemTime};

use sqlx::postgres::PgConnectOptions;
use tokio::sync::watch;

/// How often the probe checks.
pub const PERIOD: Duration = Duration::from_millis(250);

/// The longest a probe waits for an answer before it calls the database unreachable (a
/// frozen server or a dropped link never answers).
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(600);

/// What the probe found last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbState {
    Up,
    Down {
        /// When the probe first failed.
        since: SystemTime,
        /// Why, for an operator: "connection refused to 10.0.0.5:5432".
        cause: String,
    },
}

impl DbState {
    pub fn is_down(&self) -> bool {
        matches!(self, DbState::Down { .. })
    }

    /// "database unreachable since 14:02:11 UTC: connection refused to 10.0.0.5:5432".
    pub fn describe(&self) -> String {
        match self {
            DbState::Up => "ok".into(),
            DbState::Down { since, cause } => {
                let secs = since
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
                format!("database unreachable since {h:02}:{m:02}:{s:02} UTC: {cause}")
            }
        }
    }
}

/// The probe's findings, shared by the store's clones.
pub struct Health {
    state: watch::Sender<DbState>,
    probe: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            state: watch::Sender::new(DbState::Up),
            probe: Default::default(),
        }
    }
}

impl Health {
    /// The state now.
    pub fn now(&self) -> DbState {
        self.state.borrow().clone()
    }

    /// A receiver that sees every change.
    pub fn watch(&self) -> watch::Receiver<DbState> {
        self.state.subscribe()
    }

    fn set(&self, found: Result<(), String>) {
        self.state
            .send_if_modified(|state| match (&found, &*state) {
                (Ok(()), DbState::Up) | (Err(_), DbState::Down { .. }) => false,
                (Ok(()), DbState::Down { .. }) => {
                    tracing::info!("the database answers again");
                    *state = DbState::Up;
                    true
                }
                (Err(cause), DbState::Up) => {
                    *state = DbState::Down {
                        since: SystemTime::now(),
                        cause: cause.clone(),
                    };
                    tracing::error!(cause = %cause, "the database does not answer");
                    true
                }
            });
    }

    /// Probes a PostgreSQL server with a connection of its own, made again when lost.
    pub fn spawn_postgres(self: &std::sync::Arc<Self>, options: PgConnectOptions) {
        let health = self.clone();
        let task = tokio::spawn(async move {
            use sqlx::{ConnectOptions, Connection};
            let server = super::postgres::where_(&options);
            let mut conn: Option<sqlx::PgConnection> = None;
            loop {
                let found = match conn.as_mut() {
                    Some(c) => match tokio::time::timeout(PROBE_TIMEOUT, c.ping()).await {
                        Ok(Ok(())) => Ok(()),
                        Ok(Err(e)) => Err(super::postgres::connect_cause(&e)),
                        Err(_) => Err(format!("no answer within {} ms", PROBE_TIMEOUT.as_millis())),
                    },
                    None => match tokio::time::timeout(PROBE_TIMEOUT, options.connect()).await {
                        Ok(Ok(c)) => {
                            conn = Some(c);
                            Ok(())
                        }
                        Ok(Err(e)) => Err(super::postgres::connect_cause(&e)),
                        Err(_) => Err(format!("no answer within {} ms", PROBE_TIMEOUT.as_millis())),
                    },
                };
                if found.is_err() {
                    conn = None;
                }
                health.set(found.map_err(|cause| format!("{cause} ({server})")));
                tokio::time::sleep(PERIOD).await;
            }
        });
        if let Ok(mut probe) = self.probe.lock() {
            *probe = Some(task);
        }
    }

    /// Probes a SQLite file through a read connection (a file is down when the disk fails).
    pub fn spawn_sqlite(self: &std::sync::Arc<Self>, pool: sqlx::SqlitePool, file: String) {
        let health = self.clone();
        let task = tokio::spawn(async move {
            loop {
                let ping = sqlx::query("SELECT 1").execute(&pool);
                let found = match tokio::time::timeout(PROBE_TIMEOUT * 4, ping).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(e)) => Err(format!("{e} ({file})")),
                    Err(_) => Err(format!("no answer within 2.4 s ({file})")),
                };
                health.set(found);
                tokio::time::sleep(PERIOD * 4).await;
            }
        });
        if let Ok(mut probe) = self.probe.lock() {
            *probe = Some(task);
        }
    }

    /// Stops the probe.
    pub fn stop(&self) {
        if let Ok(mut probe) = self.probe.lock() {
            if let Some(task) = probe.take() {
                task.abort();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_down_state_says_since_when_and_why() {
        let since =
            SystemTime::UNIX_EPOCH + Duration::from_secs(86_400 * 3 + 14 * 3600 + 2 * 60 + 11);
        let state = DbState::Down {
            since,
            cause: "connection refused (10.0.0.5:5432)".into(),
        };
        assert_eq!(
            state.describe(),
            "database unreachable since 14:02:11 UTC: connection refused (10.0.0.5:5432)"
        );
        assert!(state.is_down() && !DbState::Up.is_down());
    }

    #[tokio::test]
    async fn the_state_changes_once_per_transition() {
        let health = Health::default();
        let mut rx = health.watch();
        health.set(Err("refused".into()));
        assert!(rx.has_changed().unwrap());
        let first = rx.borrow_and_update().clone();
        health.set(Err("refused again".into()));
        assert!(
            !rx.has_changed().unwrap(),
            "still down: no change, the first cause kept"
        );
        assert_eq!(health.now(), first);
        health.set(Ok(()));
        assert_eq!(*rx.borrow_and_update(), DbState::Up);
    }
}
