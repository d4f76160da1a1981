// SPDX-License-Identifier: GPL-3.0-or-later
//! Trends and history: `GET /api/v1/trend`, `POST /api/v1/commits`, `POST /api/v1/bisect`,
//! `POST /api/v1/runs/{id}/mark`.

use axum::body::Bytes;
use axum::extract::{Extension, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use app::label::{empty_as_none, Bounded, CommitSha, HistoryName, Label, Machines, Metric, Param};
use app::trend::{Mark, TrendQuery};

use super::extract::{ApiJson, ApiQuery};

use super::compare::{negotiate, Shape};
use crate::http::auth::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::services::trend::{change_line, parse_bisect_log, parse_git_log_detailed, Across, Body};
use crate::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TrendParams {
    #[serde(default, deserialize_with = "empty_as_none")]
    benchmark: Option<Label>,
    #[serde(default, deserialize_with = "empty_as_none")]
    machine: Option<Label>,
    #[serde(default, deserialize_with = "empty_as_none")]
    metric: Option<Metric>,
    #[serde(default)]
    param: Param,
    /// Several machines on one chart (comma-separated), instead of `machine`.
    machines: Option<Machines>,
    /// Several params on one chart (comma-separated, or `*` for all), instead of `param`.
    params: Option<String>,
    /// Order by this uploaded history, `repo/branch`.
    #[serde(default, deserialize_with = "empty_as_none")]
    history: Option<HistoryName>,
    /// `json` (default), `text` (the ASCII chart), `svg`, `html` (a self-contained file).
    format: Option<String>,
    /// The ASCII chart's columns and lines.
    width: Option<Bounded<30, 400>>,
    height: Option<Bounded<8, 200>>,
}

#[utoipa::path(get, path = "/trend", tag = "trends", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(TrendParams),
    responses((status = 200, description = "A metric by commit; several (`machines=` or `params=`) as an array, or one chart",
        content((crate::http::api::openapi::TrendAnswer = "application/json"), (String = "text/plain"), (String = "image/svg+xml"), (String = "text/html"))),
        crate::http::api::openapi::Errors))]
pub async fn trend(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<TrendParams>,
) -> ApiResult<Response> {
    let missing = |name: &str| {
        ApiError::BadRequest(format!(
            "{name} is required: /api/v1/trend?benchmark=B&machine=M&metric=X[&param=P]"
        ))
    };
    let shape = match q.format.as_deref() {
        None => negotiate(&headers, Shape::Json),
        Some("json") => Shape::Json,
        Some("text" | "txt") => Shape::Text,
        Some("svg") => Shape::Svg,
        Some("html") => Shape::Document,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "format must be json, text, svg or html, not {other:?}"
            )))
        }
    };
    let width = q.width.map_or(80, |w| w.get() as usize);
    let height = q.height.map_or(20, |h| h.get() as usize);
    if q.machines.is_some() || q.params.is_some() {
        return across(state, q, shape).await;
    }
    let query = TrendQuery {
        benchmark: q.benchmark.ok_or_else(|| missing("benchmark"))?,
        machine: q.machine.ok_or_else(|| missing("machine"))?,
        metric: q.metric.ok_or_else(|| missing("metric"))?,
        param: q.param,
        history: q.history,
    };
    let (body, content_type) = match shape {
        Shape::Text => (Body::Text, "text/plain; charset=utf-8"),
        Shape::Svg => (Body::Svg, "image/svg+xml"),
        Shape::Document => (Body::Document(trend_document), "text/html; charset=utf-8"),
        _ => (Body::Json, "application/json"),
    };
    let start = std::time::Instant::now();
    let rendered = state.trend_body(query, body, width, height).await?;
    // The server's own time, for browsers' developer tools and the benchmark (a client's clock
    // also counts the transfer).
    let total = ms(start);
    let timing = match rendered.trend_ms {
        None => format!("cache;desc=hit, total;dur={total:.2}"),
        Some(computed) => format!(
            "trend;dur={computed:.2}, render;dur={:.2}, total;dur={total:.2}",
            total - computed
        ),
    };
    let headers = [
        (header::CONTENT_TYPE, content_type.to_owned()),
        (SERVER_TIMING, timing),
    ];
    Ok((headers, rendered.body).into_response())
}

/// `machines=` or `params=`: several trends on one commit axis, as a JSON array of trends or one
/// SVG chart (an ASCII chart shows one trend).
async fn across(state: AppState, q: TrendParams, shape: Shape) -> ApiResult<Response> {
    let missing = |name: &str| ApiError::BadRequest(format!("{name} is required"));
    let benchmark = q.benchmark.ok_or_else(|| missing("benchmark"))?;
    let metric = q.metric.ok_or_else(|| missing("metric"))?;
    let across = match (q.machines, q.params) {
        (Some(_), Some(_)) => {
            return Err(ApiError::BadRequest(
                "give machines= or params=, not both: one chart shows one metric across machines or across params".into(),
            ))
        }
        (Some(machines), None) => Across::Machines {
            machines: machines.labels().to_vec(),
            param: q.param,
        },
        (None, Some(params)) => {
            Across::params(q.machine.ok_or_else(|| missing("machine"))?, &params)?
        }
        (None, None) => unreachable!("across() is called with machines= or params="),
    };
    let by_machine = matches!(across, Across::Machines { .. });
    let trends = state
        .trends_across(&benchmark, &metric, across, q.history.as_ref())
        .await?;
    match shape {
        Shape::Svg => {
            let svg = state.trends_svg(trends, by_machine).await?;
            Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
        }
        Shape::Text | Shape::Document => Err(ApiError::BadRequest(
            "an ASCII chart or an HTML report shows one trend: ask for one machine and one param"
                .into(),
        )),
        _ => {
            let all: Vec<&app::trend::Trend> = trends.iter().map(|t| &**t).collect();
            Ok(Json(all).into_response())
        }
    }
}

const SERVER_TIMING: header::HeaderName = header::HeaderName::from_static("server-timing");

/// Milliseconds since `start`.
fn ms(start: std::time::Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct HistoryParams {
    #[serde(default, deserialize_with = "empty_as_none")]
    repo: Option<Label>,
    #[serde(default, deserialize_with = "empty_as_none")]
    branch: Option<Label>,
}

/// `POST /api/v1/commits?repo=R&branch=B` with `git log --format='%H %ct %s'` or `git rev-list`.
#[utoipa::path(post, path = "/commits", tag = "trends", security(("bearer" = ["upload"]), ("session" = ["upload"])), params(HistoryParams),
    request_body(content = String, content_type = "text/plain", description = "`git log --format='%H %ct %s'` or `git rev-list` output, newest first; or `git log --format='commit %H %P%n%ct %s' --name-only` (`perfline history --with-files`), which also says which commits are merges and what each touches",
        example = "3ff6cde8462c4a5f0d3a4d1e9c1a8d0b6c2f8e11 1700000060 net: fix the thing\n"),
    responses((status = 201, description = "Stored: `{repo, branch, commits}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn commits(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiQuery(q): ApiQuery<HistoryParams>,
    body: Bytes,
) -> ApiResult<Response> {
    // The same names a trend's `history=repo/branch` takes.
    let name = HistoryName::new(
        q.repo.as_ref().map_or("linux", Label::as_str),
        q.branch.as_ref().map_or("master", Label::as_str),
    )
    .map_err(ApiError::BadRequest)?;
    let (repo, branch) = (name.repo(), name.branch());
    let text = std::str::from_utf8(&body).map_err(|_| {
        ApiError::Unprocessable(crate::ingest::IngestError::new(
            "the commit list is not UTF-8 text",
        ))
    })?;
    let (commits, details) = parse_git_log_detailed(text).map_err(|e| e.in_file("request body"))?;
    let n = state
        .store
        .put_history_detailed(repo, branch, &commits, &details, principal.actor())
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({"repo": repo, "branch": branch, "commits": n})),
    )
        .into_response())
}

/// `POST /api/v1/bisect` with the output of `git bisect log`.
#[utoipa::path(post, path = "/bisect", tag = "trends", security(("bearer" = ["mark"]), ("session" = ["mark"])),
    request_body(content = String, content_type = "text/plain", description = "The output of `git bisect log`"),
    responses((status = 200, description = "The marks set: `{marks: [{sha, mark}], first_bad, moved_alerts}` (the alert summaries moved to the first bad commit)", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn bisect(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    body: Bytes,
) -> ApiResult<Response> {
    let text = std::str::from_utf8(&body).map_err(|_| {
        ApiError::Unprocessable(crate::ingest::IngestError::new(
            "the bisect log is not UTF-8 text",
        ))
    })?;
    let (marks, first_bad) = parse_bisect_log(text).map_err(|e| e.in_file("request body"))?;
    state
        .store
        .set_commit_marks(&marks, first_bad.as_deref(), principal.actor())
        .await?;
    // The bisection found the culprit: the summaries of its step move to it.
    let moved = match &first_bad {
        Some(culprit) => {
            let moved = state
                .store
                .move_to_culprit(culprit, principal.actor(), None)
                .await?;
            if !moved.is_empty() {
                state.wakers.events.notify_one();
            }
            moved
        }
        None => Vec::new(),
    };
    let list: Vec<serde_json::Value> = marks
        .iter()
        .map(|(sha, m)| serde_json::json!({"sha": sha, "mark": m.as_str()}))
        .collect();
    Ok(
        Json(serde_json::json!({"marks": list, "first_bad": first_bad, "moved_alerts": moved}))
            .into_response(),
    )
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"mark": "bad"}))]
pub struct MarkBody {
    /// `good`, `bad`, `skip`, or null to clear.
    mark: Option<String>,
}

/// `POST /api/v1/runs/{id}/mark` with `{"mark": "good" | "bad" | "skip" | null}`.
#[utoipa::path(post, path = "/runs/{id}/mark", tag = "trends", security(("bearer" = ["mark"]), ("session" = ["mark"])), params(("id" = i64, Path, description = "The run")), request_body = MarkBody,
    responses((status = 200, description = "`{run, mark}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn mark_run(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<i64>,
    ApiJson(body): ApiJson<MarkBody>,
) -> ApiResult<Response> {
    let mark = match body.mark.as_deref() {
        None => None,
        Some(m) => Some(Mark::parse(m).ok_or_else(|| {
            ApiError::BadRequest(format!("mark must be good, bad, skip or null, not {m:?}"))
        })?),
    };
    if !state
        .store
        .set_run_mark(id, mark, principal.actor())
        .await?
    {
        return Err(ApiError::NotFound(format!("no run {id}")));
    }
    Ok(Json(serde_json::json!({"run": id, "mark": mark})).into_response())
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ReportParams {
    benchmark: Label,
    machine: Label,
    base: CommitSha,
    bad: CommitSha,
    /// `text` (default) or `html` (a self-contained file).
    format: Option<String>,
}

/// The offline report of a trend: the chart, the ASCII chart, the change points.
fn trend_document(t: &app::trend::Trend, svg: String, width: usize, height: usize) -> String {
    use crate::http::offline::{document, Part};
    let q = &t.query;
    let facts = vec![
        ("benchmark".to_owned(), q.benchmark.to_string()),
        ("machine".to_owned(), q.machine.to_string()),
        ("metric".to_owned(), t.title()),
        ("ordered by".to_owned(), t.order.clone()),
        ("commits".to_owned(), t.points.len().to_string()),
    ];
    let changes: String = t.change_points.iter().map(change_line).collect();
    document(
        &format!("{} of {} on {}", t.title(), q.benchmark, q.machine),
        &[
            Part::Facts(facts),
            Part::Svg(svg),
            Part::Heading("Change points".into()),
            Part::Pre(if changes.is_empty() {
                "none\n".into()
            } else {
                changes
            }),
            Part::Heading("As text".into()),
            Part::Pre(t.ascii(width, height)),
        ],
    )
}

/// `GET /api/v1/report?benchmark=B&machine=M&base=SHA&bad=SHA`: the LKP-style mail body.
#[utoipa::path(get, path = "/report", tag = "trends", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(ReportParams),
    responses((status = 200, description = "The LKP robot's regression mail for `bad` against `base`",
        content((String = "text/plain"), (String = "text/html"))), crate::http::api::openapi::Errors))]
pub async fn report(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<ReportParams>,
    axum::extract::OriginalUri(uri): axum::extract::OriginalUri,
) -> ApiResult<Response> {
    let html = match q.format.as_deref() {
        None | Some("text" | "txt") => false,
        Some("html") => true,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "format must be text or html, not {other:?}"
            )))
        }
    };
    let link = format!("{}{uri}", super::origin(&state, &headers));
    let query = app::trend::ReportQuery {
        benchmark: q.benchmark,
        machine: q.machine,
        base: q.base,
        bad: q.bad,
    };
    let text = state.report(&query, &link).await?;
    if html {
        use crate::http::offline::{document, Part};
        let doc = document(
            &format!(
                "{} on {}: {} against {}",
                query.benchmark, query.machine, query.bad, query.base
            ),
            &[Part::Pre(text), Part::Link("This report".into(), link)],
        );
        return Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], doc).into_response());
    }
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}
