// SPDX-License-Identifier: GPL-3.0-or-later
//! A comparison rendered for an answer: JSON (the comparison, or mmtests' ratios of it), its
//! text ([`app::compare_text`]), the samples as CSV, the chart as SVG, or an offline document
//! around the chart (laid out by the edge). Each body is rendered once per comparison and
//! options and kept with it, so a hot comparison or permalink is served from memory; the chart
//! is drawn on a blocking thread within the heavy-work limit.

use std::borrow::Cow;
use std::sync::Arc;

use bytes::Bytes;
use serde::Serialize;

use app::compare::Comparison;
use app::compare_text::{Table, TextOptions};
use app::label::Metric;
use app::types::CompareQuery;

use super::{samples_csv, Computed};
use crate::services::{ServiceResult, Services};

/// The bodies a comparison is rendered in.
#[derive(Debug, Clone, Copy)]
pub enum Body {
    Json,
    Text,
    Csv,
    Svg,
    /// A self-contained document, laid out by `layout` from the comparison, the origin of its
    /// links and the chart.
    Document(fn(&Comparison, &str, String) -> String),
}

/// How a comparison is shown, as a request's view options ask.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// The text is LKP's table rather than mmtests'.
    pub lkp: bool,
    /// With `lkp`, every row in LKP's layout (approximated), not only lkp-tests' changed ones.
    pub all: bool,
    /// mmtests' `--print-ratio` view: its table as text, the ratios per cell as JSON.
    pub ratio: bool,
    /// The text adds a line under the table for each row that needs more runs.
    pub advice: bool,
    /// The change the advice is about, as a fraction (0.02 is 2%).
    pub detect: f64,
    /// The metric the chart shows (the first without).
    pub chart: Option<Metric>,
}

/// `ratio=1` as JSON: the ratio of each kernel's mean to the baseline's, per row, with
/// mmtests' summary rows.
#[derive(Serialize, utoipa::ToSchema)]
pub struct RatioAnswer<'a> {
    pub query: &'a CompareQuery,
    pub precision: usize,
    pub permalink: &'a Option<String>,
    /// `[{kernels, direction, rows: [{label, cells: [{ratio, pct, normalised}]}], dmean, dmin, dmax, gmean}]`
    #[schema(value_type = Vec<Object>)]
    pub ratios: Vec<app::mmtests::RatioTable>,
}

impl<'a> RatioAnswer<'a> {
    pub fn of(c: &'a Comparison) -> RatioAnswer<'a> {
        RatioAnswer {
            query: &c.query,
            precision: c.precision,
            permalink: &c.permalink,
            ratios: app::mmtests::ratios(c),
        }
    }
}

/// `c` with its run-count advice about a change of `detect`: itself for the default change,
/// else advised again.
pub fn advised(c: &Comparison, detect: f64) -> Cow<'_, Comparison> {
    if detect == app::noise::DEFAULT_DETECT {
        return Cow::Borrowed(c);
    }
    let mut c = c.clone();
    crate::domain::noise::readvise(&mut c.rows, detect);
    Cow::Owned(c)
}

impl Services {
    /// `computed` as `body` shows it with `view`; the text's links start with `origin`.
    pub async fn comparison_body(
        &self,
        computed: &Arc<Computed>,
        body: Body,
        view: &View,
        origin: &str,
    ) -> ServiceResult<Bytes> {
        let View {
            lkp,
            all,
            ratio,
            advice,
            detect,
            chart,
        } = view;
        let key = match body {
            Body::Json => format!("json {ratio} {detect}"),
            Body::Text => format!("text {lkp} {all} {ratio} {origin} {advice} {detect}"),
            Body::Csv => "csv".to_owned(),
            Body::Svg => format!("svg {chart:?}"),
            Body::Document(_) => format!("html {origin}"),
        };
        if let Some(cached) = self.metrics.cache("compare_body", computed.body(&key)) {
            return Ok(cached);
        }
        let render = tracing::info_span!("render", shape = ?body);
        let rendered: Bytes = crate::services::heavy::stage(render, async {
            ServiceResult::Ok(match body {
                Body::Json => {
                    let c = advised(&computed.comparison, *detect);
                    if *ratio {
                        serde_json::to_vec(&RatioAnswer::of(&c))
                    } else {
                        serde_json::to_vec(&*c)
                    }
                    .map_err(anyhow::Error::from)?
                    .into()
                }
                Body::Text => text(computed, view, origin).into(),
                Body::Csv => samples_csv(computed)?.into(),
                Body::Svg => self
                    .comparison_svg(computed, chart.as_ref().map(Metric::as_str))
                    .await?
                    .into(),
                Body::Document(layout) => {
                    let svg = self.comparison_svg(computed, None).await?;
                    layout(&advised(&computed.comparison, *detect), origin, svg).into()
                }
            })
        })
        .await?;
        computed.keep_body(key, rendered.clone());
        Ok(rendered)
    }

    /// The chart of `computed` (of metric `chart`, else the first), drawn on a blocking thread
    /// within the heavy-work limit.
    async fn comparison_svg(
        &self,
        computed: &Arc<Computed>,
        chart: Option<&str>,
    ) -> ServiceResult<String> {
        let (computed, chart) = (computed.clone(), chart.map(str::to_owned));
        Ok(self
            .heavy
            .run(move || crate::analysis::chart::svg(&computed.comparison, chart.as_deref()))
            .await??)
    }
}

/// The text of `computed`: its table as `view` asks, then the advice, the permalink and
/// what else differs.
fn text(computed: &Computed, view: &View, origin: &str) -> String {
    let c = advised(&computed.comparison, view.detect);
    // lkp-tests' own rules and layout, from the runs' samples.
    let lkp = (view.lkp && !view.all)
        .then(|| crate::analysis::stats::lkp_text(&c.query, &computed.series));
    let table = match (&lkp, view.lkp, view.ratio) {
        (Some(lkp), ..) => Table::Lkp(lkp),
        (None, true, _) => Table::LkpEveryRow,
        (None, false, true) => Table::Ratio,
        (None, false, false) => Table::Mmtests,
    };
    app::compare_text::text(
        &c,
        &TextOptions {
            table,
            advice: view.advice.then_some(view.detect),
            origin: Some(origin),
            facts: true,
        },
    )
}
