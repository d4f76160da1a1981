// SPDX-License-Identifier: GPL-3.0-or-later
//! Which `Host` names and `Origin`s this server answers (DNS rebinding, CSRF), and who the
//! client is behind a trusted proxy.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::http::error::ApiError;
use crate::AppState;

use super::*;

/// A host and port as `Host` or an origin names them: the host in lower case (an IPv6
/// address in brackets), the port if one is given.
pub(super) fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
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
pub(super) struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    pub(super) fn parse(raw: &str) -> Option<Origin> {
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
pub(super) fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || ip_literal(host).is_some_and(|ip| ip.is_loopback())
}

/// The address a host names literally (`10.0.0.5`, `[::1]`), if it is one.
pub(super) fn ip_literal(host: &str) -> Option<std::net::IpAddr> {
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

    pub(super) fn host_allowed(&self, host: &str) -> bool {
        is_loopback_name(host)
            || self.hosts.iter().any(|h| h == host)
            || (self.ip_literals && ip_literal(host).is_some())
    }

    /// Whether a browser page at `origin` is this server's own, for a request that named
    /// `host` and came over `scheme`: exactly the `--public-url`'s scheme, host and port, or
    /// an allowed name that is not the public one with the scheme, host and port of the
    /// request itself.
    pub(super) fn origin_allowed(&self, origin: &Origin, host: Option<&str>, scheme: &str) -> bool {
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
pub(super) fn shown(value: &str) -> String {
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
/// been forged by a page, unless `Sec-Fetch-Site` says it comes from another site.
pub(super) fn check_csrf(
    origins: &Origins,
    method: &Method,
    headers: &HeaderMap,
    scheme: &str,
) -> Result<(), ApiError> {
    if is_safe(method) {
        return Ok(());
    }
    let forbidden = |why: String| Err(ApiError::Forbidden(why));
    // A browser says where a request comes from; one from another site changes nothing,
    // whatever credentials it carries (a page may hold a token too).
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
    let cookie = headers.contains_key(header::COOKIE);
    if bearer(headers).is_some() && !cookie {
        return Ok(());
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
pub(super) fn check_host(
    origins: &Origins,
    path: &str,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
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
