// SPDX-License-Identifier: GPL-3.0-or-later
//! The breadth of mmtests: 22 `work/log` trees of 16 benchmarks beyond netperf and hackbench,
//! all five summary styles, each with what the real `compare-mmtests.pl` printed (see
//! `crates/mmtests-parse/tests/fixtures/mmtests-coverage/README.md`). Each tree is uploaded as mmtests leaves it
//! (compressed members included); Perfline's text must be mmtests', byte for byte, except
//! Subselection's two bootstrap rows, which mmtests draws anew on every run.

use std::path::Path;

use serde_json::Value;

use crate::helpers::*;

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

/// Asks for the normal and the ratio table of `benchmark` on `machine` and checks each against
/// what mmtests printed for `case` (any recorded variant); what differs goes to `wrong`.
/// Returns how many tables were checked.
async fn check_tables(
    app: &TestApp,
    case: &str,
    dir: &Path,
    meta: &Value,
    benchmark: &str,
    machine: &str,
    wrong: &mut Vec<String>,
) -> usize {
    let summarise = meta["summarise"].as_str().unwrap();
    let kernels = case_kernels(meta);
    let mut checked = 0;
    for (ratio, name) in [(false, "expected"), (true, "expected-ratio")] {
        if ratio && summarise == "Subselection" {
            continue; // the ratio of SubAmean: random in mmtests
        }
        let mut theirs = vec![std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap()];
        for i in 1..7 {
            if let Ok(v) = std::fs::read_to_string(dir.join(format!("{name}.variant-{i}.txt"))) {
                theirs.push(v);
            }
        }
        let path = format!(
            "/api/v1/compare?benchmark={benchmark}&machine={machine}&kernels={}&format=text{}",
            kernels.join(","),
            if ratio { "&ratio=1" } else { "" }
        );
        let (status, text) = app.get_text(&path).await;
        assert_eq!(status, 200, "{case}: {text}");
        let ours = comparable(table(&text), summarise);
        checked += 1;
        if !theirs.iter().any(|t| comparable(t, summarise) == ours) {
            wrong.push(first_difference(
                &format!("{case} ({name})"),
                &ours,
                &comparable(&theirs[0], summarise),
            ));
        }
    }
    checked
}

#[tokio::test]
async fn every_coverage_case_prints_what_mmtests_printed() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (case, dir, meta) in oracle_cases_in(&crate_fixture("mmtests-parse", "mmtests-coverage")) {
        let benchmark = meta["benchmark"].as_str().unwrap();
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
        checked += check_tables(&app, &case, &dir, &meta, benchmark, &case, &mut wrong).await;
    }
    assert_eq!(checked, 43);
    assert_none_differ(&wrong, checked);
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
    for (case, dir, meta) in oracle_cases_in(&crate_fixture("mmtests-parse", "mmtests-coverage")) {
        if meta["iterations"].as_u64() != Some(1) {
            continue;
        }
        let summarise = meta["summarise"].as_str().unwrap();
        let benchmark = format!("private-{}", meta["benchmark"].as_str().unwrap());
        for k in meta["kernels"].as_array().unwrap() {
            let k = k.as_str().unwrap();
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
        checked += check_tables(&app, &case, &dir, &meta, &benchmark, &case, &mut wrong).await;
    }
    assert!(checked >= 38, "only {checked} tables checked");
    assert_none_differ(&wrong, checked);
}

/// A week of `config-*` runs in one tree: five benchmarks of three kernels, each kernel's
/// `tests-activity` saying the order they ran. `benchmark=*` gives compare-kernels.sh's
/// report: each benchmark's table under its name, in that order, each mmtests' own; and the
/// same as one offline HTML file and as JSON.
#[tokio::test]
async fn a_whole_tree_is_one_report_in_the_order_it_ran() {
    use std::io::Read;
    let order = [
        "schbench-numa-tail",
        "netperf-udp-rr",
        "ebizzy",
        "perfsyscall",
        "dbench-fsync",
    ];
    let kernels = [
        "6.12.0-vanilla",
        "6.13.0-rc3-vanilla",
        "6.13.0-rc3-sched-fix",
    ];
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    let mut benchmarks = Vec::new();
    for case in order {
        let dir = crate_fixture("mmtests-parse", "mmtests-coverage/cases").join(case);
        let meta: Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        benchmarks.push(meta["benchmark"].as_str().unwrap().to_owned());
        let bytes = std::fs::read(dir.join("work-log.tar.gz")).unwrap();
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            if !entry.header().entry_type().is_file() || path.ends_with("tests-activity") {
                continue;
            }
            let mut data = Vec::new();
            entry.read_to_end(&mut data).unwrap();
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, &path, &data[..]).unwrap();
        }
    }
    for k in kernels {
        let mut activity = String::from(
            "1736848800 run-mmtests: Start\n1736848801 run-mmtests: Iteration 1 start\n",
        );
        for (i, b) in benchmarks.iter().enumerate() {
            activity.push_str(&format!(
                "{} run-mmtests: test start :: {b} 0\n",
                1736848802 + i
            ));
        }
        activity.push_str("1736852401 run-mmtests: Iteration 1 end\n");
        let mut header = tar::Header::new_gnu();
        header.set_size(activity.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(
            &mut header,
            format!("{k}/iter-0/tests-activity"),
            activity.as_bytes(),
        )
        .unwrap();
    }
    let bytes = tar.into_inner().unwrap().finish().unwrap();
    let app = spawn_app().await;
    let r = app
        .upload_multipart(&[("work-log.tar.gz", bytes)], &[("machine", "week")])
        .await;
    let status = r.status().as_u16();
    let answer: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{answer}");
    assert_eq!(
        answer["directories"].as_array().unwrap().len(),
        15,
        "{answer}"
    );

    let path = format!(
        "/api/v1/compare?machine=week&benchmark=*&kernels={}&format=text",
        kernels.join(",")
    );
    let (status, text) = app.get_text(&path).await;
    assert_eq!(status, 200, "{text}");
    let mut expected = String::new();
    for (case, b) in order.iter().zip(&benchmarks) {
        let table = std::fs::read_to_string(
            crate_fixture("mmtests-parse", "mmtests-coverage/cases")
                .join(case)
                .join("expected.txt"),
        )
        .unwrap();
        expected.push_str(&format!("\n{b}\n{table}\n"));
    }
    let (report, links) = text.split_once("\nPermalinks:\n").unwrap();
    assert_eq!(report, expected);
    assert_eq!(links.lines().count(), 5, "{links}");

    let (status, html) = app
        .get_text(&path.replace("format=text", "format=html"))
        .await;
    assert_eq!(status, 200);
    let positions: Vec<usize> = benchmarks
        .iter()
        .map(|b| {
            html.find(&format!("<h2>{b}</h2>"))
                .unwrap_or_else(|| panic!("{b} in {html}"))
        })
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");

    let (status, json) = app
        .get_text(&path.replace("format=text", "format=json"))
        .await;
    assert_eq!(status, 200);
    let json: Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = json["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(names, benchmarks);

    // The dashboard lists the tree's benchmarks together, linking to the report of them all.
    let (status, page) = app.get_text("/").await;
    assert_eq!(status, 200);
    let trees = &page[page.find("id=\"trees\"").expect("the dashboard's trees")..];
    assert!(trees.contains("week: 5 benchmarks"), "{trees}");
    // Kernels in version order, the oldest the baseline.
    assert!(
        trees.contains("/compare?machine=week&amp;benchmark=*&amp;kernels=6.12.0-vanilla,6.13.0-rc3-sched-fix,6.13.0-rc3-vanilla\""),
        "{trees}"
    );
    assert!(trees.contains(&benchmarks.join(", ")), "{trees}");

    // A kernel the machine never ran: nothing to compare.
    let (status, body) = app
        .get_text("/api/v1/compare?machine=week&benchmark=*&kernels=1.0,6.12.0-vanilla&format=text")
        .await;
    assert_eq!(status, 404, "{body}");
}

/// A dbench tree as a user's disk left it: one kernel's `benchlog-tput-1.xz` (which dbench's
/// parser reads) and every `dbench-N.log.xz` (which it never reads) broken. The upload is
/// stored with the kernels that read; the answer names the broken log of the one that did
/// not; the unread logs change nothing.
#[tokio::test]
async fn a_broken_log_leaves_out_its_directory_and_an_unread_one_nothing() {
    use std::io::Read as _;
    let path = crate_fixture(
        "mmtests-parse",
        "mmtests-coverage/cases/dbench-async/work-log.tar.gz",
    );
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    let mut archive = tar::Archive::new(&raw[..]);
    let mut out = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    let broken = "6.6.0-vanilla/iter-0/dbench/logs/benchlog-tput-1.xz";
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().to_string_lossy().into_owned();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        if name == broken || (name.contains("/dbench-") && name.ends_with(".log.xz")) {
            data = b"this is not xz".to_vec();
        }
        let mut header = entry.header().clone();
        header.set_size(data.len() as u64);
        header.set_cksum();
        out.append_data(&mut header, &name, &data[..]).unwrap();
    }
    let bytes = out.into_inner().unwrap().finish().unwrap();
    let app = spawn_app().await;
    let r = app
        .upload_multipart(&[("work-log.tar.gz", bytes)], &[("machine", "disk")])
        .await;
    let status = r.status().as_u16();
    let answer: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{answer}");
    for d in answer["directories"].as_array().unwrap() {
        if d["kernel"] == "6.6.0-vanilla" {
            assert_eq!(d["samples"], 0, "{d}");
            let problem = d["problem"].as_str().unwrap();
            assert!(
                problem.starts_with(&format!("{broken}: the xz member cannot be read")),
                "{problem}"
            );
        } else {
            assert!(d["samples"].as_u64().unwrap() > 0, "{d}");
            assert!(d["problem"].is_null(), "{d}");
        }
    }
    assert_eq!(
        answer["directories"].as_array().unwrap().len(),
        3,
        "{answer}"
    );
}

/// The numbers of one table line: every token that parses as a number once `(`, `)`, `%` and
/// a trailing `s` are stripped.
fn numbers(line: &str) -> (String, Vec<f64>) {
    let mut words = String::new();
    let mut nums = Vec::new();
    for token in line.split_whitespace() {
        let bare = token
            .trim_matches(|c| c == '(' || c == ')')
            .trim_end_matches(['%', 's']);
        match bare.parse::<f64>() {
            Ok(v) => nums.push(v),
            Err(_) => {
                words.push_str(token);
                words.push(' ');
            }
        }
    }
    (words, nums)
}

/// mmtests draws a Subselection family's SubAmean and its interval from an unseeded bootstrap
/// (`subselection-confidence-interval.py`), so its `--print-ratio` differs from run to run:
/// Perfline's table has mmtests' lines, and each number lies within the spread of mmtests'
/// recorded runs (widened by a tenth of the value, the bootstrap's own scatter): the ratios,
/// the normalised differences `(+0.90s)` and the Dmean/Dmin/Dmax rows of bonniepp.
#[tokio::test]
async fn subselection_ratio_tables_agree_with_mmtests_bootstrap() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let mut checked = 0;
    for (case, dir, meta) in oracle_cases_in(&crate_fixture("mmtests-parse", "mmtests-coverage")) {
        if meta["summarise"] != "Subselection" {
            continue;
        }
        let mut theirs = vec![std::fs::read_to_string(dir.join("expected-ratio.txt")).unwrap()];
        for i in 1..7 {
            if let Ok(v) =
                std::fs::read_to_string(dir.join(format!("expected-ratio.variant-{i}.txt")))
            {
                theirs.push(v);
            }
        }
        let tar = std::fs::read(dir.join("work-log.tar.gz")).unwrap();
        let r = app
            .upload_multipart(&[("work-log.tar.gz", tar)], &[("machine", &case)])
            .await;
        assert_eq!(r.status().as_u16(), 201, "{case}");
        let path = format!(
            "/api/v1/compare?benchmark={}&machine={case}&kernels={}&format=text&ratio=1",
            meta["benchmark"].as_str().unwrap(),
            case_kernels(&meta).join(",")
        );
        let (status, text) = app.get_text(&path).await;
        assert_eq!(status, 200, "{case}: {text}");
        let ours = table(&text);
        // Lines by their words (mmtests prints the operations in hash order).
        let by_words = |t: &str| -> std::collections::BTreeMap<String, Vec<f64>> {
            t.lines()
                .skip(2)
                .filter(|l| !l.trim().is_empty())
                .map(numbers)
                .collect()
        };
        let ours = by_words(ours);
        let runs: Vec<_> = theirs.iter().map(|t| by_words(t)).collect();
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            runs[0].keys().collect::<Vec<_>>(),
            "{case}: the same lines"
        );
        for (words, nums) in &ours {
            for (i, v) in nums.iter().enumerate() {
                let seen: Vec<f64> = runs.iter().map(|r| r[words][i]).collect();
                let lo = seen.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = seen.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let slack = (hi - lo).max(0.1 * lo.abs().max(hi.abs())).max(0.02);
                assert!(
                    *v >= lo - slack && *v <= hi + slack,
                    "{case}: `{words}` number {i} is {v}, mmtests printed {seen:?}\nours:\n{text}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "{checked} numbers checked");
}
