// SPDX-License-Identifier: GPL-3.0-or-later
//! The one error type of the HTTP layer and how it maps to responses.
//!
//! Which variant to use where:
//! - [`ApiError::BadRequest`]: the request itself is malformed (bad multipart, bad query string).
//! - [`ApiError::TooLarge`]: the body exceeds the configured upload limit (413).
//! - [`ApiError::UnsupportedMediaType`]: a Content-Type Perfline cannot take (415).
//! - [`ApiError::Unprocessable`]: the request is well formed but its content is not acceptable:
//!   a parse error in a file (with the file and line), an invalid field (422).
//! - [`ApiError::NotFound`]: the named resource does not exist (404).
//! - [`ApiError::MethodNotAllowed`]: the path exists but not with this method (405).
//! - [`ApiError::Unauthorized`]: no token where one is needed, or an unknown, revoked or
//!   expired one (401, with `WWW-Authenticate: Bearer`).
//! - [`ApiError::Forbidden`]: the token lacks the scope, or a browser request came from
//!   another site (403).
//! - [`ApiError::Misdirected`]: the `Host` is not the `--public-url`'s (421).
//! - [`ApiError::TooManyRequests`]: over the rate limit of its token or address (429, with
//!   `Retry-After`).
//! - [`ApiError::Conflict`]: the name is taken (409).
//! - [`ApiError::Gone`]: it existed and was deleted (410): a permalink whose runs went with
//!   their upload.
//! - [`ApiError::Timeout`]: the request took too long, or its body stalled (408).
//! - [`ApiError::Unavailable`]: Perfline is busy (too many expensive requests, the database
//!   locked by another writer, its pool exhausted): try again after `retry_after` seconds (503).
//! - [`ApiError::Internal`]: anything else; logged, and reported without details (500).
//!
//! Every error answers JSON: `{"error": {"status": 422, "code": "unprocessable", "message": ...,
//! "file": ..., "line": ..., "field": ...}}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::ingest::IngestError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{}", too_large(*limit))]
    TooLarge { limit: usize },
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Unprocessable(#[from] IngestError),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Misdirected(String),
    #[error("{0}")]
    Gone(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
    #[error("{0}")]
    Timeout(String),
    #[error("{message}")]
    Unavailable { message: String, retry_after: u64 },
    #[error("internal error")]
    Internal(anyhow::Error),
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> Self {
        use crate::store::StoreError;
        match e {
            // The driver's words stay in the log (the request's span carries its id).
            StoreError::Busy(why) => {
                tracing::warn!(error = %why, "the database is busy");
                ApiError::Unavailable {
                    message: BUSY.into(),
                    retry_after: 1,
                }
            }
            StoreError::Unreachable(why) => {
                tracing::warn!(error = %why, "the database is unreachable");
                ApiError::Unavailable {
                    message: UNREACHABLE.into(),
                    retry_after: 1,
                }
            }
            StoreError::NotFound(m) => ApiError::NotFound(m),
            StoreError::Conflict(m) => ApiError::Conflict(m),
            StoreError::Invalid(m) => ApiError::BadRequest(m),
            e @ StoreError::Corrupt(_) => ApiError::Internal(e.into()),
            StoreError::Other(e) => ApiError::Internal(e.into()),
        }
    }
}

/// What a client is told when the database is busy: never the driver's text.
pub const BUSY: &str = "the database is busy; try again in a second";

/// What a client is told when the database cannot be reached (down, restarting, the link
/// lost): never the driver's text.
pub const UNREACHABLE: &str = "the database is unreachable; try again";

/// The 413 message; a limit of 0 is one the layer that refused did not say.
fn too_large(limit: usize) -> String {
    if limit == 0 {
        "the request body is larger than allowed".into()
    } else {
        format!("upload is larger than the limit of {limit} bytes")
    }
}

impl From<anyhow::Error> for ApiError {
    /// A failure with no kind of its own: a bug, answered 500 and logged.
    fn from(e: anyhow::Error) -> Self {
        ApiError::Internal(e)
    }
}

impl From<crate::services::ServiceError> for ApiError {
    fn from(e: crate::services::ServiceError) -> Self {
        use crate::services::ServiceError;
        match e {
            ServiceError::Invalid(m) => ApiError::BadRequest(m),
            ServiceError::Field { field, message } => {
                ApiError::Unprocessable(IngestError::field(field, message))
            }
            ServiceError::Unprocessable(e) => ApiError::Unprocessable(e),
            ServiceError::NotFound(m) => ApiError::NotFound(m),
            ServiceError::Gone(m) => ApiError::Gone(m),
            ServiceError::Overloaded => ApiError::overloaded(),
            ServiceError::Store(e) => e.into(),
            ServiceError::Internal(e) => ApiError::Internal(e),
        }
    }
}

impl ApiError {
    /// The answer when too many expensive requests are running.
    pub fn overloaded() -> ApiError {
        ApiError::Unavailable {
            message: "Perfline is busy with other expensive requests; try again".into(),
            retry_after: 1,
        }
    }
}

/// What went wrong, in every error answer of the API.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody<'a> {
    /// The HTTP status again.
    #[schema(minimum = 400, maximum = 599)]
    status: u16,
    /// A stable name: `bad_request`, `too_large`, `unsupported_media_type`, `unprocessable`,
    /// `not_found`, `method_not_allowed`, `unauthorized`, `forbidden`, `misdirected`, `gone`,
    /// `conflict`, `too_many_requests`, `timeout`, `unavailable`, `internal`.
    #[schema(value_type = String)]
    code: &'static str,
    message: String,
    /// The file (inside an archive, `archive:entry`) a 422 is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    file: Option<&'a str>,
    /// Its line.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    /// The column or field.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    field: Option<&'a str>,
}

/// The JSON error envelope: every failure of the API, whatever failed.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"error": {"status": 422, "code": "unprocessable", "message": "request body: line 3: value 'fast' is not a number", "file": "request body", "line": 3, "field": "value"}}))]
pub struct ErrorEnvelope<'a> {
    error: ErrorBody<'a>,
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::Misdirected(_) => StatusCode::MISDIRECTED_REQUEST,
            ApiError::Gone(_) => StatusCode::GONE,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::TooLarge { .. } => "too_large",
            ApiError::UnsupportedMediaType(_) => "unsupported_media_type",
            ApiError::Unprocessable(_) => "unprocessable",
            ApiError::NotFound(_) => "not_found",
            ApiError::MethodNotAllowed(_) => "method_not_allowed",
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::Misdirected(_) => "misdirected",
            ApiError::Gone(_) => "gone",
            ApiError::Conflict(_) => "conflict",
            ApiError::TooManyRequests { .. } => "too_many_requests",
            ApiError::Timeout(_) => "timeout",
            ApiError::Unavailable { .. } => "unavailable",
            ApiError::Internal(_) => "internal",
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(e) = &self {
            tracing::error!(error = ?e, "internal error");
        }
        let (file, line, field) = match &self {
            ApiError::Unprocessable(e) => (e.file.as_deref(), e.line, e.field.as_deref()),
            _ => (None, None, None),
        };
        let body = ErrorEnvelope {
            error: ErrorBody {
                status: self.status().as_u16(),
                code: self.code(),
                message: self.to_string(),
                file,
                line,
                field,
            },
        };
        let mut response = (self.status(), Json(body)).into_response();
        if let ApiError::Unavailable { retry_after, .. }
        | ApiError::TooManyRequests { retry_after, .. } = &self
        {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, (*retry_after).into());
        }
        if let ApiError::Unauthorized(_) = &self {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer realm=\"perfline\""),
            );
        }
        response
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
