//! Prometheus metrics (`GET /metrics`, OpenMetrics text): requests by route and status, their
//! latency, uploads and samples stored, cache hits and misses, and at each scrape the database's size and the alert
//! pipeline's queues.

use std::sync::Mutex;

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
    /// The route's pattern (`/api/v1/runs/{id}`), never the raw path: bounded cardinality.
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    /// `compare` (computed comparisons), `compare_body` (their rendered answers), `trend`,
    /// `trend_body`.
    pub cache: &'static str,
    /// `hit` or `miss`.
    pub result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    pub route: String,
}

type LatencyFamily = Family<RouteLabels, Histogram, fn() -> Histogram>;

pub struct Metrics {
    registry: Mutex<Registry>,
    pub requests: Family<RequestLabels, Counter>,
    pub latency: LatencyFamily,
    pub uploads: Counter,
    pub samples: Counter,
    pub cache_lookups: Family<CacheLabels, Counter>,
    pub database_bytes: Gauge,
    pub alert_jobs: Gauge,
    pub unnotified_events: Gauge,
    pub outbox_pending: Gauge,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms to ~16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("perfline");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency: LatencyFamily = Family::new_with_constructor(latency_histogram);
        let (uploads, samples) = (Counter::default(), Counter::default());
        let database_bytes = Gauge::default();
        let cache_lookups = Family::<CacheLabels, Counter>::default();
        let (alert_jobs, unnotified_events, outbox_pending) =
            (Gauge::default(), Gauge::default(), Gauge::default());
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer, by route",
            latency.clone(),
        );
        registry.register("uploads", "Uploads stored", uploads.clone());
        registry.register("samples", "Samples stored", samples.clone());
        registry.register(
            "cache_lookups",
            "Lookups in the in-memory caches, by cache and hit or miss",
            cache_lookups.clone(),
        );
        registry.register(
            "database_bytes",
            "Size of the SQLite database and its WAL",
            database_bytes.clone(),
        );
        registry.register(
            "alert_jobs",
            "Series waiting for the alert detector",
            alert_jobs.clone(),
        );
        registry.register(
            "alert_events_unnotified",
            "Alert events not yet rendered into the outbox",
            unnotified_events.clone(),
        );
        registry.register(
            "outbox_pending",
            "Notifications (webhooks, mails) not yet delivered",
            outbox_pending.clone(),
        );
        Metrics {
            registry: Mutex::new(registry),
            requests,
            latency,
            uploads,
            samples,
            cache_lookups,
            database_bytes,
            alert_jobs,
            unnotified_events,
            outbox_pending,
        }
    }
}

impl Metrics {
    /// Counts a lookup in `cache`; answers `found` unchanged, for use around the lookup.
    pub fn cache<T>(&self, cache: &'static str, found: Option<T>) -> Option<T> {
        let result = if found.is_some() { "hit" } else { "miss" };
        self.cache_lookups
            .get_or_create(&CacheLabels { cache, result })
            .inc();
        found
    }

    /// The OpenMetrics text of every metric.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if let Ok(registry) = self.registry.lock() {
            let _ = encode(&mut out, &registry);
        }
        out
    }
}

/// A method as a label: one of the methods HTTP defines, else `other` (a client may send any
/// token as a method; each would be a series that never goes away).
fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    const KNOWN: [(Method, &str); 9] = [
        (Method::GET, "GET"),
        (Method::HEAD, "HEAD"),
        (Method::POST, "POST"),
        (Method::PUT, "PUT"),
        (Method::PATCH, "PATCH"),
        (Method::DELETE, "DELETE"),
        (Method::OPTIONS, "OPTIONS"),
        (Method::CONNECT, "CONNECT"),
        (Method::TRACE, "TRACE"),
    ];
    KNOWN
        .iter()
        .find(|(m, _)| m == method)
        .map_or("other", |(_, label)| label)
}

/// Middleware: counts and times every request by its route pattern.
pub async fn track(
    axum::extract::State(state): axum::extract::State<crate::AppState>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or("other", |m| m.as_str())
        .to_owned();
    let method = method_label(req.method()).to_owned();
    let started = std::time::Instant::now();
    let response = next.run(req).await;
    let m = &state.metrics;
    m.latency
        .get_or_create(&RouteLabels {
            route: route.clone(),
        })
        .observe(started.elapsed().as_secs_f64());
    m.requests
        .get_or_create(&RequestLabels {
            method,
            route,
            status: response.status().as_u16(),
        })
        .inc();
    response
}

/// The router of `--metrics-listen`: `/metrics` alone, open to whoever reaches that address.
pub fn router(state: crate::AppState) -> axum::Router {
    axum::Router::new()
        .route("/metrics", axum::routing::get(scrape))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::auth::metrics_host,
        ))
        .layer(axum::middleware::from_fn(crate::server::security_headers))
        .with_state(state)
}

/// `GET /metrics`.
#[utoipa::path(get, path = "/metrics", tag = "meta", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "Prometheus metrics (OpenMetrics text); a read: needs a token on a `--private` server. With `--metrics-listen` only there.",
        content_type = "application/openmetrics-text", body = String), crate::api::openapi::Errors))]
pub async fn scrape(
    axum::extract::State(state): axum::extract::State<crate::AppState>,
) -> impl axum::response::IntoResponse {
    let m = &state.metrics;
    // While the database is unreachable the scrape still answers, with the last values.
    let up = !state.store.health().now().is_down();
    if !up {
    } else if let Ok(db) = state.config.db.sqlite_path() {
        let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
        let wal = std::path::PathBuf::from(format!("{}-wal", db.display()));
        m.database_bytes.set((size(db) + size(&wal)) as i64);
    } else if let Ok(Some(bytes)) = state.store.database_bytes().await {
        m.database_bytes.set(bytes);
    }
    if !up {
    } else if let Ok((jobs, events, outbox)) = state.store.queue_lengths().await {
        m.alert_jobs.set(jobs);
        m.unnotified_events.set(events);
        m.outbox_pending.set(outbox);
    }
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        m.encode(),
    )
}
