// SPDX-License-Identifier: GPL-3.0-or-later
//! The change-point detector of trends and alerts on TCPD's 20 human-labelled series,
//! scored as TCPDBench scores (`tests/it/tcpd_score.rs`), beside the scores TCPDBench
//! published for binseg, PELT, BOCPD and the "zero" detector (default parameters); then the
//! detector's time on 1,000-point series (noise with steps; a slow drift).
//!
//! `cargo bench -p perfline-server --bench tcpd` (`TCPD_ROUNDS=50` timing rounds).

#[path = "../tests/it/tcpd_score.rs"]
mod tcpd_score;

use std::time::{Duration, Instant};

use perfline_server::domain::changepoint::{change_points, Options};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn detect(values: &[f64]) -> Vec<usize> {
    change_points(values, &Options::default())
        .into_iter()
        .map(|c| c.index)
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let series = tcpd_score::load();
    let scored = tcpd_score::run(&series, detect);
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
    println!("tcpd: Perfline mean F1 {f1:.3}, cover {cover:.3} (20 series)");
    for m in methods {
        let (f, c, n) = tcpd_score::published_means(&series, m);
        println!("tcpd: {m} (published, default) mean F1 {f:.3}, cover {c:.3} ({n} series)");
    }
    let over = scored
        .iter()
        .filter(|s| s.predicted > 3 * s.annotated.max(1))
        .count();
    println!("tcpd: series with more than 3x the annotators' change points: {over}");

    // Cost: 1,000-point series, noise with steps, and a slow drift.
    let rounds: usize = std::env::var("TCPD_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let mut rng = StdRng::seed_from_u64(20261203);
    let mut normal = move || {
        let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    };
    let steps: Vec<f64> = (0..1000)
        .map(|i| 1000.0 * (1.0 + 0.05 * f64::from(i / 250)) * (1.0 + 0.02 * normal()))
        .collect();
    let drift: Vec<f64> = (0..1000)
        .map(|i| 1000.0 * (1.0 + 0.0005 * f64::from(i)) * (1.0 + 0.01 * normal()))
        .collect();
    for (name, x) in [("steps", &steps), ("drift", &drift)] {
        let times: Vec<Duration> = (0..rounds)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(change_points(x, &Options::default()));
                t.elapsed()
            })
            .collect();
        println!(
            "tcpd: 1,000 points ({name}): {} change points, median {:.2} ms",
            detect(x).len(),
            median(times).as_secs_f64() * 1e3
        );
    }
}
