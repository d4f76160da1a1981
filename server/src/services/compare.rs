//! Comparisons as a service: a live query or a permalink in, a [`Comparison`] out, with the
//! samples behind it for the exports.
//!
//! A live comparison gets a permalink that pins the exact runs that answered it; asking the
//! same question over the same runs again finds the same permalink (by the digest of its spec),
//! so viewing a comparison twice never writes twice.

use std::collections::HashMap;
use std::sync::Arc;

use app::compare::Comparison;
use app::label::{Label, PermalinkId};
use app::types::CompareQuery;
use rand::distr::{Alphanumeric, SampleString};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ingest::mmtests::lines;
use crate::services::ServiceError;
use crate::services::Services;
use crate::store::CompareSeries;

/// Length of a permalink id: 12 alphanumerics, about 71 bits.
const PERMALINK_LEN: usize = 12;

/// A live comparison: from the cache, or just computed (with the permalink spec to pin it, the
/// store generation and rewrite count it was computed at).
enum Live {
    Cached(Arc<Computed>),
    Computed(Box<Computed>, PermalinkSpec, u64, u64),
}

/// What a permalink pins: the question and the exact runs that answered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermalinkSpec {
    pub query: CompareQuery,
    pub runs: Vec<i64>,
}

/// A comparison with the samples it was computed from, and the bodies rendered from it so
/// far (by shape and options), so that a hot comparison is computed and rendered once.
pub struct Computed {
    pub comparison: Comparison,
    pub series: Vec<CompareSeries>,
    bodies: std::sync::Mutex<HashMap<String, bytes::Bytes>>,
}

impl Computed {
    fn new(comparison: Comparison, series: Vec<CompareSeries>) -> Computed {
        Computed {
            comparison,
            series,
            bodies: Default::default(),
        }
    }

    /// The body rendered for `key` before, if any.
    pub fn body(&self, key: &str) -> Option<bytes::Bytes> {
        self.bodies.lock().ok()?.get(key).cloned()
    }

    /// Keeps a rendered body (at most a few shapes per comparison are ever asked for).
    pub fn keep_body(&self, key: String, body: bytes::Bytes) {
        if let Ok(mut bodies) = self.bodies.lock() {
            if bodies.len() < 16 {
                bodies.insert(key, body);
            }
        }
    }

    /// Roughly the bytes it holds, for the cache's bound: fixed when it enters the cache (the
    /// cache needs a weight that never changes), so the rendered bodies to come are counted
    /// as the few tables they are, and the SVG as its usual ~64 KiB.
    fn weight(&self) -> u64 {
        let samples: usize = self.series.iter().map(|s| s.values.len()).sum();
        let rows = self.comparison.rows.len();
        (samples * 16 + rows * 2048 + (64 << 10)) as u64
    }
}

/// What a computed comparison is cached under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum CacheKey {
    /// A live query: valid until the next write (its generation is kept with it).
    Live(CompareQuery, Option<usize>),
    /// A permalink: its runs never change, so neither do its numbers.
    Pinned(String, Option<usize>),
}

#[derive(Clone)]
struct Weigh;

impl quick_cache::Weighter<CacheKey, (u64, Arc<Computed>)> for Weigh {
    fn weight(&self, _: &CacheKey, value: &(u64, Arc<Computed>)) -> u64 {
        value.1.weight()
    }
}

/// Computed comparisons, live and pinned, in memory bounded by [`CACHE_BYTES`] (least
/// recently used first out).
pub struct CompareCache {
    entries: quick_cache::sync::Cache<CacheKey, (u64, Arc<Computed>), Weigh>,
}

/// The memory the comparison cache may hold (samples, tables, rendered bodies).
pub const CACHE_BYTES: u64 = 256 << 20;

impl Default for CompareCache {
    fn default() -> Self {
        CompareCache {
            entries: quick_cache::sync::Cache::with_weighter(4096, CACHE_BYTES, Weigh),
        }
    }
}

impl Services {
    /// Compares `query` over the runs stored now, and gives it a permalink. Served from memory
    /// while nothing was written since it was computed.
    pub async fn compare_live(
        &self,
        query: CompareQuery,
        precision: Option<usize>,
    ) -> Result<Arc<Computed>, ServiceError> {
        match self.live_unlinked(query, precision).await? {
            Live::Cached(c) => Ok(c),
            Live::Computed(computed, spec, generation, rewrites) => {
                let id = self.permalink_for(&spec).await?;
                Ok(self.keep_live(computed, spec, id, generation, rewrites, precision))
            }
        }
    }

    /// Several live comparisons at once (four in flight), their permalinks made in one
    /// transaction: a whole tree's report.
    pub async fn compare_live_many(
        &self,
        queries: Vec<CompareQuery>,
        precision: Option<usize>,
    ) -> Vec<Result<Arc<Computed>, ServiceError>> {
        use futures_util::StreamExt;
        let lives: Vec<Result<Live, ServiceError>> = futures_util::stream::iter(queries)
            .map(|q| self.live_unlinked(q, precision))
            .buffered(4)
            .collect()
            .await;
        let specs: Vec<&PermalinkSpec> = lives
            .iter()
            .filter_map(|l| match l {
                Ok(Live::Computed(_, spec, _, _)) => Some(spec),
                _ => None,
            })
            .collect();
        let ids = match self.permalinks_for(&specs).await {
            Ok(ids) => ids,
            Err(e) => return vec![Err(e)],
        };
        let mut ids = ids.into_iter();
        lives
            .into_iter()
            .map(|l| match l? {
                Live::Cached(c) => Ok(c),
                Live::Computed(computed, spec, generation, rewrites) => {
                    let id = ids
                        .next()
                        .ok_or_else(|| anyhow::anyhow!("a permalink is missing"))?;
                    Ok(self.keep_live(computed, spec, id, generation, rewrites, precision))
                }
            })
            .collect()
    }

    /// A live comparison from the cache, or computed without its permalink yet.
    async fn live_unlinked(
        &self,
        query: CompareQuery,
        precision: Option<usize>,
    ) -> Result<Live, ServiceError> {
        let generation = self.store.generation().await?;
        // Read before computing: a rewrite meanwhile makes the pinned copy below stale.
        let rewrites = self.store.rewrites() as u64;
        let key = CacheKey::Live(query.clone(), precision);
        let cached = self
            .compare_cache
            .entries
            .get(&key)
            .filter(|(g, _)| *g == generation);
        if let Some((_, c)) = self.metrics.cache("compare", cached) {
            return Ok(Live::Cached(c));
        }
        let series = crate::services::work::stage(
            tracing::info_span!("query"),
            self.store.compare_series(&query, None),
        )
        .await?;
        let missing: Vec<&str> = query
            .kernels
            .iter()
            .filter(|k| !series.iter().any(|s| &s.kernel == *k))
            .map(Label::as_str)
            .collect();
        if !missing.is_empty() {
            let metric = query
                .metric
                .as_ref()
                .map(|m| format!(" with metric {m}"))
                .unwrap_or_default();
            return Err(ServiceError::NotFound(format!(
                "no samples of benchmark {} on machine {}{metric} for kernel {}",
                query.benchmark,
                query.machine_name(),
                missing.join(", ")
            )));
        }
        let mut runs: Vec<i64> = series.iter().map(|s| s.run_id).collect();
        runs.sort_unstable();
        runs.dedup();
        let spec = PermalinkSpec {
            query: query.clone(),
            runs,
        };
        let computed = self.compute(query, series, precision).await?;
        Ok(Live::Computed(
            Box::new(computed),
            spec,
            generation,
            rewrites,
        ))
    }

    /// Gives a computed live comparison its permalink and keeps it in the cache, live and
    /// pinned: the page's charts and exports, asked for right after it, need not compute it
    /// again.
    fn keep_live(
        &self,
        computed: Box<Computed>,
        spec: PermalinkSpec,
        id: String,
        generation: u64,
        rewrites: u64,
        precision: Option<usize>,
    ) -> Arc<Computed> {
        let mut computed = *computed;
        computed.comparison.permalink = Some(id.clone());
        let computed = Arc::new(computed);
        self.compare_cache.entries.insert(
            CacheKey::Live(spec.query, precision),
            (generation, computed.clone()),
        );
        self.compare_cache.entries.insert(
            CacheKey::Pinned(id, precision),
            (rewrites, computed.clone()),
        );
        computed
    }

    /// The comparison pinned by permalink `id`: the same runs, so the same numbers, forever
    /// (and computed once while it stays in the cache).
    pub async fn compare_permalink(
        &self,
        id: &PermalinkId,
        precision: Option<usize>,
    ) -> Result<Arc<Computed>, ServiceError> {
        let not_found = || ServiceError::NotFound(format!("no permalink {id}"));
        // Valid while no stored run was deleted (by this process or another).
        self.store.generation().await?;
        let rewrites = self.store.rewrites() as u64;
        let key = CacheKey::Pinned(id.to_string(), precision);
        let cached = self
            .compare_cache
            .entries
            .get(&key)
            .filter(|(r, _)| *r == rewrites);
        if let Some((_, c)) = self.metrics.cache("compare", cached) {
            return Ok(c);
        }
        let spec = self.store.permalink(id).await?.ok_or_else(not_found)?;
        let spec: PermalinkSpec = serde_json::from_str(&spec)
            .map_err(|e| anyhow::anyhow!("permalink {id} has an unreadable spec: {e}"))?;
        if let Some(gone) = self.store.deleted(&spec.runs).await? {
            return Err(ServiceError::Gone(format!(
                "permalink {id} compared runs that were since {} by {} at {}",
                gone.reason, gone.deleted_by, gone.deleted_at
            )));
        }
        let series = self
            .store
            .compare_series(&spec.query, Some(&spec.runs))
            .await?;
        let mut computed = self.compute(spec.query, series, precision).await?;
        computed.comparison.permalink = Some(id.to_string());
        let computed = Arc::new(computed);
        self.compare_cache
            .entries
            .insert(key, (rewrites, computed.clone()));
        Ok(computed)
    }

    async fn compute(
        &self,
        query: CompareQuery,
        series: Vec<CompareSeries>,
        precision: Option<usize>,
    ) -> Result<Computed, ServiceError> {
        // The facts of every run: what differs besides the kernel, and how mmtests compares
        // the benchmark (what the baseline's runs say, else its shellpack).
        let mut ids: Vec<i64> = series.iter().map(|s| s.run_id).collect();
        ids.sort_unstable();
        ids.dedup();
        let facts = self.store.run_facts(&ids).await?;
        let family = query.kernels.first().and_then(|base| {
            let base_runs = series
                .iter()
                .filter(|s| s.kernel == base.as_str())
                .filter_map(|s| facts.get(&s.run_id));
            family_of(base_runs, query.benchmark.as_str())
        });
        // polars may block; keep it off the async workers, within the heavy-work limit.
        let mut computed = crate::services::work::stage(
            tracing::info_span!("stats"),
            self.heavy.run(move || {
                let lkp_query = query.clone();
                crate::stats::compare_as(query, &series, precision, family).map(|mut comparison| {
                    // A large comparison (an LKP job's keys): the rows lkp-tests' rules
                    // select, which its pages show first.
                    if comparison.rows.len() > app::compare::PAGE_ROWS
                        && lkp_query.kernels.len() >= 2
                    {
                        let m = crate::stats::lkp_matrices(&lkp_query, &series);
                        comparison.changed = app::lkp::compare(&m[0], &m[1])
                            .into_iter()
                            .map(|r| r.key)
                            .collect();
                    }
                    Computed::new(comparison, series)
                })
            }),
        )
        .await??;
        // What differs besides the kernel, from the facts of each kernel's runs.
        let c = &mut computed.comparison;
        let merged: Vec<_> = c
            .query
            .kernels
            .iter()
            .map(|k| {
                let runs: Vec<Vec<(String, String)>> = c
                    .runs
                    .iter()
                    .filter(|r| &r.kernel == k)
                    .flat_map(|r| r.runs.iter().filter_map(|id| facts.get(id).cloned()))
                    .collect();
                app::facts::merge(&runs)
            })
            .collect();
        let kernels: Vec<String> = c.query.kernels.iter().map(ToString::to_string).collect();
        c.facts = app::facts::diff(&kernels, &merged);
        Ok(computed)
    }

    /// The permalinks of several specs, new ones made in one transaction.
    async fn permalinks_for(&self, specs: &[&PermalinkSpec]) -> Result<Vec<String>, ServiceError> {
        let mut wanted = Vec::with_capacity(specs.len());
        for spec in specs {
            let json = serde_json::to_string(spec).map_err(anyhow::Error::from)?;
            let digest = hex::encode(Sha256::digest(json.as_bytes()));
            let id = Alphanumeric.sample_string(&mut rand::rng(), PERMALINK_LEN);
            wanted.push((digest, json, id));
        }
        Ok(self.store.ensure_permalinks(&wanted).await?)
    }

    async fn permalink_for(&self, spec: &PermalinkSpec) -> Result<String, ServiceError> {
        let json = serde_json::to_string(spec).map_err(anyhow::Error::from)?;
        let digest = hex::encode(Sha256::digest(json.as_bytes()));
        if let Some(id) = self.store.permalink_by_digest(&digest).await? {
            return Ok(id);
        }
        let id = Alphanumeric.sample_string(&mut rand::rng(), PERMALINK_LEN);
        Ok(self.store.ensure_permalink(&digest, &json, &id).await?)
    }
}

/// The most benchmarks one whole-tree report compares.
pub const MAX_TREE_SECTIONS: usize = 500;

/// Every benchmark of a tree compared at once (`benchmark=*`): a section per benchmark the
/// baseline ran on the machine, in the order the baseline's tree ran them, and those that
/// could not be compared with why.
pub struct TreeReport {
    pub query: CompareQuery,
    pub sections: Vec<Arc<Computed>>,
    pub left_out: Vec<(String, String)>,
}

impl Services {
    /// Compares every benchmark the baseline kernel ran on the query's machine.
    pub async fn compare_tree(
        &self,
        query: CompareQuery,
        precision: Option<usize>,
    ) -> Result<TreeReport, ServiceError> {
        let machine = query.machine_name().to_owned();
        let Some(base) = query.kernels.first() else {
            return Err(ServiceError::Invalid("kernels are required".into()));
        };
        let names = self.store.benchmarks_of(&machine, base.as_str()).await?;
        if names.is_empty() {
            return Err(ServiceError::NotFound(format!(
                "no benchmark has runs of kernel {base} on machine {machine}"
            )));
        }
        if names.len() > MAX_TREE_SECTIONS {
            return Err(ServiceError::Invalid(format!(
                "machine {machine} ran {} benchmarks on {base}; a whole-tree report compares at most {MAX_TREE_SECTIONS}",
                names.len()
            )));
        }
        let mut queries = Vec::with_capacity(names.len());
        for name in &names {
            queries.push(
                CompareQuery::new(
                    Label::parse(name)
                        .map_err(|e| anyhow::anyhow!("stored benchmark {name}: {e}"))?,
                    Some(Label::parse(&machine).map_err(|e| anyhow::anyhow!("{e}"))?),
                    query.kernels.clone(),
                    query.metric.clone(),
                    false,
                )
                .map_err(ServiceError::Invalid)?,
            );
        }
        let mut sections = Vec::new();
        let mut left_out = Vec::new();
        for (name, answer) in names
            .into_iter()
            .zip(self.compare_live_many(queries, precision).await)
        {
            match answer {
                Ok(c) => sections.push(c),
                Err(ServiceError::NotFound(why)) => left_out.push((name, why)),
                Err(e) => return Err(e),
            }
        }
        // compare-kernels.sh's order: as the baseline's tree ran them, then by name.
        let ids: Vec<i64> = sections
            .iter()
            .flat_map(|c| {
                c.comparison
                    .runs
                    .first()
                    .map(|r| r.runs.clone())
                    .unwrap_or_default()
            })
            .collect();
        let facts = self.store.run_facts(&ids).await?;
        let position = |c: &Computed| -> usize {
            c.comparison
                .runs
                .first()
                .into_iter()
                .flat_map(|r| r.runs.iter())
                .filter_map(|id| facts.get(id))
                .flat_map(|f| f.iter())
                .find(|(k, _)| k == lines::FACT_POSITION)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(usize::MAX)
        };
        sections.sort_by_cached_key(|c| (position(c), c.comparison.query.benchmark.to_string()));
        Ok(TreeReport {
            query,
            sections,
            left_out,
        })
    }
}

/// How mmtests compares a benchmark, from the facts of its baseline runs (`mmtests.*`, as an
/// upload of a tree or of rows recorded them), else from the shellpack the benchmark's name
/// resolves to; `None` for a benchmark that is no mmtests family.
fn family_of<'a>(
    base_runs: impl Iterator<Item = &'a Vec<(String, String)>>,
    benchmark: &str,
) -> Option<crate::stats::AsFamily> {
    let mut stated: Option<(app::mmtests::Summarise, bool, usize)> = None;
    let mut ratio: Vec<String> = Vec::new();
    let mut seen_runs = std::collections::HashSet::new();
    for facts in base_runs {
        if !seen_runs.insert(facts as *const _) {
            continue;
        }
        let get = |k: &str| facts.iter().find(|(f, _)| f == k).map(|(_, v)| v.as_str());
        if stated.is_none() {
            if let Some(summarise) =
                get(lines::FACT_SUMMARISE).and_then(app::mmtests::Summarise::parse)
            {
                let higher = get(lines::FACT_PREFERRED) == Some("Higher");
                let precision = get(lines::FACT_PRECISION)
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(2);
                stated = Some((summarise, higher, precision));
            }
        }
        for (k, v) in facts {
            if k == lines::FACT_RATIO && !ratio.contains(v) {
                ratio.push(v.clone());
            }
        }
    }
    let (summarise, higher, precision) = stated.or_else(|| {
        crate::ingest::mmtests::Shellpack::of(benchmark)
            .map(|s| (s.summarise, s.higher, s.precision))
    })?;
    Some(crate::stats::AsFamily {
        family: app::mmtests::Family {
            summarise,
            preferred: if higher {
                app::label::Direction::Higher
            } else {
                app::label::Direction::Lower
            },
            ratio,
        },
        precision,
    })
}

/// Prefixes text that a spreadsheet would run as a formula with `'`.
fn csv_safe(s: &str) -> std::borrow::Cow<'_, str> {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}").into()
    } else {
        s.into()
    }
}

/// The samples behind a comparison as CSV, kernels in the comparison's order.
pub fn samples_csv(computed: &Computed) -> anyhow::Result<String> {
    let kernels = &computed.comparison.query.kernels;
    let mut series: Vec<&CompareSeries> = computed.series.iter().collect();
    series.sort_by(|a, b| {
        let pos = |k: &str| kernels.iter().position(|x| x == k).unwrap_or(usize::MAX);
        pos(&a.kernel)
            .cmp(&pos(&b.kernel))
            .then_with(|| a.metric.cmp(&b.metric))
            .then_with(|| app::types::compare_params(&a.param, &b.param))
            .then_with(|| a.run_id.cmp(&b.run_id))
    });
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "kernel",
        "run",
        "metric",
        "param",
        "unit",
        "direction",
        "iteration",
        "value",
    ])?;
    for s in series {
        for (iteration, value) in s.iterations.iter().zip(&s.values) {
            w.write_record([
                csv_safe(&s.kernel).as_ref(),
                &s.run_id.to_string(),
                &csv_safe(&s.metric),
                &csv_safe(&s.param),
                &csv_safe(s.unit.as_deref().unwrap_or("")),
                s.direction.as_str(),
                &iteration.to_string(),
                &value.to_string(),
            ])?;
        }
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_cannot_become_formulas() {
        assert_eq!(csv_safe("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(csv_safe("+1"), "'+1");
        assert_eq!(csv_safe("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_safe("5.4.0-vanilla"), "5.4.0-vanilla");
    }
}
