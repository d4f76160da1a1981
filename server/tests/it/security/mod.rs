// SPDX-License-Identifier: GPL-3.0-or-later
//! The security suite: for every route of the API description and every server function,
//! enumerated from the running code (a new endpoint is covered without editing this file),
//! the scope it needs in each auth mode, the CSRF and `Host` checks, and that no error answer
//! carries the database driver's words. Then one test per finding of the security review
//! (issue 25), each as a hostile client sends it.

use perfline_server::http::auth::{AuthMode, Scope};
use reqwest::Method;
use serde_json::Value;

use crate::helpers::*;

mod background;
mod budgets;
mod reads;
mod robots;

const CSV: &str = "benchmark,metric,value\nb,tput,1\nb,tput,2\n";

/// One route as the API description declares it.
#[derive(Debug, Clone)]
struct Route {
    method: Method,
    /// With its path parameters filled in.
    path: String,
    /// The scope the description declares; `None` for what anyone may do (`security(())`).
    scope: Option<Scope>,
}

/// Every operation of `/api/v1/openapi.json`, read as a client reads it. Each must declare a
/// scope (an operation that declares none fails here).
async fn routes(app: &TestApp) -> Vec<Route> {
    // Read as an admin: on a private instance the description is a read like any.
    let admin = token(app, &format!("describer-{}", rand_suffix()), "admin").await;
    let r = app
        .client
        .get(app.url("/api/v1/openapi.json"))
        .header("authorization", format!("Bearer {admin}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let doc: Value = r.json().await.unwrap();
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().unwrap() {
            let Ok(method) = Method::from_bytes(method.to_uppercase().as_bytes()) else {
                continue;
            };
            let security = op["security"]
                .as_array()
                .unwrap_or_else(|| panic!("{method} {path} declares no security (scope)"));
            let named = security
                .iter()
                .find_map(|r| r.get("bearer").or_else(|| r.get("session")));
            let scope = match named {
                Some(scopes) => {
                    let s = scopes[0].as_str().unwrap_or_default();
                    Some(Scope::parse(s).unwrap_or_else(|| panic!("{path}: scope {s:?}")))
                }
                None => {
                    assert!(
                        security
                            .iter()
                            .any(|r| r.as_object().is_some_and(serde_json::Map::is_empty)),
                        "{method} {path}: a security requirement without a scope"
                    );
                    None
                }
            };
            let filled = fill(path);
            out.push(Route {
                method,
                path: filled,
                scope,
            });
        }
    }
    assert!(
        out.len() >= 30,
        "the description lists {} operations",
        out.len()
    );
    out
}

/// A name no other token of the test has.
fn rand_suffix() -> String {
    perfline_server::http::auth::new_token()[9..17].to_owned()
}

/// Every server function the binary registered, with its method and declared scope; each
/// must declare one (a new function without `needs!` fails here).
fn server_fns() -> Vec<(&'static str, Method, Scope)> {
    let table = perfline_server::http::auth::server_fn_table();
    assert!(table.len() >= 15, "{} server functions", table.len());
    table
        .into_iter()
        .map(|(path, method, scope)| {
            let scope = scope
                .unwrap_or_else(|| panic!("server function {path} declares no scope: add needs!"));
            (path, method, scope)
        })
        .collect()
}

/// Who asks: a label, a bearer token (None: nobody), and the scopes it has.
type Caller = (&'static str, Option<String>, &'static [Scope]);

async fn callers(app: &TestApp) -> Vec<Caller> {
    vec![
        ("nobody", None, &[]),
        (
            "a bad token",
            Some("perfline_notarealtokenatall".into()),
            &[],
        ),
        (
            "read",
            Some(token(app, "reader", "read").await),
            &[Scope::Read],
        ),
        (
            "upload",
            Some(token(app, "robot", "upload").await),
            &[Scope::Read, Scope::Upload],
        ),
        (
            "mark",
            Some(token(app, "bisector", "mark").await),
            &[Scope::Read, Scope::Mark],
        ),
        (
            "admin",
            Some(token(app, "lead", "admin").await),
            &[Scope::Read, Scope::Upload, Scope::Mark, Scope::Admin],
        ),
    ]
}

/// Sends `method path` as `bearer`, with a body fit for the route (whether it is valid
/// does not matter: authorisation comes first).
async fn send(
    app: &TestApp,
    method: &Method,
    path: &str,
    bearer: Option<&str>,
) -> reqwest::Response {
    let mut r = app.client.request(method.clone(), app.url(path));
    if path.starts_with("/sfn/") {
        r = r.header("content-type", "application/x-www-form-urlencoded");
    } else if path == "/api/v1/upload" {
        r = r.body(CSV).query(&[("machine", "m1"), ("kernel", "6.9")]);
    } else if *method != Method::GET && *method != Method::HEAD {
        r = r.header("content-type", "application/json").body("{}");
    }
    if let Some(t) = bearer {
        r = r.header("authorization", format!("Bearer {t}"));
    }
    r.send().await.unwrap()
}

/// A route pattern with its parameters filled in: `{id}` is 1, any other `{name}` is `x`.
fn fill(pattern: &str) -> String {
    pattern
        .split('/')
        .map(|part| match part {
            "{id}" => "1",
            p if p.starts_with('{') => "x",
            p => p,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Words of the database drivers (SQLite's, PostgreSQL's, sqlx's) that must never reach a
/// client.
const DRIVER_WORDS: [&str; 9] = [
    "sqlx",
    "sqlite",
    "database is locked",
    "error returned from database",
    "(code:",
    "pool timed out",
    "connection reset",
    "postgres",
    "pg_",
];

fn assert_no_driver_text(row: &str, body: &str) {
    let lower = body.to_lowercase();
    for word in DRIVER_WORDS {
        assert!(
            !lower.contains(word),
            "{row}: the answer carries driver text {word:?}: {body}"
        );
    }
}

/// Whether an answer means "refused by authorisation".
fn refused(status: u16) -> bool {
    status == 401 || status == 403
}

/// The table: every route and every server function × every caller × token, open and
/// private modes. A route with a scope is allowed exactly to the callers whose token has
/// it; reads to anyone but on a private instance; what declares no scope (signing in, the
/// health check) to anyone always.
#[tokio::test(flavor = "multi_thread")]
async fn every_route_needs_its_declared_scope_in_every_mode() {
    for (mode, private) in [
        (AuthMode::Token, false),
        (AuthMode::Token, true),
        (AuthMode::Open, false),
    ] {
        let app = spawn_app_with(|c| {
            c.auth = Some(mode);
            c.private = private;
            c.write_rate = 0;
        })
        .await;
        let callers = callers(&app).await;
        let admin = callers[5].1.clone().unwrap();
        let r = send(&app, &Method::POST, "/api/v1/upload", Some(&admin)).await;
        assert_eq!(r.status().as_u16(), 201, "the seed upload");
        let mut targets: Vec<(Method, String, Option<Scope>)> = routes(&app)
            .await
            .into_iter()
            .map(|r| (r.method, r.path, r.scope))
            .collect();
        targets.extend(
            server_fns()
                .into_iter()
                .map(|(path, method, scope)| (method, path.to_owned(), Some(scope))),
        );
        for (who, bearer, scopes) in &callers {
            for (method, path, scope) in &targets {
                let row = format!("{mode:?} private={private} × {who} × {method} {path}");
                let r = send(&app, method, path, bearer.as_deref()).await;
                let status = r.status().as_u16();
                let body = r.text().await.unwrap();
                if status >= 400 {
                    assert_no_driver_text(&row, &body);
                }
                let allowed = match (bearer, scope) {
                    // A token that is not one is refused wherever it is sent.
                    (Some(t), _) if t.ends_with("notarealtokenatall") => false,
                    (_, None) => true,
                    (Some(_), Some(s)) => scopes.contains(s) || scopes.contains(&Scope::Admin),
                    // Reads, but on a private instance only what is always public
                    // (`who am I` of the pages' header, signing in).
                    (None, Some(s)) => {
                        mode == AuthMode::Open
                            || (*s == Scope::Read
                                && (!private || perfline_server::http::auth::always_public(path)))
                    }
                };
                if allowed {
                    assert!(!refused(status) && status != 421, "{row}: {status} {body}");
                } else {
                    let expect = if bearer.is_none() || *who == "a bad token" {
                        401
                    } else {
                        403
                    };
                    assert_eq!(status, expect, "{row}: {body}");
                    let v: Value =
                        serde_json::from_str(&body).unwrap_or_else(|_| panic!("{row}: {body}"));
                    assert_eq!(v["error"]["status"], expect, "{row}");
                }
            }
        }
    }
}

/// Server functions fail closed: a name no function has, or a function called with another
/// method than its own, is refused before anything runs.
#[tokio::test(flavor = "multi_thread")]
async fn server_functions_are_refused_by_default() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let admin = token(&app, "lead", "admin").await;
    let r = send(&app, &Method::POST, "/sfn/no_such_function", Some(&admin)).await;
    assert_error(r, 404, "no such server function").await;
    for (path, method, _) in server_fns() {
        for other in [
            Method::GET,
            Method::PUT,
            Method::DELETE,
            Method::PATCH,
            Method::POST,
        ] {
            if other == method {
                continue;
            }
            let r = send(&app, &other, path, None).await;
            assert_eq!(r.status().as_u16(), 405, "{other} {path}");
        }
    }
}

/// A browser page of another site (or of no site) cannot change anything through any route
/// or server function; the same request from this server's own page can.
#[tokio::test(flavor = "multi_thread")]
async fn every_write_checks_where_a_browser_request_comes_from() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let mut writes: Vec<(Method, String)> = routes(&app)
        .await
        .into_iter()
        .filter(|r| r.method != Method::GET && r.scope.is_some())
        .map(|r| (r.method, r.path))
        .collect();
    writes.extend(
        server_fns()
            .into_iter()
            .filter(|(_, _, s)| *s != Scope::Read)
            .map(|(p, m, _)| (m, p.to_owned())),
    );
    let host = app.addr.to_string();
    for (method, path) in &writes {
        let forged: [(&str, Vec<(&str, String)>); 5] = [
            (
                "another site's Origin",
                vec![("origin", "http://evil.example".into())],
            ),
            (
                "Sec-Fetch-Site cross-site",
                vec![("sec-fetch-site", "cross-site".into())],
            ),
            (
                "Sec-Fetch-Site same-site",
                vec![
                    ("sec-fetch-site", "same-site".into()),
                    ("origin", format!("http://{host}")),
                ],
            ),
            ("Origin null", vec![("origin", "null".into())]),
            (
                "another port",
                vec![(
                    "origin",
                    format!("http://127.0.0.1:{}", app.addr.port() ^ 1),
                )],
            ),
        ];
        for (what, headers) in forged {
            let mut r = app.client.request(method.clone(), app.url(path)).body("{}");
            for (k, v) in headers {
                r = r.header(k, v);
            }
            let r = r.send().await.unwrap();
            assert_eq!(r.status().as_u16(), 403, "{what} × {method} {path}");
        }
        // A cookie says a browser sent it: without Origin it is refused.
        let r = app
            .client
            .request(method.clone(), app.url(path))
            .header("cookie", "perfline_session=x")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status().as_u16(),
            403,
            "a cookie without Origin × {method} {path}"
        );
        // This server's own page passes the check (whatever the handler then says of "{}").
        let r = app
            .client
            .request(method.clone(), app.url(path))
            .header("origin", format!("http://{host}"))
            .header("sec-fetch-site", "same-origin")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert!(
            !refused(r.status().as_u16()),
            "own page × {method} {path}: {}",
            r.status()
        );
    }
}

/// DNS rebinding: a page at `rebind.evil.example:PORT` whose name now points to 127.0.0.1
/// reaches the port with its own name in `Host`. Every route refuses it (the health check
/// aside), in the default open mode on loopback; loopback names pass.
#[tokio::test(flavor = "multi_thread")]
async fn every_route_refuses_a_rebinding_host() {
    let app = spawn_app().await;
    let port = app.addr.port();
    let mut all: Vec<(Method, String)> = routes(&app)
        .await
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
    all.extend(server_fns().into_iter().map(|(p, m, _)| (m, p.to_owned())));
    all.extend(
        perfline_server::page_paths()
            .into_iter()
            .map(|p| (Method::GET, fill(&p))),
    );
    let before = app.counts().await;
    for (method, path) in &all {
        let evil = format!("rebind.evil.example:{port}");
        let r = app
            .client
            .request(method.clone(), app.url(path))
            .header("host", &evil)
            .header("origin", format!("http://{evil}"))
            .header("sec-fetch-site", "same-origin")
            .body("{}")
            .send()
            .await
            .unwrap();
        let expect = if path == "/healthz" { 200 } else { 421 };
        assert_eq!(r.status().as_u16(), expect, "{method} {path}");
    }
    assert_eq!(
        app.counts().await,
        before,
        "a rebinding page stored something"
    );
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        let r = app
            .client
            .get(app.url("/api/v1/runs"))
            .header("host", host.as_str())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "{host}");
    }
}

/// While another writer holds the database, every write route and write server function
/// answers without a word of the driver: 503 with `Retry-After` where the database was
/// needed, the API and the pages alike.
#[tokio::test(flavor = "multi_thread")]
async fn a_busy_database_answers_without_driver_text() {
    let app = spawn_app_with(|c| {
        c.busy_timeout = 100;
        c.write_rate = 0;
    })
    .await;
    let r = app.upload_raw("machine=m1&kernel=6.1", CSV).await;
    assert_eq!(r.status().as_u16(), 201);
    let all = routes(&app).await;
    let mut other = app.hold_write_lock().await;
    let mut busy = Vec::new();
    for route in all {
        let r = send(&app, &route.method, &route.path, None).await;
        let status = r.status().as_u16();
        let body = r.text().await.unwrap();
        if status >= 400 {
            assert_no_driver_text(&format!("{} {}", route.method, route.path), &body);
        }
        if status == 503 {
            busy.push(route.path.clone());
            assert!(
                body.contains("the database is busy"),
                "{}: {body}",
                route.path
            );
        }
    }
    assert!(busy.iter().any(|p| p == "/api/v1/upload"), "busy: {busy:?}");
    // A page's write: the same status as the API's, and the same plain sentence.
    let r = app
        .client
        .post(app.url("/sfn/mark_runs"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("runs[0]=1&mark=bad")
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status().as_u16(),
        503,
        "a page's write while the database is busy"
    );
    assert_eq!(r.headers()["retry-after"], "1");
    let body = r.text().await.unwrap();
    assert_no_driver_text("/sfn/mark_runs", &body);
    assert!(body.contains("the database is busy"), "{body}");
    other.execute("ROLLBACK").await;
}

/// Finding 1: a rebinding page could mint an admin token on the default install. Now its
/// `Host` is refused, and its `Origin` alone would be too.
#[tokio::test(flavor = "multi_thread")]
async fn a_rebinding_page_cannot_mint_a_token() {
    let app = spawn_app().await;
    let port = app.addr.port();
    let evil = format!("rebind.evil.example:{port}");
    let mint = |host: String, origin: String| {
        app.client
            .post(app.url("/api/v1/tokens"))
            .header("host", host)
            .header("origin", origin)
            .header("sec-fetch-site", "same-origin")
            .header("content-type", "application/json")
            .body(r#"{"name":"pwned","scopes":"admin"}"#)
            .send()
    };
    let r = mint(evil.clone(), format!("http://{evil}")).await.unwrap();
    assert_error(r, 421, "not for host 'rebind.evil.example'").await;
    // Even were the Host let through, the browser's Origin names the rebinding page.
    let r = mint(format!("localhost:{port}"), format!("http://{evil}"))
        .await
        .unwrap();
    assert_error(r, 403, "may not change anything").await;
    assert!(
        app.store.list_tokens().await.unwrap().is_empty(),
        "no token was made"
    );
    // This server's own page may (open mode on loopback).
    let r = mint(
        format!("localhost:{port}"),
        format!("http://localhost:{port}"),
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 201);
}

/// Finding 10: with an HTTPS public URL, a page served over plain HTTP under the same name is
/// another origin.
#[tokio::test(flavor = "multi_thread")]
async fn csrf_compares_the_scheme_too() {
    let app = spawn_app_with(|c| {
        c.public_url = Some("https://perf.example.test".into());
        c.auth = Some(AuthMode::Open);
    })
    .await;
    let post = |origin: &'static str| {
        app.client
            .post(app.url("/api/v1/upload?machine=m1&kernel=6.1"))
            .header("host", "perf.example.test")
            .header("origin", origin)
            .body(format!("{CSV}b,tput,{}\n", origin.len()))
            .send()
    };
    let r = post("http://perf.example.test").await.unwrap();
    assert_error(r, 403, "a request from http://perf.example.test may not").await;
    let r = post("https://perf.example.test:8443").await.unwrap();
    assert_eq!(r.status().as_u16(), 403, "another port");
    let r = post("https://perf.example.test").await.unwrap();
    assert_eq!(r.status().as_u16(), 201);
}

/// Finding 3: `next` only ever leads to a path on this site, and no value of it panics.
#[tokio::test(flavor = "multi_thread")]
async fn sign_in_redirects_only_to_this_site() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let t = token(&app, "lead", "admin").await;
    for (next, expect) in [
        ("/trend%3Fb%3D1", "/trend?b=1"),
        ("/%09/evil.example", "/"),
        ("/%0d%0aSet-Cookie:%20x=1", "/"),
        ("/%0a/evil.example", "/"),
        ("/%5Cevil.example", "/"),
        ("//evil.example", "/"),
        ("https://evil.example/", "/"),
        ("%2F%2Fevil.example", "/"),
    ] {
        let r = app
            .client
            .post(app.url("/api/v1/session"))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", app.base.clone())
            .body(format!("token={t}&next={next}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 303, "next={next}");
        assert_eq!(r.headers()["location"], expect, "next={next}");
    }
}

/// Finding 4: made-up methods do not make new metric series.
#[tokio::test(flavor = "multi_thread")]
async fn metric_labels_come_from_a_closed_set() {
    let app = spawn_app().await;
    for i in 0..150 {
        let method = Method::from_bytes(format!("MADEUP{i}").as_bytes()).unwrap();
        let _ = app
            .client
            .request(method, app.url("/api/v1/runs"))
            .send()
            .await
            .unwrap();
    }
    let (status, text) = app.get_text("/metrics").await;
    assert_eq!(status, 200);
    assert!(!text.contains("MADEUP"), "a client's method became a label");
    let methods: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| l.starts_with("perfline_http_requests_total{"))
        .filter_map(|l| l.split("method=\"").nth(1)?.split('"').next())
        .collect();
    assert!(methods.contains("other"), "{methods:?}");
    assert!(methods.len() <= 10, "{methods:?}");
}

/// Finding 5: the trend page with `param=*` draws no more than one chart's worth of params,
/// as the API's cap, and says how many there are.
#[tokio::test(flavor = "multi_thread")]
async fn page_trends_obey_the_api_caps() {
    let app = spawn_app().await;
    let mut csv = String::from("benchmark,metric,param,value,commit\n");
    for commit in ["a1a1a1a", "b2b2b2b"] {
        for p in 0..40 {
            csv.push_str(&format!("many,tput,p{p},{},{commit}\n", 100 + p));
        }
    }
    let r = app.upload_raw("machine=m1&kernel=6.1", csv).await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let (status, page) = app
        .get_text("/trend?benchmark=many&machine=m1&metric=tput&param=*")
        .await;
    assert_eq!(status, 200);
    let charts = page.matches("class=\"small-multiple\"").count();
    assert!(charts > 0 && charts <= 12, "{charts} charts");
    assert!(
        page.contains("The first 12 of 40 params"),
        "no word of the others"
    );
    let (status, _) = app
        .get_json("/api/v1/trend?benchmark=many&machine=m1&metric=tput&params=*")
        .await;
    assert_eq!(status, 400, "the API refuses more than one chart's worth");
    // The pages' server function, called as a client would.
    let r = app
        .client
        .post(app.url("/sfn/trend_multiples"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("query[benchmark]=many&query[machine]=m1&query[metric]=tput&query[param]=*&overlay=true")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["trends"].as_array().unwrap().len(), 12);
    assert_eq!(v["total"], 40);
}

/// Finding 6: one policy everywhere, inline script allowed only on a page the server
/// renders, with that response's nonce.
#[tokio::test(flavor = "multi_thread")]
async fn one_csp_without_unsafe_inline_scripts() {
    let app = spawn_app().await;
    let r = app
        .upload_raw(
            "benchmark=b&machine=m1&commit=a1a1a1a",
            "kernel,metric,value\n6.1,tput,1\n6.2,tput,2\n",
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let script_src = |csp: &str| {
        csp.split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src"))
            .unwrap_or_default()
            .to_owned()
    };
    for path in [
        "/api",
        "/api/v1/runs",
        "/api/v1/compare?benchmark=b&machine=m1&kernels=6.1,6.2&format=svg",
        "/api/v1/compare?benchmark=b&machine=m1&kernels=6.1,6.2&format=html",
        "/docs/formats.md",
        "/no/such/page",
    ] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        let csp = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        let scripts = script_src(&csp);
        assert!(!scripts.contains("unsafe-inline"), "{path}: {csp}");
        assert!(
            !scripts.contains("nonce-") || path == "/no/such/page",
            "{path}: {csp}"
        );
    }
    let r = app.client.get(app.url("/compare")).send().await.unwrap();
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    let page = r.text().await.unwrap();
    let scripts = script_src(&csp);
    assert!(!scripts.contains("unsafe-inline"), "{csp}");
    let nonce = scripts
        .split_whitespace()
        .find_map(|s| s.strip_prefix("'nonce-")?.strip_suffix('\''))
        .unwrap_or_else(|| panic!("a page's policy carries its nonce: {csp}"));
    assert!(
        page.contains(&format!("nonce=\"{nonce}\"")),
        "the page's scripts carry the header's nonce"
    );
    let other = app.client.get(app.url("/compare")).send().await.unwrap();
    assert!(
        !other.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains(nonce),
        "a nonce per response"
    );
}

/// Finding 7: marks belong to the `mark` scope, also when an upload sets them.
#[tokio::test(flavor = "multi_thread")]
async fn an_upload_token_cannot_set_marks() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let robot = token(&app, "robot", "upload").await;
    let bisector = token(&app, "bisect-robot", "upload,mark").await;
    let upload = |t: &str, query: &str, n: usize| {
        app.client
            .post(app.url(&format!(
                "/api/v1/upload?machine=m1&kernel=6.1&commit=a1a1a1a{query}"
            )))
            .header("authorization", format!("Bearer {t}"))
            .body(format!("{CSV}b,tput,{n}\n"))
            .send()
    };
    let before = app.counts().await;
    let r = upload(&robot, "&mark=bad", 1).await.unwrap();
    assert_error(r, 403, "needs the mark scope").await;
    let form = reqwest::multipart::Form::new()
        .text("machine", "m1")
        .text("kernel", "6.1")
        .text("mark", "good")
        .part(
            "file",
            reqwest::multipart::Part::bytes(CSV.as_bytes().to_vec()).file_name("r.csv"),
        );
    let r = app
        .client
        .post(app.url("/api/v1/upload"))
        .header("authorization", format!("Bearer {robot}"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_error(r, 403, "needs the mark scope").await;
    assert_eq!(
        app.counts().await,
        before,
        "a refused upload stored something"
    );
    assert_eq!(upload(&robot, "", 2).await.unwrap().status().as_u16(), 201);
    assert_eq!(
        upload(&bisector, "&mark=bad", 3)
            .await
            .unwrap()
            .status()
            .as_u16(),
        201
    );
}

/// Finding 9: a client's request id cannot forge log fields, and a token in a URL is not
/// logged. The binary as a process, its log read as an operator reads it.
#[tokio::test(flavor = "multi_thread")]
async fn logs_cannot_be_forged_and_keep_no_secrets() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args(["--listen", "127.0.0.1:0", "--log", "info", "--db"])
        .arg(dir.path().join("p.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let (lines, tx) = (lines.clone(), tx.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(
                        rest.split_whitespace()
                            .next()
                            .unwrap_or_default()
                            .to_owned(),
                    );
                }
                lines.lock().unwrap().push(line);
            }
        });
    }
    let addr = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the address");
    let client = reqwest::Client::new();
    let secret = "perfline_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg";
    let forged = "x request_id=admin status=200";
    let r = client
        .get(format!(
            "http://{addr}/api/v1/runs?token={secret}&t2={secret}"
        ))
        .header("x-request-id", forged)
        .send()
        .await
        .unwrap();
    let id = r.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert_ne!(id, forged, "the forged id was kept");
    assert_eq!(id.len(), 36, "a new UUID: {id}");
    let r = client
        .get(format!("http://{addr}/api/v1/runs"))
        .header("x-request-id", "robot-42.run:7")
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.headers()["x-request-id"],
        "robot-42.run:7",
        "a clean id is kept"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = child.kill();
    let _ = child.wait();
    let log = lines.lock().unwrap().join("\n");
    assert!(
        log.contains(&id),
        "the request's log lines carry its id:\n{log}"
    );
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a log that is not a terminal:\n{log}"
    );
    assert!(
        !log.contains("AbCdEfGhIjKl"),
        "a token reached the log:\n{log}"
    );
    assert!(
        !log.contains("request_id=admin"),
        "a forged field reached the log:\n{log}"
    );
    assert!(
        log.contains("perfline_[redacted]") || log.contains("token=[redacted]"),
        "{log}"
    );
}

/// Behind a proxy or a tunnel (`--public-url`, `--trusted-proxy` or, audit 2026-12-06 #11,
/// `--allow-host`) on loopback, writes need tokens by default: the port is reachable from
/// elsewhere. With `--allow-host perfbox`, a request naming that host minted an admin token.
#[tokio::test(flavor = "multi_thread")]
async fn behind_a_proxy_loopback_is_not_open() {
    for proxied in [
        |c: &mut perfline_server::Config| c.public_url = Some("https://perf.example.org".into()),
        |c: &mut perfline_server::Config| c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()],
        |c: &mut perfline_server::Config| c.allow_hosts = vec!["perfbox".into()],
    ] {
        let app = spawn_app_with(proxied).await;
        let port = app.addr.port();
        for host in [format!("127.0.0.1:{port}"), format!("perfbox:{port}")] {
            let r = app
                .client
                .post(app.url("/api/v1/tokens"))
                .header("host", &host)
                .header("origin", format!("http://{host}"))
                .header("sec-fetch-site", "same-origin")
                .header("content-type", "application/json")
                .body(r#"{"name":"x","scopes":"admin"}"#)
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            assert!(matches!(status, 401 | 421), "{host}: {status}");
        }
        assert!(app.store.list_tokens().await.unwrap().is_empty());
    }
}

/// `--trusted-proxy`: behind the proxy each client has its own rate-limit bucket, keyed on
/// the address the proxy saw; without it every client shares the proxy's.
#[tokio::test(flavor = "multi_thread")]
async fn a_trusted_proxy_gives_each_client_its_own_rate_limit() {
    for trusted in [true, false] {
        let app = spawn_app_with(|c| {
            c.write_rate = 1;
            c.auth = Some(AuthMode::Open);
            if trusted {
                c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
            }
        })
        .await;
        let write = |client_ip: &'static str, n: usize| {
            app.client
                .post(app.url("/api/v1/upload?machine=m1&kernel=6.1"))
                .header("x-forwarded-for", format!("203.0.113.9, {client_ip}"))
                .body(format!("{CSV}b,tput,{n}\n"))
                .send()
        };
        assert_eq!(
            write("198.51.100.1", 1).await.unwrap().status().as_u16(),
            201
        );
        assert_eq!(
            write("198.51.100.1", 2).await.unwrap().status().as_u16(),
            429
        );
        let other = write("198.51.100.2", 3).await.unwrap();
        let expect = if trusted { 201 } else { 429 };
        assert_eq!(other.status().as_u16(), expect, "trusted={trusted}");
        if !trusted {
            let v: Value = other.json().await.unwrap();
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("127.0.0.1"),
                "{v}"
            );
        }
    }
}

/// Labels refuse direction-changing and invisible characters, with a 422 that says which.
#[tokio::test(flavor = "multi_thread")]
async fn look_alike_names_are_refused() {
    let app = spawn_app().await;
    for (name, code) in [
        ("lkp\u{202E}ed-pwb", "U+202E"),
        ("lkp\u{200B}-bdw", "U+200B"),
        ("m\u{2066}1", "U+2066"),
    ] {
        let r = app
            .upload_raw(&format!("machine={}&kernel=6.1", urlencode(name)), CSV)
            .await;
        let v = assert_error(r, 422, code).await;
        assert_eq!(v["error"]["field"], "machine", "{v}");
    }
    let r = app
        .upload_raw("machine=m%C3%BCnchen-1&kernel=6.1", CSV)
        .await;
    assert_eq!(r.status().as_u16(), 201, "other Unicode is a name like any");
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'-' {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The no-JavaScript upload form's error page reaches the browser as HTML.
#[tokio::test(flavor = "multi_thread")]
async fn the_forms_error_page_is_html() {
    let app = spawn_app().await;
    let form = reqwest::multipart::Form::new()
        .text("machine", "m1")
        .text("kernel", "6.1")
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"benchmark,metric,value\nb,tput,fast\n".to_vec())
                .file_name("r.csv"),
        );
    let r = app
        .client
        .post(app.url("/api/v1/upload"))
        .header("accept", "text/html,application/xhtml+xml")
        .header("origin", app.base.clone())
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 422);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let page = r.text().await.unwrap();
    assert!(
        page.contains("Upload refused") && page.contains("not a number"),
        "{page}"
    );
}

/// Signed out on a token-mode instance, the upload page offers a sign-in, not a form that
/// would be refused; in open mode, and signed in with `upload`, the form.
#[tokio::test(flavor = "multi_thread")]
async fn pages_offer_only_what_the_visitor_may_do() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let (status, page) = app.get_text("/upload").await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"upload-signin\""), "no sign-in link");
    assert!(
        !page.contains("id=\"upload-form\""),
        "a form the visitor may not use"
    );
    let open = spawn_app().await;
    let (_, page) = open.get_text("/upload").await;
    assert!(page.contains("id=\"upload-form\"") && !page.contains("upload-signin"));
}

/// Over HTTPS only the `__Host-` cookie signs in: a plain-named cookie planted by a
/// plain-HTTP page or a sibling host is not read; a client's own `X-Forwarded-Proto` does not
/// make a cookie `Secure` (only a trusted proxy's does).
#[tokio::test(flavor = "multi_thread")]
async fn over_https_only_the_host_cookie_counts() {
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.public_url = Some("https://perf.example.org".into());
    })
    .await;
    let t = token(&app, "lead", "admin").await;
    let r = sign_in_json(&app, &t, &[("host", "perf.example.org")]).await;
    let set = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    let value = set
        .split(';')
        .next()
        .unwrap()
        .split_once('=')
        .unwrap()
        .1
        .to_owned();
    let audit = |cookie: String| {
        app.client
            .get(app.url("/api/v1/audit"))
            .header("host", "perf.example.org")
            .header("cookie", cookie)
            .send()
    };
    let r = audit(format!("__Host-perfline_session={value}"))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = audit(format!("perfline_session={value}")).await.unwrap();
    assert_eq!(r.status().as_u16(), 401, "the plain name over HTTPS");
    // Plain HTTP, no proxy: a client saying X-Forwarded-Proto gets no Secure cookie.
    let plain = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let t = token(&plain, "lead", "admin").await;
    let r = sign_in_json(&plain, &t, &[("x-forwarded-proto", "https")]).await;
    let set = r.headers()["set-cookie"].to_str().unwrap();
    assert!(
        set.starts_with("perfline_session=") && !set.contains("Secure"),
        "{set}"
    );
}

/// On a token-mode instance the alerts page offers triage only to who may triage.
#[tokio::test(flavor = "multi_thread")]
async fn the_alerts_page_offers_triage_only_with_the_mark_scope() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let (status, page) = app.get_text("/alerts").await;
    assert_eq!(status, 200);
    assert!(
        page.contains("id=\"triage-signin\""),
        "no word of signing in"
    );
    let open = spawn_app().await;
    let (_, page) = open.get_text("/alerts").await;
    assert!(!page.contains("triage-signin"));
}
