// SPDX-License-Identifier: GPL-3.0-or-later
//! Bisections through the noise, simulated: a 1,000-commit history whose level steps by 2–10 %
//! at a random commit, runs with a between-run noise of 0.5–5 % (normal), bisected by
//! `bisect::walk` (the server's own) and, on the same cases, by a fixed 5-runs-per-commit
//! bisection that calls each commit by the nearer of the two ends' means. Per cell: how often
//! each names the exact culprit, names a wrong one, or (the walk only) says the step is within
//! the noise; and the runs each took.
//!
//! `cargo bench -p perfline-server --bench bisect` (`BISECT_CASES=N` per cell, default 40).

use perfline_server::domain::bisection::{walk, Next, Plan, DEFAULT_MAX_RUNS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn normal(rng: &mut StdRng) -> f64 {
    let u1: f64 = rng.random::<f64>().max(1e-12);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

const COMMITS: usize = 1000;

/// One case: the first bad commit, the two levels, the noise, and the step the bisection was
/// started for (the alert's estimate, off by up to a third).
struct Case {
    culprit: usize,
    good: f64,
    bad: f64,
    sd: f64,
    found_step: f64,
}

enum Outcome {
    Exact,
    Wrong,
    Failed,
}

fn adaptive(case: &Case, rng: &mut StdRng) -> (Outcome, usize) {
    let mut p = Plan {
        runs: vec![Vec::new(); COMMITS],
        skip: vec![false; COMMITS],
        step: case.found_step,
        run_sd: case.sd,
        max_runs: DEFAULT_MAX_RUNS,
    };
    let mut total = 0;
    loop {
        match walk(&p).next {
            Next::Run { index, runs } => {
                while (p.runs[index].len() as u32) < runs {
                    let level = if index >= case.culprit {
                        case.bad
                    } else {
                        case.good
                    };
                    p.runs[index].push(level + case.sd * normal(rng));
                    total += 1;
                }
            }
            Next::Done { culprit } => {
                let o = if culprit == case.culprit {
                    Outcome::Exact
                } else {
                    Outcome::Wrong
                };
                return (o, total);
            }
            Next::Failed(_) => return (Outcome::Failed, total),
        }
    }
}

/// `git bisect` with 5 runs of every commit it visits, each called by the nearer end's mean.
fn fixed(case: &Case, rng: &mut StdRng) -> (Outcome, usize) {
    let mut total = 0;
    let mut runs_of = |index: usize, rng: &mut StdRng| -> f64 {
        let level = if index >= case.culprit {
            case.bad
        } else {
            case.good
        };
        total += 5;
        (0..5).map(|_| level + case.sd * normal(rng)).sum::<f64>() / 5.0
    };
    let (g, b) = (runs_of(0, rng), runs_of(COMMITS - 1, rng));
    let (mut lo, mut hi) = (0, COMMITS - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        let m = runs_of(mid, rng);
        if (m - b).abs() < (m - g).abs() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let o = if hi == case.culprit {
        Outcome::Exact
    } else {
        Outcome::Wrong
    };
    (o, total)
}

fn main() {
    let cases: usize = std::env::var("BISECT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let steps = [0.02, 0.04, 0.06, 0.08, 0.10];
    let noises = [0.005, 0.01, 0.02, 0.03, 0.05];
    let mut rng = StdRng::seed_from_u64(20261204);
    let started = std::time::Instant::now();
    println!("| noise (run CV) | step | cases | exact | within the noise (failed, said so) | wrong | runs, mean | fixed 5 runs: exact / wrong | fixed: runs |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut all = [0usize; 8];
    for &noise in &noises {
        for &step in &steps {
            let mut row = [0usize; 8];
            for _ in 0..cases {
                let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
                let case = Case {
                    culprit: rng.random_range(1..COMMITS),
                    good: 1000.0,
                    bad: 1000.0 * (1.0 + sign * step),
                    sd: 1000.0 * noise,
                    found_step: 1000.0 * sign * step * rng.random_range(0.8..1.3),
                };
                let (o, runs) = adaptive(&case, &mut rng);
                row[0] += 1;
                match o {
                    Outcome::Exact => row[1] += 1,
                    Outcome::Failed => row[2] += 1,
                    Outcome::Wrong => row[3] += 1,
                }
                row[4] += runs;
                let (o, runs) = fixed(&case, &mut rng);
                match o {
                    Outcome::Exact => row[5] += 1,
                    _ => row[6] += 1,
                }
                row[7] += runs;
            }
            let pct = |k: usize| 100.0 * k as f64 / row[0] as f64;
            println!(
                "| {:.1} % | {:.0} % | {} | {:.1} % | {:.1} % | {:.1} % | {:.1} | {:.1} % / {:.1} % | {:.0} |",
                noise * 100.0,
                step * 100.0,
                row[0],
                pct(row[1]),
                pct(row[2]),
                pct(row[3]),
                row[4] as f64 / row[0] as f64,
                pct(row[5]),
                pct(row[6]),
                row[7] as f64 / row[0] as f64,
            );
            for i in 0..8 {
                all[i] += row[i];
            }
        }
    }
    let pct = |k: usize| 100.0 * k as f64 / all[0] as f64;
    println!(
        "| all | | {} | **{:.1} %** | {:.1} % | **{:.1} %** | **{:.1}** | {:.1} % / {:.1} % | **{:.1}** |",
        all[0],
        pct(all[1]),
        pct(all[2]),
        pct(all[3]),
        all[4] as f64 / all[0] as f64,
        pct(all[5]),
        pct(all[6]),
        all[7] as f64 / all[0] as f64,
    );
    let decided = all[1] + all[3];
    println!(
        "exact among those that named a commit: {:.1} %; {:.1} s",
        100.0 * all[1] as f64 / decided.max(1) as f64,
        started.elapsed().as_secs_f64()
    );
}
