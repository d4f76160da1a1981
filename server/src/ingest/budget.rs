// SPDX-License-Identifier: GPL-3.0-or-later
//! What one upload may make, over all its files: a [`Budget`]. Its runs, series and samples
//! (each file's [`RunBuilder`](super::RunBuilder) starts from what the files before it used),
//! the rows mmtests' parsers print for it, and the bytes its archives inflate to, the outer
//! archive's and every compressed member's alike, charged as they are inflated (by the tree
//! reader's threads at once), so no file and no member has an allowance of its own.
//!
//! An upload parses its files one after another against one budget
//! ([`super::parse_file_within`]); [`super::parse_file`] gives a file a budget of its own.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use super::{IngestError, MAX_SAMPLES};

/// The most bytes one upload's archives may inflate to, over all its files: every byte the
/// tar reader reads (headers, extension headers, entries it skips) and every byte of text a
/// compressed member inflates to.
pub const MAX_INFLATED: u64 = 1 << 30;
/// The most an upload may inflate per uploaded byte: text logs compress 5–20×, a bomb of
/// zeros ~1000×, a repeated line in `xz -9e` a million times.
pub const INFLATE_RATIO: u64 = 100;
/// Uploads smaller than this ÷ [`INFLATE_RATIO`] may inflate up to it, whatever the ratio.
pub const MIN_INFLATED: u64 = 16 << 20;
/// mmtests' parsers may print one row per this many bytes of the inflation allowance, over
/// all the upload's trees: 262,144 rows for a small upload, [`MAX_SAMPLES`] from one of
/// 6.4 MiB. A row held is ~150 bytes (up to three times that while its parser's list
/// grows), so the rows of a small upload stay under 128 MiB; a row's text is 12 bytes at
/// the least (redis' six rows of a CSV line) and 40 for most, and real trees inflate 5–20×,
/// so a real tree prints a tenth of what it may.
pub const INFLATED_PER_ROW: u64 = 64;

/// One upload's budget, shared by its files (cloned handles count against the same).
#[derive(Debug, Clone)]
pub struct Budget(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    /// The bytes the upload's archives may inflate to.
    allowance: u64,
    inflated: AtomicU64,
    /// What the files parsed so far made.
    runs: AtomicUsize,
    series: AtomicUsize,
    samples: AtomicUsize,
    /// The rows mmtests' parsers printed (before they became samples).
    rows: AtomicU64,
}

/// The inflation allowance was spent: what the reader that found it fails with.
#[derive(Debug, Clone, Copy)]
pub struct Inflated(pub u64);

impl std::fmt::Display for Inflated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the archive inflates to more than {} bytes, its compressed members included (an upload's archives inflate to at most {INFLATE_RATIO}× its size over all its files, at least {MIN_INFLATED}, at most {MAX_INFLATED})",
            self.0
        )
    }
}

impl std::error::Error for Inflated {}

impl From<Inflated> for IngestError {
    fn from(e: Inflated) -> IngestError {
        IngestError::new(e.to_string())
    }
}

impl Default for Budget {
    /// The budget of an upload of a few bytes.
    fn default() -> Budget {
        Budget::for_upload(0)
    }
}

impl Budget {
    /// The budget of an upload of `bytes` bytes (all its files together).
    pub fn for_upload(bytes: u64) -> Budget {
        let allowance = bytes
            .saturating_mul(INFLATE_RATIO)
            .clamp(MIN_INFLATED, MAX_INFLATED);
        Budget(Arc::new(Shared {
            allowance,
            inflated: AtomicU64::new(0),
            runs: AtomicUsize::new(0),
            series: AtomicUsize::new(0),
            samples: AtomicUsize::new(0),
            rows: AtomicU64::new(0),
        }))
    }

    /// A budget whose inflation allowance is `allowance` bytes, whatever the upload's size.
    #[cfg(test)]
    pub(crate) fn with_allowance(allowance: u64) -> Budget {
        let budget = Budget::for_upload(0);
        Budget(Arc::new(Shared {
            allowance,
            ..Arc::into_inner(budget.0).expect("a new budget")
        }))
    }

    /// The bytes the upload's archives may inflate to.
    pub fn allowance(&self) -> u64 {
        self.0.allowance
    }

    /// The bytes inflated so far.
    pub fn inflated(&self) -> u64 {
        self.0.inflated.load(Relaxed)
    }

    /// Charges `bytes` just inflated; [`Inflated`] once the allowance is spent (the bytes
    /// stay charged, so every reader of the upload fails from then on).
    pub fn inflate(&self, bytes: u64) -> Result<(), Inflated> {
        let before = self.0.inflated.fetch_add(bytes, Relaxed);
        if before.saturating_add(bytes) > self.0.allowance {
            return Err(Inflated(self.0.allowance));
        }
        Ok(())
    }

    /// The runs, series and samples the files parsed so far made.
    pub fn spent(&self) -> (usize, usize, usize) {
        (
            self.0.runs.load(Relaxed),
            self.0.series.load(Relaxed),
            self.0.samples.load(Relaxed),
        )
    }

    /// Adds what one file made (its builder, when it finishes).
    pub(crate) fn spend(&self, runs: usize, series: usize, samples: usize) {
        self.0.runs.fetch_add(runs, Relaxed);
        self.0.series.fetch_add(series, Relaxed);
        self.0.samples.fetch_add(samples, Relaxed);
    }

    /// The rows mmtests' parsers may still print for this upload: as many samples as it may
    /// still hold, and one per [`INFLATED_PER_ROW`] bytes of its inflation allowance over all
    /// its trees.
    pub fn rows_left(&self) -> u64 {
        let samples = MAX_SAMPLES.saturating_sub(self.0.samples.load(Relaxed)) as u64;
        let rows = (self.0.allowance / INFLATED_PER_ROW).saturating_sub(self.0.rows.load(Relaxed));
        samples.min(rows)
    }

    /// Adds the rows one tree's parsers printed.
    pub(crate) fn spend_rows(&self, rows: u64) {
        self.0.rows.fetch_add(rows, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowance_follows_the_upload_within_bounds() {
        assert_eq!(Budget::for_upload(0).allowance(), MIN_INFLATED);
        assert_eq!(Budget::for_upload(1 << 20).allowance(), 100 << 20);
        assert_eq!(Budget::for_upload(64 << 20).allowance(), MAX_INFLATED);
        assert_eq!(Budget::default().rows_left(), 262_144);
        assert_eq!(Budget::for_upload(64 << 20).rows_left(), MAX_SAMPLES as u64);
    }

    /// A file's builder starts from what the upload's files before it made, and adds its
    /// own when it finishes.
    #[test]
    fn a_files_builder_counts_after_the_files_before_it() {
        use crate::ingest::{resolve_key, test_meta, Row, RunBuilder, MAX_RUNS};
        let row = |run: usize, value: f64| Row {
            line: 1,
            run,
            metric: "tput",
            param: "",
            unit: None,
            direction: None,
            iteration: None,
            value,
        };
        let key = |kernel: &str| {
            let mut meta = test_meta();
            meta.set("benchmark", "b").unwrap();
            resolve_key(1, &meta, None, None, Some(kernel), None).unwrap()
        };
        let budget = Budget::for_upload(0);
        let mut first = RunBuilder::within(&budget);
        let run = first.run(key("6.1"), &[]);
        first.push(row(run, 1.0)).unwrap();
        first.push(row(run, 2.0)).unwrap();
        assert_eq!(first.finish().unwrap().len(), 1);
        assert_eq!(budget.spent(), (1, 1, 2));
        // The next file of the upload may add what is left of its samples, and runs.
        budget.spend(MAX_RUNS - 2, 0, MAX_SAMPLES - 3);
        let mut next = RunBuilder::within(&budget);
        let run = next.run(key("6.2"), &[]);
        next.push(row(run, 1.0)).unwrap();
        let e = next.push(row(run, 2.0)).unwrap_err();
        assert!(e.message.contains("more than 10000000 samples"), "{e}");
        let mut next = RunBuilder::within(&budget);
        assert_eq!(next.runs_left(), 1);
        let a = next.run(key("6.2"), &[]);
        next.push(row(a, 1.0)).unwrap();
        let b = next.run(key("6.3"), &[]);
        let e = next.push(row(b, 1.0)).unwrap_err();
        assert!(e.message.contains("more than 5000 runs"), "{e}");
    }

    #[test]
    fn inflation_is_shared_by_every_handle() {
        let budget = Budget::for_upload(0);
        let other = budget.clone();
        budget.inflate(MIN_INFLATED - 1).unwrap();
        other.inflate(1).unwrap();
        assert!(other.inflate(1).is_err());
        assert!(budget.inflate(0).is_err(), "spent stays spent");
        assert!(Budget::for_upload(0).inflate(1).is_ok());
    }
}
