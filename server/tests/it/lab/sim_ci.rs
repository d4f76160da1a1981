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
        drain: Duration::from_secs(40),
    };
    let report = run(&lab).await;
    let text = report.print();
    println!("{text}");
    assert!(report.detectable >= 3, "{text}");
    assert!(
        report.exact * 100 >= report.detectable * 95,
        "culprits found: {text}"
    );
    assert_eq!(report.wrong, 0, "{text}");
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
