// SPDX-License-Identifier: GPL-3.0-or-later
//! Run-count advice against simulation: for CVs of 0.5–5 % and 3–20 runs per kernel, the
//! power `perfline_server::domain::noise` predicts for a change, beside how often the t test found
//! that change in simulated comparisons (normal noise, 20,000 a cell). The advice is right
//! when they agree within ±5 percentage points everywhere; the bench fails otherwise.
//!
//! `cargo bench -p perfline-server --bench power` (`POWER_TRIALS=` changes the trials).

use std::time::Instant;

use perfline_server::domain::noise::{min_effect, power, simulate_detection, POWER};

fn main() {
    let trials: usize = std::env::var("POWER_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let started = Instant::now();
    println!(
        "{:>5} {:>4} {:>9} {:>10} {:>9} {:>7}",
        "cv %", "n", "change %", "predicted", "observed", "diff pp"
    );
    let mut worst: f64 = 0.0;
    let mut cells = 0;
    for cv in [0.005, 0.01, 0.02, 0.05] {
        for n in [3usize, 5, 10, 20] {
            let at_80 = min_effect(n).expect("n ≥ 2") * cv;
            // The smallest detectable change (predicted 80 %), half and one and a half of it.
            for (i, change) in [at_80 * 0.5, at_80, at_80 * 1.5].into_iter().enumerate() {
                let predicted = if i == 1 { POWER } else { power(n, change / cv) };
                let seed = (cv * 1e4) as u64 * 1000 + n as u64 * 10 + i as u64;
                let observed = simulate_detection(n, cv, change, trials, seed);
                let diff = 100.0 * (observed - predicted);
                worst = worst.max(diff.abs());
                cells += 1;
                println!(
                    "{:>5.1} {:>4} {:>9.3} {:>10.3} {:>9.3} {:>+7.2}",
                    cv * 100.0,
                    n,
                    change * 100.0,
                    predicted,
                    observed,
                    diff
                );
            }
        }
    }
    println!(
        "{cells} cells, {trials} trials each: the largest |predicted − observed| is {worst:.2} pp (goal ≤ 5) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if worst > 5.0 {
        eprintln!("predicted power is off by more than 5 percentage points");
        std::process::exit(1);
    }
}
