//! Turning uploaded bytes into runs and samples. Pure functions: no I/O, no SQL.
//!
//! Every format parser feeds a [`RunBuilder`], which groups rows into runs (one per benchmark,
//! machine, kernel and commit) and series (one per metric and parameter), and checks what no
//! single row can: duplicate iterations, a unit or direction that changes within a series.

pub mod facts;
mod generic;
mod hackbench;
pub mod history;
mod lkp;
mod mmtests;
mod netperf;
mod sysbench;

use std::collections::HashMap;
use std::fmt;

use app::label::{check_value, Direction, Label, TagValue, Unit, MAX_TAGS};

pub use generic::{parse_csv, parse_json};

/// Cancellation of long parses: the server runs each parse with a flag it sets when the
/// request is gone (timed out, client left); loops over rows and archive entries check it.
pub mod cancel {
    use std::cell::RefCell;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    thread_local! {
        static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
    }

    /// Runs `work` on this thread with `flag` as its cancellation flag.
    pub fn with<R>(flag: Arc<AtomicBool>, work: impl FnOnce() -> R) -> R {
        FLAG.with(|f| *f.borrow_mut() = Some(flag));
        let out = work();
        FLAG.with(|f| *f.borrow_mut() = None);
        out
    }

    /// Whether the work running on this thread was cancelled.
    pub fn requested() -> bool {
        FLAG.with(|f| {
            f.borrow()
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::Relaxed))
        })
    }
}

/// The error of a cancelled parse (nobody reads it: the request is gone).
fn cancelled() -> IngestError {
    IngestError::new("the request was cancelled")
}

/// The most runs one upload may hold (a run is one benchmark, machine, kernel and commit):
/// a back-fill of a few thousand commits fits; forty thousand kernels from one request do not.
pub const MAX_RUNS: usize = 5_000;
/// The most series (metric × param) one upload may hold, over all its runs.
pub const MAX_SERIES: usize = 200_000;
/// The most samples one upload may hold (a 64 MiB CSV holds at most ~8 million).
pub const MAX_SAMPLES: usize = 10_000_000;

/// The formats Perfline reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
    Hackbench,
    LkpRaw,
    LkpStats,
    LkpMatrix,
    Mmtests,
    Netperf,
    Sysbench,
}

impl Format {
    pub const KNOWN: &'static [&'static str] = &[
        "csv",
        "json",
        "hackbench",
        "lkp",
        "lkp-stats",
        "lkp-matrix",
        "netperf",
        "sysbench",
    ];

    pub fn parse(raw: &str) -> Option<Format> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "csv" | "generic-csv" => Some(Format::Csv),
            "json" | "generic-json" => Some(Format::Json),
            "hackbench" => Some(Format::Hackbench),
            "netperf" => Some(Format::Netperf),
            "mmtests" => Some(Format::Mmtests),
            "lkp" | "lkp-raw" => Some(Format::LkpRaw),
            "lkp-stats" | "stats.json" => Some(Format::LkpStats),
            "lkp-matrix" | "matrix.json" => Some(Format::LkpMatrix),
            "sysbench" => Some(Format::Sysbench),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Hackbench => "hackbench",
            Format::Netperf => "netperf",
            Format::Mmtests => "mmtests",
            Format::LkpRaw => "lkp",
            Format::LkpStats => "lkp-stats",
            Format::LkpMatrix => "lkp-matrix",
            Format::Sysbench => "sysbench",
        }
    }

    /// Recognises a format from the content, never from a file name or Content-Type.
    pub fn detect(bytes: &[u8]) -> Option<Format> {
        if mmtests::detect(bytes) {
            return Some(Format::Mmtests);
        }
        let text = strip_bom(bytes);
        let first = text
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .map(|i| text[i])?;
        if first == b'{' {
            // LKP's stats.json and matrix.json are JSON too; they have no "samples".
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(text) {
                if let Some(f) = lkp::detect_json(&v) {
                    return Some(f);
                }
            }
            return Some(Format::Json);
        }
        if first == b'[' {
            return Some(Format::Json);
        }
        // Tool outputs are recognised by lines only that tool prints; a prefix is enough.
        let head = String::from_utf8_lossy(&text[..text.len().min(64 * 1024)]);
        if lkp::detect_raw(&head) {
            return Some(Format::LkpRaw);
        }
        if sysbench::detect(&head) {
            return Some(Format::Sysbench);
        }
        if hackbench::detect(&head) {
            return Some(Format::Hackbench);
        }
        if netperf::detect(&head) {
            return Some(Format::Netperf);
        }
        let line_end = text.iter().position(|b| *b == b'\n').unwrap_or(text.len());
        let header = String::from_utf8_lossy(&text[..line_end]).to_ascii_lowercase();
        let cols: Vec<&str> = header
            .split(',')
            .map(|c| c.trim().trim_matches('"'))
            .collect();
        let keyed = ["metric", "benchmark", "kernel", "param"]
            .iter()
            .any(|c| cols.contains(c));
        if cols.contains(&"value") && keyed {
            return Some(Format::Csv);
        }
        None
    }
}

pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Why an upload was refused: what is wrong, and where (file, line, field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestError {
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u64>,
    pub field: Option<String>,
}

impl IngestError {
    pub fn new(message: impl Into<String>) -> Self {
        IngestError {
            message: message.into(),
            file: None,
            line: None,
            field: None,
        }
    }

    pub fn at_line(line: u64, message: impl Into<String>) -> Self {
        IngestError {
            line: Some(line),
            ..IngestError::new(message)
        }
    }

    pub fn field(field: &str, message: impl Into<String>) -> Self {
        IngestError {
            field: Some(field.to_owned()),
            ..IngestError::new(message)
        }
    }

    /// Names the file the error is in; an error inside an archive becomes `archive:entry`.
    pub fn in_file(mut self, file: &str) -> Self {
        self.file = Some(match self.file.take() {
            None => file.to_owned(),
            Some(inner) => format!("{file}:{inner}"),
        });
        self
    }
}

impl fmt::Display for IngestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(field) = &self.field {
            if self.line.is_none() {
                write!(f, "field {field}: ")?;
            }
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for IngestError {}

/// What the upload request says about its files (form fields or query parameters). A file's own
/// columns override these.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UploadMeta {
    pub benchmark: Option<Label>,
    pub machine: Option<Label>,
    pub kernel: Option<Label>,
    pub commit: Option<Label>,
    pub tags: Tags,
    pub format: Option<Format>,
    /// A bisect mark for every run of the upload.
    pub mark: Option<app::trend::Mark>,
    /// The commit's time in seconds since the epoch (`git log --format=%ct`).
    pub commit_time: Option<i64>,
}

impl UploadMeta {
    /// Sets one field from its text form, as it comes from a form or a query string. An empty
    /// value leaves the field unset.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), IngestError> {
        let value = value.trim();
        if value.is_empty() {
            return Ok(());
        }
        let label =
            |v: &str| Label::parse(v).map_err(|e| IngestError::field(name, format!("{name} {e}")));
        match name {
            "benchmark" => self.benchmark = Some(label(value)?),
            "machine" => self.machine = Some(label(value)?),
            "kernel" => self.kernel = Some(label(value)?),
            "commit" => self.commit = Some(label(value)?),
            "tags" => self.tags = parse_tags(value)?,
            "mark" => {
                self.mark = Some(app::trend::Mark::parse(value).ok_or_else(|| {
                    IngestError::field("mark", format!("mark must be good, bad or skip, not '{value}'"))
                })?);
            }
            "commit_time" => {
                self.commit_time = Some(value.parse::<i64>().map_err(|_| {
                    IngestError::field(
                        "commit_time",
                        format!("commit_time must be seconds since the epoch (git log --format=%ct), not '{value}'"),
                    )
                })?);
            }
            "format" => {
                if value != "auto" {
                    self.format = Some(Format::parse(value).ok_or_else(|| {
                        IngestError::field("format", format!("unknown format '{value}'; Perfline knows: auto, {}", Format::KNOWN.join(", ")))
                    })?);
                }
            }
            other => {
                return Err(IngestError::field(
                    other,
                    format!("unknown field '{other}'; the fields are: file, benchmark, machine, kernel, commit, commit_time, mark, tags, format"),
                ))
            }
        }
        Ok(())
    }

    /// A canonical text of the metadata, part of the upload's digest.
    pub fn canonical(&self) -> String {
        let opt = |l: &Option<Label>| l.as_ref().map(|l| l.as_str().to_owned());
        serde_json::json!({
            "benchmark": opt(&self.benchmark),
            "machine": opt(&self.machine),
            "kernel": opt(&self.kernel),
            "commit": opt(&self.commit),
            "tags": self.tags.iter().map(|(k, v)| [k.as_str(), v.as_str()]).collect::<Vec<_>>(),
            "format": self.format.map(Format::as_str),
            "mark": self.mark.map(app::trend::Mark::as_str),
            "commit_time": self.commit_time,
        })
        .to_string()
    }
}

/// A run's tags: keys are labels, values [`TagValue`]s, sorted by key.
pub type Tags = Vec<(Label, TagValue)>;

/// Parses `k=v,k=v` into tags; keys are labels, values may be empty.
pub fn parse_tags(raw: &str) -> Result<Tags, IngestError> {
    let mut tags = Tags::new();
    for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| {
            IngestError::field(
                "tags",
                format!(
                    "tag '{}' is not key=value (write tags as k=v,k=v)",
                    shorten(part)
                ),
            )
        })?;
        tags.push(tag(k, v)?);
    }
    finish_tags(tags, false)
}

/// One tag, validated.
pub(crate) fn tag(key: &str, value: &str) -> Result<(Label, TagValue), IngestError> {
    let key = Label::parse(key)
        .map_err(|e| IngestError::field("tags", format!("tag key '{}' {e}", shorten(key))))?;
    let value = TagValue::parse(value)
        .map_err(|e| IngestError::field("tags", format!("tag '{key}' value {e}")))?;
    Ok((key, value))
}

/// Sorts tags and refuses too many, or a key given twice (later ones replace earlier ones
/// when `replace`). Linear after the sort, whatever the count.
pub(crate) fn finish_tags(mut tags: Tags, replace: bool) -> Result<Tags, IngestError> {
    // A stable sort keeps the given order within one key, so the last given wins.
    tags.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Tags = Vec::with_capacity(tags.len());
    for t in tags {
        match out.last_mut() {
            Some(last) if last.0 == t.0 => {
                if !replace {
                    return Err(IngestError::field(
                        "tags",
                        format!("tag '{}' is given twice", t.0),
                    ));
                }
                *last = t;
            }
            _ => out.push(t),
        }
    }
    if out.len() > MAX_TAGS {
        return Err(IngestError::field(
            "tags",
            format!("{} tags given; at most {MAX_TAGS} are accepted", out.len()),
        ));
    }
    Ok(out)
}

/// At most 60 characters of user text, for quoting in an error message.
pub(crate) fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(60).filter(|c| !c.is_control()).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    out
}

/// Which run a row belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunKey {
    pub benchmark: Label,
    pub machine: Label,
    pub kernel: Label,
    pub commit: Option<Label>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParsedSeries {
    pub metric: Label,
    pub param: String,
    pub unit: Option<Unit>,
    pub direction: Direction,
    /// `(iteration, value)`, sorted by iteration once the builder finishes.
    pub samples: Vec<(i64, f64)>,
    /// The line each sample came from, for error messages.
    lines: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParsedRun {
    pub key: RunKey,
    pub tags: Tags,
    /// Facts the file states about the run (test type, thread count, confidence...).
    pub facts: Vec<(String, String)>,
    pub series: Vec<ParsedSeries>,
}

impl ParsedSeries {
    /// A series computed from others (no source lines), one sample per iteration.
    pub fn derived(
        metric: Label,
        unit: &str,
        direction: Direction,
        values: &[f64],
    ) -> ParsedSeries {
        ParsedSeries {
            metric,
            param: String::new(),
            unit: Unit::parse(unit).ok(),
            direction,
            samples: values
                .iter()
                .enumerate()
                .map(|(i, v)| (i as i64, *v))
                .collect(),
            lines: Vec::new(),
        }
    }
}

impl ParsedRun {
    pub fn sample_count(&self) -> usize {
        self.series.iter().map(|s| s.samples.len()).sum()
    }
}

/// One row of any format, before grouping. `run` comes from [`RunBuilder::run`].
pub struct Row<'a> {
    pub line: u64,
    pub run: usize,
    pub metric: &'a str,
    pub param: &'a str,
    pub unit: Option<&'a str>,
    pub direction: Option<Direction>,
    pub iteration: Option<i64>,
    pub value: f64,
}

/// Groups rows into runs and series.
#[derive(Default)]
pub struct RunBuilder {
    runs: Vec<ParsedRun>,
    /// Series and samples so far, over all runs (bounded by [`MAX_SERIES`], [`MAX_SAMPLES`]).
    series_count: usize,
    sample_count: usize,
    /// A run that would exceed [`MAX_RUNS`], reported by the next `push` or `finish`.
    too_many_runs: bool,
    run_index: HashMap<RunKey, usize>,
    series_index: HashMap<(usize, String, String), usize>,
    /// The last (run, metric, param) seen and its series: rows usually come grouped.
    last: Option<(usize, String, String, usize)>,
}

impl RunBuilder {
    /// The index of the run with this key, created (with these tags) on first use.
    pub fn run(&mut self, key: RunKey, tags: &[(Label, TagValue)]) -> usize {
        if let Some(i) = self.run_index.get(&key) {
            return *i;
        }
        let i = self.runs.len();
        if i >= MAX_RUNS {
            // Rows of it are refused by `push`; keep the index valid meanwhile.
            self.too_many_runs = true;
        }
        self.run_index.insert(key.clone(), i);
        self.runs.push(ParsedRun {
            facts: Vec::new(),
            key,
            tags: tags.to_vec(),
            series: Vec::new(),
        });
        i
    }

    pub fn push(&mut self, row: Row<'_>) -> Result<(), IngestError> {
        check_value(row.value).map_err(|e| IngestError {
            field: Some("value".into()),
            ..IngestError::at_line(row.line, e)
        })?;
        if self.too_many_runs {
            return Err(too_many_runs(Some(row.line)));
        }
        self.sample_count += 1;
        if self.sample_count.is_multiple_of(65_536) && cancel::requested() {
            return Err(cancelled());
        }
        if self.sample_count > MAX_SAMPLES {
            return Err(IngestError::at_line(
                row.line,
                format!("more than {MAX_SAMPLES} samples in one upload; split it"),
            ));
        }
        let run = row.run;
        let series = match &self.last {
            Some((r, m, p, s)) if *r == run && m == row.metric && p == row.param => *s,
            _ => {
                let key = (run, row.metric.to_owned(), row.param.to_owned());
                let s = match self.series_index.get(&key) {
                    Some(s) => *s,
                    None => {
                        let metric = Label::parse(row.metric).map_err(|e| {
                            IngestError::at_line(row.line, format!("metric '{}' {e}", row.metric))
                        })?;
                        // The same rule as a trend query's `param`.
                        let param = app::label::Param::parse(row.param)
                            .map_err(|e| IngestError::at_line(row.line, format!("param {e}")))?;
                        let unit = row
                            .unit
                            .map(|u| {
                                Unit::parse(u).map_err(|e| IngestError {
                                    field: Some("unit".into()),
                                    ..IngestError::at_line(
                                        row.line,
                                        format!("unit '{}' {e}", shorten(u)),
                                    )
                                })
                            })
                            .transpose()?;
                        self.series_count += 1;
                        if self.series_count > MAX_SERIES {
                            return Err(IngestError::at_line(
                                row.line,
                                format!("more than {MAX_SERIES} series (metric and param) in one upload; split it"),
                            ));
                        }
                        let series = &mut self.runs[run].series;
                        series.push(ParsedSeries {
                            metric,
                            param: param.into(),
                            unit,
                            direction: row.direction.unwrap_or_default(),
                            samples: Vec::new(),
                            lines: Vec::new(),
                        });
                        self.series_index.insert(key.clone(), series.len() - 1);
                        series.len() - 1
                    }
                };
                self.last = Some((key.0, key.1, key.2, s));
                s
            }
        };
        let s = &mut self.runs[run].series[series];
        if let Some(unit) = row.unit {
            if s.unit.as_ref().map(Unit::as_str) != Some(unit.trim()) {
                return Err(IngestError::at_line(
                    row.line,
                    format!(
                        "unit '{}' differs from '{}' given earlier for metric {} param '{}'",
                        shorten(unit),
                        s.unit.as_ref().map_or("", Unit::as_str),
                        s.metric,
                        s.param
                    ),
                ));
            }
        }
        if let Some(direction) = row.direction {
            if s.direction != direction {
                return Err(IngestError::at_line(
                    row.line,
                    format!(
                        "direction '{}' differs from '{}' given earlier for metric {} param '{}'",
                        direction.as_str(),
                        s.direction.as_str(),
                        s.metric,
                        s.param
                    ),
                ));
            }
        }
        let iteration = row.iteration.unwrap_or(s.samples.len() as i64);
        s.samples.push((iteration, row.value));
        s.lines.push(row.line);
        Ok(())
    }

    /// Finishes: sorts samples by iteration and refuses duplicates and empty results.
    pub fn finish(self) -> Result<Vec<ParsedRun>, IngestError> {
        if self.too_many_runs {
            return Err(too_many_runs(None));
        }
        // A run is only created for rows, but a parser may create one before it finds any
        // (sysbench names its run from the header): a run without samples is no result.
        let mut runs: Vec<ParsedRun> = self
            .runs
            .into_iter()
            .filter(|r| r.series.iter().any(|s| !s.samples.is_empty()))
            .collect();
        if runs.is_empty() {
            return Err(IngestError::new(
                "no samples found: the file has no result rows Perfline can read",
            ));
        }
        for run in &mut runs {
            run.series.retain(|s| !s.samples.is_empty());
            for s in &run.series {
                // Derived series do not pass through `push`.
                if let Some(Err(e)) = s
                    .samples
                    .iter()
                    .map(|(_, v)| check_value(*v))
                    .find(Result::is_err)
                {
                    return Err(IngestError::field(
                        "value",
                        format!("metric {}: {e}", s.metric),
                    ));
                }
            }
        }
        for run in &mut runs {
            for s in &mut run.series {
                let sorted = s.samples.windows(2).all(|w| w[0].0 < w[1].0);
                if !sorted {
                    let mut order: Vec<usize> = (0..s.samples.len()).collect();
                    order.sort_by_key(|&i| (s.samples[i].0, s.lines[i]));
                    for w in order.windows(2) {
                        if s.samples[w[0]].0 == s.samples[w[1]].0 {
                            return Err(IngestError::at_line(
                                s.lines[w[1]],
                                format!(
                                    "iteration {} of metric {} param '{}' is given twice (first on line {})",
                                    s.samples[w[0]].0, s.metric, s.param, s.lines[w[0]]
                                ),
                            ));
                        }
                    }
                    s.samples = order.iter().map(|&i| s.samples[i]).collect();
                }
                s.lines = Vec::new();
            }
        }
        Ok(runs)
    }
}

fn too_many_runs(line: Option<u64>) -> IngestError {
    IngestError {
        line,
        ..IngestError::new(format!(
            "more than {MAX_RUNS} runs (benchmark, machine, kernel, commit) in one upload; split it"
        ))
    }
}

/// Parses one file in the given or detected format.
pub fn parse_file(
    bytes: &[u8],
    format: Option<Format>,
    meta: &UploadMeta,
) -> Result<(Format, Vec<ParsedRun>), IngestError> {
    if strip_bom(bytes).iter().all(u8::is_ascii_whitespace) {
        return Err(IngestError::new("the file is empty"));
    }
    let format = match format {
        Some(f) => f,
        None => Format::detect(bytes).ok_or_else(|| {
            IngestError::new(format!(
                "unrecognised format; Perfline knows: {} (a generic CSV starts with a header such as benchmark,metric,param,iteration,value)",
                Format::KNOWN.join(", ")
            ))
        })?,
    };
    let runs = match format {
        Format::Csv => parse_csv(bytes, meta)?,
        Format::Json => parse_json(bytes, meta)?,
        Format::Hackbench => hackbench::parse(&text(bytes)?, meta)?,
        Format::Sysbench => sysbench::parse(&text(bytes)?, meta)?,
        Format::Netperf => netperf::parse(&text(bytes)?, meta)?,
        Format::LkpRaw => lkp::parse_raw(&text(bytes)?, meta)?,
        Format::LkpStats => lkp::parse_stats(bytes, meta)?,
        Format::LkpMatrix => lkp::parse_matrix(bytes, meta)?,
        Format::Mmtests => mmtests::parse(bytes, meta)?,
    };
    check_tags_against_facts(&runs, meta)?;
    Ok((format, runs))
}

/// Form fields fill what a file lacks; a tag that contradicts a fact the file states is refused.
fn check_tags_against_facts(runs: &[ParsedRun], meta: &UploadMeta) -> Result<(), IngestError> {
    for run in runs {
        for (key, value) in &meta.tags {
            if let Some((_, fact)) = run.facts.iter().find(|(k, _)| k == key.as_str()) {
                if fact != value.as_str() {
                    return Err(IngestError::field(
                        "tags",
                        format!("tag {key}={value} contradicts the file, which says {key}={fact}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The file as UTF-8 text, or an error naming the line of the first invalid byte.
fn text(bytes: &[u8]) -> Result<std::borrow::Cow<'_, str>, IngestError> {
    let bytes = strip_bom(bytes);
    match std::str::from_utf8(bytes) {
        Ok(t) => Ok(std::borrow::Cow::Borrowed(t)),
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count() as u64
                + 1;
            Err(IngestError::at_line(line, "the text is not valid UTF-8"))
        }
    }
}

/// Resolves a run key from a row's own values, falling back to the upload's fields.
pub(crate) fn resolve_key(
    line: u64,
    meta: &UploadMeta,
    benchmark: Option<&str>,
    machine: Option<&str>,
    kernel: Option<&str>,
    commit: Option<&str>,
) -> Result<RunKey, IngestError> {
    let pick = |name: &str,
                own: Option<&str>,
                fallback: &Option<Label>|
     -> Result<Option<Label>, IngestError> {
        match own.map(str::trim).filter(|s| !s.is_empty()) {
            Some(v) => Label::parse(v).map(Some).map_err(|e| IngestError {
                field: Some(name.to_owned()),
                ..IngestError::at_line(line, format!("{name} '{v}' {e}"))
            }),
            None => Ok(fallback.clone()),
        }
    };
    let need = |name: &str, v: Option<Label>| {
        v.ok_or_else(|| IngestError {
            field: Some(name.to_owned()),
            ..IngestError::at_line(line, format!("no {name}: give a {name} column in the file or the {name} field with the upload"))
        })
    };
    Ok(RunKey {
        benchmark: need("benchmark", pick("benchmark", benchmark, &meta.benchmark)?)?,
        machine: need("machine", pick("machine", machine, &meta.machine)?)?,
        kernel: need("kernel", pick("kernel", kernel, &meta.kernel)?)?,
        commit: pick("commit", commit, &meta.commit)?,
    })
}

/// Renders parsed runs as text, for tests that compare with an expected rendering.
#[cfg(test)]
pub(crate) fn render(runs: &[ParsedRun]) -> String {
    let mut out = String::new();
    for r in runs {
        out.push_str(&format!(
            "run {} {} {} {:?}\n",
            r.key.benchmark,
            r.key.machine,
            r.key.kernel,
            r.key.commit.as_ref().map(ToString::to_string)
        ));
        for (k, v) in &r.facts {
            out.push_str(&format!("  fact {k}={v}\n"));
        }
        for s in &r.series {
            out.push_str(&format!(
                "  {} [{}] {:?} {} {:?}\n",
                s.metric,
                s.param,
                s.unit.as_deref(),
                s.direction.as_str(),
                s.samples
            ));
        }
    }
    out
}

#[cfg(test)]
pub(crate) fn test_meta() -> UploadMeta {
    let mut m = UploadMeta::default();
    m.set("machine", "m1").unwrap();
    m.set("kernel", "6.1.0").unwrap();
    m
}

/// Parses a fixture from `server/tests/fixtures` with detection, and compares the rendering.
#[cfg(test)]
pub(crate) fn check_fixture(name: &str, format: Format, expect: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        Format::detect(&bytes),
        Some(format),
        "detected format of {name}"
    );
    let (_, runs) =
        parse_file(&bytes, None, &test_meta()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let got = render(&runs);
    assert_eq!(got.trim(), expect.trim(), "\n--- got ---\n{got}");
}

/// Parsers never panic: arbitrary bytes, and real fixtures with random damage, in every format.
#[cfg(test)]
mod never_panic {
    use super::*;
    use proptest::prelude::*;

    const FORMATS: &[Format] = &[
        Format::Csv,
        Format::Json,
        Format::Hackbench,
        Format::LkpRaw,
        Format::LkpStats,
        Format::LkpMatrix,
        Format::Mmtests,
        Format::Netperf,
        Format::Sysbench,
    ];

    /// Every fixture, read once.
    fn fixtures() -> &'static [Vec<u8>] {
        static ALL: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
        ALL.get_or_init(read_fixtures)
    }

    fn read_fixtures() -> Vec<Vec<u8>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut out = Vec::new();
        for dir in [
            "netperf",
            "hackbench",
            "sysbench",
            "lkp-raw",
            "generic",
            "mmtests",
        ] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.is_file() {
                    out.push(std::fs::read(path).unwrap());
                }
            }
        }
        out.push(mmtests::tests::fixture_tar_gz());
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048), f in 0..FORMATS.len()) {
            let _ = parse_file(&bytes, Some(FORMATS[f]), &test_meta());
            let _ = parse_file(&bytes, None, &test_meta());
        }

        #[test]
        fn damaged_fixtures(
            pick in any::<proptest::sample::Index>(),
            cut in any::<proptest::sample::Index>(),
            flips in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 0..8),
            f in 0..FORMATS.len(),
        ) {
            let all = fixtures();
            let mut bytes = all[pick.index(all.len())].clone();
            for (at, b) in flips {
                if !bytes.is_empty() {
                    let i = at.index(bytes.len());
                    bytes[i] = b;
                }
            }
            let keep = cut.index(bytes.len() + 1);
            bytes.truncate(keep);
            let _ = parse_file(&bytes, None, &test_meta());
            let _ = parse_file(&bytes, Some(FORMATS[f]), &test_meta());
        }
    }
}
