// SPDX-License-Identifier: GPL-3.0-or-later
//! The extractors every handler uses: a query string or JSON body parsed into a type whose
//! fields validate themselves (`Label`, `Kernels`, `Bounded`...), every rejection an
//! [`ApiError`] in the JSON envelope naming the field.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};

use crate::http::error::ApiError;

/// `Query<T>` whose rejection is a 400 in the JSON envelope.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct ApiQuery<T>(pub T);

/// `Json<T>` whose rejection is a 400 (or 413, 415) in the JSON envelope.
#[derive(Debug, FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct ApiJson<T>(pub T);

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> Self {
        ApiError::BadRequest(e.body_text())
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> Self {
        use axum::http::StatusCode;
        match e.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::TooLarge { limit: 0 },
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::UnsupportedMediaType(e.body_text()),
            _ => ApiError::BadRequest(e.body_text()),
        }
    }
}
