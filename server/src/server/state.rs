//! `AppState`: what every handler can reach, and how it is built from the configuration.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;
use leptos::prelude::*;

use crate::config::Config;
use crate::store::{self, Store};

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    pub leptos: LeptosOptions,
    /// Computed trends and their rendered bodies, valid for one store generation.
    pub trend_cache: Arc<crate::trend::TrendCache>,
    /// Computed comparisons: live ones until the next write, permalinks for good.
    pub compare_cache: Arc<crate::compare::CompareCache>,
    /// The dashboard's data, for one store generation.
    pub dashboard_cache: Arc<std::sync::Mutex<Option<(u64, app::types::Dashboard)>>>,
    /// The limit of expensive work running at once.
    pub heavy: Arc<crate::work::Heavy>,
    /// When this process last recorded each token's use.
    pub touched: Arc<crate::auth::Touched>,
    /// Requests per token or client address.
    pub rate_limits: Arc<crate::auth::RateLimits>,
    /// Where alert notifications go.
    pub channels: Arc<crate::alerts::notify::Channels>,
    /// Wakes the alert pipeline's tasks.
    pub wakers: Arc<crate::alerts::Wakers>,
    /// The address `serve` listens on, for links in notifications without `--public-url`.
    pub bound: Arc<std::sync::OnceLock<std::net::SocketAddr>>,
    /// Prometheus metrics (`GET /metrics`).
    pub metrics: Arc<crate::metrics::Metrics>,
    /// The built site's files (`GET /pkg/{file}`).
    pub site: Arc<crate::assets::Site>,
    /// This process among the servers sharing the database: the holder of its leases.
    pub worker_id: Arc<str>,
    /// The `Host` names and `Origin`s this server answers (DNS rebinding, CSRF).
    pub origins: Arc<crate::auth::Origins>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}

impl AppState {
    /// Opens the store (creating and migrating it) and prepares the site options.
    pub async fn new(config: Config) -> anyhow::Result<AppState> {
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
        let site = match &config.site_root {
            Some(root) => crate::assets::Site::from_dir(root)?,
            None => crate::assets::Site::embedded(),
        };
        let leptos = LeptosOptions::builder()
            .output_name(site.name().unwrap_or("perfline").to_owned())
            .site_pkg_dir("pkg")
            .site_addr(config.listen)
            .build();
        let rate_limits = Arc::new(crate::auth::RateLimits::new(
            config.write_rate,
            config.read_rate,
        ));
        let channels = Arc::new(crate::alerts::notify::Channels::from_config(&config)?);
        let origins = Arc::new(crate::auth::Origins::new(&config));
        Ok(AppState {
            origins,
            site: Arc::new(site),
            channels,
            wakers: Default::default(),
            bound: Default::default(),
            metrics: Default::default(),
            store,
            heavy: Arc::new(crate::work::Heavy::new(config.heavy_limit())),
            config: Arc::new(config),
            leptos,
            trend_cache: Default::default(),
            compare_cache: Default::default(),
            dashboard_cache: Default::default(),
            touched: Default::default(),
            rate_limits,
            worker_id: format!(
                "{}-{}-{:016x}",
                std::env::var("HOSTNAME").unwrap_or_else(|_| "perfline".into()),
                std::process::id(),
                rand::random::<u64>()
            )
            .into(),
        })
    }
}

impl AppState {
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
