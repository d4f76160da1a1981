// SPDX-License-Identifier: GPL-3.0-or-later
//! What a trend reads (`TrendRun`s, in chunks: `trend_block.rs` stores them), and the packed
//! form of a history (`history.packed`: its commits, oldest first).
//!
//! Strings are a little-endian `u16` length and UTF-8 bytes; `u16::MAX` as length means none.
//! Numbers are little-endian.

use std::sync::Arc;

use anyhow::{bail, Context};

use std::collections::HashMap;

use app::label::Direction;
use app::trend::Mark;

pub use crate::ingest::history::HistoryCommit;

/// The history a trend is ordered by: its name and every commit in order.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    pub repo: String,
    pub branch: String,
    pub commits: Vec<HistoryCommit>,
}

/// One run of a trend: where it sits and what a trend needs of its samples of the metric at
/// the param (their count, sum, minimum and maximum).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrendRun {
    pub run_id: i64,
    pub kernel: Arc<str>,
    pub commit: Option<Arc<str>>,
    pub commit_time: Option<i64>,
    pub unit: Option<Arc<str>>,
    pub direction: Direction,
    pub n: usize,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
}

impl TrendRun {
    /// The summary of `values` (not empty) for run `run_id`; the caller fills in the rest.
    pub fn summary(values: &[f64]) -> (usize, f64, f64, f64) {
        (
            values.len(),
            values.iter().sum(),
            values.iter().copied().fold(f64::INFINITY, f64::min),
            values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }
}

/// The runs of a trend, in chunks of run order, and the marks of the marked ones.
#[derive(Debug, Clone, Default)]
pub struct TrendRuns {
    pub chunks: Vec<Arc<[TrendRun]>>,
    pub marks: HashMap<i64, Mark>,
}

impl TrendRuns {
    pub fn iter(&self) -> impl Iterator<Item = &TrendRun> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.iter().all(|c| c.is_empty())
    }
}

const NONE: u16 = u16::MAX;

fn put_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        // Labels are validated to far fewer bytes; cut rather than corrupt if one is not.
        Some(s) => {
            let mut end = s.len().min(NONE as usize - 1);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            out.extend_from_slice(&(end as u16).to_le_bytes());
            out.extend_from_slice(&s.as_bytes()[..end]);
        }
        None => out.extend_from_slice(&NONE.to_le_bytes()),
    }
}

/// A cursor over a packed blob that fails, instead of panicking, on a torn one.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> anyhow::Result<&'a [u8]> {
        if self.bytes.len() < n {
            bail!("a packed record ends {} bytes early", n - self.bytes.len());
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> anyhow::Result<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    fn i64(&mut self) -> anyhow::Result<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    fn string(&mut self) -> anyhow::Result<Option<String>> {
        let len = u16::from_le_bytes(self.array()?);
        if len == NONE {
            return Ok(None);
        }
        let bytes = self.take(len as usize)?;
        Ok(Some(
            std::str::from_utf8(bytes)
                .context("a packed string is not UTF-8")?
                .to_owned(),
        ))
    }
}

/// The packed commits of a history, oldest first.
pub fn pack_commits(commits: &[HistoryCommit]) -> Vec<u8> {
    let mut out = Vec::with_capacity(commits.len() * 80);
    for c in commits {
        put_str(&mut out, Some(&c.sha));
        out.extend_from_slice(&c.time.unwrap_or(i64::MIN).to_le_bytes());
        put_str(&mut out, c.subject.as_deref());
    }
    out
}

pub fn unpack_commits(bytes: &[u8]) -> super::StoreResult<Vec<HistoryCommit>> {
    decode_commits(bytes).map_err(|e| super::StoreError::corrupt(format!("{e:#}")))
}

fn decode_commits(bytes: &[u8]) -> anyhow::Result<Vec<HistoryCommit>> {
    let mut r = Reader { bytes };
    let mut out = Vec::new();
    while !r.bytes.is_empty() {
        let sha = r.string()?.context("a packed commit has no sha")?;
        let time = Some(r.i64()?).filter(|&t| t != i64::MIN);
        let subject = r.string()?;
        out.push(HistoryCommit { sha, time, subject });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn commits_round_trip(commits in proptest::collection::vec(("[0-9a-f]{40}", proptest::option::of(0i64..i64::MAX), proptest::option::of(".{0,30}")), 0..20)) {
            let commits: Vec<HistoryCommit> = commits
                .into_iter()
                .map(|(sha, time, subject)| HistoryCommit { sha, time, subject })
                .collect();
            prop_assert_eq!(unpack_commits(&pack_commits(&commits)).unwrap(), commits);
        }
    }
}
