// SPDX-License-Identifier: GPL-3.0-or-later
//! The services: what Perfline does with stored runs, whoever asks. Uploads parsed and stored
//! (`upload`), a run or an upload as shown (`runs`), comparisons and their permalinks
//! (`compare`), trends by commit and regression reports (`trend`), the alert pipeline
//! (`alerts`: detect, notify, deliver, triage), bisections Perfline drives (`bisection`), and
//! the bound on expensive work (`heavy`).
//! This file holds what they share ([`Services`]) and the one error they answer with
//! ([`ServiceError`]). The HTTP edge wraps `Services` in its `AppState` and turns a
//! `ServiceError` into the JSON envelope or a page's message; nothing here knows HTTP.

pub mod alerts;
pub mod background;
pub mod bisection;
pub mod calibration;
pub mod compare;
pub mod console;
pub mod heavy;
pub mod leases;
pub mod profile;
pub mod reports;
pub mod runs;
pub mod search;
pub mod telemetry;
pub mod trend;
pub mod upload;

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::store::{self, Store, StoreError};

/// The store, the caches and the limits every service uses; cheap to clone.
#[derive(Clone)]
pub struct Services {
    pub store: Store,
    pub config: Arc<Config>,
    /// Computed trends and their rendered bodies, valid for one store generation.
    pub trend_cache: Arc<trend::TrendCache>,
    /// Computed comparisons: live ones until the next write, permalinks for good.
    pub compare_cache: Arc<compare::CompareCache>,
    /// The limit of expensive work running at once.
    pub heavy: Arc<heavy::Heavy>,
    /// Where alert notifications go.
    pub channels: Arc<alerts::notify::Channels>,
    /// Wakes the alert pipeline's tasks.
    pub wakers: Arc<alerts::Wakers>,
    /// The address the server listens on, for links in notifications without `--public-url`.
    pub bound: Arc<std::sync::OnceLock<std::net::SocketAddr>>,
    /// This process among the servers sharing the database: the holder of its leases.
    pub worker_id: Arc<str>,
    /// Prometheus metrics (served by the edge at `GET /metrics`).
    pub metrics: Arc<telemetry::Metrics>,
    /// What each background task did last (`/healthz`, `GET /api/v1/background`).
    pub background: Arc<background::Background>,
}

impl Services {
    /// Opens the store (creating and migrating it, deleting ended sessions) and sets up the
    /// caches and notification channels the configuration asks for.
    pub async fn new(config: Config) -> anyhow::Result<Services> {
        let store = Store::connect_with(
            &config.db,
            &store::Connect {
                busy_timeout: Duration::from_millis(config.busy_timeout),
                pool_size: config.db_pool,
                acquire_timeout: Duration::from_millis(config.db_acquire_timeout.max(1)),
                wait: Duration::from_secs(config.db_wait),
            },
        )
        .await?;
        store.start_probe(&config.db);
        store.start_folder();
        // Ended sessions go at start too (and at every sign-in); best effort: another
        // server may hold the write lock.
        match store
            .end_expired_sessions(config.session_idle_days, config.session_max_days)
            .await
        {
            Ok(0) => {}
            Ok(n) => tracing::info!(sessions = n, "deleted ended sessions"),
            Err(e) => tracing::warn!(error = %e, "could not delete ended sessions"),
        }
        let channels = Arc::new(alerts::notify::Channels::from_config(&config)?);
        Ok(Services {
            store,
            heavy: Arc::new(heavy::Heavy::new(config.heavy_limit())),
            config: Arc::new(config),
            trend_cache: Default::default(),
            compare_cache: Default::default(),
            channels,
            wakers: Default::default(),
            bound: Default::default(),
            metrics: Default::default(),
            background: Default::default(),
            worker_id: format!(
                "{}-{}-{:016x}",
                std::env::var("HOSTNAME").unwrap_or_else(|_| "perfline".into()),
                std::process::id(),
                rand::random::<u64>()
            )
            .into(),
        })
    }

    /// The origin of links in notifications: `--public-url`, else the address we listen on.
    pub fn notice_origin(&self) -> String {
        if let Some(url) = &self.config.public_url {
            return url.clone();
        }
        match self.bound.get() {
            Some(a) if a.ip().is_unspecified() => format!("http://localhost:{}", a.port()),
            Some(a) => format!("http://{a}"),
            None => format!("http://{}", self.config.listen),
        }
    }
}

/// What a service fails with. Which to use where:
/// - [`ServiceError::Invalid`]: the question cannot be answered as asked (a kernel named
///   twice, a filter that names no status); the message says why, for the person asking.
/// - [`ServiceError::Unprocessable`]: what was sent cannot be taken (a file that does not parse,
///   an upload that contradicts the work request it answers); it says which file, line or field.
/// - [`ServiceError::NotFound`]: what the question names is not there (no runs of a kernel,
///   no permalink with that id).
/// - [`ServiceError::Gone`]: it was there and was deleted (a permalink whose runs went).
/// - [`ServiceError::Overloaded`]: too many expensive requests at once; try again.
/// - [`ServiceError::Store`]: the store failed (busy, unreachable, or worse); it says which.
/// - [`ServiceError::Internal`]: anything else (a statistics or chart failure): a bug, logged
///   by the edge and never shown.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("{0}")]
    Invalid(String),
    /// A field whose value is well formed but not acceptable (a commit that is not hex): 422,
    /// naming the field.
    #[error("{message}")]
    Field {
        field: &'static str,
        message: String,
    },
    /// Content that cannot be accepted (a file that does not parse): 422, with its file, line
    /// or field.
    #[error("{0}")]
    Unprocessable(#[from] crate::ingest::IngestError),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Gone(String),
    #[error("Perfline is busy with other expensive requests; try again")]
    Overloaded,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

/// The indices of `keys` grouped by equal key: the groups in the order their first key comes,
/// each group's indices in order.
pub(crate) fn groups_in_order<K: std::hash::Hash + Eq>(
    keys: impl IntoIterator<Item = K>,
) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: std::collections::HashMap<K, usize> = std::collections::HashMap::new();
    for (i, key) in keys.into_iter().enumerate() {
        let g = *group_of.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
}

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl From<anyhow::Error> for ServiceError {
    fn from(e: anyhow::Error) -> Self {
        ServiceError::Internal(e)
    }
}

pub type ServiceResult<T> = Result<T, ServiceError>;

#[cfg(test)]
mod tests {
    #[test]
    fn groups_keep_the_order_of_their_first_key_and_of_their_members() {
        let keys = ["b", "a", "b", "c", "a", "b"];
        assert_eq!(
            super::groups_in_order(keys),
            [vec![0, 2, 5], vec![1, 4], vec![3]]
        );
        assert!(super::groups_in_order(Vec::<u8>::new()).is_empty());
    }
}
