//! The one error type of the HTTP layer and how it maps to responses.
//!
//! Which variant to use where:
//! - [`ApiError::BadRequest`]: the request itself is malformed (bad multipart, bad query string).
//! - [`ApiError::TooLarge`]: the body exceeds the configured upload limit (413).
//! - [`ApiError::UnsupportedMediaType`]: a Content-Type Perfline cannot take (415).
//! - [`ApiError::Unprocessable`]: the request is well formed but its content is not acceptable:
//!   a parse error in a file (with the file and line), an invalid field (422).
//! - [`ApiError::NotFound`]: the named resource does not exist (404).
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
    #[error("upload is larger than the limit of {limit} bytes")]
    TooLarge { limit: usize },
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Unprocessable(#[from] IngestError),
    #[error("{0}")]
    NotFound(String),
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError::Internal(e.into())
    }
}

#[derive(Debug, Serialize)]
struct ErrorBody<'a> {
    status: u16,
    code: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct ErrorEnvelope<'a> {
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
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::TooLarge { .. } => "too_large",
            ApiError::UnsupportedMediaType(_) => "unsupported_media_type",
            ApiError::Unprocessable(_) => "unprocessable",
            ApiError::NotFound(_) => "not_found",
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
        (self.status(), Json(body)).into_response()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
