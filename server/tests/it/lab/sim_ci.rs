// SPDX-License-Identifier: GPL-3.0-or-later
//! The lab simulator, CI-sized (issue 52's point 4): 4 machines (one with a hostile name), a
//! history of 240 commits tested every 4th, two regressions of 2–10 % a machine, A/A
//! calibration, and every fault on the schedule; on SQLite, and on the PostgreSQL pass behind
//! two servers. The full run is `cargo bench --bench lab` (BENCHMARKS.md).

use std::time::Duration;

use super::sim::{run, Lab};
use crate::helpers::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_simulated_lab_with_faults_mails_each_injected_culprit_and_nothing_else() {
    let postgres = if on_postgres() {
        Some(fresh_postgres().await)
    } else {
        None
    };
    let lab = Lab {
        commits: 240,
        machines: 4,
        steps: 2,
        stride: 4,
        seed: 52,
        lease_secs: 3,
        faults: true,
        postgres,
        // The cluster is shared with the other tests.
        pg_outage: None,
        drain: Duration::from_secs(60),
    };
    let report = run(&lab).await;
    let text = report.print();
    println!("{text}");
    assert!(report.detectable >= 3, "{text}");
    // The statistical goals (≥ 95 % exact, ≤ 1 wrong per 100) are judged on the bench's 48
    // regressions (BENCHMARKS.md: 33 of 33, 0 wrong). Here, with a handful and noise drawn
    // afresh each run, one bisection of a small step on the noisiest machine may miss or
    // name its neighbour (the PostgreSQL pass once found 154 for 156, a 4.4 % step): at most
    // one, never a culprit where nothing was injected.
    assert!(
        report.exact + 1 >= report.detectable,
        "culprits found: {text}"
    );
    assert!(report.wrong <= 1, "{text}");
    assert_eq!(report.not_injected, 0, "{text}");
    assert_eq!(report.lost, 0, "{text}");
    assert_eq!(report.server_errors, 0, "{text}");
    assert_eq!(report.stuck_leases, 0, "{text}");
    assert!(!report.hostile_ran, "{text}");
    // Runs per culprit is judged on the bench's 46 bisections (14.5 against 25.0,
    // BENCHMARKS.md); here a handful, one noisy case can double the mean (38.6 in one run):
    // only that bisections ended and were counted.
    assert!(report.runs_per_culprit > 0.0, "{text}");
    assert!(report.wall < Duration::from_secs(100), "{text}");
}
