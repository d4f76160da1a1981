// SPDX-License-Identifier: GPL-3.0-or-later
//! Slow, idle, stalled and too many clients; a busy database; another process writing the same
//! file; errors in the JSON envelope; security headers. Each against the real server.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::*;

/// Reads until the server closes the connection (or `limit` passes): what it sent.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> Option<String> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(String::from_utf8_lossy(&out).into_owned()),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_sending_headers_slowly_is_cut_off() {
    let app = spawn_app_with(|c| c.header_timeout = 1).await;
    let mut s = TcpStream::connect(app.addr).await.unwrap();
    let started = Instant::now();
    s.write_all(b"GET /healthz HTTP/1.1\r\n").await.unwrap();
    // One header line every 300 ms: the head is never complete within the timeout.
    let mut closed = false;
    for i in 0..20 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        if s.write_all(format!("x-slow-{i}: 1\r\n").as_bytes())
            .await
            .is_err()
        {
            closed = true;
            break;
        }
    }
    if !closed {
        closed = read_until_closed(&mut s, Duration::from_secs(2))
            .await
            .is_some();
    }
    assert!(closed, "the connection is still open");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_keep_alive_connections_are_closed() {
    let app = spawn_app_with(|c| c.header_timeout = 1).await;
    let mut idle = Vec::new();
    for _ in 0..10 {
        let mut s = TcpStream::connect(app.addr).await.unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 1024];
        let n = s.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
        idle.push(s);
    }
    let started = Instant::now();
    for mut s in idle {
        let left = Duration::from_secs(3).saturating_sub(started.elapsed());
        assert!(
            read_until_closed(&mut s, left).await.is_some(),
            "an idle connection stayed open"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_over_the_cap_are_answered_503() {
    let app = spawn_app_with(|c| c.max_connections = 2).await;
    let _a = TcpStream::connect(app.addr).await.unwrap();
    let _b = TcpStream::connect(app.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut c = TcpStream::connect(app.addr).await.unwrap();
    let answer = read_until_closed(&mut c, Duration::from_secs(2))
        .await
        .expect("closed");
    assert!(
        answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{answer}"
    );
    assert!(answer.contains("retry-after: 1\r\n"), "{answer}");
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    let v: serde_json::Value = serde_json::from_str(body).expect("the JSON envelope");
    assert_eq!(v["error"]["status"], 503);
    drop((_a, _b));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, _) = app.get_text("/healthz").await;
    assert_eq!(status, 200, "a freed slot serves again");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_body_is_a_408_and_stores_nothing() {
    let app = spawn_app_with(|c| c.body_timeout = 1).await;
    let mut s = TcpStream::connect(app.addr).await.unwrap();
    s.write_all(
        b"POST /api/v1/upload?machine=m1&kernel=6.1 HTTP/1.1\r\nhost: localhost\r\ncontent-length: 1000\r\n\r\nbenchmark,metric,value\n",
    )
    .await
    .unwrap();
    let started = Instant::now();
    let answer = read_until_closed(&mut s, Duration::from_secs(5))
        .await
        .expect("answered");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"timeout\""), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(app.counts().await.iter().all(|(_, n)| *n == 0));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_but_steady_upload_is_stored() {
    let app = spawn_app_with(|c| c.body_timeout = 1).await;
    // Eight chunks, 400 ms apart: 2.8 s in all, never 1 s without data.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        std::iter::once(b"benchmark,metric,value\n".to_vec())
            .chain((0..7).map(|i| format!("b,tput,{i}\n").into_bytes()))
            .map(Ok)
            .collect();
    let stream = futures_util::stream::iter(chunks).then(|c| async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        c
    });
    let r = app
        .upload_raw("machine=m1&kernel=6.1", reqwest::Body::wrap_stream(stream))
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn every_api_error_is_the_json_envelope() {
    let app = spawn_app().await;
    for (method, path, status, code) in [
        ("GET", "/api/v1/runs/abc", 400, "bad_request"),
        ("GET", "/api/v1/uploads/-", 400, "bad_request"),
        ("DELETE", "/api/v1/runs", 405, "method_not_allowed"),
        ("GET", "/api/v1/upload", 405, "method_not_allowed"),
        ("GET", "/api/v1/nothing-here", 404, "not_found"),
        ("GET", "/api/v1/runs?limit=lots", 400, "bad_request"),
    ] {
        let r = app
            .client
            .request(method.parse().unwrap(), app.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "{method} {path}");
        let content_type = r.headers()["content-type"].to_str().unwrap().to_owned();
        assert_eq!(content_type, "application/json", "{method} {path}");
        let v: serde_json::Value = r.json().await.unwrap();
        assert_eq!(v["error"]["status"], status, "{method} {path}: {v}");
        assert_eq!(v["error"]["code"], code, "{method} {path}: {v}");
        assert!(v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_answer_carries_the_security_headers() {
    let app = spawn_app().await;
    let css = site_file(".css");
    for path in ["/", "/api/v1/runs", "/api/v1/nothing", css.as_str()] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        let h = r.headers();
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["referrer-policy"], "same-origin", "{path}");
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("object-src 'none'"), "{path}: {csp}");
    }
    // The page's own policy allows inline scripts only with this response's nonce.
    let page = app.get_text("/").await.1;
    let nonce = page
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("a nonce in the page's policy");
    assert!(nonce.len() >= 16, "{nonce}");
    assert!(
        page.contains(&format!("<script type=\"module\" nonce=\"{nonce}\"")),
        "{page}"
    );
    let again = app.get_text("/").await.1;
    assert!(!again.contains(nonce), "a fresh nonce per response");
}

/// The site's files are named after their content, so they are cached for good, with an
/// ETag per encoding, and go out as the copies the build compressed.
#[tokio::test(flavor = "multi_thread")]
async fn static_files_are_content_named_immutable_and_precompressed() {
    let app = spawn_app().await;
    let page = app.get_text("/").await.1;
    let (css, js, wasm) = (site_file(".css"), site_file(".js"), site_file("_bg.wasm"));
    for file in [&css, &js, &wasm] {
        assert!(page.contains(file.as_str()), "the page links {file}");
    }
    let get = |path: String, encoding: &'static str| {
        app.client
            .get(app.url(&path))
            .header("accept-encoding", encoding)
    };
    let plain = get(css.clone(), "identity").send().await.unwrap();
    assert_eq!(plain.status().as_u16(), 200);
    assert_eq!(
        plain.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(plain.headers()["content-type"], "text/css; charset=utf-8");
    assert!(plain.headers().get("content-encoding").is_none());
    let etag = plain.headers()["etag"].clone();
    let body = plain.bytes().await.unwrap();
    assert_eq!(
        body.as_ref(),
        std::fs::read(format!("{}/../style/main.css", env!("CARGO_MANIFEST_DIR"))).unwrap(),
        "the stylesheet as written"
    );
    let again = get(css.clone(), "identity")
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 304);
    for (accept, encoding) in [("gzip, deflate, br", "br"), ("gzip", "gzip")] {
        let r = get(wasm.clone(), accept).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(r.headers()["content-encoding"], encoding, "{accept}");
        assert_eq!(r.headers()["content-type"], "application/wasm");
        assert_eq!(r.headers()["vary"], "accept-encoding");
        let tag = r.headers()["etag"].to_str().unwrap().to_owned();
        assert!(
            tag.ends_with(if encoding == "br" { "-br\"" } else { "-gz\"" }),
            "{tag}"
        );
        let wire = r.bytes().await.unwrap().len();
        assert!(wire > 1000, "{wire}");
    }
    let missing = app
        .client
        .get(app.url("/pkg/perfline.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        missing.status().as_u16(),
        404,
        "the old unhashed name is gone"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_database_locked_by_another_writer_is_a_503_not_a_500() {
    let app = spawn_app_with(|c| c.busy_timeout = 200).await;
    // Another process (here another connection) holds the write lock.
    let mut other = app.hold_write_lock().await;
    let r = app
        .upload_raw(
            "machine=m1&kernel=6.1",
            "benchmark,metric,value\nb,tput,1\n",
        )
        .await;
    assert_eq!(r.headers()["retry-after"], "1");
    assert_error(r, 503, "the database is busy").await;
    other.execute("ROLLBACK").await;
    let r = app
        .upload_raw(
            "machine=m1&kernel=6.1",
            "benchmark,metric,value\nb,tput,1\n",
        )
        .await;
    assert_eq!(r.status().as_u16(), 201, "once the lock is gone");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_by_another_process_is_seen_at_once() {
    let app = crate::trend::seeded().await;
    let (status, before) = app.get_json(crate::trend::TREND).await;
    assert_eq!(status, 200);
    assert!(before["points"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["mark"].is_null()));
    // A maintenance script marks every run bad behind the server's back.
    let mut other = app.other_connection().await;
    other.execute("UPDATE run SET mark = 'bad'").await;
    let (_, after) = app.get_json(crate::trend::TREND).await;
    assert!(
        after["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["mark"] == "bad"),
        "the cached trend was served: {after}"
    );
}

/// Identical uploads at once store one upload; distinct ones store each, whole.
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_uploads_store_once_or_each() {
    let app = spawn_app().await;
    let same = "benchmark,metric,value\nb,tput,1\nb,tput,2\n";
    let answers = futures_util::future::join_all(
        (0..8).map(|_| app.upload_raw("machine=m1&kernel=6.1", same)),
    )
    .await;
    let mut statuses: Vec<u16> = answers.iter().map(|r| r.status().as_u16()).collect();
    statuses.sort();
    assert_eq!(statuses, [200, 200, 200, 200, 200, 200, 200, 201]);
    let distinct = futures_util::future::join_all((0..8).map(|i| {
        app.upload_raw(
            "machine=m1&kernel=6.2",
            format!("benchmark,metric,value\nb,tput,{i}\nb,tput,{}\n", i + 1),
        )
    }))
    .await;
    assert!(distinct.iter().all(|r| r.status().as_u16() == 201));
    let counts: std::collections::HashMap<String, i64> = app.counts().await.into_iter().collect();
    assert_eq!(counts["upload"], 9);
    assert_eq!(counts["run"], 9);
    // One packed row of samples per run.
    assert_eq!(counts["run_data"], 9);
}

/// A live comparison is cached only until the next write; a permalink keeps its numbers.
#[tokio::test(flavor = "multi_thread")]
async fn cached_comparisons_never_go_stale() {
    let app = spawn_app().await;
    let upload = |v: f64| {
        app.upload_raw(
            "machine=m1",
            format!(
                "benchmark,kernel,metric,value\nb,6.1,tput,{v}\nb,6.2,tput,{}\n",
                v + 1.0
            ),
        )
    };
    assert_eq!(upload(10.0).await.status().as_u16(), 201);
    let live = "/api/v1/compare?benchmark=b&machine=m1&kernels=6.1,6.2";
    let (_, first) = app.get_json(live).await;
    let (_, again) = app.get_json(live).await;
    assert_eq!(first, again);
    let n = |c: &serde_json::Value| c["rows"][0]["cells"][0]["stats"]["n"].clone();
    assert_eq!(n(&first), 1);
    assert_eq!(upload(20.0).await.status().as_u16(), 201);
    let (_, after) = app.get_json(live).await;
    assert_eq!(n(&after), 2, "the live comparison sees the new upload");
    assert_ne!(after["permalink"], first["permalink"]);
    let id = first["permalink"].as_str().unwrap();
    let (_, pinned) = app.get_json(&format!("/c/{id}?format=json")).await;
    assert_eq!(n(&pinned), 1, "the permalink keeps its runs");
    // Text bodies are cached per origin: each names the host it was asked through.
    let (_, _, text) = app.get_accept(&format!("/c/{id}"), "text/plain").await;
    assert!(
        text.contains(&format!("Permalink: {}/c/{id}", app.base)),
        "{text}"
    );
}

/// Query fields are parsed once into validated types; a bad one is a 400 naming the field.
#[tokio::test(flavor = "multi_thread")]
async fn query_fields_are_parsed_into_bounded_types() {
    let app = spawn_app().await;
    let long = "b".repeat(201);
    for (path, needle) in [
        (
            format!("/api/v1/compare?benchmark={long}&machine=m&kernels=a"),
            "benchmark: is longer than 200 characters",
        ),
        (
            "/api/v1/compare?benchmark=b&machine=m%07&kernels=a".to_owned(),
            "machine: contains the control character U+0007",
        ),
        (
            format!(
                "/api/v1/compare?benchmark=b&machine=m&kernels={}",
                (0..17)
                    .map(|i| format!("k{i}"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            "kernels: names more than 16 kernels",
        ),
        (
            "/api/v1/compare?benchmark=b&machine=m&kernels=a&precision=11".to_owned(),
            "precision: must be between 0 and 10, not 11",
        ),
        (
            "/api/v1/trend?benchmark=b&machine=m&metric=x&width=5000".to_owned(),
            "width: must be between 30 and 400, not 5000",
        ),
        (
            "/api/v1/trend?benchmark=b&machine=m&metric=x&height=-1".to_owned(),
            "height: must be between 8 and 200, not -1",
        ),
        (
            "/api/v1/runs?limit=0".to_owned(),
            "limit: must be between 1 and 1000, not 0",
        ),
        (
            "/api/v1/runs?offset=-5".to_owned(),
            "offset: must be between 0 and 100000000",
        ),
        (
            "/api/v1/uploads/1/raw?file=99999".to_owned(),
            "file: must be between 0 and 10000",
        ),
        (
            "/api/v1/report?benchmark=b&machine=m%1b&base=1234567&bad=abcdef0".to_owned(),
            "machine: contains the control character U+001B",
        ),
    ] {
        let r = app.client.get(app.url(&path)).send().await.unwrap();
        assert_error(r, 400, needle).await;
    }
}
