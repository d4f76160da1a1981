// SPDX-License-Identifier: GPL-3.0-or-later
//! `AppState`: what every handler can reach (the services and the edge's own parts), and how
//! it is built from the configuration.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::prelude::*;

use crate::config::Config;
use crate::services::Services;

/// What every handler can reach: the services, and what only the HTTP edge uses.
#[derive(Clone)]
pub struct AppState {
    pub services: Services,
    pub leptos: LeptosOptions,
    /// The dashboard's data, for one store generation.
    pub dashboard_cache: Arc<std::sync::Mutex<Option<(u64, app::types::Dashboard)>>>,
    /// When this process last recorded each token's use.
    pub touched: Arc<crate::http::auth::Touched>,
    /// Requests per token or client address.
    pub rate_limits: Arc<crate::http::auth::RateLimits>,
    /// The built site's files (`GET /pkg/{file}`).
    pub site: Arc<crate::http::assets::Site>,
    /// The `Host` names and `Origin`s this server answers (DNS rebinding, CSRF).
    pub origins: Arc<crate::http::auth::Origins>,
}

/// Handlers reach the services' fields (`state.store`, `state.config`) directly.
impl std::ops::Deref for AppState {
    type Target = Services;
    fn deref(&self) -> &Services {
        &self.services
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}

impl AppState {
    /// Opens the store (creating and migrating it) and prepares the site options.
    pub async fn new(config: Config) -> anyhow::Result<AppState> {
        let site = match &config.site_root {
            Some(root) => crate::http::assets::Site::from_dir(root)?,
            None => crate::http::assets::Site::embedded(),
        };
        let leptos = LeptosOptions::builder()
            .output_name(site.name().unwrap_or("perfline").to_owned())
            .site_pkg_dir("pkg")
            .site_addr(config.listen)
            .build();
        let rate_limits = Arc::new(crate::http::auth::RateLimits::new(
            config.write_rate,
            config.read_rate,
        ));
        let origins = Arc::new(crate::http::auth::Origins::new(&config));
        Ok(AppState {
            services: Services::new(config).await?,
            origins,
            site: Arc::new(site),
            leptos,
            dashboard_cache: Default::default(),
            touched: Default::default(),
            rate_limits,
        })
    }
}
