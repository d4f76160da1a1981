//! The breadth of mmtests: 22 `work/log` trees of 16 benchmarks beyond netperf and hackbench,
//! all five summary styles, each with what the real `compare-mmtests.pl` printed (see
//! `tests/fixtures/mmtests-coverage/README.md`). Each tree is uploaded as mmtests leaves it
//! (compressed members included); Perfline's text must be mmtests', byte for byte, except
//! Subselection's two bootstrap rows, which mmtests draws anew on every run.

use std::path::PathBuf;

use serde_json::Value;

use crate::helpers::*;

fn cases() -> Vec<(String, PathBuf)> {
    let dir = fixture("mmtests-coverage/cases");
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.json").exists())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    cases.sort();
    cases
}

/// The table above the permalink line.
fn table(text: &str) -> &str {
    text.rsplit_once("\nPermalink: ").map_or(text, |(t, _)| t)
}

/// Subselection's bootstrap rows (and the `*` they carry) are random in mmtests: leave
/// them out of both sides.
fn comparable(text: &str, summarise: &str) -> String {
    if summarise != "Subselection" {
        return text.to_owned();
    }
    text.lines()
        .filter(|l| !l.starts_with("SubAmean") && !l.starts_with("SubHmean"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[tokio::test]
async fn every_coverage_case_prints_what_mmtests_printed() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (case, dir) in cases() {
        let meta: Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        let benchmark = meta["benchmark"].as_str().unwrap();
        let summarise = meta["summarise"].as_str().unwrap();
        let kernels: Vec<&str> = meta["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        let tar = std::fs::read(dir.join("work-log.tar.gz")).unwrap();
        let r = app
            .upload_multipart(&[("work-log.tar.gz", tar)], &[("machine", &case)])
            .await;
        let status = r.status().as_u16();
        let answer: Value = r.json().await.unwrap();
        assert_eq!(status, 201, "{case}: {answer}");
        // Every directory was read, none left out.
        let dirs = answer["directories"].as_array().unwrap();
        assert!(!dirs.is_empty(), "{case}: {answer}");
        for d in dirs {
            assert!(d["samples"].as_u64().unwrap() > 0, "{case}: {d}");
        }
        for (ratio, name) in [(false, "expected"), (true, "expected-ratio")] {
            if ratio && summarise == "Subselection" {
                continue; // the ratio of SubAmean: random in mmtests
            }
            let mut theirs =
                vec![std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap()];
            for i in 1..7 {
                if let Ok(v) = std::fs::read_to_string(dir.join(format!("{name}.variant-{i}.txt")))
                {
                    theirs.push(v);
                }
            }
            let path = format!(
                "/api/v1/compare?benchmark={benchmark}&machine={case}&kernels={}&format=text{}",
                kernels.join(","),
                if ratio { "&ratio=1" } else { "" }
            );
            let (status, text) = app.get_text(&path).await;
            assert_eq!(status, 200, "{case}: {text}");
            let ours = comparable(table(&text), summarise);
            checked += 1;
            if !theirs.iter().any(|t| comparable(t, summarise) == ours) {
                let t = comparable(&theirs[0], summarise);
                let first = ours.lines().zip(t.lines()).position(|(a, b)| a != b);
                wrong.push(format!(
                    "{case} ({name}): differs at line {first:?} of {}/{}\n  ours:    {:?}\n  mmtests: {:?}",
                    ours.lines().count(),
                    t.lines().count(),
                    first.and_then(|i| ours.lines().nth(i)),
                    first.and_then(|i| t.lines().nth(i)),
                ));
            }
        }
    }
    assert!(checked >= 38, "only {checked} tables checked");
    assert!(
        wrong.is_empty(),
        "{} of {checked} tables differ from mmtests:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// mmtests' own intermediate as an upload: each kernel's `parse-results` output with a header
/// naming a benchmark Perfline has no parser for, and how mmtests summarises it. The tables
/// are mmtests', as from the trees. (Only trees of one `iter-N` directory: the rows recorded
/// are iter-0's, and mmtests pools every iteration.)
#[tokio::test]
async fn parse_results_rows_of_an_unknown_family_compare_as_mmtests_does() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (case, dir) in cases() {
        let meta: Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        if meta["iterations"].as_u64() != Some(1) {
            continue;
        }
        let summarise = meta["summarise"].as_str().unwrap();
        let benchmark = format!("private-{}", meta["benchmark"].as_str().unwrap());
        let kernels: Vec<&str> = meta["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        for k in &kernels {
            let rows = std::fs::read_to_string(dir.join(format!("parsed-{k}.tsv"))).unwrap();
            let body = format!(
                "# mmtests-rows\n# benchmark: {benchmark}\n# kernel: {k}\n# summarise: {summarise}\n# preferred: {}\n# precision: {}\n{rows}",
                meta["preferred"].as_str().unwrap(),
                meta["decimal_places"].as_u64().unwrap_or(2),
            );
            let r = app
                .upload_raw(&format!("machine={case}"), body.into_bytes())
                .await;
            let status = r.status().as_u16();
            assert_eq!(status, 201, "{case} {k}: {}", r.text().await.unwrap());
        }
        for (ratio, name) in [(false, "expected"), (true, "expected-ratio")] {
            if ratio && summarise == "Subselection" {
                continue;
            }
            let theirs = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
            let path = format!(
                "/api/v1/compare?benchmark={benchmark}&machine={case}&kernels={}&format=text{}",
                kernels.join(","),
                if ratio { "&ratio=1" } else { "" }
            );
            let (status, text) = app.get_text(&path).await;
            assert_eq!(status, 200, "{case}: {text}");
            let ours = comparable(table(&text), summarise);
            let t = comparable(&theirs, summarise);
            checked += 1;
            if ours != t {
                let first = ours.lines().zip(t.lines()).position(|(a, b)| a != b);
                wrong.push(format!(
                    "{case} ({name}): differs at line {first:?} of {}/{}\n  ours:    {:?}\n  mmtests: {:?}",
                    ours.lines().count(),
                    t.lines().count(),
                    first.and_then(|i| ours.lines().nth(i)),
                    first.and_then(|i| t.lines().nth(i)),
                ));
            }
        }
    }
    assert!(checked >= 38, "only {checked} tables checked");
    assert!(
        wrong.is_empty(),
        "{} of {checked} tables differ from mmtests:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
