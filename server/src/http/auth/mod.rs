// SPDX-License-Identifier: GPL-3.0-or-later
//! Who may do what: the check of every request ([`authorize`]: scope, CSRF, `Host`, rate) and
//! the principal handlers record in the audit trail. Tokens and their scopes (`tokens`), the
//! scope each route declares (`scopes`), rates (`limits`), cookies (`sessions`) and the
//! names this server answers (`origins`) are in the files beside this one.
//!
//! A token is `perfline_` and 43 base62 characters (256 random bits); only its SHA-256 is
//! stored. The middleware [`authorize`] runs before any handler reads a body, so a refused
//! request stores nothing.

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::http::error::ApiError;
use crate::AppState;

mod limits;
mod origins;
mod scopes;
mod sessions;
mod tokens;

pub use limits::*;
pub use origins::*;
pub use scopes::*;
pub use sessions::*;
pub use tokens::*;

/// Who is making a request, for the scope check and the audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// No token, in open mode: may write, recorded as `open`.
    Open,
    /// No token in token mode: may read (unless the instance is private).
    Anonymous,
    Token {
        id: i64,
        name: String,
        scopes: Scopes,
    },
}

impl Principal {
    /// The principal a stored token stands for.
    fn of(token: crate::store::TokenInfo) -> Principal {
        Principal::Token {
            id: token.id,
            scopes: Scopes::parse(&token.scopes).unwrap_or_default(),
            name: token.name,
        }
    }

    /// Whether this principal may do what `scope` allows (reads aside from `--private`).
    pub fn may(&self, scope: Scope) -> bool {
        match self {
            Principal::Open => true,
            Principal::Anonymous => scope == Scope::Read,
            Principal::Token { scopes, .. } => scopes.allow(scope),
        }
    }

    /// The name the audit trail records.
    pub fn actor(&self) -> &str {
        match self {
            Principal::Open => "open",
            Principal::Anonymous => "anonymous",
            Principal::Token { name, .. } => name,
        }
    }

    /// Who asks for a comparison, which says how long the permalinks it makes are kept: a
    /// reader without a token makes one of the bounded anonymous ones.
    pub fn asker(&self) -> crate::services::compare::Asker {
        use crate::services::compare::Asker;
        match self {
            Principal::Anonymous => Asker::Anonymous,
            Principal::Open | Principal::Token { .. } => Asker::Known,
        }
    }
}

pub use crate::config::AuthMode;

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn unauthorized(message: impl Into<String>) -> ApiError {
    ApiError::Unauthorized(message.into())
}

/// Finds who is asking, checks the request against the mode, its scope, CSRF and `Host`, and
/// hands the [`Principal`] to the handlers.
pub async fn authorize(
    State((state, scopes)): State<(AppState, std::sync::Arc<ScopeTable>)>,
    req: Request,
    next: Next,
) -> Response {
    // The body is not `Sync`: look at the head only, apart from it.
    let (parts, body) = req.into_parts();
    let peer = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    let trusted = &state.config.trusted_proxies;
    let address = peer
        .map(|ip| client_address(ip, &parts.headers, trusted).to_string())
        .unwrap_or_default();
    // The scheme the client used: Perfline speaks plain HTTP, a trusted proxy may say HTTPS.
    let forwarded = forwarded_https(peer, &parts.headers, trusted);
    let scheme = if forwarded { "https" } else { "http" };
    let https = forwarded
        || state
            .config
            .public_url
            .as_deref()
            .is_some_and(|u| u.starts_with("https://"));
    let matched = parts
        .extensions
        .get::<axum::extract::MatchedPath>()
        .map(|m| m.as_str().to_owned());
    let found = async {
        check_host(&state.origins, parts.uri.path(), &parts.headers)?;
        let needed = scopes.needed(&parts.method, matched.as_deref(), parts.uri.path())?;
        let principal = principal_for(&state, &parts, needed, scheme, https).await?;
        let write = !is_safe(&parts.method) && needed != Scope::Read;
        let key = match &principal {
            Principal::Token { name, .. } => format!("token {name}"),
            _ => format!("address {address}"),
        };
        match state.rate_limits.check(write, &key) {
            Ok(()) => Ok(principal),
            Err(wait) => Err(ApiError::TooManyRequests {
                message: format!(
                    "too many {} from {key}; try again in {} s",
                    if write { "writes" } else { "reads" },
                    wait.as_secs() + 1
                ),
                retry_after: wait.as_secs() + 1,
            }),
        }
    }
    .await;
    let mut req = Request::from_parts(parts, body);
    match found {
        Ok(principal) => {
            req.extensions_mut().insert(principal);
            req.extensions_mut().insert(Https(https));
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
}

async fn principal_for(
    state: &AppState,
    parts: &axum::http::request::Parts,
    needed: Scope,
    scheme: &str,
    https: bool,
) -> Result<Principal, ApiError> {
    let (method, path, headers) = (&parts.method, parts.uri.path(), &parts.headers);
    check_csrf(&state.origins, method, headers, scheme)?;
    let mode = state.config.auth_mode();
    let principal = match bearer(headers) {
        Some(token) => {
            let Some(found) = find_token(&state.store, token).await? else {
                return Err(unauthorized("the token is unknown, revoked or expired"));
            };
            if state.touched.due(found.id) {
                // Best effort: a busy writer must not fail the request.
                if let Err(e) = state.store.touch_token(found.id).await {
                    tracing::debug!(error = %e, "could not record a token's last use");
                }
            }
            Principal::of(found)
        }
        None => {
            // A signed-in browser: its session stands for the token it was made with.
            let from_session = match session_cookie(headers, https) {
                Some(value) => {
                    let limits = (
                        state.config.session_idle_days,
                        state.config.session_max_days,
                    );
                    state
                        .store
                        .session_token(&token_hash(value), limits.0, limits.1)
                        .await?
                }
                None => None,
            };
            match from_session {
                Some(found) => Principal::of(found),
                None if mode == AuthMode::Open => Principal::Open,
                None => Principal::Anonymous,
            }
        }
    };
    let allowed = match &principal {
        // Open mode is today's Perfline: no access control at all.
        Principal::Open => true,
        // Signing in, the site's own files and the health check are never private.
        Principal::Anonymous => {
            needed == Scope::Read && (!state.config.private || always_public(path))
        }
        Principal::Token { scopes, .. } => scopes.allow(needed),
    };
    if allowed {
        return Ok(principal);
    }
    match principal {
        Principal::Token { name, scopes, .. } => Err(ApiError::Forbidden(format!(
            "token '{name}' has the scopes {scopes}; this needs {}",
            needed.as_str()
        ))),
        _ => Err(unauthorized(format!(
            "this needs a token with the {} scope: send Authorization: Bearer <token> \
             (perfline token create --name NAME --scope {})",
            needed.as_str(),
            needed.as_str()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderMap;

    #[test]
    fn tokens_are_recognisable_and_long() {
        let t = new_token();
        assert!(t.starts_with("perfline_"));
        assert_eq!(t.len(), 9 + 43);
        // 43 base62 characters carry 43 · log2(62) ≈ 256 bits.
        assert!(43.0 * 62f64.log2() >= 160.0);
        assert_ne!(new_token(), t);
        assert_eq!(token_hash(&t).len(), 64);
    }

    #[test]
    fn scopes_parse_and_allow() {
        let s = Scopes::parse("mark, upload,upload").unwrap();
        assert_eq!(s.to_string(), "upload,mark");
        assert!(s.allow(Scope::Upload) && s.allow(Scope::Mark) && s.allow(Scope::Read));
        assert!(!s.allow(Scope::Admin));
        assert!(Scopes::parse("admin").unwrap().allow(Scope::Upload));
        assert!(Scopes::parse("write").is_err());
        assert!(Scopes::parse(" , ").is_err());
    }

    #[test]
    fn authorities_split() {
        let check = |raw: &str, expect: Option<(&str, Option<u16>)>| {
            let got = split_authority(raw);
            let expect = expect.map(|(h, p)| (h.to_owned(), p));
            assert_eq!(got, expect, "{raw:?}");
        };
        check("127.0.0.1:3000", Some(("127.0.0.1", Some(3000))));
        check("Perf.Example.ORG", Some(("perf.example.org", None)));
        check(
            "perf.example.org.:443",
            Some(("perf.example.org", Some(443))),
        );
        check("[::1]:8080", Some(("[::1]", Some(8080))));
        check("[::1]", Some(("[::1]", None)));
        check("[::1]x", None);
        check("host:port", None);
        check("a@b", None);
        check("", None);
    }

    fn origins(public: Option<&str>, listen: &str, hosts: &[&str]) -> Origins {
        let mut config = crate::Config::for_db("x.db".into());
        config.public_url = public.map(str::to_owned);
        config.listen = listen.parse().unwrap();
        config.allow_hosts = hosts.iter().map(|h| (*h).to_owned()).collect();
        Origins::new(&config)
    }

    #[test]
    fn hosts_are_an_allow_list() {
        let loopback = origins(None, "127.0.0.1:3000", &[]);
        for host in [
            "localhost",
            "127.0.0.1",
            "127.9.9.9",
            "[::1]",
            "app.localhost",
        ] {
            assert!(loopback.host_allowed(host), "{host}");
        }
        for host in [
            "rebind.evil.example",
            "10.0.0.5",
            "perf.example.org",
            "localhost.evil",
        ] {
            assert!(!loopback.host_allowed(host), "{host}");
        }
        let lab = origins(None, "0.0.0.0:3000", &["perfbox"]);
        assert!(lab.host_allowed("10.0.0.5") && lab.host_allowed("[fd00::1]"));
        assert!(lab.host_allowed("perfbox") && !lab.host_allowed("rebind.evil.example"));
        let public = origins(Some("https://perf.example.org"), "0.0.0.0:3000", &[]);
        assert!(public.host_allowed("perf.example.org") && public.host_allowed("localhost"));
        assert!(
            !public.host_allowed("10.0.0.5"),
            "a public URL names the host"
        );
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let check = |o: &Origins, origin: &str, host: Option<&str>, expect: bool| {
            let parsed = Origin::parse(origin);
            let got = parsed.is_some_and(|p| o.origin_allowed(&p, host, "http"));
            assert_eq!(got, expect, "{origin} with Host {host:?}");
        };
        let loopback = origins(None, "127.0.0.1:3000", &[]);
        check(
            &loopback,
            "http://127.0.0.1:3000",
            Some("127.0.0.1:3000"),
            true,
        );
        check(
            &loopback,
            "http://localhost:3000",
            Some("localhost:3000"),
            true,
        );
        check(
            &loopback,
            "http://127.0.0.1:3001",
            Some("127.0.0.1:3000"),
            false,
        );
        check(
            &loopback,
            "http://localhost:3000",
            Some("127.0.0.1:3000"),
            false,
        );
        // A rebinding page: its own name in both Origin and Host.
        check(
            &loopback,
            "http://rebind.evil.example:3000",
            Some("rebind.evil.example:3000"),
            false,
        );
        check(&loopback, "null", Some("127.0.0.1:3000"), false);
        let public = origins(Some("https://perf.example.test"), "127.0.0.1:3000", &[]);
        check(
            &public,
            "https://perf.example.test",
            Some("127.0.0.1:3000"),
            true,
        );
        check(&public, "https://perf.example.test:443", None, true);
        check(
            &public,
            "http://perf.example.test",
            Some("perf.example.test"),
            false,
        );
        check(
            &public,
            "https://perf.example.test:8443",
            Some("perf.example.test:8443"),
            false,
        );
        check(
            &public,
            "http://127.0.0.1:3000",
            Some("127.0.0.1:3000"),
            true,
        );
        // An allowed name's page over the other scheme (plain HTTP where HTTPS was used).
        let lab = origins(None, "0.0.0.0:3000", &["perf.lab"]);
        check(&lab, "http://perf.lab", Some("perf.lab"), true);
        check(&lab, "https://perf.lab", Some("perf.lab"), false);
        let over_https = |origin: &str| {
            let parsed = Origin::parse(origin).unwrap();
            lab.origin_allowed(&parsed, Some("perf.lab"), "https")
        };
        assert!(over_https("https://perf.lab") && !over_https("http://perf.lab"));
    }

    #[test]
    fn a_trusted_proxy_names_the_client() {
        let trusted: Vec<ipnet::IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let headers = |xff: &str| {
            let mut h = HeaderMap::new();
            h.insert("x-forwarded-for", xff.parse().unwrap());
            h
        };
        let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap();
        let check = |peer: &str, xff: &str, expect: &str| {
            assert_eq!(
                client_address(ip(peer), &headers(xff), &trusted),
                ip(expect),
                "{peer} {xff}"
            );
        };
        check("10.0.0.1", "203.0.113.7", "203.0.113.7");
        // A client cannot choose its key by sending its own X-Forwarded-For first.
        check("10.0.0.1", "1.2.3.4, 203.0.113.7", "203.0.113.7");
        check("10.0.0.1", "203.0.113.7, 10.0.0.2", "203.0.113.7");
        check("10.0.0.1", "garbage", "10.0.0.1");
        // An untrusted peer's header is ignored.
        check("198.51.100.1", "203.0.113.7", "198.51.100.1");
    }

    #[test]
    fn undeclared_or_unreadable_scopes_need_admin() {
        let doc: utoipa::openapi::OpenApi = serde_json::from_value(serde_json::json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/read": {"get": {"responses": {}, "security": [{}, {"bearer": ["read"]}]}},
                "/up": {"post": {"responses": {}, "security": [{"bearer": ["upload"]}]}},
                "/public": {"post": {"responses": {}, "security": [{}]}},
                "/session-only": {"post": {"responses": {}, "security": [{"session": ["mark"]}]}},
                "/typo": {"post": {"responses": {}, "security": [{"bearer": ["uplaod"]}]}},
                "/empty": {"post": {"responses": {}, "security": [{"bearer": []}]}},
                "/none": {"delete": {"responses": {}}}
            }
        }))
        .unwrap();
        let table = ScopeTable::new(&doc);
        let needed = |m: Method, p: &str| table.needed(&m, Some(p), p).unwrap();
        assert_eq!(needed(Method::GET, "/read"), Scope::Read);
        assert_eq!(needed(Method::HEAD, "/read"), Scope::Read);
        assert_eq!(needed(Method::POST, "/up"), Scope::Upload);
        assert_eq!(needed(Method::POST, "/public"), Scope::Read);
        assert_eq!(needed(Method::POST, "/session-only"), Scope::Mark);
        assert_eq!(needed(Method::POST, "/typo"), Scope::Admin);
        assert_eq!(needed(Method::POST, "/empty"), Scope::Admin);
        assert_eq!(needed(Method::DELETE, "/none"), Scope::Admin);
        assert_eq!(
            needed(Method::POST, "/read"),
            Scope::Admin,
            "a method no route declares"
        );
        assert_eq!(
            needed(Method::GET, "/api/v1/secret"),
            Scope::Admin,
            "an undeclared API read"
        );
        assert_eq!(needed(Method::GET, "/trend"), Scope::Read, "a page");
    }
}
