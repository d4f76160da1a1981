// SPDX-License-Identifier: GPL-3.0-or-later
//! Mozilla's Perfherder series with their sheriffs' verdicts (`tests/fixtures/realise/`: 224
//! windows of 160 revisions, split into development and held-out in `SPLIT.md`), the alert pipeline run on
//! them one revision at a time, a t test like Perfherder's on the same windows, and the
//! scores. Shared by the bench `benches/realise.rs` and the test `it::realise` (`#[path]`).
//!
//! - Truth: the alerts REALISE annotates (`annotations.json`: sheriff-confirmed alerts and
//!   the changes sheriffs added by hand) within the window. An alert is right when it is
//!   within ±5 revisions of one (TCPDBench's margin), each annotation matched once.
//! - Perfherder's detector (treeherder's `perfalert`, as documented there): for every
//!   revision, a back window of the 12 previous revisions (up to 24 while no change was seen
//!   since) against a fore window of it and the next 11, each revision weighted linearly by
//!   its closeness; t = |Δ weighted mean| / √(s²_b/n_b + s²_f/n_f); a change where t > 7 and
//!   t is at least its neighbours', and the means differ by at least 2 %. Our own code.

#![allow(dead_code, reason = "the bench and the tests use different parts")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use perfline_server::services::alerts::detect::{is_known, newest_step, Settings};

pub struct Window {
    pub signature: String,
    /// One of [`SPLITS`].
    pub split: String,
    /// The index (in the whole series) of the window's first revision.
    pub first: usize,
    pub values: Vec<f64>,
    /// Each revision's label: `TN`, or the sheriffs' `TP`, `FP`, `FN`, `SP`.
    pub labels: Vec<String>,
    /// The annotated changes, as indices into the window.
    pub truth: Vec<usize>,
}

/// The splits of `SPLIT.md`: `dev` and `seen` to `seen5` (the first five held-out splits,
/// scored once each and examined since) are for development; `held-out` is scored once.
pub const SPLITS: [&str; 7] = [
    "dev", "seen", "seen2", "seen3", "seen4", "seen5", "held-out",
];

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/realise")
}

/// Every window of the fixture with its split.
pub fn load() -> Vec<Window> {
    let dir = fixtures();
    let split = std::fs::read_to_string(dir.join("SPLIT.md")).expect("SPLIT.md");
    let annotations: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("annotations.json")).expect("annotations"))
            .expect("annotations.json");
    let mut out = Vec::new();
    for line in split.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [_, which, signature, ..] = words[..] else {
            continue;
        };
        if !SPLITS.contains(&which) {
            continue;
        }
        let path = dir.join("series").join(format!("{signature}.csv"));
        if which == "held-out" && std::env::var("REALISE_NO_HELD_OUT").is_ok() {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let (mut first, mut values, mut labels) = (None, Vec::new(), Vec::new());
        for row in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
            let cells: Vec<&str> = row.trim_end_matches('\r').split(',').collect();
            let index: usize = cells[0].parse().expect("index");
            first.get_or_insert(index);
            values.push(cells[2].parse::<f64>().expect("value"));
            labels.push(cells[3].to_owned());
        }
        let first = first.expect("rows");
        let truth = annotations[signature]
            .as_object()
            .into_iter()
            .flat_map(|a| a.values())
            .flat_map(|v| v.as_array().cloned().unwrap_or_default())
            .filter_map(|v| v.as_u64().map(|v| v as usize))
            .filter(|&i| i >= first && i < first + values.len())
            .map(|i| i - first)
            .collect();
        out.push(Window {
            signature: signature.to_owned(),
            split: which.to_owned(),
            first,
            values,
            labels,
            truth,
        });
    }
    out
}

/// The alert pipeline on `x`, one revision at a time: the first bad revision of each alert.
pub fn perfline_alerts(x: &[f64], settings: &Settings) -> Vec<usize> {
    let mut known: Vec<usize> = Vec::new();
    for n in 1..=x.len() {
        let since = known.iter().max().copied();
        if let Some(step) = newest_step(&x[..n], settings, since) {
            if !is_known(step.index, &known, settings) {
                known.push(step.index);
            }
        }
    }
    known
}

/// Perfherder's weighted mean and variance of a window (nearest revision first).
fn weighted(window: &[f64]) -> (f64, f64, usize) {
    let n = window.len();
    let weights: Vec<f64> = (0..n).map(|i| (n - i) as f64 / n as f64).collect();
    let total: f64 = weights.iter().sum();
    let mean = window.iter().zip(&weights).map(|(v, w)| v * w).sum::<f64>() / total;
    let var = if n > 1 {
        window.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    (mean, var, n)
}

/// Perfherder's change detection on `x` (one value per revision): the revisions it alerts.
pub fn perfherder_alerts(x: &[f64]) -> Vec<usize> {
    const MIN_BACK: usize = 12;
    const MAX_BACK: usize = 24;
    const FORE: usize = 12;
    const T: f64 = 7.0;
    const MIN_PCT: f64 = 2.0;
    let n = x.len();
    let mut t = vec![0.0; n];
    let mut back_len = vec![0; n];
    let mut fore_len = vec![0; n];
    let mut means = vec![(0.0, 0.0); n];
    let mut since_change = 0usize;
    for i in 1..n {
        let reach = since_change.clamp(MIN_BACK, MAX_BACK);
        let back: Vec<f64> = (1..=reach.min(i)).map(|d| x[i - d]).collect();
        let fore: Vec<f64> = x[i..(i + FORE).min(n)].to_vec();
        let ((mb, vb, nb), (mf, vf, nf)) = (weighted(&back), weighted(&fore));
        back_len[i] = nb;
        fore_len[i] = nf;
        means[i] = (mb, mf);
        t[i] = if mf == mb {
            0.0
        } else if vb == 0.0 && vf == 0.0 {
            f64::INFINITY
        } else {
            (mf - mb).abs() / (vb / nb as f64 + vf / nf as f64).sqrt()
        };
        if t[i] > T {
            since_change = 0;
        } else {
            since_change += 1;
        }
    }
    (1..n)
        .filter(|&i| {
            back_len[i] >= MIN_BACK
                && fore_len[i] >= FORE
                && t[i] > T
                && t[i - 1] <= t[i]
                && (i + 1 >= n || t[i + 1] <= t[i])
                && means[i].0 != 0.0
                && 100.0 * ((means[i].1 - means[i].0) / means[i].0).abs() >= MIN_PCT
        })
        .collect()
}

/// Alerts matched to truth within ±`MARGIN`, each truth once: (right alerts, found truths).
pub fn matched(alerts: &[usize], truth: &[usize]) -> (usize, usize) {
    let mut free: Vec<usize> = truth.to_vec();
    let mut right = 0;
    for &a in alerts {
        if let Some(k) = free
            .iter()
            .enumerate()
            .filter(|(_, t)| t.abs_diff(a) <= MARGIN)
            .min_by_key(|(_, t)| t.abs_diff(a))
            .map(|(k, _)| k)
        {
            free.remove(k);
            right += 1;
        }
    }
    (right, truth.len() - free.len())
}

pub const MARGIN: usize = 5;

/// Precision and recall of a detector over windows: (alerts, right, truths, found).
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub alerts: usize,
    pub right: usize,
    pub truths: usize,
    pub found: usize,
}

impl Tally {
    pub fn add(&mut self, alerts: &[usize], truth: &[usize]) {
        let (right, found) = matched(alerts, truth);
        self.alerts += alerts.len();
        self.right += right;
        self.truths += truth.len();
        self.found += found;
    }
    pub fn merge(&mut self, other: Tally) {
        self.alerts += other.alerts;
        self.right += other.right;
        self.truths += other.truths;
        self.found += other.found;
    }
    /// `precision/recall (right/alerts, found/truths)`.
    pub fn brief(&self) -> String {
        format!(
            "{:.3}/{:.3} ({}/{}, {}/{})",
            self.precision(),
            self.recall(),
            self.right,
            self.alerts,
            self.found,
            self.truths
        )
    }
    pub fn precision(&self) -> f64 {
        if self.alerts == 0 {
            1.0
        } else {
            self.right as f64 / self.alerts as f64
        }
    }
    pub fn recall(&self) -> f64 {
        if self.truths == 0 {
            1.0
        } else {
            self.found as f64 / self.truths as f64
        }
    }
}

/// Both detectors over the windows of `split`: (Perfline, Perfherder).
pub fn score(windows: &[Window], split: &str, settings: &Settings) -> (Tally, Tally) {
    let (mut ours, mut theirs) = (Tally::default(), Tally::default());
    for w in windows.iter().filter(|w| w.split == split) {
        ours.add(&perfline_alerts(&w.values, settings), &w.truth);
        theirs.add(&perfherder_alerts(&w.values), &w.truth);
    }
    (ours, theirs)
}

/// Perfherder's own alerts in a window: the revisions its sheriffs judged (`TP`, `FP`, `SP`;
/// not `FN`, which sheriffs added by hand).
pub fn perfherder_own(w: &Window) -> Vec<usize> {
    w.labels
        .iter()
        .enumerate()
        .filter(|(_, l)| matches!(l.as_str(), "TP" | "FP" | "SP"))
        .map(|(i, _)| i)
        .collect()
}

/// The labels of a window by index, for the report.
pub fn judged(w: &Window) -> BTreeMap<usize, &str> {
    w.labels
        .iter()
        .enumerate()
        .filter(|(_, l)| *l != "TN")
        .map(|(i, l)| (i, l.as_str()))
        .collect()
}
