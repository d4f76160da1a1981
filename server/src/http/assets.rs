// SPDX-License-Identifier: GPL-3.0-or-later
//! The built site (WASM, its JS glue, the stylesheet): embedded in the binary at build time
//! (`build.rs`), or read once at start from `--site-root` (a development override).
//!
//! Architecture invariant: asset names carry a hash of the set's content
//! (`perfline-<hash>.js`), so an answer may be cached for good (`immutable`); a new build is a
//! new name, and the pages of that build link to it.

use std::collections::HashMap;
use std::path::Path;

use axum::extract::{Path as UrlPath, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::AppState;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/site.rs"));
}

/// One file in its stored encodings.
struct Asset {
    identity: Bytes,
    gzip: Option<Bytes>,
    br: Option<Bytes>,
    /// A hash of the uncompressed content; each encoding's ETag adds a suffix.
    hash: String,
    content_type: &'static str,
}

/// The site's files by name, and the name of the set (`perfline-<hash>`).
pub struct Site {
    name: Option<String>,
    files: HashMap<String, Asset>,
}

impl Site {
    /// The site compiled into this binary (none when it was built without one).
    pub fn embedded() -> Site {
        Site::from_files(
            embedded::SITE_NAME.map(str::to_owned),
            embedded::SITE_FILES
                .iter()
                .map(|(name, bytes)| ((*name).to_owned(), Bytes::from_static(bytes))),
        )
    }

    /// A built site on disk: `<root>/pkg/site.txt` names the set, its files lie beside it.
    pub fn from_dir(root: &Path) -> anyhow::Result<Site> {
        let pkg = root.join("pkg");
        let name = std::fs::read_to_string(pkg.join("site.txt")).map_err(|e| {
            anyhow::anyhow!(
                "{}: {e} (run scripts/build-site)",
                pkg.join("site.txt").display()
            )
        })?;
        let name = name.trim().to_owned();
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&pkg)? {
            let file = entry?.file_name().to_string_lossy().into_owned();
            if file.starts_with(&name) {
                files.push((file.clone(), Bytes::from(std::fs::read(pkg.join(&file))?)));
            }
        }
        Ok(Site::from_files(Some(name), files))
    }

    fn from_files(name: Option<String>, files: impl IntoIterator<Item = (String, Bytes)>) -> Site {
        let files: HashMap<String, Bytes> = files.into_iter().collect();
        let mut assets = HashMap::new();
        for (file, identity) in &files {
            let Some(content_type) = content_type(file) else {
                continue;
            };
            let hash = hex::encode(&Sha256::digest(identity)[..12]);
            assets.insert(
                file.clone(),
                Asset {
                    identity: identity.clone(),
                    gzip: files.get(&format!("{file}.gz")).cloned(),
                    br: files.get(&format!("{file}.br")).cloned(),
                    hash,
                    content_type,
                },
            );
        }
        Site {
            name,
            files: assets,
        }
    }

    /// `perfline-<hash>`: the stem of the JS, WASM (`_bg.wasm`) and CSS names; None when
    /// no site was built.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The answer to `GET /pkg/{file}`: the best encoding the client accepts, an ETag per
    /// encoding, 304 on a matching `If-None-Match`, cached for good.
    fn respond(&self, file: &str, headers: &HeaderMap) -> Response {
        let Some(asset) = self.files.get(file) else {
            return (StatusCode::NOT_FOUND, "no such file\n").into_response();
        };
        let accepted = accepted_encodings(headers);
        let (body, encoding, tag) = match (&asset.br, &asset.gzip) {
            (Some(br), _) if accepted.br => (br, Some("br"), "-br"),
            (_, Some(gz)) if accepted.gzip => (gz, Some("gzip"), "-gz"),
            _ => (&asset.identity, None, ""),
        };
        let etag = format!("\"{}{tag}\"", asset.hash);
        let mut response = if headers
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(',')
                    .any(|t| t.trim().trim_start_matches("W/") == etag || t.trim() == "*")
            }) {
            StatusCode::NOT_MODIFIED.into_response()
        } else {
            body.clone().into_response()
        };
        let h = response.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(asset.content_type),
        );
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
        h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        if let Ok(v) = HeaderValue::from_str(&etag) {
            h.insert(header::ETAG, v);
        }
        if let Some(encoding) = encoding {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
        }
        response
    }
}

fn content_type(file: &str) -> Option<&'static str> {
    let ext = file.rsplit('.').next()?;
    Some(match ext {
        "wasm" => "application/wasm",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        _ => return None,
    })
}

#[derive(Default, Debug, PartialEq)]
struct Accepted {
    gzip: bool,
    br: bool,
}

/// Which of gzip and brotli `Accept-Encoding` allows (a `q=0` refuses).
fn accepted_encodings(headers: &HeaderMap) -> Accepted {
    let mut accepted = Accepted::default();
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            match coding.as_str() {
                "gzip" | "x-gzip" => accepted.gzip = !refused,
                "br" => accepted.br = !refused,
                "*" if !refused => {
                    accepted.gzip = true;
                    accepted.br = true;
                }
                _ => {}
            }
        }
    }
    accepted
}

/// `GET /pkg/{file}`.
pub async fn serve_asset(
    State(state): State<AppState>,
    UrlPath(file): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    state.site.respond(&file, &headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(accept: &str, gzip: bool, br: bool) {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(accept).unwrap(),
        );
        assert_eq!(accepted_encodings(&h), Accepted { gzip, br }, "{accept}");
    }

    #[test]
    fn accept_encoding_is_read_with_its_weights() {
        check("gzip, deflate, br, zstd", true, true);
        check("gzip", true, false);
        check("br;q=1.0, gzip;q=0", false, true);
        check("*", true, true);
        check("identity", false, false);
        check("GZIP ; q=0.5", true, false);
    }
}
