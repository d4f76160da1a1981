//! The JSON/text HTTP API under `/api/v1`.

pub mod alerts;
pub mod compare;
pub mod extract;
mod read;
mod session;
mod tokens;
mod trend;
mod upload;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;

use crate::error::ApiError;
use crate::AppState;

pub fn router(state: &AppState) -> Router<AppState> {
    Router::new()
        .route(
            "/upload",
            // The limit is enforced by the handler (Content-Length first, then while reading).
            post(upload::upload).layer(DefaultBodyLimit::max(state.config.max_upload)),
        )
        .route(
            "/uploads/{id}",
            get(read::upload).delete(read::delete_upload),
        )
        .route("/uploads/{id}/raw", get(read::upload_raw))
        .route("/runs", get(read::runs))
        .route("/runs/{id}", get(read::run).patch(read::correct_run))
        .route("/benchmarks", get(read::benchmarks))
        .route("/machines", get(read::machines))
        .route("/kernels", get(read::kernels))
        .route("/compare", get(compare::compare))
        .route("/trend", get(trend::trend))
        .route("/report", get(trend::report))
        .route(
            "/commits",
            post(trend::commits).layer(DefaultBodyLimit::max(state.config.max_upload)),
        )
        .route(
            "/bisect",
            post(trend::bisect).layer(DefaultBodyLimit::max(state.config.max_upload)),
        )
        .route("/runs/{id}/mark", post(trend::mark_run))
        .route("/alerts", get(alerts::list))
        .route("/alerts/{id}", get(alerts::show).patch(alerts::patch))
        .route("/alert-rules", get(alerts::rules).put(alerts::put_rules))
        .route("/audit", get(read::audit))
        .route("/tokens", get(tokens::list).post(tokens::create))
        .route("/tokens/{name}", axum::routing::delete(tokens::revoke))
        .route("/session", post(session::sign_in))
        .route("/session/end", post(session::sign_out))
        .fallback(|| async {
            ApiError::NotFound("no such API endpoint; see README.md for the list".into())
        })
}

/// Where users reach this server, for the links Perfline prints (permalinks under text,
/// report links, upload summaries): the `--public-url` when set — then a client's `Host`
/// is never echoed — else `http://` and the request's `Host`.
pub fn origin(state: &AppState, headers: &axum::http::HeaderMap) -> String {
    if let Some(url) = &state.config.public_url {
        return url.clone();
    }
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| h.bytes().all(|b| b.is_ascii_graphic()))
        .unwrap_or("localhost");
    format!("http://{host}")
}
