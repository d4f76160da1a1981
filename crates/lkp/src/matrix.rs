// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! Runs and matrices (README A): a run is one `stats.json`, a commit's matrix its runs side by
//! side.
//!
//! - [`unite`] is `unite_stats` (`lib/matrix.rb:437`) applied to each run in turn:
//!   `add_stats_to_matrix` (`lib/stats.rb:794`), then `unite_remove_denylist_stats` (per-CPU
//!   `sched_debug` keys) and `unite_remove_empty_stats` (keys that are Integer 0 in every run)
//!   after every run, so a key dropped and seen again later moves to the end (A2, A3);
//! - [`matrix_from_runs`] is `matrix_from_stats_files` (`lib/stats.rb:811`), no filtering
//!   (what lkp-tests used for `10-string-values`, A5);
//! - both end as `MResultRoot#matrix` loads a matrix: every key padded with Integer 0 to the
//!   run count (`matrix_fill_missing_zeros`, A1);
//! - [`Matrix::complete`] is `complete_matrix` / `filter_incomplete_run` (A6).

use std::borrow::Cow;
use std::collections::HashMap;

/// The maps of keys: foldhash, not SipHash (a report hashes ~100,000 keys; their number is
/// bounded at upload, so a crafted collision set cannot grow).
type KeyMap = HashMap<String, usize, foldhash::fast::RandomState>;

use super::json::Json;
use super::num::Num;

/// The key marking incomplete runs (`last_state.is_incomplete_run` = 1).
pub const INCOMPLETE_RUN: &str = "last_state.is_incomplete_run";

/// lkp-tests' bookkeeping key in matrices (the runs' paths); not a stat.
const STATS_SOURCE: &str = "stats_source";

/// A stat value: a JSON integer, a JSON float, or a string (skipped by the comparison).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
    Str(String),
}

impl Value {
    /// The number, unless it is a string.
    pub fn num(&self) -> Option<Num> {
        match self {
            Value::Int(i) => Some(Num::Int(*i)),
            Value::Float(f) => Some(Num::Float(*f)),
            Value::Str(_) => None,
        }
    }

    fn is_int_zero(&self) -> bool {
        matches!(self, Value::Int(0))
    }

    fn from_json(key: &str, j: Json) -> Result<Value, LkpError> {
        match j {
            Json::Int(i) => Ok(Value::Int(i)),
            Json::Float(f) => Ok(Value::Float(f)),
            Json::Str(s) => Ok(Value::Str(s)),
            other => Err(LkpError::Shape(format!(
                "{key}: not a number or string: {other:?}"
            ))),
        }
    }
}

/// Input that is not what lkp-tests stores.
#[derive(Debug, thiserror::Error)]
pub enum LkpError {
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Shape(String),
}

/// One run's stats (a `stats.json`): keys in their order, each with one value. Setting a key
/// again keeps its place and replaces the value (a Ruby Hash).
#[derive(Debug, Clone, Default)]
pub struct Run {
    entries: Vec<(String, Value)>,
    /// Built when first needed: a run made of keys known to be unique
    /// ([`Run::push_unique`]) and only iterated never hashes them.
    index: std::sync::OnceLock<KeyMap>,
}

impl PartialEq for Run {
    fn eq(&self, other: &Run) -> bool {
        self.entries == other.entries
    }
}

impl Run {
    pub fn new() -> Run {
        Run::default()
    }

    /// The index, built from the entries the first time.
    fn built_index(&self) -> &KeyMap {
        self.index.get_or_init(|| {
            self.entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.clone(), i))
                .collect()
        })
    }

    fn index(&mut self) -> &mut KeyMap {
        self.built_index();
        self.index.get_mut().expect("built above")
    }

    /// Sets `key` (appended if new).
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        let key = key.into();
        let len = self.entries.len();
        match self.index().entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let i = *e.get();
                self.entries[i].1 = value;
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                let key = e.key().clone();
                e.insert(len);
                self.entries.push((key, value));
            }
        }
    }

    /// Appends `key`, which the caller knows is not in the run yet (a stored run's series are
    /// unique by name).
    pub fn push_unique(&mut self, key: String, value: Value) {
        if let Some(index) = self.index.get_mut() {
            index.insert(key.clone(), self.entries.len());
        }
        self.entries.push((key, value));
    }

    /// Parses a `stats.json`: one flat object of numbers and strings.
    pub fn from_json(text: &str) -> Result<Run, LkpError> {
        let Json::Object(entries) = Json::parse(text)? else {
            return Err(LkpError::Shape("stats.json is not an object".into()));
        };
        let mut run = Run::new();
        for (k, v) in entries {
            let v = Value::from_json(&k, v)?;
            run.insert(k, v);
        }
        Ok(run)
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.built_index().get(key).map(|&i| &self.entries[i].1)
    }

    /// The keys and values in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A commit's matrix: each key with one value per run (padded with Integer 0), keys in the
/// order lkp-tests keeps them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Matrix {
    keys: Vec<String>,
    values: Vec<Vec<Value>>,
    index: KeyMap,
    runs: usize,
}

impl Matrix {
    /// An empty matrix of `runs` runs.
    fn with_runs(runs: usize) -> Matrix {
        Matrix {
            runs,
            ..Matrix::default()
        }
    }

    /// The number of runs (`matrix_cols`: the `stats_source` entries).
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// A key's values, one per run.
    pub fn get(&self, key: &str) -> Option<&[Value]> {
        self.position(key).map(|i| self.values[i].as_slice())
    }

    pub(crate) fn position(&self, key: &str) -> Option<usize> {
        self.index.get(key).copied()
    }

    pub(crate) fn key_at(&self, i: usize) -> &str {
        &self.keys[i]
    }

    pub(crate) fn values_at(&self, i: usize) -> &[Value] {
        &self.values[i]
    }

    /// The keys with their values, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[Value])> {
        self.keys
            .iter()
            .map(String::as_str)
            .zip(self.values.iter().map(Vec::as_slice))
    }

    /// The column of `key` (appended if new), padded with Integer 0 to `columns` entries.
    fn column(&mut self, key: &str, columns: usize) -> &mut Vec<Value> {
        let i = match self.index.get(key) {
            Some(&i) => i,
            None => {
                self.index.insert(key.to_owned(), self.keys.len());
                self.keys.push(key.to_owned());
                self.values.push(Vec::new());
                self.keys.len() - 1
            }
        };
        let col = &mut self.values[i];
        if col.len() < columns {
            col.resize(columns, Value::Int(0));
        }
        col
    }

    /// `add_stats_to_matrix`: appends one run, as run number `columns` (0-based).
    fn add_run(&mut self, run: &Run, columns: usize) {
        for (k, v) in run.iter() {
            // `unite_stats` and `matrix_from_stats_files` overwrite a run's own `stats_source`.
            if k != STATS_SOURCE {
                self.column(k, columns).push(v.clone());
            }
        }
    }

    /// `matrix_fill_missing_zeros`.
    fn fill_missing_zeros(mut self) -> Matrix {
        let runs = self.runs;
        for v in &mut self.values {
            if v.len() < runs {
                v.resize(runs, Value::Int(0));
            }
        }
        self
    }

    /// Reads a `matrix.json` as `MResultRoot#matrix` does: `stats_source` gives the run count
    /// and every other key is padded with Integer 0 to it.
    pub fn from_json(text: &str) -> Result<Matrix, LkpError> {
        let Json::Object(entries) = Json::parse(text)? else {
            return Err(LkpError::Shape("matrix.json is not an object".into()));
        };
        let mut columns: Vec<(String, Vec<Value>)> = Vec::with_capacity(entries.len());
        let mut runs = None;
        for (k, v) in entries {
            let Json::Array(items) = v else {
                return Err(LkpError::Shape(format!("{k}: not an array")));
            };
            if k == STATS_SOURCE {
                runs = Some(items.len());
                continue;
            }
            let values = items
                .into_iter()
                .map(|j| Value::from_json(&k, j))
                .collect::<Result<Vec<_>, _>>()?;
            columns.push((k, values));
        }
        // Without `stats_source` lkp-tests takes the longer of the first and last keys' columns.
        let runs = runs.unwrap_or_else(|| {
            let first = columns.first().map_or(0, |c| c.1.len());
            let last = columns.last().map_or(0, |c| c.1.len());
            first.max(last)
        });
        let mut m = Matrix::with_runs(runs);
        for (k, v) in columns {
            let col = m.column(&k, 0);
            *col = v;
        }
        Ok(m.fill_missing_zeros())
    }

    /// `complete_matrix`: without the runs whose `last_state.is_incomplete_run` is 1, and
    /// without that key (the matrix itself when it has no such key).
    pub fn complete(&self) -> Cow<'_, Matrix> {
        let Some(flags) = self.get(INCOMPLETE_RUN) else {
            return Cow::Borrowed(self);
        };
        let keep: Vec<usize> = (0..self.runs)
            .filter(|&c| {
                !flags
                    .get(c)
                    .and_then(Value::num)
                    .is_some_and(|n| n.num_eq(Num::Int(1)))
            })
            .collect();
        let mut m = Matrix::with_runs(keep.len());
        for (k, v) in self.iter() {
            if k != INCOMPLETE_RUN {
                let col = m.column(k, 0);
                col.extend(keep.iter().filter_map(|&c| v.get(c).cloned()));
            }
        }
        Cow::Owned(m)
    }
}

/// `unite_remove_denylist_stats`: `^sched_debug.*\.[0-9]+$`, the per-CPU values.
fn is_per_cpu_sched_debug(key: &str) -> bool {
    let Some(rest) = key.strip_prefix("sched_debug") else {
        return false;
    };
    let before = rest.trim_end_matches(|c: char| c.is_ascii_digit());
    before.len() < rest.len() && before.ends_with('.')
}

/// A matrix being united: keys in slots, a dropped key's slot emptied (so a key seen again
/// takes a new slot at the end, as in lkp-tests' Hash).
#[derive(Default)]
struct Uniting {
    slots: Vec<Option<(String, Vec<Value>)>>,
    index: KeyMap,
    /// The slot of each key of the last run, by its place: a robot's runs list their keys in
    /// the same order, so a key is found by one comparison instead of hashing it.
    last: Vec<usize>,
}

impl Uniting {
    /// `add_stats_to_matrix` for run number `columns` (0-based), without the per-CPU
    /// `sched_debug` keys (dropped again right after each run; the other keys' order is the same).
    fn add_run(&mut self, run: &Run, columns: usize) {
        let mut places = Vec::with_capacity(run.len());
        for (j, (k, v)) in run.iter().enumerate() {
            if k == STATS_SOURCE || is_per_cpu_sched_debug(k) {
                places.push(usize::MAX);
                continue;
            }
            // A live slot holding this key is the one the index names (keys are unique).
            let guess =
                self.last.get(j).copied().filter(
                    |&slot| matches!(self.slots.get(slot), Some(Some((key, _))) if key == k),
                );
            let slot = match guess.or_else(|| self.index.get(k).copied()) {
                Some(slot) => slot,
                None => {
                    self.index.insert(k.to_owned(), self.slots.len());
                    self.slots
                        .push(Some((k.to_owned(), Vec::with_capacity(columns + 1))));
                    self.slots.len() - 1
                }
            };
            places.push(slot);
            if let Some((_, col)) = &mut self.slots[slot] {
                col.resize(columns.max(col.len()), Value::Int(0));
                col.push(v.clone());
            }
        }
        self.last = places;
    }

    /// `unite_remove_empty_stats`: drops the keys that are Integer 0 in every run so far.
    fn remove_empty(&mut self) {
        for slot in &mut self.slots {
            if slot
                .as_ref()
                .is_some_and(|(_, v)| v.iter().all(Value::is_int_zero))
            {
                if let Some((k, _)) = slot.take() {
                    self.index.remove(&k);
                }
            }
        }
    }

    fn finish(mut self, runs: usize) -> Matrix {
        let mut m = Matrix::with_runs(runs);
        let mut position = vec![0; self.slots.len()];
        for (slot, entry) in self.slots.into_iter().enumerate() {
            if let Some((k, v)) = entry {
                position[slot] = m.keys.len();
                m.keys.push(k);
                m.values.push(v);
            }
        }
        for p in self.index.values_mut() {
            *p = position[*p];
        }
        m.index = self.index;
        m.fill_missing_zeros()
    }
}

/// A commit's matrix as `unite_stats` builds it from its runs, in run order, and as
/// `MResultRoot#matrix` loads it (README A1–A3).
pub fn unite(runs: &[Run]) -> Matrix {
    let mut u = Uniting::default();
    for (i, run) in runs.iter().enumerate() {
        u.add_run(run, i);
        u.remove_empty();
    }
    u.finish(runs.len())
}

/// A commit's matrix as `matrix_from_stats_files` builds it (no key dropped; README A5).
pub fn matrix_from_runs(runs: &[Run]) -> Matrix {
    let mut m = Matrix::with_runs(runs.len());
    for (i, run) in runs.iter().enumerate() {
        m.add_run(run, i);
    }
    m.fill_missing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pairs: &[(&str, Value)]) -> Run {
        let mut r = Run::new();
        for (k, v) in pairs {
            r.insert(*k, v.clone());
        }
        r
    }

    #[test]
    fn unite_drops_per_cpu_and_integer_zero_keys() {
        use Value::{Float, Int};
        let runs = [
            run(&[
                ("a", Int(0)),
                ("b", Float(0.0)),
                ("sched_debug.cpu.x.3", Int(1)),
                ("c", Int(1)),
            ]),
            run(&[
                ("a", Int(2)),
                ("b", Float(0.0)),
                ("d", Int(0)),
                ("sched_debug.cpu.x.avg", Int(4)),
            ]),
        ];
        let m = unite(&runs);
        let keys: Vec<&str> = m.iter().map(|(k, _)| k).collect();
        // `a` was dropped after run 0 and came back after `c`, where run 1 added it again.
        assert_eq!(keys, ["b", "c", "a", "sched_debug.cpu.x.avg"]);
        assert_eq!(m.get("a").unwrap(), [Int(0), Int(2)]);
        assert_eq!(m.get("c").unwrap(), [Int(1), Int(0)]);
        assert_eq!(m.get("sched_debug.cpu.x.avg").unwrap(), [Int(0), Int(4)]);
        assert!(is_per_cpu_sched_debug("sched_debug.12"));
        assert!(!is_per_cpu_sched_debug("sched_debug.cfs_rq:/.spread0.avg"));
        assert!(!is_per_cpu_sched_debug("sched_debug.cpu.x."));
    }

    #[test]
    fn complete_drops_incomplete_runs() {
        use Value::Int;
        let runs = [
            run(&[("x", Int(1))]),
            run(&[("x", Int(9)), (INCOMPLETE_RUN, Int(1))]),
            run(&[("x", Int(3))]),
        ];
        let m = unite(&runs);
        let c = m.complete();
        assert_eq!(c.runs(), 2);
        assert_eq!(c.get("x").unwrap(), [Int(1), Int(3)]);
        assert!(c.get(INCOMPLETE_RUN).is_none());
    }
}
