// SPDX-License-Identifier: GPL-3.0-or-later
//! What the upload request says about its files ([`UploadMeta`]: benchmark, machine, kernel,
//! commit, tags), and the rules for tags.

use super::*;
use app::label::{Label, TagValue, MAX_TAGS};

/// What the upload request says about its files (form fields or query parameters). A file's own
/// columns override these.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UploadMeta {
    pub benchmark: Option<Label>,
    pub machine: Option<Label>,
    pub kernel: Option<Label>,
    pub commit: Option<CommitSha>,
    pub tags: Tags,
    pub format: Option<Format>,
    /// A bisect mark for every run of the upload.
    pub mark: Option<app::trend::Mark>,
    /// A bisect mark for the runs of each kernel: set by Perfline for a mail's plots (good
    /// at the base, bad at the tested commit), by no field of a request.
    pub kernel_marks: Vec<(String, app::trend::Mark)>,
    /// The commit's time in seconds since the epoch (`git log --format=%ct`).
    pub commit_time: Option<i64>,
    /// Directions stated for metrics of the upload (`direction=METRIC:higher`, repeatable),
    /// over what the parser knows.
    pub directions: Vec<(String, app::label::Direction)>,
    /// `calibration=NAME`: an A/A upload, every run the same kernel and setup (reboots
    /// between), named so that its runs can be found together.
    pub calibration: Option<Label>,
    /// `request=ID`: the work request (`GET /api/v1/work`) these runs answer; it fills in the
    /// benchmark, machine and commit the upload leaves out.
    pub request: Option<i64>,
    /// `run=NAME`: names this run of a robot's (`perfline work` and `bisect run` send a fresh
    /// one for every run, the same one when they retry it): part of the upload's identity, so
    /// a rerun whose output repeats an earlier one byte for byte is stored as the new run it
    /// is, while a retried upload of the same run is still recognised.
    pub run: Option<Label>,
    /// `bisection=ID`: the bisection these runs are for; it fills in the benchmark and
    /// machine the upload leaves out.
    pub bisection: Option<i64>,
}

/// The most `direction=` fields one upload may state.
pub const MAX_STATED_DIRECTIONS: usize = 1000;

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
            "commit" => {
                self.commit = Some(CommitSha::parse(value).map_err(|e| {
                    IngestError::field("commit", format!("commit {e}"))
                })?);
            }
            "calibration" => self.calibration = Some(label(value)?),
            "run" => self.run = Some(label(value)?),
            "bisection" => {
                self.bisection = Some(value.parse::<i64>().ok().filter(|v| *v > 0).ok_or_else(|| {
                    IngestError::field("bisection", format!("bisection must be a bisection's id, not '{}'", shorten(value)))
                })?);
            }
            "request" => {
                self.request = Some(value.parse::<i64>().ok().filter(|v| *v > 0).ok_or_else(|| {
                    IngestError::field("request", format!("request must be a work request's id (GET /api/v1/work), not '{}'", shorten(value)))
                })?);
            }
            "tags" => self.tags = parse_tags(value)?,
            "mark" => {
                self.mark = Some(app::trend::Mark::parse(value).ok_or_else(|| {
                    IngestError::field("mark", format!("mark must be good, bad or skip, not '{value}'"))
                })?);
            }
            "direction" => {
                let bad = || {
                    IngestError::field(
                        "direction",
                        format!("direction must be METRIC:higher, METRIC:lower or METRIC:unknown, not '{}'", shorten(value)),
                    )
                };
                let (metric, d) = value.rsplit_once(':').ok_or_else(bad)?;
                let d = app::label::Direction::parse(d).ok_or_else(bad)?;
                let metric = app::label::Metric::parse(metric.trim())
                    .map_err(|e| IngestError::field("direction", format!("direction's metric {e}")))?;
                if self.directions.len() >= MAX_STATED_DIRECTIONS {
                    return Err(IngestError::field(
                        "direction",
                        format!("more than {MAX_STATED_DIRECTIONS} direction fields"),
                    ));
                }
                self.directions.push((metric.as_str().to_owned(), d));
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
                        IngestError::field("format", format!("unknown format '{value}'; Perfline knows: auto, {}", Format::known()))
                    })?);
                }
            }
            other => {
                return Err(IngestError::field(
                    other,
                    format!("unknown field '{other}'; the fields are: file, benchmark, machine, kernel, commit, commit_time, mark, tags, format, direction, calibration, request, bisection, run"),
                ))
            }
        }
        Ok(())
    }

    /// Fills in what the upload leaves out from the work request it answers (benchmark,
    /// machine, commit, kernel: the request's, else the commit's 12 digits); an error when it
    /// says otherwise.
    pub fn answer(&mut self, r: &app::alerts::WorkRequest) -> Result<(), IngestError> {
        let conflict = |field: &str, given: &str, wanted: &str| {
            IngestError::field(
                field,
                format!("request {} is for {field} {wanted}, not {given}", r.id),
            )
        };
        for (field, slot, wanted) in [
            ("benchmark", &mut self.benchmark, &r.benchmark),
            ("machine", &mut self.machine, &r.machine),
        ] {
            match slot {
                Some(given) if given.as_str() != wanted => {
                    return Err(conflict(field, given.as_str(), wanted))
                }
                Some(_) => {}
                None => *slot = Label::parse(wanted).ok(),
            }
        }
        // The rerun is of the request's kernel, or of its commit built again: the kernel the
        // runs it reruns named, unless the output names its own.
        if self.kernel.is_none() {
            self.kernel = Label::parse(&r.kernel).ok();
        }
        if r.commit.is_empty() {
            return Ok(());
        }
        match &self.commit {
            Some(given) => {
                let (g, w) = (given.as_str(), r.commit.as_str());
                if !(g.starts_with(w) || w.starts_with(g)) {
                    return Err(conflict("commit", g, w));
                }
            }
            None => self.commit = CommitSha::parse(&r.commit).ok(),
        }
        self.kernel_of_commit();
        Ok(())
    }

    /// A kernel for runs that name only their commit (a robot's output for a rerun or a
    /// bisection step rarely says its kernel): the commit's first 12 digits, when the upload
    /// names no kernel.
    fn kernel_of_commit(&mut self) {
        if self.kernel.is_none() {
            if let Some(c) = &self.commit {
                self.kernel = Label::parse(app::text::head(c.as_str(), 12)).ok();
            }
        }
    }

    /// Fills in the benchmark and machine of the bisection the runs are for (`id`, whose
    /// `benchmark` and `machine` these are); an error when the upload says otherwise.
    pub fn for_bisection(
        &mut self,
        id: i64,
        benchmark: &str,
        machine: &str,
    ) -> Result<(), IngestError> {
        for (field, slot, wanted) in [
            ("benchmark", &mut self.benchmark, benchmark),
            ("machine", &mut self.machine, machine),
        ] {
            match slot {
                Some(given) if given.as_str() != wanted => {
                    return Err(IngestError::field(
                        field,
                        format!(
                            "bisection {id} is for {field} {wanted}, not {}",
                            given.as_str()
                        ),
                    ))
                }
                Some(_) => {}
                None => *slot = Label::parse(wanted).ok(),
            }
        }
        self.kernel_of_commit();
        Ok(())
    }

    /// A canonical text of the metadata, part of the upload's digest.
    pub fn canonical(&self) -> String {
        let opt = |l: &Option<Label>| l.as_ref().map(|l| l.as_str().to_owned());
        let mut canonical = serde_json::json!({
            "benchmark": opt(&self.benchmark),
            "machine": opt(&self.machine),
            "kernel": opt(&self.kernel),
            "commit": self.commit.as_ref().map(CommitSha::as_str),
            "tags": self.tags.iter().map(|(k, v)| [k.as_str(), v.as_str()]).collect::<Vec<_>>(),
            "format": self.format.map(Format::as_str),
            "mark": self.mark.map(app::trend::Mark::as_str),
            "commit_time": self.commit_time,
        });
        // Only when stated: the digests of uploads without them stay as they were.
        if let Some(c) = &self.calibration {
            canonical["calibration"] = c.as_str().into();
        }
        if let Some(r) = self.request {
            canonical["request"] = r.into();
        }
        if let Some(b) = self.bisection {
            canonical["bisection"] = b.into();
        }
        if let Some(r) = &self.run {
            canonical["run"] = r.as_str().into();
        }
        if !self.kernel_marks.is_empty() {
            canonical["kernel_marks"] = self
                .kernel_marks
                .iter()
                .map(|(k, m)| [k.as_str(), m.as_str()])
                .collect::<Vec<_>>()
                .into();
        }
        if !self.directions.is_empty() {
            canonical["directions"] = self
                .directions
                .iter()
                .map(|(m, d)| [m.as_str(), d.as_str()])
                .collect::<Vec<_>>()
                .into();
        }
        canonical.to_string()
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
