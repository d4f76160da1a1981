// SPDX-License-Identifier: GPL-3.0-or-later
//! Bisections Perfline drives (`services::bisection`): start one (`mark`), list and read them,
//! ask what to run next (`upload`: a robot's question, which hands the runs out), read its
//! `git bisect log`, cancel it (`mark`).

use axum::extract::{Extension, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use app::bisection::{Bisection, BisectionList, NewBisection, NextRun};
use app::label::Bounded;

use super::extract::{ApiJson, ApiQuery};
use crate::http::auth::Principal;
use crate::http::error::ApiResult;
use crate::AppState;

/// `POST /api/v1/bisections` `{"alert": id}` or `{"benchmark", "machine", "metric", "param"?,
/// "history": "repo/branch", "good": sha, "bad": sha, "max_runs"?}`.
#[utoipa::path(post, path = "/bisections", tag = "bisections", security(("bearer" = ["mark"]), ("session" = ["mark"])), request_body = NewBisection,
    responses((status = 201, description = "The bisection, running", body = Bisection), crate::http::api::openapi::Errors))]
pub async fn start(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiJson(new): ApiJson<NewBisection>,
) -> ApiResult<Response> {
    let b = state.start_bisection(&new, principal.actor()).await?;
    Ok((StatusCode::CREATED, Json(b)).into_response())
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// The most bisections answered, newest first (default 50).
    limit: Option<Bounded<1, 200>>,
}

/// `GET /api/v1/bisections`: the newest bisections.
#[utoipa::path(get, path = "/bisections", tag = "bisections", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(ListQuery),
    responses((status = 200, description = "Bisections, newest first", body = BisectionList), crate::http::api::openapi::Errors))]
pub async fn list(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> ApiResult<Json<BisectionList>> {
    let limit = q.limit.map_or(50, Bounded::get);
    Ok(Json(BisectionList {
        bisections: state.bisection_list(limit).await?,
    }))
}

/// `GET /api/v1/bisections/{id}`: one bisection with its tested commits and its audit trail.
#[utoipa::path(get, path = "/bisections/{id}", tag = "bisections", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = i64, Path, description = "The bisection")),
    responses((status = 200, description = "The bisection", body = Bisection), crate::http::api::openapi::Errors))]
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> ApiResult<Json<Bisection>> {
    Ok(Json(state.bisection_view(id).await?))
}

/// `DELETE /api/v1/bisections/{id}`: cancels it.
#[utoipa::path(delete, path = "/bisections/{id}", tag = "bisections", security(("bearer" = ["mark"]), ("session" = ["mark"])), params(("id" = i64, Path, description = "The bisection")),
    responses((status = 200, description = "The bisection, cancelled (or as it ended)", body = Bisection), crate::http::api::openapi::Errors))]
pub async fn cancel(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<i64>,
) -> ApiResult<Json<Bisection>> {
    Ok(Json(state.cancel_bisection(id, principal.actor()).await?))
}

/// `POST /api/v1/bisections/{id}/next`: takes the commit to run and how many runs it needs
/// now, leased to the robot (`--lease-secs`; renewed by `POST /api/v1/work/{request}/renew`):
/// taking work is a write, never a GET.
#[utoipa::path(post, path = "/bisections/{id}/next", tag = "bisections", security(("bearer" = ["upload"]), ("session" = ["upload"])), params(("id" = i64, Path, description = "The bisection"), NextQuery),
    responses((status = 200, description = "`{state, commit, runs}`: `commit` null while every commit handed out is still being run, or when not running", body = NextRun), crate::http::api::openapi::Errors))]
pub async fn next(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<i64>,
    ApiQuery(q): ApiQuery<NextQuery>,
) -> ApiResult<Json<NextRun>> {
    let robot = q
        .robot
        .map_or_else(|| principal.actor().to_owned(), |r| r.as_str().to_owned());
    Ok(Json(state.next_run(id, &robot).await?))
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct NextQuery {
    /// The robot taking the runs (default: the token's or session's name).
    robot: Option<app::label::Label>,
}

/// `GET /api/v1/bisections/{id}/log`: a `git bisect log` that `git bisect replay` accepts.
#[utoipa::path(get, path = "/bisections/{id}/log", tag = "bisections", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = i64, Path, description = "The bisection")),
    responses((status = 200, description = "The bisection as a git bisect log", content_type = "text/plain", body = String), crate::http::api::openapi::Errors))]
pub async fn log(State(state): State<AppState>, Path(id): Path<i64>) -> ApiResult<Response> {
    let text = state.bisection_log(id).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}
