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

use crate::http::error::ApiError;
use crate::AppState;

/// The prefix that makes a Perfline token recognisable (secret scanners, logs).
pub const TOKEN_PREFIX: &str = "perfline_";

pub use app::scope::Scope;

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
}

pub use crate::config::AuthMode;

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The scope every route needs, read once from where each is declared: an API operation's
/// `security` in its `#[utoipa::path]` (the bearer requirement's scope; `security(())` for
/// what anyone may do), a server function's [`app::needs!`] beside its definition.
///
/// Deny by default: an API operation that declares no scope needs `admin`; a `/sfn/` name
/// without a declared scope is refused (404), and one called with another method than its
/// own is refused (405); any other non-GET request no route declares needs `admin`. Page and
/// file GETs are reads.
pub struct ScopeTable {
    /// `(method, route pattern as axum matches it)`: its scope.
    routes: HashMap<(Method, String), Scope>,
    /// `/sfn/name`: its method and scope.
    server_fns: HashMap<&'static str, (Method, Scope)>,
}

/// Every operation of the description with the scope it declares (`None`: it declares
/// nothing, and so needs `admin`): `(method, path, scope)`.
pub fn declared_scopes(doc: &utoipa::openapi::OpenApi) -> Vec<(Method, String, Option<Scope>)> {
    let json = serde_json::to_value(doc).unwrap_or_default();
    let mut out = Vec::new();
    let Some(paths) = json["paths"].as_object() else {
        return out;
    };
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (method, op) in item {
            let Ok(method) = Method::from_bytes(method.to_ascii_uppercase().as_bytes()) else {
                continue;
            };
            // The bearer (or session) requirement's scope; `security(())` alone (an empty
            // requirement, anyone) is a read; anything else unreadable needs `admin`.
            let scope = op["security"].as_array().map(|requirements| {
                let named = requirements.iter().find_map(|r| {
                    let scopes = r.get("bearer").or_else(|| r.get("session"))?;
                    scopes[0].as_str().map(Scope::parse)
                });
                match named {
                    Some(Some(scope)) => scope,
                    Some(None) => Scope::Admin,
                    None if requirements
                        .iter()
                        .any(|r| r.as_object().is_some_and(serde_json::Map::is_empty)) =>
                    {
                        Scope::Read
                    }
                    None => Scope::Admin,
                }
            });
            out.push((method, path.clone(), scope));
        }
    }
    out
}

/// Every registered server function with its method and declared scope (`None`: none).
pub fn server_fn_table() -> Vec<(&'static str, Method, Option<Scope>)> {
    leptos::server_fn::axum::server_fn_paths()
        .map(|(path, method)| (path, method, app::scope::server_fn_scope(path)))
        .collect()
}

impl ScopeTable {
    pub fn new(doc: &utoipa::openapi::OpenApi) -> ScopeTable {
        let routes = declared_scopes(doc)
            .into_iter()
            .map(|(method, path, scope)| ((method, path), scope.unwrap_or(Scope::Admin)))
            .collect();
        let server_fns = server_fn_table()
            .into_iter()
            .filter_map(|(path, method, scope)| Some((path, (method, scope?))))
            .collect();
        ScopeTable { routes, server_fns }
    }

    /// The scope `method path` needs; `matched` is the route pattern axum matched, if any.
    pub fn needed(
        &self,
        method: &Method,
        matched: Option<&str>,
        path: &str,
    ) -> Result<Scope, ApiError> {
        if path.starts_with("/sfn/") {
            let Some((own, scope)) = self.server_fns.get(path) else {
                return Err(ApiError::NotFound("no such server function".into()));
            };
            if own != method {
                return Err(ApiError::MethodNotAllowed(format!(
                    "this server function is called with {own}"
                )));
            }
            return Ok(*scope);
        }
        let get = if *method == Method::HEAD {
            &Method::GET
        } else {
            method
        };
        let key = (get.clone(), matched.unwrap_or(path).to_owned());
        match self.routes.get(&key) {
            Some(scope) => Ok(*scope),
            // Pages and the site's files are reads; an API path the description does not
            // declare is not (deny by default).
            None if is_safe(method) && !path.starts_with("/api/") => Ok(Scope::Read),
            None => Ok(Scope::Admin),
        }
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
fn cookies(headers: &HeaderMap) -> impl Iterator<Item = (&str, &str)> {
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
fn forwarded_https(
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
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// A host and port as `Host` or an origin names them: the host in lower case (an IPv6
/// address in brackets), the port if one is given.
fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let authority = authority.trim();
    if authority.is_empty() || authority.contains(['/', '@', ' ']) {
        return None;
    }
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (format!("[{v6}]"), port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), Some(p)),
            None => (authority.to_owned(), None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((host.trim_end_matches('.').to_ascii_lowercase(), port))
}

/// `scheme://host[:port]` with the port made explicit.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    fn parse(raw: &str) -> Option<Origin> {
        let (scheme, rest) = raw.trim().split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let (host, port) = split_authority(rest.trim_end_matches('/'))?;
        Some(Origin {
            scheme,
            host,
            port: port.unwrap_or(default),
        })
    }
}

/// A name only this machine can mean: `localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`.
fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || ip_literal(host).is_some_and(|ip| ip.is_loopback())
}

/// The address a host names literally (`10.0.0.5`, `[::1]`), if it is one.
fn ip_literal(host: &str) -> Option<std::net::IpAddr> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    bare.parse().ok()
}

/// Which `Host` names and which `Origin`s this server answers, from its configuration
/// (`--public-url`, `--allow-host`, the listening address). A DNS-rebinding page reaches
/// the port under a name of its own, which is in neither list.
pub struct Origins {
    public: Option<Origin>,
    hosts: Vec<String>,
    /// Any IP address as `Host` (not rebindable): on a non-loopback address without
    /// `--public-url`, where the names users type are not known.
    ip_literals: bool,
}

impl Origins {
    pub fn new(config: &crate::Config) -> Origins {
        let public = config.public_url.as_deref().and_then(Origin::parse);
        let mut hosts = config.allow_hosts.clone();
        if let Some(p) = &public {
            hosts.push(p.host.clone());
        }
        let ip_literals = public.is_none() && !config.listen.ip().is_loopback();
        Origins {
            public,
            hosts,
            ip_literals,
        }
    }

    fn host_allowed(&self, host: &str) -> bool {
        is_loopback_name(host)
            || self.hosts.iter().any(|h| h == host)
            || (self.ip_literals && ip_literal(host).is_some())
    }

    /// Whether a browser page at `origin` is this server's own, for a request that named
    /// `host` and came over `scheme`: exactly the `--public-url`'s scheme, host and port, or
    /// an allowed name that is not the public one with the scheme, host and port of the
    /// request itself.
    fn origin_allowed(&self, origin: &Origin, host: Option<&str>, scheme: &str) -> bool {
        if let Some(public) = &self.public {
            if origin == public {
                return true;
            }
            if origin.host == public.host {
                return false;
            }
        }
        let Some((host, port)) = host.and_then(split_authority) else {
            return false;
        };
        let port = port.unwrap_or(if scheme == "https" { 443 } else { 80 });
        self.host_allowed(&origin.host)
            && origin.scheme == scheme
            && origin.host == host
            && origin.port == port
    }
}

/// A header's value as text for a message: printable ASCII only, at most 100 characters.
fn shown(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .take(100)
        .collect()
}

/// Refuses a state-changing request a browser sent from a page that is not this server's:
/// `Sec-Fetch-Site` must say same-origin, and `Origin` (which a page cannot set) must be
/// one of this server's own, by scheme, host and port. A browser's write without `Origin`
/// (a cookie or `Sec-Fetch-Site` tell it is a browser) is refused too; a request with
/// neither is not from a browser, and one with a bearer token and no cookie cannot have
/// been forged by a page.
fn check_csrf(
    origins: &Origins,
    method: &Method,
    headers: &HeaderMap,
    scheme: &str,
) -> Result<(), ApiError> {
    if is_safe(method) {
        return Ok(());
    }
    let cookie = headers.contains_key(header::COOKIE);
    if bearer(headers).is_some() && !cookie {
        return Ok(());
    }
    let forbidden = |why: String| Err(ApiError::Forbidden(why));
    let site = headers
        .get("sec-fetch-site")
        .map(|v| v.to_str().unwrap_or("?"));
    if let Some(site) = site {
        if site != "same-origin" {
            return forbidden(format!(
                "a cross-site request (Sec-Fetch-Site: {}) may not change anything",
                shown(site)
            ));
        }
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    match headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or("?"))
    {
        Some(origin) => {
            if Origin::parse(origin).is_some_and(|o| origins.origin_allowed(&o, host, scheme)) {
                Ok(())
            } else {
                forbidden(format!(
                    "a request from {} may not change anything here; only this server's pages may",
                    shown(origin)
                ))
            }
        }
        None if cookie || site.is_some() => forbidden(
            "a browser's request that changes something must say where it comes from (Origin)"
                .into(),
        ),
        None => Ok(()),
    }
}

/// Refuses a request whose `Host` is not one this server answers (DNS rebinding: a page at
/// `rebind.example` whose name now points here); the load balancer's `/healthz` is exempt.
fn check_host(origins: &Origins, path: &str, headers: &HeaderMap) -> Result<(), ApiError> {
    if path == "/healthz" {
        return Ok(());
    }
    let raw = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let Some((host, _)) = split_authority(raw) else {
        return Err(ApiError::Misdirected(
            "the request names no valid Host".into(),
        ));
    };
    if origins.host_allowed(&host) {
        return Ok(());
    }
    let answers = match &origins.public {
        Some(p) => format!("this server answers for {}", p.host),
        None => "this server answers for loopback names".to_owned(),
    };
    Err(ApiError::Misdirected(format!(
        "{answers}, not for host '{}'; an operator can add it with --allow-host or --public-url",
        shown(&host)
    )))
}

/// The `--metrics-listen` router's `Host` check: a scraper names that address (an IP) or
/// an allowed name; a rebinding page's name is refused (421).
pub async fn metrics_host(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .and_then(split_authority);
    match host {
        Some((host, _)) if state.origins.host_allowed(&host) || ip_literal(&host).is_some() => {
            next.run(req).await
        }
        _ => {
            ApiError::Misdirected("this address answers for IP addresses and allowed names".into())
                .into_response()
        }
    }
}

/// The address a request counts against in the rate limits: the peer's, or, when the peer
/// is a `--trusted-proxy`, the nearest address in `X-Forwarded-For` that is not itself one.
pub fn client_address(
    peer: std::net::IpAddr,
    headers: &HeaderMap,
    trusted: &[ipnet::IpNet],
) -> std::net::IpAddr {
    let is_trusted = |ip: &std::net::IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        let Ok(ip) = hop.trim().parse::<std::net::IpAddr>() else {
            break;
        };
        client = ip;
        if !is_trusted(&ip) {
            break;
        }
    }
    client
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
