// SPDX-License-Identifier: GPL-3.0-or-later
//! The change-point detector of trends and alerts on TCPD's 20 human-labelled series, scored
//! as TCPDBench scores (`tests/it/tcpd_score.rs`), beside the scores TCPDBench published for
//! binseg, PELT, BOCPD and the "zero" detector (default parameters):
//!
//! 1. **Leave-one-out cross-validation** of the detector's settings: for each series, the
//!    settings of a grid (β, prune, ρ_max, min_segment) that score best on the other 19 —
//!    under the constraints that no series gets more than three times the most change points
//!    an annotator marked, plus two, and no synthetic trend without a change point
//!    (`tcpd_score::trends`) more than two — score the series left out. The mean of those is
//!    the figure to quote; the folds' picks show whether the default is what
//!    cross-validation chooses.
//! 2. The default on every series, in sample, beside the published methods.
//! 3. Cost: change points over 1,000 and 10,000 points (noise, steps, a drift), and the
//!    alerts' per-upload detection (`newest_step`) on a 2,000-commit history.
//!
//! `cargo bench -p perfline-server --bench tcpd` (`TCPD_ROUNDS=50` timing rounds).

#[path = "../tests/it/tcpd_score.rs"]
mod tcpd_score;

use std::time::{Duration, Instant};

use perfline_server::domain::changepoint::{change_points, Options};
use perfline_server::services::alerts::detect::{newest_step, Settings};
use rand::rngs::StdRng;
use rand::SeedableRng;

fn detect(values: &[f64], opts: &Options) -> Vec<usize> {
    change_points(values, opts)
        .into_iter()
        .map(|c| c.index)
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The most change points a series may get: 3 × the most any annotator marked, + 2.
fn allowed(s: &tcpd_score::Series) -> usize {
    3 * s.annotations.iter().map(Vec::len).max().unwrap_or(0) + 2
}

fn main() {
    let series = tcpd_score::load();
    let trends = tcpd_score::trends();

    // 1. Leave-one-out over a grid of settings.
    let mut grid = Vec::new();
    for beta in [2.0, 2.5, 3.0, 3.5, 4.0, 5.0] {
        for prune in [0.5, 0.75, 1.0, 1.5, 2.0, 3.0] {
            for rho_max in [0.9, 0.95] {
                for min_segment in [3, 5] {
                    let opts = Options {
                        beta,
                        prune,
                        rho_max,
                        min_segment,
                        ..Options::default()
                    };
                    let scored = tcpd_score::run(&series, |v| detect(v, &opts));
                    let over: Vec<bool> = series
                        .iter()
                        .zip(&scored)
                        .map(|(s, got)| got.predicted > allowed(s))
                        .collect();
                    let cut_trends = trends
                        .iter()
                        .filter(|(_, x)| detect(x, &opts).len() > 2)
                        .count();
                    grid.push((opts, scored, over, cut_trends));
                }
            }
        }
    }
    let objective =
        |(_, scored, over, cut): &(Options, Vec<tcpd_score::Scored>, Vec<bool>, usize),
         left_out: usize| {
            scored
                .iter()
                .zip(over)
                .enumerate()
                .filter(|(i, _)| *i != left_out)
                .map(|(_, (s, o))| s.f1 + s.cover - f64::from(u8::from(*o)))
                .sum::<f64>()
                - *cut as f64
        };
    let (mut f1, mut cover) = (0.0, 0.0);
    let mut picks = std::collections::BTreeMap::<String, usize>::new();
    println!("leave-one-out: the settings that score best on the other 19, on the one left out");
    for (i, s) in series.iter().enumerate() {
        let best = grid
            .iter()
            .max_by(|a, b| objective(a, i).total_cmp(&objective(b, i)))
            .expect("a grid");
        let got = &best.1[i];
        let pick = format!(
            "beta {} prune {} rho_max {} min_segment {}",
            best.0.beta, best.0.prune, best.0.rho_max, best.0.min_segment
        );
        println!(
            "  {:20} F1 {:.3} cover {:.3} ({} predicted, {} annotated) with {pick}",
            s.name, got.f1, got.cover, got.predicted, got.annotated
        );
        *picks.entry(pick).or_default() += 1;
        f1 += got.f1;
        cover += got.cover;
    }
    let n = series.len() as f64;
    for (pick, folds) in &picks {
        println!("  picked in {folds} of {} folds: {pick}", series.len());
    }
    println!(
        "tcpd: leave-one-out mean F1 {:.3}, cover {:.3} ({} series)",
        f1 / n,
        cover / n,
        series.len()
    );

    // 2. The default, in sample, beside the published methods.
    let opts = Options::default();
    let scored = tcpd_score::run(&series, |v| detect(v, &opts));
    let methods = ["binseg", "pelt", "bocpd", "zero"];
    println!(
        "{:20} {:>5} {:>4} {:>4} {:>13} {}",
        "series",
        "n",
        "ann.",
        "ours",
        "ours F1/cov",
        methods.map(|m| format!("{m:>13}")).join(" ")
    );
    for (s, got) in series.iter().zip(&scored) {
        let theirs = methods.map(|m| {
            s.published.get(m).map_or_else(
                || format!("{:>13}", "failed"),
                |(f, c)| format!("{f:>6.3}/{c:<6.3}"),
            )
        });
        println!(
            "{:20} {:>5} {:>4} {:>4} {:>6.3}/{:<6.3} {}",
            s.name,
            got.n,
            got.annotated,
            got.predicted,
            got.f1,
            got.cover,
            theirs.join(" ")
        );
    }
    let (f1, cover) = tcpd_score::means(&scored);
    println!("tcpd: Perfline default, in sample: mean F1 {f1:.3}, cover {cover:.3} (20 series)");
    for m in methods {
        let (f, c, n) = tcpd_score::published_means(&series, m);
        println!("tcpd: {m} (published, default) mean F1 {f:.3}, cover {c:.3} ({n} series)");
    }
    let over = series
        .iter()
        .zip(&scored)
        .filter(|(s, got)| got.predicted > allowed(s))
        .count();
    println!("tcpd: series with more than 3 × (annotated) + 2 change points: {over}");
    let worst = trends
        .iter()
        .map(|(name, x)| (detect(x, &opts).len(), name))
        .max()
        .expect("trends");
    println!(
        "tcpd: synthetic trends without a change ({}): at most {} change points ({})",
        trends.len(),
        worst.0,
        worst.1
    );

    // 3. Cost.
    let rounds: usize = std::env::var("TCPD_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let mut rng = StdRng::seed_from_u64(20261203);
    let mut normal = move || tcpd_score::normal(&mut rng);
    for n in [1000usize, 10_000] {
        let steps: Vec<f64> = (0..n)
            .map(|i| 1000.0 * (1.0 + 0.05 * (i * 4 / n) as f64) * (1.0 + 0.02 * normal()))
            .collect();
        let noise: Vec<f64> = (0..n).map(|_| 1000.0 * (1.0 + 0.02 * normal())).collect();
        let drift: Vec<f64> = (0..n)
            .map(|i| 1000.0 * (1.0 + 0.5 * i as f64 / n as f64) * (1.0 + 0.01 * normal()))
            .collect();
        for (name, x) in [("steps", &steps), ("noise", &noise), ("drift", &drift)] {
            let times: Vec<Duration> = (0..rounds)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(change_points(x, &opts));
                    t.elapsed()
                })
                .collect();
            println!(
                "tcpd: {n} points ({name}): {} change points, median {:.2} ms",
                detect(x, &opts).len(),
                median(times).as_secs_f64() * 1e3
            );
        }
    }
    let history: Vec<f64> = (0..2000)
        .map(|i| 1000.0 * if i >= 1990 { 0.9 } else { 1.0 } * (1.0 + 0.02 * normal()))
        .collect();
    let settings = Settings::default();
    let times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(newest_step(&history, &settings, None));
            t.elapsed()
        })
        .collect();
    println!(
        "tcpd: per-upload detection at 2,000 commits (newest_step, a 10 % step 10 commits old: {:?}): median {:.2} ms",
        newest_step(&history, &settings, None).map(|s| s.index),
        median(times).as_secs_f64() * 1e3
    );
}
