// SPDX-License-Identifier: GPL-3.0-or-later
//! Comparisons as a service: a live query or a permalink in, a [`Comparison`] out, with the
//! samples behind it for the exports.
//!
//! A live comparison gets a permalink that pins the exact runs that answered it; asking the
//! same question over the same runs again finds the same permalink (by the digest of its spec),
//! so viewing a comparison twice never writes twice. Those an anonymous reader's questions
//! make are bounded (`--max-anonymous-permalinks`, the oldest removed first; see
//! `store::permalink`); a token holder's are kept for ever.
//!
//! A whole tree's report (`benchmark=*`) holds at most [`MAX_TREE_CELLS`] cells: the sections
//! that fit, in the tree's order from `offset`, and what it left out.
//!
//! `answer` renders a comparison's bodies (JSON, text, CSV, SVG), each once.

mod answer;
mod lkp_view;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
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
use crate::store::{CompareSeries, Keep};

pub use answer::{advised, Body, RatioAnswer, View};

/// Length of a permalink id: 12 alphanumerics, about 71 bits.
const PERMALINK_LEN: usize = 12;

/// A live comparison: from the cache, or just computed (with its permalink spec, the store
/// generation and rewrite count it was computed at).
enum Live {
    Cached(Arc<Computed>),
    Computed(Box<Computed>, u64, u64),
}

impl Live {
    fn computed(&self) -> &Computed {
        match self {
            Live::Cached(c) => c,
            Live::Computed(c, ..) => c,
        }
    }
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
    /// A live comparison's permalink spec (its digest and JSON), to keep its permalink for
    /// ever when a token holder asks for it.
    spec: Option<(String, String)>,
    /// Whether its permalink is one of the bounded anonymous ones.
    anonymous: AtomicBool,
    bodies: std::sync::Mutex<HashMap<String, bytes::Bytes>>,
}

impl Computed {
    fn new(comparison: Comparison, series: Vec<CompareSeries>) -> Computed {
        Computed {
            comparison,
            series,
            spec: None,
            anonymous: AtomicBool::new(false),
            bodies: Default::default(),
        }
    }

    /// Its rows × columns: what a whole-tree report counts against [`MAX_TREE_CELLS`].
    pub fn cells(&self) -> usize {
        let c = &self.comparison;
        c.rows.len() * c.query.kernels.len().max(1)
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

/// Who asks for a live comparison: how long the permalink it makes is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asker {
    /// A token holder (or anyone in open mode): kept for ever.
    Known,
    /// A reader without a token: one of the `--max-anonymous-permalinks` newest.
    Anonymous,
}

impl Services {
    /// Compares `query` over the runs stored now, and gives it a permalink. Served from memory
    /// while nothing was written since it was computed.
    pub async fn compare_live(
        &self,
        query: CompareQuery,
        precision: Option<usize>,
        asker: Asker,
    ) -> Result<Arc<Computed>, ServiceError> {
        let live = self.live_unlinked(query, precision).await?;
        let mut linked = self.link(vec![live], precision, asker).await?;
        linked
            .pop()
            .ok_or_else(|| anyhow::anyhow!("a comparison went missing").into())
    }

    /// How long the permalinks `asker` makes are kept.
    fn keep(&self, asker: Asker) -> Keep {
        match asker {
            Asker::Known => Keep::Always,
            Asker::Anonymous => {
                Keep::Newest(usize::try_from(self.config.max_anonymous_permalinks).unwrap_or(1))
            }
        }
    }

    /// Gives live comparisons their permalinks: each found by its spec's digest (a read, so
    /// that seeing a comparison again takes no write), else made, all in one transaction (a
    /// whole tree's sections at once); a token holder's asking keeps an anonymous one for
    /// ever. The anonymous permalinks removed to make room leave the cache.
    async fn link(
        &self,
        lives: Vec<Live>,
        precision: Option<usize>,
        asker: Asker,
    ) -> Result<Vec<Arc<Computed>>, ServiceError> {
        // Each live comparison's permalink and whether it is an anonymous one, once known.
        let mut links: Vec<Option<(String, bool)>> = vec![None; lives.len()];
        let mut wanted = Vec::new();
        let mut wanted_at = Vec::new();
        for (at, live) in lives.iter().enumerate() {
            let (digest, json, id) = match live {
                Live::Computed(computed, ..) => {
                    let (digest, json) = computed.spec.clone().ok_or_else(|| {
                        anyhow::anyhow!("a live comparison without its permalink spec")
                    })?;
                    let id = Alphanumeric.sample_string(&mut rand::rng(), PERMALINK_LEN);
                    (digest, json, id)
                }
                Live::Cached(c) if asker == Asker::Known && c.anonymous.load(Ordering::Relaxed) => {
                    match (&c.spec, &c.comparison.permalink) {
                        (Some((digest, json)), Some(id)) => {
                            (digest.clone(), json.clone(), id.clone())
                        }
                        _ => continue,
                    }
                }
                Live::Cached(_) => continue,
            };
            if let Some((id, kept)) = self.store.permalink_by_digest(&digest).await? {
                if kept || asker == Asker::Anonymous {
                    links[at] = Some((id, !kept));
                    continue;
                }
            }
            wanted.push((digest, json, id));
            wanted_at.push(at);
        }
        let ensured = self
            .store
            .ensure_permalinks(&wanted, self.keep(asker))
            .await?;
        if !ensured.removed.is_empty() {
            let removed: HashSet<&str> = ensured.removed.iter().map(String::as_str).collect();
            self.compare_cache.entries.retain(|_, (_, c)| {
                !c.comparison
                    .permalink
                    .as_deref()
                    .is_some_and(|id| removed.contains(id))
            });
        }
        for (at, id) in wanted_at.into_iter().zip(ensured.ids) {
            links[at] = Some((id, asker == Asker::Anonymous));
        }
        let mut out = Vec::with_capacity(lives.len());
        for (live, link) in lives.into_iter().zip(links) {
            out.push(match (live, link) {
                (Live::Computed(computed, generation, rewrites), Some((id, anonymous))) => {
                    self.keep_live(computed, id, anonymous, generation, rewrites, precision)
                }
                (Live::Computed(..), None) => {
                    return Err(anyhow::anyhow!("a permalink is missing").into())
                }
                (Live::Cached(c), link) => {
                    if let Some((_, anonymous)) = link {
                        // A token holder asked: kept for ever now (found, or made again
                        // under the same id).
                        c.anonymous.store(anonymous, Ordering::Relaxed);
                    }
                    c
                }
            });
        }
        Ok(out)
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
        let series = crate::services::heavy::stage(
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
        let json = serde_json::to_string(&spec).map_err(anyhow::Error::from)?;
        let digest = hex::encode(Sha256::digest(json.as_bytes()));
        let mut computed = self.compute(query, series, precision).await?;
        computed.spec = Some((digest, json));
        Ok(Live::Computed(Box::new(computed), generation, rewrites))
    }

    /// Gives a computed live comparison its permalink and keeps it in the cache, live and
    /// pinned: the page's charts and exports, asked for right after it, need not compute it
    /// again.
    fn keep_live(
        &self,
        computed: Box<Computed>,
        id: String,
        anonymous: bool,
        generation: u64,
        rewrites: u64,
        precision: Option<usize>,
    ) -> Arc<Computed> {
        let mut computed = *computed;
        computed.comparison.permalink = Some(id.clone());
        computed.anonymous.store(anonymous, Ordering::Relaxed);
        let query = computed.comparison.query.clone();
        let computed = Arc::new(computed);
        self.compare_cache.entries.insert(
            CacheKey::Live(query, precision),
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
        let not_found = || {
            ServiceError::NotFound(format!(
                "no permalink {id} (an anonymous reader's permalink is removed once --max-anonymous-permalinks newer ones were made; a token holder's is kept)"
            ))
        };
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
        let mut computed = crate::services::heavy::stage(
            tracing::info_span!("stats"),
            self.heavy.run(move || {
                let lkp_query = query.clone();
                crate::analysis::stats::compare_as(query, &series, precision, family).map(
                    |mut comparison| {
                        // A large comparison (an LKP job's keys): the rows lkp-tests' rules
                        // select, which its pages show first.
                        if comparison.rows.len() > app::compare::PAGE_ROWS
                            && lkp_query.kernels.len() >= 2
                        {
                            let m = crate::analysis::stats::lkp_matrices(&lkp_query, &series);
                            comparison.changed = lkp::compare(&m[0], &m[1])
                                .into_iter()
                                .map(|r| r.key)
                                .collect();
                        }
                        Computed::new(comparison, series)
                    },
                )
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
}

/// The most benchmarks one whole-tree report compares.
pub const MAX_TREE_SECTIONS: usize = 500;

/// The most cells (rows × compared kernels, over all its sections) one whole-tree report
/// holds: a page of the tree. Two uploads of 500 benchmarks × 400 metrics answered 270 MB
/// before there was one; at this many, an answer of two kernels is about 13 MB of JSON.
pub const MAX_TREE_CELLS: usize = 20_000;

/// The most benchmarks too big for a whole-tree report that one page computes (to learn they
/// are, and name them) before it ends: past them the page stops, and the next one goes on.
pub const MAX_OVERSIZED_A_PAGE: usize = 2;

/// Every benchmark of a tree compared at once (`benchmark=*`): a section per benchmark the
/// baseline ran on the machine, in the order the baseline's tree ran them, from `offset`, as
/// many as [`MAX_TREE_CELLS`] holds; those that could not be compared with why; and where
/// the rest starts.
pub struct TreeReport {
    pub query: CompareQuery,
    pub sections: Vec<Arc<Computed>>,
    /// Benchmarks of this page not shown, with why (no samples, or more cells alone than a
    /// report holds).
    pub left_out: Vec<(String, String)>,
    /// The tree's benchmarks, and where in them this page starts.
    pub benchmarks: usize,
    pub offset: usize,
    /// The cells of this page's sections.
    pub cells: usize,
    /// When the page stopped at [`MAX_TREE_CELLS`]: the offset of the next page, and the
    /// benchmarks from there on (not compared).
    pub rest: Option<(usize, Vec<String>)>,
}

impl Services {
    /// Compares the benchmarks the baseline kernel ran on the query's machine, in the tree's
    /// order from `offset`, until [`MAX_TREE_CELLS`]: four in flight, their permalinks made in
    /// one transaction. Nothing past the page is computed.
    pub async fn compare_tree(
        &self,
        query: CompareQuery,
        precision: Option<usize>,
        offset: usize,
        asker: Asker,
    ) -> Result<TreeReport, ServiceError> {
        use futures_util::StreamExt;
        let machine = query.machine_name().to_owned();
        let Some(base) = query.kernels.first() else {
            return Err(ServiceError::Invalid("kernels are required".into()));
        };
        let benchmarks = self.store.benchmarks_of(&machine, base.as_str()).await?;
        if benchmarks.is_empty() {
            return Err(ServiceError::NotFound(format!(
                "no benchmark has runs of kernel {base} on machine {machine}"
            )));
        }
        if benchmarks.len() > MAX_TREE_SECTIONS {
            return Err(ServiceError::Invalid(format!(
                "machine {machine} ran {} benchmarks on {base}; a whole-tree report compares at most {MAX_TREE_SECTIONS}",
                benchmarks.len()
            )));
        }
        if offset >= benchmarks.len() {
            return Err(ServiceError::Invalid(format!(
                "offset {offset} is past the tree's {} benchmarks (0 to {})",
                benchmarks.len(),
                benchmarks.len() - 1
            )));
        }
        // compare-kernels.sh's order: as the baseline's tree ran them (its first run's facts
        // say), then by name.
        let first: Vec<i64> = benchmarks.iter().map(|(_, id)| *id).collect();
        let facts = self.store.run_facts(&first).await?;
        let position = |id: i64| -> usize {
            facts
                .get(&id)
                .into_iter()
                .flat_map(|f| f.iter())
                .find(|(k, _)| k == lines::FACT_POSITION)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(usize::MAX)
        };
        let mut ordered: Vec<(usize, String)> = benchmarks
            .into_iter()
            .map(|(name, id)| (position(id), name))
            .collect();
        ordered.sort();
        let total = ordered.len();
        let names: Vec<String> = ordered.into_iter().skip(offset).map(|(_, n)| n).collect();
        let mut queries = Vec::with_capacity(names.len());
        let machine_label = Label::parse(&machine).map_err(|e| anyhow::anyhow!("{e}"))?;
        for name in &names {
            queries.push(
                CompareQuery::new(
                    Label::parse(name)
                        .map_err(|e| anyhow::anyhow!("stored benchmark {name}: {e}"))?,
                    Some(machine_label.clone()),
                    query.kernels.clone(),
                    query.metric.clone(),
                    false,
                )
                .map_err(ServiceError::Invalid)?,
            );
        }
        // The sections in order, four in flight, until the page is full: what is still in
        // flight then is dropped (and its work cancelled).
        let mut lives = futures_util::stream::iter(queries)
            .map(|q| self.live_unlinked(q, precision))
            .buffered(4);
        let mut taken = Vec::new();
        let mut left_out = Vec::new();
        let mut cells = 0;
        let mut oversized = 0;
        let mut rest = None;
        let mut at = 0;
        while let Some(live) = lives.next().await {
            let name = &names[at];
            at += 1;
            match live {
                Ok(live) => {
                    let n = live.computed().cells();
                    if n > MAX_TREE_CELLS {
                        let c = &live.computed().comparison;
                        left_out.push((
                            name.clone(),
                            format!(
                                "{} rows × {} kernels is {n} cells, more than a whole-tree report holds ({MAX_TREE_CELLS}): compare it alone (benchmark={name})",
                                c.rows.len(),
                                c.query.kernels.len()
                            ),
                        ));
                        // Each costs a whole comparison: a page pays for a few, then ends.
                        oversized += 1;
                        if oversized >= MAX_OVERSIZED_A_PAGE && at < names.len() {
                            rest = Some((offset + at, names[at..].to_vec()));
                            break;
                        }
                        continue;
                    }
                    if cells + n > MAX_TREE_CELLS {
                        rest = Some((offset + at - 1, names[at - 1..].to_vec()));
                        break;
                    }
                    cells += n;
                    taken.push(live);
                }
                Err(ServiceError::NotFound(why)) => left_out.push((name.clone(), why)),
                Err(e) => return Err(e),
            }
        }
        drop(lives);
        let sections = self.link(taken, precision, asker).await?;
        Ok(TreeReport {
            query,
            sections,
            left_out,
            benchmarks: total,
            offset,
            cells,
            rest,
        })
    }
}

/// How mmtests compares a benchmark, from the facts of its baseline runs (`mmtests.*`, as an
/// upload of a tree or of rows recorded them), else from the shellpack the benchmark's name
/// resolves to; `None` for a benchmark that is no mmtests family.
fn family_of<'a>(
    base_runs: impl Iterator<Item = &'a Vec<(String, String)>>,
    benchmark: &str,
) -> Option<crate::analysis::stats::AsFamily> {
    let mut stated: Option<(app::mmtests::Summarise, bool, usize)> = None;
    let mut ratio: Vec<String> = Vec::new();
    let mut seen_runs = HashSet::new();
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
    Some(crate::analysis::stats::AsFamily {
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
