// SPDX-License-Identifier: GPL-3.0-or-later
//! The HTTP side of the client commands: one connection pool, the token, retries with backoff
//! (and `Retry-After`), and the server's error envelope read into a [`CliError`].

use super::*;
use reqwest::header::{HeaderMap, ACCEPT, AUTHORIZATION, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use std::path::Path;
use std::time::Duration;

/// The HTTP side of the client: one connection pool, the token, and the retry loop.
pub(super) struct Http {
    base: String,
    token: Option<String>,
    retries: u32,
    client: reqwest::Client,
}

impl Http {
    pub(super) fn new(c: &Client) -> Result<Http, CliError> {
        let base = c.server.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(CliError::Usage(format!(
                "--server '{base}' is not an http:// or https:// URL"
            )));
        }
        let client = reqwest::Client::builder()
            .user_agent(concat!("perfline-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| CliError::Connect {
                server: base.clone(),
                source: e,
            })?;
        Ok(Http {
            base,
            token: c.token.clone().filter(|t| !t.is_empty()),
            retries: c.retries,
            client,
        })
    }

    /// Sends the request `build` makes, again after a pause while the server answers 429 or
    /// 503 or cannot be reached; answers the final response, or its error envelope as
    /// `CliError::Server`.
    pub(super) async fn send(
        &self,
        method: Method,
        path: &str,
        accept: &str,
        body: impl Fn() -> Option<Body>,
    ) -> Result<reqwest::Response, CliError> {
        let url = format!("{}{path}", self.base);
        let mut attempt = 0;
        loop {
            let mut req = self
                .client
                .request(method.clone(), &url)
                .header(ACCEPT, accept);
            if let Some(t) = &self.token {
                req = req.header(AUTHORIZATION, format!("Bearer {t}"));
            }
            req = match body() {
                Some(Body::Bytes(b)) => req.body(b),
                Some(Body::Json(b)) => req
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(b),
                Some(Body::Multipart(m)) => req.multipart(m),
                None => req,
            };
            let wait = match req.send().await {
                Ok(r) if r.status().is_success() => return Ok(r),
                Ok(r)
                    if matches!(
                        r.status(),
                        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
                    ) && attempt < self.retries =>
                {
                    eprintln!("perfline: {} answered {}", self.base, r.status());
                    retry_after(r.headers()).unwrap_or_else(|| backoff(attempt))
                }
                Ok(r) => return Err(server_error(r).await),
                Err(e)
                    if attempt < self.retries
                        && (e.is_connect() || e.is_timeout() || e.is_request()) =>
                {
                    eprintln!("perfline: {}: {e}", self.base);
                    backoff(attempt)
                }
                Err(e) => {
                    return Err(CliError::Connect {
                        server: self.base.clone(),
                        source: e,
                    })
                }
            };
            attempt += 1;
            eprintln!(
                "perfline: retrying in {:.1} s ({attempt} of {})",
                wait.as_secs_f64(),
                self.retries
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// Sends a JSON body.
    pub(super) async fn send_json(
        &self,
        method: Method,
        path: &str,
        body: &[u8],
    ) -> Result<reqwest::Response, CliError> {
        self.send(method, path, "application/json", || {
            Some(Body::Json(body.to_vec()))
        })
        .await
    }

    pub(super) async fn get_text(&self, path: &str) -> Result<String, CliError> {
        let r = self.send(Method::GET, path, "text/plain", || None).await?;
        read_text(r).await
    }

    pub(super) async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<T, CliError> {
        self.json(Method::GET, path).await
    }

    /// A `POST` with no body (an action such as taking work), its answer as JSON.
    pub(super) async fn post_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<T, CliError> {
        self.json(Method::POST, path).await
    }

    async fn json<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
    ) -> Result<T, CliError> {
        let body = method == Method::POST;
        let r = self
            .send(method, path, "application/json", || {
                body.then(|| Body::Json(b"{}".to_vec()))
            })
            .await?;
        let status = r.status();
        r.json().await.map_err(|e| CliError::Server {
            status,
            message: format!("an answer that is not the expected JSON: {e}"),
        })
    }
}

/// A request body, made afresh for every attempt.
pub(super) enum Body {
    Bytes(Vec<u8>),
    Json(Vec<u8>),
    Multipart(reqwest::multipart::Form),
}

pub(super) async fn read_text(r: reqwest::Response) -> Result<String, CliError> {
    let status = r.status();
    r.text().await.map_err(|e| CliError::Server {
        status,
        message: format!("the answer broke off: {e}"),
    })
}

/// Backoff before retry `attempt` (0-based): 0.5 s doubling, at most 30 s, with up to a
/// quarter of jitter so that a fleet of robots does not come back at once.
pub(super) fn backoff(attempt: u32) -> Duration {
    let base = 0.5 * 2f64.powi(attempt.min(6) as i32);
    let jitter = rand::random::<f64>() * 0.25 * base;
    Duration::from_secs_f64((base + jitter).min(30.0))
}

/// `Retry-After` in seconds (the only form Perfline sends), at most a minute.
pub(super) fn retry_after(h: &HeaderMap) -> Option<Duration> {
    let secs: u64 = h.get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(secs.min(60)))
}

/// The error envelope's message (with file and line when it names them), or the body's start.
pub(super) async fn server_error(r: reqwest::Response) -> CliError {
    let status = r.status();
    let text = r.text().await.unwrap_or_default();
    let message = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) if v["error"]["message"].is_string() => {
            let e = &v["error"];
            let mut m = e["message"].as_str().unwrap_or_default().to_owned();
            if let (Some(file), false) = (e["file"].as_str(), m.contains("line")) {
                m = format!("{file}: {m}");
            }
            m
        }
        _ => text.chars().take(300).collect(),
    };
    CliError::Server { status, message }
}

/// A query string from pairs, skipping the absent ones.
pub(super) fn query(pairs: &[(&str, Option<&str>)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v {
            s.append_pair(k, v);
        }
    }
    s.finish()
}

pub(super) fn read_file(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::File {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_thirty_seconds_and_retry_after_is_read() {
        assert!(
            backoff(0) >= Duration::from_millis(500) && backoff(0) <= Duration::from_millis(625)
        );
        assert!(backoff(3) >= Duration::from_secs(4) && backoff(3) <= Duration::from_secs(5));
        assert_eq!(backoff(20), Duration::from_secs(30));
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), None);
    }
}
