// SPDX-License-Identifier: GPL-3.0-or-later
//! The session cookie (`__Host-` over HTTPS), whether a request came over HTTPS, and the
//! bearer token of a request.

use axum::http::{header, HeaderMap};

/// The cookie a signed-in browser sends.
pub const SESSION_COOKIE: &str = "perfline_session";

/// Paths anyone may reach even on a private instance: signing in, the site's files, health.
pub fn always_public(path: &str) -> bool {
    matches!(
        path,
        "/healthz" | "/signin" | "/api/v1/session" | "/api/v1/session/end" | "/sfn/whoami"
    ) || path.starts_with("/pkg/")
}

/// The session cookie's name behind HTTPS: the `__Host-` prefix makes browsers take it only
/// `Secure`, with `Path=/` and no `Domain` (no sibling host or plain-HTTP page can plant or
/// shadow it).
pub const HOST_SESSION_COOKIE: &str = "__Host-perfline_session";

/// Every `name=value` pair of the request's cookies.
pub(super) fn cookies(headers: &HeaderMap) -> impl Iterator<Item = (&str, &str)> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .filter(|(_, v)| !v.is_empty())
}

/// The values of every session cookie the request carries, under either name.
pub fn session_cookies(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    cookies(headers)
        .filter(|(k, _)| *k == SESSION_COOKIE || *k == HOST_SESSION_COOKIE)
        .map(|(_, v)| v)
}

/// The session cookie's value, if the request carries one under the name of its scheme:
/// over HTTPS only `__Host-perfline_session` (a plain-named cookie planted by a plain-HTTP
/// page or a sibling host cannot shadow it), over HTTP only `perfline_session`.
pub fn session_cookie(headers: &HeaderMap, https: bool) -> Option<&str> {
    let name = if https {
        HOST_SESSION_COOKIE
    } else {
        SESSION_COOKIE
    };
    cookies(headers).find(|(k, _)| *k == name).map(|(_, v)| v)
}

/// Whether a request reached Perfline over HTTPS, as handlers see it (an extension
/// `authorize` inserts): the `--public-url` is HTTPS, or a `--trusted-proxy` says so in
/// `X-Forwarded-Proto`. A client's own `X-Forwarded-Proto` is not believed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Https(pub bool);

/// Whether a `--trusted-proxy` peer says the client used HTTPS.
pub(super) fn forwarded_https(
    peer: Option<std::net::IpAddr>,
    headers: &HeaderMap,
    trusted: &[ipnet::IpNet],
) -> bool {
    peer.is_some_and(|p| trusted.iter().any(|net| net.contains(&p)))
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"))
}

/// The bearer token of a request, if it carries one.
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}
