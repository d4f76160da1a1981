// SPDX-License-Identifier: GPL-3.0-or-later
//! The API description (`/api/v1/openapi.json`) as a client generator or a fuzzer reads it:
//! every route the README lists is in it and nothing else, every example in it validates
//! against its schema, and real answers of the server validate against theirs.

use serde_json::Value;

use crate::helpers::*;

async fn description(app: &TestApp) -> Value {
    let (status, doc) = app.get_json("/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    doc
}

/// `GET /api/v1/runs?...`, `` `DELETE /api/v1/tokens/{name or id}` `` → `("GET", "/api/v1/runs")`,
/// `("DELETE", "/api/v1/tokens/{}")`: the routes named in the README's API table.
fn readme_routes() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/api.md"))
        .expect("docs/api.md is in the workspace");
    let table = readme
        .split("## API\n")
        .nth(1)
        .expect("the README has an API section")
        .split("\n\n")
        .map(str::trim_start)
        .find(|block| block.starts_with("| Method and path"))
        .expect("the API section has its table");
    let mut routes = Vec::new();
    for row in table.lines().skip(2) {
        let first_cell = row.split(" | ").next().unwrap_or_default();
        for code in first_cell.split('`').skip(1).step_by(2) {
            let Some((method, path)) = code.split_once(' ') else {
                continue;
            };
            let path = path.split(['?', '[']).next().unwrap();
            routes.push((method.to_owned(), normalise(path)));
        }
    }
    routes
}

/// Path parameters as `{}`: the README says `{name or id}` where the description says `{name}`.
fn normalise(path: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in path.chars() {
        match c {
            '{' => {
                inside = true;
                out.push_str("{}");
            }
            '}' => inside = false,
            _ if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

fn described_routes(doc: &Value) -> Vec<(String, String)> {
    let mut routes = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            routes.push((method.to_uppercase(), normalise(path)));
        }
    }
    routes
}

#[tokio::test(flavor = "multi_thread")]
async fn the_description_and_the_readme_list_the_same_routes() {
    let app = spawn_app().await;
    let doc = description(&app).await;
    let described = described_routes(&doc);
    let readme = readme_routes();
    assert!(readme.len() > 25, "{readme:?}");
    for route in &readme {
        assert!(
            described.contains(route),
            "{route:?} is in the README's API table but not in /api/v1/openapi.json"
        );
    }
    for route in &described {
        assert!(
            readme.contains(route),
            "{route:?} is in /api/v1/openapi.json but not in the README's API table"
        );
    }
    // Every described route is served: none falls through to the API's 404 or a 405.
    for (method, path) in &described {
        let path = path.replace("{}", "1");
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let r = app
            .client
            .request(method.clone(), app.url(&path))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let body = r.text().await.unwrap();
        assert!(
            status != 405 && !body.contains("no such API endpoint"),
            "{method} {path}: {status} {body}"
        );
    }
    app.stop().await;
}

/// A validator for the schema at `pointer` (`#/components/schemas/Trend`, or a schema given
/// inline) with the whole description as the document its `$ref`s point into.
fn validator(doc: &Value, schema: &Value) -> jsonschema::Validator {
    let mut root = doc.clone();
    let obj = root.as_object_mut().unwrap();
    obj.remove("paths");
    match schema.as_object() {
        Some(s) => {
            for (k, v) in s {
                obj.insert(k.clone(), v.clone());
            }
        }
        None => panic!("a schema is an object: {schema}"),
    }
    jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{e}: {schema}"))
}

fn check(doc: &Value, schema: &Value, instance: &Value, what: &str) {
    let v = validator(doc, schema);
    let errors: Vec<String> = v.iter_errors(instance).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "{what} does not validate: {errors:?}\n{instance}"
    );
}

fn schema_ref(name: &str) -> Value {
    serde_json::json!({"$ref": format!("#/components/schemas/{name}")})
}

#[tokio::test(flavor = "multi_thread")]
async fn every_example_validates_against_its_schema() {
    let app = spawn_app().await;
    let doc = description(&app).await;
    let mut checked = 0;
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        if let Some(example) = schema.get("example") {
            check(
                &doc,
                &schema_ref(name),
                example,
                &format!("the example of {name}"),
            );
            checked += 1;
        }
    }
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(content) = op["requestBody"]["content"].as_object() else {
                continue;
            };
            for (media, c) in content {
                if let Some(example) = c.get("example") {
                    if media.contains("json") {
                        check(
                            &doc,
                            &c["schema"],
                            example,
                            &format!("{method} {path} {media}"),
                        );
                    } else {
                        assert!(example.is_string(), "{method} {path} {media}: {example}");
                    }
                    checked += 1;
                }
            }
        }
    }
    // ErrorEnvelope, RunPatch, MarkBody, Rules, NewToken, and the upload and history bodies.
    assert!(checked >= 7, "only {checked} examples");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn real_answers_validate_against_the_description() {
    let app = spawn_app().await;
    let doc = description(&app).await;
    let r = app
        .upload_raw(
            "benchmark=netperf-tcp&machine=m1&kernel=6.1&commit=abc1234",
            read_fixture("generic/netperf-sweep.csv"),
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let uploaded: Value = r.json().await.unwrap();
    check(
        &doc,
        &schema_ref("UploadResponse"),
        &uploaded,
        "the upload answer",
    );
    app.upload_raw(
        "benchmark=netperf-tcp&machine=m1&kernel=6.2&commit=def5678",
        read_fixture("generic/netperf-sweep.csv"),
    )
    .await;
    app.upload_work_log().await;
    let run = uploaded["runs"][0]["id"].as_i64().unwrap();
    let upload = uploaded["upload"]["id"].as_i64().unwrap();
    for (path, schema) in [
        ("/api/v1/runs".to_owned(), "RunPage"),
        (format!("/api/v1/runs/{run}"), "RunDetail"),
        (format!("/api/v1/uploads/{upload}"), "UploadDetail"),
        (
            "/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels=5.4.0-vanilla,5.5.0-vanilla".into(),
            "CompareAnswer",
        ),
        (
            "/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels=5.4.0-vanilla,5.5.0-vanilla&ratio=1".into(),
            "CompareAnswer",
        ),
        (
            "/api/v1/trend?benchmark=netperf-tcp&machine=m1&metric=Throughput&param=64".into(),
            "TrendAnswer",
        ),
        (
            "/api/v1/trend?benchmark=netperf-tcp&machine=m1&metric=Throughput&params=*".into(),
            "TrendAnswer",
        ),
        ("/api/v1/alerts".into(), "AlertPage"),
        ("/api/v1/runs/999999".into(), "ErrorEnvelope"),
        ("/api/v1/compare?benchmark=x".into(), "ErrorEnvelope"),
    ] {
        let (_, body) = app.get_json(&path).await;
        check(&doc, &schema_ref(schema), &body, &path);
    }
    let (_, benchmarks) = app.get_json("/api/v1/benchmarks").await;
    check(
        &doc,
        &serde_json::json!({"type": "array", "items": schema_ref("BenchmarkSummary")}),
        &benchmarks,
        "/api/v1/benchmarks",
    );
    // A schema that says what it refuses: a label of control characters fails it.
    check(
        &doc,
        &schema_ref("Label"),
        &Value::from("lkp-bdw-de1"),
        "a label",
    );
    let label = validator(&doc, &schema_ref("Label"));
    assert!(!label.is_valid(&Value::from("bad\u{7}name")));
    assert!(!label.is_valid(&Value::from("   ")));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reference_page_lists_every_operation_without_loading_anything() {
    let app = spawn_app().await;
    let doc = description(&app).await;
    let (status, html) = app.get_text("/api").await;
    assert_eq!(status, 200);
    for (method, path) in described_routes(&doc) {
        let _ = path;
        assert!(html.contains(&format!("<code>{method} ")), "{method}");
    }
    for path in doc["paths"].as_object().unwrap().keys() {
        assert!(html.contains(path.as_str()), "{path} is not on the page");
    }
    // Nothing from elsewhere: no script, no stylesheet or image from another origin.
    assert!(!html.contains("<script"), "the page has a script");
    assert!(!html.contains("src=\"http"), "the page loads something");
    assert!(!html.contains("href=\"http"), "the page links out");
    app.stop().await;
}

/// Every `$ref` anywhere in the description names a schema it defines: a client generator or
/// a fuzzer stops at the first one that does not (CI's schemathesis run did, on `CommitSha`).
#[tokio::test(flavor = "multi_thread")]
async fn every_reference_in_the_description_resolves() {
    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v.as_str()) {
                        ("$ref", Some(r)) => out.push(r.to_owned()),
                        _ => refs(v, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let app = spawn_app().await;
    let doc = description(&app).await;
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(all.len() > 50, "{all:?}");
    let missing: Vec<&String> = all
        .iter()
        .filter(|r| doc.pointer(r.trim_start_matches('#')).is_none())
        .collect();
    assert!(missing.is_empty(), "unresolvable references: {missing:?}");
    app.stop().await;
}
