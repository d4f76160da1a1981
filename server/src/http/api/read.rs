// SPDX-License-Identifier: GPL-3.0-or-later
//! Read endpoints.

use axum::extract::{Extension, Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use app::label::{empty_as_none, Bounded, Label};
use app::types::{RunDetail, RunPage, UploadDetail};

use super::extract::ApiQuery;

use crate::http::auth::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::store::RunFilter;
use crate::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RunsQuery {
    #[serde(default, deserialize_with = "empty_as_none")]
    benchmark: Option<Label>,
    #[serde(default, deserialize_with = "empty_as_none")]
    machine: Option<Label>,
    #[serde(default, deserialize_with = "empty_as_none")]
    kernel: Option<Label>,
    upload: Option<i64>,
    limit: Option<Bounded<1, 1000>>,
    /// Far beyond any real store: SQLite walks the rows it skips.
    offset: Option<Bounded<0, 100_000_000>>,
}

#[utoipa::path(get, path = "/runs", tag = "runs", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(RunsQuery),
    responses((status = 200, description = "Runs, newest first", body = RunPage), crate::http::api::openapi::Errors))]
pub async fn runs(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<RunsQuery>,
) -> ApiResult<Json<RunPage>> {
    let limit = q.limit.map_or(50, Bounded::get);
    let offset = q.offset.map_or(0, Bounded::get);
    let filter = RunFilter {
        benchmark: q.benchmark.map(String::from),
        machine: q.machine.map(String::from),
        kernel: q.kernel.map(String::from),
        upload: q.upload,
    };
    let (runs, total) = state.store.list_runs(&filter, limit, offset).await?;
    Ok(Json(RunPage {
        runs,
        total,
        limit,
        offset,
    }))
}

#[utoipa::path(get, path = "/runs/{id}", tag = "runs", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = i64, Path, description = "The run")),
    responses((status = 200, description = "The run with its series", body = RunDetail), crate::http::api::openapi::Errors))]
pub async fn run(State(state): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<RunDetail>> {
    state
        .run_detail(id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no run {id}")))
}

#[utoipa::path(get, path = "/uploads/{id}", tag = "uploads", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = i64, Path, description = "The upload")),
    responses((status = 200, description = "The upload: its files and runs", body = UploadDetail), crate::http::api::openapi::Errors))]
pub async fn upload(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> ApiResult<Json<UploadDetail>> {
    state
        .upload_detail(id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no upload {id}")))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RawQuery {
    /// Which file of the upload (default 0).
    file: Option<Bounded<0, 10_000>>,
}

/// The exact bytes of an uploaded file.
#[utoipa::path(get, path = "/uploads/{id}/raw", tag = "uploads", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = i64, Path, description = "The upload"), RawQuery),
    responses((status = 200, description = "The exact bytes of the file", content_type = "application/octet-stream", body = Vec<u8>), crate::http::api::openapi::Errors))]
pub async fn upload_raw(
    State(state): State<AppState>,
    Path(id): Path<i64>,
    ApiQuery(q): ApiQuery<RawQuery>,
) -> ApiResult<Response> {
    let idx = q.file.map_or(0, Bounded::get);
    let file = state
        .store
        .upload_file(id, idx)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no file {idx} in upload {id}")))?;
    let name = file
        .name
        .unwrap_or_else(|| format!("upload-{id}-{idx}.{}", file.format));
    // Only safe characters go into the header; the bytes themselves are untouched.
    let safe: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.+".contains(*c))
        .collect();
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{safe}\""),
            ),
        ],
        file.raw,
    )
        .into_response())
}

#[utoipa::path(get, path = "/benchmarks", tag = "runs", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "Benchmarks with run counts, machines and kernels", body = Vec<app::types::BenchmarkSummary>), crate::http::api::openapi::Errors))]
pub async fn benchmarks(
    State(state): State<AppState>,
) -> ApiResult<Json<Vec<app::types::BenchmarkSummary>>> {
    Ok(Json(state.store.benchmarks().await?))
}

#[utoipa::path(get, path = "/machines", tag = "runs", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "Machines with run counts", body = Vec<app::types::NamedCount>), crate::http::api::openapi::Errors))]
pub async fn machines(
    State(state): State<AppState>,
) -> ApiResult<Json<Vec<app::types::NamedCount>>> {
    Ok(Json(state.store.machines().await?))
}

#[utoipa::path(get, path = "/kernels", tag = "runs", security((), ("bearer" = ["read"]), ("session" = ["read"])),
    responses((status = 200, description = "Kernels with run counts", body = Vec<app::types::NamedCount>), crate::http::api::openapi::Errors))]
pub async fn kernels(
    State(state): State<AppState>,
) -> ApiResult<Json<Vec<app::types::NamedCount>>> {
    Ok(Json(state.store.kernels().await?))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    limit: Option<Bounded<1, 1000>>,
    offset: Option<Bounded<0, 100_000_000>>,
    /// Lines whose actor contains this (any case).
    actor: Option<String>,
    /// Lines whose action contains this (any case).
    action: Option<String>,
    /// Lines whose target contains this (any case).
    target: Option<String>,
    /// Lines from this day on (`YYYY-MM-DD`, UTC).
    since: Option<String>,
    /// Lines up to this day, inclusive (`YYYY-MM-DD`, UTC).
    until: Option<String>,
}

/// `GET /api/v1/audit` (admin): who wrote what and when, newest first, searched as the
/// console's audit page searches it.
#[utoipa::path(get, path = "/audit", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])), params(AuditQuery),
    responses((status = 200, description = "Who wrote what and when, newest first: `{entries, total, limit, offset}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn audit(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<AuditQuery>,
) -> ApiResult<Json<serde_json::Value>> {
    let limit = q.limit.map_or(100, Bounded::get);
    let offset = q.offset.map_or(0, Bounded::get);
    let search = app::console::AuditSearch {
        actor: q.actor.unwrap_or_default(),
        action: q.action.unwrap_or_default(),
        target: q.target.unwrap_or_default(),
        since: q.since.unwrap_or_default(),
        until: q.until.unwrap_or_default(),
        offset,
    };
    let filter = crate::store::AuditFilter::of(&search).map_err(ApiError::BadRequest)?;
    let (entries, total) = state.store.audit_search(&filter, limit, offset).await?;
    Ok(Json(serde_json::json!({
        "entries": entries,
        "total": total,
        "limit": limit,
        "offset": offset,
    })))
}

/// `DELETE /api/v1/uploads/{id}` (admin): the upload, its raw files, runs, series and their
/// trend summaries, in one transaction; permalinks over its runs then answer 410.
#[utoipa::path(delete, path = "/uploads/{id}", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])), params(("id" = i64, Path, description = "The upload")),
    responses((status = 200, description = "Deleted: `{deleted, runs, series}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn delete_upload(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<i64>,
) -> ApiResult<Json<serde_json::Value>> {
    let deleted = state
        .store
        .delete_upload(id, principal.actor())
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no upload {id}")))?;
    Ok(Json(serde_json::json!({
        "deleted": id,
        "runs": deleted.runs,
        "series": deleted.series,
    })))
}

/// A correction of a run's names (`PATCH /api/v1/runs/{id}`): any of these.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"machine": "lkp-bdw-de1", "kernel": "6.7.0-rc1", "commit": "", "tags": "governor=performance"}))]
pub struct RunPatch {
    machine: Option<Label>,
    kernel: Option<Label>,
    /// A commit, or `""` to remove it.
    commit: Option<String>,
    /// `k=v,k=v`, replacing the run's tags (`""` removes them).
    tags: Option<String>,
}

/// `PATCH /api/v1/runs/{id}` (admin): corrects a run's machine, kernel, commit or tags, with
/// its trends rebuilt; permalinks that pinned it answer 410 from then on.
#[utoipa::path(patch, path = "/runs/{id}", tag = "admin", security(("bearer" = ["admin"]), ("session" = ["admin"])), params(("id" = i64, Path, description = "The run")), request_body = RunPatch,
    responses((status = 200, description = "Corrected: `{changed, run}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn correct_run(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<i64>,
    super::extract::ApiJson(patch): super::extract::ApiJson<RunPatch>,
) -> ApiResult<Json<serde_json::Value>> {
    let correction = crate::store::Correction::parse(
        patch.machine.as_ref().map(Label::as_str),
        patch.kernel.as_ref().map(Label::as_str),
        patch.commit.as_deref(),
        patch.tags.as_deref(),
    )
    .map_err(|e| match e.field.as_deref() {
        Some("tags" | "commit") => ApiError::Unprocessable(e),
        _ => ApiError::BadRequest(e.message),
    })?;
    let changed = state
        .store
        .correct_run(id, &correction, principal.actor())
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no run {id}")))?;
    let run = state
        .run_detail(id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no run {id}")))?;
    Ok(Json(serde_json::json!({"changed": changed, "run": run})))
}
