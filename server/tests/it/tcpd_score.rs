// SPDX-License-Identifier: GPL-3.0-or-later
//! The public labelled series of TCPD (`tests/fixtures/tcpd/`: 20 univariate series with the
//! change points five human annotators marked, and the scores TCPDBench published for its
//! methods) and TCPDBench's two scores, F1 and covering, computed as its `metrics.py` and
//! `summarize.py` do: our own code, from their definitions.
//!
//! - Predictions are cleaned first: duplicates dropped, only `1 ≤ x ≤ n − 2` kept.
//! - F1 (margin 5): index 0 joins every annotator's set and the predictions. Precision is
//!   against the union of the annotators' points, recall the mean over annotators; a
//!   prediction matches at most one annotation, the nearest within ±5.
//! - Covering: each annotator's segmentation covered by the predicted one (Arbeláez et al.
//!   2010, eq. 8), averaged over annotators.
//!
//! Shared by the test `it::tcpd` and the bench `benches/tcpd.rs` (`#[path]`).

#![allow(dead_code, reason = "the bench and the tests use different parts")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One labelled series.
pub struct Series {
    pub name: String,
    /// The observations; `None` where TCPD has none (no run at that commit).
    pub raw: Vec<Option<f64>>,
    /// Each annotator's change points (0-based: the first observation of a new segment).
    pub annotations: Vec<Vec<usize>>,
    /// TCPDBench's published default scores: method → (F1, cover); a method that failed on
    /// the series is absent.
    pub published: BTreeMap<String, (f64, f64)>,
}

impl Series {
    pub fn n(&self) -> usize {
        self.raw.len()
    }

    /// The annotators' points together.
    pub fn union(&self) -> BTreeSet<usize> {
        self.annotations.iter().flatten().copied().collect()
    }

    /// The observations there are, and the index of each in the whole series.
    pub fn present(&self) -> (Vec<f64>, Vec<usize>) {
        self.raw
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (v, i)))
            .unzip()
    }

    /// F1 and cover of `predicted` (indices into the whole series).
    pub fn score(&self, predicted: &[usize]) -> (f64, f64) {
        let cleaned: BTreeSet<usize> = predicted
            .iter()
            .copied()
            .filter(|&x| x >= 1 && x + 2 <= self.n())
            .collect();
        (
            f_measure(&self.annotations, &cleaned, 5),
            covering(&self.annotations, &cleaned, self.n()),
        )
    }
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tcpd/data")
}

/// Every series of the fixture, by name.
pub fn load() -> Vec<Series> {
    let dir = fixtures();
    let read = |p: PathBuf| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(&p).unwrap_or_else(|e| panic!("{p:?}: {e}"))).unwrap()
    };
    let annotations = read(dir.join("annotations.json"));
    let scores = read(dir.join("tcpdbench_default_scores.json"));
    let mut out = Vec::new();
    for (name, by_annotator) in annotations.as_object().unwrap() {
        let data = read(dir.join(name).join(format!("{name}.json")));
        let raw: Vec<Option<f64>> = data["series"][0]["raw"]
            .as_array()
            .unwrap()
            .iter()
            .map(serde_json::Value::as_f64)
            .collect();
        assert_eq!(raw.len() as u64, data["n_obs"].as_u64().unwrap(), "{name}");
        let annotations = by_annotator
            .as_object()
            .unwrap()
            .values()
            .map(|a| {
                a.as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i.as_u64().unwrap() as usize)
                    .collect()
            })
            .collect();
        let mut published = BTreeMap::new();
        for (method, f1) in scores["f1"][name].as_object().unwrap() {
            if let (Some(f1), Some(cover)) = (f1.as_f64(), scores["cover"][name][method].as_f64()) {
                published.insert(method.clone(), (f1, cover));
            }
        }
        out.push(Series {
            name: name.clone(),
            raw,
            annotations,
            published,
        });
    }
    out
}

/// The annotations in `truth` matched by a prediction within `margin`, each prediction used
/// at most once (the nearest, the smaller on a tie), the annotations taken in increasing order.
fn true_positives(truth: &BTreeSet<usize>, predicted: &BTreeSet<usize>, margin: usize) -> usize {
    let mut left = predicted.clone();
    let mut hits = 0;
    for &t in truth {
        let nearest = left
            .range(t.saturating_sub(margin)..=t + margin)
            .min_by_key(|&&x| (x.abs_diff(t), x))
            .copied();
        if let Some(x) = nearest {
            left.remove(&x);
            hits += 1;
        }
    }
    hits
}

fn f_measure(annotations: &[Vec<usize>], predicted: &BTreeSet<usize>, margin: usize) -> f64 {
    let with_zero = |s: &mut BTreeSet<usize>| {
        s.insert(0);
    };
    let mut x = predicted.clone();
    with_zero(&mut x);
    let sets: Vec<BTreeSet<usize>> = annotations
        .iter()
        .map(|a| {
            let mut s: BTreeSet<usize> = a.iter().copied().collect();
            with_zero(&mut s);
            s
        })
        .collect();
    let union: BTreeSet<usize> = sets.iter().flatten().copied().collect();
    let precision = true_positives(&union, &x, margin) as f64 / x.len() as f64;
    let recall = sets
        .iter()
        .map(|s| true_positives(s, &x, margin) as f64 / s.len() as f64)
        .sum::<f64>()
        / sets.len() as f64;
    // F1 = P·R / (½R + ½P).
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// The segments `[start, end)` the change points cut `0..n` into.
fn segments(points: &BTreeSet<usize>, n: usize) -> Vec<(usize, usize)> {
    let mut bounds: Vec<usize> = std::iter::once(0)
        .chain(points.iter().copied().filter(|&p| p > 0 && p < n))
        .collect();
    bounds.push(n);
    bounds.dedup();
    bounds.windows(2).map(|w| (w[0], w[1])).collect()
}

fn covering(annotations: &[Vec<usize>], predicted: &BTreeSet<usize>, n: usize) -> f64 {
    let theirs = segments(predicted, n);
    let jaccard = |(a0, a1): (usize, usize), (b0, b1): (usize, usize)| {
        let inter = a1.min(b1).saturating_sub(a0.max(b0));
        let union = (a1 - a0) + (b1 - b0) - inter;
        inter as f64 / union as f64
    };
    annotations
        .iter()
        .map(|a| {
            let mine: BTreeSet<usize> = a.iter().copied().collect();
            segments(&mine, n)
                .into_iter()
                .map(|s| {
                    (s.1 - s.0) as f64 * theirs.iter().map(|&t| jaccard(s, t)).fold(0.0, f64::max)
                })
                .sum::<f64>()
                / n as f64
        })
        .sum::<f64>()
        / annotations.len() as f64
}

/// What a detector scored on every series.
pub struct Scored {
    pub name: String,
    pub n: usize,
    pub annotated: usize,
    pub predicted: usize,
    pub f1: f64,
    pub cover: f64,
}

/// `detect` (change points of the present observations, as indices into them) on every
/// series, scored.
pub fn run(series: &[Series], mut detect: impl FnMut(&[f64]) -> Vec<usize>) -> Vec<Scored> {
    series
        .iter()
        .map(|s| {
            let (values, index) = s.present();
            let predicted: Vec<usize> = detect(&values).into_iter().map(|k| index[k]).collect();
            let (f1, cover) = s.score(&predicted);
            Scored {
                name: s.name.clone(),
                n: s.n(),
                annotated: s.union().len(),
                predicted: predicted.len(),
                f1,
                cover,
            }
        })
        .collect()
}

/// The mean F1 and cover of `scored`.
pub fn means(scored: &[Scored]) -> (f64, f64) {
    let n = scored.len() as f64;
    (
        scored.iter().map(|s| s.f1).sum::<f64>() / n,
        scored.iter().map(|s| s.cover).sum::<f64>() / n,
    )
}

/// A published method's mean F1 and cover over the series it did not fail on, and how many.
pub fn published_means(series: &[Series], method: &str) -> (f64, f64, usize) {
    let got: Vec<(f64, f64)> = series
        .iter()
        .filter_map(|s| s.published.get(method).copied())
        .collect();
    let n = got.len() as f64;
    (
        got.iter().map(|g| g.0).sum::<f64>() / n,
        got.iter().map(|g| g.1).sum::<f64>() / n,
        got.len(),
    )
}

/// A normal sample by Box–Muller.
pub fn normal(rng: &mut rand::rngs::StdRng) -> f64 {
    use rand::Rng;
    let u1: f64 = rng.random::<f64>().max(1e-12);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Series without a change point that are not flat: smooth growth curves (logistic,
/// exponential, quadratic, a slow sine, a logarithm with almost no noise), slow drifts,
/// random walks and AR(1) noise, three lengths, four seeds (108 series). The detector
/// reports at most two change points on every one: a trend is not a staircase.
pub fn trends() -> Vec<(String, Vec<f64>)> {
    let mut out = Vec::new();
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(55);
    for seed in 0..4 {
        for n in [60usize, 150, 400] {
            let nf = n as f64;
            let e = |s: f64, rng: &mut rand::rngs::StdRng| s * normal(rng);
            let name = |kind: &str| format!("{kind}/{n}/{seed}");
            let t = |i: usize| i as f64 / nf;
            out.push((
                name("logistic"),
                (0..n)
                    .map(|i| 100.0 / (1.0 + (4.0 - 8.0 * t(i)).exp()) + e(0.3, &mut rng))
                    .collect(),
            ));
            out.push((
                name("exponential"),
                (0..n)
                    .map(|i| (3.0 * t(i)).exp() * (1.0 + e(0.003, &mut rng)))
                    .collect(),
            ));
            out.push((
                name("quadratic"),
                (0..n)
                    .map(|i| 1000.0 + 50.0 * t(i).powi(2) + e(0.2, &mut rng))
                    .collect(),
            ));
            out.push((
                name("sine"),
                (0..n)
                    .map(|i| 10.0 + (2.0 * std::f64::consts::PI * t(i)).sin() + e(0.05, &mut rng))
                    .collect(),
            ));
            out.push((
                name("logarithm"),
                (0..n)
                    .map(|i| 5.0 + (1.0 + i as f64).ln() + e(0.001, &mut rng))
                    .collect(),
            ));
            let mut w = 100.0;
            out.push((
                name("random walk"),
                (0..n)
                    .map(|_| {
                        w += e(1.0, &mut rng);
                        w
                    })
                    .collect(),
            ));
            let mut a = 0.0;
            out.push((
                name("ar(0.9)"),
                (0..n)
                    .map(|_| {
                        a = 0.9 * a + e(1.0, &mut rng);
                        50.0 + a
                    })
                    .collect(),
            ));
            let mut b = 0.0;
            out.push((
                name("drift + ar(0.5)"),
                (0..n)
                    .map(|i| {
                        b = 0.5 * b + e(1.0, &mut rng);
                        50.0 + 10.0 * t(i) + b
                    })
                    .collect(),
            ));
            out.push((
                name("drift"),
                (0..n)
                    .map(|i| 1000.0 * (1.0 + 0.1 * t(i)) * (1.0 + e(0.01, &mut rng)))
                    .collect(),
            ));
        }
    }
    out
}
