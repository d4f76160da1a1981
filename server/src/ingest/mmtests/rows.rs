// SPDX-License-Identifier: GPL-3.0-or-later
//! mmtests' own intermediate as an upload (`mmtests-rows`): what a `parse-results` prints,
//! `metric factorA factorB interval value extra` tab-separated, for one kernel. A family
//! Perfline has no parser for (added to mmtests next year, or a private shellpack) is then
//! compared as mmtests would, without a new parser. A small header says what the rows do not:
//!
//! ```text
//! # mmtests-rows
//! # benchmark: schbench
//! # kernel: 6.7.0-vanilla
//! # summarise: Normalisedops
//! # preferred: lower
//! # precision: 2
//! Wakeup<TAB>50th<TAB>1<TAB>1<TAB>13<TAB>_
//! ```
//!
//! (`<TAB>` is a tab.) Every header line is optional: `benchmark` and `kernel` may come from the form fields
//! instead (not both, unless they agree); `summarise`, `preferred` and `precision` default to
//! the shellpack the benchmark's name resolves to, else Multiops, lower, 2. Lines marked `R`
//! in the extra field are the operations `ratio=1` lists, as in mmtests.

use app::label::{Direction, Label};
use app::mmtests::Summarise;

use super::family::Line;
use super::lines::{self, Comparing};
use crate::ingest::{resolve_key, Budget, IngestError, ParsedRun, RunBuilder, UploadMeta};

/// The first line that marks the format.
pub const MAGIC: &str = "# mmtests-rows";

/// Whether `head` (the start of a text file) is mmtests rows: the marker line, or a first
/// data line of exactly six tab-separated fields whose fourth and fifth are numbers.
pub fn detect(head: &str) -> bool {
    let mut data = head.lines().filter(|l| !l.trim().is_empty());
    match data.next() {
        Some(l) if l.trim_end() == MAGIC => true,
        Some(l) => {
            let f: Vec<&str> = l.trim_end_matches('\r').split('\t').collect();
            f.len() == 6
                && super::family::looks_like_number(f[3])
                && super::family::looks_like_number(f[4])
        }
        None => false,
    }
}

pub fn parse(
    text: &str,
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let mut header: Vec<(String, String, u64)> = Vec::new();
    let mut rows: Vec<Line> = Vec::new();
    let mut line_numbers: Vec<u64> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i as u64 + 1;
        let l = raw.trim_end_matches('\r');
        if l.trim().is_empty() || l.trim_end() == MAGIC {
            continue;
        }
        if let Some(h) = l.strip_prefix('#') {
            if let Some((k, v)) = h.split_once(':') {
                header.push((k.trim().to_ascii_lowercase(), v.trim().to_owned(), n));
            }
            continue;
        }
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != 6 {
            return Err(IngestError::at_line(
                n,
                format!(
                    "an mmtests row has six tab-separated fields (metric factorA factorB interval value extra), this has {}",
                    f.len()
                ),
            ));
        }
        if f[0].trim().is_empty() {
            return Err(IngestError::at_line(n, "the row's metric is empty"));
        }
        rows.push(Line {
            metric: f[0].into(),
            a: f[1].into(),
            b: f[2].into(),
            interval: f[3].into(),
            value: f[4].into(),
            extra: f[5].into(),
        });
        line_numbers.push(n);
    }
    let get = |key: &str| header.iter().find(|(k, _, _)| k == key);
    let mut own = meta.clone();
    for field in ["benchmark", "kernel", "machine"] {
        let Some((_, v, n)) = get(field) else {
            continue;
        };
        let label = Label::parse(v)
            .map_err(|e| IngestError::at_line(*n, format!("the header's {field} {e}")))?;
        let slot = match field {
            "benchmark" => &mut own.benchmark,
            "kernel" => &mut own.kernel,
            _ => &mut own.machine,
        };
        if let Some(given) = slot.as_ref().filter(|g| g.as_str() != label.as_str()) {
            return Err(IngestError::field(
                field,
                format!("the {field} field says '{given}' but the file's header says '{label}'"),
            ));
        }
        *slot = Some(label);
    }
    let Some(benchmark) = own.benchmark.clone() else {
        return Err(IngestError::field(
            "benchmark",
            "mmtests rows need a benchmark: a '# benchmark: NAME' line or the benchmark field",
        ));
    };
    let shellpack = super::Shellpack::of(benchmark.as_str());
    let summarise = match get("summarise").or_else(|| get("summarize")) {
        Some((_, v, n)) => Summarise::parse(v).ok_or_else(|| {
            IngestError::at_line(
                *n,
                format!(
                    "summarise must be one of {}, not '{}'",
                    Summarise::ALL.map(Summarise::as_str).join(", "),
                    crate::ingest::shorten(v)
                ),
            )
        })?,
        None => shellpack.map_or(Summarise::Multiops, |s| s.summarise),
    };
    let higher = match get("preferred").or_else(|| get("preferhigher")) {
        Some((k, v, n)) => match (k.as_str(), v.to_ascii_lowercase().as_str()) {
            (_, "higher") | ("preferhigher", "true" | "1" | "") => true,
            (_, "lower") | ("preferhigher", "false" | "0") => false,
            _ => {
                return Err(IngestError::at_line(
                    *n,
                    format!(
                        "preferred must be higher or lower, not '{}'",
                        crate::ingest::shorten(v)
                    ),
                ))
            }
        },
        None => shellpack.is_some_and(|s| s.higher),
    };
    let precision = match get("precision").or_else(|| get("decimalplaces")) {
        Some((_, v, n)) => v
            .parse::<usize>()
            .ok()
            .filter(|p| *p <= 10)
            .ok_or_else(|| {
                IngestError::at_line(
                    *n,
                    format!(
                        "precision must be 0 to 10, not '{}'",
                        crate::ingest::shorten(v)
                    ),
                )
            })?,
        None => shellpack.map_or(2, |s| s.precision),
    };
    if rows.is_empty() {
        return Err(IngestError::new("no mmtests rows in the file"));
    }
    let mut builder = RunBuilder::within(budget);
    let key = resolve_key(1, &own, None, None, None, None)?;
    let run = builder.run(key, &own.tags);
    let direction = if higher {
        Direction::Higher
    } else {
        Direction::Lower
    };
    let read = lines::push(
        &mut builder,
        run,
        &rows,
        0,
        |metric| match shellpack {
            Some(s) => crate::ingest::known::mmtests_direction(s.name, metric, higher),
            None => direction,
        },
        |i| line_numbers.get(i).copied().unwrap_or(0),
    )?;
    let mut runs = builder.finish()?;
    let comparing = Comparing {
        summarise,
        higher,
        precision,
    };
    for r in &mut runs {
        r.facts.extend(comparing.facts());
        r.facts.extend(
            read.ratio
                .iter()
                .map(|op| (lines::FACT_RATIO.to_owned(), op.clone())),
        );
    }
    Ok(runs)
}
