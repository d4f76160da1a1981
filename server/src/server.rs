//! The server: state, router, middleware and `serve`.

use crate::{api, config, store, web};

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::IntoResponse;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

pub use config::Config;
use store::Store;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    pub leptos: LeptosOptions,
    /// Computed trends and their rendered bodies, valid for one store generation.
    pub trend_cache: Arc<crate::trend::TrendCache>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}

impl AppState {
    /// Opens the store (creating and migrating it) and prepares the site options.
    pub async fn new(config: Config) -> anyhow::Result<AppState> {
        let store = Store::open(&config.db).await?;
        let leptos = LeptosOptions::builder()
            .output_name("perfline")
            .site_root(config.site_root.to_string_lossy().into_owned())
            .site_pkg_dir("pkg")
            .site_addr(config.listen)
            .build();
        Ok(AppState {
            store,
            config: Arc::new(config),
            leptos,
            trend_cache: Default::default(),
        })
    }
}

async fn healthz(State(state): State<AppState>) -> impl IntoResponse {
    match state.store.ping().await {
        Ok(()) => (StatusCode::OK, "ok\n"),
        Err(e) => {
            tracing::error!(error = ?e, "health check failed");
            (StatusCode::SERVICE_UNAVAILABLE, "database unavailable\n")
        }
    }
}

/// `GET /c/{id}` asking for JSON, text, CSV or SVG (by Accept or `format=`) is answered by the
/// API; a browser's request falls through to the page.
async fn permalink_documents(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if req.method() == axum::http::Method::GET {
        if let Some(id) = req.uri().path().strip_prefix("/c/") {
            if !id.is_empty()
                && !id.contains('/')
                && api::compare::wants_document(req.uri().query(), req.headers())
            {
                let view = Query::try_from_uri(req.uri());
                let headers = req.headers().clone();
                return api::compare::permalink(State(state), Path(id.to_owned()), headers, view)
                    .await
                    .into_response();
            }
        }
    }
    next.run(req).await
}

/// The whole application: API, pages, static files, and the middleware around them.
pub fn router(state: AppState) -> Router {
    let backend: app::api::SharedBackend = Arc::new(web::StoreBackend(state.clone()));
    let routes = generate_route_list(app::App);
    let timeout = Duration::from_secs(state.config.request_timeout);
    Router::new()
        .route("/healthz", get(healthz))
        .nest("/api/v1", api::router(&state))
        .leptos_routes_with_context(&state, routes, move || provide_context(backend.clone()), {
            let options = state.leptos.clone();
            move || app::shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(
            app::shell,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            permalink_documents,
        ))
        .layer(CompressionLayer::new())
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .layer(CatchPanicLayer::new())
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Serves until `shutdown` completes, then finishes in-flight requests and closes the store.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let store = state.store.clone();
    let app = router(state);
    let result = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await;
    store.close().await;
    result
}
