// SPDX-License-Identifier: GPL-3.0-or-later
//! A trend rendered for an answer (JSON, the ASCII chart with its change points, the SVG
//! chart, or an offline document around it laid out by the edge), each body rendered once per
//! store generation; and several trends on one commit axis (`machines=` or `params=`).

use std::sync::Arc;

use bytes::Bytes;

use app::label::{HistoryName, Label, Metric, Param};
use app::trend::{Trend, TrendChange, TrendQuery, ALL_PARAMS, MAX_SERIES};

use crate::services::{ServiceError, ServiceResult, Services};

/// The bodies a trend is rendered in.
#[derive(Debug, Clone, Copy)]
pub enum Body {
    Json,
    /// The ASCII chart, then its change points, its noise and its newest step.
    Text,
    Svg,
    /// A self-contained document, laid out by `layout` from the trend, the chart and the
    /// ASCII chart's size.
    Document(fn(&Trend, String, usize, usize) -> String),
}

impl Body {
    fn key(self, width: usize, height: usize) -> String {
        let name = match self {
            Body::Json => "Json",
            Body::Text => "Text",
            Body::Svg => "Svg",
            Body::Document(_) => "Document",
        };
        format!("{name} {width}x{height}")
    }
}

/// A trend's body, and what it cost.
pub struct Rendered {
    pub body: Bytes,
    /// Milliseconds spent on the trend itself before rendering; `None` when the body was
    /// rendered before (for this store generation).
    pub trend_ms: Option<f64>,
}

/// What several trends on one chart differ in.
pub enum Across {
    /// One metric at one param on several machines.
    Machines { machines: Vec<Label>, param: Param },
    /// Several params of one metric on one machine: those named, or (`None`) every param
    /// it has.
    Params {
        machine: Label,
        params: Option<Vec<Param>>,
    },
}

impl Across {
    /// Parses `params=`: a comma-separated list, or [`ALL_PARAMS`] for every param.
    pub fn params(machine: Label, params: &str) -> ServiceResult<Across> {
        let params = if params.trim() == ALL_PARAMS {
            None
        } else {
            let named = params
                .split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(|p| {
                    Param::parse(p).map_err(|e| ServiceError::Invalid(format!("param {p:?} {e}")))
                })
                .collect::<ServiceResult<_>>()?;
            Some(named)
        };
        Ok(Across::Params { machine, params })
    }
}

impl Services {
    /// The trend of `query` as `body` shows it (the ASCII chart `width` columns by `height`
    /// lines), from the cache when nothing was written since it was rendered.
    pub async fn trend_body(
        &self,
        query: TrendQuery,
        body: Body,
        width: usize,
        height: usize,
    ) -> ServiceResult<Rendered> {
        let start = std::time::Instant::now();
        let generation = self.store.generation().await?;
        let key = body.key(width, height);
        if let Some(cached) = self.metrics.cache(
            "trend_body",
            self.trend_cache.get_body(&query, &key, generation),
        ) {
            return Ok(Rendered {
                body: cached,
                trend_ms: None,
            });
        }
        let trend = self.trend(query.clone()).await?;
        let trend_ms = start.elapsed().as_secs_f64() * 1e3;
        let render = tracing::info_span!("render", shape = ?body);
        let rendered: Bytes = crate::services::heavy::stage(render, async {
            ServiceResult::Ok(match body {
                Body::Text => text(&trend, width, height).into(),
                Body::Svg => self.trend_svg(&trend).await?.into(),
                Body::Document(layout) => {
                    let svg = self.trend_svg(&trend).await?;
                    layout(&trend, svg, width, height).into()
                }
                Body::Json => {
                    // ~460 bytes a point: sized once instead of doubling through megabytes.
                    let mut json = Vec::with_capacity(512 * trend.points.len() + 1024);
                    serde_json::to_writer(&mut json, &*trend).map_err(anyhow::Error::from)?;
                    json.into()
                }
            })
        })
        .await?;
        self.trend_cache
            .put_body(query, key, generation, rendered.clone());
        Ok(Rendered {
            body: rendered,
            trend_ms: Some(trend_ms),
        })
    }

    /// The trend's chart, drawn on a blocking thread within the heavy-work limit.
    async fn trend_svg(&self, trend: &Arc<Trend>) -> ServiceResult<String> {
        let trend = trend.clone();
        Ok(self
            .heavy
            .run(move || crate::analysis::chart::trend_svg(&trend))
            .await??)
    }

    /// The trends of `metric` of `benchmark` across machines or params, in that order, on
    /// one commit axis (ordered by `history` when given): 1 to [`MAX_SERIES`] of them.
    pub async fn trends_across(
        &self,
        benchmark: &Label,
        metric: &Metric,
        across: Across,
        history: Option<&HistoryName>,
    ) -> ServiceResult<Vec<Arc<Trend>>> {
        let query = |machine: Label, param: Param| TrendQuery {
            benchmark: benchmark.clone(),
            machine,
            metric: metric.clone(),
            param,
            history: history.cloned(),
        };
        let queries: Vec<TrendQuery> = match across {
            Across::Machines { machines, param } => machines
                .into_iter()
                .map(|machine| query(machine, param.clone()))
                .collect(),
            Across::Params { machine, params } => {
                let params = match params {
                    Some(params) => params,
                    None => self.params_of(benchmark, &machine, metric).await?,
                };
                params
                    .into_iter()
                    .map(|param| query(machine.clone(), param))
                    .collect()
            }
        };
        if queries.is_empty() || queries.len() > MAX_SERIES {
            return Err(ServiceError::Invalid(format!(
                "one chart shows 1 to {MAX_SERIES} trends; this asks for {}",
                queries.len()
            )));
        }
        let mut trends = Vec::with_capacity(queries.len());
        for query in queries {
            trends.push(self.trend(query).await?);
        }
        Ok(trends)
    }

    /// Every param `metric` of `benchmark` has on `machine`, in order.
    async fn params_of(
        &self,
        benchmark: &Label,
        machine: &Label,
        metric: &Metric,
    ) -> ServiceResult<Vec<Param>> {
        let mut all: Vec<String> = self
            .store
            .trend_choices(benchmark, machine)
            .await?
            .into_iter()
            .filter(|(m, _)| m == metric.as_str())
            .map(|(_, p)| p)
            .collect();
        all.sort_by(|a, b| app::types::compare_params(a, b));
        // Stored params were parsed at upload.
        Ok(all.iter().filter_map(|p| Param::parse(p).ok()).collect())
    }

    /// Trends across machines (named by machine) or params (named by metric and param) as
    /// one SVG chart, drawn on a blocking thread within the heavy-work limit.
    pub async fn trends_svg(
        &self,
        trends: Vec<Arc<Trend>>,
        by_machine: bool,
    ) -> ServiceResult<String> {
        Ok(self
            .heavy
            .run(move || {
                let series = trends
                    .iter()
                    .map(|t| {
                        let name = if by_machine {
                            t.query.machine.to_string()
                        } else {
                            format!("{} {}", t.query.metric, t.query.param)
                        };
                        (name, &**t)
                    })
                    .collect();
                crate::analysis::chart::trends_svg(series)
            })
            .await??)
    }
}

/// The ASCII chart of `trend`, its change points, its noise and its newest step.
fn text(trend: &Trend, width: usize, height: usize) -> String {
    let mut text = trend.ascii(width, height);
    for c in &trend.change_points {
        text.push_str(&format!("change point: {}", change_line(c)));
    }
    text.push_str(&format!("noise: {}\n", trend.noise.sentence()));
    if let Some(a) = &trend.advice {
        text.push_str(&format!("newest step: {}\n", a.sentence()));
    }
    text
}

/// One change point as a line of text.
pub fn change_line(c: &TrendChange) -> String {
    format!(
        "{} at {} ({}): {:.4} -> {:.4} ({:+.1}%, 95% {:+.1}%..{:+.1}%), p={:.2e}, first bad point {}..{}\n",
        c.verdict,
        c.sha.as_deref().unwrap_or(&c.kernel),
        c.kernel,
        c.before,
        c.after,
        c.change_pct,
        c.change_pct_lo,
        c.change_pct_hi,
        c.p_value,
        c.x_lo,
        c.x_hi
    )
}
