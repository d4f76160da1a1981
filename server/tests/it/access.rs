// SPDX-License-Identifier: GPL-3.0-or-later
//! Who may write: tokens and their scopes in every mode, CSRF, `Host`, the audit trail, and
//! the `perfline token` commands.

use std::process::Command;

use perfline_server::http::auth::{token_hash, AuthMode};
use reqwest::Method;
use serde_json::Value;

use crate::helpers::*;

const CSV: &str = "benchmark,metric,value\nb,tput,1\nb,tput,2\n";

/// Sends `method path` with `body` and an optional bearer token; the status.
async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    body: &str,
    bearer: Option<&str>,
) -> reqwest::Response {
    let mut r = app
        .client
        .request(method, app.url(path))
        .body(body.to_owned());
    if path.ends_with("/mark") || path.ends_with("/alert-rules") {
        r = r.header("content-type", "application/json");
    }
    if let Some(t) = bearer {
        r = r.header("authorization", format!("Bearer {t}"));
    }
    r.send().await.unwrap()
}

/// Every row of mode × scope × endpoint: 401 without or with a bad token, 403 with the wrong
/// scope (both in the JSON envelope), success with the right one; a refused write stores
/// nothing.
#[tokio::test(flavor = "multi_thread")]
async fn every_endpoint_checks_the_token_and_its_scope() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let admin = token(&app, "lead", "admin").await;
    let reader = token(&app, "dashboard", "read").await;
    let robot = token(&app, "robot-lkp-01", "upload").await;
    let bisector = token(&app, "bisect-bot", "mark").await;
    // Run 1, for the mark endpoint.
    let r = send(
        &app,
        Method::POST,
        "/api/v1/upload?machine=m1&kernel=6.1",
        CSV,
        Some(&admin),
    )
    .await;
    assert_eq!(r.status().as_u16(), 201);

    let log = "a337531b942bd8a03e7052444d7e36972aac2d92 1538000000 tcp: up initial rmem\n";
    let bisect = "git bisect good 3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b\n";
    // (method, path, body, the scope it needs: None = a read)
    let endpoints: [(Method, &str, &str, Option<&str>); 10] = [
        (
            Method::POST,
            "/api/v1/upload?machine=m1&kernel=6.2",
            CSV,
            Some("upload"),
        ),
        (
            Method::POST,
            "/api/v1/commits?repo=linux&branch=master",
            log,
            Some("upload"),
        ),
        (Method::POST, "/api/v1/bisect", bisect, Some("mark")),
        (
            Method::POST,
            "/api/v1/runs/1/mark",
            r#"{"mark":"bad"}"#,
            Some("mark"),
        ),
        (Method::GET, "/api/v1/audit", "", Some("admin")),
        (
            Method::PUT,
            "/api/v1/alert-rules",
            r#"{"rules":[{"metric":"*latency*","ignore":true}]}"#,
            Some("admin"),
        ),
        (Method::GET, "/api/v1/alerts", "", None),
        (Method::GET, "/api/v1/alert-rules", "", None),
        (Method::GET, "/api/v1/runs", "", None),
        (Method::GET, "/api/v1/uploads/1/raw", "", None),
    ];
    let tokens: [(&str, Option<&str>, &[&str]); 6] = [
        ("no token", None, &[]),
        ("a bad token", Some("perfline_notarealtokenatall"), &[]),
        ("read", Some(&reader), &["read"]),
        ("upload", Some(&robot), &["read", "upload"]),
        ("mark", Some(&bisector), &["read", "mark"]),
        ("admin", Some(&admin), &["read", "upload", "mark", "admin"]),
    ];
    for (who, bearer, scopes) in tokens {
        for (method, path, body, needs) in &endpoints {
            // A fresh upload each time, so a success is a 201 and not a duplicate.
            let body = if path.starts_with("/api/v1/upload?") {
                format!("{body}b,tput,{}\n", who.len())
            } else {
                body.to_string()
            };
            let before = app.counts().await;
            let r = send(&app, method.clone(), path, &body, bearer).await;
            let status = r.status().as_u16();
            let allowed = match needs {
                None => bearer != Some("perfline_notarealtokenatall"),
                Some(scope) => scopes.contains(scope),
            };
            let row = format!("{who} × {method} {path}");
            if allowed {
                assert!(
                    (200..300).contains(&status),
                    "{row}: {status} {}",
                    r.text().await.unwrap()
                );
                continue;
            }
            let expect = if bearer.is_none() || who == "a bad token" {
                401
            } else {
                403
            };
            assert_eq!(status, expect, "{row}");
            if expect == 401 {
                assert_eq!(
                    r.headers()["www-authenticate"],
                    "Bearer realm=\"perfline\"",
                    "{row}"
                );
            }
            let v: Value = r.json().await.unwrap();
            assert_eq!(v["error"]["status"], expect, "{row}: {v}");
            assert_eq!(
                app.counts().await,
                before,
                "{row}: a refused request stored something"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn open_mode_is_the_default_on_loopback_and_records_open() {
    let app = spawn_app().await;
    let r = app.upload_raw("machine=m1&kernel=6.1", CSV).await;
    assert_eq!(r.status().as_u16(), 201);
    let (_, upload) = app.get_json("/api/v1/uploads/1").await;
    assert_eq!(upload["upload"]["uploaded_by"], "open");
    let (_, runs) = app.get_json("/api/v1/runs").await;
    assert_eq!(runs["runs"][0]["uploaded_by"], "open");
    let (_, audit) = app.get_json("/api/v1/audit").await;
    assert_eq!(audit["entries"][0]["actor"], "open");
    assert_eq!(audit["entries"][0]["action"], "upload");
    let config = |listen: &str| {
        let mut c = perfline_server::Config::for_db("x.db".into());
        c.listen = listen.parse().unwrap();
        c.auth_mode()
    };
    assert_eq!(config("127.0.0.1:3000"), AuthMode::Open);
    assert_eq!(config("[::1]:3000"), AuthMode::Open);
    assert_eq!(config("0.0.0.0:3000"), AuthMode::Token);
    assert_eq!(config("192.168.1.5:3000"), AuthMode::Token);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_instance_needs_a_token_to_read() {
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.private = true;
    })
    .await;
    let robot = token(&app, "robot", "upload").await;
    let reader = token(&app, "reader", "read").await;
    let r = send(
        &app,
        Method::POST,
        "/api/v1/upload?machine=m1&kernel=6.1",
        CSV,
        Some(&robot),
    )
    .await;
    assert_eq!(r.status().as_u16(), 201);
    for path in [
        "/api/v1/runs",
        "/api/v1/uploads/1/raw",
        "/",
        "/api/v1/compare?benchmark=b&machine=m1&kernels=6.1",
    ] {
        let r = send(&app, Method::GET, path, "", None).await;
        assert_eq!(r.status().as_u16(), 401, "{path} without a token");
        let r = send(&app, Method::GET, path, "", Some(&reader)).await;
        assert_eq!(r.status().as_u16(), 200, "{path} with a read token");
    }
    for path in ["/healthz".to_owned(), site_file(".css")] {
        let r = send(&app, Method::GET, &path, "", None).await;
        assert_eq!(r.status().as_u16(), 200, "{path} is never private");
    }
}

/// A page on another site cannot make a reader's browser change anything.
#[tokio::test(flavor = "multi_thread")]
async fn cross_site_writes_are_refused() {
    let app = spawn_app().await;
    let post = |headers: Vec<(&'static str, String)>| {
        let mut r = app
            .client
            .post(app.url("/api/v1/upload?machine=m1&kernel=6.1"))
            .body(format!("{CSV}b,tput,{}\n", headers.len()));
        for (k, v) in headers {
            r = r.header(k, v);
        }
        async move { r.send().await.unwrap() }
    };
    let before = app.counts().await;
    let r = post(vec![("origin", "http://evil.example".into())]).await;
    assert_error(
        r,
        403,
        "a request from http://evil.example may not change anything",
    )
    .await;
    let r = post(vec![("sec-fetch-site", "cross-site".into())]).await;
    assert_error(r, 403, "cross-site request").await;
    let r = post(vec![("origin", "null".into())]).await;
    assert_error(r, 403, "may not change anything").await;
    assert_eq!(app.counts().await, before);
    // The server's own pages, and clients that are not browsers, may.
    let r = post(vec![
        ("origin", app.base.clone()),
        ("sec-fetch-site", "same-origin".into()),
    ])
    .await;
    assert_eq!(r.status().as_u16(), 201);
    let r = post(vec![]).await;
    assert_eq!(r.status().as_u16(), 201);
    // A cookie makes a bearer request a browser's again.
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let robot = token(&app, "robot", "upload").await;
    let with = |cookie: bool| {
        let mut r = app
            .client
            .post(app.url("/api/v1/upload?machine=m1&kernel=6.1"))
            .header("authorization", format!("Bearer {robot}"))
            .header("origin", "http://evil.example")
            .body(format!("{CSV}b,tput,{}\n", u8::from(cookie)));
        if cookie {
            r = r.header("cookie", "session=x");
        }
        async move { r.send().await.unwrap() }
    };
    assert_eq!(with(false).await.status().as_u16(), 201);
    assert_eq!(with(true).await.status().as_u16(), 403);
}

/// With `--public-url`, another `Host` is refused and links never echo the client's.
#[tokio::test(flavor = "multi_thread")]
async fn the_public_url_fixes_the_host_and_the_links() {
    let app = spawn_app_with(|c| {
        c.public_url = Some("https://perf.example.org".into());
        // Behind a proxy the default is token mode; this test writes without one.
        c.auth = Some(AuthMode::Open);
    })
    .await;
    // Another name, or an address: not the public URL's host, not a loopback name.
    for host in ["perf.example.org.evil.example", "10.0.0.9:3000"] {
        let r = app
            .client
            .get(app.url("/api/v1/runs"))
            .header("host", host)
            .send()
            .await
            .unwrap();
        assert_error(r, 421, "this server answers for perf.example.org").await;
    }
    let r = app
        .client
        .get(app.url("/healthz"))
        .header("host", "10.0.0.9:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "the load balancer's check");
    let as_public = |path: &str| {
        app.client
            .get(app.url(path))
            .header("host", "perf.example.org")
            .header("accept", "text/plain")
    };
    let r = app
        .client
        .post(app.url("/api/v1/upload?benchmark=b&machine=m1"))
        .header("host", "perf.example.org")
        .header("accept", "text/plain")
        .body("kernel,metric,value\n6.1,tput,1\n6.2,tput,2\n")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("https://perf.example.org/runs/"));
    let text = as_public("/api/v1/compare?benchmark=b&machine=m1&kernels=6.1,6.2")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("Permalink: https://perf.example.org/c/"),
        "{text}"
    );
}

/// Every write is in the audit trail with who did it.
#[tokio::test(flavor = "multi_thread")]
async fn the_audit_trail_says_who_wrote_what() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let admin = token(&app, "lead", "admin").await;
    let robot = token(&app, "robot-lkp-01", "upload").await;
    let bisector = token(&app, "bisect-bot", "mark").await;
    let r = send(
        &app,
        Method::POST,
        "/api/v1/upload?machine=m1&kernel=6.1",
        CSV,
        Some(&robot),
    )
    .await;
    assert_eq!(r.status().as_u16(), 201);
    let log = "a337531b942bd8a03e7052444d7e36972aac2d92 1538000000 tcp\n";
    let r = send(
        &app,
        Method::POST,
        "/api/v1/commits?repo=linux&branch=master",
        log,
        Some(&robot),
    )
    .await;
    assert_eq!(r.status().as_u16(), 201);
    let r = send(
        &app,
        Method::POST,
        "/api/v1/bisect",
        "git bisect bad a337531b94\n",
        Some(&bisector),
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    let r = send(
        &app,
        Method::POST,
        "/api/v1/runs/1/mark",
        r#"{"mark":"good"}"#,
        Some(&bisector),
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    let r = send(&app, Method::GET, "/api/v1/audit", "", Some(&admin)).await;
    let v: Value = r.json().await.unwrap();
    let entries: Vec<(String, String, String)> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_owned();
            (s("actor"), s("action"), s("target"))
        })
        .collect();
    let expect = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        entries[..4],
        [
            expect("bisect-bot", "run.mark", "run 1"),
            expect("bisect-bot", "bisect", "-"),
            expect("robot-lkp-01", "history.put", "linux/master"),
            expect("robot-lkp-01", "upload", "upload 1"),
        ]
    );
    // The tokens made for the test are there too, by "test".
    assert!(entries
        .iter()
        .any(|e| e == &expect("test", "token.create", "robot-lkp-01")));
    let (_, upload) = app.get_json("/api/v1/uploads/1").await;
    assert_eq!(upload["upload"]["uploaded_by"], "robot-lkp-01");
}

/// `perfline token create|list|revoke` on the database: the token printed once on one line,
/// only its hash stored, a revoked token refused.
#[tokio::test(flavor = "multi_thread")]
async fn tokens_are_managed_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let perfline = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_perfline"))
            .arg("--db")
            .arg(&db)
            .args(args)
            .output()
            .expect("perfline runs")
    };
    let out = perfline(&[
        "token",
        "create",
        "--name",
        "robot-lkp-01",
        "--scope",
        "upload,mark",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one line: {stdout:?}");
    let token = stdout.trim().to_owned();
    assert!(
        token.starts_with("perfline_") && token.len() == 52,
        "{token}"
    );
    let again = perfline(&[
        "token",
        "create",
        "--name",
        "robot-lkp-01",
        "--scope",
        "upload",
    ]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));
    let bad = perfline(&["token", "create", "--name", "x", "--scope", "write"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown scope 'write'"));
    let list = String::from_utf8(perfline(&["token", "list"]).stdout).unwrap();
    assert!(
        list.contains("robot-lkp-01") && list.contains("upload,mark"),
        "{list}"
    );
    // Global options go before or after the subcommand.
    let after = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args(["token", "list", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        after.status.success(),
        "{}",
        String::from_utf8_lossy(&after.stderr)
    );
    assert_eq!(String::from_utf8(after.stdout).unwrap(), list);
    assert!(!list.contains(&token), "the token is never shown again");

    // Only the hash is in the database.
    let mut conn = sqlx_connect(&db).await;
    let stored: Vec<(String,)> = sqlx::query_as("SELECT hash FROM api_token")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(stored, [(token_hash(&token),)]);
    let raw = std::fs::read(&db).unwrap();
    assert!(!raw.windows(token.len()).any(|w| w == token.as_bytes()));

    let revoke = perfline(&["token", "revoke", "robot-lkp-01"]);
    assert!(revoke.status.success());
    let list = String::from_utf8(perfline(&["token", "list"]).stdout).unwrap();
    assert!(
        list.lines()
            .nth(1)
            .is_some_and(|l| !l.trim_end().ends_with('-')),
        "revoked: {list}"
    );
    let store = perfline_server::store::Store::open(&db).await.unwrap();
    assert!(store
        .token_by_hash(&token_hash(&token))
        .await
        .unwrap()
        .is_none());
}

/// An admin deletes a robot's bad upload: everything stored from it goes in one transaction,
/// the trend is what it was before the upload, and a permalink over its runs answers 410
/// saying which upload took them, by whom.
#[tokio::test(flavor = "multi_thread")]
async fn deleting_an_upload_takes_it_out_of_every_view() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let admin = token(&app, "lead", "admin").await;
    let robot = token(&app, "robot-lkp-01", "upload").await;
    let csv = |kernels: &[&str], level: f64| {
        let mut s = String::from("kernel,commit,metric,iteration,value\n");
        for (i, k) in kernels.iter().enumerate() {
            for it in 1..=3 {
                // One commit per kernel name.
                let commit = k.bytes().map(usize::from).sum::<usize>();
                s.push_str(&format!(
                    "{k},{commit:07x}{i},tput,{it},{}\n",
                    level + f64::from(it)
                ));
            }
        }
        s
    };
    let up = |body: String| {
        send(
            &app,
            Method::POST,
            "/api/v1/upload?benchmark=b&machine=m1",
            Box::leak(body.into_boxed_str()),
            Some(&robot),
        )
    };
    assert_eq!(up(csv(&["6.1", "6.2"], 100.0)).await.status().as_u16(), 201);
    let trend = "/api/v1/trend?benchmark=b&machine=m1&metric=tput";
    let (_, before) = app.get_json(trend).await;
    let counts_before = app.counts().await;
    // The robot's mistake: the same series from another kernel, far off.
    assert_eq!(up(csv(&["6.3-wrong"], 900.0)).await.status().as_u16(), 201);
    let (_, with_bad) = app.get_json(trend).await;
    assert_ne!(with_bad["points"], before["points"]);
    let (status, live) = app
        .get_json("/api/v1/compare?benchmark=b&machine=m1&kernels=6.1,6.3-wrong")
        .await;
    assert_eq!(status, 200, "{live}");
    let permalink = format!("/c/{}?format=json", live["permalink"].as_str().unwrap());
    assert_eq!(
        app.get_json(&permalink).await.0,
        200,
        "cached before the deletion"
    );

    // Only an admin may delete.
    let r = send(&app, Method::DELETE, "/api/v1/uploads/2", "", Some(&robot)).await;
    assert_eq!(r.status().as_u16(), 403);
    let r = send(&app, Method::DELETE, "/api/v1/uploads/2", "", Some(&admin)).await;
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        (v["runs"].as_i64(), v["series"].as_i64()),
        (Some(1), Some(1))
    );

    // Every table as before the bad upload, but the permalink and the records of what happened.
    let counts: std::collections::HashMap<String, i64> = app.counts().await.into_iter().collect();
    for (table, n) in &counts_before {
        if table != "permalink" {
            assert_eq!(counts[table], *n, "{table}");
        }
    }
    let (_, after) = app.get_json(trend).await;
    assert_eq!(
        after["points"], before["points"],
        "the trend is what it was"
    );
    assert_eq!(after["change_points"], before["change_points"]);
    let (status, _) = app
        .get_json("/api/v1/compare?benchmark=b&machine=m1&kernels=6.1,6.3-wrong")
        .await;
    assert_eq!(status, 404);
    let r = app.client.get(app.url(&permalink)).send().await.unwrap();
    assert_error(r, 410, "were since deleted with upload 2 by lead at ").await;
    // The page says so too.
    let page_path = permalink.trim_end_matches("?format=json");
    let (_, _, page) = app.get_accept(page_path, "text/html").await;
    assert!(
        page.contains("since deleted with upload 2 by lead"),
        "{page}"
    );
    let r = send(&app, Method::DELETE, "/api/v1/uploads/2", "", Some(&admin)).await;
    assert_eq!(r.status().as_u16(), 404);
    let r = send(&app, Method::GET, "/api/v1/audit", "", Some(&admin)).await;
    let audit: Value = r.json().await.unwrap();
    assert_eq!(audit["entries"][0]["action"], "upload.delete");
    assert_eq!(audit["entries"][0]["actor"], "lead");
    // A new upload of the same series still appends to a consistent trend.
    assert_eq!(up(csv(&["6.4"], 100.0)).await.status().as_u16(), 201);
    let (_, later) = app.get_json(trend).await;
    assert_eq!(
        later["points"].as_array().unwrap().len(),
        before["points"].as_array().unwrap().len() + 1
    );
}

/// A robot over its write rate gets 429 with `Retry-After`, and nothing of the refused upload
/// is stored; another token and anonymous reads go on. Reads can be limited per address.
#[tokio::test(flavor = "multi_thread")]
async fn rate_limits_refuse_whole_requests() {
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.write_rate = 3;
        c.read_rate = 5;
    })
    .await;
    let robot = token(&app, "robot", "upload").await;
    let other = token(&app, "other-robot", "upload").await;
    let up = |t: &str, i: usize| {
        send(
            &app,
            Method::POST,
            "/api/v1/upload?machine=m1&kernel=6.1",
            Box::leak(format!("{CSV}b,tput,{i}\n").into_boxed_str()),
            Some(Box::leak(t.to_owned().into_boxed_str())),
        )
    };
    for i in 0..3 {
        assert_eq!(up(&robot, i).await.status().as_u16(), 201);
    }
    let before = app.counts().await;
    let r = up(&robot, 3).await;
    assert!(
        r.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            >= 1
    );
    assert_error(r, 429, "too many writes from token robot").await;
    assert_eq!(app.counts().await, before, "nothing of it stored");
    assert_eq!(
        up(&other, 4).await.status().as_u16(),
        201,
        "another robot goes on"
    );
    // Reads: five a second from this address, then 429.
    let mut statuses = Vec::new();
    for _ in 0..8 {
        statuses.push(
            app.client
                .get(app.url("/api/v1/runs"))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16(),
        );
    }
    assert_eq!(statuses[..5], [200; 5]);
    assert!(statuses[5..].contains(&429), "{statuses:?}");
}

/// Signing in makes a session cookie (HttpOnly, SameSite=Strict; Secure behind HTTPS) that
/// stands for the token, checked against CSRF like any browser request; signing out or
/// revoking the token ends it.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_cookie_stands_for_its_token() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let robot = token(&app, "robot", "upload").await;
    let sign_in = |t: String| {
        app.client
            .post(app.url("/api/v1/session"))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", app.base.clone())
            .body(format!("token={t}&next=/upload"))
            .send()
    };
    let r = sign_in("perfline_wrong".into()).await.unwrap();
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(r.headers()["location"], "/signin?failed=1");
    let r = sign_in(robot.clone()).await.unwrap();
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(r.headers()["location"], "/upload");
    let set = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict") && !set.contains("Secure"),
        "{set}"
    );
    let value = set.split(';').next().unwrap().to_owned();
    assert!(!value.contains(&robot[9..]), "the cookie is not the token");
    let upload = |cookie: &str, origin: &str| {
        app.client
            .post(app.url("/api/v1/upload?machine=m1&kernel=6.1"))
            .header("cookie", cookie)
            .header("origin", origin)
            .body(format!("{CSV}b,tput,{}\n", origin.len()))
            .send()
    };
    assert_eq!(
        upload(&value, &app.base).await.unwrap().status().as_u16(),
        201
    );
    assert_eq!(
        upload(&value, "http://evil.example")
            .await
            .unwrap()
            .status()
            .as_u16(),
        403
    );
    let (_, u) = app.get_json("/api/v1/uploads/1").await;
    assert_eq!(u["upload"]["uploaded_by"], "robot");
    // Signing out ends the session.
    let r = app
        .client
        .post(app.url("/api/v1/session/end"))
        .header("cookie", &value)
        .header("origin", app.base.clone())
        .send()
        .await
        .unwrap();
    assert!(r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .contains("Max-Age=0"));
    assert_eq!(
        upload(&value, &app.base).await.unwrap().status().as_u16(),
        401
    );
    // Revoking the token ends its sessions too.
    let r = sign_in(robot.clone()).await.unwrap();
    let value = r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    assert!(app.store.revoke_token("robot", "test").await.unwrap());
    assert_eq!(
        upload(&value, &app.base).await.unwrap().status().as_u16(),
        401
    );
    // Behind HTTPS the cookie is Secure.
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.public_url = Some("https://perf.example.org".into());
    })
    .await;
    let t = token(&app, "lead", "admin").await;
    let r = sign_in_json(&app, &t, &[("host", "perf.example.org")]).await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .contains("; Secure"));
}

/// The common robot mistake, corrected: a run uploaded under the wrong machine moves to the
/// right one, both trends rebuilt, the typo's name gone; a permalink over it answers 410.
#[tokio::test(flavor = "multi_thread")]
async fn an_admin_corrects_a_runs_machine() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let admin = token(&app, "lead", "admin").await;
    let robot = token(&app, "robot", "upload").await;
    let up = |machine: &str, body: &str| {
        send(
            &app,
            Method::POST,
            Box::leak(format!("/api/v1/upload?benchmark=b&machine={machine}").into_boxed_str()),
            Box::leak(body.to_owned().into_boxed_str()),
            Some(Box::leak(robot.clone().into_boxed_str())),
        )
    };
    let r = up(
        "m1",
        "kernel,commit,metric,value\n6.1,aaaaaaa1,tput,10\n6.2,aaaaaaa2,tput,11\n",
    )
    .await;
    assert_eq!(r.status().as_u16(), 201);
    let r = up(
        "m1-typo",
        "kernel,commit,metric,value\n6.3,aaaaaaa3,tput,12\n",
    )
    .await;
    assert_eq!(r.status().as_u16(), 201);
    let (status, live) = app
        .get_json("/api/v1/compare?benchmark=b&machine=m1-typo&kernels=6.3")
        .await;
    assert_eq!(status, 200, "{live}");
    let permalink = format!("/c/{}?format=json", live["permalink"].as_str().unwrap());
    let trend = "/api/v1/trend?benchmark=b&machine=m1&metric=tput";
    assert_eq!(
        app.get_json(trend).await.1["points"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    let patch = |who: &str, body: &str| {
        app.client
            .patch(app.url("/api/v1/runs/3"))
            .header("authorization", format!("Bearer {who}"))
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
    };
    assert_eq!(
        patch(&robot, r#"{"machine":"m1"}"#)
            .await
            .unwrap()
            .status()
            .as_u16(),
        403
    );
    let r = patch(&admin, r#"{"machine":"m1","colour":"red"}"#)
        .await
        .unwrap();
    assert_error(r, 400, "colour").await;
    let r = patch(&admin, r#"{"machine":"m1","tags":"fixed=yes"}"#)
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        v["changed"],
        r#"machine m1-typo → m1, tags [] → [["fixed","yes"]]"#
    );
    assert_eq!(v["run"]["run"]["machine"], "m1");

    let (_, t) = app.get_json(trend).await;
    let kernels: Vec<&str> = t["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kernel"].as_str().unwrap())
        .collect();
    assert_eq!(kernels, ["6.1", "6.2", "6.3"], "the run joined m1's trend");
    let (status, _) = app
        .get_json("/api/v1/trend?benchmark=b&machine=m1-typo&metric=tput")
        .await;
    assert_eq!(status, 404, "the typo's trend is empty");
    let (_, machines) = app.get_json("/api/v1/machines").await;
    assert_eq!(machines.as_array().unwrap().len(), 1, "{machines}");
    let r = app.client.get(app.url(&permalink)).send().await.unwrap();
    assert_error(r, 410, "corrected (run 3: machine m1-typo → m1").await;
    // Saying what it already says changes nothing.
    let r = patch(&admin, r#"{"machine":"m1"}"#).await.unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["changed"], "");
    let r = patch(&admin, r#"{"kernel":"6.3"}"#).await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = app
        .client
        .patch(app.url("/api/v1/runs/99"))
        .header("authorization", format!("Bearer {admin}"))
        .header("content-type", "application/json")
        .body(r#"{"kernel":"x"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let r = send(&app, Method::GET, "/api/v1/audit", "", Some(&admin)).await;
    let audit: Value = r.json().await.unwrap();
    assert!(audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["action"] == "run.correct" && e["actor"] == "lead"));
}

/// An admin manages tokens over HTTP as on the command line.
#[tokio::test(flavor = "multi_thread")]
async fn admins_manage_tokens_over_http() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let admin = token(&app, "lead", "admin").await;
    let robot = token(&app, "robot", "upload").await;
    let json = |method: Method, path: &str, body: &str, who: &str| {
        app.client
            .request(method, app.url(path))
            .header("authorization", format!("Bearer {who}"))
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
    };
    let r = json(
        Method::POST,
        "/api/v1/tokens",
        r#"{"name":"new-robot","scopes":"upload"}"#,
        &robot,
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let r = json(
        Method::POST,
        "/api/v1/tokens",
        r#"{"name":"new-robot","scopes":"upload"}"#,
        &admin,
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let created: Value = r.json().await.unwrap();
    let new = created["token"].as_str().unwrap().to_owned();
    assert!(new.starts_with("perfline_"));
    let r = json(
        Method::POST,
        "/api/v1/tokens",
        r#"{"name":"new-robot","scopes":"upload"}"#,
        &admin,
    )
    .await
    .unwrap();
    assert_error(r, 409, "exists").await;
    let r = json(
        Method::POST,
        "/api/v1/tokens",
        r#"{"name":"x","scopes":"root"}"#,
        &admin,
    )
    .await
    .unwrap();
    assert_error(r, 400, "unknown scope 'root'").await;
    let r = send(
        &app,
        Method::POST,
        "/api/v1/upload?machine=m1&kernel=6.1",
        CSV,
        Some(&new),
    )
    .await;
    assert_eq!(r.status().as_u16(), 201, "the new token works");
    let r = json(Method::GET, "/api/v1/tokens", "", &admin)
        .await
        .unwrap();
    let list = r.text().await.unwrap();
    assert!(
        list.contains("\"new-robot\"") && !list.contains(&new),
        "{list}"
    );
    let r = json(Method::DELETE, "/api/v1/tokens/new-robot", "", &admin)
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = send(
        &app,
        Method::POST,
        "/api/v1/upload?machine=m1&kernel=6.2",
        CSV,
        Some(&new),
    )
    .await;
    assert_eq!(r.status().as_u16(), 401, "revoked");
    let r = json(Method::DELETE, "/api/v1/tokens/new-robot", "", &admin)
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
}

/// Signs in with `token` (as a script would: JSON), through `host` if given; the session
/// cookie's `Set-Cookie` and its `name=value`.
async fn sign_in_session(app: &TestApp, token: &str, host: Option<&str>) -> (String, String) {
    let mut r = app
        .client
        .post(app.url("/api/v1/session"))
        .header("content-type", "application/json")
        .header("accept", "application/json");
    if let Some(host) = host {
        r = r.header("host", host);
    }
    let r = r
        .body(format!(r#"{{"token":"{token}"}}"#))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let set = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    let pair = set.split(';').next().unwrap().to_owned();
    (set, pair)
}

/// The SHA-256 the store keeps of a session cookie's `name=value`.
fn session_hash(pair: &str) -> String {
    token_hash(pair.split_once('=').unwrap().1)
}

/// What a read with the session cookie `pair` answers on a private instance.
async fn read_with(app: &TestApp, pair: &str, host: Option<&str>) -> u16 {
    let mut r = app
        .client
        .get(app.url("/api/v1/runs"))
        .header("cookie", pair);
    if let Some(host) = host {
        r = r.header("host", host);
    }
    r.send().await.unwrap().status().as_u16()
}

/// A session unused for longer than `--session-idle-days` signs no one in; each use moves
/// its idle limit on.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_idle_past_its_limit_is_refused() {
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.private = true;
        c.session_idle_days = 2;
    })
    .await;
    let robot = token(&app, "robot", "upload").await;
    let (set, pair) = sign_in_session(&app, &robot, None).await;
    assert!(set.contains("Max-Age=2592000"), "30 days at most: {set}");
    let hash = session_hash(&pair);
    assert_eq!(read_with(&app, &pair, None).await, 200);
    // Unused for a day, then used: it lasts two more days from now.
    assert!(app.store.backdate_session(&hash, 0, 1).await.unwrap());
    assert_eq!(read_with(&app, &pair, None).await, 200);
    assert!(app.store.backdate_session(&hash, 0, 1).await.unwrap());
    assert_eq!(
        read_with(&app, &pair, None).await,
        200,
        "the last use was recorded"
    );
    // Unused for three days.
    assert!(app.store.backdate_session(&hash, 0, 3).await.unwrap());
    assert_eq!(read_with(&app, &pair, None).await, 401);
}

/// No session lives past `--session-max-days` from signing in, however often it is used.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_past_its_absolute_limit_is_refused() {
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.private = true;
        c.session_max_days = 5;
    })
    .await;
    let robot = token(&app, "robot", "upload").await;
    let (set, pair) = sign_in_session(&app, &robot, None).await;
    assert!(set.contains("Max-Age=432000"), "{set}");
    let hash = session_hash(&pair);
    assert!(app.store.backdate_session(&hash, 4, 0).await.unwrap());
    assert_eq!(read_with(&app, &pair, None).await, 200);
    assert!(app.store.backdate_session(&hash, 2, 0).await.unwrap());
    assert_eq!(read_with(&app, &pair, None).await, 401, "six days old");
}

/// Signing in deletes every session past either limit.
#[tokio::test(flavor = "multi_thread")]
async fn expired_sessions_are_deleted_at_sign_in() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let robot = token(&app, "robot", "upload").await;
    let mut hashes = Vec::new();
    for _ in 0..3 {
        hashes.push(session_hash(&sign_in_session(&app, &robot, None).await.1));
    }
    assert_eq!(app.store.session_hashes().await.unwrap(), hashes);
    // Idle for eight days (past 7), 31 days old (past 30), and one still live.
    assert!(app.store.backdate_session(&hashes[0], 0, 8).await.unwrap());
    assert!(app.store.backdate_session(&hashes[1], 31, 0).await.unwrap());
    assert!(app.store.backdate_session(&hashes[2], 6, 6).await.unwrap());
    let new = session_hash(&sign_in_session(&app, &robot, None).await.1);
    assert_eq!(
        app.store.session_hashes().await.unwrap(),
        [hashes[2].clone(), new]
    );
}

/// Behind HTTPS the session cookie is `__Host-perfline_session` (`Secure`, `Path=/`, no
/// `Domain`), it signs in, and signing out clears it under that name.
#[tokio::test(flavor = "multi_thread")]
async fn behind_https_the_session_cookie_is_host_only() {
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.private = true;
        c.public_url = Some("https://perf.example.org".into());
    })
    .await;
    let host = Some("perf.example.org");
    let lead = token(&app, "lead", "admin").await;
    let (set, pair) = sign_in_session(&app, &lead, host).await;
    assert!(
        set.starts_with("__Host-perfline_session=")
            && set.contains("; Path=/;")
            && set.ends_with("; Secure")
            && !set.to_ascii_lowercase().contains("domain"),
        "{set}"
    );
    assert_eq!(read_with(&app, &pair, host).await, 200);
    let r = app
        .client
        .post(app.url("/api/v1/session/end"))
        .header("host", "perf.example.org")
        .header("origin", "https://perf.example.org")
        .header("cookie", &pair)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 303);
    let cleared: Vec<&str> = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert!(
        cleared[0].starts_with("__Host-perfline_session=;")
            && cleared[0].contains("Max-Age=0")
            && cleared[0].ends_with("; Secure"),
        "{cleared:?}"
    );
    assert!(app.store.session_hashes().await.unwrap().is_empty());
    assert_eq!(read_with(&app, &pair, host).await, 401);
}
