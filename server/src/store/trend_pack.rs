//! The packed forms a trend is read from, so that a trend of 50,000 runs reads a few hundred rows
//! instead of 50,000 (the driver hands rows over at ~7 µs each):
//!
//! - `trend_chunk.packed`: one record per run of a (benchmark, machine, metric, param), in run
//!   order, with what a trend needs of its samples (count, sum, min, max) and of the run
//!   (kernel, commit, commit time), behind a table of the chunk's distinct strings (a commit's
//!   runs share its sha and kernel). Marks are not in it: they change, and are read from `run`.
//! - `history.packed`: the commits of a history, oldest first.
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

/// Runs per `trend_chunk` row: an upload rewrites at most one partly filled chunk per series
/// key (~64 KB), and a trend of 50,000 runs has ~50 rows, all but the last of them immutable.
pub const CHUNK_RUNS: i64 = 1024;

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

    fn f64(&mut self) -> anyhow::Result<f64> {
        Ok(f64::from_le_bytes(self.array()?))
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

/// The strings of a chunk, each stored once.
#[derive(Default)]
struct Strings<'a> {
    index: HashMap<&'a str, u32>,
    list: Vec<&'a str>,
}

impl<'a> Strings<'a> {
    fn id(&mut self, s: Option<&'a str>) -> u32 {
        let Some(s) = s else { return NO_STRING };
        *self.index.entry(s).or_insert_with(|| {
            self.list.push(s);
            self.list.len() as u32 - 1
        })
    }
}

const NO_STRING: u32 = u32::MAX;

/// A chunk of run records: the chunk's distinct strings (kernels, commits, units), then one
/// fixed-size record per run that names its strings by index.
pub fn pack_chunk(runs: &[TrendRun]) -> Vec<u8> {
    let mut strings = Strings::default();
    let mut records = Vec::with_capacity(runs.len() * RECORD);
    for run in runs {
        records.extend_from_slice(&run.run_id.to_le_bytes());
        records.extend_from_slice(&run.commit_time.unwrap_or(i64::MIN).to_le_bytes());
        records.extend_from_slice(&(run.n as u64).to_le_bytes());
        for v in [run.sum, run.min, run.max] {
            records.extend_from_slice(&v.to_le_bytes());
        }
        records.push(match run.direction {
            Direction::Higher => 0,
            Direction::Lower => 1,
        });
        for s in [
            run.unit.as_deref(),
            Some(&*run.kernel),
            run.commit.as_deref(),
        ] {
            records.extend_from_slice(&strings.id(s).to_le_bytes());
        }
    }
    let mut out = Vec::with_capacity(records.len() + strings.list.len() * 20 + 4);
    out.extend_from_slice(&(strings.list.len() as u32).to_le_bytes());
    for s in &strings.list {
        put_str(&mut out, Some(s));
    }
    out.extend_from_slice(&records);
    out
}

/// Bytes of one run record in a chunk.
const RECORD: usize = 6 * 8 + 1 + 3 * 4;

/// Reads every record of a chunk, appending to `out`.
pub fn unpack_chunk(bytes: &[u8], out: &mut Vec<TrendRun>) -> super::StoreResult<()> {
    decode_chunk(bytes, out).map_err(|e| super::StoreError::corrupt(format!("{e:#}")))
}

fn decode_chunk(bytes: &[u8], out: &mut Vec<TrendRun>) -> anyhow::Result<()> {
    let mut r = Reader { bytes };
    let count = u32::from_le_bytes(r.array()?) as usize;
    let mut strings: Vec<Arc<str>> = Vec::with_capacity(count.min(bytes.len() / 2));
    for _ in 0..count {
        strings.push(
            r.string()?
                .context("a chunk's string table holds a none")?
                .into(),
        );
    }
    let string = |id: u32| -> anyhow::Result<Option<Arc<str>>> {
        if id == NO_STRING {
            return Ok(None);
        }
        let s = strings
            .get(id as usize)
            .with_context(|| format!("a packed run names string {id} of {}", strings.len()))?;
        Ok(Some(s.clone()))
    };
    if !r.bytes.len().is_multiple_of(RECORD) {
        bail!(
            "a chunk's records are {} bytes, not whole records",
            r.bytes.len()
        );
    }
    out.reserve(r.bytes.len() / RECORD);
    while !r.bytes.is_empty() {
        let run_id = r.i64()?;
        let commit_time = Some(r.i64()?).filter(|&t| t != i64::MIN);
        let n = u64::from_le_bytes(r.array()?) as usize;
        let (sum, min, max) = (r.f64()?, r.f64()?, r.f64()?);
        let direction = match r.array::<1>()?[0] {
            0 => Direction::Higher,
            1 => Direction::Lower,
            d => bail!("a packed run has direction {d}"),
        };
        let unit = string(u32::from_le_bytes(r.array()?))?;
        let kernel =
            string(u32::from_le_bytes(r.array()?))?.context("a packed run has no kernel")?;
        let commit = string(u32::from_le_bytes(r.array()?))?;
        out.push(TrendRun {
            run_id,
            kernel,
            commit,
            commit_time,
            unit,
            direction,
            n,
            sum,
            min,
            max,
        });
    }
    Ok(())
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

    fn run() -> impl Strategy<Value = TrendRun> {
        (
            (
                any::<i64>(),
                "[a-c]{0,2}",
                proptest::option::of("[0-9a]{7,8}"),
            ),
            (
                proptest::option::of(any::<i64>()),
                proptest::option::of("[sm]?"),
            ),
            (
                any::<u32>(),
                any::<f64>(),
                any::<f64>(),
                any::<f64>(),
                any::<bool>(),
            ),
        )
            .prop_map(
                |((run_id, kernel, commit), (time, unit), (n, sum, min, max, lower))| TrendRun {
                    run_id,
                    kernel: kernel.into(),
                    commit: commit.map(Into::into),
                    // i64::MIN stands for none.
                    commit_time: time.filter(|&t| t != i64::MIN),
                    unit: unit.map(Into::into),
                    direction: if lower {
                        Direction::Lower
                    } else {
                        Direction::Higher
                    },
                    n: n as usize,
                    sum,
                    min,
                    max,
                },
            )
    }

    type Bits = (
        i64,
        Arc<str>,
        Option<Arc<str>>,
        Option<i64>,
        Option<Arc<str>>,
        usize,
        [u64; 3],
        Direction,
    );

    fn bits(r: &TrendRun) -> Bits {
        (
            r.run_id,
            r.kernel.clone(),
            r.commit.clone(),
            r.commit_time,
            r.unit.clone(),
            r.n,
            [r.sum.to_bits(), r.min.to_bits(), r.max.to_bits()],
            r.direction,
        )
    }

    proptest! {
        /// Few distinct strings, so that the string table is shared by many records.
        #[test]
        fn chunks_round_trip(runs in proptest::collection::vec(run(), 0..40)) {
            let bytes = pack_chunk(&runs);
            let mut back = Vec::new();
            unpack_chunk(&bytes, &mut back).unwrap();
            prop_assert_eq!(back.iter().map(bits).collect::<Vec<_>>(), runs.iter().map(bits).collect::<Vec<_>>());
            // A torn chunk is an error, never a panic.
            prop_assert!(unpack_chunk(&bytes[..bytes.len() - 1], &mut Vec::new()).is_err());
        }

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
