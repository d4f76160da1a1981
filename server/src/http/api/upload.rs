// SPDX-License-Identifier: GPL-3.0-or-later
//! `POST /api/v1/upload`: multipart form data or a raw body with query parameters.
//!
//! The body size is checked against the limit from Content-Length before anything is read, and
//! again while reading (for chunked bodies). What happens to the files read is the upload
//! service's ([`crate::services::upload`]); this answers JSON, text or, to a browser's form, a
//! redirect to the upload's page.

use axum::body::Body;
use axum::extract::{FromRequest, Multipart, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Json;

use app::types::UploadResponse;

use crate::http::error::{ApiError, ApiResult};
use crate::ingest::{IngestError, UploadMeta};
use crate::services::upload::{UploadFile, Uploaded};
use crate::AppState;

struct Received {
    meta: UploadMeta,
    files: Vec<UploadFile>,
    /// `format=lkp-mail`: the files are the robot's report mails.
    mail: bool,
}

/// What an upload became: runs, or the robot's reports (`services::reports`).
enum Handled {
    Runs(Uploaded),
    Mails(Response),
}

/// The format name of the robot's report mails (`format=lkp-mail`).
const MAIL_FORMAT: &str = "lkp-mail";

/// How the client wants the answer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reply {
    Json,
    Text,
    /// A browser form submission: redirect to the upload's page, or show an HTML error.
    Html,
}

fn reply_kind(headers: &HeaderMap) -> Reply {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if accept.contains("application/json") {
        Reply::Json
    } else if accept.contains("text/html") {
        Reply::Html
    } else if accept.contains("text/plain") {
        Reply::Text
    } else {
        Reply::Json
    }
}

#[utoipa::path(post, path = "/upload", tag = "uploads", security(("bearer" = ["upload"]), ("session" = ["upload"])),
    params(
        ("benchmark" = Option<String>, Query, description = "The benchmark, when the files do not name it"),
        ("machine" = Option<String>, Query, description = "The machine"),
        ("kernel" = Option<String>, Query, description = "The kernel version"),
        ("commit" = Option<String>, Query, description = "The commit the kernel was built from"),
        ("commit_time" = Option<i64>, Query, description = "The commit's time, seconds since the epoch"),
        ("mark" = Option<String>, Query, description = "`good`, `bad` or `skip` for every run"),
        ("calibration" = Option<String>, Query, description = "An A/A upload: every run the same kernel and setup (reboots between), named; see `GET /api/v1/calibration`"),
        ("bisection" = Option<i64>, Query, description = "The bisection these runs are for: fills in the benchmark and machine left out (and the kernel: the commit's 12 digits)"),
        ("run" = Option<String>, Query, description = "A name for this run (a robot's fresh one per run, the same on a retry): the same bytes under another name are a new run, not a duplicate"),
        ("request" = Option<i64>, Query, description = "The work request (`GET /api/v1/work`) these runs answer: fills in the benchmark, machine and commit left out"),
        ("tags" = Option<String>, Query, description = "`k=v,k=v`"),
        ("direction" = Option<String>, Query, description = "`METRIC:higher`, `METRIC:lower` or `METRIC:unknown`, repeatable (at most 1000): which way is better for a metric of the upload, over what Perfline knows"),
        ("format" = Option<String>, Query, description = "`csv`, `json`, `netperf`, `hackbench`, `sysbench`, `lkp`, `lkp-stats`, `lkp-matrix`, `mmtests` (detected when absent)"),
    ),
    request_body(description = "Files as multipart (`file` parts, the fields above as parts too), or one file as the raw body",
        content((crate::http::api::openapi::MultipartUpload = "multipart/form-data"), (Vec<u8> = "application/octet-stream"), (String = "text/csv"), (String = "text/plain")),
        example = "benchmark,metric,param,iteration,value,unit,direction\nnetperf-tcp,Throughput,64,1,1771.31,10^6bits/sec,higher\n"),
    responses(
        (status = 201, description = "Stored", content((UploadResponse = "application/json"), (String = "text/plain"))),
        (status = 200, description = "The same bytes and metadata were stored before: the existing runs", content((UploadResponse = "application/json"), (String = "text/plain"))),
        crate::http::api::openapi::Errors))]
pub async fn upload(
    State(state): State<AppState>,
    axum::Extension(principal): axum::Extension<crate::http::auth::Principal>,
    query: Query<Vec<(String, String)>>,
    headers: HeaderMap,
    request: axum::extract::Request,
) -> Response {
    let reply = reply_kind(&headers);
    match handle(&state, &principal, query.0, &headers, request, reply).await {
        Ok(Handled::Runs(uploaded)) => respond(reply, uploaded, &super::origin(&state, &headers)),
        Ok(Handled::Mails(answer)) => answer,
        Err(e) if reply == Reply::Html => html_error(e, &state.leptos.output_name),
        Err(e) => e.into_response(),
    }
}

/// Marks are the `mark` scope's: an upload that sets one needs it beside `upload`.
fn check_mark(principal: &crate::http::auth::Principal, meta: &UploadMeta) -> ApiResult<()> {
    use crate::http::auth::Scope;
    if meta.mark.is_some() && !principal.may(Scope::Mark) {
        return Err(ApiError::Forbidden(format!(
            "'{}' may upload but not set bisect marks (mark=): that needs the mark scope",
            principal.actor()
        )));
    }
    Ok(())
}

async fn handle(
    state: &AppState,
    principal: &crate::http::auth::Principal,
    query: Vec<(String, String)>,
    headers: &HeaderMap,
    request: axum::extract::Request,
    reply: Reply,
) -> ApiResult<Handled> {
    let limit = state.config.max_upload;
    if let Some(len) = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
    {
        if len > limit as u64 {
            return Err(ApiError::TooLarge { limit });
        }
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let received = if content_type.starts_with("multipart/form-data") {
        if !query.is_empty() {
            return Err(ApiError::BadRequest(
                "give the fields as form fields in a multipart upload, not as query parameters"
                    .into(),
            ));
        }
        let received = read_multipart(request, limit).await?;
        check_mark(principal, &received.meta)?;
        received
    } else {
        refuse_media_type(&content_type)?;
        let mut meta = UploadMeta::default();
        let mut mail = false;
        for (name, value) in &query {
            if name == "format" && value.trim().eq_ignore_ascii_case(MAIL_FORMAT) {
                mail = true;
                continue;
            }
            meta.set(name, value)?;
        }
        // Before the body is read: a refused mark costs no upload.
        check_mark(principal, &meta)?;
        let body = axum::body::to_bytes(request.into_body(), limit)
            .await
            .map_err(|e| body_error(e, limit))?;
        Received {
            meta,
            files: vec![(None, body)],
            mail,
        }
    };
    let Received { meta, files, mail } = received;
    // The robot's report mails are reports, not runs: by `format=lkp-mail`, or when every
    // file reads as one and no other format was asked for.
    if mail
        || (meta.format.is_none()
            && files
                .iter()
                .all(|(_, b)| crate::services::reports::is_mail(b)))
    {
        let bytes: Vec<bytes::Bytes> = files.into_iter().map(|(_, b)| b).collect();
        let may_mark = principal.may(crate::http::auth::Scope::Mark);
        let stored = state
            .store_mails(&bytes, principal.actor(), may_mark)
            .await?;
        return Ok(Handled::Mails(super::reports::mails_answer(
            stored,
            reply == Reply::Text,
        )));
    }
    Ok(Handled::Runs(
        state
            .upload(meta, files, principal.actor(), reply == Reply::Json)
            .await?,
    ))
}

/// Raw bodies may be any text or archive; media that cannot be results are refused.
fn refuse_media_type(content_type: &str) -> ApiResult<()> {
    let refused = ["image/", "audio/", "video/", "font/", "multipart/"];
    if refused.iter().any(|p| content_type.starts_with(p)) {
        return Err(ApiError::UnsupportedMediaType(format!(
            "Content-Type '{content_type}' is not a results file; send multipart/form-data with file parts, or the file itself as the body"
        )));
    }
    Ok(())
}

/// Whether reading the body failed because it stalled longer than the body timeout.
fn stalled(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(e);
    while let Some(e) = next {
        if e.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        next = e.source();
    }
    false
}

fn stalled_error() -> ApiError {
    ApiError::Timeout("the request body stalled: no data within the body timeout".into())
}

fn body_error(e: axum::Error, limit: usize) -> ApiError {
    if stalled(&e) {
        return stalled_error();
    }
    // `to_bytes` fails with a length-limit error when the body is longer than allowed.
    let too_large = std::error::Error::source(&e)
        .is_some_and(<dyn std::error::Error + 'static>::is::<http_body_util::LengthLimitError>)
        || e.to_string().contains("length limit");
    if too_large {
        ApiError::TooLarge { limit }
    } else {
        ApiError::BadRequest(format!("could not read the request body: {e}"))
    }
}

async fn read_multipart(request: axum::extract::Request, limit: usize) -> ApiResult<Received> {
    let mut multipart = Multipart::from_request(request, &())
        .await
        .map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let mut meta = UploadMeta::default();
    let mut files = Vec::new();
    let mut mail = false;
    let multipart_error = |e: axum::extract::multipart::MultipartError| {
        if stalled(&e) {
            stalled_error()
        } else if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::TooLarge { limit }
        } else {
            ApiError::BadRequest(format!("malformed multipart body: {}", e.body_text()))
        }
    };
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or("").to_owned();
        if name == "file" {
            let file_name = field
                .file_name()
                .filter(|n| !n.is_empty())
                .map(str::to_owned);
            let bytes = field.bytes().await.map_err(multipart_error)?;
            // A browser sends an empty, nameless part when no file was chosen.
            if file_name.is_none() && bytes.is_empty() {
                continue;
            }
            files.push((file_name, bytes));
        } else {
            let text = field.text().await.map_err(multipart_error)?;
            if name == "format" && text.trim().eq_ignore_ascii_case(MAIL_FORMAT) {
                mail = true;
                continue;
            }
            meta.set(&name, &text)?;
        }
    }
    if files.is_empty() {
        return Err(
            IngestError::field("file", "no file: add at least one part named 'file'").into(),
        );
    }
    Ok(Received { meta, files, mail })
}

fn respond(reply: Reply, uploaded: Uploaded, origin: &str) -> Response {
    let Uploaded {
        created,
        answer: body,
        json,
    } = uploaded;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    match reply {
        Reply::Json => {
            let location = body.upload.url.clone();
            match json {
                Some(json) => (
                    status,
                    [
                        (header::LOCATION, location),
                        (header::CONTENT_TYPE, "application/json".to_owned()),
                    ],
                    json,
                )
                    .into_response(),
                // (An answer the service could not write as JSON is written by `Json`, which
                // says why.)
                None => (status, [(header::LOCATION, location)], Json(body)).into_response(),
            }
        }
        Reply::Html => Redirect::to(&body.upload.page).into_response(),
        Reply::Text => (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text_summary(&body, origin),
        )
            .into_response(),
    }
}

/// The short human answer for `Accept: text/plain`; links start with `origin`.
pub fn text_summary(r: &UploadResponse, origin: &str) -> String {
    let mut out = format!(
        "{} upload {}: {} run(s), {} sample(s)\n",
        if r.created { "stored" } else { "already had" },
        r.upload.id,
        r.upload.runs,
        r.upload.samples
    );
    for run in &r.runs {
        out.push_str(&format!(
            "  run {}  {}  {}  {}  {} samples  {origin}{}\n",
            run.id, run.benchmark, run.machine, run.kernel, run.samples, run.page
        ));
    }
    out.push_str(&app::types::directories_lines(&r.directories));
    out.push_str(&app::types::skipped_line(&r.skipped));
    out
}

/// The answer to a failed browser form upload: the message, escaped, and a way back.
fn html_error(e: ApiError, site: &str) -> Response {
    let status = e.status();
    let message = crate::http::offline::escape(&e.to_string());
    let body = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Upload refused</title>\
         <link rel=\"stylesheet\" href=\"/pkg/{site}.css\"></head><body><main><h1>Upload refused</h1>\
         <p class=\"error\" id=\"upload-error\">{message}</p><p>Nothing was stored. <a href=\"/upload\">Back to the upload form</a></p></main></body></html>"
    );
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        Body::from(body),
    )
        .into_response()
}
