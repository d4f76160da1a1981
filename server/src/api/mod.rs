//! The JSON/text HTTP API under `/api/v1`.

pub mod compare;
pub mod extract;
mod read;
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
        .route("/uploads/{id}", get(read::upload))
        .route("/uploads/{id}/raw", get(read::upload_raw))
        .route("/runs", get(read::runs))
        .route("/runs/{id}", get(read::run))
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
        .fallback(|| async {
            ApiError::NotFound("no such API endpoint; see README.md for the list".into())
        })
}
