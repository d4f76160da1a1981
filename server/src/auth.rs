//! Who may do what: API tokens with scopes, the `open` and `token` modes, the check of every
//! request (scope, CSRF, `Host`), and the principal handlers record in the audit trail.
//!
//! A token is `perfline_` and 43 base62 characters (256 random bits); only its SHA-256 is
//! stored. The middleware [`authorize`] runs before any handler reads a body, so a refused
//! request stores nothing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::distr::{Alphanumeric, SampleString};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::AppState;

/// The prefix that makes a Perfline token recognisable (secret scanners, logs).
pub const TOKEN_PREFIX: &str = "perfline_";

/// What a token may do. `admin` may do everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Reads, on a `--private` instance (any token may read).
    Read,
    /// Uploads and commit histories.
    Upload,
    /// Run marks and bisect logs.
    Mark,
    /// Everything, deletions and token management included.
    Admin,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Read, Scope::Upload, Scope::Mark, Scope::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Upload => "upload",
            Scope::Mark => "mark",
            Scope::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|x| x.as_str() == s.trim())
    }
}

/// A set of scopes, as stored (`upload,mark`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    /// Parses `upload,mark`; refuses unknown names and an empty list.
    pub fn parse(raw: &str) -> Result<Scopes, String> {
        let mut scopes = Vec::new();
        for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let scope = Scope::parse(part).ok_or_else(|| {
                format!("unknown scope '{part}'; the scopes are read, upload, mark, admin")
            })?;
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        if scopes.is_empty() {
            return Err("give at least one scope: read, upload, mark or admin".into());
        }
        scopes.sort();
        Ok(Scopes(scopes))
    }

    /// Whether these scopes allow what `needed` allows: `admin` allows everything, and any
    /// scope allows reading.
    pub fn allow(&self, needed: Scope) -> bool {
        self.0.contains(&Scope::Admin) || self.0.contains(&needed) || needed == Scope::Read
    }
}

impl std::fmt::Display for Scopes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|s| s.as_str()).collect();
        f.write_str(&names.join(","))
    }
}

/// A new token: the prefix and 43 base62 characters (~256 bits from the OS's generator).
pub fn new_token() -> String {
    format!(
        "{TOKEN_PREFIX}{}",
        Alphanumeric.sample_string(&mut rand::rng(), 43)
    )
}

/// What is stored of a token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The live token `token` is (not revoked, not expired), if any.
pub async fn find_token(
    store: &crate::store::Store,
    token: &str,
) -> crate::store::StoreResult<Option<crate::store::TokenInfo>> {
    if !token.starts_with(TOKEN_PREFIX) {
        return Ok(None);
    }
    store.token_by_hash(&token_hash(token)).await
}

/// Makes a token named `name` with `scopes` and stores its hash (the audit trail says `actor`
/// did): its id and the token, to show once; `None` if the name is taken.
pub async fn issue_token(
    store: &crate::store::Store,
    name: &str,
    scopes: &Scopes,
    expires_days: Option<u32>,
    actor: &str,
) -> crate::store::StoreResult<Option<(i64, String)>> {
    let token = new_token();
    let id = store
        .create_token(
            name,
            &token_hash(&token),
            &scopes.to_string(),
            expires_days,
            actor,
        )
        .await?;
    Ok(id.map(|id| (id, token)))
}

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

    /// The name the audit trail records.
    pub fn actor(&self) -> &str {
        match self {
            Principal::Open => "open",
            Principal::Anonymous => "anonymous",
            Principal::Token { name, .. } => name,
        }
    }
}

/// How Perfline decides who may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthMode {
    /// Anyone who reaches the port may write (the default on a loopback address).
    Open,
    /// Writes need a bearer token with the right scope (the default on any other address).
    Token,
}

/// The scope a request needs: reads need `read` (enforced only on a private instance), every
/// other method a write scope, by endpoint; what is not listed needs `admin`.
pub fn needed_scope(method: &Method, path: &str) -> Scope {
    let safe = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if safe {
        return if path == "/api/v1/audit" || path.starts_with("/api/v1/tokens") {
            Scope::Admin
        } else {
            Scope::Read
        };
    }
    // The pages' server functions are POSTs; only one of them writes.
    if let Some(function) = path.strip_prefix("/sfn/") {
        return match function {
            "mark_runs" | "triage_alert" => Scope::Mark,
            "delete_upload" | "correct_run" => Scope::Admin,
            _ => Scope::Read,
        };
    }
    match path {
        // Anyone may try to sign in, and sign out.
        "/api/v1/session" | "/api/v1/session/end" => Scope::Read,
        "/api/v1/upload" | "/api/v1/commits" => Scope::Upload,
        "/api/v1/bisect" => Scope::Mark,
        // Triage: PATCH /api/v1/alerts/{id}.
        p if p.starts_with("/api/v1/alerts/") => Scope::Mark,
        p if p.starts_with("/api/v1/runs/") && p.ends_with("/mark") => Scope::Mark,
        _ => Scope::Admin,
    }
}

/// Rate limits, keyed by token name or client address: writes per minute, reads per second.
pub struct RateLimits {
    writes: Option<Keyed>,
    reads: Option<Keyed>,
}

type Keyed = governor::DefaultKeyedRateLimiter<String>;

impl RateLimits {
    pub fn new(writes_per_minute: u32, reads_per_second: u32) -> RateLimits {
        use governor::{Quota, RateLimiter};
        use std::num::NonZeroU32;
        RateLimits {
            writes: NonZeroU32::new(writes_per_minute)
                .map(|n| RateLimiter::keyed(Quota::per_minute(n))),
            reads: NonZeroU32::new(reads_per_second)
                .map(|n| RateLimiter::keyed(Quota::per_second(n))),
        }
    }

    /// `Ok` if `key` may make one more request of this kind now, else how long to wait.
    fn check(&self, write: bool, key: &str) -> Result<(), Duration> {
        use governor::clock::{Clock, DefaultClock};
        let limiter = if write { &self.writes } else { &self.reads };
        let Some(limiter) = limiter else {
            return Ok(());
        };
        // Forget idle keys now and then, so addresses cannot grow the map without bound.
        if limiter.len() > 100_000 {
            limiter.retain_recent();
        }
        limiter
            .check_key(&key.to_owned())
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// `last_used_at` is written at most this often per token (a write per request would put
/// every authenticated read on the single writer).
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// When each token's `last_used_at` was last written by this process.
#[derive(Default)]
pub struct Touched(Mutex<HashMap<i64, Instant>>);

impl Touched {
    fn due(&self, id: i64) -> bool {
        let Ok(mut map) = self.0.lock() else {
            return false;
        };
        let now = Instant::now();
        match map.get(&id) {
            Some(at) if now.duration_since(*at) < TOUCH_EVERY => false,
            _ => {
                if map.len() > 10_000 {
                    map.clear();
                }
                map.insert(id, now);
                true
            }
        }
    }
}

fn unauthorized(message: impl Into<String>) -> ApiError {
    ApiError::Unauthorized(message.into())
}

/// The cookie a signed-in browser sends.
pub const SESSION_COOKIE: &str = "perfline_session";

/// Paths anyone may reach even on a private instance: signing in, the site's files, health.
fn always_public(path: &str) -> bool {
    matches!(
        path,
        "/healthz" | "/signin" | "/api/v1/session" | "/sfn/whoami"
    ) || path.starts_with("/pkg/")
}

/// The session cookie's value, if the request carries one.
pub fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|kv| {
            let (k, v) = kv.trim().split_once('=')?;
            (k == SESSION_COOKIE && !v.is_empty()).then_some(v)
        })
}

/// The bearer token of a request, if it carries one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The `host[:port]` of an origin or URL (`https://perf.example.org` → `perf.example.org`).
fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// Refuses a state-changing request a browser sent from another site: `Sec-Fetch-Site` must
/// say same-origin (or none: typed by the user), else `Origin` must be this server's. A
/// request with neither header is not from a browser; one with a bearer token and no cookie
/// cannot have been forged by a page.
fn check_csrf(state: &AppState, method: &Method, headers: &HeaderMap) -> Result<(), ApiError> {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return Ok(());
    }
    if bearer(headers).is_some() && !headers.contains_key(header::COOKIE) {
        return Ok(());
    }
    let forbidden = |why: String| Err(ApiError::Forbidden(why));
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        if site != "same-origin" && site != "none" {
            return forbidden(format!(
                "a cross-site request (Sec-Fetch-Site: {site}) may not change anything"
            ));
        }
        return Ok(());
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        let ours = match &state.config.public_url {
            Some(url) => authority(url).to_owned(),
            None => headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or_default()
                .to_owned(),
        };
        if origin == "null" || !authority(origin).eq_ignore_ascii_case(&ours) {
            return forbidden(format!(
                "a request from {origin} may not change anything here; only this server's pages may"
            ));
        }
    }
    Ok(())
}

/// With `--public-url`, a request naming another `Host` is refused (DNS rebinding); the load
/// balancer's `/healthz` is exempt.
fn check_host(state: &AppState, path: &str, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(url) = &state.config.public_url else {
        return Ok(());
    };
    if path == "/healthz" {
        return Ok(());
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if host.eq_ignore_ascii_case(authority(url)) {
        Ok(())
    } else {
        Err(ApiError::Misdirected(format!(
            "this server answers for {}, not for host '{}'",
            authority(url),
            host.chars().take(100).collect::<String>()
        )))
    }
}

/// Finds who is asking, checks the request against the mode, its scope, CSRF and `Host`, and
/// hands the [`Principal`] to the handlers.
pub async fn authorize(State(state): State<AppState>, req: Request, next: Next) -> Response {
    // The body is not `Sync`: look at the head only, apart from it.
    let (parts, body) = req.into_parts();
    let address = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_default();
    let found = principal_for(&state, &parts.method, parts.uri.path(), &parts.headers)
        .await
        .and_then(|principal| {
            let write = !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS)
                && needed_scope(&parts.method, parts.uri.path()) != Scope::Read;
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
        });
    let mut req = Request::from_parts(parts, body);
    match found {
        Ok(principal) => {
            req.extensions_mut().insert(principal);
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
}

async fn principal_for(
    state: &AppState,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
) -> Result<Principal, ApiError> {
    check_host(state, path, headers)?;
    check_csrf(state, method, headers)?;
    let needed = needed_scope(method, path);
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
            let from_session = match session_cookie(headers) {
                Some(value) => state.store.session_token(&token_hash(value)).await?,
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
    fn every_endpoint_needs_its_scope() {
        let post = Method::POST;
        for (method, path, scope) in [
            (&Method::GET, "/api/v1/runs", Scope::Read),
            (&Method::GET, "/api/v1/uploads/1/raw", Scope::Read),
            (&Method::GET, "/api/v1/audit", Scope::Admin),
            (&Method::GET, "/api/v1/tokens", Scope::Admin),
            (&post, "/api/v1/tokens", Scope::Admin),
            (&Method::DELETE, "/api/v1/tokens/robot", Scope::Admin),
            (&post, "/api/v1/session", Scope::Read),
            (&post, "/api/v1/upload", Scope::Upload),
            (&post, "/api/v1/commits", Scope::Upload),
            (&post, "/api/v1/bisect", Scope::Mark),
            (&post, "/api/v1/runs/7/mark", Scope::Mark),
            (&post, "/sfn/mark_runs", Scope::Mark),
            (&post, "/sfn/compare", Scope::Read),
            (&post, "/sfn/delete_upload", Scope::Admin),
            (&post, "/sfn/correct_run", Scope::Admin),
            (&Method::DELETE, "/api/v1/uploads/1", Scope::Admin),
            (&Method::PATCH, "/api/v1/runs/1", Scope::Admin),
            (&post, "/api/v1/anything-new", Scope::Admin),
        ] {
            assert_eq!(needed_scope(method, path), scope, "{method} {path}");
        }
    }
}
