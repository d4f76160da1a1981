// SPDX-License-Identifier: GPL-3.0-or-later
//! The API description (OpenAPI 3.1), generated from the handlers' `#[utoipa::path]`
//! attributes and the wire types' schemas: served at `/api/v1/openapi.json`, and as a
//! reference page at `/api` that needs nothing from elsewhere (no CDN, no script).
//!
//! Every `/api/v1` route is registered through `utoipa_axum::routes!` (`api::router`), so a
//! route cannot exist without its description; the tests check the API table of docs/api.md and the
//! examples against it.

use std::fmt::Write as _;

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::OpenApi as Document;
use utoipa::{IntoResponses, Modify, OpenApi, ToSchema};

use crate::http::error::ErrorEnvelope;
use crate::http::offline::escape;

/// The error answers every operation may give, in the JSON envelope.
#[derive(IntoResponses)]
pub enum Errors {
    /// The request is wrong: 400 malformed, 401 no or a bad token, 403 a token without the
    /// scope, 404 unknown, 405 wrong method, 408 too slow, 409 conflict, 410 gone, 413 too
    /// large, 415 not results, 421 another host, 422 content that cannot be accepted (with
    /// `file`, `line`, `field`), 429 too many writes (`Retry-After`).
    #[response(status = "4XX")]
    Client(#[to_schema] ErrorEnvelope<'static>),
    /// The server cannot answer now: 503 busy (`Retry-After`: retry, uploads are
    /// idempotent), 500 a bug.
    #[response(status = "5XX")]
    Server(#[to_schema] ErrorEnvelope<'static>),
}

/// What `GET /api/v1/trend` answers as JSON: one trend, or one per machine or param.
#[derive(ToSchema)]
#[serde(untagged)]
#[expect(
    clippy::large_enum_variant,
    reason = "a schema for the API description only, never built"
)]
pub enum TrendAnswer {
    One(app::trend::Trend),
    Several(Vec<app::trend::Trend>),
}

/// What a comparison answers as JSON: the comparison, or with `ratio=1` mmtests'
/// `--print-ratio` view of it.
#[derive(ToSchema)]
#[serde(untagged)]
#[expect(
    clippy::large_enum_variant,
    reason = "a schema for the API description only, never built"
)]
pub enum CompareAnswer {
    Comparison(app::compare::Comparison),
    Ratios(crate::services::compare::RatioAnswer<'static>),
}

/// A multipart upload: one or more `file` parts, and the upload's fields as parts.
#[derive(ToSchema)]
#[expect(dead_code, reason = "a description of the request, never built")]
pub struct MultipartUpload {
    /// Result files and side files (`job.yaml`, a kernel config, ...).
    #[schema(value_type = Vec<String>, format = Binary)]
    file: Vec<Vec<u8>>,
    benchmark: Option<String>,
    machine: Option<String>,
    kernel: Option<String>,
    commit: Option<String>,
    commit_time: Option<i64>,
    mark: Option<String>,
    tags: Option<String>,
    format: Option<String>,
    /// `METRIC:higher|lower|unknown`, one part per metric.
    direction: Option<Vec<String>>,
}

/// `GET /api/v1/openapi.json`: this description.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "meta", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "The OpenAPI 3.1 description of the API", body = serde_json::Value)))]
#[expect(dead_code, reason = "the route is served from the built description")]
fn openapi_json() {}

/// Bearer tokens (`Authorization: Bearer perfline_...`) and the session cookie of the pages.
struct Security;

impl Modify for Security {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A token (`perfline_` + 43 letters and digits) with the scope the operation needs (each operation's `security` names it): `read` (on a `--private` server), `upload`, `mark`, `admin`",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                crate::http::auth::SESSION_COOKIE,
                "The session cookie signing in sets (`__Host-perfline_session` over HTTPS): \
                 it stands for the token it was made with, for requests from Perfline's own pages",
            ))),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Perfline",
        description = "Upload, compare and chart kernel benchmark results. Reads are open unless the server runs `--private`; writes need a token with the right scope on any address but loopback. Every error is the JSON envelope `ErrorEnvelope`.",
        license(name = "GPL-3.0-or-later", identifier = "GPL-3.0-or-later"),
    ),
    paths(
        super::compare::permalink,
        super::alerts::atom,
        openapi_json,
    ),
    // The validated query types, which parameters name by reference.
    components(schemas(
        ErrorEnvelope,
        app::label::Label,
        app::label::TagValue,
        app::label::Unit,
        app::label::Kernels,
        app::label::Machines,
        app::label::Param,
        app::label::Metric,
        app::label::CommitSha,
        app::label::PermalinkId,
        app::label::HistoryName,
        app::label::Bounded<0, 10>,
        app::label::Bounded<0, 10_000>,
        app::label::Bounded<0, 100_000_000>,
        app::label::Bounded<1, 200>,
        app::label::Bounded<1, 1000>,
        app::label::Bounded<8, 200>,
        app::label::Bounded<30, 400>,
    )),
    modifiers(&Security),
    security((), ("bearer" = []), ("session" = [])),
    tags(
        (name = "uploads", description = "Results in: files, raw bodies, archives"),
        (name = "runs", description = "What is stored"),
        (name = "compare", description = "Kernels side by side, as mmtests and LKP print them"),
        (name = "bisections", description = "Bisections Perfline drives: the next commit to run, verdicts through the noise, the culprit"),
        (name = "calibration", description = "A/A runs: how noisy each series is, and how often a test cries wolf"),
        (name = "trends", description = "A metric by commit, histories, bisect marks, the regression mail"),
        (name = "alerts", description = "Regressions found by the robot, and their triage"),
        (name = "admin", description = "Deleting, correcting, tokens, rules, the audit trail"),
        (name = "session", description = "Signing in to the pages"),
        (name = "meta", description = "Health, metrics, this description"),
    ),
)]
struct ApiDoc;

/// The whole description: the top-level routes (`top`: the router's own, such as `/healthz`
/// and `/metrics`), and `api` (the `/api/v1` router's paths) under `/api/v1`.
pub fn document(api: Document, top: Document) -> Document {
    let mut doc = ApiDoc::openapi().merge_from(top).nest("/api/v1", api);
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    doc
}

/// The reference page (`GET /api`): every operation with its parameters, bodies and answers,
/// rendered from the description on the server; no script, nothing loaded from elsewhere.
pub fn reference_html(doc: &Document) -> String {
    use utoipa::openapi::RefOr;
    let json = serde_json::to_value(doc).unwrap_or_default();
    let mut body = String::new();
    let _ = write!(
        body,
        "<p>{}</p><p>The machine-readable description: <a href=\"/api/v1/openapi.json\">/api/v1/openapi.json</a> (OpenAPI {}).</p>",
        escape(doc.info.description.as_deref().unwrap_or_default()),
        escape(json["openapi"].as_str().unwrap_or("3.1"))
    );
    body.push_str("<nav><ul>");
    for (path, item) in &doc.paths.paths {
        for (method, _) in operations(item) {
            let _ = write!(
                body,
                "<li><a href=\"#{}\"><code>{} {}</code></a></li>",
                anchor(method, path),
                method.to_uppercase(),
                escape(path)
            );
        }
    }
    body.push_str("</ul></nav>");
    for (path, item) in &doc.paths.paths {
        for (method, op) in operations(item) {
            let _ = write!(
                body,
                "<section id=\"{}\"><h2><code>{} {}</code></h2>",
                anchor(method, path),
                method.to_uppercase(),
                escape(path)
            );
            if let Some(d) = op.description.as_ref().or(op.summary.as_ref()) {
                let _ = write!(body, "<p>{}</p>", escape(d));
            }
            if let Some(params) = &op.parameters {
                body.push_str(
                    "<table><tr><th>parameter</th><th>in</th><th>type</th><th></th></tr>",
                );
                for p in params {
                    let v = serde_json::to_value(p).unwrap_or_default();
                    let _ = write!(
                        body,
                        "<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                        escape(v["name"].as_str().unwrap_or_default()),
                        if v["required"] == true {
                            " (required)"
                        } else {
                            ""
                        },
                        escape(v["in"].as_str().unwrap_or_default()),
                        escape(&type_of(&v["schema"])),
                        escape(v["description"].as_str().unwrap_or_default())
                    );
                }
                body.push_str("</table>");
            }
            if let Some(rb) = &op.request_body {
                let v = serde_json::to_value(rb).unwrap_or_default();
                body.push_str("<h3>Body</h3><ul>");
                if let Some(content) = v["content"].as_object() {
                    for (media, c) in content {
                        let _ = write!(
                            body,
                            "<li><code>{}</code>: {}</li>",
                            escape(media),
                            escape(&type_of(&c["schema"]))
                        );
                    }
                }
                body.push_str("</ul>");
            }
            body.push_str("<h3>Answers</h3><ul>");
            for (status, r) in &op.responses.responses {
                let v = match r {
                    RefOr::T(r) => serde_json::to_value(r).unwrap_or_default(),
                    RefOr::Ref(r) => serde_json::json!({"description": r.ref_location}),
                };
                let media: Vec<String> = v["content"]
                    .as_object()
                    .map(|c| {
                        c.iter()
                            .map(|(m, c)| format!("{m}: {}", type_of(&c["schema"])))
                            .collect()
                    })
                    .unwrap_or_default();
                let _ = write!(
                    body,
                    "<li><b>{}</b> {} <small>{}</small></li>",
                    escape(status),
                    escape(v["description"].as_str().unwrap_or_default()),
                    escape(&media.join("; "))
                );
            }
            body.push_str("</ul></section>");
        }
    }
    body.push_str("<h2>Schemas</h2>");
    if let Some(schemas) = json["components"]["schemas"].as_object() {
        for (name, schema) in schemas {
            let _ = write!(
                body,
                "<section id=\"schema-{0}\"><h3>{0}</h3><pre>{1}</pre></section>",
                escape(name),
                escape(&serde_json::to_string_pretty(schema).unwrap_or_default())
            );
        }
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Perfline API</title><style>{STYLE}</style></head><body><main><h1>Perfline API {}</h1>{body}<footer><p>{} <a href=\"{}\">The source</a>.</p></footer></main></body></html>\n",
        escape(&doc.info.version),
        escape(crate::http::source::NOTICE),
        crate::http::source::PATH,
    )
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;line-height:1.45;color:#1b1f24;background:#fff}main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem}section{border-top:1px solid #d0d7de;padding-top:.5rem}code,pre{font-family:ui-monospace,monospace}pre{background:#f6f8fa;padding:.5rem;overflow-x:auto}table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top}nav ul{columns:3 18rem}@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}pre{background:#161b22}a{color:#58a6ff}td,th,section{border-color:#30363d}}";

fn operations(
    item: &utoipa::openapi::PathItem,
) -> Vec<(&'static str, &utoipa::openapi::path::Operation)> {
    [
        ("get", &item.get),
        ("post", &item.post),
        ("put", &item.put),
        ("patch", &item.patch),
        ("delete", &item.delete),
    ]
    .into_iter()
    .filter_map(|(m, op)| op.as_ref().map(|op| (m, op)))
    .collect()
}

fn anchor(method: &str, path: &str) -> String {
    let slug: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("{method}{slug}")
}

/// A schema in a few words: its `$ref` name, its type, or what it combines.
fn type_of(schema: &serde_json::Value) -> String {
    if let Some(r) = schema["$ref"].as_str() {
        return r.rsplit('/').next().unwrap_or(r).to_owned();
    }
    if let Some(items) = schema.get("items") {
        return format!("array of {}", type_of(items));
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(list) = schema[key].as_array() {
            let parts: Vec<String> = list.iter().map(type_of).collect();
            return parts.join(" or ");
        }
    }
    match &schema["type"] {
        serde_json::Value::String(t) => t.clone(),
        serde_json::Value::Array(ts) => ts
            .iter()
            .filter_map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".to_owned(),
    }
}
