// SPDX-License-Identifier: GPL-3.0-or-later
//! Alerts over HTTP: the list and one summary (read), triage (`mark`), the rules (`admin` to
//! change), and the Atom feed.

use axum::extract::{Extension, Path, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;

use app::alerts::{AlertFilter, AlertPage, AlertPatch, AlertSummary};

use super::extract::{ApiJson, ApiQuery};
use crate::http::auth::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::services::alerts::detect::{Rule, MAX_RULES};
use crate::AppState;

/// `GET /api/v1/alerts?status&benchmark&machine&direction&since&limit&offset`: summaries,
/// newest first.
#[utoipa::path(get, path = "/alerts", tag = "alerts", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(AlertFilter),
    responses((status = 200, description = "Alert summaries, newest first", body = AlertPage), crate::http::api::openapi::Errors))]
pub async fn list(
    State(state): State<AppState>,
    ApiQuery(filter): ApiQuery<AlertFilter>,
) -> ApiResult<Json<AlertPage>> {
    let filter = crate::services::alerts::parse_filter(&filter)?;
    Ok(Json(state.store.alert_summaries(&filter).await?))
}

/// `GET /api/v1/alerts/{id}`: one summary with its alerts, every event, and the other metrics
/// that changed at its step (`supporting`).
#[utoipa::path(get, path = "/alerts/{id}", tag = "alerts", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = i64, Path, description = "The summary")),
    responses((status = 200, description = "One summary with its alerts and every triage event", body = AlertSummary), crate::http::api::openapi::Errors))]
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> ApiResult<Json<AlertSummary>> {
    state
        .alert_summary(id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no alert summary {id}")))
}

/// `PATCH /api/v1/alerts/{id}` `{"status", "note", "assignee", "fixed_by"}` (scope `mark`).
#[utoipa::path(patch, path = "/alerts/{id}", tag = "alerts", security(("bearer" = ["mark"]), ("session" = ["mark"])), params(("id" = i64, Path, description = "The summary")), request_body = AlertPatch,
    responses((status = 200, description = "The summary after triage", body = AlertSummary), crate::http::api::openapi::Errors))]
pub async fn patch(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<i64>,
    ApiJson(patch): ApiJson<AlertPatch>,
) -> ApiResult<Json<AlertSummary>> {
    Ok(Json(state.triage(id, &patch, principal.actor()).await?))
}

#[derive(Debug, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"rules": [{"benchmark": "netperf*", "metric": "Throughput*", "min_change_pct": 5.0}, {"benchmark": "hackbench*", "ignore": true}]}))]
pub struct Rules {
    pub rules: Vec<Rule>,
}

/// `GET /api/v1/alert-rules`: the rules in order, and the defaults.
#[utoipa::path(get, path = "/alert-rules", tag = "alerts", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "`{rules, defaults}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn rules(State(state): State<AppState>) -> ApiResult<Json<serde_json::Value>> {
    use crate::services::alerts::detect::*;
    let rules = state.store.alert_rules().await?;
    Ok(Json(serde_json::json!({
        "rules": rules,
        "defaults": {
            "min_change_pct": DEFAULT_MIN_CHANGE_PCT, "alpha": DEFAULT_ALPHA,
            "min_before": DEFAULT_MIN_BEFORE, "min_after": DEFAULT_MIN_AFTER,
            "min_local_t": DEFAULT_MIN_LOCAL_T,
        },
    })))
}

/// `PUT /api/v1/alert-rules` `{"rules": [...]}` (admin): replaces every rule; the detector
/// uses them from its next series on.
#[utoipa::path(put, path = "/alert-rules", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])), request_body = Rules,
    responses((status = 200, description = "The rules now in force", body = Rules), crate::http::api::openapi::Errors))]
pub async fn put_rules(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiJson(body): ApiJson<Rules>,
) -> ApiResult<Json<Rules>> {
    if body.rules.len() > MAX_RULES {
        return Err(ApiError::BadRequest(format!("at most {MAX_RULES} rules")));
    }
    for (i, r) in body.rules.iter().enumerate() {
        r.check()
            .map_err(|e| ApiError::BadRequest(format!("rule {}: {e}", i + 1)))?;
    }
    state
        .store
        .replace_alert_rules(&body.rules, principal.actor())
        .await?;
    Ok(Json(body))
}

/// `GET /alerts.atom`: the newest 50 summaries as an Atom feed.
#[utoipa::path(get, path = "/alerts.atom", tag = "alerts", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "The newest 50 summaries as an Atom feed", content_type = "application/atom+xml", body = String), crate::http::api::openapi::Errors))]
pub async fn atom(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    let feed = state.alerts_feed(&super::origin(&state, &headers)).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/atom+xml; charset=utf-8")],
        feed,
    )
        .into_response())
}
