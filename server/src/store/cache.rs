// SPDX-License-Identifier: GPL-3.0-or-later
//! In-memory copies of stored data that does not change, so that a trend read right after a
//! write reads only what the write touched:
//!
//! - the runs of trend blocks, by series key: blocks are only added (`trend_block.rs`; a
//!   deletion or correction that takes some apart drops every copy);
//! - histories, by their `version` (bumped whenever a history is replaced);
//! - the summaries of runs past a trend's last block (`trend_block.rs`), by run id: a stored
//!   run's samples never change (a deletion drops every copy).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::trend_block::RunSummaries;
use super::trend_pack::{History, TrendRun};

/// The most runs kept decoded (~110 bytes each) before the chunk copies are dropped.
const MAX_CACHED_RUNS: usize = 1_000_000;

/// The most histories kept (a kernel history of a million commits is ~100 MB decoded).
const MAX_CACHED_HISTORIES: usize = 4;

/// The most runs whose summaries are kept (an LKP job's are ~300 KB).
const MAX_CACHED_SUMMARIES: usize = 96;

/// A trend's series key by names: benchmark, machine, metric, param.
pub type ChunkKey = [String; 4];

#[derive(Default)]
pub struct Caches {
    chunks: Mutex<Chunks>,
    histories: Mutex<HashMap<i64, (i64, Arc<History>)>>,
    summaries: Mutex<HashMap<i64, Arc<RunSummaries>>>,
}

#[derive(Default)]
struct Chunks {
    /// The full chunks of a key from chunk 0 on, in order.
    map: HashMap<ChunkKey, Vec<Arc<[TrendRun]>>>,
    runs: usize,
}

impl Caches {
    /// Drops every copy (after stored runs were deleted or rewritten).
    pub fn clear(&self) {
        if let Ok(mut c) = self.chunks.lock() {
            c.map.clear();
            c.runs = 0;
        }
        if let Ok(mut h) = self.histories.lock() {
            h.clear();
        }
        if let Ok(mut s) = self.summaries.lock() {
            s.clear();
        }
    }

    /// The summaries of run `id`, if kept.
    pub fn summaries(&self, id: i64) -> Option<Arc<RunSummaries>> {
        self.summaries.lock().ok()?.get(&id).cloned()
    }

    /// Keeps the summaries of run `id` (read from committed data only: an id a rolled-back
    /// write took may be taken again).
    pub fn put_summaries(&self, id: i64, summaries: Arc<RunSummaries>) {
        if let Ok(mut s) = self.summaries.lock() {
            if s.len() >= MAX_CACHED_SUMMARIES {
                s.clear();
            }
            s.insert(id, summaries);
        }
    }

    /// The full chunks of `key` known so far, from chunk 0 on.
    pub fn full_chunks(&self, key: &ChunkKey) -> Vec<Arc<[TrendRun]>> {
        self.chunks
            .lock()
            .ok()
            .and_then(|c| c.map.get(key).cloned())
            .unwrap_or_default()
    }

    /// Adds the full chunks that follow the `known` ones of `key`.
    pub fn put_full_chunks(&self, key: ChunkKey, known: usize, full: Vec<Arc<[TrendRun]>>) {
        if full.is_empty() {
            return;
        }
        let Ok(mut c) = self.chunks.lock() else {
            return;
        };
        let added: usize = full.iter().map(|f| f.len()).sum();
        if c.runs + added > MAX_CACHED_RUNS {
            c.map.clear();
            c.runs = 0;
            if known > 0 {
                return;
            }
        }
        let chunks = c.map.entry(key).or_default();
        // Another reader may have added them meanwhile.
        if chunks.len() != known {
            return;
        }
        chunks.extend(full);
        c.runs += added;
    }

    /// History `id` if the copy is of `version`.
    pub fn history(&self, id: i64, version: i64) -> Option<Arc<History>> {
        let h = self.histories.lock().ok()?;
        h.get(&id)
            .filter(|(v, _)| *v == version)
            .map(|(_, h)| h.clone())
    }

    pub fn put_history(&self, id: i64, version: i64, history: Arc<History>) {
        if let Ok(mut h) = self.histories.lock() {
            if h.len() >= MAX_CACHED_HISTORIES && !h.contains_key(&id) {
                h.clear();
            }
            h.insert(id, (version, history));
        }
    }
}
