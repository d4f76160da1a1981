// SPDX-License-Identifier: GPL-3.0-or-later
//! Turning uploaded bytes into runs and samples. Pure functions: no I/O, no SQL.
//!
//! This file is the dispatcher: which format a file is ([`Format`], detected or given) and
//! [`parse_file`], which hands it to its parser (one module per format family). Every parser
//! feeds a [`RunBuilder`] (`run`); the request's own fields are [`UploadMeta`] (`meta`); a
//! refusal is an [`IngestError`] (`error`); what a whole upload may make, over all its files,
//! is its [`Budget`] (`budget`).

pub mod facts;
pub mod folded;
mod generic;
mod hackbench;
pub mod history;
pub mod known;
mod lkp;
pub mod lkp_mail;
pub mod mmtests;
mod mmtests_directions;
mod netperf;
mod sysbench;

pub mod budget;
mod error;
#[cfg(test)]
mod linear;
mod meta;
mod run;

pub use budget::{Budget, Inflated};
pub use error::IngestError;
pub(crate) use meta::{finish_tags, shorten, tag};
pub use meta::{parse_tags, Tags, UploadMeta};
pub use run::{ParsedRun, ParsedSeries, Row, RunBuilder, RunKey};

use app::label::{CommitSha, Label};

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

    /// This thread's cancellation flag, to hand to threads working for it.
    pub fn current() -> Option<Arc<AtomicBool>> {
        FLAG.with(|f| f.borrow().clone())
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

/// The most runs one upload may hold, over all its files (a run is one benchmark, machine,
/// kernel and commit): a back-fill of a few thousand commits fits; forty thousand kernels from
/// one request do not.
pub const MAX_RUNS: usize = 5_000;
/// The most series (metric × param) one upload may hold, over all its runs and files.
pub const MAX_SERIES: usize = 200_000;
/// The most samples one upload may hold, over all its files (a 64 MiB CSV holds at most ~8
/// million).
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
    /// mmtests' intermediate rows (`mmtests::rows`).
    MmtestsRows,
    /// Folded stacks (`stackcollapse-perf.pl`), kept beside the upload's runs (`folded`).
    Folded,
}

/// Every format once: its name (what `format=` takes and what answers say), then the other
/// names it is known by. Parsing, printing and the "Perfline knows" list all read this.
const FORMATS: &[(Format, &str, &[&str])] = &[
    (Format::Csv, "csv", &["generic-csv"]),
    (Format::Json, "json", &["generic-json"]),
    (Format::Hackbench, "hackbench", &[]),
    (Format::LkpRaw, "lkp", &["lkp-raw"]),
    (Format::LkpStats, "lkp-stats", &["stats.json"]),
    (Format::LkpMatrix, "lkp-matrix", &["matrix.json"]),
    (Format::Mmtests, "mmtests", &[]),
    (Format::Netperf, "netperf", &[]),
    (Format::Sysbench, "sysbench", &[]),
    (Format::MmtestsRows, "mmtests-rows", &["parse-results"]),
    (Format::Folded, "folded", &["stackcollapse"]),
];

impl Format {
    /// Every format's name, comma-separated (for messages that list them).
    pub fn known() -> String {
        FORMATS
            .iter()
            .map(|(_, name, _)| *name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn parse(raw: &str) -> Option<Format> {
        let raw = raw.trim().to_ascii_lowercase();
        FORMATS
            .iter()
            .find(|(_, name, aliases)| *name == raw || aliases.contains(&raw.as_str()))
            .map(|(format, _, _)| *format)
    }

    pub fn as_str(self) -> &'static str {
        FORMATS
            .iter()
            .find(|(format, _, _)| *format == self)
            .map_or("unknown", |(_, name, _)| name)
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
        if mmtests::rows::detect(&head) {
            return Some(Format::MmtestsRows);
        }
        if folded::detect(&head) {
            return Some(Format::Folded);
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

/// Parses one file in the given or detected format, as an upload of its own.
pub fn parse_file(
    bytes: &[u8],
    format: Option<Format>,
    meta: &UploadMeta,
) -> Result<(Format, Vec<ParsedRun>), IngestError> {
    parse_file_reporting(bytes, format, meta).map(|(f, runs, _)| (f, runs))
}

/// [`parse_file`], with what was read of each directory of an mmtests tree.
pub fn parse_file_reporting(
    bytes: &[u8],
    format: Option<Format>,
    meta: &UploadMeta,
) -> Result<(Format, Vec<ParsedRun>, Vec<app::types::TreeDir>), IngestError> {
    let budget = Budget::for_upload(bytes.len() as u64);
    parse_file_within(bytes, format, meta, &budget)
}

/// [`parse_file_reporting`] of one file of an upload: what it makes, and what its archive
/// inflates to, count against the upload's `budget` (spent by the files before it).
pub fn parse_file_within(
    bytes: &[u8],
    format: Option<Format>,
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<(Format, Vec<ParsedRun>, Vec<app::types::TreeDir>), IngestError> {
    if strip_bom(bytes).iter().all(u8::is_ascii_whitespace) {
        return Err(IngestError::new("the file is empty"));
    }
    let format = match format {
        Some(f) => f,
        None => Format::detect(bytes).ok_or_else(|| {
            IngestError::new(format!(
                "unrecognised format; Perfline knows: {} (a generic CSV starts with a header such as benchmark,metric,param,iteration,value)",
                Format::known()
            ))
        })?,
    };
    let mut directories = Vec::new();
    let runs = match format {
        Format::Csv => parse_csv(bytes, meta, budget)?,
        Format::Json => parse_json(bytes, meta, budget)?,
        Format::Hackbench => hackbench::parse(&text(bytes)?, meta, budget)?,
        Format::Sysbench => sysbench::parse(&text(bytes)?, meta, budget)?,
        Format::Netperf => netperf::parse(&text(bytes)?, meta, budget)?,
        Format::LkpRaw => lkp::parse_raw(&text(bytes)?, meta, budget)?,
        Format::LkpStats => lkp::parse_stats(bytes, meta, budget)?,
        Format::LkpMatrix => lkp::parse_matrix(bytes, meta, budget)?,
        Format::MmtestsRows => mmtests::rows::parse(&text(bytes)?, meta, budget)?,
        // Checked whole, then kept as it is beside the upload's runs: it makes none.
        Format::Folded => {
            folded::parse(&text(bytes)?)?;
            Vec::new()
        }
        Format::Mmtests => {
            let (runs, dirs) = mmtests::parse_tree(bytes, meta, budget)?;
            directories = dirs;
            runs
        }
    };
    check_tags_against_facts(&runs, meta)?;
    Ok((format, runs, directories))
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
        commit: match commit.map(str::trim).filter(|s| !s.is_empty()) {
            Some(v) => Some(CommitSha::parse(v).map_err(|e| IngestError {
                field: Some("commit".to_owned()),
                ..IngestError::at_line(line, format!("commit {e}"))
            })?),
            None => meta.commit.clone(),
        },
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
        Format::Folded,
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

#[cfg(test)]
mod format_tests {
    use super::{Format, FORMATS};

    #[test]
    fn every_format_has_one_name_that_parses_back() {
        for (format, name, aliases) in FORMATS {
            assert_eq!(Format::parse(name), Some(*format), "{name}");
            assert_eq!(
                Format::parse(&name.to_ascii_uppercase()),
                Some(*format),
                "{name}"
            );
            assert_eq!(format.as_str(), *name);
            for alias in *aliases {
                assert_eq!(Format::parse(alias), Some(*format), "{alias}");
            }
        }
        // Every variant has its row (the one the "Perfline knows" list is made from).
        let all = [
            Format::Csv,
            Format::Json,
            Format::Hackbench,
            Format::LkpRaw,
            Format::LkpStats,
            Format::LkpMatrix,
            Format::Mmtests,
            Format::Netperf,
            Format::Sysbench,
            Format::MmtestsRows,
            Format::Folded,
        ];
        for format in all {
            assert_ne!(
                format.as_str(),
                "unknown",
                "{format:?} has no row in FORMATS"
            );
            assert!(Format::known().split(", ").any(|n| n == format.as_str()));
        }
        assert_eq!(Format::parse("auto"), None);
    }
}
