// SPDX-License-Identifier: GPL-3.0-or-later
//! The mmtests oracle: 63 cases printed by the real `compare-mmtests.pl` (see
//! `tests/fixtures/mmtests-oracle/README.md`), each uploaded as its `work/log` tar.gz and as its
//! samples CSV; Perfline's text must be what mmtests printed, byte for byte.

use std::path::PathBuf;

use serde_json::Value;

use crate::helpers::*;

fn cases() -> Vec<(String, PathBuf)> {
    oracle_cases("mmtests-oracle")
        .into_iter()
        .map(|(name, dir, _)| (name, dir))
        .collect()
}

/// The table above the permalink line.
fn table(text: &str) -> &str {
    text.rsplit_once("\nPermalink: ").map_or(text, |(t, _)| t)
}

/// What mmtests printed (any recorded variant counts), and what we printed.
struct Outcome {
    case: String,
    how: &'static str,
    ours: String,
    theirs: Vec<String>,
}

/// Every case, uploaded both ways, printed normally (and with `ratio=1` when `ratio`).
async fn run_corpus(ratio: bool) -> Vec<Outcome> {
    // 126 uploads in a row: more than the default write rate allows one address.
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let mut out = Vec::new();
    for (case, dir) in cases() {
        let meta: Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        let benchmark = meta["benchmark"].as_str().unwrap();
        let kernels = case_kernels(&meta);
        let tar = std::fs::read(dir.join("work-log.tar.gz")).unwrap();
        let r = app
            .upload_multipart(&[("work-log.tar.gz", tar)], &[("machine", &case)])
            .await;
        assert_eq!(
            r.status().as_u16(),
            201,
            "{case}: {}",
            r.text().await.unwrap()
        );
        let csv = std::fs::read(dir.join("samples.csv")).unwrap();
        let csv_machine = format!("{case}-csv");
        let r = app
            .upload_raw(&format!("benchmark={benchmark}&machine={csv_machine}"), csv)
            .await;
        assert_eq!(
            r.status().as_u16(),
            201,
            "{case} csv: {}",
            r.text().await.unwrap()
        );
        let name = if ratio { "expected-ratio" } else { "expected" };
        let mut theirs = vec![std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap()];
        for i in 1..4 {
            if let Ok(v) = std::fs::read_to_string(dir.join(format!("{name}.variant-{i}.txt"))) {
                theirs.push(v);
            }
        }
        for (how, machine) in [("work-log", case.as_str()), ("csv", csv_machine.as_str())] {
            let path = format!(
                "/api/v1/compare?benchmark={benchmark}&machine={machine}&kernels={}&format=text{}",
                kernels.join(","),
                if ratio { "&ratio=1" } else { "" }
            );
            let (status, text) = app.get_text(&path).await;
            assert_eq!(status, 200, "{case} {how}: {text}");
            out.push(Outcome {
                case: case.clone(),
                how,
                ours: table(&text).to_owned(),
                theirs: theirs.clone(),
            });
        }
    }
    out
}

fn check(outcomes: &[Outcome]) {
    let wrong: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| !o.theirs.contains(&o.ours))
        .collect();
    for o in &wrong {
        let first = o
            .ours
            .lines()
            .zip(o.theirs[0].lines())
            .position(|(a, b)| a != b);
        eprintln!(
            "{} ({}): differs at line {:?}\n  ours:   {:?}\n  mmtests:{:?}",
            o.case,
            o.how,
            first,
            first.and_then(|i| o.ours.lines().nth(i)),
            first.and_then(|i| o.theirs[0].lines().nth(i))
        );
    }
    assert!(
        wrong.is_empty(),
        "{} of {} outputs differ from mmtests",
        wrong.len(),
        outcomes.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_oracle_case_prints_what_mmtests_printed() {
    let outcomes = run_corpus(false).await;
    assert_eq!(outcomes.len(), 126, "63 cases, each uploaded two ways");
    check(&outcomes);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_oracle_case_prints_what_mmtests_printed_with_print_ratio() {
    let outcomes = run_corpus(true).await;
    assert_eq!(outcomes.len(), 126, "63 cases, each uploaded two ways");
    check(&outcomes);
}

/// `ratio=1` as JSON: the same numbers per cell as the text (np01: 0.94 (-6.34%) (-1.32s)).
#[tokio::test(flavor = "multi_thread")]
async fn the_ratio_view_as_json() {
    let app = spawn_app().await;
    let dir = fixture("mmtests-oracle/cases/np01-realistic");
    let tar = std::fs::read(dir.join("work-log.tar.gz")).unwrap();
    let r = app
        .upload_multipart(&[("work-log.tar.gz", tar)], &[("machine", "m")])
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let base = "/api/v1/compare?benchmark=netperf-tcp&machine=m&kernels=6.1.0-vanilla,6.2.0-rc3-vanilla,6.2.0-rc3-sched";
    let (status, v) = app.get_json(&format!("{base}&ratio=1")).await;
    assert_eq!(status, 200, "{v}");
    let t = &v["ratios"][0];
    assert_eq!(t["direction"], "higher");
    let row = &t["rows"][0];
    assert_eq!(row["label"], "tcpstream-send-64");
    let cell = &row["cells"][1];
    assert_eq!(format!("{:.2}", cell["ratio"].as_f64().unwrap()), "0.94");
    assert_eq!(format!("{:.2}", cell["pct"].as_f64().unwrap()), "-6.34");
    assert_eq!(
        format!("{:+.2}", cell["normalised"].as_f64().unwrap()),
        "-1.32"
    );
    assert_eq!(format!("{:.2}", t["gmean"][1].as_f64().unwrap()), "0.96");
    let r = app
        .client
        .get(app.url(&format!("{base}&ratio=maybe")))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "ratio must be 1 or 0").await;
}
