// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel test robot's report mails (issue 56): the answer to a mail upload
//! ([`mails_answer`]), `GET /api/v1/reports` and `GET /api/v1/reports/{id}` (JSON, or with
//! `format=text` the section's tables as the mail prints them). The work is
//! `services::reports`.

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use crate::http::error::{ApiError, ApiResult};
use crate::services::reports::MailsStored;
use crate::AppState;
use app::reports::ReportSearch;

/// The answer to an upload of mails: 201 when something new was stored, else 200; JSON, or
/// text for `Accept: text/plain` (`perfline upload`).
pub fn mails_answer(answer: MailsStored, text: bool) -> Response {
    let status = if answer.new > 0 {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    if text {
        return (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text_summary(&answer),
        )
            .into_response();
    }
    (status, Json(answer)).into_response()
}

/// The answer to `perfline upload` (`Accept: text/plain`): a line per report, a line per
/// refused mail.
pub fn text_summary(a: &MailsStored) -> String {
    let mut out = format!("{} LKP report(s), {} new\n", a.reports.len(), a.new);
    for r in &a.reports {
        out.push_str(&format!(
            "  report {}  {} {} of {}  {} on {}  {}..{}  {}\n",
            r.id, r.change, r.kind, r.kpi, r.testcase, r.machine, r.base, r.commit, r.lore
        ));
    }
    for r in &a.refused {
        out.push_str(&format!("  mail {} refused: {}\n", r.mail, r.reason));
    }
    if !a.plot_uploads.is_empty() {
        let ids: Vec<String> = a.plot_uploads.iter().map(i64::to_string).collect();
        out.push_str(&format!(
            "  plots' samples as runs: upload(s) {}\n",
            ids.join(", ")
        ));
    }
    for n in &a.notes {
        out.push_str(&format!("  {n}\n"));
    }
    out
}

/// `GET /api/v1/reports`: the stored robot reports, newest first.
#[utoipa::path(get, path = "/reports", tag = "reports", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(ReportSearch),
    responses((status = 200, description = "`{reports: [...], more}`", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn list(
    State(state): State<AppState>,
    Query(q): Query<ReportSearch>,
) -> ApiResult<Json<serde_json::Value>> {
    let search = q.checked().map_err(ApiError::BadRequest)?;
    let list = state.report_list(search).await?;
    Ok(Json(
        serde_json::json!({ "reports": list.reports, "more": list.more }),
    ))
}

/// `GET /api/v1/reports/{id}` options.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ShowQuery {
    /// `text`: the section's tables as the mail prints them.
    pub format: Option<String>,
}

/// `GET /api/v1/reports/{id}`: one report section, as JSON (its cells) or as text.
#[utoipa::path(get, path = "/reports/{id}", tag = "reports", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = i64, Path, description = "The report section"), ShowQuery),
    responses((status = 200, description = "The report, or its text", body = serde_json::Value), crate::http::api::openapi::Errors))]
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<i64>,
    Query(q): Query<ShowQuery>,
) -> ApiResult<Response> {
    let (entry, stored) = state.lkp_report(id).await?;
    match q.format.as_deref() {
        Some("text") => Ok((
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            stored.section.text(),
        )
            .into_response()),
        None | Some("json") => Ok(Json(serde_json::json!({
            "report": entry,
            "parameters": stored.parameters,
            "notes": stored.notes,
            "commit_subject": stored.commit_subject,
            "section": stored.section,
            "plots": stored.plots,
        }))
        .into_response()),
        Some(other) => Err(ApiError::BadRequest(format!(
            "format must be json or text, not {other:?}"
        ))),
    }
}
