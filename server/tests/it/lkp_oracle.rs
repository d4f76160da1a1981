// SPDX-License-Identifier: GPL-3.0-or-later
//! The LKP oracle: ten cases printed by lkp-tests' own `Compare::Comparer` (see
//! `crates/lkp/tests/fixtures/lkp-oracle/README.md`), each job's `stats.json` uploaded as a robot does;
//! Perfline's `style=lkp` text must be lkp-tests' table, byte for byte. As a robot does, every
//! job is uploaded under one kernel version, and the comparison selects by commit
//! (`commits=BASE,HEAD`).
//!
//! The group header's axes are the one difference by design: lkp-tests takes them from the
//! job file (rootfs, kconfig, compiler and the job's params, in the job's order), which an
//! upload does not carry; Perfline names the machine and the benchmark. Everything from the
//! `commit:` line on is compared.

use std::path::PathBuf;

use serde_json::Value;

use crate::helpers::*;

fn cases() -> Vec<(String, PathBuf)> {
    oracle_cases_in(&crate_fixture("lkp", "lkp-oracle"))
        .into_iter()
        .map(|(name, dir, _)| (name, dir))
        .collect()
}

/// The text from the `commit:` line on (the header's axes differ by design, see above).
fn from_commits(text: &str) -> &str {
    text.find("\ncommit: \n").map_or(text, |i| &text[i + 1..])
}

#[tokio::test(flavor = "multi_thread")]
async fn lkp_text_is_lkp_tests_table_byte_for_byte() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let cases = cases();
    assert_eq!(cases.len(), 10);
    let mut failures = Vec::new();
    let mut reports = Vec::new();
    for (case, dir) in &cases {
        let meta: Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        let testcase = meta["testcase"].as_str().unwrap();
        let machine = meta["machine"].as_str().unwrap();
        let commits: Vec<&str> = meta["commits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let owned: Vec<String> = commits.iter().map(|c| (*c).to_owned()).collect();
        crate::lkp_compare::upload_case(
            &app,
            dir,
            testcase,
            &format!("{machine}-{case}"),
            &owned,
            "",
        )
        .await;
        let (status, text) = app
            .get_text(&format!(
                "/api/v1/compare?benchmark={testcase}&machine={machine}-{case}\
                 &commits={},{}&format=text&style=lkp",
                commits[0], commits[1]
            ))
            .await;
        assert_eq!(status, 200, "{case}: {text}");
        let ours = text.rsplit_once("\nPermalink: ").map_or(&*text, |(t, _)| t);
        let theirs = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
        assert!(
            from_commits(&theirs).lines().count() > 8,
            "{case}: {theirs}"
        );
        assert!(
            ours.contains(&format!("  {machine}-{case}/{testcase}\n")),
            "{case}: the header names the machine and benchmark:\n{ours}"
        );
        if from_commits(ours) != from_commits(&theirs) {
            failures.push(format!(
                "{case}:\n--- lkp-tests\n{}\n--- Perfline\n{}",
                from_commits(&theirs),
                from_commits(ours)
            ));
        }
        // The regression mail's table is the same table.
        let (status, report) = app
            .get_text(&format!(
                "/api/v1/report?benchmark={testcase}&machine={machine}-{case}&base={}&bad={}",
                commits[0], commits[1]
            ))
            .await;
        assert_eq!(status, 200, "{case}: {report}");
        if !from_commits(&report).starts_with(from_commits(&theirs)) {
            failures.push(format!(
                "{case} (report):\n--- lkp-tests\n{}\n--- Perfline\n{report}",
                from_commits(&theirs)
            ));
        }
        reports.push((case.clone(), report));
    }
    // Its first line names the KPI, with lkp-tests' direction for it.
    let (_, first) = &reports[0];
    assert_eq!(
        first.lines().next(),
        Some("FYI, we noticed a -6.1% regression of netperf.Throughput_Mbps due to commit:"),
        "{first}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    app.stop().await;
}
