// SPDX-License-Identifier: GPL-3.0-or-later
//! Signing in to the web pages with a token, and signing out: a session cookie (`HttpOnly`,
//! `SameSite=Strict`; behind HTTPS `Secure` and named `__Host-perfline_session`, so that no
//! other host or path can set it) whose value is stored only as its SHA-256. A session ends
//! when unused for `--session-idle-days` and `--session-max-days` after signing in at the
//! latest; each sign-in deletes the sessions past either limit.

use axum::extract::{FromRequest, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use crate::http::auth::{
    find_token, new_token, session_cookies, token_hash, HOST_SESSION_COOKIE, SESSION_COOKIE,
    TOKEN_PREFIX,
};
use crate::http::error::{ApiError, ApiResult};
use crate::AppState;

/// The session cookie's name: [`HOST_SESSION_COOKIE`] when it is `Secure`, else
/// [`SESSION_COOKIE`].
pub fn cookie_name(secure: bool) -> &'static str {
    if secure {
        HOST_SESSION_COOKIE
    } else {
        SESSION_COOKIE
    }
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct SignIn {
    token: String,
    /// Where to go after signing in (a path on this server).
    #[serde(default)]
    next: Option<String>,
}

fn wants_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/json"))
}

/// Whether the cookie must be `Secure`: the request came over HTTPS (the public URL is
/// HTTPS, or a `--trusted-proxy` says so), as `auth::authorize` found.
fn secure(https: Option<&crate::http::auth::Https>) -> bool {
    https.is_some_and(|h| h.0)
}

/// The `Set-Cookie` of the session cookie `name` (no `Domain`: it stays on this host).
fn cookie(name: &str, value: &str, max_age: u64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}"
    ))
    .expect("a cookie of ASCII letters and digits")
}

/// A path on this server to go to, never another site: one `/` then visible ASCII only, no
/// backslash. Browsers drop tabs and line breaks from a `Location` and read `\` as `/`, so
/// `/\t/evil.example` or `/\evil.example` would lead to `//evil.example`, another site; and
/// such a value cannot panic the redirect either.
fn local_path(next: Option<&str>) -> &str {
    match next {
        Some(p)
            if p.starts_with('/')
                && !p.starts_with("//")
                && p.bytes().all(|b| b.is_ascii_graphic() && b != b'\\') =>
        {
            p
        }
        _ => "/",
    }
}

/// `POST /api/v1/session` with `token=...` (the sign-in form) or `{"token": ...}`.
#[utoipa::path(post, path = "/session", tag = "session", security(()),
    request_body(content((SignIn = "application/json"), (SignIn = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "Signed in (JSON): `{name, scopes}` and the session cookie", body = serde_json::Value),
        (status = 303, description = "Signed in (form): to `next`, with the session cookie"), crate::http::api::openapi::Errors))]
pub async fn sign_in(State(state): State<AppState>, request: Request) -> ApiResult<Response> {
    let headers = request.headers().clone();
    let secure = secure(request.extensions().get());
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("application/json"));
    let form: SignIn = if json {
        axum::Json::<SignIn>::from_request(request, &())
            .await
            .map_err(ApiError::from)?
            .0
    } else {
        axum::Form::<SignIn>::from_request(request, &())
            .await
            .map_err(|e| ApiError::BadRequest(e.body_text()))?
            .0
    };
    let Some(found) = find_token(&state.store, form.token.trim()).await? else {
        if wants_json(&headers) {
            return Err(ApiError::Unauthorized(
                "the token is unknown, revoked or expired".into(),
            ));
        }
        return Ok(Redirect::to("/signin?failed=1").into_response());
    };
    // A session value like a token, without its prefix.
    let token = new_token();
    let value = token
        .strip_prefix(TOKEN_PREFIX)
        .unwrap_or(&token)
        .to_owned();
    let (idle_days, max_days) = (
        state.config.session_idle_days,
        state.config.session_max_days,
    );
    // Also deletes every session past its limits.
    state
        .store
        .create_session(&token_hash(&value), found.id, idle_days, max_days)
        .await?;
    state
        .store
        .audit(&found.name, "session.start", &found.name, "")
        .await?;
    let set = cookie(
        cookie_name(secure),
        &value,
        u64::from(max_days) * 86_400,
        secure,
    );
    let mut response = if wants_json(&headers) {
        axum::Json(serde_json::json!({"name": found.name, "scopes": found.scopes})).into_response()
    } else {
        Redirect::to(local_path(form.next.as_deref())).into_response()
    };
    response.headers_mut().insert(header::SET_COOKIE, set);
    Ok(response)
}

/// `POST /api/v1/session/end`: signs out (the session is deleted, the cookie cleared).
#[utoipa::path(post, path = "/session/end", tag = "session", security(()),
    responses((status = 204, description = "Signed out (JSON)"), (status = 303, description = "Signed out (form): to `/`"), crate::http::api::openapi::Errors))]
pub async fn sign_out(
    State(state): State<AppState>,
    https: Option<axum::Extension<crate::http::auth::Https>>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    // Every session the browser holds (one under each name, after a move to HTTPS) ends.
    for value in session_cookies(&headers) {
        state.store.end_session(&token_hash(value)).await?;
    }
    let mut response = if wants_json(&headers) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        Redirect::to("/").into_response()
    };
    let secure = secure(https.as_ref().map(|h| &h.0));
    let cleared = response.headers_mut();
    cleared.insert(
        header::SET_COOKIE,
        cookie(cookie_name(secure), "", 0, secure),
    );
    if secure {
        // A cookie set under the plain name before the move to HTTPS goes too.
        cleared.append(header::SET_COOKIE, cookie(SESSION_COOKIE, "", 0, true));
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_stays_on_this_server() {
        assert_eq!(local_path(Some("/trend?x=1")), "/trend?x=1");
        assert_eq!(local_path(Some("//evil.example/")), "/");
        assert_eq!(local_path(Some("https://evil.example/")), "/");
        assert_eq!(local_path(Some("/\\evil")), "/");
        assert_eq!(local_path(None), "/");
        for evil in [
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r\nSet-Cookie: x=1",
            "/ /evil",
            "/é",
        ] {
            assert_eq!(local_path(Some(evil)), "/", "{evil:?}");
        }
    }

    #[test]
    fn the_session_cookie_is_host_only_behind_https() {
        assert_eq!(cookie_name(true), "__Host-perfline_session");
        assert_eq!(cookie_name(false), SESSION_COOKIE);
        let set = cookie(cookie_name(true), "abc", 60, true);
        assert_eq!(
            set.to_str().unwrap(),
            "__Host-perfline_session=abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure"
        );
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static(
                "a=1; perfline_session=old; __Host-perfline_session=new; perfline_session=",
            ),
        );
        assert_eq!(
            session_cookies(&headers).collect::<Vec<_>>(),
            ["old", "new"]
        );
    }
}
