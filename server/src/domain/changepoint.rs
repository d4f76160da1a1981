// SPDX-License-Identifier: GPL-3.0-or-later
//! Change-point detection on a metric's history (one value per commit, in commit order): the
//! one engine behind the trend's change points and the alerts' steps.
//!
//! Two stages, both penalised least squares, made scale-free, robust to outliers, and
//! deterministic (`docs/statistics.md` states the model and the scores):
//!
//! 1. **Segmentation under serially correlated noise.** The series, standardised by the
//!    robust sd of its innovations and with each point clipped to ±4 of them from its running
//!    median of five (a lone spike buys no segment), is modelled as segments that are flat, or
//!    sloped at a charge of ¾ of the penalty, plus AR(1) noise. For each AR coefficient ρ of a
//!    small grid the prewhitened series `x_t − ρ·x_{t−1}` is segmented by PELT (optimal
//!    partitioning with pruning, Killick et al. 2012; a segment's first point is its own, as a
//!    step's innovation) with the penalty β · σ_e² · ln n per change point (σ_e: the robust sd
//!    of that ρ's innovations); the ρ whose segmentation has the smallest BIC wins. A slow
//!    drift or a smooth curve is predictable noise at a high ρ, not a run of levels; white
//!    noise with steps keeps ρ = 0.
//! 2. **A step against a trend.** Each change point must beat the best single segment over
//!    its two neighbours — flat, a line or a **quadratic** — by `prune · ln n` long-run
//!    variances of the residuals (their variance times the AR(1) long-run factor
//!    (1 + ρ)/(1 − ρ)); the weakest that does not is merged away, until all do. A bend of a
//!    smooth curve is a quadratic, not a step.
//!
//! Each change point then carries what a reader needs to trust it: the levels either side and
//! a 95 % interval of the change, a 95 % interval of its position (the profile likelihood of
//! the split between its neighbours), and its evidence: Welch's t test of the two segments,
//! each side's own variance inflated by the residuals' AR(1) long-run factor, its p-value
//! after Bonferroni over every point of the series. A series whose noise changes (quiet, then
//! loud) judges a step by the noise around it.
//!
//! The defaults were chosen by leave-one-out cross-validation on the 20 public TCPD series
//! (`benches/tcpd.rs` prints the folds) under two constraints that hold on data never seen:
//! no more than two change points on 108 synthetic series without one (smooth growth
//! curves, drifts, random walks, AR(1) noise: `tests` below), and the synthetic step
//! histories found. Beyond `EXACT_POINTS` the series is segmented by the means of blocks of
//! points, each change then placed at its best point within a block.

use statrs::distribution::{ContinuousCDF, StudentsT};

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The fewest points in a segment.
    pub min_segment: usize,
    /// The penalty per change point, in innovation variances times ln n.
    pub beta: f64,
    /// What a segment's slope costs, as a share of the penalty.
    pub slope_share: f64,
    /// What a change point must beat one smooth segment by, in long-run variances times ln n.
    pub prune: f64,
    /// The largest lag-1 autocorrelation of the residuals the long-run variance allows for.
    pub rho_max: f64,
    /// Half the width of the running median that outliers are measured from.
    pub clip_half: usize,
    /// How far (in innovation sds) a point may stand from that median.
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
            prune: 0.5,
            rho_max: 0.9,
            clip_half: 2,
            clip_k: 4.0,
            winsor: 5.0,
            sigma_floor: 0.25,
        }
    }
}

/// The AR(1) coefficients the segmentation tries for its noise.
const RHOS: [f64; 6] = [0.0, 0.3, 0.5, 0.7, 0.85, 0.95];

/// A level shift between `index − 1` and `index`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangePoint {
    /// The first point of the new level.
    pub index: usize,
    /// The 95 % interval of `index` (inclusive): where the profile likelihood of the split
    /// between the neighbouring change points puts 95 % of its weight.
    pub index_ci: (usize, usize),
    /// The mean of the segment before and after (between the neighbouring change points).
    pub before: f64,
    pub after: f64,
    /// 100 · (after − before) / before.
    pub change_pct: f64,
    /// The 95 % interval of `change_pct` (Welch's, with the long-run variances).
    pub change_pct_ci: (f64, f64),
    /// The evidence: the square of Welch's t of the two segments, each side's variance times
    /// the long-run factor of the residuals' autocorrelation. (That it is a step and not a
    /// trend was the pruning's question: it beat a line and a quadratic.)
    pub statistic: f64,
    /// The chance that noise alone makes a step this strong anywhere in the series: the t
    /// test's two-sided p-value (Welch–Satterthwaite degrees of freedom) times the series'
    /// length (Bonferroni), at most 1.
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
    a.iter().map(|v| v.min(cap)).sum::<f64>() / a.len().max(1) as f64
}

/// The robust sd of `y`'s innovations: the MAD of its first differences over √2 (a level step
/// touches one difference), but at least `sigma_floor` of what their winsorised mean absolute
/// value gives (where most neighbours differ by exactly the same amount the MAD is 0 or
/// rounding error, and every wiggle would be a step).
fn innovation_sd(y: &[f64], opts: &Options) -> f64 {
    let d1: Vec<f64> = y.windows(2).map(|w| w[1] - w[0]).collect();
    if d1.is_empty() {
        return 0.0;
    }
    let s1 = winsorised_mean_abs(&d1, opts.winsor);
    let from_mean = s1 / (2.0 / std::f64::consts::PI).sqrt() / std::f64::consts::SQRT_2;
    (mad_sd(&d1) / std::f64::consts::SQRT_2).max(opts.sigma_floor * from_mean)
}

/// `y` standardised by its innovation sd, each point at most `clip_k` from its running
/// median; and that sd (`None` for a constant or non-finite series).
fn standardised(y: &[f64], opts: &Options) -> Option<(Vec<f64>, f64)> {
    let n = y.len();
    let mut sigma = innovation_sd(y, opts);
    if sigma == 0.0 {
        sigma = 1e-9 * y.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
    }
    if sigma == 0.0 || !sigma.is_finite() {
        return None;
    }
    let centre = median(&mut y.to_vec());
    let z: Vec<f64> = y.iter().map(|v| (v - centre) / sigma).collect();
    let h = opts.clip_half;
    let mut window = Vec::with_capacity(2 * h + 1);
    let x = (0..n)
        .map(|i| {
            window.clear();
            window.extend_from_slice(&z[i.saturating_sub(h)..(i + h + 1).min(n)]);
            let med = median(&mut window);
            med + (z[i] - med).clamp(-opts.clip_k, opts.clip_k)
        })
        .collect();
    Some((x, sigma))
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
    let flat = |a: usize, b: usize| sums.rss(a, b).0;
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

/// [`segment`] point by point: the AR(1) segmentation, then the steps that beat a trend.
fn segment_exact(y: &[f64], opts: &Options) -> Vec<usize> {
    let n = y.len();
    let m = opts.min_segment.max(2);
    if n < 2 * m {
        return Vec::new();
    }
    let Some((x, _)) = standardised(y, opts) else {
        return Vec::new();
    };
    let ln_n = (n as f64).ln();
    let mut best: Option<(f64, Vec<usize>)> = None;
    let mut z = vec![0.0; n];
    for rho in RHOS {
        z[0] = x[0];
        for t in 1..n {
            z[t] = x[t] - rho * x[t - 1];
        }
        let se = innovation_sd(&z[1..], opts).max(1e-12);
        let penalty = opts.beta * se * se * ln_n;
        let slope = opts.slope_share * penalty;
        let sums = Sums::new(&z);
        // Under correlated noise a step's first point is its own innovation; under white
        // noise it is the new level's (a free point there would make k and k − 1 tie).
        let own = usize::from(rho > 0.0);
        let Some(points) = pelt(&sums, n, penalty, slope, m, own) else {
            return Vec::new();
        };
        // The BIC of this ρ: the innovations' log variance, the same penalty per change
        // point and per sloped segment.
        let (mut rss, mut sloped) = (0.0, 0.0);
        for (a, b) in bounds(&points, n) {
            let (f, l) = sums.rss(a + own, b);
            if l + slope < f {
                rss += l;
                sloped += 1.0;
            } else {
                rss += f;
            }
        }
        let kept = (n - own * (points.len() + 1)) as f64;
        let bic = kept * (rss.max(f64::MIN_POSITIVE) / kept).ln()
            + opts.beta * ln_n * (points.len() as f64 + opts.slope_share * sloped);
        if best.as_ref().is_none_or(|(b, _)| bic < *b) {
            best = Some((bic, points));
        }
    }
    let points = best.map(|(_, p)| p).unwrap_or_default();
    let mut points = prune(&x, points, opts);
    // A step's own innovation may sit on either side of it: each change moves (by at most
    // `SHIFT`) to where the standardised series splits best between its neighbours.
    let sums = Sums::new(&x);
    for i in 0..points.len() {
        let a = if i == 0 { 0 } else { points[i - 1] };
        let b = points.get(i + 1).copied().unwrap_or(n);
        let two = |k: usize| {
            let ((f1, l1), (f2, l2)) = (sums.rss(a, k), sums.rss(k, b));
            f1.min(l1) + f2.min(l2)
        };
        // Segments of at least two points: `min_segment` bounds the search, not where the
        // step is (a step three commits old is found a commit early otherwise).
        let (lo, hi) = (
            (a + 2).max(points[i].saturating_sub(SHIFT)),
            (points[i] + SHIFT).min(b.saturating_sub(2)),
        );
        if let Some(k) = (lo..=hi).min_by(|&p, &q| two(p).total_cmp(&two(q))) {
            points[i] = k;
        }
    }
    points
}

/// How far the final placement may move a change point.
const SHIFT: usize = 2;

/// The longest series segmented point by point. Where nothing changes PELT prunes nothing
/// (O(n²) for each ρ); a longer series is segmented as the means of `n / EXACT_POINTS`
/// consecutive points, each change then placed at the best point within a block of where it
/// was found.
const EXACT_POINTS: usize = 500;

/// The segments `[a, b)` that `points` cut `0..n` into.
fn bounds(points: &[usize], n: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let starts = std::iter::once(0).chain(points.iter().copied());
    let ends = points.iter().copied().chain(std::iter::once(n));
    starts.zip(ends)
}

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

    /// The residual sums of squares of `x[a..b]` about its mean and about its least-squares
    /// line.
    fn rss(&self, a: usize, b: usize) -> (f64, f64) {
        if b <= a {
            return (0.0, 0.0);
        }
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
        (flat, line)
    }

    /// The smaller of the two, the line's plus `slope`.
    fn cost(&self, a: usize, b: usize, slope: f64) -> f64 {
        let (flat, line) = self.rss(a, b);
        flat.min(line + slope)
    }
}

/// The partition of `0..n` into segments of at least `m` points that minimises their costs
/// plus `penalty` a change point, where the segment `[s, t)` costs `z[s + skip..t]` (with
/// `skip` 1, its first point is the step's own innovation). Candidates that can no longer
/// start the last segment are pruned: the cost is super-additive up to one `slope` charge.
/// `None` when the request that asked was cancelled.
fn pelt(
    sums: &Sums,
    n: usize,
    penalty: f64,
    slope: f64,
    m: usize,
    skip: usize,
) -> Option<Vec<usize>> {
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
            let v = best[s] + sums.cost(s + skip, t, slope);
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
            return None;
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
    Some(points)
}

/// The residual sum of squares of `x[a..b]` about its least-squares quadratic.
fn quadratic_rss(x: &[f64], a: usize, b: usize) -> f64 {
    let len = b - a;
    if len < 4 {
        return 0.0;
    }
    // On u ∈ [−1, 1] the normal equations stay well conditioned.
    let centre = (a + b - 1) as f64 / 2.0;
    let half = len as f64 / 2.0;
    let u = |i: usize| (i as f64 - centre) / half;
    let mut m = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for (i, &v) in x[a..b].iter().enumerate() {
        let ui = u(a + i);
        let p = [1.0, ui, ui * ui];
        for j in 0..3 {
            r[j] += p[j] * v;
            for k in 0..3 {
                m[j][k] += p[j] * p[k];
            }
        }
    }
    let det = |m: &[[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(&m);
    if d.abs() < 1e-12 {
        return f64::INFINITY;
    }
    // Cramer's rule.
    let coef: Vec<f64> = (0..3)
        .map(|j| {
            let mut mj = m;
            for k in 0..3 {
                mj[k][j] = r[k];
            }
            det(&mj) / d
        })
        .collect();
    x[a..b]
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let ui = u(a + i);
            (v - (coef[0] + coef[1] * ui + coef[2] * ui * ui)).powi(2)
        })
        .sum()
}

/// The residuals of `x` about `points`' segments, each about the better of its mean and its
/// least-squares line.
fn residuals(x: &[f64], points: &[usize]) -> Vec<Vec<f64>> {
    bounds(points, x.len())
        .map(|(a, b)| {
            let seg = &x[a..b];
            let len = seg.len() as f64;
            let mean = seg.iter().sum::<f64>() / len;
            let tm = (len - 1.0) / 2.0;
            let stt: f64 = (0..seg.len()).map(|i| (i as f64 - tm).powi(2)).sum();
            let stx: f64 = seg
                .iter()
                .enumerate()
                .map(|(i, v)| (i as f64 - tm) * (v - mean))
                .sum();
            let slope = if stt > 0.0 { stx / stt } else { 0.0 };
            seg.iter()
                .enumerate()
                .map(|(i, v)| v - mean - slope * (i as f64 - tm))
                .collect()
        })
        .collect()
}

/// The long-run variance of the residuals: their robust variance γ₀ times the AR(1) factor
/// (1 + ρ)/(1 − ρ), ρ = 1 − (robust variance of their differences)/(2γ₀) within segments,
/// in `[0, rho_max]`; and that factor (1 where the residuals have no robust spread).
fn long_run_variance(residuals: &[Vec<f64>], rho_max: f64) -> (f64, f64) {
    let all: Vec<f64> = residuals.iter().flatten().copied().collect();
    let mean_square = all.iter().map(|v| v * v).sum::<f64>() / all.len().max(1) as f64;
    let s = mad_sd(&all);
    let g0 = if s > 0.0 { s * s } else { mean_square };
    if g0 <= 0.0 {
        return (0.0, 1.0);
    }
    let diffs: Vec<f64> = residuals
        .iter()
        .flat_map(|r| r.windows(2).map(|w| w[1] - w[0]))
        .collect();
    let vd = mad_sd(&diffs).powi(2);
    let rho = (1.0 - vd / (2.0 * g0)).clamp(0.0, rho_max);
    let factor = (1.0 + rho) / (1.0 - rho);
    (g0 * factor, if s > 0.0 { factor } else { 1.0 })
}

/// The residual sum of squares of two segments `[a, k)` and `[k, b)` (each flat or a line),
/// and of the best single smooth segment over `[a, b)` (flat, line or quadratic).
fn split_rss(x: &[f64], sums: &Sums, a: usize, k: usize, b: usize) -> (f64, f64) {
    let two = |s: usize, e: usize| {
        let (f, l) = sums.rss(s, e);
        f.min(l)
    };
    let (f0, l0) = sums.rss(a, b);
    (
        two(a, k) + two(k, b),
        f0.min(l0).min(quadratic_rss(x, a, b)),
    )
}

/// `points` without the change points whose step does not beat one smooth segment over its
/// neighbours by `prune · ln n` long-run variances, the weakest merged first.
fn prune(x: &[f64], mut points: Vec<usize>, opts: &Options) -> Vec<usize> {
    if points.is_empty() {
        return points;
    }
    let n = x.len();
    let threshold = opts.prune * (n as f64).ln();
    let sums = Sums::new(x);
    // The long-run variance of the segmentation found: merging does not re-estimate it (a
    // merged step would inflate it, and the next merge with it).
    let (lr, _) = long_run_variance(&residuals(x, &points), opts.rho_max);
    if lr <= 0.0 {
        return points;
    }
    while !points.is_empty() {
        let weakest = (0..points.len())
            .map(|i| {
                let a = if i == 0 { 0 } else { points[i - 1] };
                let b = points.get(i + 1).copied().unwrap_or(n);
                let (two, one) = split_rss(x, &sums, a, points[i], b);
                (i, (one - two) / lr)
            })
            .min_by(|p, q| p.1.total_cmp(&q.1));
        match weakest {
            Some((i, d)) if d < threshold => {
                points.remove(i);
            }
            _ => break,
        }
    }
    points
}

/// The change points of `y` with the levels on both sides, the intervals and the evidence.
pub fn change_points(y: &[f64], opts: &Options) -> Vec<ChangePoint> {
    match Standardised::of(y, opts) {
        Some(s) => describe(&s, &segment(y, opts), opts),
        None => Vec::new(),
    }
}

/// A series as [`describe`] reads it: the values, standardised and clipped, and their sums.
/// Made once for a series that is described at several segmentations.
pub struct Standardised<'a> {
    y: &'a [f64],
    x: Vec<f64>,
    sigma: f64,
    sums: Sums,
}

impl<'a> Standardised<'a> {
    /// `None` for a constant or non-finite series.
    pub fn of(y: &'a [f64], opts: &Options) -> Option<Self> {
        let (x, sigma) = standardised(y, opts)?;
        let sums = Sums::new(&x);
        Some(Standardised { y, x, sigma, sums })
    }
}

/// The change points at `points` (first indices of new segments, increasing, inside the
/// series) with the levels on both sides, the intervals and the evidence.
pub fn describe(series: &Standardised, points: &[usize], opts: &Options) -> Vec<ChangePoint> {
    if points.is_empty() {
        return Vec::new();
    }
    let Standardised { y, x, sigma, sums } = series;
    let (y, sigma) = (*y, *sigma);
    let n = y.len();
    let (lr, factor) = long_run_variance(&residuals(x, points), opts.rho_max);
    let lr = lr.max(f64::MIN_POSITIVE);
    let m = opts.min_segment.clamp(1, 2);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    (0..points.len())
        .map(|i| {
            let a = if i == 0 { 0 } else { points[i - 1] };
            let k = points[i];
            let b = points.get(i + 1).copied().unwrap_or(n);
            let welch = welch(sums, a, k, b, factor);
            // Bonferroni over every point of the series: where the step could have been.
            let p_value = (welch.p * n as f64).min(1.0);
            let index_ci = position_interval(sums, a, k, b, m, lr);
            let (before, after) = (mean(&y[a..k]), mean(&y[k..b]));
            let half = welch.half_width * sigma;
            let pct = |d: f64| {
                if before != 0.0 {
                    100.0 * d / before.abs()
                } else {
                    0.0
                }
            };
            let change = after - before;
            let (lo, hi) = (pct(change - half), pct(change + half));
            ChangePoint {
                index: k,
                index_ci,
                before,
                after,
                change_pct: if before != 0.0 {
                    100.0 * (after - before) / before
                } else {
                    0.0
                },
                change_pct_ci: (lo, hi),
                statistic: welch.t * welch.t,
                p_value,
            }
        })
        .collect()
}

/// Welch's two-sample t test of `x[a..k]` against `x[k..b]`, each side's variance times the
/// series' long-run `factor` (serially correlated noise tells less than as many independent
/// points): t, its two-sided p-value on the Welch–Satterthwaite degrees of freedom, and the
/// half width of the 95 % interval of the difference (in `x`'s units).
struct Welch {
    t: f64,
    p: f64,
    half_width: f64,
}

fn welch(sums: &Sums, a: usize, k: usize, b: usize, factor: f64) -> Welch {
    let (nb, na) = ((k - a) as f64, (b - k) as f64);
    let side = |s: usize, e: usize, len: f64| {
        let (flat, _) = sums.rss(s, e);
        let mean = (sums.x[e] - sums.x[s]) / len;
        (mean, factor * flat / (len - 1.0).max(1.0))
    };
    let ((mb, vb), (ma, va)) = (side(a, k, nb), side(k, b, na));
    let (eb, ea) = (vb / nb, va / na);
    let se = (eb + ea).sqrt();
    if se == 0.0 || !se.is_finite() {
        let differ = ma != mb;
        return Welch {
            t: if differ { f64::INFINITY } else { 0.0 },
            p: if differ { 0.0 } else { 1.0 },
            half_width: 0.0,
        };
    }
    let t = (ma - mb) / se;
    let df = ((eb + ea).powi(2) / (eb * eb / (nb - 1.0).max(1.0) + ea * ea / (na - 1.0).max(1.0)))
        .max(1.0);
    match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => Welch {
            t,
            p: (2.0 * dist.sf(t.abs())).clamp(0.0, 1.0),
            half_width: dist.inverse_cdf(0.975) * se,
        },
        Err(_) => Welch {
            t,
            p: 1.0,
            half_width: f64::INFINITY,
        },
    }
}

/// Where between `a` and `b` the split at `k` may be: the central 95 % of the profile
/// likelihood of the split point (each at least `m` from either end), weights
/// `exp(−RSS/(2·lr))`.
fn position_interval(
    sums: &Sums,
    a: usize,
    k: usize,
    b: usize,
    m: usize,
    lr: f64,
) -> (usize, usize) {
    let lo = a + m;
    let hi = b.saturating_sub(m);
    if lo >= hi {
        return (k, k);
    }
    let rss: Vec<f64> = (lo..=hi)
        .map(|j| {
            let (f1, l1) = sums.rss(a, j);
            let (f2, l2) = sums.rss(j, b);
            f1.min(l1) + f2.min(l2)
        })
        .collect();
    let least = rss.iter().copied().fold(f64::INFINITY, f64::min);
    let w: Vec<f64> = rss
        .iter()
        .map(|r| (-(r - least) / (2.0 * lr)).exp())
        .collect();
    let total: f64 = w.iter().sum();
    let (mut acc, mut first, mut last) = (0.0, None, hi);
    for (j, wj) in w.iter().enumerate() {
        acc += wj / total;
        if first.is_none() && acc > 0.025 {
            first = Some(lo + j);
        }
        if acc >= 0.975 {
            last = lo + j;
            break;
        }
    }
    let first = first.unwrap_or(lo);
    (first.min(k), last.max(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
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
        assert!(cps[0].p_value < 1e-100, "{:?}", cps[0]);
        assert_eq!(cps[0].index_ci, (30, 30));
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

    /// The intervals say what they claim: over 200 series with one step (2 % noise, a 3–10 %
    /// step at a random commit), the position interval holds the true commit and the change's
    /// interval the true change in about 95 % of them (at least 85 %: the profile likelihood
    /// and the long-run sd are approximations), and a step of 6 % or more (3 noise sds) has
    /// a p-value below 1 % after Bonferroni over the series.
    #[test]
    fn intervals_cover_the_truth_and_the_evidence_separates_steps_from_noise() {
        let mut rng = StdRng::seed_from_u64(4242);
        let (mut found, mut position, mut size) = (0usize, 0usize, 0usize);
        for _ in 0..200 {
            let n = rng.random_range(60..200);
            let at = rng.random_range(20..n - 20);
            let step = rng.random_range(0.03..0.10) * if rng.random::<bool>() { 1.0 } else { -1.0 };
            let x: Vec<f64> = (0..n)
                .map(|i| {
                    1000.0
                        * (1.0 + if i >= at { step } else { 0.0 })
                        * (1.0 + 0.02 * normal(&mut rng))
                })
                .collect();
            let cps = change_points(&x, &Options::default());
            let Some(c) = cps.iter().min_by_key(|c| c.index.abs_diff(at)) else {
                continue;
            };
            if c.index.abs_diff(at) > 10 {
                continue;
            }
            found += 1;
            if step.abs() >= 0.06 {
                assert!(c.p_value < 0.01, "a {:.1} % step: {c:?}", 100.0 * step);
            }
            assert!(c.index_ci.0 <= c.index && c.index <= c.index_ci.1, "{c:?}");
            position += usize::from(c.index_ci.0 <= at && at <= c.index_ci.1);
            size +=
                usize::from(c.change_pct_ci.0 <= 100.0 * step && 100.0 * step <= c.change_pct_ci.1);
        }
        assert!(found >= 180, "{found} of 200 steps found");
        assert!(
            position as f64 >= 0.85 * found as f64,
            "position interval holds the step in {position} of {found}"
        );
        assert!(
            size as f64 >= 0.85 * found as f64,
            "change interval holds the step in {size} of {found}"
        );
    }
}
