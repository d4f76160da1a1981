// SPDX-License-Identifier: GPL-3.0-or-later
//! The admin's console (`/admin`, `/admin/rules`, `/admin/audit`) over HTTP: each section's
//! pages and server functions answer an admin, and refuse an anonymous reader (401) and a
//! token without the admin scope (403) without showing any of the data, in token mode.

use std::time::Instant;

use reqwest::Response;
use serde_json::{json, Value};

use crate::helpers::*;
use crate::trend::sha;
use perfline_server::http::auth::AuthMode;

/// Calls server function `name` with the form-encoded `body`, as an island does (with the
/// page's `Origin`), as `bearer` (none: anonymous).
async fn sfn(app: &TestApp, name: &str, body: String, bearer: Option<&str>) -> Response {
    let mut r = app
        .client
        .post(app.url(&format!("/sfn/{name}")))
        .header("origin", &app.base)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    if let Some(t) = bearer {
        r = r.bearer_auth(t);
    }
    r.send().await.unwrap()
}

async fn sfn_ok(app: &TestApp, name: &str, body: String, bearer: Option<&str>) -> Value {
    let r = sfn(app, name, body, bearer).await;
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    assert_eq!(status, 200, "/sfn/{name}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// Asserts a server function's error: the status, and a message containing `needle`, whether
/// the access check refused it (the JSON envelope) or the function answered it (its
/// `PageError`, `{"Conflict": "..."}`).
async fn assert_sfn_error(r: Response, status: u16, needle: &str) {
    assert_eq!(r.status().as_u16(), status, "status");
    let body: Value = r.json().await.expect("a JSON error body");
    let message = body["error"]["message"]
        .as_str()
        .or_else(|| {
            body.as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
        })
        .unwrap_or_else(|| panic!("no message in {body}"));
    assert!(
        message.contains(needle),
        "{message:?} should contain {needle:?}"
    );
}

fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", app::url::encode(k), app::url::encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

async fn page(app: &TestApp, path: &str, bearer: Option<&str>) -> (u16, String) {
    let mut r = app.client.get(app.url(path));
    if let Some(t) = bearer {
        r = r.bearer_auth(t);
    }
    let r = r.send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

async fn token_mode() -> TestApp {
    spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await
}

/// Deny by default: every page and server function of the console refuses an anonymous reader
/// and a token without the admin scope, and shows them none of its data.
#[tokio::test(flavor = "multi_thread")]
async fn the_console_refuses_anonymous_readers_and_tokens_without_admin() {
    let app = token_mode().await;
    let admin = token(&app, "lead", "admin").await;
    let robot = token(&app, "robot-secretive-name", "upload,mark").await;
    app.store
        .audit(
            "lead",
            "token.create",
            "robot-secretive-name",
            "upload,mark",
        )
        .await
        .unwrap();
    for path in [
        "/admin",
        "/admin/rules",
        "/admin/audit",
        "/admin/audit?actor=lead",
    ] {
        let (status, body) = page(&app, path, None).await;
        assert_eq!(status, 401, "{path} anonymous");
        assert!(
            body.contains("Admins only") && body.contains("/signin?next=/admin"),
            "{path}: {body}"
        );
        assert!(
            !body.contains("robot-secretive-name"),
            "{path} shows a token's name anonymously"
        );
        let (status, body) = page(&app, path, Some(&robot)).await;
        assert_eq!(status, 403, "{path} without admin");
        assert!(body.contains("admin scope"), "{path}: {body}");
        assert!(
            !body.contains("token.create"),
            "{path} shows the audit trail"
        );
        assert!(
            !body.contains("id=\"tokens\""),
            "{path} shows the token table"
        );
        let (status, body) = page(&app, path, Some(&admin)).await;
        assert_eq!(status, 200, "{path} as admin: {body}");
        assert!(body.contains("Admin"), "{path}");
    }
    let calls: [(&str, String); 8] = [
        ("admin_tokens", String::new()),
        ("admin_notify", String::new()),
        ("admin_rules", String::new()),
        ("admin_audit", form(&[("search[actor]", "")])),
        (
            "admin_create_token",
            form(&[("form[name]", "sneaky"), ("form[scopes]", "admin")]),
        ),
        ("admin_revoke_token", form(&[("id", "1")])),
        ("admin_preview_rules", form(&[("json", "[]")])),
        (
            "admin_save_rules",
            form(&[("json", "[{\"ignore\": true}]")]),
        ),
    ];
    for (name, body) in &calls {
        let r = sfn(&app, name, body.clone(), None).await;
        assert_sfn_error(r, 401, "admin").await;
        let r = sfn(&app, name, body.clone(), Some(&robot)).await;
        assert_sfn_error(r, 403, "admin").await;
    }
    // Nothing was made, revoked or replaced.
    let tokens = sfn_ok(&app, "admin_tokens", String::new(), Some(&admin)).await;
    let names: Vec<&str> = tokens
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["lead", "robot-secretive-name"]);
    assert!(tokens[0]["revoked_at"].is_null());
    let (_, rules) = app.get_json("/api/v1/alert-rules").await;
    assert_eq!(rules["rules"], json!([]));
    // The header links to the console for an admin only.
    let (_, home) = page(&app, "/", Some(&admin)).await;
    assert!(home.contains("id=\"admin-link\""));
    let (_, home) = page(&app, "/", Some(&robot)).await;
    assert!(!home.contains("id=\"admin-link\""));
    let (_, home) = page(&app, "/", None).await;
    assert!(!home.contains("id=\"admin-link\""));
    app.stop().await;
}

/// Tokens: made with a scope (the secret in the answer only), listed with their use, revoked;
/// each step in the audit trail under the admin's name.
#[tokio::test(flavor = "multi_thread")]
async fn tokens_are_made_listed_and_revoked_from_the_console() {
    let app = token_mode().await;
    let admin = token(&app, "lead", "admin").await;
    let made = sfn_ok(
        &app,
        "admin_create_token",
        form(&[
            ("form[name]", "robot-1"),
            ("form[scopes]", "upload,mark"),
            ("form[expires_days]", "30"),
        ]),
        Some(&admin),
    )
    .await;
    assert_eq!(made["name"], "robot-1");
    assert_eq!(made["scopes"], "upload,mark");
    let secret = made["token"].as_str().unwrap().to_owned();
    assert!(
        secret.starts_with("perfline_") && secret.len() == 52,
        "{secret}"
    );
    // The same name again is a conflict; an unknown scope a bad request.
    let again = form(&[("form[name]", "robot-1"), ("form[scopes]", "upload")]);
    assert_sfn_error(
        sfn(&app, "admin_create_token", again, Some(&admin)).await,
        409,
        "exists",
    )
    .await;
    let bad = form(&[("form[name]", "robot-2"), ("form[scopes]", "write")]);
    assert_sfn_error(
        sfn(&app, "admin_create_token", bad, Some(&admin)).await,
        400,
        "unknown scope",
    )
    .await;
    // The new token works, and its use shows.
    let r = app
        .client
        .post(app.url("/api/v1/upload?benchmark=b&machine=m&kernel=6.1"))
        .bearer_auth(&secret)
        .body("metric,value\ntput,1\n")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let tokens = sfn_ok(&app, "admin_tokens", String::new(), Some(&admin)).await;
    let robot = tokens
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "robot-1")
        .unwrap()
        .clone();
    assert!(robot["last_used_at"].is_string(), "{robot}");
    assert!(robot["expires_at"].is_string(), "{robot}");
    let (status, body) = page(&app, "/admin", Some(&admin)).await;
    assert_eq!(status, 200);
    assert!(body.contains("data-token=\"robot-1\"") && body.contains("upload,mark"));
    assert!(!body.contains(&secret), "the list never shows a token");
    // Revoked: refused from then on, and marked in the list.
    let id = robot["id"].as_i64().unwrap().to_string();
    sfn_ok(
        &app,
        "admin_revoke_token",
        form(&[("id", &id)]),
        Some(&admin),
    )
    .await;
    let r = app
        .client
        .get(app.url("/api/v1/runs"))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = sfn(
        &app,
        "admin_revoke_token",
        form(&[("id", &id)]),
        Some(&admin),
    )
    .await;
    assert_sfn_error(r, 404, "no live token").await;
    let (_, body) = page(&app, "/admin", Some(&admin)).await;
    assert!(body.contains("token revoked"), "the row is marked revoked");
    let (entries, _) = app.store.audit_log(10, 0).await.unwrap();
    let lines: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| (e.actor.as_str(), e.action.as_str(), e.target.as_str()))
        .collect();
    assert!(
        lines.contains(&("lead", "token.create", "robot-1")),
        "{lines:?}"
    );
    assert!(
        lines.contains(&("lead", "token.revoke", "robot-1")),
        "{lines:?}"
    );
    app.stop().await;
}

/// Webhooks and mail: shown as they are configured, without a secret (the webhook's path and
/// signing key, the SMTP password).
#[tokio::test(flavor = "multi_thread")]
async fn the_notification_settings_are_shown_without_secrets() {
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.webhooks = vec!["https://hooks.example.com/services/T0/B0/PATHSECRET".into()];
        c.webhook_secret = Some("SIGNINGSECRET".into());
        c.smtp = Some("smtp://mailer:SMTPSECRET@relay.example.org:2525".into());
        c.mail_from = Some("Perfline <perfline@example.org>".into());
        c.mail_to = vec!["lkml-perf@example.org".into()];
    })
    .await;
    let admin = token(&app, "lead", "admin").await;
    let (status, body) = page(&app, "/admin", Some(&admin)).await;
    assert_eq!(status, 200);
    for shown in [
        "https://hooks.example.com/…",
        "smtp://relay.example.org:2525",
        "lkml-perf@example.org",
        "perfline@example.org",
        "X-Perfline-Signature",
    ] {
        assert!(body.contains(shown), "{shown} not shown");
    }
    for secret in ["PATHSECRET", "SIGNINGSECRET", "SMTPSECRET", "mailer"] {
        assert!(!body.contains(secret), "{secret} shown");
    }
    let notify = sfn_ok(&app, "admin_notify", String::new(), Some(&admin)).await;
    assert_eq!(notify["smtp_credentials"], true);
    assert!(!notify.to_string().contains("SECRET"));
    app.stop().await;
}

/// The audit trail searched by actor, action, target and day, in pages of 50 with links.
#[tokio::test(flavor = "multi_thread")]
async fn the_audit_trail_is_searched_and_paged() {
    let app = token_mode().await;
    let admin = token(&app, "lead", "admin").await;
    for i in 0..120 {
        let actor = if i % 2 == 0 { "robot-a" } else { "robot-b" };
        app.store
            .audit(actor, "upload", &format!("upload {i}"), "")
            .await
            .unwrap();
    }
    app.store
        .audit("lead", "run.correct", "run 7", "machine m1")
        .await
        .unwrap();
    let search = |pairs: &[(&str, &str)]| {
        let pairs: Vec<(String, &str)> = pairs
            .iter()
            .map(|(k, v)| (format!("search[{k}]"), *v))
            .collect();
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        form(&pairs)
    };
    let all = sfn_ok(&app, "admin_audit", search(&[("actor", "")]), Some(&admin)).await;
    // And the admin's own token's making.
    assert_eq!(all["total"], 122);
    assert_eq!(all["entries"].as_array().unwrap().len(), 50);
    assert_eq!(all["entries"][0]["action"], "run.correct", "newest first");
    let b = sfn_ok(
        &app,
        "admin_audit",
        search(&[("actor", "ROBOT-B"), ("offset", "50")]),
        Some(&admin),
    )
    .await;
    assert_eq!(b["total"], 60);
    assert_eq!(b["entries"].as_array().unwrap().len(), 10);
    assert!(b["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["actor"] == "robot-b"));
    let one = sfn_ok(
        &app,
        "admin_audit",
        search(&[("target", "upload 11"), ("action", "upl")]),
        Some(&admin),
    )
    .await;
    let targets: Vec<&str> = one["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        targets,
        [
            "upload 119",
            "upload 118",
            "upload 117",
            "upload 116",
            "upload 115",
            "upload 114",
            "upload 113",
            "upload 112",
            "upload 111",
            "upload 110",
            "upload 11"
        ]
    );
    let today = all["entries"][0]["at"].as_str().unwrap()[..10].to_owned();
    let dated = sfn_ok(
        &app,
        "admin_audit",
        search(&[("since", &today), ("until", &today)]),
        Some(&admin),
    )
    .await;
    assert_eq!(dated["total"], 122);
    let none = sfn_ok(
        &app,
        "admin_audit",
        search(&[("until", "2001-01-01")]),
        Some(&admin),
    )
    .await;
    assert_eq!(none["total"], 0);
    let r = sfn(
        &app,
        "admin_audit",
        search(&[("since", "last week")]),
        Some(&admin),
    )
    .await;
    assert_sfn_error(r, 400, "since").await;
    // The API searches alike.
    let api = |q: &'static str| {
        let app = &app;
        let admin = admin.clone();
        async move {
            let r = app
                .client
                .get(app.url(&format!("/api/v1/audit?{q}")))
                .bearer_auth(&admin)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (status, v) = api("actor=robot-B&action=upload&limit=5").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["total"], 60);
    assert_eq!(v["entries"].as_array().unwrap().len(), 5);
    let (status, v) = api("until=2001-02-30x").await;
    assert_eq!(status, 400, "{v}");
    // The page: the search kept in its form, the lines, and links to the other pages.
    let (status, body) = page(&app, "/admin/audit?actor=robot-a&offset=50", Some(&admin)).await;
    assert_eq!(status, 200);
    assert!(body.contains("Lines 51 to 60 of 60"), "{body}");
    assert!(
        body.contains("href=\"/admin/audit?actor=robot-a\""),
        "a link to the first page"
    );
    assert!(!body.contains("rel=\"next\""), "no page after the last");
    assert_eq!(body.matches("class=\"audit-line\"").count(), 10);
    let (status, body) = page(&app, "/admin/audit?since=2026-99-01", Some(&admin)).await;
    assert_eq!(status, 400);
    assert!(body.contains("since"));
    app.stop().await;
}

/// Alert rules: listed, previewed over the stored series of the last 90 days (the 5,000 keys
/// of a robot's LKP jobs: the examined series capped, and said so), and saved.
#[tokio::test(flavor = "multi_thread")]
async fn alert_rules_are_previewed_over_robot_sized_jobs_and_saved() {
    let app = spawn_app_with(|c| c.no_alerts = true).await;
    crate::alerts::upload_history(&app, 40, None).await;
    let started = Instant::now();
    for i in 0..15 {
        let r = app
            .client
            .post(app.url(&format!(
                "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1&kernel=4.19.0-rc1\
                 &commit={}&format=lkp-stats",
                sha(i * 2)
            )))
            .body(crate::compare::big_job(5000, i >= 10, i % 3))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    println!("15 jobs of 5,000 keys uploaded in {:?}", started.elapsed());
    let preview = |rules: Value| {
        let app = &app;
        async move {
            let started = Instant::now();
            let p = sfn_ok(
                app,
                "admin_preview_rules",
                form(&[("json", &rules.to_string())]),
                None,
            )
            .await;
            println!(
                "preview of {rules}: {:?}: {} series, {} examined, {} alerts",
                started.elapsed(),
                p["series_total"],
                p["examined"],
                p["alerts"].as_array().unwrap().len()
            );
            p
        }
    };
    let kpi = |p: &Value| {
        p["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["series"].as_str().unwrap().contains("Throughput"))
            .cloned()
    };
    let p =
        preview(json!([{"benchmark": "netperf", "metric": "*Throughput*", "min_change_pct": 3}]))
            .await;
    assert!(
        p["series_total"].as_u64().unwrap() >= 5000,
        "{}",
        p["series_total"]
    );
    assert_eq!(p["examined"], 400, "capped");
    assert_eq!(p["cap"], 400);
    assert_eq!(p["out_of_time"], false);
    let a = kpi(&p).expect("the KPI's step is raised");
    assert_eq!(a["rule"], 1);
    assert_eq!(a["regression"], true);
    assert_eq!(a["at"], sha(20)[..12]);
    let change = a["change_pct"].as_f64().unwrap();
    assert!((-6.5..-5.5).contains(&change), "{change}");
    assert!(a["trend"]
        .as_str()
        .unwrap()
        .starts_with("/trend?benchmark=netperf&machine=lkp-bdw-de1&metric="));
    // A higher bar, or the series ignored: the KPI's 6 % step is not raised.
    let p = preview(json!([{"metric": "*Throughput*", "min_change_pct": 10}])).await;
    assert!(kpi(&p).is_none(), "{p}");
    let p = preview(json!({"rules": [{"metric": "*Throughput*", "ignore": true}]})).await;
    assert!(kpi(&p).is_none());
    assert_eq!(p["ignored"], 1);
    let r = sfn(
        &app,
        "admin_preview_rules",
        form(&[("json", "[{\"alpha\": 5}]")]),
        None,
    )
    .await;
    assert_sfn_error(r, 400, "rule 1: alpha").await;
    // Saved: in force, on the page, and in the audit trail.
    let rules = json!([{"benchmark": "netperf", "metric": "*Throughput*", "min_change_pct": 3.0}]);
    let saved = sfn_ok(
        &app,
        "admin_save_rules",
        form(&[("json", &rules.to_string())]),
        None,
    )
    .await;
    assert_eq!(saved, 1, "the rules in force");
    let (_, now) = app.get_json("/api/v1/alert-rules").await;
    assert_eq!(now["rules"][0]["metric"], "*Throughput*");
    assert_eq!(now["rules"][0]["min_change_pct"], 3.0);
    let (status, body) = app.get_text("/admin/rules").await;
    assert_eq!(status, 200);
    assert!(
        body.contains("min change 3 %") && body.contains("id=\"rules-json\""),
        "{body}"
    );
    let (entries, _) = app.store.audit_log(5, 0).await.unwrap();
    assert!(
        entries.iter().any(|e| e.action == "alert-rules.replace"),
        "{entries:?}"
    );
    app.stop().await;
}
