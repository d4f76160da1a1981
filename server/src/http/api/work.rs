// SPDX-License-Identifier: GPL-3.0-or-later
//! `GET /api/v1/work?machine=M`: the runs Perfline asks of a machine's robot: reruns that
//! confirm an alert, commits a bisection tests (`perfline work` runs them).

use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;

use app::alerts::{Claim, Lease, LeaseHolder, RobotList, WorkList};
use app::label::{Bounded, Label};

use super::extract::{ApiJson, ApiQuery};

use crate::http::error::ApiResult;
use crate::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct WorkQuery {
    /// The machine the robot runs on.
    machine: Label,
    /// The most requests answered, oldest first (default 100).
    limit: Option<Bounded<1, 1000>>,
    /// The robot asking (listed by `GET /api/v1/robots` with when it was seen).
    robot: Option<Label>,
}

#[utoipa::path(get, path = "/work", tag = "alerts", security(("bearer" = ["upload"]), ("session" = ["upload"])), params(WorkQuery),
    responses((status = 200, description = "The pending requests for the machine, oldest first: upload `runs` runs of `benchmark` built from `commit` (`request=ID` optional)", body = WorkList), crate::http::api::openapi::Errors))]
pub async fn work(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<WorkQuery>,
) -> ApiResult<Json<WorkList>> {
    let limit = q.limit.map_or(100, Bounded::get);
    if let Some(robot) = &q.robot {
        state
            .robot_asked(robot.as_str(), q.machine.as_str())
            .await?;
    }
    Ok(Json(WorkList {
        requests: state.store.pending_work(q.machine.as_str(), limit).await?,
    }))
}

/// `POST /api/v1/work/{id}/claim`: takes up to `runs` runs of a request for `robot`, leased
/// for `--lease-secs`: renew while running, give back a run that failed.
#[utoipa::path(post, path = "/work/{id}/claim", tag = "alerts", security(("bearer" = ["upload"]), ("session" = ["upload"])), params(("id" = i64, Path, description = "The work request")), request_body = Claim,
    responses((status = 200, description = "The runs taken (`runs` 0: every run is in or out with a robot whose lease holds)", body = Lease), crate::http::api::openapi::Errors))]
pub async fn claim(
    State(state): State<AppState>,
    Path(id): Path<i64>,
    ApiJson(c): ApiJson<Claim>,
) -> ApiResult<Json<Lease>> {
    Ok(Json(state.claim_work(id, c.robot.as_str(), c.runs).await?))
}

/// `POST /api/v1/work/{id}/renew`: extends the robot's lease while its command runs.
#[utoipa::path(post, path = "/work/{id}/renew", tag = "alerts", security(("bearer" = ["upload"]), ("session" = ["upload"])), params(("id" = i64, Path, description = "The work request")), request_body = LeaseHolder,
    responses((status = 200, description = "The lease's new end (`until` 0: the robot no longer holds it; what it uploads still counts)", body = Lease), crate::http::api::openapi::Errors))]
pub async fn renew(
    State(state): State<AppState>,
    Path(id): Path<i64>,
    ApiJson(h): ApiJson<LeaseHolder>,
) -> ApiResult<Json<Lease>> {
    Ok(Json(state.renew_work(id, h.robot.as_str()).await?))
}

/// `POST /api/v1/work/{id}/release`: gives back a run whose command failed (`reason`); it is
/// handed out again at once, and the request and its bisection's page say what failed.
#[utoipa::path(post, path = "/work/{id}/release", tag = "alerts", security(("bearer" = ["upload"]), ("session" = ["upload"])), params(("id" = i64, Path, description = "The work request")), request_body = LeaseHolder,
    responses((status = 204, description = "Given back"), crate::http::api::openapi::Errors))]
pub async fn release(
    State(state): State<AppState>,
    Path(id): Path<i64>,
    ApiJson(h): ApiJson<LeaseHolder>,
) -> ApiResult<axum::http::StatusCode> {
    let reason = h.reason.as_deref().unwrap_or("failed");
    state
        .release_work(id, h.robot.as_str(), h.runs.unwrap_or(1), reason)
        .await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

/// `GET /api/v1/robots`: the robots seen, the most recent first; `silent` when unseen for
/// three leases.
#[utoipa::path(get, path = "/robots", tag = "alerts", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "The robots seen", body = RobotList), crate::http::api::openapi::Errors))]
pub async fn robots(State(state): State<AppState>) -> ApiResult<Json<RobotList>> {
    Ok(Json(state.robot_list().await?))
}
