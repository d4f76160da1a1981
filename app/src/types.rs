// SPDX-License-Identifier: GPL-3.0-or-later
//! Wire types: what the JSON API returns and what the pages render. Shared by server and WASM.

use serde::{Deserialize, Serialize};

use crate::label::{Direction, Label, Metric, MAX_KERNELS};

/// One run as listed: a benchmark executed on one machine with one kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RunSummary {
    pub id: i64,
    pub benchmark: String,
    pub machine: String,
    pub kernel: String,
    pub commit: Option<String>,
    pub tags: Vec<(String, String)>,
    /// Facts found in the uploaded file (test type, thread count, confidence, ...).
    pub facts: Vec<(String, String)>,
    pub samples: i64,
    pub upload_id: i64,
    /// Who stored its upload (a token's name, `open`), if known.
    #[serde(default)]
    pub uploaded_by: Option<String>,
    pub created_at: String,
    /// The JSON resource of this run.
    pub url: String,
    /// The page of this run.
    pub page: String,
}

/// All samples of one metric at one parameter within a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Series {
    pub metric: String,
    pub param: String,
    pub unit: Option<String>,
    pub direction: Direction,
    /// `(iteration, value)` in iteration order.
    pub samples: Vec<(i64, f64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RunDetail {
    pub run: RunSummary,
    pub series: Vec<Series>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct UploadFile {
    pub index: i64,
    pub name: Option<String>,
    pub format: String,
    pub size: i64,
    pub sha256: String,
    pub raw_url: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct UploadSummary {
    pub id: i64,
    pub created_at: String,
    /// Who stored it: a token's name, `open`, or none (stored before uploads were attributed).
    #[serde(default)]
    pub uploaded_by: Option<String>,
    pub files: Vec<UploadFile>,
    pub runs: i64,
    pub samples: i64,
    pub url: String,
    pub page: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct UploadDetail {
    pub upload: UploadSummary,
    pub runs: Vec<RunSummary>,
}

/// What `POST /api/v1/upload` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct UploadResponse {
    /// `false` when the same bytes with the same metadata were uploaded before.
    pub created: bool,
    pub upload: UploadSummary,
    pub runs: Vec<RunSummary>,
    /// What the files held that Perfline left out, and why (`file: key: reason`): an LKP job
    /// is stored without a key it cannot take rather than refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// For an mmtests tree: each `<kernel>/iter-N/<benchmark>/logs/` directory, what was read
    /// of it and, if anything was left out, why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directories: Vec<TreeDir>,
}

/// One `<kernel>/iter-N/<benchmark>/logs/` directory of an uploaded mmtests tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TreeDir {
    pub kernel: String,
    /// The `N` of `iter-N`.
    pub iteration: i64,
    pub benchmark: String,
    /// The mmtests family (shellpack) whose parser read it, if one is known.
    pub family: Option<String>,
    pub operations: usize,
    pub samples: usize,
    /// What was left out and why (the file and line where known); `None` when all was read.
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BenchmarkSummary {
    pub name: String,
    pub runs: i64,
    pub machines: Vec<String>,
    /// In kernel-version order.
    pub kernels: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NamedCount {
    pub name: String,
    pub runs: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dashboard {
    pub benchmarks: Vec<BenchmarkSummary>,
    pub machines: Vec<NamedCount>,
    /// In kernel-version order.
    pub kernels: Vec<NamedCount>,
    pub recent_uploads: Vec<UploadSummary>,
    pub recent_runs: Vec<RunSummary>,
    /// The newest open regressions (alert summaries), at most five.
    #[serde(default)]
    pub open_regressions: Vec<crate::alerts::AlertSummary>,
    /// The mmtests trees among the recent uploads, each with its benchmarks together.
    #[serde(default)]
    pub trees: Vec<TreeSummary>,
    /// The robots seen, the most recent first (at most 20; read fresh, not cached).
    #[serde(default)]
    pub robots: Vec<crate::alerts::Robot>,
}

/// An uploaded mmtests `work/log` tree: its machine, kernels and benchmarks, and the report of
/// them all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeSummary {
    pub upload_id: i64,
    pub machine: String,
    /// In kernel-version order.
    pub kernels: Vec<String>,
    /// In the order the tree ran them.
    pub benchmarks: Vec<String>,
    /// The page of the whole tree (`/compare?benchmark=*`).
    pub report: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RunPage {
    pub runs: Vec<RunSummary>,
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// The lines an upload's answer gives an mmtests tree's directories: what each gave, or why
/// it gave nothing.
pub fn directories_lines(dirs: &[TreeDir]) -> String {
    let mut out = String::new();
    for d in dirs {
        let what = match (&d.family, d.samples) {
            (Some(f), n) if n > 0 => format!("{} operation(s), {n} sample(s) ({f})", d.operations),
            _ => "not read".to_owned(),
        };
        out.push_str(&format!(
            "  {}/iter-{}/{}: {what}{}\n",
            d.kernel,
            d.iteration,
            d.benchmark,
            d.problem
                .as_deref()
                .map(|p| format!("; {p}"))
                .unwrap_or_default()
        ));
    }
    out
}

/// The line an upload's answer gives what it left out: `2 keys skipped: a: why; b: why`, at
/// most ten named; empty when nothing was.
pub fn skipped_line(skipped: &[String]) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    let shown: Vec<&str> = skipped.iter().take(10).map(String::as_str).collect();
    let more = skipped.len() - shown.len();
    format!(
        "{} key{} skipped: {}{}\n",
        skipped.len(),
        if skipped.len() == 1 { "" } else { "s" },
        shown.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    )
}

/// A comparison request: benchmark and machine, kernels with the baseline first. Parsed once
/// where it comes in (the API's query string, the compare page's form, a permalink's stored
/// spec): every name is a [`Label`], there are 1 to [`MAX_KERNELS`] distinct kernels, and with
/// `columns` each is a column spec whose machine is known.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawCompareQuery")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CompareQuery {
    pub benchmark: Label,
    /// The machine of every column that names none (`None` when every column names its own).
    #[serde(serialize_with = "none_as_empty")]
    pub machine: Option<Label>,
    /// The columns, baseline first: kernel versions, or with `columns` set, column specs
    /// (`6.1.0@box-a`: a kernel on a machine; `governor=performance`: runs with that tag;
    /// `6.1.0@box-a:governor=performance`: both). Also the columns' labels.
    pub kernels: Vec<Label>,
    pub metric: Option<Metric>,
    /// `kernels` are column specs (`GET /api/v1/compare?columns=...`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub columns: bool,
}

/// A comparison request as JSON carries it (a stored permalink's spec, a page's call), before
/// its fields are checked together.
#[derive(Deserialize)]
struct RawCompareQuery {
    benchmark: Label,
    #[serde(default, deserialize_with = "crate::label::empty_as_none")]
    machine: Option<Label>,
    kernels: Vec<Label>,
    #[serde(default)]
    metric: Option<Metric>,
    #[serde(default)]
    columns: bool,
}

impl TryFrom<RawCompareQuery> for CompareQuery {
    type Error = String;
    fn try_from(r: RawCompareQuery) -> Result<Self, String> {
        CompareQuery::new(r.benchmark, r.machine, r.kernels, r.metric, r.columns)
    }
}

fn none_as_empty<S: serde::Serializer>(v: &Option<Label>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v.as_ref().map_or("", Label::as_str))
}

impl CompareQuery {
    /// A comparison of `kernels` (or with `columns`, of column specs), checked together.
    pub fn new(
        benchmark: Label,
        machine: Option<Label>,
        kernels: Vec<Label>,
        metric: Option<Metric>,
        columns: bool,
    ) -> Result<CompareQuery, String> {
        if kernels.is_empty() {
            return Err(
                "kernels must name at least one kernel (kernels=K0,K1,...; K0 is the baseline)"
                    .into(),
            );
        }
        if kernels.len() > MAX_KERNELS {
            return Err(format!(
                "kernels names {} kernels; a comparison takes at most {MAX_KERNELS}",
                kernels.len()
            ));
        }
        for (i, k) in kernels.iter().enumerate() {
            if kernels[..i].contains(k) {
                return Err(format!("kernels names {k} twice"));
            }
            if columns {
                let spec = ColumnSpec::parse(k).ok_or_else(|| {
                    format!(
                        "column {} ({k:?}) must be kernel@machine, key=value, or kernel@machine:key=value",
                        i + 1
                    )
                })?;
                for part in [&spec.kernel, &spec.machine].into_iter().flatten() {
                    Label::parse(part).map_err(|e| format!("column {} {e}", i + 1))?;
                }
                if spec.machine.is_none() && machine.is_none() {
                    return Err(format!(
                        "column {} ({k}) names no machine: write {k}@M or give machine=M",
                        i + 1
                    ));
                }
            }
        }
        if !columns && machine.is_none() {
            return Err("machine is required".into());
        }
        Ok(CompareQuery {
            benchmark,
            machine,
            kernels,
            metric,
            columns,
        })
    }

    /// The comparison of `kernels` of `benchmark` on `machine`, every metric.
    pub fn parse(benchmark: &str, machine: &str, kernels: &[&str]) -> Result<CompareQuery, String> {
        CompareForm {
            benchmark: benchmark.into(),
            machine: machine.into(),
            kernels: kernels.iter().map(|k| (*k).to_owned()).collect(),
            metric: None,
            columns: false,
        }
        .parse()?
        .ok_or_else(|| "names no comparison".to_owned())
    }

    /// The machine's name, or empty when every column names its own.
    pub fn machine_name(&self) -> &str {
        self.machine.as_ref().map_or("", Label::as_str)
    }
}

/// The compare page's form as typed: any field may still be empty or wrong.
/// [`CompareForm::parse`] makes the [`CompareQuery`] of it with the same types the API parses
/// its query string into, in the browser before the page asks.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CompareForm {
    pub benchmark: String,
    pub machine: String,
    pub kernels: Vec<String>,
    pub metric: Option<String>,
    pub columns: bool,
}

impl CompareForm {
    /// `None` until a benchmark, a machine (or columns) and kernels are chosen; else the
    /// query, or what is wrong with the form.
    pub fn parse(&self) -> Result<Option<CompareQuery>, String> {
        if self.benchmark.trim().is_empty()
            || (self.machine.trim().is_empty() && !self.columns)
            || self.kernels.is_empty()
        {
            return Ok(None);
        }
        let label = |field: &str, v: &str| Label::parse(v).map_err(|e| format!("{field} {e}"));
        let machine = match self.machine.trim() {
            "" => None,
            m => Some(label("machine", m)?),
        };
        let kernels = self
            .kernels
            .iter()
            .enumerate()
            .map(|(i, k)| label(&format!("kernel {}", i + 1), k))
            .collect::<Result<Vec<_>, _>>()?;
        let metric = match self.metric.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(m) => Some(Metric::parse(m).map_err(|e| format!("metric {e}"))?),
        };
        CompareQuery::new(
            label("benchmark", &self.benchmark)?,
            machine,
            kernels,
            metric,
            self.columns,
        )
        .map(Some)
    }
}

impl From<&CompareQuery> for CompareForm {
    fn from(q: &CompareQuery) -> CompareForm {
        CompareForm {
            benchmark: q.benchmark.to_string(),
            machine: q.machine_name().to_owned(),
            kernels: q.kernels.iter().map(ToString::to_string).collect(),
            metric: q.metric.as_ref().map(ToString::to_string),
            columns: q.columns,
        }
    }
}

/// One column of a comparison across machines or configurations, parsed from its spec:
/// `[kernel][@machine][:key=value]`, or `key=value` alone. The key `commit` selects runs by
/// their commit (full or abbreviated either way, 7 to 64 hex digits), not by a tag:
/// `commit=3ff6cde846` is how `commits=BASE,HEAD` compares a robot's commits under one kernel.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ColumnSpec {
    pub kernel: Option<String>,
    pub machine: Option<String>,
    pub tag: Option<(String, String)>,
}

impl ColumnSpec {
    /// Parses a spec; `None` names neither a kernel, a machine nor a tag.
    pub fn parse(spec: &str) -> Option<ColumnSpec> {
        let spec = spec.trim();
        let (head, tag) = match spec.split_once(':') {
            Some((h, t)) => (h, Some(t)),
            None if spec.contains('=') => ("", Some(spec)),
            None => (spec, None),
        };
        let tag = match tag {
            Some(t) => {
                let (k, v) = t.split_once('=')?;
                let (k, v) = (k.trim(), v.trim());
                if k.is_empty() || v.is_empty() {
                    return None;
                }
                Some((k.to_owned(), v.to_owned()))
            }
            None => None,
        };
        let (kernel, machine) = match head.split_once('@') {
            Some((k, m)) => (k.trim(), Some(m.trim())),
            None => (head.trim(), None),
        };
        if let Some(("commit", sha)) = tag.as_ref().map(|(k, v)| (k.as_str(), v.as_str())) {
            crate::label::CommitSha::parse(sha).ok()?;
        }
        let c = ColumnSpec {
            kernel: (!kernel.is_empty()).then(|| kernel.to_owned()),
            machine: machine.filter(|m| !m.is_empty()).map(str::to_owned),
            tag,
        };
        (c.kernel.is_some() || c.machine.is_some() || c.tag.is_some()).then_some(c)
    }
}

/// What the compare page offers to choose from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareChoices {
    pub benchmarks: Vec<String>,
    pub machines: Vec<String>,
    /// Kernels with runs of the chosen benchmark on the chosen machine, in version order.
    pub kernels: Vec<String>,
}

/// What a type-to-search metric picker asks: the metrics of a benchmark on a machine (the
/// trend and compare pages), or those with alerts (`alerts`), whose name contains `text`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MetricSearch {
    pub benchmark: String,
    pub machine: String,
    pub alerts: bool,
    pub text: String,
}

/// The most matches a picker shows; the rest are a more precise word away.
pub const MAX_METRIC_MATCHES: usize = 50;

/// The longest text a picker searches for.
pub const MAX_METRIC_SEARCH: usize = 1024;

/// A picker's answer: KPIs first, then names starting with the text, then the others
/// containing it; at most [`MAX_METRIC_MATCHES`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MetricMatches {
    /// Metrics (with params) to search among.
    pub total: usize,
    /// How many contain the text.
    pub matching: usize,
    pub matches: Vec<MetricMatch>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricMatch {
    pub metric: String,
    pub param: String,
    /// One of LKP's KPIs (a metric with a known direction).
    pub kpi: bool,
}

impl MetricMatch {
    /// `metric`, or `metric @ param`.
    pub fn label(&self) -> String {
        if self.param.is_empty() {
            self.metric.clone()
        } else {
            format!("{} @ {}", self.metric, self.param)
        }
    }
}

/// Orders parameters naturally: numbers by value, then text.
pub fn compare_params(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x
            .partial_cmp(&y)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.cmp(b)),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

/// Formats a statistic for display; never prints NaN or infinity as a number.
pub fn format_value(v: f64) -> String {
    if !v.is_finite() {
        return "-".to_owned();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e9).contains(&a) {
        format!("{v:.4e}")
    } else if a >= 100.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

pub use crate::url::encode;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::{Label, PermalinkId};

    /// What the compare queries' parsing refuses: every edge (the API, the page, a stored
    /// permalink's spec) goes through it.
    #[test]
    fn queries_are_checked_at_the_edge() {
        let l = |s: &str| Label::parse(s).unwrap();
        let q = |kernels: &[&str]| {
            CompareQuery::new(
                l("b"),
                Some(l("m")),
                kernels.iter().map(|k| l(k)).collect(),
                None,
                false,
            )
        };
        assert!(q(&["a", "b"]).is_ok());
        let err = q(&["a", "a"]).unwrap_err();
        assert!(err.contains("twice"), "{err}");
        let err = q(&[]).unwrap_err();
        assert!(err.contains("at least one"), "{err}");
        let many: Vec<String> = (0..17).map(|i| i.to_string()).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(q(&refs).is_err());
        assert!(PermalinkId::parse("../etc").is_err());
        assert!(PermalinkId::parse("aZ09").is_ok());
        // A stored spec reads back through the same checks, and writes as it always did.
        let json = r#"{"benchmark":"b","machine":"m","kernels":["a","b"],"metric":null}"#;
        let parsed: CompareQuery = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&parsed).unwrap(), json);
        let twice = r#"{"benchmark":"b","machine":"m","kernels":["a","a"],"metric":null}"#;
        assert!(serde_json::from_str::<CompareQuery>(twice).is_err());
    }

    #[test]
    fn params_sort_naturally() {
        let mut p = vec!["16384", "64", "1024", "abc", "256", ""];
        p.sort_by(|a, b| compare_params(a, b));
        assert_eq!(p, vec!["64", "256", "1024", "16384", "", "abc"]);
    }

    #[test]
    fn values_format_without_nan() {
        assert_eq!(format_value(f64::NAN), "-");
        assert_eq!(format_value(2497.126), "2497.13");
        assert_eq!(format_value(0.0871), "0.0871");
        assert_eq!(format_value(5.488e11), "5.4880e11");
    }
}

/// Who the pages are shown to, and what they may do there.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Who {
    /// Writes need a token (else anyone may write: no sign-in).
    pub token_mode: bool,
    /// The signed-in token's name.
    pub name: Option<String>,
    pub can_upload: bool,
    pub can_mark: bool,
    /// May delete uploads and correct runs.
    pub is_admin: bool,
}

/// A correction of a run from its page: empty fields are left as they are.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RunFix {
    pub machine: String,
    pub kernel: String,
    pub commit: String,
    pub tags: String,
}
