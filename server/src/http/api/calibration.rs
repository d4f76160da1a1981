// SPDX-License-Identifier: GPL-3.0-or-later
//! `GET /api/v1/calibration`: the series with A/A data (`calibration=NAME` uploads), their
//! noise and the false-positive rates measured on them (`services::calibration`).

use axum::extract::State;
use axum::Json;
use serde::Deserialize;

use app::label::{empty_as_none, Bounded, Label};
use app::noise::Calibration;

use super::extract::ApiQuery;

use crate::http::error::ApiResult;
use crate::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CalibrationQuery {
    #[serde(default, deserialize_with = "empty_as_none")]
    benchmark: Option<Label>,
    #[serde(default, deserialize_with = "empty_as_none")]
    machine: Option<Label>,
    /// The most series answered, noisiest first (default 100).
    limit: Option<Bounded<1, 1000>>,
}

#[utoipa::path(get, path = "/calibration", tag = "calibration", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(CalibrationQuery),
    responses((status = 200, description = "Series with A/A runs, noisiest first: within- and between-run CVs, and how often mmtests' significance and the alert rule fire on A/A data (fractions)", body = Calibration), crate::http::api::openapi::Errors))]
pub async fn calibration(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<CalibrationQuery>,
) -> ApiResult<Json<Calibration>> {
    let limit = q.limit.map_or(100, Bounded::get) as usize;
    Ok(Json(
        state
            .calibration(
                q.benchmark.as_ref().map(Label::as_str),
                q.machine.as_ref().map(Label::as_str),
                limit,
            )
            .await?,
    ))
}
