// SPDX-License-Identifier: GPL-3.0-or-later
//! The middleware around every route, outermost first in `router`: request ids (sanitised),
//! tracing (tokens redacted), panics as 500s, the security headers and the one CSP, the JSON
//! error envelope, the request timeout, and failing fast while the database is unreachable.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::http::error::ApiError;
use crate::store;

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
pub(super) async fn json_errors(req: Request, next: Next) -> Response {
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

/// A page's server function answers every error with a 500; its body is the typed
/// [`app::error::PageError`] (JSON), which knows its status: 400 for arguments that do not read,
/// 404 for a run that is not there, 503 when busy. The body stays as it is, for the page to
/// decode.
async fn server_fn_status(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return ApiError::Internal(anyhow::anyhow!("a server function's error did not read"))
            .into_response();
    };
    if let Ok(error) = serde_json::from_slice::<app::error::PageError>(&bytes) {
        if let Ok(status) = StatusCode::from_u16(error.status()) {
            parts.status = status;
        }
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// A request that takes longer than the configured timeout is answered 408 (JSON) and its
/// handler dropped: its blocking work sees the cancellation (see [`crate::services::heavy`]).
pub(super) async fn request_timeout(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
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
pub(super) async fn sanitize_request_id(mut req: Request) -> Request {
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
#[expect(
    clippy::string_slice,
    reason = "cut where `find` found the ASCII prefix and the first character after the token"
)]
fn redact_tokens(text: &str) -> String {
    let prefix = crate::http::auth::TOKEN_PREFIX;
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
pub(super) fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let what = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic");
    ApiError::Internal(anyhow::anyhow!("handler panicked: {what}")).into_response()
}

/// Fails fast while the database is unreachable: a request that needs it is answered 503
/// at once instead of waiting for a connection, and one in flight when the probe finds the
/// database gone is answered then (an upload cut off so is not acknowledged: its retry
/// answers 200 if it was stored after all, 201 if not).
pub(super) async fn database_gate(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
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
        message: crate::http::error::UNREACHABLE.into(),
        retry_after: 1,
    }
    .into_response()
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
