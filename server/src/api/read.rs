//! Read endpoints.

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use app::types::{RunDetail, RunPage, UploadDetail};

use crate::error::{ApiError, ApiResult};
use crate::store::RunFilter;
use crate::AppState;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunsQuery {
    benchmark: Option<String>,
    machine: Option<String>,
    kernel: Option<String>,
    upload: Option<i64>,
    limit: Option<i64>,
    offset: Option<i64>,
}

pub async fn runs(
    State(state): State<AppState>,
    query: Result<Query<RunsQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<RunPage>> {
    let Query(q) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::BadRequest(
            "limit must be between 1 and 1000".into(),
        ));
    }
    let offset = q.offset.unwrap_or(0);
    if offset < 0 {
        return Err(ApiError::BadRequest("offset must be ≥ 0".into()));
    }
    let filter = RunFilter {
        benchmark: q.benchmark,
        machine: q.machine,
        kernel: q.kernel,
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

pub async fn run(State(state): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<RunDetail>> {
    state
        .run_detail(id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no run {id}")))
}

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
pub struct RawQuery {
    file: Option<i64>,
}

/// The exact bytes of an uploaded file.
pub async fn upload_raw(
    State(state): State<AppState>,
    Path(id): Path<i64>,
    query: Result<Query<RawQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let Query(q) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let idx = q.file.unwrap_or(0);
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

pub async fn benchmarks(
    State(state): State<AppState>,
) -> ApiResult<Json<Vec<app::types::BenchmarkSummary>>> {
    Ok(Json(state.store.benchmarks().await?))
}

pub async fn machines(
    State(state): State<AppState>,
) -> ApiResult<Json<Vec<app::types::NamedCount>>> {
    Ok(Json(state.store.machines().await?))
}

pub async fn kernels(
    State(state): State<AppState>,
) -> ApiResult<Json<Vec<app::types::NamedCount>>> {
    Ok(Json(state.store.kernels().await?))
}
