// SPDX-License-Identifier: GPL-3.0-or-later
//! The noise model of a series and the power of a comparison: pure functions under the
//! trend, the comparisons, the calibration and the alerts.
//!
//! **Noise.** A series' runs are grouped by what should make them equal (a kernel in a
//! comparison, a commit in a trend, everything in an A/A calibration). The *within-run* CV is
//! the pooled CV of each run's iterations: `√(Σ (nᵢ − 1)·cvᵢ² / Σ (nᵢ − 1))`, a run's sd taken
//! from its samples where they are at hand (comparisons, calibration) and from its range
//! where only a summary is (trend blocks keep count, sum, minimum and maximum: the sd is
//! range / d₂(n), Shewhart's estimator, exact in expectation for normal noise). The
//! *between-run* CV is the pooled CV of run means within a group, `√(Σ (mⱼ − M)²/M² / Σ (k − 1))`,
//! over groups of two runs or more. It includes the within-run noise of a mean (cv_w/√k);
//! the boot-to-boot part dominates when the run means scatter more than twice the variance
//! their own iterations explain (`between² > 2·within²/k`).
//!
//! **Power.** A change is told by the two-sided two-sample (pooled) t test at α = 0.05, with
//! power 0.8, on n units per kernel: runs (their means) when the between-run CV is known,
//! else samples. For a change δ on a CV c, the test's statistic is non-central t with
//! 2n − 2 degrees of freedom and non-centrality (δ/c)·√(n/2); its power is integrated over
//! the χ² of the pooled variance (`power`). `min_effect(n)` (in CVs) is where that power is
//! 0.8; the smallest detectable change is `min_effect(n)·c` and the runs needed are the
//! fewest n with `min_effect(n)·c ≤ δ`. Assumptions: normal noise of the same CV on both
//! sides, independent runs. mmtests' own `*` marker is stricter (its two 1.96·sd intervals
//! must not overlap) and barely gains from more runs; the advice says what a t test needs.

use std::sync::OnceLock;

use app::noise::{Advice, Basis, Noise, MAX_RUNS};

use crate::domain::changepoint::{median, MAD_TO_SD};
use statrs::distribution::{ChiSquared, Continuous, ContinuousCDF, Normal, StudentsT};

/// The test's two-sided level and the power asked for.
pub const ALPHA: f64 = 0.05;
pub const POWER: f64 = 0.8;

/// One run of a series: its sample count, mean and (with two or more samples) sd.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSpread {
    pub n: usize,
    pub mean: f64,
    pub sd: Option<f64>,
}

impl RunSpread {
    /// A run from its samples.
    pub fn of(values: &[f64]) -> RunSpread {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n.max(1) as f64;
        let sd = (n >= 2).then(|| {
            let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
            (ss / (n - 1) as f64).sqrt()
        });
        RunSpread { n, mean, sd }
    }

    /// A run from its summary (count, sum, minimum, maximum): sd = range / d₂(n).
    pub fn of_summary(n: usize, sum: f64, min: f64, max: f64) -> RunSpread {
        let mean = sum / n.max(1) as f64;
        let sd = (n >= 2).then(|| (max - min) / d2(n));
        RunSpread { n, mean, sd }
    }
}

/// The standard deviation of one point of a sequence of means (one run per commit) from the
/// scatter of successive points: the MAD of the first differences over √2, so that a step
/// (one large difference) barely moves it. `None` under five points.
pub fn sequence_sd(means: &[f64]) -> Option<f64> {
    if means.len() < 5 {
        return None;
    }
    let mut d: Vec<f64> = means.windows(2).map(|w| (w[1] - w[0]).abs()).collect();
    let sd = median(&mut d) * MAD_TO_SD / std::f64::consts::SQRT_2;
    sd.is_finite().then_some(sd)
}

/// The expected range of `n` standard normal samples (Shewhart's d₂): ∫ 1 − Φⁿ − (1 − Φ)ⁿ.
pub fn d2(n: usize) -> f64 {
    const MEMO: usize = 1024;
    static TABLE: OnceLock<Vec<OnceLock<f64>>> = OnceLock::new();
    let compute = |n: usize| {
        let normal = Normal::standard();
        // Simpson's rule on [-9, 9]; the integrand is smooth and vanishes beyond.
        let steps = 2000;
        let h = 18.0 / f64::from(steps);
        let f = |x: f64| {
            let p = normal.cdf(x);
            1.0 - p.powi(n as i32) - (1.0 - p).powi(n as i32)
        };
        let mut s = f(-9.0) + f(9.0);
        for i in 1..steps {
            let x = -9.0 + f64::from(i) * h;
            s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
        }
        s * h / 3.0
    };
    if n < 2 {
        return f64::NAN;
    }
    if n >= MEMO {
        return compute(n);
    }
    let table = TABLE.get_or_init(|| (0..MEMO).map(|_| OnceLock::new()).collect());
    *table[n].get_or_init(|| compute(n))
}

/// Accumulates runs, group by group, into a [`Noise`].
#[derive(Debug, Clone, Default)]
pub struct NoiseAcc {
    /// Σ (nᵢ − 1)·cvᵢ², Σ (nᵢ − 1), Σ nᵢ of runs with an sd.
    within: (f64, f64, usize),
    /// Σ ((mⱼ − M)/M)², Σ (k − 1), Σ k of groups of two runs or more.
    between: (f64, f64, usize),
    /// Runs and samples seen.
    runs: usize,
    samples: usize,
}

impl NoiseAcc {
    /// Adds one group of runs that should be equal (one kernel, one commit).
    pub fn group(&mut self, runs: &[RunSpread]) {
        for r in runs {
            self.runs += 1;
            self.samples += r.n;
            if let Some(sd) = r.sd {
                if r.mean != 0.0 && sd.is_finite() {
                    let cv = sd / r.mean.abs();
                    self.within.0 += (r.n - 1) as f64 * cv * cv;
                    self.within.1 += (r.n - 1) as f64;
                    self.within.2 += r.n;
                }
            }
        }
        if runs.len() >= 2 {
            let m = runs.iter().map(|r| r.mean).sum::<f64>() / runs.len() as f64;
            if m != 0.0 && m.is_finite() {
                self.between.0 += runs.iter().map(|r| ((r.mean - m) / m).powi(2)).sum::<f64>();
                self.between.1 += (runs.len() - 1) as f64;
                self.between.2 += runs.len();
            }
        }
    }

    /// Whether a between-run spread was seen.
    pub fn has_between(&self) -> bool {
        self.between.1 > 0.0
    }

    /// Sets the between-run spread from the scatter of successive run means, for a trend
    /// whose commits each ran once: the MAD of the first differences over √2 (a step touches
    /// one difference), relative to the median mean.
    pub fn between_from_sequence(&mut self, means: &[f64]) {
        let Some(sd) = sequence_sd(means) else {
            return;
        };
        let mut m = means.to_vec();
        let level = median(&mut m);
        if level == 0.0 || !level.is_finite() {
            return;
        }
        let cv = sd / level.abs();
        // As a pooled sum of one degree of freedom per run beyond the first.
        let df = (means.len() - 1) as f64;
        self.between = (cv * cv * df, df, means.len());
    }

    pub fn noise(&self) -> Noise {
        let within_cv = (self.within.1 > 0.0).then(|| (self.within.0 / self.within.1).sqrt());
        let between_cv = (self.between.1 > 0.0).then(|| (self.between.0 / self.between.1).sqrt());
        let samples_per_run = (self.runs > 0).then(|| self.samples as f64 / self.runs as f64);
        let dominant = match (within_cv, between_cv) {
            (Some(w), Some(b)) => {
                let k = samples_per_run.unwrap_or(1.0).max(1.0);
                Some(if b * b > 2.0 * w * w / k {
                    Basis::Between
                } else {
                    Basis::Within
                })
            }
            (Some(_), None) => Some(Basis::Within),
            (None, Some(_)) => Some(Basis::Between),
            (None, None) => None,
        };
        Noise {
            within_cv,
            between_cv,
            n_within: (self.within.1 > 0.0).then_some(self.within.2),
            n_between: (self.between.1 > 0.0).then_some(self.between.2),
            dominant,
            samples_per_run,
        }
    }
}

/// The power of the two-sided two-sample t test (α = [`ALPHA`]) with `n` units per side
/// against a change of `effect` standard deviations.
pub fn power(n: usize, effect: f64) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let df = (2 * n - 2) as f64;
    let Ok(t) = StudentsT::new(0.0, 1.0, df) else {
        return 0.0;
    };
    let crit = t.inverse_cdf(1.0 - ALPHA / 2.0);
    let ncp = effect.abs() * (n as f64 / 2.0).sqrt();
    let normal = Normal::standard();
    let Ok(chi) = ChiSquared::new(df) else {
        return 0.0;
    };
    // E over V ~ χ²(df) of P(|Z + ncp| > crit·√(V/df)), by Simpson's rule over V.
    let spread = 12.0 * (2.0 * df).sqrt();
    let (lo, hi) = ((df - spread).max(0.0), df + spread);
    let steps = 400;
    let h = (hi - lo) / f64::from(steps);
    let f = |v: f64| {
        let c = crit * (v / df).sqrt();
        let p = normal.sf(c - ncp) + normal.cdf(-c - ncp);
        p * chi.pdf(v)
    };
    let mut s = f(lo) + f(hi);
    for i in 1..steps {
        s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(lo + f64::from(i) * h);
    }
    (s * h / 3.0).clamp(0.0, 1.0)
}

/// The smallest change (in standard deviations) the t test detects with power [`POWER`] on
/// `n` units per side; `None` below two.
pub fn min_effect(n: usize) -> Option<f64> {
    const MEMO: usize = 256;
    static TABLE: OnceLock<Vec<OnceLock<f64>>> = OnceLock::new();
    if n < 2 {
        return None;
    }
    let solve = |n: usize| {
        // The normal approximation brackets it; bisection finishes.
        let z = (n as f64 / 2.0).sqrt();
        let (mut lo, mut hi) = (0.0, 8.0 * 2.8 / z + 10.0);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if power(n, mid) >= POWER {
                hi = mid;
            } else {
                lo = mid;
            }
            if hi - lo < 1e-7 * hi {
                break;
            }
        }
        hi
    };
    if n >= MEMO {
        // The t quantiles at 2n − 2 ≥ 510 degrees of freedom are the normal's to 0.2 %.
        let z = 1.959_963_984_540_054 + 0.841_621_233_572_914_3;
        return Some(z * (2.0 / n as f64).sqrt());
    }
    let table = TABLE.get_or_init(|| (0..MEMO).map(|_| OnceLock::new()).collect());
    Some(*table[n].get_or_init(|| solve(n)))
}

/// The fewest units per side that detect a change of `effect` standard deviations; `None`
/// beyond `max`.
pub fn units_needed(effect: f64, max: usize) -> Option<usize> {
    if effect.is_nan() || effect <= 0.0 {
        return None;
    }
    if min_effect(max)? > effect {
        return None;
    }
    // min_effect falls as n grows.
    let (mut lo, mut hi) = (2usize, max);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if min_effect(mid).is_some_and(|e| e <= effect) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// The advice for runs of a series with `noise`, where the compared sides have `runs` runs
/// and `samples` samples each (the fewest), to detect a relative change `detect`. `None`
/// when no spread is known.
pub fn advise(noise: &Noise, runs: usize, samples: usize, detect: f64) -> Option<Advice> {
    let per_run = noise.samples_per_run.unwrap_or(1.0).max(1.0);
    let (basis, cv, units) = match (noise.between_cv, noise.within_cv) {
        (Some(b), _) if b > 0.0 => (Basis::Between, b, runs),
        (_, Some(w)) if w > 0.0 => (Basis::Within, w, samples),
        (Some(b), _) => (Basis::Between, b, runs),
        (_, Some(w)) => (Basis::Within, w, samples),
        (None, None) => return None,
    };
    if !cv.is_finite() {
        return None;
    }
    let min_detectable = min_effect(units).map(|e| e * cv);
    let runs_needed = if cv == 0.0 {
        Some(2)
    } else {
        match basis {
            Basis::Between => units_needed(detect / cv, MAX_RUNS),
            Basis::Within => units_needed(detect / cv, MAX_RUNS * per_run.ceil() as usize)
                .map(|s| ((s as f64 / per_run).ceil() as usize).max(2))
                .filter(|&r| r <= MAX_RUNS),
        }
    };
    Some(Advice {
        min_detectable,
        runs_needed,
        detect,
        basis,
        cv,
        runs,
        samples,
    })
}

/// How often the two-sided pooled t test (α = [`ALPHA`]) finds a relative change `change`
/// between two kernels of `n` normal samples at CV `cv` each, in `trials` simulated
/// comparisons (a fixed `seed`): the observed detection rate the predicted [`power`] must
/// match (`benches/power.rs`, and the tests).
pub fn simulate_detection(n: usize, cv: f64, change: f64, trials: usize, seed: u64) -> f64 {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    // Box–Muller: two uniforms, one standard normal (the other is dropped, for simplicity).
    let mut normal = move || {
        let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        let v: f64 = rng.random();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    };
    let df = (2 * n - 2) as f64;
    let crit =
        StudentsT::new(0.0, 1.0, df).map_or(f64::INFINITY, |t| t.inverse_cdf(1.0 - ALPHA / 2.0));
    let sd = 100.0 * cv;
    let mut found = 0;
    let mut a = vec![0.0; n];
    let mut b = vec![0.0; n];
    for _ in 0..trials {
        for x in a.iter_mut() {
            *x = 100.0 + sd * normal();
        }
        for x in b.iter_mut() {
            *x = 100.0 * (1.0 + change) + sd * normal();
        }
        let (ra, rb) = (RunSpread::of(&a), RunSpread::of(&b));
        let (Some(sa), Some(sb)) = (ra.sd, rb.sd) else {
            continue;
        };
        let pooled = ((sa * sa + sb * sb) / 2.0).sqrt();
        let t = (rb.mean - ra.mean) / (pooled * (2.0 / n as f64).sqrt());
        found += usize::from(t.abs() > crit);
    }
    found as f64 / trials as f64
}

/// Advises `rows` again, about a change of `detect`.
pub fn readvise(rows: &mut [app::compare::Row], detect: f64) {
    for row in rows {
        if let (Some(noise), Some(a)) = (&row.noise, &row.advice) {
            row.advice = advise(noise, a.runs, a.samples, detect);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d2_is_shewharts() {
        // The control-chart tables.
        for (n, want) in [(2, 1.128), (3, 1.693), (5, 2.326), (10, 3.078), (25, 3.931)] {
            assert!((d2(n) - want).abs() < 5e-4, "d2({n}) = {}", d2(n));
        }
    }

    #[test]
    fn power_matches_the_textbook() {
        // G*Power / R's power.t.test: n = 17 per group detects d = 1 with power 0.807;
        // n = 64 detects d = 0.5 with 0.801.
        assert!((power(17, 1.0) - 0.807).abs() < 0.005, "{}", power(17, 1.0));
        assert!((power(64, 0.5) - 0.801).abs() < 0.005, "{}", power(64, 0.5));
        // Under no change it is the level.
        assert!((power(5, 0.0) - ALPHA).abs() < 0.002);
        // power.t.test(power = .8, n = 3) gives d = 3.07.
        assert!(
            (min_effect(3).unwrap() - 3.07).abs() < 0.02,
            "{:?}",
            min_effect(3)
        );
        assert_eq!(units_needed(1.0, 1000), Some(17));
        assert_eq!(units_needed(0.5, 1000), Some(64));
        assert_eq!(units_needed(0.001, 1000), None);
        // Past the memo, the normal approximation continues smoothly.
        let (a, b) = (min_effect(255).unwrap(), min_effect(256).unwrap());
        assert!(a > b && (a - b) / a < 0.01, "{a} {b}");
    }

    /// The full grid is `benches/power.rs`; here a corner of it.
    #[test]
    fn predicted_power_is_the_observed_detection_rate() {
        for (n, cv) in [(3, 0.05), (10, 0.005)] {
            let change = min_effect(n).unwrap() * cv;
            let observed = simulate_detection(n, cv, change, 4000, 1);
            assert!((observed - POWER).abs() < 0.03, "n {n} cv {cv}: {observed}");
            let half = simulate_detection(n, cv, change / 2.0, 4000, 2);
            let predicted = power(n, change / 2.0 / cv);
            assert!(
                (half - predicted).abs() < 0.03,
                "n {n}: {half} vs {predicted}"
            );
        }
    }

    #[test]
    fn seed_003s_reboots_give_their_between_boot_cv() {
        // Three netperf runs of one kernel with reboots between (seed 003).
        let runs: Vec<RunSpread> = [410302.39, 409510.33, 404354.11]
            .iter()
            .map(|v| RunSpread::of(&[*v]))
            .collect();
        let mut acc = NoiseAcc::default();
        acc.group(&runs);
        let noise = acc.noise();
        let b = noise.between_cv.unwrap();
        assert!((b - 0.0079).abs() < 0.0002, "{b}");
        assert_eq!(noise.within_cv, None);
        assert_eq!(noise.dominant, Some(Basis::Between));
        assert_eq!(noise.n_between, Some(3));
        let a = advise(&noise, 3, 3, 0.02).unwrap();
        assert_eq!(a.basis, Basis::Between);
        // 2 % is 2.5 CVs: power.t.test says 4 per group.
        assert_eq!(a.runs_needed, Some(4));
        assert!(a.needs_more_runs());
        let m = a.min_detectable.unwrap();
        assert!((m - 3.07 * b).abs() < 0.001, "{m}");
    }

    #[test]
    fn within_run_spread_pools_and_dominance_is_decided() {
        // Runs of 10 samples at 1 % CV whose means agree: within dominates.
        let run = |mean: f64| {
            let v: Vec<f64> = (0..10)
                .map(|i| {
                    mean * (1.0 + 0.01 * [-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, -0.2, 0.2, 0.0][i])
                })
                .collect();
            RunSpread::of(&v)
        };
        let mut acc = NoiseAcc::default();
        acc.group(&[run(100.0), run(100.05)]);
        let n = acc.noise();
        let w = n.within_cv.unwrap();
        assert!((w - 0.0093).abs() < 0.0005, "{w}");
        assert_eq!(n.dominant, Some(Basis::Within));
        assert_eq!(n.n_within, Some(20));
        // Means 5 % apart: between dominates.
        let mut acc = NoiseAcc::default();
        acc.group(&[run(100.0), run(105.0), run(95.0)]);
        assert_eq!(acc.noise().dominant, Some(Basis::Between));
        // The range estimator agrees with the sd in expectation (here, roughly).
        let s = RunSpread::of_summary(10, 1000.0, 98.5, 101.5);
        assert!((s.sd.unwrap() - 3.0 / 3.078).abs() < 1e-3);
    }

    #[test]
    fn within_basis_counts_runs_of_several_samples() {
        let noise = Noise {
            within_cv: Some(0.02),
            n_within: Some(10),
            samples_per_run: Some(5.0),
            dominant: Some(Basis::Within),
            ..Noise::default()
        };
        // 2 % at 2 % CV is d = 1: 17 samples, 4 runs of 5.
        let a = advise(&noise, 1, 5, 0.02).unwrap();
        assert_eq!(a.basis, Basis::Within);
        assert_eq!(a.runs_needed, Some(4));
        assert!(a.needs_more_runs());
    }

    #[test]
    fn a_sequence_estimate_ignores_a_step() {
        let mut means: Vec<f64> = (0..40)
            .map(|i| 100.0 + if i % 2 == 0 { 0.5 } else { -0.5 })
            .collect();
        for m in &mut means[20..] {
            *m += 10.0;
        }
        let mut acc = NoiseAcc::default();
        acc.between_from_sequence(&means);
        let b = acc.noise().between_cv.unwrap();
        // |d| = 1 everywhere but the step: σ = 1/(0.674·√2) ≈ 1.05 on a level of ~105.
        assert!((b - 1.048 / 105.0).abs() < 0.001, "{b}");
    }
}
