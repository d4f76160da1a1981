//! `GET /api/v1/work?machine=M`: the runs Perfline asks of a machine's robot: reruns that
//! confirm an alert, commits a bisection tests (`perfline work` runs them).

use axum::extract::State;
use axum::Json;
use serde::Deserialize;

use app::alerts::WorkList;
use app::label::{Bounded, Label};

use super::extract::ApiQuery;

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
}

#[utoipa::path(get, path = "/work", tag = "alerts", security(("bearer" = ["upload"]), ("session" = ["upload"])), params(WorkQuery),
    responses((status = 200, description = "The pending requests for the machine, oldest first: upload `runs` runs of `benchmark` built from `commit` (`request=ID` optional)", body = WorkList), crate::http::api::openapi::Errors))]
pub async fn work(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<WorkQuery>,
) -> ApiResult<Json<WorkList>> {
    let limit = q.limit.map_or(100, Bounded::get);
    Ok(Json(WorkList {
        requests: state.store.pending_work(q.machine.as_str(), limit).await?,
    }))
}
