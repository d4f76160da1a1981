// SPDX-License-Identifier: GPL-3.0-or-later
//! Statistics over stored samples, computed with polars: every statistic of the mmtests table
//! (and LKP's) for each (metric, param, kernel), assembled into an [`app::compare::Comparison`].
//!
//! polars may call `tokio::task::block_in_place`; callers run these functions inside
//! `spawn_blocking`.

use std::collections::{BTreeSet, HashMap};

use app::compare::{cell, default_precision, row_label, Comparison, KernelRuns, Row, Stats};
use app::label::Direction;
use app::types::{compare_params, CompareQuery};
use polars::prelude::*;

use crate::store::CompareSeries;

type Key = (String, String, String);

fn polars_err(e: PolarsError) -> anyhow::Error {
    anyhow::anyhow!("polars: {e}")
}

/// The statistics of each (metric, param, kernel) group of `samples`.
///
/// polars groups the samples and sorts each group best first (the largest first for
/// higher-is-better metrics, the smallest first for lower-is-better ones: the direction is the
/// samples' own) and computes the order-free statistics (min, max, median, LKP's population
/// stddev); the means, standard deviations, B-means and the CI are then folded over each sorted
/// group in mmtests' own order by `app::mmtests::summarise`, so that every printed digit is
/// mmtests'.
pub fn group_stats(series: &[CompareSeries]) -> anyhow::Result<HashMap<Key, Stats>> {
    group_stats_as(series, None)
}

/// [`group_stats`] as an mmtests family compares them: every sample judged by the family's
/// direction, with the statistics its summary style prints.
fn group_stats_as(
    series: &[CompareSeries],
    family: Option<&app::mmtests::Family>,
) -> anyhow::Result<HashMap<Key, Stats>> {
    // Groups are numbered here so that polars groups by an integer, not by three strings.
    let mut group_of: HashMap<(&str, &str, &str), u32> = HashMap::new();
    let mut keys: Vec<Key> = Vec::new();
    let mut directions: Vec<Direction> = Vec::new();
    let n: usize = series.iter().map(|s| s.values.len()).sum();
    let mut group = Vec::with_capacity(n);
    let mut value = Vec::with_capacity(n);
    let mut best_first = Vec::with_capacity(n);
    for s in series {
        let g = *group_of
            .entry((s.metric.as_str(), s.param.as_str(), s.kernel.as_str()))
            .or_insert_with(|| {
                keys.push((s.metric.clone(), s.param.clone(), s.kernel.clone()));
                directions.push(family.map_or(s.direction, |f| f.preferred));
                keys.len() as u32 - 1
            });
        let direction = directions[g as usize];
        for &v in &s.values {
            group.push(g);
            value.push(v);
            // Sorting ascending by this key puts the best samples first.
            best_first.push(match direction {
                Direction::Higher => -v,
                Direction::Lower | Direction::Unknown => v,
            });
        }
    }
    let df = df!("group" => group, "value" => value, "key" => best_first).map_err(polars_err)?;

    let x = || col("value");
    let out = df
        .lazy()
        .group_by([col("group")])
        .agg([
            len().cast(DataType::Int64).alias("n"),
            x().min().alias("min"),
            x().max().alias("max"),
            x().std(0).alias("pstddev"),
            x().median().alias("median"),
            x().quantile(lit(0.5), QuantileMethod::Higher)
                .alias("upper_median"),
            // Each group's samples best first, as mmtests sorts them before any statistic:
            // its order of summation decides last digits (see `app::mmtests`).
            x().sort_by([col("key")], SortMultipleOptions::default())
                .alias("sorted"),
        ])
        .collect()
        .map_err(polars_err)?;

    let s = |name: &str| -> anyhow::Result<Float64Chunked> {
        Ok(out
            .column(name)
            .map_err(polars_err)?
            .cast(&DataType::Float64)
            .map_err(polars_err)?
            .f64()
            .map_err(polars_err)?
            .clone())
    };
    let groups = out
        .column("group")
        .map_err(polars_err)?
        .u32()
        .map_err(polars_err)?
        .clone();
    let counts = out
        .column("n")
        .map_err(polars_err)?
        .i64()
        .map_err(polars_err)?
        .clone();
    let (min, max, pstddev, median, upper_median) = (
        s("min")?,
        s("max")?,
        s("pstddev")?,
        s("median")?,
        s("upper_median")?,
    );
    let sorted = out
        .column("sorted")
        .map_err(polars_err)?
        .list()
        .map_err(polars_err)?
        .clone();

    let mut stats = HashMap::with_capacity(out.height());
    for i in 0..out.height() {
        let Some(g) = groups.get(i) else {
            continue;
        };
        let Some(key) = keys.get(g as usize) else {
            continue;
        };
        let n = counts.get(i).unwrap_or(0);
        let units: Vec<f64> = match sorted.get_as_series(i) {
            Some(series) => series
                .f64()
                .map_err(polars_err)?
                .into_no_null_iter()
                .collect(),
            None => Vec::new(),
        };
        let direction = directions[g as usize];
        let m = app::mmtests::summarise(&units, direction);
        let more = match family {
            Some(f) if f.summarise != app::mmtests::Summarise::Multiops => {
                app::mmtests::more_stats(f.summarise, &units, direction)
            }
            _ => Vec::new(),
        };
        stats.insert(
            key.clone(),
            Stats {
                more,
                n,
                min: min.get(i).unwrap_or(f64::NAN),
                max: max.get(i).unwrap_or(f64::NAN),
                amean: m.amean.unwrap_or(f64::NAN),
                hmean: m.hmean,
                stddev: m.stddev,
                hstddev: m.hstddev,
                coeffvar: Some(m.coeffvar),
                hcoeffvar: Some(m.hcoeffvar),
                bamean95: m.bamean95.unwrap_or(f64::NAN),
                bhmean95: m.bhmean95,
                median: median.get(i).unwrap_or(f64::NAN),
                pstddev: pstddev.get(i).unwrap_or(0.0),
                upper_median: upper_median.get(i).unwrap_or(f64::NAN),
                ci: m.ci,
                present: units.iter().filter(|v| **v > 0.0).count() as i64,
            },
        );
    }
    Ok(stats)
}

/// The full comparison of `query.kernels` (the first is the baseline) over `samples`.
pub fn compare(
    query: CompareQuery,
    samples: &[CompareSeries],
    precision: Option<usize>,
) -> anyhow::Result<Comparison> {
    compare_as(query, samples, precision, None)
}

/// How an mmtests family compares: its summary style and direction, its decimal places.
#[derive(Debug, Clone, PartialEq)]
pub struct AsFamily {
    pub family: app::mmtests::Family,
    pub precision: usize,
}

/// [`compare`], as mmtests compares `family` when given: one direction for every row, the
/// family's summary style and decimal places, and the operations in the order its parser
/// printed them (the baseline's first).
pub fn compare_as(
    query: CompareQuery,
    samples: &[CompareSeries],
    precision: Option<usize>,
    family: Option<AsFamily>,
) -> anyhow::Result<Comparison> {
    let precision = precision
        .or(family.as_ref().map(|f| f.precision))
        .unwrap_or_else(|| default_precision(&query.benchmark));
    let family = family.map(|f| f.family);
    let mut runs: HashMap<&str, BTreeSet<i64>> = HashMap::new();
    let mut meta: HashMap<(&str, &str), (Option<&str>, Direction)> = HashMap::new();
    let mut first_seen: Vec<(&str, &str)> = Vec::new();
    for s in samples {
        runs.entry(s.kernel.as_str()).or_default().insert(s.run_id);
        let direction = family.as_ref().map_or(s.direction, |f| f.preferred);
        meta.entry((s.metric.as_str(), s.param.as_str()))
            .or_insert_with(|| {
                first_seen.push((s.metric.as_str(), s.param.as_str()));
                (s.unit.as_deref(), direction)
            });
    }
    // Each row's runs by kernel, for its noise.
    let mut spreads: HashMap<(&str, &str), Vec<Vec<crate::domain::noise::RunSpread>>> =
        HashMap::new();
    for s in samples {
        let Some(k) = query.kernels.iter().position(|k| k.as_str() == s.kernel) else {
            continue;
        };
        if s.values.is_empty() {
            continue;
        }
        let by_kernel = spreads
            .entry((s.metric.as_str(), s.param.as_str()))
            .or_insert_with(|| vec![Vec::new(); query.kernels.len()]);
        by_kernel[k].push(crate::domain::noise::RunSpread::of(&s.values));
    }
    let mut stats = if samples.is_empty() {
        HashMap::new()
    } else {
        group_stats_as(samples, family.as_ref())?
    };
    let keys: Vec<(&str, &str)> = if family.is_some() {
        // mmtests' operations: the baseline's in its parser's order, then any other
        // kernel's new ones.
        let mut ordered = Vec::with_capacity(first_seen.len());
        let mut seen = std::collections::HashSet::new();
        for k in &query.kernels {
            for s in samples.iter().filter(|s| s.kernel == k.as_str()) {
                let key = (s.metric.as_str(), s.param.as_str());
                if seen.insert(key) {
                    ordered.push(key);
                }
            }
        }
        ordered
    } else {
        let mut keys = first_seen;
        keys.sort_by(|a, b| a.0.cmp(b.0).then_with(|| compare_params(a.1, b.1)));
        keys
    };
    let mut rows: Vec<Row> = keys
        .into_iter()
        .map(|(metric, param)| {
            let (unit, direction) = meta[&(metric, param)];
            let mut stats_of = |kernel: &str| {
                stats.remove(&(metric.to_owned(), param.to_owned(), kernel.to_owned()))
            };
            let per_kernel: Vec<Option<Stats>> =
                query.kernels.iter().map(|k| stats_of(k)).collect();
            let base = per_kernel.first().cloned().flatten();
            let cells = per_kernel
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    s.map(|s| {
                        if i == 0 {
                            cell(s, None, metric, direction)
                        } else {
                            match &base {
                                Some(b) => cell(s, Some(b), metric, direction),
                                None => {
                                    let mut c = cell(s, None, metric, direction);
                                    c.verdict = app::compare::Verdict::Unchanged;
                                    c.changes = Default::default();
                                    c.lkp_change = None;
                                    c
                                }
                            }
                        }
                    })
                })
                .collect();
            let (noise, advice) = spreads
                .get(&(metric, param))
                .map_or((None, None), |by_kernel| row_noise(by_kernel));
            Row {
                metric: metric.to_owned(),
                param: param.to_owned(),
                label: row_label(metric, param),
                unit: unit.map(str::to_owned),
                direction,
                cells,
                noise,
                advice,
            }
        })
        .collect();
    // Significance is mmtests': from the intervals of the whole table.
    app::mmtests::mark_significance(&mut rows);
    let runs = query
        .kernels
        .iter()
        .map(|k| KernelRuns {
            kernel: k.to_string(),
            runs: runs
                .get(k.as_str())
                .map(|r| r.iter().copied().collect())
                .unwrap_or_default(),
        })
        .collect();
    Ok(Comparison {
        query,
        runs,
        precision,
        permalink: None,
        rows,
        facts: Vec::new(),
        changed: Vec::new(),
        family,
    })
}

/// A row's noise (each kernel's runs one group) and the advice for the default change, on
/// the fewest runs and samples of a compared kernel.
fn row_noise(
    by_kernel: &[Vec<crate::domain::noise::RunSpread>],
) -> (Option<app::noise::Noise>, Option<app::noise::Advice>) {
    let mut acc = crate::domain::noise::NoiseAcc::default();
    let (mut runs, mut samples) = (usize::MAX, usize::MAX);
    for group in by_kernel.iter().filter(|g| !g.is_empty()) {
        acc.group(group);
        runs = runs.min(group.len());
        samples = samples.min(group.iter().map(|r| r.n).sum());
    }
    if runs == usize::MAX {
        return (None, None);
    }
    let noise = acc.noise();
    let advice = crate::domain::noise::advise(&noise, runs, samples, app::noise::DEFAULT_DETECT);
    (Some(noise), advice)
}

/// Each kernel's runs as lkp-tests' matrix (`lkp::unite`), in `query.kernels` order. An
/// LKP run is a job's `stats.json`: its series in stored order (the file's), each (metric,
/// param) one key (`row_label`) with one value (an Integer where the file wrote one). Formats
/// with iterations (CSV, mmtests) give each iteration of a run as one LKP run, as lkp-tests
/// counts repeated jobs.
pub fn lkp_matrices(query: &CompareQuery, series: &[CompareSeries]) -> Vec<lkp::Matrix> {
    lkp_matrices_of(
        query,
        series.iter().map(|s| {
            let key = row_label(&s.metric, &s.param);
            let unique = s.param.is_empty();
            (
                s.kernel.as_str(),
                s.run_id,
                key,
                unique,
                s.integer,
                s.values.as_slice(),
            )
        }),
    )
}

/// [`lkp_matrices`] of series the caller is done with: their metric names move into the
/// matrices instead of being copied (a report over two commits of 5,000-key jobs has 60,000).
pub fn lkp_matrices_taking(query: &CompareQuery, series: &mut [CompareSeries]) -> Vec<lkp::Matrix> {
    lkp_matrices_of(
        query,
        series.iter_mut().map(|s| {
            let CompareSeries {
                kernel,
                run_id,
                metric,
                param,
                integer,
                values,
                ..
            } = s;
            let unique = param.is_empty();
            let key = if unique {
                std::mem::take(metric)
            } else {
                row_label(metric, param)
            };
            (
                kernel.as_str(),
                *run_id,
                key,
                unique,
                *integer,
                values.as_slice(),
            )
        }),
    )
}

/// The matrices of (kernel, run, key, unique, integer, values) series; `unique`: no other
/// series of the run has that key (a metric without a param: stored series are unique by
/// metric and param, and another's label could only collide through its param).
fn lkp_matrices_of<'a>(
    query: &CompareQuery,
    series: impl Iterator<Item = (&'a str, i64, String, bool, bool, &'a [f64])>,
) -> Vec<lkp::Matrix> {
    use lkp::{unite, Run, Value};
    let kernels: Vec<&str> = query
        .kernels
        .iter()
        .map(app::label::Label::as_str)
        .collect();
    // By kernel, LKP runs by (run, iteration index).
    let mut runs: Vec<std::collections::BTreeMap<(i64, usize), Run>> =
        vec![Default::default(); kernels.len()];
    for (kernel, run_id, key, unique, integer, values) in series {
        let Some(k) = kernels.iter().position(|k| *k == kernel) else {
            continue;
        };
        let last = values.len().saturating_sub(1);
        let mut key = Some(key);
        for (i, &v) in values.iter().enumerate() {
            let value = if integer {
                Value::Int(v as i128)
            } else {
                Value::Float(v)
            };
            // The label moves into the last value's run (LKP's runs have one value a key).
            let owned = if i == last {
                key.take().unwrap_or_default()
            } else {
                key.clone().unwrap_or_default()
            };
            let run = runs[k].entry((run_id, i)).or_default();
            if unique {
                run.push_unique(owned, value);
            } else {
                run.insert(owned, value);
            }
        }
    }
    runs.into_iter()
        .map(|r| unite(&r.into_values().collect::<Vec<_>>()))
        .collect()
}

/// The group header of an LKP table: the machine and the benchmark as lkp-tests' `tbox_group`
/// and `testcase` (the job file's other axes are not uploaded), and the two labels.
pub fn lkp_header(query: &CompareQuery, base: &str, head: &str) -> lkp::Header {
    lkp::Header {
        axes: vec![
            ("tbox_group".to_owned(), query.machine_name().to_owned()),
            ("testcase".to_owned(), query.benchmark.to_string()),
        ],
        base_commit: base.to_owned(),
        head_commit: head.to_owned(),
    }
}

/// lkp-tests' comparison (`lkp`, byte for byte the table its `ncompare` prints) of each
/// kernel's runs against the first's ([`lkp_matrices`]): one table per kernel after the first.
/// Empty when no key changed by lkp-tests' rules.
pub fn lkp_text(query: &CompareQuery, series: &[CompareSeries]) -> String {
    let matrices = lkp_matrices(query, series);
    let mut out = String::new();
    // `commits=` columns are `commit=SHA`: LKP names them by the sha.
    let label = |k: &app::label::Label| {
        let k = k.as_str();
        k.strip_prefix("commit=").unwrap_or(k).to_owned()
    };
    for k in 1..matrices.len() {
        let header = lkp_header(query, &label(&query.kernels[0]), &label(&query.kernels[k]));
        out.push_str(&lkp::compare_text(&header, &matrices[0], &matrices[k]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn samples(kernel: &str, direction: Direction, values: &[f64]) -> Vec<CompareSeries> {
        vec![CompareSeries {
            run_id: 1,
            kernel: kernel.into(),
            metric: "m".into(),
            param: "1".into(),
            unit: None,
            direction,
            integer: false,
            iterations: (1..=values.len() as i64).collect(),
            values: values.to_vec(),
        }]
    }

    fn one(direction: Direction, values: &[f64]) -> Stats {
        let mut all = group_stats(&samples("k", direction, values)).unwrap();
        all.remove(&("m".into(), "1".into(), "k".into())).unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn statistics_as_product_md_defines_them() {
        let s = one(Direction::Higher, &[1.0, 2.0, 4.0, 8.0]);
        assert_eq!((s.n, s.min, s.max), (4, 1.0, 8.0));
        assert!(close(s.amean, 3.75));
        let h = 4.0 / (1.0 + 0.5 + 0.25 + 0.125);
        assert!(close(s.hmean.unwrap(), h));
        let var = [1.0f64, 2.0, 4.0, 8.0]
            .iter()
            .map(|x| (x - 3.75).powi(2))
            .sum::<f64>();
        assert!(close(s.stddev.unwrap(), (var / 3.0).sqrt()));
        assert!(close(s.pstddev, (var / 4.0).sqrt()));
        let hvar = [1.0f64, 0.5, 0.25, 0.125]
            .iter()
            .map(|r| (r - 1.0 / h).powi(2))
            .sum::<f64>();
        assert!(close(s.hstddev.unwrap(), (hvar * h.powi(4) / 4.0).sqrt()));
        assert!(close(s.coeffvar.unwrap(), 100.0 * s.stddev.unwrap() / 3.75));
        assert!(close(s.hcoeffvar.unwrap(), 100.0 * s.hstddev.unwrap() / h));
        // ⌊0.95·4⌋ = 3 best = largest three.
        assert!(close(s.bamean95, 14.0 / 3.0));
        assert!(close(s.bhmean95.unwrap(), 3.0 / (0.5 + 0.25 + 0.125)));
        assert!(close(s.median, 3.0));
        assert_eq!(s.upper_median, 4.0);

        let s = one(Direction::Lower, &[1.0, 2.0, 4.0, 8.0]);
        assert!(close(s.bamean95, 7.0 / 3.0), "best = smallest three");
    }

    #[test]
    fn edge_cases_never_make_nan() {
        // mmtests' semantics: an undefined spread is "NaN" (None), and a coefficient of
        // variation over it, or over a zero or undefined mean, is 0.
        let s = one(Direction::Higher, &[5.0]);
        assert_eq!(
            (s.stddev, s.hstddev, s.ci),
            (None, None, None),
            "one sample has no spread"
        );
        assert_eq!((s.coeffvar, s.hcoeffvar), (Some(0.0), Some(0.0)));
        assert_eq!((s.bamean95, s.median, s.upper_median), (5.0, 5.0, 5.0));

        let s = one(Direction::Higher, &[0.0, 1.0, 2.0]);
        assert_eq!((s.hmean, s.hstddev, s.hcoeffvar), (None, None, Some(0.0)));
        // The best two of three leave the 0 out (np22).
        assert!(close(s.bhmean95.unwrap(), 2.0 / 1.5));
        assert!(close(s.amean, 1.0));

        let s = one(Direction::Lower, &[0.0, 0.0]);
        assert_eq!(s.stddev, Some(0.0));
        assert_eq!(
            s.coeffvar,
            Some(0.0),
            "a zero mean gives 0, as mmtests prints"
        );

        let s = one(Direction::Lower, &[3.0, 3.0, 3.0]);
        assert_eq!(
            (s.stddev, s.coeffvar, s.hstddev),
            (Some(0.0), Some(0.0), Some(0.0))
        );
        assert!(close(s.hmean.unwrap(), 3.0));

        let json = serde_json::to_string(&one(Direction::Higher, &[-1.0, 1.0])).unwrap();
        assert!(!json.contains("NaN") && !json.contains("inf"), "{json}");
    }

    proptest! {
        #[test]
        fn invariants(values in proptest::collection::vec(0.001f64..1e6, 1..60), scale in 0.01f64..100.0, seed in any::<u64>()) {
            let s = one(Direction::Higher, &values);
            let h = s.hmean.unwrap();
            prop_assert!(s.min <= h * (1.0 + 1e-9) && h <= s.amean * (1.0 + 1e-9) && s.amean <= s.max * (1.0 + 1e-9));
            prop_assert!(s.bamean95 >= s.amean * (1.0 - 1e-9), "the best 95% are no worse than all");
            prop_assert!(s.min <= s.median && s.median <= s.max);

            // Permutation invariance.
            let mut shuffled = values.clone();
            let mut state = seed;
            for i in (1..shuffled.len()).rev() {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                shuffled.swap(i, (state >> 33) as usize % (i + 1));
            }
            let p = one(Direction::Higher, &shuffled);
            prop_assert!(close(p.amean, s.amean) && close(p.hmean.unwrap(), h) && close(p.bamean95, s.bamean95));
            prop_assert_eq!(p.median, s.median);

            // Scale equivariance, and scale invariance of the coefficients of variation.
            let scaled: Vec<f64> = values.iter().map(|v| v * scale).collect();
            let t = one(Direction::Higher, &scaled);
            prop_assert!((t.amean - s.amean * scale).abs() <= 1e-6 * t.amean.abs().max(1.0));
            prop_assert!((t.hmean.unwrap() - h * scale).abs() <= 1e-6 * t.hmean.unwrap());
            if let (Some(a), Some(b)) = (t.coeffvar, s.coeffvar) {
                prop_assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0));
            }
            if let (Some(a), Some(b)) = (t.hcoeffvar, s.hcoeffvar) {
                prop_assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0));
            }
        }
    }

    #[test]
    fn rows_follow_the_query_and_the_baseline() {
        let q = CompareQuery::parse("b", "m", &["new", "old"]).unwrap();
        let mut all = samples("old", Direction::Lower, &[10.0, 10.0, 10.0]);
        all.extend(samples("new", Direction::Lower, &[5.0, 5.0, 5.0]));
        let c = compare(q, &all, None).unwrap();
        assert_eq!(c.precision, 2);
        let row = &c.rows[0];
        assert_eq!(row.label, "m-1");
        let base = row.cells[0].as_ref().unwrap();
        assert_eq!(
            base.stats.amean, 5.0,
            "the first kernel of the query is the baseline"
        );
        let other = row.cells[1].as_ref().unwrap();
        assert_eq!(other.changes.mean, Some(-100.0), "10 is twice as slow as 5");
        assert_eq!(other.verdict, app::compare::Verdict::Regression);
    }
}
