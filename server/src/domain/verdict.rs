// SPDX-License-Identifier: GPL-3.0-or-later
//! Telling good from bad through the noise: a commit's runs judged against the two levels of a
//! step (the last good side's and the first bad side's), by a sequential probability ratio test
//! (Wald's SPRT), not by a fixed threshold. Pure: the alert confirmation
//! (`services::alerts::confirm`), its corpus benchmark (`benches/alerts.rs`) and bisections
//! call the same functions.
//!
//! Model: one run's mean is normal around its side's level with the series' between-run
//! standard deviation `run_sd`; each level is itself known only to its standard error. With
//! `n` runs of mean `m`, `m` is N(level, run_sd²/n + se²) under either side, and the verdict is
//! the log-likelihood ratio of the two against Wald's bounds ±ln((1 − ε)/ε), ε = [`ERROR`]:
//! above, `Bad`; below, `Good`; between, `Unsure` (more runs). When the levels are poorly known
//! (large `se`) the ratio saturates and more runs cannot make it sure: the caller's cap then
//! ends the test, and says so.

/// The chance of either wrong verdict that Wald's bounds are set for.
pub const ERROR: f64 = 0.01;

/// The fewest and the most runs a commit is asked for at once.
pub const MIN_BATCH: u32 = 2;
pub const MAX_BATCH: u32 = 10;

/// What a commit's runs say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// At the good side's level.
    Good,
    /// At the bad side's level.
    Bad,
    /// Neither yet: more runs.
    Unsure,
}

/// The two levels a commit is judged between.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sides {
    pub good: f64,
    pub bad: f64,
    /// The standard deviation of one run's mean.
    pub run_sd: f64,
    /// The standard errors of the two levels.
    pub good_se: f64,
    pub bad_se: f64,
}

fn bound() -> f64 {
    ((1.0 - ERROR) / ERROR).ln()
}

impl Sides {
    /// The log-likelihood ratio, bad against good, of runs whose means are `runs`.
    pub fn log_ratio(&self, runs: &[f64]) -> f64 {
        if runs.is_empty() {
            return 0.0;
        }
        let n = runs.len() as f64;
        let m = runs.iter().sum::<f64>() / n;
        let run_var = (self.run_sd * self.run_sd / n).max(f64::MIN_POSITIVE);
        let (vg, vb) = (
            run_var + self.good_se * self.good_se,
            run_var + self.bad_se * self.bad_se,
        );
        let log_density = |x: f64, mu: f64, v: f64| -0.5 * (x - mu).powi(2) / v - 0.5 * v.ln();
        log_density(m, self.bad, vb) - log_density(m, self.good, vg)
    }

    /// The verdict of runs whose means are `runs`.
    pub fn verdict(&self, runs: &[f64]) -> Verdict {
        if runs.is_empty() || !self.run_sd.is_finite() || self.good == self.bad {
            return Verdict::Unsure;
        }
        let llr = self.log_ratio(runs);
        if llr >= bound() {
            Verdict::Bad
        } else if llr <= -bound() {
            Verdict::Good
        } else {
            Verdict::Unsure
        }
    }
}

/// How much of a found step a rerun must show to confirm it: steps are found when the noise
/// happens to enlarge them (the newest points of a series that just stepped are the ones that
/// made it pass), so reruns are tested for this fraction of the size found, not all of it.
pub const SHRINK: f64 = 0.7;

/// Whether runs `test` sit at the level of runs `reference` (`Good`), `delta` away from it
/// (`Bad`), or cannot tell yet (`Unsure`), one run having spread `run_sd`: both sets are
/// fresh runs, so a level that moved since the step was found (another boot, another week)
/// moves both and cancels out.
pub fn compare(reference: &[f64], test: &[f64], delta: f64, run_sd: f64) -> Verdict {
    match pair_sides(reference, delta, run_sd) {
        Some(sides) if !test.is_empty() => sides.verdict(test),
        _ => Verdict::Unsure,
    }
}

/// The log-likelihood ratio behind [`compare`]: above 0 the runs `test` lean to `delta` away
/// from `reference`, below 0 to its level. What a test that must end now decides on.
pub fn compare_ratio(reference: &[f64], test: &[f64], delta: f64, run_sd: f64) -> f64 {
    pair_sides(reference, delta, run_sd).map_or(0.0, |s| s.log_ratio(test))
}

fn pair_sides(reference: &[f64], delta: f64, run_sd: f64) -> Option<Sides> {
    if reference.is_empty() {
        return None;
    }
    let m = reference.iter().sum::<f64>() / reference.len() as f64;
    let se = run_sd / (reference.len() as f64).sqrt();
    Some(Sides {
        good: m,
        bad: m + delta,
        run_sd,
        good_se: se,
        bad_se: se,
    })
}

/// How many runs to ask of each of two commits at once for [`compare`] to tell a difference
/// of `delta`: about the SPRT's mean sample number for the difference of two means,
/// 4·ln((1 − ε)/ε) / d² for `d` run standard deviations, within [`MIN_BATCH`]..=[`MAX_BATCH`].
pub fn pair_batch(delta: f64, run_sd: f64) -> u32 {
    let d = delta.abs() / run_sd;
    if !d.is_finite() || d <= 0.0 {
        return MAX_BATCH;
    }
    ((4.0 * bound() / (d * d)).ceil() as u32).clamp(MIN_BATCH, MAX_BATCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_at_either_level_are_called_and_between_is_unsure() {
        // A 5 % step with a 1 % run spread: two runs decide.
        let s = Sides {
            good: 1000.0,
            bad: 950.0,
            run_sd: 10.0,
            good_se: 0.0,
            bad_se: 0.0,
        };
        assert_eq!(s.verdict(&[1001.0, 998.0]), Verdict::Good);
        assert_eq!(s.verdict(&[951.0, 948.0]), Verdict::Bad);
        assert_eq!(s.verdict(&[975.0, 975.0]), Verdict::Unsure);
        assert_eq!(s.verdict(&[]), Verdict::Unsure);
        // A step as large as the spread needs about ten runs.
        let noisy = Sides { run_sd: 50.0, ..s };
        assert_eq!(noisy.verdict(&[960.0, 1010.0]), Verdict::Unsure);
        // Levels known to no better than the step: no number of runs makes it sure.
        let vague = Sides {
            good_se: 40.0,
            bad_se: 40.0,
            ..s
        };
        assert_eq!(vague.verdict(&[950.0; 1000]), Verdict::Unsure);
    }

    #[test]
    fn fresh_runs_are_compared_with_fresh_runs() {
        // A step of 50 with a spread of 10: the good commit's reruns are the reference.
        let good = [1001.0, 995.0, 1003.0];
        assert_eq!(
            compare(&good, &[951.0, 949.0, 955.0], -50.0, 10.0),
            Verdict::Bad
        );
        assert_eq!(
            compare(&good, &[1000.0, 997.0, 1004.0], -50.0, 10.0),
            Verdict::Good
        );
        assert_eq!(compare(&good, &[975.0], -50.0, 10.0), Verdict::Unsure);
        // The whole machine moved by 30 since: the step is still the step.
        let moved: Vec<f64> = good.iter().map(|v| v + 30.0).collect();
        assert_eq!(
            compare(&moved, &[981.0, 979.0, 985.0], -50.0, 10.0),
            Verdict::Bad
        );
        assert_eq!(pair_batch(-50.0, 10.0), 2);
        assert_eq!(pair_batch(10.0, 10.0), 10);
    }

    #[test]
    fn the_error_rates_hold_on_simulated_runs() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut normal = || {
            let u1: f64 = rng.random::<f64>().max(1e-12);
            let u2: f64 = rng.random();
            (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
        };
        let s = Sides {
            good: 100.0,
            bad: 97.0,
            run_sd: 2.0,
            good_se: 0.0,
            bad_se: 0.0,
        };
        let (mut wrong, mut decided) = (0u32, 0u32);
        for trial in 0..2000 {
            let level = if trial % 2 == 0 { 100.0 } else { 97.0 };
            let mut runs = Vec::new();
            let v = loop {
                runs.push(level + 2.0 * normal());
                match s.verdict(&runs) {
                    Verdict::Unsure if runs.len() < 60 => continue,
                    v => break v,
                }
            };
            if v != Verdict::Unsure {
                decided += 1;
                wrong += u32::from((v == Verdict::Bad) != (level < 100.0));
            }
        }
        assert!(decided >= 1990, "{decided}");
        // Wald's bound: at most about ε wrong.
        assert!(f64::from(wrong) / f64::from(decided) < 0.015, "{wrong}");
    }
}
