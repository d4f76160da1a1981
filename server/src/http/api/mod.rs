// SPDX-License-Identifier: GPL-3.0-or-later
//! The JSON/text HTTP API under `/api/v1`.

pub mod alerts;
mod background;
mod bisections;
mod calibration;
pub mod compare;
pub mod extract;
pub mod openapi;
mod read;
pub mod reports;
mod session;
mod tokens;
mod trend;
mod upload;
mod work;

use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use axum::Router;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};
use utoipa_axum::routes;

use crate::http::error::ApiError;
use crate::AppState;

/// The `/api/v1` router and the description of its routes (`openapi::document` puts them
/// under `/api/v1` beside the top-level ones, `top`). Every route goes through `routes!`, which
/// registers the handler with the path its `#[utoipa::path]` names, so no route can be
/// missing from the description.
pub fn router(
    state: &AppState,
    top: utoipa::openapi::OpenApi,
) -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let limit = state.config.max_upload;
    // Bodies up to --max-upload (the upload handler also checks Content-Length first, then
    // while reading).
    let big_body =
        |(schemas, paths, method): UtoipaMethodRouter<AppState>| -> UtoipaMethodRouter<AppState> {
            (schemas, paths, method.layer(DefaultBodyLimit::max(limit)))
        };
    let (router, paths) = OpenApiRouter::new()
        .routes(big_body(routes!(upload::upload)))
        .routes(routes!(read::upload, read::delete_upload))
        .routes(routes!(read::upload_raw))
        .routes(routes!(read::runs))
        .routes(routes!(read::run, read::correct_run))
        .routes(routes!(read::benchmarks))
        .routes(routes!(read::machines))
        .routes(routes!(read::kernels))
        .routes(routes!(compare::compare))
        .routes(routes!(calibration::calibration))
        .routes(routes!(trend::trend))
        .routes(routes!(trend::report))
        .routes(big_body(routes!(trend::commits)))
        .routes(big_body(routes!(trend::bisect)))
        .routes(routes!(trend::mark_run))
        .routes(routes!(alerts::list))
        .routes(routes!(alerts::show, alerts::patch))
        .routes(routes!(alerts::rules, alerts::put_rules))
        .routes(routes!(reports::list))
        .routes(routes!(reports::show))
        .routes(routes!(background::show))
        .routes(routes!(background::release))
        .routes(routes!(work::work))
        .routes(routes!(work::claim))
        .routes(routes!(work::renew))
        .routes(routes!(work::release))
        .routes(routes!(work::robots))
        .routes(routes!(bisections::start, bisections::list))
        .routes(routes!(bisections::show, bisections::cancel))
        .routes(routes!(bisections::next))
        .routes(routes!(bisections::log))
        .routes(routes!(read::audit))
        .routes(routes!(tokens::list, tokens::create))
        .routes(routes!(tokens::revoke))
        .routes(routes!(session::sign_in))
        .routes(routes!(session::sign_out))
        .split_for_parts();
    let doc = openapi::document(paths, top);
    let json = bytes::Bytes::from(serde_json::to_vec(&doc).expect("the description serialises"));
    let router = router
        .route(
            "/openapi.json",
            get(move || {
                let json = json.clone();
                async move {
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        json,
                    )
                }
            }),
        )
        .fallback(|| async {
            ApiError::NotFound("no such API endpoint; see /api or docs/api.md for the list".into())
        });
    (router, doc)
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
