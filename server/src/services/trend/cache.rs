// SPDX-License-Identifier: GPL-3.0-or-later
//! Computed trends and their rendered bodies, per store generation.

use std::collections::HashMap;
use std::sync::Arc;

use app::trend::{Trend, TrendQuery};

/// Trends computed for the current store generation, and their rendered bodies: a trend of
/// 50,000 runs takes ~10–15 ms to read and compute and as much again to render as JSON or SVG,
/// and is then served from here until the next write (upload, mark, history, bisect log).
#[derive(Default)]
pub struct TrendCache {
    trends: std::sync::Mutex<HashMap<TrendQuery, (u64, Arc<Trend>)>>,
    bodies: std::sync::Mutex<HashMap<(TrendQuery, String), (u64, bytes::Bytes)>>,
}

/// Entries per map before it is emptied (a crude bound; trends are few and hot).
const CACHE_ENTRIES: usize = 64;

impl TrendCache {
    pub(super) fn get_trend(&self, q: &TrendQuery, generation: u64) -> Option<Arc<Trend>> {
        let map = self.trends.lock().ok()?;
        map.get(q)
            .filter(|(g, _)| *g == generation)
            .map(|(_, t)| t.clone())
    }

    pub(super) fn put_trend(&self, q: TrendQuery, generation: u64, t: Arc<Trend>) {
        let stale = match self.trends.lock() {
            Ok(mut map) => {
                if map.len() >= CACHE_ENTRIES {
                    map.clear();
                }
                map.insert(q, (generation, t))
            }
            Err(_) => None,
        };
        // Freeing a stale trend of 10,000 points takes a few milliseconds: not the request's.
        if let Some(stale) = stale {
            tokio::task::spawn_blocking(move || drop(stale));
        }
    }

    /// A rendered body of `q` in `shape` for this generation.
    pub fn get_body(&self, q: &TrendQuery, shape: &str, generation: u64) -> Option<bytes::Bytes> {
        let map = self.bodies.lock().ok()?;
        map.get(&(q.clone(), shape.to_owned()))
            .filter(|(g, _)| *g == generation)
            .map(|(_, b)| b.clone())
    }

    pub fn put_body(&self, q: TrendQuery, shape: String, generation: u64, body: bytes::Bytes) {
        if let Ok(mut map) = self.bodies.lock() {
            if map.len() >= CACHE_ENTRIES {
                map.clear();
            }
            map.insert((q, shape), (generation, body));
        }
    }
}
