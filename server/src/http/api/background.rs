// SPDX-License-Identifier: GPL-3.0-or-later
//! The background tasks for an admin (`services::background`): how each stands, what they set
//! aside (quarantined) and why, and releasing an item so that its task tries it again.

use axum::extract::{Extension, Path, State};
use axum::Json;

use crate::http::auth::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::services::background;
use crate::AppState;

/// `GET /api/v1/background` (admin): every background task's state in this server and the
/// items they set aside.
#[utoipa::path(get, path = "/background", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])),
    responses((status = 200, description = "`{healthy, tasks: [{name, state: idle|ok|failing|restarting, passes, failures, restarts, last_ok, last_failure: {at, what, error}}], quarantined: [{id, task, kind, item_id, what, error, at}], quarantined_total}`: the tasks as this server ran them, and every item set aside (oldest first, at most 1000)", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn show(State(state): State<AppState>) -> ApiResult<Json<serde_json::Value>> {
    let quarantined = state.store.quarantined(background::LISTED).await?;
    background::recount(&state).await;
    Ok(Json(serde_json::json!({
        "healthy": state.background.degraded().is_none(),
        "tasks": state.background.tasks(),
        "quarantined": quarantined,
        "quarantined_total": state.background.quarantined(),
    })))
}

/// `DELETE /api/v1/background/quarantine/{id}` (admin): releases an item set aside; its task
/// tries it again at once (a series is queued for the detector again).
#[utoipa::path(delete, path = "/background/quarantine/{id}", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])), params(("id" = i64, Path, description = "The quarantined item, as `GET /api/v1/background` lists it")),
    responses((status = 200, description = "`{released: {id, task, kind, item_id, what, error, at}}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn release(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<i64>,
) -> ApiResult<Json<serde_json::Value>> {
    let Some(released) = state
        .store
        .release_quarantined(id, principal.actor())
        .await?
    else {
        return Err(ApiError::NotFound(format!("no quarantined item {id}")));
    };
    tracing::info!(id, task = %released.task, item = %released.what, by = principal.actor(), "quarantined item released");
    background::recount(&state).await;
    state.store.alert_jobs_queued().notify_one();
    state.wakers.events.notify_one();
    state.wakers.outbox.notify_one();
    Ok(Json(serde_json::json!({ "released": released })))
}
