// SPDX-License-Identifier: GPL-3.0-or-later
//! The lab simulator's full run (issue 52, BENCHMARKS.md "The lab runs itself"): 8 robots, a
//! history of 2,000 commits tested every 4th (two simulated weeks), regressions of 2–10 %
//! with noise of 0.5–5 %, A/A calibration, a hostile machine name, and the faults on a
//! schedule; on SQLite, then (when `PERFLINE_TEST_PG` names a cluster, as `scripts/lab`
//! starts one) on PostgreSQL behind two servers.
//!
//! `cargo bench --bench lab` (or `scripts/lab`); `LAB_COMMITS`, `LAB_MACHINES`, `LAB_STEPS`,
//! `LAB_SEED` change the size. `LAB_SCALE=1` runs the scale run instead: `LAB_ROBOTS` (100)
//! robots each uploading a `LAB_KEYS` (5,000)-key LKP job every 2 s for `LAB_SCALE_SECS` (600).
//! `LAB_SQLITE=0` skips the SQLite run (to measure PostgreSQL alone).

#[path = "../tests/it/lab/sim.rs"]
mod sim;

use std::time::Duration;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let sqlite = env("LAB_SQLITE", 1) != 0;
    if std::env::var_os("LAB_SCALE").is_some() {
        // The scale run: 100 robots, a 5,000-key LKP job each every 2 s.
        let mut scale = sim::Scale {
            robots: env("LAB_ROBOTS", 100) as usize,
            keys: env("LAB_KEYS", 5000) as usize,
            every: Duration::from_secs(2),
            duration: Duration::from_secs(env("LAB_SCALE_SECS", 600)),
            postgres: None,
        };
        if sqlite {
            let report = rt.block_on(sim::scale(&scale));
            println!("== scale, SQLite, one server ==\n{}\n", report.print());
        }
        if let Ok(base) = std::env::var("PERFLINE_TEST_PG") {
            let url = rt
                .block_on(perfline_server::store::postgres::create_database(
                    &base, "scale",
                ))
                .expect("a database on the cluster");
            scale.postgres = Some(url);
            let report = rt.block_on(sim::scale(&scale));
            println!("== scale, PostgreSQL, two servers ==\n{}\n", report.print());
        }
        return;
    }
    let mut lab = sim::Lab {
        commits: env("LAB_COMMITS", 2000) as usize,
        machines: env("LAB_MACHINES", 8) as usize,
        steps: env("LAB_STEPS", 6) as usize,
        stride: 4,
        seed: env("LAB_SEED", 3),
        lease_secs: 5,
        faults: true,
        postgres: None,
        pg_outage: None,
        drain: Duration::from_secs(env("LAB_DRAIN_SECS", 600)),
    };
    if sqlite {
        let report = rt.block_on(sim::run(&lab));
        println!("== SQLite, one server ==\n{}\n", report.print());
    }
    if let Ok(base) = std::env::var("PERFLINE_TEST_PG") {
        let url = rt
            .block_on(perfline_server::store::postgres::create_database(
                &base, "lab",
            ))
            .expect("a database on the cluster");
        lab.postgres = Some(url);
        // The bench has the cluster to itself: it may stop it for a while.
        lab.pg_outage = std::env::var_os("PERFLINE_TEST_PG_DIR").map(Into::into);
        let report = rt.block_on(sim::run(&lab));
        println!("== PostgreSQL, two servers ==\n{}\n", report.print());
    }
}
