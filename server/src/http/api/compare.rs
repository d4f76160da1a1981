// SPDX-License-Identifier: GPL-3.0-or-later
//! `GET /api/v1/compare` and `GET /c/{id}`: one comparison in five shapes (JSON, mmtests text,
//! LKP text, CSV of the samples, SVG chart), chosen by `format=` or the Accept header; and a
//! whole tree's report (`benchmark=*`), a page of at most `MAX_TREE_CELLS` cells rendered as
//! heavy work, saying what it left out and where the rest is.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, Uri};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use std::sync::Arc;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use app::label::{empty_as_none, Bounded, Kernels, Label, Metric, PermalinkId};
use app::mmtests::mmtests_text;
use app::types::CompareQuery;

use super::extract::ApiQuery;

use crate::http::auth::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::services::compare::{Asker, Body, Computed, TreeReport, View, MAX_TREE_CELLS};
use crate::AppState;

/// The shapes a comparison comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Html,
    Json,
    Text,
    Csv,
    Svg,
    /// `format=html`: a self-contained HTML file (`crate::http::offline`).
    Document,
}

impl Shape {
    fn parse(format: &str) -> Result<Shape, ApiError> {
        match format {
            "json" => Ok(Shape::Json),
            "text" | "txt" => Ok(Shape::Text),
            "csv" => Ok(Shape::Csv),
            "svg" => Ok(Shape::Svg),
            "html" => Ok(Shape::Document),
            other => Err(ApiError::BadRequest(format!(
                "format must be json, text, csv, svg or html, not {other:?}"
            ))),
        }
    }

    fn of_media(media: &str) -> Option<Shape> {
        match media {
            "text/html" | "application/xhtml+xml" => Some(Shape::Html),
            "application/json" => Some(Shape::Json),
            "text/plain" => Some(Shape::Text),
            "text/csv" => Some(Shape::Csv),
            "image/svg+xml" => Some(Shape::Svg),
            _ => None,
        }
    }
}

/// The shape the Accept header prefers (highest q, then first listed), or `default` for `*/*`,
/// a missing header, or nothing we serve.
pub fn negotiate(headers: &HeaderMap, default: Shape) -> Shape {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return default;
    };
    let mut best: Option<(f32, Shape)> = None;
    for part in accept.split(',') {
        let mut pieces = part.split(';');
        let media = pieces.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = pieces
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        let shape = if media == "*/*" {
            Some(default)
        } else {
            Shape::of_media(&media)
        };
        if let Some(shape) = shape {
            if q > 0.0 && best.is_none_or(|(bq, _)| q > bq) {
                best = Some((q, shape));
            }
        }
    }
    best.map_or(default, |(_, s)| s)
}

/// How to show a comparison: shape, text style and precision.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ViewParams {
    /// `json`, `text`, `csv`, `svg` or `html`; without it the `Accept` header decides.
    format: Option<String>,
    /// `mmtests` (default) or `lkp`.
    style: Option<String>,
    /// LKP style: show every row, not only the changed ones.
    all: Option<String>,
    /// mmtests' `--print-ratio` view: text in its layout, JSON as ratios per cell.
    ratio: Option<String>,
    /// Decimal places of the mmtests text (0..=10).
    #[param(value_type = Option<Bounded<0, 10>>)]
    precision: Option<Precision>,
    /// The metric the chart shows (default: the first).
    #[serde(default, deserialize_with = "empty_as_none")]
    chart: Option<Metric>,
    /// The change run-count advice is about, in percent (default 2).
    detect: Option<f64>,
    /// `1`: the text adds a line under the table for each row that needs more runs.
    advice: Option<String>,
}

/// Decimal places of the mmtests text.
type Precision = Bounded<0, 10>;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CompareParams {
    /// The benchmark, or `*` for every benchmark the baseline ran on the machine (an mmtests
    /// tree's whole report: text, JSON or HTML).
    #[serde(default, deserialize_with = "empty_as_none")]
    benchmark: Option<Label>,
    #[serde(default, deserialize_with = "empty_as_none")]
    machine: Option<Label>,
    /// Kernels, the baseline first (or `columns`).
    kernels: Option<Kernels>,
    /// Columns across machines or configurations instead of kernels: `6.1.0@box-a`,
    /// `governor=performance`, `6.1.0@box-a:governor=performance`, `commit=3ff6cde846`
    /// (comma-separated).
    columns: Option<Kernels>,
    /// Commits instead of kernels, the baseline first (full or abbreviated shas): a robot
    /// uploads many commits under one kernel version. The same as
    /// `columns=commit=BASE,commit=HEAD`.
    commits: Option<Kernels>,
    #[serde(default, deserialize_with = "empty_as_none")]
    metric: Option<Metric>,
    /// `json`, `text`, `csv`, `svg` or `html`; without it the `Accept` header decides.
    format: Option<String>,
    /// `mmtests` (default) or `lkp`, for text.
    style: Option<String>,
    /// `1`: LKP style shows every row.
    all: Option<String>,
    /// `1`: mmtests' `--print-ratio` view.
    ratio: Option<String>,
    /// Decimal places of the mmtests text.
    #[param(value_type = Option<Bounded<0, 10>>)]
    precision: Option<Precision>,
    /// The metric the SVG chart shows.
    #[serde(default, deserialize_with = "empty_as_none")]
    chart: Option<Metric>,
    /// The change run-count advice is about, in percent (0.01..=100; default 2).
    detect: Option<f64>,
    /// `1`: the mmtests text adds a line under the table for each row that needs more runs.
    advice: Option<String>,
    /// `benchmark=*` only: the page of the tree starting at this benchmark (0-based, in the
    /// tree's order); a report holds at most 20,000 cells and its answer names the next page.
    offset: Option<usize>,
}

impl CompareParams {
    /// The question asked (kernels, columns across machines or configurations, or commits)
    /// and how to show its answer.
    fn split(self) -> ApiResult<(CompareQuery, ViewParams)> {
        let missing = |name: &str| {
            ApiError::BadRequest(format!(
            "{name} is required: /api/v1/compare?benchmark=B&machine=M&kernels=K0,K1 (K0 is the baseline)"
        ))
        };
        let columns = match (self.columns, self.commits) {
            (Some(_), Some(_)) => {
                return Err(ApiError::BadRequest(
                    "give columns=... or commits=BASE,HEAD, not both".into(),
                ))
            }
            (None, Some(commits)) => Some(
                Kernels::try_from(
                    commits
                        .into_labels()
                        .iter()
                        .map(|c| format!("commit={c}"))
                        .collect::<Vec<_>>()
                        .join(","),
                )
                .map_err(|e| ApiError::BadRequest(format!("commits {e}")))?,
            ),
            (columns, None) => columns,
        };
        let query = match (self.kernels, columns) {
            (Some(_), Some(_)) => {
                return Err(ApiError::BadRequest(
                    "give kernels=K0,K1, or columns=K0@M0,K1@M1 or commits=BASE,HEAD, not both"
                        .into(),
                ))
            }
            (None, Some(columns)) => CompareQuery::new(
                self.benchmark.ok_or_else(|| missing("benchmark"))?,
                self.machine,
                columns.into_labels(),
                self.metric,
                true,
            ),
            (kernels, None) => CompareQuery::new(
                self.benchmark.ok_or_else(|| missing("benchmark"))?,
                Some(self.machine.ok_or_else(|| missing("machine"))?),
                kernels.ok_or_else(|| missing("kernels"))?.into_labels(),
                self.metric,
                false,
            ),
        }
        .map_err(ApiError::BadRequest)?;
        let view = ViewParams {
            format: self.format,
            style: self.style,
            all: self.all,
            ratio: self.ratio,
            precision: self.precision,
            chart: self.chart,
            detect: self.detect,
            advice: self.advice,
        };
        Ok((query, view))
    }
}

fn flag(name: &str, v: &Option<String>) -> Result<bool, ApiError> {
    match v.as_deref() {
        None | Some("0" | "false" | "no") => Ok(false),
        Some("" | "1" | "true" | "yes") => Ok(true),
        Some(other) => Err(ApiError::BadRequest(format!(
            "{name} must be 1 or 0, not {other:?}"
        ))),
    }
}

/// Whether the text is LKP's (`style=lkp`) rather than mmtests' (the default).
fn text_style(view: &ViewParams) -> Result<bool, ApiError> {
    match view.style.as_deref() {
        None | Some("mmtests") => Ok(false),
        Some("lkp") => Ok(true),
        Some(other) => Err(ApiError::BadRequest(format!(
            "style must be mmtests or lkp, not {other:?}"
        ))),
    }
}

/// The change advice is about, as a fraction (`detect=2` is 0.02).
fn detect(view: &ViewParams) -> Result<f64, ApiError> {
    match view.detect {
        None => Ok(app::noise::DEFAULT_DETECT),
        Some(d) if d.is_finite() && (0.01..=100.0).contains(&d) => Ok(d / 100.0),
        Some(d) => Err(ApiError::BadRequest(format!(
            "detect is a change in percent from 0.01 to 100, not {d}"
        ))),
    }
}

fn precision(p: Option<Precision>) -> Option<usize> {
    p.map(|p| p.get() as usize)
}

#[utoipa::path(get, path = "/compare", tag = "compare", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(CompareParams),
    responses((status = 200, description = "The comparison (mmtests' statistics and significance), in the shape asked for", content((crate::http::api::openapi::CompareAnswer = "application/json"), (String = "text/plain"), (String = "text/csv"), (String = "image/svg+xml"), (String = "text/html"))),
        crate::http::api::openapi::Errors))]
pub async fn compare(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    headers: HeaderMap,
    uri: Uri,
    ApiQuery(q): ApiQuery<CompareParams>,
) -> ApiResult<Response> {
    let offset = q.offset;
    let (query, view) = q.split()?;
    let shape = shape_of(&view, &headers, Shape::Json)?;
    let asker = principal.asker();
    if query.benchmark.as_str() == "*" {
        let tree = Tree {
            offset: offset.unwrap_or(0),
            query: uri.query().unwrap_or_default(),
            asker,
        };
        return whole_tree(&state, query, shape, &view, &headers, tree).await;
    }
    if offset.is_some() {
        return Err(ApiError::BadRequest(
            "offset pages a whole-tree report (benchmark=*); one benchmark's comparison has no pages".into(),
        ));
    }
    let computed = state
        .compare_live(query, precision(view.precision), asker)
        .await?;
    respond(&state, computed, shape, &view, &headers).await
}

/// What a whole-tree request asks besides the comparison: its page, its own query string (to
/// name the next page), who asks.
struct Tree<'a> {
    offset: usize,
    query: &'a str,
    asker: Asker,
}

/// The query string `query` without the pairs of `drop`, and with `key=value` at its end.
fn with_pair(query: &str, drop: &[&str], key: &str, value: &str) -> String {
    let mut pairs: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !drop.contains(&p.split('=').next().unwrap_or("")))
        .collect();
    let last = format!("{key}={value}");
    pairs.push(&last);
    pairs.join("&")
}

/// Where a page of a whole tree stopped: the benchmarks it left for later, the next page, and
/// one benchmark's comparison (`benchmark=NAME`).
struct Rest {
    benchmarks: Vec<String>,
    offset: usize,
    next: String,
    alone: String,
}

impl Rest {
    /// The sentence every shape says it in.
    fn text(&self, report: &TreeReport) -> String {
        format!(
            "This report stopped at {MAX_TREE_CELLS} cells (rows × kernels): it shows {} of the tree's {} benchmarks from offset {}. Left out for the next page: {}.\nNext page: {}\nOne benchmark: {}\n",
            report.sections.len(),
            report.benchmarks,
            report.offset,
            self.benchmarks.join(", "),
            self.next,
            self.alone,
        )
    }
}

/// A whole tree's report as JSON: the comparisons (or their ratios) borrowed, serialised
/// straight into the body.
#[derive(Serialize)]
struct TreeJson<'a> {
    query: &'a CompareQuery,
    sections: Vec<SectionJson<'a>>,
    left_out: Vec<LeftOut<'a>>,
    page: PageJson,
    more: Option<MoreJson<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum SectionJson<'a> {
    Comparison {
        benchmark: &'a Label,
        comparison: &'a app::compare::Comparison,
    },
    Ratios {
        benchmark: &'a Label,
        permalink: &'a Option<String>,
        ratios: Vec<app::mmtests::RatioTable>,
    },
}

#[derive(Serialize)]
struct LeftOut<'a> {
    benchmark: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct PageJson {
    offset: usize,
    benchmarks: usize,
    sections: usize,
    cells: usize,
    max_cells: usize,
}

#[derive(Serialize)]
struct MoreJson<'a> {
    offset: usize,
    benchmarks: &'a [String],
    next: &'a str,
    alone: &'a str,
}

/// `benchmark=*`: every benchmark the baseline ran on the machine, as compare-kernels.sh
/// reports a tree: each benchmark's table under its name, in the order the tree ran them.
async fn whole_tree(
    state: &AppState,
    query: CompareQuery,
    shape: Shape,
    view: &ViewParams,
    headers: &HeaderMap,
    tree: Tree<'_>,
) -> ApiResult<Response> {
    if text_style(view)? {
        return Err(ApiError::BadRequest(
            "a whole-tree report (benchmark=*) is mmtests' text; style=lkp compares one benchmark"
                .into(),
        ));
    }
    if matches!(shape, Shape::Csv | Shape::Svg) {
        return Err(ApiError::BadRequest(
            "a whole-tree report (benchmark=*) is text, JSON or an offline HTML document (format=text|json|html)".into(),
        ));
    }
    let ratio = flag("ratio", &view.ratio)?;
    let origin = super::origin(state, headers);
    let report = state
        .compare_tree(query, precision(view.precision), tree.offset, tree.asker)
        .await?;
    let rest = report.rest.as_ref().map(|(offset, benchmarks)| Rest {
        benchmarks: benchmarks.clone(),
        offset: *offset,
        next: format!(
            "{origin}/api/v1/compare?{}",
            with_pair(tree.query, &["offset"], "offset", &offset.to_string())
        ),
        alone: format!(
            "{origin}/api/v1/compare?{}",
            with_pair(tree.query, &["offset", "benchmark"], "benchmark", "NAME")
        ),
    });
    // Rendering (and the JSON's serialisation) is heavy work: within `--max-heavy`, off the
    // async workers, its size bounded by the page's cells.
    let (content_type, body) = state
        .heavy
        .run(move || render_tree(&report, shape, ratio, &origin, rest.as_ref()))
        .await??;
    Ok(([(header::CONTENT_TYPE, content_type)], body).into_response())
}

/// A page of a whole tree in `shape` (JSON, text or the offline HTML document).
fn render_tree(
    report: &TreeReport,
    shape: Shape,
    ratio: bool,
    origin: &str,
    rest: Option<&Rest>,
) -> ApiResult<(&'static str, Bytes)> {
    let page = TreePage {
        report,
        ratio,
        origin,
        rest,
    };
    match shape {
        Shape::Json | Shape::Html => Ok(("application/json", page.json()?)),
        Shape::Text => Ok(("text/plain; charset=utf-8", page.text().into())),
        Shape::Document => Ok(("text/html; charset=utf-8", page.document().into())),
        Shape::Csv | Shape::Svg => Err(ApiError::BadRequest(
            "a whole-tree report (benchmark=*) is text, JSON or an offline HTML document (format=text|json|html)".into(),
        )),
    }
}

/// A page of a whole tree and how to show it.
struct TreePage<'a> {
    report: &'a TreeReport,
    ratio: bool,
    origin: &'a str,
    rest: Option<&'a Rest>,
}

impl TreePage<'_> {
    /// A section's table: mmtests', or its ratio view.
    fn table(&self, c: &app::compare::Comparison) -> String {
        if self.ratio {
            app::mmtests::ratio_text(c)
        } else {
            mmtests_text(c)
        }
    }

    /// A section's permalink.
    fn link(&self, c: &app::compare::Comparison) -> String {
        c.permalink
            .as_ref()
            .map(|id| format!("{}/c/{id}", self.origin))
            .unwrap_or_default()
    }

    fn json(&self) -> ApiResult<Bytes> {
        let TreePage {
            report,
            ratio,
            rest,
            ..
        } = *self;
        let answer = TreeJson {
            query: &report.query,
            sections: report
                .sections
                .iter()
                .map(|c| {
                    let c = &c.comparison;
                    if ratio {
                        SectionJson::Ratios {
                            benchmark: &c.query.benchmark,
                            permalink: &c.permalink,
                            ratios: app::mmtests::ratios(c),
                        }
                    } else {
                        SectionJson::Comparison {
                            benchmark: &c.query.benchmark,
                            comparison: c,
                        }
                    }
                })
                .collect(),
            left_out: report
                .left_out
                .iter()
                .map(|(b, why)| LeftOut {
                    benchmark: b,
                    reason: why,
                })
                .collect(),
            page: PageJson {
                offset: report.offset,
                benchmarks: report.benchmarks,
                sections: report.sections.len(),
                cells: report.cells,
                max_cells: MAX_TREE_CELLS,
            },
            more: rest.map(|r| MoreJson {
                offset: r.offset,
                benchmarks: &r.benchmarks,
                next: &r.next,
                alone: &r.alone,
            }),
        };
        Ok(serde_json::to_vec(&answer)
            .map_err(anyhow::Error::from)?
            .into())
    }

    /// As compare-kernels.sh reports a tree (a blank line, the benchmark's name, its table, a
    /// blank line), then the permalinks and what was left out.
    fn text(&self) -> String {
        let TreePage { report, rest, .. } = *self;
        let mut text = String::new();
        for c in &report.sections {
            let c = &c.comparison;
            text.push_str(&format!("\n{}\n{}\n", c.query.benchmark, self.table(c)));
        }
        text.push_str("\nPermalinks:\n");
        for c in &report.sections {
            let c = &c.comparison;
            text.push_str(&format!("  {}: {}\n", c.query.benchmark, self.link(c)));
        }
        for (b, why) in &report.left_out {
            text.push_str(&format!("Left out {b}: {why}\n"));
        }
        if let Some(rest) = rest {
            text.push('\n');
            text.push_str(&rest.text(report));
        }
        text
    }

    /// The offline HTML document: the whole tree's page (`/compare?benchmark=*`), the same
    /// view rendered to one self-contained file.
    fn document(&self) -> String {
        let page = crate::http::web::tree_report(self.report);
        let title = app::tree_title(&page);
        let body = app::tree_html(page, self.origin.to_owned());
        crate::http::offline::page_document(&title, &body)
    }
}

/// `GET /c/{id}` for everything but HTML (which the page renders).
#[utoipa::path(get, path = "/c/{id}", tag = "compare", security((), ("bearer" = ["read"]), ("session" = ["read"])), params(("id" = String, Path, description = "The permalink"), ViewParams),
    responses((status = 200, description = "The same comparison over the same runs, forever (a browser gets the page)", content((crate::http::api::openapi::CompareAnswer = "application/json"), (String = "text/plain"), (String = "text/csv"), (String = "image/svg+xml"), (String = "text/html"))),
        (status = 404, description = "No such permalink: the JSON envelope, or for a browser the page saying so", content((crate::http::error::ErrorEnvelope = "application/json"), (String = "text/html"))),
        crate::http::api::openapi::Errors))]
pub async fn permalink(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    ApiQuery(view): ApiQuery<ViewParams>,
) -> ApiResult<Response> {
    let shape = shape_of(&view, &headers, Shape::Json)?;
    // An id Perfline would never hand out names no permalink.
    let id = PermalinkId::parse(&id).map_err(ApiError::NotFound)?;
    let computed = state
        .compare_permalink(&id, precision(view.precision))
        .await?;
    respond(&state, computed, shape, &view, &headers).await
}

/// The shape a request asks for: `format=` wins over Accept. Checks the rest of the view
/// options too, so that a bad option is refused before anything is computed or stored.
pub fn shape_of(view: &ViewParams, headers: &HeaderMap, default: Shape) -> Result<Shape, ApiError> {
    text_style(view)?;
    flag("all", &view.all)?;
    flag("ratio", &view.ratio)?;
    flag("advice", &view.advice)?;
    detect(view)?;
    match &view.format {
        Some(f) => Shape::parse(f),
        None => Ok(negotiate(headers, default)),
    }
}

/// Whether a `/c/{id}` request wants a document rather than the page.
pub fn wants_document(query: Option<&str>, headers: &HeaderMap) -> bool {
    let has_format = query.is_some_and(|q| {
        q.split('&')
            .any(|kv| kv.split('=').next() == Some("format"))
    });
    has_format || negotiate(headers, Shape::Html) != Shape::Html
}

/// The answer in `shape`, as the service renders it (once per comparison and options).
async fn respond(
    state: &AppState,
    computed: Arc<Computed>,
    shape: Shape,
    view: &ViewParams,
    headers: &HeaderMap,
) -> ApiResult<Response> {
    let view = checked_view(view)?;
    let origin = super::origin(state, headers);
    let (body, content_type) = match shape {
        Shape::Json | Shape::Html => (Body::Json, "application/json"),
        Shape::Text => (Body::Text, "text/plain; charset=utf-8"),
        Shape::Csv => (Body::Csv, "text/csv; charset=utf-8"),
        Shape::Svg => (Body::Svg, "image/svg+xml"),
        Shape::Document => (
            Body::Document(comparison_document),
            "text/html; charset=utf-8",
        ),
    };
    let bytes = state
        .comparison_body(&computed, body, &view, &origin)
        .await?;
    let mut response = ([(header::CONTENT_TYPE, content_type)], bytes).into_response();
    if shape == Shape::Csv {
        response.headers_mut().insert(
            header::CONTENT_DISPOSITION,
            axum::http::HeaderValue::from_static("attachment; filename=\"comparison-samples.csv\""),
        );
    }
    Ok(response)
}

/// The view options of a request, checked, as the service takes them.
fn checked_view(view: &ViewParams) -> ApiResult<View> {
    Ok(View {
        lkp: text_style(view)?,
        all: flag("all", &view.all)?,
        ratio: flag("ratio", &view.ratio)?,
        advice: flag("advice", &view.advice)?,
        detect: detect(view)?,
        chart: view.chart.clone(),
    })
}

/// The offline report of a comparison: what was compared, the chart, mmtests' table and
/// LKP's, and the permalink.
fn comparison_document(c: &app::compare::Comparison, origin: &str, svg: String) -> String {
    use crate::http::offline::{document, Part};
    let q = &c.query;
    let mut facts = vec![
        ("benchmark".to_owned(), q.benchmark.to_string()),
        ("machine".to_owned(), q.machine_name().to_owned()),
        (
            "baseline".to_owned(),
            q.kernels
                .first()
                .map(ToString::to_string)
                .unwrap_or_default(),
        ),
    ];
    for r in &c.runs {
        facts.push((
            format!("runs of {}", r.kernel),
            r.runs
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    let mut parts = vec![Part::Facts(facts)];
    if let Some(id) = &c.permalink {
        parts.push(Part::Link("Permalink".into(), format!("{origin}/c/{id}")));
    }
    let facts = app::compare_text::facts(c);
    if !facts.is_empty() {
        parts.push(Part::Heading("What else differs".into()));
        parts.push(Part::Pre(facts));
    }
    parts.push(Part::Svg(svg));
    parts.push(Part::Heading("mmtests".into()));
    parts.push(Part::Pre(mmtests_text(c)));
    parts.push(Part::Heading("LKP".into()));
    parts.push(Part::Pre(app::compare::lkp_approximation(c)));
    document(
        &format!(
            "{} on {}: {}",
            q.benchmark,
            q.machine_name(),
            q.kernels
                .iter()
                .map(Label::as_str)
                .collect::<Vec<_>>()
                .join(" vs ")
        ),
        &parts,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, v.parse().unwrap());
        h
    }

    #[test]
    fn accept_header_picks_the_shape() {
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert_eq!(negotiate(&accept(browser), Shape::Json), Shape::Html);
        assert_eq!(negotiate(&accept("*/*"), Shape::Html), Shape::Html);
        assert_eq!(negotiate(&accept("text/plain"), Shape::Html), Shape::Text);
        assert_eq!(
            negotiate(&accept("application/json"), Shape::Html),
            Shape::Json
        );
        assert_eq!(
            negotiate(&accept("text/csv;q=0.5, image/svg+xml"), Shape::Json),
            Shape::Svg
        );
        assert_eq!(negotiate(&HeaderMap::new(), Shape::Json), Shape::Json);
        assert!(wants_document(Some("format=text"), &HeaderMap::new()));
        assert!(!wants_document(None, &accept(browser)));
    }
}
