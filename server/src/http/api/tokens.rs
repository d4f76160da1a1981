// SPDX-License-Identifier: GPL-3.0-or-later
//! Token management over HTTP (admin): list, create (the token is in the answer, once),
//! revoke. The same as `perfline token ...` on the command line.

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use app::label::Label;

use super::extract::ApiJson;
use crate::http::auth::{issue_token, Principal, Scopes};
use crate::http::error::{ApiError, ApiResult};
use crate::AppState;

/// `GET /api/v1/tokens`: every token, without the tokens themselves.
#[utoipa::path(get, path = "/tokens", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])),
    responses((status = 200, description = "`{tokens: [...]}`: every token, never the tokens themselves", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn list(State(state): State<AppState>) -> ApiResult<Json<serde_json::Value>> {
    let tokens = state.store.list_tokens().await?;
    Ok(Json(serde_json::json!({ "tokens": tokens })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "robot-lkp-1", "scopes": "upload,mark", "expires_days": 90}))]
pub struct NewToken {
    name: Label,
    /// `upload,mark`
    scopes: String,
    expires_days: Option<u32>,
}

/// `POST /api/v1/tokens` `{"name", "scopes", "expires_days"?}`: 201 with the token, shown
/// this once.
#[utoipa::path(post, path = "/tokens", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])), request_body = NewToken,
    responses((status = 201, description = "`{id, name, scopes, token}`: the token, shown this once", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn create(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiJson(new): ApiJson<NewToken>,
) -> ApiResult<Response> {
    let scopes = Scopes::parse(&new.scopes).map_err(ApiError::BadRequest)?;
    let created = issue_token(
        &state.store,
        new.name.as_str(),
        &scopes,
        new.expires_days,
        principal.actor(),
    )
    .await?;
    let Some((id, token)) = created else {
        return Err(ApiError::Conflict(format!(
            "a token named '{}' exists; revoke it or choose another name",
            new.name
        )));
    };
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({
            "id": id, "name": new.name, "scopes": scopes.to_string(), "token": token,
        })),
    )
        .into_response())
}

/// `DELETE /api/v1/tokens/{name or id}`: revokes it (its sessions end with it).
#[utoipa::path(delete, path = "/tokens/{name}", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])), params(("name" = String, Path, description = "The token's name or id")),
    responses((status = 200, description = "`{revoked}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn revoke(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(name): Path<String>,
) -> ApiResult<Json<serde_json::Value>> {
    if state.store.revoke_token(&name, principal.actor()).await? {
        Ok(Json(serde_json::json!({ "revoked": name })))
    } else {
        Err(ApiError::NotFound(format!(
            "no live token named or numbered '{name}'"
        )))
    }
}
