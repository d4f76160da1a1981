// SPDX-License-Identifier: GPL-3.0-or-later
//! `GET /metrics` (OpenMetrics text) and the middleware that counts and times every request.

pub use crate::services::telemetry::{Metrics, RequestLabels, RouteLabels};

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
            crate::http::auth::metrics_host,
        ))
        .layer(axum::middleware::from_fn(crate::http::security_headers))
        .with_state(state)
}

/// `GET /metrics`.
#[utoipa::path(get, path = "/metrics", tag = "meta", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "Prometheus metrics (OpenMetrics text); a read: needs a token on a `--private` server. With `--metrics-listen` only there.",
        content_type = "application/openmetrics-text", body = String), crate::http::api::openapi::Errors))]
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
        // The items the background tasks set aside (also for `/healthz`).
        crate::services::background::recount(&state).await;
    }
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        m.encode(),
    )
}
