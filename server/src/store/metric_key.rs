// SPDX-License-Identifier: GPL-3.0-or-later
//! The metric dictionary (`metric_key`): each (metric, param, unit, direction) a run's series
//! can have, stored once with a small id that packed runs (`run_pack.rs`) name their series by,
//! instead of a row per series with its names (an LKP job's 5,000 keys are the same job after
//! job).
//!
//! Architecture invariant: a `metric_key` row is never changed or deleted, so an id means the
//! same names for ever and both directions are cached in memory without invalidation; the
//! cache learns ids only from committed rows (read ones, or written ones after their commit).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use app::label::Direction;

use super::sql::{query_as, sql, Target, Tx};
use super::{StoreError, StoreResult};

/// What a series is, by names: the dictionary's row.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MetricKey {
    pub metric: String,
    pub param: String,
    pub unit: Option<String>,
    pub direction: Direction,
}

impl MetricKey {
    pub fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            metric: &self.metric,
            param: &self.param,
            unit: self.unit.as_deref(),
            direction: self.direction,
        }
    }
}

/// A [`MetricKey`] by borrowed names: an upload's 5,000 series are looked up in the cache
/// without copying their names. Hashes as the owned key does (`&str` and `String` hash alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyRef<'a> {
    pub metric: &'a str,
    pub param: &'a str,
    pub unit: Option<&'a str>,
    pub direction: Direction,
}

impl KeyRef<'_> {
    fn to_owned(self) -> MetricKey {
        MetricKey {
            metric: self.metric.to_owned(),
            param: self.param.to_owned(),
            unit: self.unit.map(str::to_owned),
            direction: self.direction,
        }
    }
}

impl hashbrown::Equivalent<MetricKey> for KeyRef<'_> {
    fn equivalent(&self, key: &MetricKey) -> bool {
        *self == key.as_ref()
    }
}

type Row = (i64, String, String, String, String);

fn key_of((_, metric, param, unit, direction): &Row) -> StoreResult<MetricKey> {
    Ok(MetricKey {
        metric: metric.clone(),
        param: param.clone(),
        // The dictionary keeps "no unit" as '' so that it is unique on both engines.
        unit: Some(unit.clone()).filter(|u| !u.is_empty()),
        direction: Direction::parse(direction).ok_or_else(|| {
            StoreError::Corrupt(format!("a metric_key has direction {direction:?}"))
        })?,
    })
}

/// What a transaction resolved: handed to [`Keys::committed`] once it commits.
#[derive(Default)]
pub struct Resolved {
    learned: Vec<(MetricKey, i64)>,
    ids: Vec<i64>,
}

/// The in-memory copy of the dictionary, both ways.
#[derive(Default)]
pub struct Keys {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// (hashbrown's map, seeded per process, for lookups by [`KeyRef`].)
    by_key: hashbrown::HashMap<MetricKey, i64>,
    by_id: HashMap<i64, Arc<MetricKey>, foldhash::fast::RandomState>,
    /// The keys last resolved, in order: a robot's next job names the same ones in the same
    /// order, and they are compared in place rather than hashed.
    recent: Vec<(Arc<MetricKey>, i64)>,
}

impl Keys {
    fn learn(&self, pairs: impl IntoIterator<Item = (MetricKey, i64)>) {
        if let Ok(mut inner) = self.inner.lock() {
            for (key, id) in pairs {
                inner.by_id.insert(id, Arc::new(key.clone()));
                inner.by_key.insert(key, id);
            }
        }
    }

    /// The ids of `wanted`, in order, inserting the keys the dictionary lacks in `tx`. The
    /// answer's second part is what the caller hands to [`Keys::committed`] once `tx` commits.
    pub async fn resolve(
        &self,
        tx: &mut Tx,
        wanted: &[KeyRef<'_>],
    ) -> StoreResult<(Vec<i64>, Resolved)> {
        let mut ids = vec![0i64; wanted.len()];
        let mut missing: Vec<usize> = Vec::new();
        if let Ok(inner) = self.inner.lock() {
            for (i, k) in wanted.iter().enumerate() {
                if let Some((known, id)) = inner.recent.get(i) {
                    if *k == MetricKey::as_ref(known) {
                        ids[i] = *id;
                        continue;
                    }
                }
                match inner.by_key.get(k) {
                    Some(&id) => ids[i] = id,
                    None => missing.push(i),
                }
            }
        }
        let mut learned = Vec::with_capacity(missing.len());
        for i in missing {
            let k = wanted[i];
            let (id,): (i64,) = query_as(sql!(
                "INSERT INTO metric_key (metric, param, unit, direction) VALUES (?, ?, ?, ?) \
                 ON CONFLICT (metric, param, unit, direction) DO UPDATE SET metric = excluded.metric \
                 RETURNING id"
            ))
            .bind(k.metric)
            .bind(k.param)
            .bind(k.unit.unwrap_or(""))
            .bind(k.direction.as_str())
            .fetch_one(&mut *tx)
            .await?;
            ids[i] = id;
            learned.push((k.to_owned(), id));
        }
        let resolved = Resolved {
            learned,
            ids: ids.clone(),
        };
        Ok((ids, resolved))
    }

    /// Learns what [`Keys::resolve`] found, after its transaction committed.
    pub fn committed(&self, Resolved { learned, ids }: Resolved) {
        self.learn(learned);
        if let Ok(mut inner) = self.inner.lock() {
            let recent: Option<Vec<_>> = ids
                .iter()
                .map(|id| inner.by_id.get(id).map(|k| (k.clone(), *id)))
                .collect();
            inner.recent = recent.unwrap_or_default();
        }
    }

    /// The keys of `ids`, reading those not known yet (one query for the range they span).
    pub async fn names(
        &self,
        mut target: Target<'_>,
        ids: impl IntoIterator<Item = i64>,
    ) -> StoreResult<HashMap<i64, Arc<MetricKey>>> {
        let mut out = HashMap::new();
        let mut missing = Vec::new();
        if let Ok(inner) = self.inner.lock() {
            for id in ids {
                if out.contains_key(&id) {
                    continue;
                }
                match inner.by_id.get(&id) {
                    Some(k) => {
                        out.insert(id, k.clone());
                    }
                    None => missing.push(id),
                }
            }
        }
        if missing.is_empty() {
            return Ok(out);
        }
        missing.sort_unstable();
        missing.dedup();
        let (lo, hi) = (missing[0], missing[missing.len() - 1]);
        let rows: Vec<Row> = query_as(sql!(
            "SELECT id, metric, param, unit, direction FROM metric_key WHERE id BETWEEN ? AND ?"
        ))
        .bind(lo)
        .bind(hi)
        .fetch_all(target.reborrow())
        .await?;
        let mut read = Vec::with_capacity(rows.len());
        for row in &rows {
            read.push((key_of(row)?, row.0));
        }
        self.learn(read);
        let inner = self
            .inner
            .lock()
            .map_err(|_| StoreError::corrupt("the metric dictionary's lock is poisoned"))?;
        for id in missing {
            let key = inner.by_id.get(&id).ok_or_else(|| {
                StoreError::Corrupt(format!("a packed run names metric_key {id}, which is not"))
            })?;
            out.insert(id, key.clone());
        }
        Ok(out)
    }
}
