// SPDX-License-Identifier: GPL-3.0-or-later
//! The HTTP edge: the router (this file) over the API (`api`), the pages' backend (`web`),
//! the built site (`assets`) and `/metrics`; who may do what (`auth`); the one error envelope
//! (`error`); the middleware (`layers`); the state handlers share (`state`); serving (`serve`).
//! Only this layer knows HTTP: it turns the services' answers and errors into responses.

pub mod api;
pub mod assets;
pub mod auth;
pub mod error;
mod layers;
pub mod metrics;
pub mod offline;
mod serve;
pub mod source;
mod state;
mod web;

pub(crate) use layers::security_headers;
pub use layers::{logged_uri, page_csp};
pub use serve::serve;
pub use state::AppState;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Query, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::http::error::ApiError;
use crate::store;
use layers::{database_gate, json_errors, panic_response, request_timeout, sanitize_request_id};

pub use crate::config::Config;

/// `GET /healthz`: whether the database answers, as the health probe found last (it checks
/// every 250 ms), and whether the background tasks are well: answered at once, never waiting
/// for the database. A failing background task or an item set aside is `200` with a
/// `degraded: ...` line, not `503`: the server still serves every request, and a load balancer
/// taking it out would move no background task (docs/operating.md).
#[utoipa::path(get, path = "/healthz", tag = "meta", security(()),
    responses((status = 200, description = "The database answers: `ok`, or `degraded: ...` naming the background tasks whose last pass failed or that are restarting after a panic, and how many items they set aside (details for an admin at `GET /api/v1/background`)", content_type = "text/plain", body = String, example = "ok\n"),
        (status = 503, description = "The database does not answer: the JSON envelope, whose message says since when and why (`database unreachable since 14:02:11 UTC: connection refused (10.0.0.5:5432)`), with `Retry-After`", body = error::ErrorEnvelope)))]
pub(crate) async fn healthz(State(state): State<AppState>) -> Response {
    match state.store.health().now() {
        store::health::DbState::Up => match state.background.degraded() {
            None => (StatusCode::OK, "ok\n").into_response(),
            Some(line) => (StatusCode::OK, format!("{line}\n")).into_response(),
        },
        down => ApiError::Unavailable {
            message: down.describe(),
            retry_after: 1,
        }
        .into_response(),
    }
}

/// The routes outside `/api/v1` that the API description lists beside it.
#[derive(utoipa::OpenApi)]
#[openapi(paths(healthz, metrics::scrape))]
struct TopLevel;

/// `GET /c/{id}` asking for JSON, text, CSV or SVG (by Accept or `format=`) is answered by the
/// API; a browser's request falls through to the page.
async fn permalink_documents(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if req.method() == axum::http::Method::GET {
        if let Some(id) = req.uri().path().strip_prefix("/c/") {
            if !id.is_empty()
                && !id.contains('/')
                && api::compare::wants_document(req.uri().query(), req.headers())
            {
                let view = match Query::try_from_uri(req.uri()) {
                    Ok(Query(view)) => view,
                    Err(e) => return ApiError::from(e).into_response(),
                };
                let headers = req.headers().clone();
                return api::compare::permalink(
                    State(state),
                    Path(id.to_owned()),
                    headers,
                    api::extract::ApiQuery(view),
                )
                .await
                .into_response();
            }
        }
    }
    next.run(req).await
}

/// What every page render gets in its context: the backend, the public URL, and its
/// `Content-Security-Policy` header carrying the nonce Leptos gave this response's inline
/// scripts.
fn page_context(
    backend: app::api::SharedBackend,
    public_url: app::api::PublicUrl,
) -> impl Fn() + Clone + Send + 'static {
    move || {
        provide_context(backend.clone());
        provide_context(public_url.clone());
        // A page that is about nothing there answers 404 (pages render whole before they
        // are sent, so the status can still change).
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            provide_context(app::PageStatus(Arc::new(move |code| {
                if let Ok(status) = StatusCode::from_u16(code) {
                    response.set_status(status);
                }
            })));
        }
        if let (Some(nonce), Some(response)) =
            (use_nonce(), use_context::<leptos_axum::ResponseOptions>())
        {
            if let Ok(value) = axum::http::HeaderValue::from_str(&page_csp(&nonce)) {
                response.insert_header(axum::http::header::CONTENT_SECURITY_POLICY, value);
            }
        }
    }
}

/// The page routes (`/`, `/runs/{id}`, ...) as the router matches them.
pub fn page_paths() -> Vec<String> {
    generate_route_list(app::App)
        .iter()
        .map(|r| r.path().to_owned())
        .collect()
}

/// The whole application: API, pages, static files, and the middleware around them.
///
/// Outermost first: tracing, panics caught as JSON 500s, security headers, compression, the
/// JSON error envelope on the API, the request timeout, the body stall timeout, and who may
/// do what (`auth::authorize`: `Host`, CSRF, token and scope), before any handler.
pub fn router(state: AppState) -> Router {
    let backend: app::api::SharedBackend = Arc::new(web::StoreBackend(state.clone()));
    let (api_router, api_doc) = api::router(&state, <TopLevel as utoipa::OpenApi>::openapi());
    let scopes = Arc::new(auth::ScopeTable::new(&api_doc));
    let reference = axum::response::Html(api::openapi::reference_html(&api_doc));
    let routes = generate_route_list(app::App);
    let body_timeout = Duration::from_secs(state.config.body_timeout);
    let context = page_context(
        backend,
        app::api::PublicUrl(state.config.public_url.clone()),
    );
    let mut router = Router::new();
    // With `--metrics-listen`, `/metrics` is served there only (`metrics::router`).
    if state.config.metrics_listen.is_none() {
        router = router.route("/metrics", get(metrics::scrape));
    }
    router
        .route("/healthz", get(healthz))
        .route("/alerts.atom", get(api::alerts::atom))
        .route("/pkg/{file}", get(assets::serve_asset))
        .route("/api", get(move || std::future::ready(reference.clone())))
        .route(source::PATH, get(source::serve))
        // The format reference the upload page links to, as it is in the repository.
        .route(
            "/docs/formats.md",
            get(|| async {
                (
                    [(axum::http::header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    include_str!("../../../docs/formats.md"),
                )
            }),
        )
        // The licence the footer of every page names.
        .route(
            "/docs/licence",
            get(|| async {
                (
                    [(axum::http::header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    include_str!("../../../LICENSE"),
                )
            }),
        )
        .nest("/api/v1", api_router)
        .leptos_routes_with_context(
            &state,
            routes,
            context.clone(),
            {
                let options = state.leptos.clone();
                move || app::shell(options.clone())
            },
        )
        .fallback(leptos_axum::file_and_error_handler_with_context::<AppState, _>(
            context,
            app::shell,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            permalink_documents,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ))
        .layer(middleware::from_fn_with_state(
            (state.clone(), scopes),
            auth::authorize,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), database_gate))
        .layer(RequestBodyTimeoutLayer::new(body_timeout))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            request_timeout,
        ))
        .layer(middleware::from_fn(json_errors))
        // Outside `json_errors`, which reads and rewrites error bodies: it must see them
        // uncompressed (a wrapped gzip body kept its `content-encoding` once: schemathesis).
        .layer(CompressionLayer::new())
        .layer(CatchPanicLayer::custom(panic_response))
        // Outside the panic catcher: its 500 carries them too.
        .layer(middleware::from_fn(security_headers))
        // One log line per request at info, in a span carrying its request id.
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| {
                    let id = req
                        .headers()
                        .get("x-request-id")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("-");
                    tracing::info_span!("request", method = %req.method(), uri = %logged_uri(req.uri()), request_id = %id)
                })
                .on_response(
                    tower_http::trace::DefaultOnResponse::new().level(tracing::Level::INFO),
                ),
        )
        // Every answer carries an `x-request-id` (the client's, else a new UUID), the same
        // as in the log lines of the request.
        .layer(tower_http::request_id::PropagateRequestIdLayer::x_request_id())
        .layer(tower_http::request_id::SetRequestIdLayer::x_request_id(
            tower_http::request_id::MakeRequestUuid,
        ))
        // Outermost: a client's request id that could forge log lines is replaced.
        .layer(middleware::map_request(sanitize_request_id))
        .with_state(state)
}
