// SPDX-License-Identifier: GPL-3.0-or-later
//! mmtests' intermediate rows ([`Line`]) as Perfline's series: an operation
//! `metric[-factorA][-factorB]` is the series whose param is the last factor given and whose
//! metric is the rest (`tcpstream send 64` is metric `tcpstream-send`, param `64`; `files_sec
//! 4 _` is `files_sec`, `4`), so the row label is mmtests' operation name. Samples are
//! numbered in the order the parser printed them, from `iter × ITER_STRIDE + 1`, so the
//! `iter-N` directories of a kernel pool as mmtests pools them.
//!
//! How mmtests compares the family is kept with each run as facts (`mmtests.*`), read back by
//! the comparison: the summary style, the preferred direction, the decimal places and the
//! operations its `--print-ratio` lists.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use app::label::Direction;
use app::mmtests::Summarise;

use super::family::{looks_like_number, Line};
use crate::ingest::{IngestError, RunBuilder};

/// The hasher of a directory's maps (keys from the logs; seeded per process).
type Fast = foldhash::fast::RandomState;

/// Iterations of later `iter-N` directories are offset by N × this, to stay distinct.
pub const ITER_STRIDE: i64 = 100_000;

/// The facts that say how mmtests compares a run's benchmark.
pub const FACT_SUMMARISE: &str = "mmtests.summarise";
pub const FACT_PREFERRED: &str = "mmtests.preferred";
pub const FACT_PRECISION: &str = "mmtests.precision";
pub const FACT_RATIO: &str = "mmtests.ratio";
/// Where the benchmark ran in its tree (1 = first), as its `tests-activity` says: the order
/// of a whole tree's report.
pub const FACT_POSITION: &str = app::tree::POSITION_FACT;

/// How mmtests compares a benchmark: from its shellpack, or stated with an upload of rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comparing {
    pub summarise: Summarise,
    pub higher: bool,
    pub precision: usize,
}

impl Comparing {
    /// The run facts that record it.
    pub fn facts(&self) -> [(String, String); 3] {
        [
            (FACT_SUMMARISE.into(), self.summarise.as_str().into()),
            (
                FACT_PREFERRED.into(),
                if self.higher { "Higher" } else { "Lower" }.into(),
            ),
            (FACT_PRECISION.into(), self.precision.to_string()),
        ]
    }
}

/// What one directory's lines gave.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Read {
    pub operations: usize,
    pub samples: usize,
    /// Lines whose value or interval is not a number (mmtests keeps no sample for them).
    pub not_numbers: usize,
    /// The first of them: its operation and value.
    pub first_not_number: Option<(String, String)>,
    /// Operations whose lines are marked `R`, in first-seen order.
    pub ratio: Vec<String>,
}

/// The series metric and param of an operation's line, borrowed from it where they can be.
pub fn metric_and_param(l: &Line) -> (Cow<'_, str>, &str) {
    let given = |f: &str| !f.is_empty() && f != "_";
    match (given(&l.a), given(&l.b)) {
        (true, true) => (Cow::Owned(format!("{}-{}", l.metric, l.a)), &l.b),
        (true, false) => (Cow::Borrowed(&l.metric), &l.a),
        (false, true) => (Cow::Borrowed(&l.metric), &l.b),
        (false, false) => (Cow::Borrowed(&l.metric), ""),
    }
}

/// One series' samples of a directory, in the order its lines gave them.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub metric: String,
    pub param: String,
    pub direction: Direction,
    /// `(iteration, value)`.
    pub samples: Vec<(i64, f64)>,
    /// The source line of each sample.
    pub lines: Vec<u64>,
}

/// `lines` (of the `iter`-th directory) as series, in first-seen order, and what they gave.
/// Pure, so a tree's directories are grouped in parallel; [`push_groups`] adds them to a run.
/// `direction` gives each mmtests metric's direction; `line_of(i)` the source line to name in
/// errors.
pub fn group(
    lines: &[Line],
    iter: i64,
    direction: impl Fn(&str) -> Direction,
    line_of: impl Fn(usize) -> u64,
) -> Result<(Read, Vec<Group>), IngestError> {
    let mut read = Read::default();
    let mut groups: Vec<Group> = Vec::new();
    // Each series' group, by (metric, param) borrowed from the lines where they can be.
    let mut index: HashMap<(Cow<'_, str>, &str), usize, Fast> = HashMap::default();
    // Each mmtests metric's direction, looked up once.
    let mut directions: HashMap<&str, Direction, Fast> = HashMap::default();
    let mut ratio_seen: HashSet<String, Fast> = HashSet::default();
    // The operation of a line decides its group and its ratio mark: a line of the same
    // operation as the one before (as sorted output mostly is) takes that one's, unhashed.
    let same_operation = |x: &Line, y: &Line| x.metric == y.metric && x.a == y.a && x.b == y.b;
    let mut last_ratio: Option<&Line> = None;
    let mut last_group: Option<(&Line, usize)> = None;
    for (i, l) in lines.iter().enumerate() {
        if l.is_ratio() && !last_ratio.is_some_and(|r| same_operation(r, l)) {
            let op = l.operation();
            if ratio_seen.insert(op.clone()) {
                read.ratio.push(op);
            }
            last_ratio = Some(l);
        }
        let number = Some(l.value.trim())
            .filter(|v| looks_like_number(v) && looks_like_number(&l.interval))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite());
        let Some(value) = number else {
            read.not_numbers += 1;
            read.first_not_number
                .get_or_insert_with(|| (l.operation(), l.value.to_string()));
            continue;
        };
        let g = match last_group {
            Some((previous, g)) if same_operation(previous, l) => g,
            _ => {
                let (metric, param) = metric_and_param(l);
                // (Free for a borrowed metric; a metric of two factors is built anyway.)
                *index.entry((metric.clone(), param)).or_insert_with(|| {
                    read.operations += 1;
                    groups.push(Group {
                        metric: metric.into_owned(),
                        param: param.to_owned(),
                        direction: *directions
                            .entry(l.metric.as_str())
                            .or_insert_with(|| direction(&l.metric)),
                        samples: Vec::new(),
                        lines: Vec::new(),
                    });
                    groups.len() - 1
                })
            }
        };
        last_group = Some((l, g));
        let group = &mut groups[g];
        let n = group.samples.len() as i64 + 1;
        if n >= ITER_STRIDE {
            return Err(IngestError::at_line(
                line_of(i),
                format!(
                    "more than {} samples of operation {}",
                    ITER_STRIDE - 1,
                    l.operation()
                ),
            ));
        }
        group.samples.push((iter * ITER_STRIDE + n, value));
        group.lines.push(line_of(i));
        read.samples += 1;
    }
    Ok((read, groups))
}

/// Adds a directory's [`group`]s to run `run`.
pub fn push_groups(
    builder: &mut RunBuilder,
    run: usize,
    groups: &[Group],
) -> Result<(), IngestError> {
    for g in groups {
        builder.push_group(run, &g.metric, &g.param, g.direction, &g.samples, &g.lines)?;
    }
    Ok(())
}

/// Pushes `lines` (of the `iter`-th directory) into `run`: [`group`], then [`push_groups`].
pub fn push(
    builder: &mut RunBuilder,
    run: usize,
    lines: &[Line],
    iter: i64,
    direction: impl Fn(&str) -> Direction,
    line_of: impl Fn(usize) -> u64,
) -> Result<Read, IngestError> {
    let (read, groups) = group(lines, iter, direction, line_of)?;
    push_groups(builder, run, &groups)?;
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_factor_is_the_param() {
        let cases = [
            (
                Line::new("tcpstream", "send", "64", "1", "1"),
                ("tcpstream-send", "64"),
            ),
            (
                Line::new("files_sec", "4", "_", "1", "1"),
                ("files_sec", "4"),
            ),
            (Line::new("time", "_", "_", "1", "1"), ("time", "")),
            (Line::new("Elapsed", "", "8", "1", "1"), ("Elapsed", "8")),
        ];
        for (line, (metric, param)) in cases {
            let (m, p) = metric_and_param(&line);
            assert_eq!((m.as_ref(), p), (metric, param));
            let label = app::compare::row_label(&m, p);
            assert_eq!(label, line.operation());
        }
    }
}
