// SPDX-License-Identifier: GPL-3.0-or-later
//! Change-point detection on a metric's history (one value per commit, in commit order): the
//! one engine behind the trend's change points and the alerts' newest step.
//!
//! A penalised segmentation (PELT: optimal partitioning with pruning, Killick et al. 2012),
//! made scale-free, robust to outliers and to slow drift, and deterministic:
//!
//! 1. **Noise.** σ, the robust sd of the innovations, is the MAD of the first differences
//!    over √2 (a level step touches one difference, so steps do not inflate it), but at least
//!    a quarter of what their winsorised mean absolute value gives. Serial
//!    correlation is allowed for: ρ, the lag-1 autocorrelation, comes from winsorised mean
//!    absolute differences at lags 1 and 2 (`(s₂/s₁)² − 1`, shrunk by its sd on white noise
//!    and capped), and inflates the penalty by the AR(1) long-run variance ratio
//!    λ = (1 + ρ)/(1 − ρ)².
//! 2. **Outliers.** The series, standardised by σ, has each point's distance from the running
//!    median of five clipped to ±4σ: an isolated spike cannot buy a segment of its own, while
//!    steps and straight trends pass unchanged.
//! 3. **Cost.** A segment costs the smaller of its residual sum of squares about its mean and
//!    about its least-squares line plus a slope charge (¾ of the penalty): a slow drift is one
//!    sloped segment, not dozens of levels, and a flat segment pays nothing for it.
//! 4. **Penalty.** 3.5 · λ · ln n per change point (on standardised data), every segment at
//!    least five points long.
//!
//! Chosen on the public TCPD series (`benches/tcpd.rs`, BENCHMARKS.md), where it scores above
//! the published binseg, PELT and BOCPD defaults, and checked on synthetic benchmark
//! histories (1–5 % noise, 5–20 % steps; tests below). Each change point carries Welch's
//! two-sample t test of the segments on either side. Cost: O(1) per candidate start of the last
//! segment, O(n) of them where the series changes (pruned), O(n²) where it does not: beyond
//! 1,000 points the series is segmented by the means of blocks of points, each change then
//! placed at its best point within a block.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use statrs::distribution::{ContinuousCDF, StudentsT};

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The fewest points in a segment.
    pub min_segment: usize,
    /// The penalty per change point, in units of λ · ln n on standardised data.
    pub beta: f64,
    /// What a segment's slope costs, as a share of the penalty.
    pub slope_share: f64,
    /// The largest lag-1 autocorrelation the penalty allows for.
    pub rho_max: f64,
    /// How many of its white-noise sds (≈ 1.6/√n) the autocorrelation estimate is shrunk by.
    pub rho_shrink: f64,
    /// Half the width of the running median that outliers are measured from.
    pub clip_half: usize,
    /// How far (in σ) a point may stand from that median.
    pub clip_k: f64,
    /// The winsorising bound of the mean absolute differences, in medians.
    pub winsor: f64,
    /// σ's floor, as a share of the σ the winsorised mean absolute difference gives.
    pub sigma_floor: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            min_segment: 5,
            beta: 3.5,
            slope_share: 0.75,
            rho_max: 0.7,
            rho_shrink: 2.0,
            clip_half: 2,
            clip_k: 4.0,
            winsor: 5.0,
            sigma_floor: 0.25,
        }
    }
}

/// A level shift between `index − 1` and `index`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangePoint {
    /// The first point of the new level.
    pub index: usize,
    /// The mean of the segment before and after (between the neighbouring change points).
    pub before: f64,
    pub after: f64,
    /// 100 · (after − before) / before.
    pub change_pct: f64,
    /// Welch's two-sample t test of the two segments.
    pub p_value: f64,
}

/// 1 / Φ⁻¹(¾): a normal sample's sd from its median absolute deviation.
pub(crate) const MAD_TO_SD: f64 = 1.482_602_218_505_602;

/// The median (0 for none), sorting `v`.
pub(crate) fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable_by(f64::total_cmp);
    let h = v.len() / 2;
    if v.len() % 2 == 1 {
        v[h]
    } else {
        0.5 * (v[h - 1] + v[h])
    }
}

/// The median absolute deviation of `v`, as a normal sd.
fn mad_sd(v: &[f64]) -> f64 {
    let m = median(&mut v.to_vec());
    let mut dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    MAD_TO_SD * median(&mut dev)
}

/// The mean of |d|, each capped at `winsor` times their median.
fn winsorised_mean_abs(d: &[f64], winsor: f64) -> f64 {
    let mut a: Vec<f64> = d.iter().map(|v| v.abs()).collect();
    let cap = winsor * median(&mut a);
    a.iter().map(|v| v.min(cap)).sum::<f64>() / a.len() as f64
}

/// The noise of `y`: σ (the robust sd of its innovations) and λ (its long-run variance over
/// σ², ≥ 1 where neighbours are correlated).
fn noise(y: &[f64], opts: &Options) -> (f64, f64) {
    let n = y.len();
    let d1: Vec<f64> = y.windows(2).map(|w| w[1] - w[0]).collect();
    let d2: Vec<f64> = y.windows(3).map(|w| w[2] - w[0]).collect();
    let (s1, s2) = (
        winsorised_mean_abs(&d1, opts.winsor),
        winsorised_mean_abs(&d2, opts.winsor),
    );
    // At least a quarter of what the mean absolute difference says: where most neighbours
    // differ by exactly the same amount (quantised or synthetic values) the MAD is 0 or
    // rounding error, and every wiggle would be a step.
    let from_mean = s1 / (2.0 / std::f64::consts::PI).sqrt() / std::f64::consts::SQRT_2;
    let mut sigma = (mad_sd(&d1) / std::f64::consts::SQRT_2).max(opts.sigma_floor * from_mean);
    if sigma == 0.0 {
        sigma = 1e-9 * y.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
    }
    let rho = if s1 > 0.0 {
        (s2 / s1).powi(2) - 1.0 - opts.rho_shrink * 1.6 / (n as f64).sqrt()
    } else {
        0.0
    }
    .clamp(0.0, opts.rho_max);
    (sigma, (1.0 + rho) / (1.0 - rho).powi(2))
}

/// The change points of `y` (the first index of each new segment), in order.
pub fn segment(y: &[f64], opts: &Options) -> Vec<usize> {
    let n = y.len();
    if n <= EXACT_POINTS || y.iter().any(|v| !v.is_finite()) {
        return segment_exact(y, opts);
    }
    let block = n.div_ceil(EXACT_POINTS);
    let means: Vec<f64> = y
        .chunks(block)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    let mut points: Vec<usize> = segment_exact(&means, opts)
        .into_iter()
        .map(|k| k * block)
        .collect();
    // Each change at the point within a block of it that best splits its two neighbours'
    // segments (the least squares about their means).
    let sums = Sums::new(y);
    // A slope charged at infinity: the cost about the segment's mean.
    let flat = |a: usize, b: usize| sums.cost(a, b, f64::INFINITY);
    for i in 0..points.len() {
        let prev = if i == 0 { 0 } else { points[i - 1] };
        let next = points.get(i + 1).copied().unwrap_or(n);
        let (lo, hi) = (
            points[i].saturating_sub(block).max(prev + 1),
            (points[i] + block).min(next - 1),
        );
        if let Some(best) = (lo..=hi).min_by(|&a, &b| {
            (flat(prev, a) + flat(a, next)).total_cmp(&(flat(prev, b) + flat(b, next)))
        }) {
            points[i] = best;
        }
    }
    points
}

/// [`segment`] point by point.
fn segment_exact(y: &[f64], opts: &Options) -> Vec<usize> {
    let n = y.len();
    let m = opts.min_segment.max(1);
    if n < 2 * m || y.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let (sigma, lambda) = noise(y, opts);
    if sigma == 0.0 || !sigma.is_finite() {
        return Vec::new();
    }
    // Standardised, each point at most `clip_k` from its running median.
    let centre = median(&mut y.to_vec());
    let z: Vec<f64> = y.iter().map(|v| (v - centre) / sigma).collect();
    let h = opts.clip_half;
    let mut window = Vec::with_capacity(2 * h + 1);
    let x: Vec<f64> = (0..n)
        .map(|i| {
            window.clear();
            window.extend_from_slice(&z[i.saturating_sub(h)..(i + h + 1).min(n)]);
            let med = median(&mut window);
            med + (z[i] - med).clamp(-opts.clip_k, opts.clip_k)
        })
        .collect();
    let penalty = opts.beta * lambda * (n as f64).ln();
    pelt(&x, penalty, opts.slope_share * penalty, m)
}

/// The longest series segmented point by point. Where nothing changes PELT prunes nothing
/// (O(n²)); a longer series is segmented as the means of `n / EXACT_POINTS` consecutive points,
/// each change then placed at the best point within a block of where it was found.
const EXACT_POINTS: usize = 1000;

/// Prefix sums of t, t², x, x², t·x: any segment's costs in O(1).
struct Sums {
    t: Vec<f64>,
    tt: Vec<f64>,
    x: Vec<f64>,
    xx: Vec<f64>,
    tx: Vec<f64>,
}

impl Sums {
    fn new(x: &[f64]) -> Self {
        let n = x.len();
        let mut s = Sums {
            t: Vec::with_capacity(n + 1),
            tt: Vec::with_capacity(n + 1),
            x: Vec::with_capacity(n + 1),
            xx: Vec::with_capacity(n + 1),
            tx: Vec::with_capacity(n + 1),
        };
        let (mut t, mut tt, mut sx, mut xx, mut tx) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (i, &v) in x.iter().enumerate() {
            s.t.push(t);
            s.tt.push(tt);
            s.x.push(sx);
            s.xx.push(xx);
            s.tx.push(tx);
            let i = i as f64;
            t += i;
            tt += i * i;
            sx += v;
            xx += v * v;
            tx += i * v;
        }
        for (v, total) in [
            (&mut s.t, t),
            (&mut s.tt, tt),
            (&mut s.x, sx),
            (&mut s.xx, xx),
            (&mut s.tx, tx),
        ] {
            v.push(total);
        }
        s
    }

    /// The cost of `x[a..b]`: its residual sum of squares about its mean, or about its
    /// least-squares line plus `slope`, whichever is less.
    fn cost(&self, a: usize, b: usize, slope: f64) -> f64 {
        let len = (b - a) as f64;
        let sx = self.x[b] - self.x[a];
        let flat = ((self.xx[b] - self.xx[a]) - sx * sx / len).max(0.0);
        let st = self.t[b] - self.t[a];
        let ctt = (self.tt[b] - self.tt[a]) - st * st / len;
        let cxt = (self.tx[b] - self.tx[a]) - st * sx / len;
        let line = if ctt > 0.0 {
            (flat - cxt * cxt / ctt).max(0.0)
        } else {
            flat
        };
        flat.min(line + slope)
    }
}

/// The partition of `x` into segments of at least `m` points that minimises their costs plus
/// `penalty` a change point. Candidates that can no longer start the last segment are pruned:
/// the cost is super-additive up to one `slope` charge.
fn pelt(x: &[f64], penalty: f64, slope: f64, m: usize) -> Vec<usize> {
    let n = x.len();
    let sums = Sums::new(x);
    let mut best = vec![f64::INFINITY; n + 1];
    let mut last = vec![0usize; n + 1];
    best[0] = -penalty;
    let mut candidates: Vec<usize> = Vec::new();
    let mut values: Vec<f64> = Vec::new();
    for t in m..=n {
        let newest = t - m;
        if newest == 0 || newest >= m {
            candidates.push(newest);
        }
        values.clear();
        let (mut min, mut arg) = (f64::INFINITY, 0);
        for &s in &candidates {
            let v = best[s] + sums.cost(s, t, slope);
            values.push(v);
            if v < min {
                (min, arg) = (v, s);
            }
        }
        best[t] = min + penalty;
        last[t] = arg;
        let limit = best[t] + slope;
        let mut k = 0;
        candidates.retain(|_| {
            let keep = values[k] <= limit;
            k += 1;
            keep
        });
        // A request that timed out stops here; nobody will read what would have been found.
        if t % 1024 == 0 && crate::ingest::cancel::requested() {
            return Vec::new();
        }
    }
    let mut points = Vec::new();
    let mut t = n;
    while t > 0 {
        let s = last[t];
        if s > 0 {
            points.push(s);
        }
        t = s;
    }
    points.reverse();
    points
}

/// Welch's two-sample t test of `a` against `b`: its two-sided p-value (1 where it cannot
/// tell, 0 where both are constant and differ).
pub fn welch_p(a: &[f64], b: &[f64]) -> f64 {
    let moments = |v: &[f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        (n, mean, var)
    };
    if a.len() < 2 || b.len() < 2 {
        return 1.0;
    }
    let ((na, ma, va), (nb, mb, vb)) = (moments(a), moments(b));
    let (ea, eb) = (va / na, vb / nb);
    let se = (ea + eb).sqrt();
    if se == 0.0 {
        return if ma == mb { 1.0 } else { 0.0 };
    }
    let t = (ma - mb).abs() / se;
    let df = (ea + eb).powi(2) / (ea * ea / (na - 1.0) + eb * eb / (nb - 1.0));
    match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => (2.0 * dist.sf(t)).clamp(0.0, 1.0),
        Err(_) => 1.0,
    }
}

/// The alerts' test of one split: the largest two-sample t statistic over a segment's split
/// points, against the same maximum over shuffled copies (a permutation test: no normality
/// assumed, a fixed seed).
#[derive(Debug, Clone, PartialEq)]
pub struct SplitTest {
    /// The fewest points on each side of a split.
    pub min_segment: usize,
    /// The significance level of a split.
    pub alpha: f64,
    /// Permutations per tested split (199 resolves p = 0.005).
    pub permutations: usize,
    pub seed: u64,
}

impl Default for SplitTest {
    fn default() -> Self {
        SplitTest {
            min_segment: 4,
            alpha: 0.01,
            permutations: 199,
            seed: 0x5eed,
        }
    }
}

/// The split point of `x` with the largest two-sample t statistic, and that statistic.
fn best_split(x: &[f64], min_segment: usize) -> Option<(usize, f64)> {
    let n = x.len();
    if n < 2 * min_segment.max(2) {
        return None;
    }
    let total: f64 = x.iter().sum();
    let total_sq: f64 = x.iter().map(|v| v * v).sum();
    let (mut sum, mut sq) = (0.0, 0.0);
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in x.iter().enumerate().take(n - min_segment) {
        sum += v;
        sq += v * v;
        let left = i + 1;
        if left < min_segment {
            continue;
        }
        let right = n - left;
        let (ml, mr) = (sum / left as f64, (total - sum) / right as f64);
        let ss = (sq - sum * ml) + ((total_sq - sq) - (total - sum) * mr);
        let var = (ss / (n - 2) as f64).max(0.0);
        let diff = (ml - mr).abs();
        let t = if var > 0.0 {
            diff / (var * (1.0 / left as f64 + 1.0 / right as f64)).sqrt()
        } else if diff > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        if best.is_none_or(|(_, bt)| t > bt) {
            best = Some((left, t));
        }
    }
    best
}

/// The best split of `x` and its permutation p-value: how often a shuffled `x` splits at
/// least as well. Stops shuffling as soon as the answer is "more than `alpha`".
pub fn test_split(x: &[f64], test: &SplitTest, rng: &mut StdRng) -> Option<(usize, f64)> {
    let (split, t) = best_split(x, test.min_segment)?;
    if t == 0.0 {
        return None;
    }
    // A statistic far above what the maximum of n null t statistics reaches (about
    // √(2 ln n)) is accepted without shuffling: no permutation would match it.
    let limit = (test.alpha * (test.permutations + 1) as f64).floor() as usize;
    let mut as_extreme = 0;
    let obvious = t > (2.0 * (x.len() as f64).ln()).sqrt() + 8.0;
    let mut scratch = x.to_vec();
    for _ in 0..if obvious { 0 } else { test.permutations } {
        scratch.shuffle(rng);
        if best_split(&scratch, test.min_segment).is_some_and(|(_, pt)| pt >= t) {
            as_extreme += 1;
            if as_extreme >= limit {
                break;
            }
        }
    }
    Some((
        split,
        (1 + as_extreme) as f64 / (test.permutations + 1) as f64,
    ))
}

/// The change points of `x` with the levels on both sides.
pub fn change_points(x: &[f64], opts: &Options) -> Vec<ChangePoint> {
    let splits = segment(x, opts);
    let mut bounds = vec![0];
    bounds.extend(splits.iter().copied());
    bounds.push(x.len());
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    (0..splits.len())
        .map(|k| {
            let (a, b) = (
                &x[bounds[k]..bounds[k + 1]],
                &x[bounds[k + 1]..bounds[k + 2]],
            );
            let (before, after) = (mean(a), mean(b));
            ChangePoint {
                index: bounds[k + 1],
                before,
                after,
                change_pct: if before != 0.0 {
                    100.0 * (after - before) / before
                } else {
                    0.0
                },
                p_value: welch_p(a, b),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A normal sample by Box–Muller.
    fn normal(rng: &mut StdRng) -> f64 {
        let u1: f64 = rng.random::<f64>().max(1e-12);
        let u2: f64 = rng.random();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    fn indices(x: &[f64]) -> Vec<usize> {
        change_points(x, &Options::default())
            .iter()
            .map(|c| c.index)
            .collect()
    }

    #[test]
    fn a_flat_series_has_no_change_point_and_a_step_has_one() {
        let flat = vec![100.0; 50];
        assert!(change_points(&flat, &Options::default()).is_empty());
        let mut step = vec![100.0; 30];
        step.extend(vec![90.0; 30]);
        let cps = change_points(&step, &Options::default());
        assert_eq!(cps.len(), 1);
        assert_eq!(cps[0].index, 30);
        assert!((cps[0].change_pct - -10.0).abs() < 1e-9);
        assert_eq!(cps[0].p_value, 0.0);
        assert!(change_points(&[1.0, 2.0], &Options::default()).is_empty());
        assert!(change_points(&[1.0, f64::NAN, 2.0], &Options::default()).is_empty());
    }

    /// 1,000 points of noise: no change point in at least 95 of 100 series; and the answer
    /// is the same every time (nothing random).
    #[test]
    fn noise_alone_has_no_change_point() {
        let mut rng = StdRng::seed_from_u64(7);
        let mut quiet = 0;
        for i in 0..100 {
            let x: Vec<f64> = (0..1000)
                .map(|_| 1000.0 * (1.0 + 0.02 * normal(&mut rng)))
                .collect();
            let found = indices(&x);
            if i < 3 {
                assert_eq!(found, indices(&x));
            }
            quiet += usize::from(found.is_empty());
        }
        assert!(
            quiet >= 95,
            "{quiet} of 100 noise series without a change point"
        );
    }

    /// A series longer than `EXACT_POINTS` is segmented by block means, each change then put
    /// back at its point: the steps of 5,000 points are found where they are, noise has none.
    #[test]
    fn a_long_series_finds_its_steps_at_their_points() {
        let mut rng = StdRng::seed_from_u64(13);
        let x: Vec<f64> = (0..5000)
            .map(|i| {
                let level = match i {
                    0..1733 => 1000.0,
                    1733..4001 => 940.0,
                    _ => 1010.0,
                };
                level * (1.0 + 0.01 * normal(&mut rng))
            })
            .collect();
        let found = indices(&x);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].abs_diff(1733) <= 2 && found[1].abs_diff(4001) <= 2,
            "{found:?}"
        );
        let noise: Vec<f64> = (0..5000)
            .map(|_| 1000.0 * (1.0 + 0.01 * normal(&mut rng)))
            .collect();
        assert_eq!(indices(&noise), Vec::<usize>::new());
    }

    /// A slow drift is not cut into levels, and a lone outlier makes no change point.
    #[test]
    fn a_drift_and_an_outlier_are_not_steps() {
        let mut rng = StdRng::seed_from_u64(11);
        let drift: Vec<f64> = (0..300)
            .map(|i| 1000.0 * (1.0 + 0.001 * f64::from(i)) * (1.0 + 0.01 * normal(&mut rng)))
            .collect();
        assert!(indices(&drift).len() <= 1, "{:?}", indices(&drift));
        let mut spike: Vec<f64> = (0..200)
            .map(|_| 1000.0 * (1.0 + 0.01 * normal(&mut rng)))
            .collect();
        spike[100] = 5000.0;
        spike[150] = 10.0;
        assert_eq!(indices(&spike), Vec::<usize>::new());
    }

    /// Synthetic histories like seed 003's: 1–5% noise (CoeffVar), steps of 5–20% up or down,
    /// at least 30 commits apart. Detection must find ≥ 95% of the steps (within 3 commits)
    /// with ≤ 5% of the reported change points false.
    #[test]
    fn finds_steps_in_noisy_series() {
        let mut rng = StdRng::seed_from_u64(20261130);
        let (mut steps, mut hits, mut reported, mut false_alarms) = (0, 0, 0, 0);
        for _ in 0..60 {
            let noise = rng.random_range(0.01..0.05);
            let n_steps = rng.random_range(1..=4);
            let mut level = 1000.0;
            let mut truth = Vec::new();
            let mut x = Vec::new();
            for seg in 0..=n_steps {
                let len = rng.random_range(30..60);
                for _ in 0..len {
                    x.push(level * (1.0 + noise * normal(&mut rng)));
                }
                if seg < n_steps {
                    truth.push(x.len());
                    let size = rng.random_range(0.05..0.20);
                    level *= if rng.random::<bool>() {
                        1.0 + size
                    } else {
                        1.0 - size
                    };
                }
            }
            let found = change_points(&x, &Options::default());
            steps += truth.len();
            hits += truth
                .iter()
                .filter(|t| found.iter().any(|c| c.index.abs_diff(**t) <= 3))
                .count();
            reported += found.len();
            false_alarms += found
                .iter()
                .filter(|c| !truth.iter().any(|t| c.index.abs_diff(*t) <= 3))
                .count();
        }
        let recall = hits as f64 / steps as f64;
        let false_rate = false_alarms as f64 / reported.max(1) as f64;
        println!("found {hits} of {steps} steps ({:.1}%); {false_alarms} of {reported} reported are false ({:.1}%)", 100.0 * recall, 100.0 * false_rate);
        assert!(recall >= 0.95, "found {hits} of {steps} steps");
        assert!(
            false_rate <= 0.05,
            "{false_alarms} of {reported} change points are false"
        );
    }
}
