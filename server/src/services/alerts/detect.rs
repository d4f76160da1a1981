// SPDX-License-Identifier: GPL-3.0-or-later
//! What counts as an alert: the rules, and the newest step of a series. Pure: the detector
//! (`alerts::detector`), the tests and the corpus benchmark (`benches/alerts.rs`) call the same
//! functions.

use crate::domain::changepoint;

/// The defaults, chosen on the synthetic corpus of `benches/alerts.rs` (BENCHMARKS.md): series
/// with 1–5 % noise, steps of 5–15 %.
pub const DEFAULT_MIN_CHANGE_PCT: f64 = 2.0;
pub const DEFAULT_ALPHA: f64 = 0.0002;
pub const DEFAULT_MIN_BEFORE: usize = 8;
pub const DEFAULT_MIN_AFTER: usize = 4;
/// The least evidence of a step among the 12 commits either side ([`local_t`]): Perfherder's
/// own threshold, t > 7, which its sheriffs' verdicts were given on (not tuned: the choice of
/// a local test at all was made on REALISE's development windows, `benches/realise.rs`).
pub const DEFAULT_MIN_LOCAL_T: f64 = 7.0;

/// How many of a series' newest points the detector looks at: a step at the newest commits
/// is found in them, and the cost stays flat however long the history grows.
pub const WINDOW: usize = 1000;

/// The most rules; each is checked for every series an upload touches.
pub const MAX_RULES: usize = 200;

pub use crate::domain::alert_rule::Rule;

/// A rule's settings with the defaults filled in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub min_change_pct: f64,
    pub alpha: f64,
    pub min_before: usize,
    pub min_after: usize,
    /// The least Welch t of the step over the commits around it ([`local_t`]).
    pub min_local_t: f64,
    pub ignore: bool,
    /// Whether a step awaits confirmation by reruns before it is announced.
    pub confirm: bool,
    /// Whether a peak of the local t ([`local_peaks`]) may raise a step the segmentation
    /// did not keep. Not a rule's setting: one default for every series (chosen by
    /// cross-validation on REALISE's development windows, `benches/realise.rs`); off only to
    /// measure the segmentation alone.
    pub local_peaks: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            min_change_pct: DEFAULT_MIN_CHANGE_PCT,
            alpha: DEFAULT_ALPHA,
            min_before: DEFAULT_MIN_BEFORE,
            min_after: DEFAULT_MIN_AFTER,
            min_local_t: DEFAULT_MIN_LOCAL_T,
            ignore: false,
            confirm: true,
            local_peaks: true,
        }
    }
}

/// The settings of a series: the first matching rule's, defaults for what it leaves unset.
pub fn settings_for(rules: &[Rule], benchmark: &str, metric: &str, param: &str) -> Settings {
    let d = Settings::default();
    match rules.iter().find(|r| r.matches(benchmark, metric, param)) {
        None => d,
        Some(r) => Settings {
            min_change_pct: r.min_change_pct.unwrap_or(d.min_change_pct),
            alpha: r.alpha.unwrap_or(d.alpha),
            min_before: r.min_before.unwrap_or(d.min_before),
            min_after: r.min_after.unwrap_or(d.min_after),
            ignore: r.ignore,
            min_local_t: r.min_local_t.unwrap_or(d.min_local_t),
            confirm: r.confirm.unwrap_or(d.confirm),
            local_peaks: d.local_peaks,
        },
    }
}

/// A step at the newest commits of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The index of the first point at the new level (in the whole series).
    pub index: usize,
    /// The 95 % interval of `index` (inclusive).
    pub index_ci: (usize, usize),
    pub before: f64,
    pub after: f64,
    pub change_pct: f64,
    /// The 95 % interval of `change_pct`.
    pub change_pct_ci: (f64, f64),
    /// The step's evidence: the p-value after Bonferroni over the window's points.
    pub p_value: f64,
    pub points_before: usize,
    pub points_after: usize,
}

/// The newest level shift of `x` (per-commit means in commit order) if it passes `settings`.
///
/// The newest `WINDOW` points are segmented by the trend page's engine
/// ([`changepoint::segment`], with segments as short as `min_after` allows, 2 to 5), and the
/// boundaries whose step the rule's `alpha` cannot tell from noise merged away, the weakest
/// first; the newest change point after `since` (the newest step already alerted) that passes
/// is the answer, of the newest `BOUNDARIES_TRIED` (3): its p-value (Welch's t test of the
/// segments either side with long-run variances, Bonferroni over the window) at most
/// `alpha`, at least `min_before` points at the old level and `min_after` at the new, and a
/// change of at least `min_change_pct`, and a [`local_t`] of at least `min_local_t`. No fixed
/// threshold on the size alone: a 3 % step in a series whose commits scatter by 5 % is not
/// evidence, and a 1 % step in a quiet one is (if the rule's `min_change_pct` allows it).
///
/// A second test finds the steps the segmentation merges into a longer segment (a step
/// shortly before another, or a short level): the newest peak of Perfherder's local t
/// ([`local_peaks`], over `min_local_t`) after `since` is described by the segments either
/// side of it and must pass the rule there as the segmentation's step does (`alpha`,
/// `min_before`, `min_after`, `min_change_pct`). A step within [`same_step_tolerance`] of
/// `since` is the alerted step found again, not a new one. When both tests find a step, the
/// segmentation's is the one if they are within that tolerance; else the older, so that the
/// caller's `since` passes it and the newer is found at the next upload.
pub fn newest_step(x: &[f64], settings: &Settings, since: Option<usize>) -> Option<Step> {
    if settings.ignore || x.len() < settings.min_before + settings.min_after {
        return None;
    }
    let offset = x.len().saturating_sub(WINDOW);
    let window = &x[offset..];
    let opts = changepoint::Options {
        min_segment: settings.min_after.clamp(2, 5),
        ..changepoint::Options::default()
    };
    // Only steps with evidence cut the window: a boundary the alpha cannot tell from noise is
    // merged away (the weakest first), so the step before it is tested on all its points.
    let series = changepoint::Standardised::of(window, &opts)?;
    let mut points = changepoint::segment(window, &opts);
    let mut found = changepoint::describe(&series, &points, &opts);
    while let Some((weakest, _)) = found
        .iter()
        .enumerate()
        .filter(|(_, c)| c.p_value > settings.alpha)
        .max_by(|a, b| a.1.p_value.total_cmp(&b.1.p_value))
    {
        points.remove(weakest);
        found = changepoint::describe(&series, &points, &opts);
    }
    let floor = since.and_then(|s| s.checked_sub(offset));
    let step_of = |c: &changepoint::ChangePoint, start: usize, end: usize| Step {
        index: offset + c.index,
        index_ci: (offset + c.index_ci.0, offset + c.index_ci.1),
        before: c.before,
        after: c.after,
        change_pct: c.change_pct,
        change_pct_ci: c.change_pct_ci,
        p_value: c.p_value,
        points_before: c.index - start,
        points_after: end - c.index,
    };
    let mut segmented = None;
    for (i, c) in found.iter().enumerate().rev().take(BOUNDARIES_TRIED) {
        if floor.is_some_and(|f| c.index <= f) {
            break;
        }
        let start = if i == 0 { 0 } else { found[i - 1].index };
        let end = found.get(i + 1).map_or(window.len(), |n| n.index);
        let (points_before, points_after) = (c.index - start, end - c.index);
        if points_before < settings.min_before
            || points_after < settings.min_after
            || c.p_value > settings.alpha
            || c.change_pct.abs() < settings.min_change_pct
            || c.before == 0.0
            || local_t(&window[start..end], c.index - start) < settings.min_local_t
        {
            continue;
        }
        segmented = Some(step_of(c, start, end));
        break;
    }
    // The second test: a peak of the local t (Perfherder's, which sheriffs triage), described
    // by the segments either side of it (its size, interval and p-value).
    let peaks = if settings.local_peaks {
        local_peaks(window, settings.min_local_t, settings.min_change_pct)
    } else {
        Vec::new()
    };
    // A step within the tolerance of `since` is the step already alerted, found again.
    let tolerance = same_step_tolerance(settings);
    let fresh = |index: usize| floor.is_none_or(|f| index > f + tolerance);
    let peak = peaks
        .into_iter()
        .rev()
        .take_while(|&i| fresh(i))
        .find(|&i| i >= settings.min_before && window.len() - i >= settings.min_after)
        .and_then(|i| {
            let mut cuts: Vec<usize> = found
                .iter()
                .map(|c| c.index)
                .filter(|c| c.abs_diff(i) > tolerance)
                .collect();
            let at = cuts.partition_point(|&c| c < i);
            cuts.insert(at, i);
            let described = changepoint::describe(&series, &cuts, &opts);
            let c = described.get(at).filter(|c| c.index == i)?;
            let start = if at == 0 { 0 } else { described[at - 1].index };
            let end = described.get(at + 1).map_or(window.len(), |n| n.index);
            // The rule's tests on the step it describes, as for the segmentation's.
            let passes = i - start >= settings.min_before
                && end - i >= settings.min_after
                && c.p_value <= settings.alpha
                && c.change_pct.abs() >= settings.min_change_pct
                && c.before != 0.0;
            passes.then(|| step_of(c, start, end))
        });
    match (segmented, peak) {
        // The same step found by both: the segmentation's.
        (Some(s), Some(p)) if s.index.abs_diff(p.index) <= tolerance => Some(s),
        // Two steps: the older first (the caller's `since` then passes it), unless it is the
        // step already alerted, found again (the caller drops it; the newer must not wait).
        (Some(s), Some(p)) => {
            let (older, newer) = if s.index < p.index { (s, p) } else { (p, s) };
            Some(if fresh(older.index - offset) {
                older
            } else {
                newer
            })
        }
        (s, p) => s.or(p),
    }
}

/// Perfherder's change test on `x` (its `perfalert`, as treeherder documents it; our own
/// code): at each point, the weighted means of the 12 points before it (up to 24 while no
/// change was seen since) and of it and the 11 after it, each point weighted by its
/// closeness; t = |Δmean| / √(s²_b/n_b + s²_f/n_f). The points where t exceeds `threshold`
/// with both windows full, is at least its neighbours', and the means differ by at least
/// `min_change_pct` %. None when `threshold` is 0 (the rule asks for no local evidence).
pub fn local_peaks(x: &[f64], threshold: f64, min_change_pct: f64) -> Vec<usize> {
    const MAX_BACK: usize = 2 * LOCAL_NEIGHBOURS;
    let n = x.len();
    if threshold <= 0.0 || n < 2 * LOCAL_NEIGHBOURS {
        return Vec::new();
    }
    let mut t = vec![0.0; n];
    let mut full = vec![false; n];
    let mut change = vec![0.0; n];
    let mut since_change = 0usize;
    for i in 1..n {
        let reach = since_change.clamp(LOCAL_NEIGHBOURS, MAX_BACK).min(i);
        let back = x[i - reach..i].iter().rev().copied();
        let fore = x[i..(i + LOCAL_NEIGHBOURS).min(n)].iter().copied();
        let (b, f) = (moments(back, true), moments(fore, true));
        let ((mb, _, nb), (mf, _, nf)) = (b, f);
        full[i] = nb >= LOCAL_NEIGHBOURS && nf >= LOCAL_NEIGHBOURS;
        change[i] = if mb == 0.0 {
            f64::NAN
        } else {
            100.0 * ((mf - mb) / mb).abs()
        };
        t[i] = welch_t(b, f);
        since_change = if t[i] > threshold {
            0
        } else {
            since_change + 1
        };
    }
    (1..n)
        .filter(|&i| {
            full[i]
                && t[i] > threshold
                && t[i - 1] <= t[i]
                && (i + 1 >= n || t[i + 1] <= t[i])
                && change[i] >= min_change_pct
        })
        .collect()
}

/// The shortest history on which both of [`newest_step`]'s tests can alert: the rule's
/// `min_before + min_after`, and a full window either side of a local peak.
pub fn shortest_history(settings: &Settings) -> usize {
    let peaks = settings.local_peaks && settings.min_local_t > 0.0;
    (settings.min_before + settings.min_after).max(if peaks { 2 * LOCAL_NEIGHBOURS } else { 0 })
}

/// How many commits either side of a step [`local_t`] weighs: Perfherder's windows.
pub const LOCAL_NEIGHBOURS: usize = 12;

/// The evidence of the step at `at` of `x` (its two segments) among the commits around it:
/// Welch's t of the (up to) [`LOCAL_NEIGHBOURS`] per-commit means either side — the
/// statistic Perfherder's sheriffs are shown, without its weights. The caller passes the
/// step's two segments only, so that a fix 8 commits after a regression is tested against
/// the regressed level, not a mix of both. Infinite when neither side scatters and the means
/// differ; 0 when a side is empty.
pub fn local_t(x: &[f64], at: usize) -> f64 {
    let before = &x[at.saturating_sub(LOCAL_NEIGHBOURS)..at];
    let after = &x[at..(at + LOCAL_NEIGHBOURS).min(x.len())];
    if before.is_empty() || after.is_empty() {
        return 0.0;
    }
    let uniform = |s: &[f64]| moments(s.iter().copied(), false);
    welch_t(uniform(before), uniform(after))
}

/// The mean, sample variance and count of `values`; with `nearest_first`, the mean weights
/// the i-th of n values by (n − i) / n (Perfherder's weights: the nearest commit counts most).
fn moments(values: impl ExactSizeIterator<Item = f64> + Clone, nearest_first: bool) -> Moments {
    let n = values.len();
    let weight = |i: usize| {
        if nearest_first {
            (n - i) as f64 / n as f64
        } else {
            1.0
        }
    };
    let total: f64 = (0..n).map(weight).sum();
    let mean = values
        .clone()
        .enumerate()
        .map(|(i, v)| v * weight(i))
        .sum::<f64>()
        / total;
    let var = if n > 1 {
        values.map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    (mean, var, n)
}

/// (mean, variance, count) of a sample.
type Moments = (f64, f64, usize);

/// Welch's t of two samples: 0 when the means are equal, infinite when they differ and
/// neither sample scatters.
fn welch_t((ma, va, na): Moments, (mb, vb, nb): Moments) -> f64 {
    if ma == mb {
        return 0.0;
    }
    let se = (va / na as f64 + vb / nb as f64).sqrt();
    if se == 0.0 {
        f64::INFINITY
    } else {
        (ma - mb).abs() / se
    }
}

/// How many of the segmentation's newest change points [`newest_step`] tries.
const BOUNDARIES_TRIED: usize = 3;

/// How far (in points) a step may move as later commits refine it and still be the step an
/// alert already names.
pub fn same_step_tolerance(settings: &Settings) -> usize {
    settings.min_after.max(3)
}

/// Whether a step at `index` is one of the `known` steps (their first bad points' indices).
pub fn is_known(index: usize, known: &[usize], settings: &Settings) -> bool {
    let tolerance = same_step_tolerance(settings);
    known.iter().any(|k| k.abs_diff(index) <= tolerance)
}

/// Whether an improvement from `before` to `after` undoes a regression from `r_before` to
/// `r_after`: it moves back at least half the regression's distance, in the other direction.
pub fn undoes(r_before: f64, r_after: f64, before: f64, after: f64) -> bool {
    let lost = r_after - r_before;
    let regained = after - before;
    lost != 0.0 && regained.signum() == -lost.signum() && regained.abs() >= 0.5 * lost.abs()
}

/// The per-commit means around a step for the sparkline: up to 30 before and 15 after.
pub fn spark(x: &[f64], index: usize) -> (Vec<f64>, usize) {
    let from = index.saturating_sub(30);
    let to = (index + 15).min(x.len());
    (x[from..to].to_vec(), index - from)
}

#[cfg(test)]
mod tests {

    /// A 10 % step under a ±0.2 % sawtooth (the scale run's robots): the segmentation cuts
    /// the noise 3 or 4 points before the step, or long after it, and the step is still the
    /// one found, at its commit, in every length of the series after it is detectable.
    #[test]
    fn a_boundary_cut_in_the_noise_does_not_hide_the_step() {
        for robot in [0usize, 10, 20, 80] {
            for len in 19..=45 {
                let x: Vec<f64> = (0..len)
                    .map(|n| {
                        let noise = 1.0 + (((robot * 31 + n * 17) % 11) as f64 - 5.0) / 2500.0;
                        (if n >= 15 { 2250.0 } else { 2500.0 }) * noise
                    })
                    .collect();
                let settings = Settings {
                    confirm: false,
                    ..Default::default()
                };
                let step = newest_step(&x, &settings, None);
                assert_eq!(
                    step.as_ref().map(|s| s.index),
                    Some(15),
                    "robot {robot}, {len} points: {step:?}"
                );
                let pct = step.unwrap().change_pct;
                assert!((-10.1..-9.9).contains(&pct), "{pct}");
            }
        }
    }
    use super::*;

    fn check(x: &[f64], expect: Option<usize>) {
        let got = newest_step(x, &Settings::default(), None).map(|s| s.index);
        assert_eq!(got, expect, "series {x:?}");
    }

    /// A step the statistics are sure of (60 commits either side) but that 12 commits either
    /// side cannot show (2 standard deviations: t ≈ 5) is not shown to a sheriff; the same
    /// series with a step of 5 standard deviations is.
    #[test]
    fn a_step_must_stand_out_of_the_commits_around_it() {
        // Uniform noise of standard deviation 1 (a fixed xorshift), 60 commits either side.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let noise: Vec<f64> = (0..120)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 12f64.sqrt()
            })
            .collect();
        let series = |step: f64| -> Vec<f64> {
            (0..120)
                .map(|n| 50.0 + noise[n] + if n >= 60 { step } else { 0.0 })
                .collect()
        };
        let small = series(2.0);
        let t = local_t(&small, 60);
        assert!(t > 2.0 && t < DEFAULT_MIN_LOCAL_T, "{t}");
        check(&small, None);
        let without = Settings {
            min_local_t: 0.0,
            ..Settings::default()
        };
        assert_eq!(
            newest_step(&small, &without, None).map(|s| s.index),
            Some(60)
        );
        let large = series(5.0);
        assert!(local_t(&large, 60) > 9.0);
        check(&large, Some(60));
        assert_eq!(local_t(&[1.0, 1.0, 2.0, 2.0], 2), f64::INFINITY);
        assert_eq!(local_t(&[1.0, 1.0, 1.0], 1), 0.0);
        assert_eq!(local_t(&[1.0, 2.0], 0), 0.0);
    }

    /// The step already alerted, found again one commit off by the other test, does not hold
    /// back a new step: two steps (at 60 and 100), the first alerted at 59, the second 6
    /// commits old (the segmentation sees it; the local t cannot yet, its window is not full).
    #[test]
    fn a_known_step_found_again_does_not_hide_the_next() {
        let x: Vec<f64> = (0..106)
            .map(|i| {
                let level = if i < 60 {
                    100.0
                } else if i < 100 {
                    110.0
                } else {
                    125.0
                };
                level + f64::from((i * 7 % 5) as u8) * 0.2
            })
            .collect();
        let d = Settings::default();
        assert!(local_peaks(&x, d.min_local_t, d.min_change_pct).contains(&60));
        assert_eq!(newest_step(&x, &d, Some(59)).map(|s| s.index), Some(100));
        assert_eq!(newest_step(&x, &d, None).map(|s| s.index), Some(60));
    }

    #[test]
    fn the_newest_step_only_once_it_has_lasted() {
        let mut x = vec![
            100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 100.0, 99.9,
        ];
        check(&x, None);
        x.extend([93.0, 94.0, 93.5]);
        // Three points at the new level: not yet (min_after 4).
        check(&x, None);
        x.push(93.8);
        check(&x, Some(10));
        // A step below the minimum change is not an alert.
        let small: Vec<f64> = (0..30)
            .map(|i| if i < 20 { 100.0 } else { 99.0 } + f64::from(i % 2) * 0.01)
            .collect();
        check(&small, None);
    }

    #[test]
    fn rules_match_by_glob_first_wins() {
        let rules = vec![
            Rule {
                benchmark: "netperf".into(),
                metric: "Throughput*".into(),
                min_change_pct: Some(10.0),
                min_local_t: Some(0.0),
                ..Rule::default()
            },
            Rule {
                benchmark: "*".into(),
                metric: "*latency*".into(),
                ignore: true,
                ..Rule::default()
            },
        ];
        assert_eq!(
            settings_for(&rules, "netperf", "Throughput_Mbps", "").min_change_pct,
            10.0
        );
        assert_eq!(
            settings_for(&rules, "netperf", "Throughput_Mbps", "").min_local_t,
            0.0
        );
        assert_eq!(
            settings_for(&rules, "hackbench", "time", "").min_local_t,
            DEFAULT_MIN_LOCAL_T
        );
        assert!(settings_for(&rules, "hackbench", "p99latency", "").ignore);
        assert!(!settings_for(&rules, "hackbench", "time", "").ignore);
        assert_eq!(
            settings_for(&rules, "hackbench", "time", ""),
            Settings::default()
        );
        let bad = Rule {
            metric: "[".into(),
            ..Rule::default()
        };
        assert!(bad.check().is_err());
    }

    #[test]
    fn an_improvement_undoes_a_regression_when_it_regains_half() {
        assert!(undoes(100.0, 90.0, 90.0, 99.0));
        assert!(!undoes(100.0, 90.0, 90.0, 93.0));
        assert!(!undoes(100.0, 90.0, 90.0, 80.0));
    }
}
