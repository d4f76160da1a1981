// SPDX-License-Identifier: GPL-3.0-or-later
//! A/A calibration (`calibration=NAME` uploads, `GET /api/v1/calibration`): for each series
//! with A/A runs, its noise and the false-positive rates of mmtests' significance and of the
//! alert rule, measured by resampling the A/A runs into pretend kernels and histories.
//!
//! - **Significance.** Each pair of runs (of one calibration, benchmark, machine and
//!   kernel) is compared as two pretend kernels of one run each, as a comparison of one run
//!   per kernel does: every pair when there are at most [`MAX_PAIRS`], else that many drawn
//!   with a fixed seed. mmtests' test (the two mean ± 1.96·sd intervals apart) is applied to
//!   their iterations. Its nominal rate is 5 %.
//! - **Alert rule.** [`HISTORIES`] pretend histories of `min_before + min_after` commits (24
//!   at least, so that the local-peak test can alert too: `detect::shortest_history`) are
//!   drawn (with replacement, fixed seed) from the run means and given to the detector
//!   (`alerts::detect::newest_step`) with the series' rule. Its nominal rate is the rule's
//!   `alpha`.
//!
//! A rate is flagged when the lower end of its 95 % Wilson interval is over the nominal rate:
//! a real excess, not one chance hit.

use std::collections::BTreeMap;

use app::label::Direction;
use app::noise::{Basis, CalibrationSeries};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::domain::noise::{NoiseAcc, RunSpread};
use crate::services::alerts::detect;
use crate::store::{CalibrationRun, CompareSeries};

/// The most pretend kernel pairs tried per series.
pub const MAX_PAIRS: usize = 500;
/// Pretend histories per series for the alert rule.
pub const HISTORIES: usize = 200;
/// mmtests' intervals are 95 %.
pub const SIGNIFICANCE_NOMINAL: f64 = 0.05;

/// The runs of one A/A series, each its samples.
type Key = (String, String, String, String, String, String);

impl super::Services {
    /// The calibration report of the A/A runs (of `benchmark`, on `machine`), noisiest first,
    /// at most `limit` series.
    pub async fn calibration(
        &self,
        benchmark: Option<&str>,
        machine: Option<&str>,
        limit: usize,
    ) -> Result<app::noise::Calibration, super::ServiceError> {
        let (runs, series) = self.store.calibration_series(benchmark, machine).await?;
        let rules = self.store.alert_rules().await?;
        let (series, left_out) = crate::services::heavy::stage(
            tracing::info_span!("calibration", runs = runs.len()),
            self.heavy
                .run(move || report(&runs, &series, &rules, limit)),
        )
        .await?;
        Ok(app::noise::Calibration { series, left_out })
    }
}

/// The calibration report of `runs` and their `series`, noisiest first (by the larger CV):
/// the first `limit` series (their false-positive rates resampled), and how many were left out.
pub fn report(
    runs: &[CalibrationRun],
    series: &[CompareSeries],
    rules: &[detect::Rule],
    limit: usize,
) -> (Vec<CalibrationSeries>, usize) {
    let by_id: std::collections::HashMap<i64, &CalibrationRun> =
        runs.iter().map(|r| (r.run_id, r)).collect();
    // (calibration, benchmark, machine, kernel, metric, param) → runs' samples, direction.
    let mut groups: BTreeMap<Key, (Direction, Vec<&[f64]>)> = BTreeMap::new();
    for s in series {
        let Some(run) = by_id.get(&s.run_id) else {
            continue;
        };
        if s.values.is_empty() {
            continue;
        }
        let key = (
            run.calibration.clone(),
            run.benchmark.clone(),
            run.machine.clone(),
            run.kernel.clone(),
            s.metric.clone(),
            s.param.clone(),
        );
        groups
            .entry(key)
            .or_insert_with(|| (s.direction, Vec::new()))
            .1
            .push(&s.values);
    }
    // The noise of every series (cheap), then the resampling for those answered only.
    let mut noisy: Vec<_> = groups
        .into_iter()
        .map(|(key, (direction, samples))| {
            let spreads: Vec<RunSpread> = samples.iter().map(|v| RunSpread::of(v)).collect();
            let mut acc = NoiseAcc::default();
            acc.group(&spreads);
            (key, direction, samples, spreads, acc.noise())
        })
        .collect();
    let noisiest =
        |n: &app::noise::Noise| n.within_cv.unwrap_or(0.0).max(n.between_cv.unwrap_or(0.0));
    noisy.sort_by(|a, b| noisiest(&b.4).total_cmp(&noisiest(&a.4)));
    let left_out = noisy.len().saturating_sub(limit);
    noisy.truncate(limit);
    let out = noisy
        .into_iter()
        .map(|(key, direction, samples, spreads, noise)| {
            let settings = detect::settings_for(rules, &key.1, &key.4, &key.5);
            one(key, direction, &samples, &spreads, &noise, &settings)
        })
        .collect();
    (out, left_out)
}

fn seed_of(key: &Key) -> u64 {
    // FNV-1a of the key: the same series resamples the same way on every request.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [&key.0, &key.1, &key.2, &key.3, &key.4, &key.5] {
        for b in part.bytes().chain([0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// One series' report: its noise as given, its false-positive rates resampled.
fn one(
    key: Key,
    direction: Direction,
    runs: &[&[f64]],
    spreads: &[RunSpread],
    noise: &app::noise::Noise,
    settings: &detect::Settings,
) -> CalibrationSeries {
    let mut rng = StdRng::seed_from_u64(seed_of(&key));
    let (significant, pairs) = significance_rate(runs, direction, &mut rng);
    let fpr_significance = (pairs > 0).then(|| significant as f64 / pairs as f64);
    let means: Vec<f64> = spreads.iter().map(|r| r.mean).collect();
    let (alerts, histories) = alert_rate(&means, settings, &mut rng);
    let fpr_alert = (histories > 0).then(|| alerts as f64 / histories as f64);
    let mut warnings = Vec::new();
    if pairs > 0 && wilson_low(significant, pairs) > SIGNIFICANCE_NOMINAL {
        let why = match noise.dominant {
            Some(Basis::Between) => {
                ": the runs' iterations agree more closely than separate boots do, so compare \
                 more runs per kernel, not more iterations"
            }
            _ => "",
        };
        warnings.push(format!(
            "mmtests' significance marks {:.0} % of A/A pairs, over its nominal 5 %{why}",
            100.0 * significant as f64 / pairs as f64
        ));
    }
    if histories > 0 && wilson_low(alerts, histories) > settings.alpha {
        warnings.push(format!(
            "the alert rule fires on {:.1} % of A/A histories, over its alpha of {}",
            100.0 * alerts as f64 / histories as f64,
            settings.alpha
        ));
    }
    if runs.len() < 2 {
        warnings.push(
            "one A/A run: upload each boot as its own run (a file or an upload each) to \
             measure the between-boot spread"
                .to_owned(),
        );
    }
    let (calibration, benchmark, machine, kernel, metric, param) = key;
    CalibrationSeries {
        calibration,
        benchmark,
        machine,
        kernel,
        metric,
        param,
        runs: runs.len(),
        within_cv: noise.within_cv,
        between_cv: noise.between_cv,
        n_within: noise.n_within,
        n_between: noise.n_between,
        dominant: noise.dominant,
        fpr_significance,
        pairs,
        fpr_alert,
        alert_alpha: settings.alpha,
        histories,
        warning: (!warnings.is_empty()).then(|| warnings.join("; ")),
        summary: noise.sentence(),
    }
}

/// mmtests' significance of pooled samples `a` against `b`: their mean ± 1.96·sd intervals
/// do not overlap. `None` when a side has fewer than two samples (no interval).
pub fn mmtests_significant(a: &[f64], b: &[f64], direction: Direction) -> Option<bool> {
    let summary = |v: &[f64]| {
        let mut sorted = v.to_vec();
        match direction {
            Direction::Higher => sorted.sort_by(|x, y| y.total_cmp(x)),
            Direction::Lower | Direction::Unknown => sorted.sort_by(f64::total_cmp),
        }
        let s = app::mmtests::summarise(&sorted, direction);
        let mean = match direction {
            Direction::Higher => s.hmean,
            Direction::Lower | Direction::Unknown => s.amean,
        }?;
        let ci = s.ci.filter(|c| c.is_finite())?;
        Some((mean, (mean - ci, mean + ci)))
    };
    let (ma, ia) = summary(a)?;
    let (mb, ib) = summary(b)?;
    Some(app::mmtests::cidiff(mb, Some(ib), ma, Some(ia)).abs() > 1.0)
}

/// How many pairs of runs, each run a pretend kernel (a comparison of one run per kernel,
/// the usual case), mmtests' test marks, of how many it could test: every pair when there are
/// at most [`MAX_PAIRS`], else that many drawn.
fn significance_rate(runs: &[&[f64]], direction: Direction, rng: &mut StdRng) -> (usize, usize) {
    let k = runs.len();
    if k < 2 {
        return (0, 0);
    }
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    if binomial(k, 2) <= MAX_PAIRS as u128 {
        for i in 0..k {
            for j in i + 1..k {
                pairs.push((i, j));
            }
        }
    } else {
        while pairs.len() < MAX_PAIRS {
            let (i, j) = (rng.random_range(0..k), rng.random_range(0..k));
            if i != j {
                pairs.push((i, j));
            }
        }
    }
    let (mut marked, mut tested) = (0, 0);
    for (i, j) in pairs {
        if let Some(sig) = mmtests_significant(runs[i], runs[j], direction) {
            tested += 1;
            marked += usize::from(sig);
        }
    }
    (marked, tested)
}

fn binomial(n: usize, k: usize) -> u128 {
    (0..k).fold(1u128, |acc, i| acc * (n - i) as u128 / (i as u128 + 1))
}

/// How many pretend histories drawn from `means` the rule alerts on, of how many were
/// tried; none with fewer than three runs (nothing to draw from).
fn alert_rate(means: &[f64], settings: &detect::Settings, rng: &mut StdRng) -> (usize, usize) {
    if means.len() < 3 || settings.ignore {
        return (0, 0);
    }
    let len = detect::shortest_history(settings);
    let mut alerts = 0;
    let mut history = vec![0.0; len];
    for _ in 0..HISTORIES {
        for h in history.iter_mut() {
            *h = means[rng.random_range(0..means.len())];
        }
        alerts += usize::from(detect::newest_step(&history, settings, None).is_some());
    }
    (alerts, HISTORIES)
}

/// The lower end of the 95 % Wilson interval of `hits` in `n`.
pub fn wilson_low(hits: usize, n: usize) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let z = 1.959_963_984_540_054_f64;
    let (n, p) = (n as f64, hits as f64 / n as f64);
    let centre = p + z * z / (2.0 * n);
    let margin = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - margin) / (1.0 + z * z / n)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64) -> CalibrationRun {
        CalibrationRun {
            run_id: id,
            calibration: "reboots".into(),
            benchmark: "netperf-tcp".into(),
            machine: "dl145".into(),
            kernel: "2.6.12-rc5".into(),
        }
    }

    fn series(id: i64, values: &[f64]) -> CompareSeries {
        CompareSeries {
            run_id: id,
            kernel: "2.6.12-rc5".into(),
            metric: "Throughput".into(),
            param: "16384".into(),
            unit: None,
            direction: Direction::Higher,
            iterations: (1..=values.len() as i64).collect(),
            integer: false,
            values: values.to_vec(),
        }
    }

    #[test]
    fn tight_iterations_between_scattered_boots_are_flagged() {
        // Six boots, each with five iterations within 0.1 %, the boots 2 % apart: mmtests'
        // test, pooling iterations, calls boots of one kernel different.
        let levels = [100.0, 102.0, 98.0, 101.5, 98.5, 100.5];
        let runs: Vec<CalibrationRun> = (0..6).map(run).collect();
        let series: Vec<CompareSeries> = levels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let v: Vec<f64> = [-0.1, -0.05, 0.0, 0.05, 0.1]
                    .iter()
                    .map(|d| l + d)
                    .collect();
                series(i as i64, &v)
            })
            .collect();
        let (r, _) = report(&runs, &series, &[], usize::MAX);
        assert_eq!(r.len(), 1);
        let s = &r[0];
        assert_eq!(s.runs, 6);
        assert_eq!(s.dominant, Some(Basis::Between));
        assert_eq!(s.pairs, 15);
        let fpr = s.fpr_significance.unwrap();
        assert!(fpr > 0.3, "{fpr}");
        let w = s.warning.as_deref().unwrap();
        assert!(w.contains("over its nominal 5 %"), "{w}");
        assert!(w.contains("more runs per kernel"), "{w}");
        assert_eq!(s.histories, HISTORIES);
    }

    #[test]
    fn noise_alike_within_and_between_is_not_flagged() {
        // Runs whose iterations spread as much as their means: 12 runs of 4 samples from a
        // fixed pseudo-random normal-ish sequence.
        let mut rng = StdRng::seed_from_u64(7);
        let runs: Vec<CalibrationRun> = (0..12).map(run).collect();
        let series: Vec<CompareSeries> = (0..12)
            .map(|i| {
                let v: Vec<f64> = (0..4)
                    .map(|_| {
                        let u: f64 = (0..12).map(|_| rng.random::<f64>()).sum::<f64>() - 6.0;
                        100.0 + u
                    })
                    .collect();
                series(i, &v)
            })
            .collect();
        let (r, _) = report(&runs, &series, &[], usize::MAX);
        let s = &r[0];
        assert_eq!(s.pairs, 66);
        assert!(
            s.fpr_significance.unwrap() < 0.05,
            "{:?}",
            s.fpr_significance
        );
        assert_eq!(s.fpr_alert, Some(0.0));
        assert_eq!(s.warning, None, "{:?}", s.warning);
    }

    #[test]
    fn wilson_is_the_textbook_interval() {
        assert!((wilson_low(10, 100) - 0.0552).abs() < 1e-3);
        assert!(wilson_low(0, 50) < 1e-12);
    }
}
