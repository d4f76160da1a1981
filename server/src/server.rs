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
use tower_http::timeout::RequestBodyTimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::error::ApiError;
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

/// `GET /healthz`: whether the database answers, as the health probe found last (it checks
/// every 250 ms): answered at once, never waiting for the database.
#[utoipa::path(get, path = "/healthz", tag = "meta", security(()),
    responses((status = 200, description = "The database answers", content_type = "text/plain", body = String, example = "ok\n"),
        (status = 503, description = "The database does not answer: the JSON envelope, whose message says since when and why (`database unreachable since 14:02:11 UTC: connection refused (10.0.0.5:5432)`), with `Retry-After`", body = crate::error::ErrorEnvelope)))]
pub(crate) async fn healthz(State(state): State<AppState>) -> Response {
    match state.store.health().now() {
        store::health::DbState::Up => (StatusCode::OK, "ok\n").into_response(),
        down => ApiError::Unavailable {
            message: down.describe(),
            retry_after: 1,
        }
        .into_response(),
    }
}

/// Fails fast while the database is unreachable: a request that needs it is answered 503
/// at once instead of waiting for a connection, and one in flight when the probe finds the
/// database gone is answered then (an upload cut off so is not acknowledged: its retry
/// answers 200 if it was stored after all, 201 if not).
async fn database_gate(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path == "/healthz" || path == "/metrics" || path.starts_with("/pkg/") {
        return next.run(req).await;
    }
    let mut health = state.store.health().watch();
    if health.borrow_and_update().is_down() {
        return unreachable();
    }
    tokio::select! {
        response = next.run(req) => response,
        _ = health.wait_for(store::health::DbState::is_down) => unreachable(),
    }
}

fn unreachable() -> Response {
    ApiError::Unavailable {
        message: crate::error::UNREACHABLE.into(),
        retry_after: 1,
    }
    .into_response()
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

/// The scripts a page may run: its own files, the WASM, and on a page of the Leptos shell
/// the inline scripts carrying that response's nonce ([`page_csp`]); never other inline
/// script (an SVG document, the `/api` reference page, an error page run none).
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
     script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; \
     base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// The policy of a page the shell renders with `nonce`: the header policy with the nonce
/// allowed for scripts.
pub fn page_csp(nonce: &str) -> String {
    CSP.replace(
        "script-src 'self' 'wasm-unsafe-eval';",
        &format!("script-src 'self' 'wasm-unsafe-eval' 'nonce-{nonce}';"),
    )
}

/// Headers every answer carries (a page's own `Content-Security-Policy`, with its nonce,
/// stays: see [`page_context`]).
const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "same-origin"),
    ("cross-origin-opener-policy", "same-origin"),
    ("content-security-policy", CSP),
];

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

/// Adds [`SECURITY_HEADERS`] where the handler set none.
pub(crate) async fn security_headers(req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers
            .entry(name)
            .or_insert(axum::http::HeaderValue::from_static(value));
    }
    response
}

/// Every API error is the JSON envelope: the rejections of extractors (a bad path parameter,
/// a bad query), 405s, body-limit 413s and timeouts come out of axum and tower-http as
/// plain text and are wrapped here.
async fn json_errors(req: Request, next: Next) -> Response {
    let api = {
        let path = req.uri().path();
        path.starts_with("/api/") || path == "/healthz"
    };
    let sfn = req.uri().path().starts_with("/sfn/");
    let response = next.run(req).await;
    let status = response.status();
    if sfn && status == StatusCode::INTERNAL_SERVER_ERROR {
        return server_fn_status(response).await;
    }
    // JSON is the envelope already; HTML is a page for a person (the no-JavaScript upload
    // form's error page) and reaches the browser as it is.
    let passes = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/html"));
    if !api || !(status.is_client_error() || status.is_server_error()) || passes {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_owned()
    } else {
        text
    };
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::NotFound(message),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed(message),
        StatusCode::REQUEST_TIMEOUT => ApiError::Timeout(message),
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::TooLarge { limit: 0 },
        StatusCode::SERVICE_UNAVAILABLE => ApiError::Unavailable {
            message,
            retry_after: 1,
        },
        s if s.is_server_error() => ApiError::Internal(anyhow::anyhow!(message)),
        _ => ApiError::BadRequest(message),
    };
    let mut wrapped = error.into_response();
    // Keep what the original answer said beyond its body (Allow on a 405, Retry-After).
    for (name, value) in parts.headers.iter() {
        if name != axum::http::header::CONTENT_TYPE
            && name != axum::http::header::CONTENT_LENGTH
            && name != axum::http::header::CONTENT_ENCODING
        {
            wrapped.headers_mut().entry(name).or_insert(value.clone());
        }
    }
    *wrapped.status_mut() = status;
    wrapped
}

/// A page's server function answers arguments it cannot read (a missing field, a number that
/// is none) with a 500; that is the client's fault, so it is a 400. The body stays in the
/// server functions' own error encoding (`Args|...`), which the pages decode.
async fn server_fn_status(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return ApiError::Internal(anyhow::anyhow!("a server function's error did not read"))
            .into_response();
    };
    if bytes.starts_with(b"Args|") || bytes.starts_with(b"Deserialization|") {
        parts.status = StatusCode::BAD_REQUEST;
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// A request that takes longer than the configured timeout is answered 408 (JSON) and its
/// handler dropped: its blocking work sees the cancellation (see [`crate::work`]).
async fn request_timeout(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let limit = Duration::from_secs(state.config.request_timeout);
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(response) => response,
        Err(_) => ApiError::Timeout(format!(
            "the request took longer than {} s and was stopped",
            limit.as_secs()
        ))
        .into_response(),
    }
}

/// Whether a client's `x-request-id` may go into log lines as it is: 1 to 64 letters,
/// digits, `.`, `_`, `:`, `-` (no spaces, `=`, quotes or line breaks to forge fields with).
fn valid_request_id(id: &[u8]) -> bool {
    (1..=64).contains(&id.len())
        && id
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// Drops a client's `x-request-id` that is not [`valid_request_id`]: the request gets a new
/// UUID instead, in its answer and its log lines.
async fn sanitize_request_id(mut req: Request) -> Request {
    let invalid = req
        .headers()
        .get_all("x-request-id")
        .iter()
        .any(|v| !valid_request_id(v.as_bytes()));
    let several = req.headers().get_all("x-request-id").iter().count() > 1;
    if invalid || several {
        req.headers_mut().remove("x-request-id");
    }
    req
}

/// A request's URI as the log shows it: a token put in the URL by mistake (`perfline_...`,
/// or the value of a `token`, `access_token`, `password`, `secret` parameter) is redacted.
pub fn logged_uri(uri: &axum::http::Uri) -> String {
    let path = redact_tokens(uri.path());
    let Some(query) = uri.query() else {
        return path;
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| {
            let (key, _) = pair.split_once('=').unwrap_or((pair, ""));
            let secret = ["token", "access_token", "password", "secret", "api_key"]
                .iter()
                .any(|s| key.eq_ignore_ascii_case(s));
            if secret {
                format!("{key}=[redacted]")
            } else {
                redact_tokens(pair)
            }
        })
        .collect();
    format!("{path}?{}", query.join("&"))
}

/// `perfline_` and the characters after it become `perfline_[redacted]`.
fn redact_tokens(text: &str) -> String {
    let prefix = crate::auth::TOKEN_PREFIX;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        out.push_str(&rest[..at + prefix.len()]);
        rest = &rest[at + prefix.len()..];
        let secret = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        if secret > 0 {
            out.push_str("[redacted]");
        }
        rest = &rest[secret..];
    }
    out.push_str(rest);
    out
}

/// A panic in a handler is a logged 500 in the JSON envelope, and the server goes on.
fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let what = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic");
    ApiError::Internal(anyhow::anyhow!("handler panicked: {what}")).into_response()
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
    let (api_router, api_doc) = api::router(&state);
    let scopes = Arc::new(crate::auth::ScopeTable::new(&api_doc));
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
        router = router.route("/metrics", get(crate::metrics::scrape));
    }
    router
        .route("/healthz", get(healthz))
        .route("/alerts.atom", get(api::alerts::atom))
        .route("/pkg/{file}", get(crate::assets::serve_asset))
        .route("/api", get(move || std::future::ready(reference.clone())))
        // The format reference the upload page links to, as it is in the repository.
        .route(
            "/docs/formats.md",
            get(|| async {
                (
                    [(axum::http::header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    include_str!("../../docs/formats.md"),
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
            crate::metrics::track,
        ))
        .layer(middleware::from_fn_with_state(
            (state.clone(), scopes),
            crate::auth::authorize,
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

/// The answer to a connection over the limit, written straight to the socket.
const OVERLOADED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\n\
content-type: application/json\r\nx-content-type-options: nosniff\r\n\
content-security-policy: default-src 'none'; frame-ancestors 'none'\r\n\
connection: close\r\ncontent-length: 117\r\n\r\n\
{\"error\":{\"status\":503,\"code\":\"unavailable\",\"message\":\"too many open connections; try again in a second\"}}";

/// Serves until `shutdown` completes, then stops accepting, gives in-flight requests up to
/// `shutdown_timeout` seconds, and closes the store.
///
/// HTTP/1.1 through hyper with a header-read timeout (which also closes idle keep-alive
/// connections: hyper starts it whenever a connection waits for a request head) and a cap on
/// open connections.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use tokio::io::AsyncWriteExt;

    let store = state.store.clone();
    let config = state.config.clone();
    let worker_id = state.worker_id.clone();
    if let Ok(a) = listener.local_addr() {
        let _ = state.bound.set(a);
    }
    // The alert pipeline: detector, notifier, deliverer; stopped before the store closes.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut background = vec![
        tokio::spawn(crate::alerts::notify::run_notifier(
            state.clone(),
            stop_rx.clone(),
        )),
        tokio::spawn(crate::alerts::notify::run_deliverer(
            state.clone(),
            stop_rx.clone(),
        )),
    ];
    if !config.no_alerts {
        background.push(tokio::spawn(crate::alerts::detector::run_detector(
            state.clone(),
            stop_rx,
        )));
    }
    let app = router(state);
    let connections = Arc::new(tokio::sync::Semaphore::new(config.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(config.header_timeout.max(1)))
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait a moment rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            tokio::spawn(async move {
                let mut stream = stream;
                let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(OVERLOADED))
                    .await;
                let _ = stream.shutdown().await;
            });
            continue;
        };
        let _ = stream.set_nodelay(true);
        // Handlers and the rate limits see the client's address.
        let app = tower::ServiceExt::map_request(
            app.clone(),
            move |mut req: axum::http::Request<hyper::body::Incoming>| {
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                req
            },
        );
        let service = hyper_util::service::TowerToHyperService::new(app);
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    let deadline = Duration::from_secs(config.shutdown_timeout);
    tracing::info!(
        deadline_s = deadline.as_secs(),
        "draining in-flight requests"
    );
    if tokio::time::timeout(deadline, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("requests still running after the shutdown deadline were cut off");
    }
    let _ = stop_tx.send(true);
    for task in background {
        // A task in the middle of a transaction finishes it; one waiting on the network is
        // cut off (its work stays queued in the database for the next start).
        if tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .is_err()
        {
            tracing::warn!("an alert task did not stop in time");
        }
    }
    // Another server on the database takes the tasks over at once.
    if let Err(e) = store.release_leases(&worker_id).await {
        tracing::warn!(error = %e, "cannot release the background tasks' leases");
    }
    store.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_that_could_forge_log_lines_are_refused() {
        for (id, ok) in [
            ("0b6a3c2e-6f1d-4c5e-9a0b-1c2d3e4f5a6b", true),
            ("robot-42.run:7_a", true),
            ("", false),
            ("a b", false),
            ("x request_id=forged", false),
            ("\"quoted\"", false),
            (&"a".repeat(65), false),
        ] {
            assert_eq!(valid_request_id(id.as_bytes()), ok, "{id:?}");
        }
    }

    #[test]
    fn tokens_in_urls_are_redacted_in_logs() {
        let check = |uri: &str, expect: &str| {
            let uri: axum::http::Uri = uri.parse().unwrap();
            assert_eq!(logged_uri(&uri), expect);
        };
        check("/api/v1/runs?limit=5", "/api/v1/runs?limit=5");
        check(
            "/api/v1/runs?token=perfline_abcDEF123&limit=5",
            "/api/v1/runs?token=[redacted]&limit=5",
        );
        check(
            "/api/v1/runs?t=perfline_abc123",
            "/api/v1/runs?t=perfline_[redacted]",
        );
        check("/x/perfline_abc/y", "/x/perfline_[redacted]/y");
        check(
            "/api/v1/runs?Access_Token=x",
            "/api/v1/runs?Access_Token=[redacted]",
        );
    }
}
