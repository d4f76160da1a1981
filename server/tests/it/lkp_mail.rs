// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel test robot's real report mails (`tests/fixtures/lkp-mails/`, 20 mails of
//! 2019–2025 copied unchanged, with the manifest that says what each holds): every mail
//! decodes and parses to what its manifest says, and every detail section printed back from
//! its cells is the mail's own text, byte for byte, from its `commit:` block through its last
//! table row.

use perfline_server::ingest::lkp_mail::{self, Block};
use std::path::Path;

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lkp-mails")
}

fn manifest() -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(fixtures().join("manifest.json")).expect("manifest");
    let m: serde_json::Value = serde_json::from_str(&text).expect("manifest.json");
    m["mails"].as_array().expect("mails").clone()
}

#[test]
fn every_fixture_is_intact() {
    use sha2::Digest as _;
    for m in manifest() {
        let bytes = std::fs::read(fixtures().join(m["file"].as_str().unwrap())).unwrap();
        let sha = hex::encode(sha2::Sha256::digest(&bytes));
        assert_eq!(sha, m["sha256"].as_str().unwrap(), "{}", m["file"]);
    }
}

#[test]
fn every_mail_parses_to_what_its_manifest_says() {
    let mails = manifest();
    assert_eq!(mails.len(), 20);
    for m in mails {
        let file = m["file"].as_str().unwrap();
        let raw = std::fs::read(fixtures().join(file)).unwrap();
        let mail = lkp_mail::decode(&raw).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            mail.message_id
                .as_deref()
                .map(|id| format!("<{id}>"))
                .as_deref(),
            m["message_id"].as_str(),
            "{file}"
        );
        let r = lkp_mail::parse_report(&mail.body).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(r.kind.as_str(), m["kind"], "{file}");
        assert_eq!(r.kpi, m["kpi_metric"].as_str().unwrap(), "{file}");
        assert_eq!(r.change, m["kpi_change"].as_str().unwrap(), "{file}");
        assert_eq!(r.commit, m["commit_sha"].as_str().unwrap(), "{file}");
        assert_eq!(r.testcase, m["testcase"].as_str().unwrap(), "{file}");
        assert!(
            m["test_machine_line"]
                .as_str()
                .unwrap()
                .ends_with(&r.machine),
            "{file}"
        );
        assert_eq!(
            r.sections.len() as u64,
            m["n_detail_sections"].as_u64().unwrap(),
            "{file}"
        );
        assert_eq!(
            r.also.len(),
            m["additional_tests"].as_array().unwrap().len(),
            "{file}"
        );
        assert_eq!(
            r.notes,
            m["bracket_notes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect::<Vec<_>>(),
            "{file}"
        );
        let (mut perf, mut fail) = (0, 0);
        for s in &r.sections {
            for b in &s.blocks {
                match b {
                    Block::Perf(rows) => perf += rows.len(),
                    Block::Failure(rows) => fail += rows.len(),
                }
            }
        }
        assert_eq!(perf as u64, m["change_rows"].as_u64().unwrap(), "{file}");
        assert_eq!(
            fail as u64,
            m["reproduction_rows"].as_u64().unwrap(),
            "{file}"
        );
        let blocks: Vec<Vec<String>> = r
            .sections
            .iter()
            .map(|s| {
                s.commits
                    .iter()
                    .map(|c| match &c.subject {
                        Some(subject) => format!("{} (\"{subject}\")", c.id),
                        None => c.id.clone(),
                    })
                    .collect()
            })
            .collect();
        assert_eq!(serde_json::json!(blocks), m["commit_blocks"], "{file}");
    }
}

#[test]
fn every_section_prints_back_byte_for_byte() {
    let mut sections = 0;
    for m in manifest() {
        let file = m["file"].as_str().unwrap();
        let raw = std::fs::read(fixtures().join(file)).unwrap();
        let body = lkp_mail::decode(&raw).unwrap().body.replace("\r\n", "\n");
        let r = lkp_mail::parse_report(&body).unwrap();
        for (i, s) in r.sections.iter().enumerate() {
            let text = s.text();
            if !body.contains(&text) {
                // Show the first line that differs.
                let start = body.find("commit: \n").unwrap_or(0);
                let mine: Vec<&str> = text.lines().collect();
                let at = body
                    .match_indices("commit: \n")
                    .nth(i)
                    .map_or(start, |(k, _)| k);
                let theirs: Vec<&str> = body[at..].lines().take(mine.len()).collect();
                let k = mine
                    .iter()
                    .zip(&theirs)
                    .position(|(a, b)| a != b)
                    .unwrap_or(mine.len());
                panic!(
                    "{file} section {i}: line {k} differs:\n mine:   {:?}\n theirs: {:?}",
                    mine.get(k),
                    theirs.get(k)
                );
            }
            sections += 1;
        }
    }
    assert_eq!(sections, 46);
}

#[test]
fn what_is_not_a_report_is_refused_with_the_reason() {
    let e = lkp_mail::parse_report("Hello,\n\nthanks for the patch.\n").unwrap_err();
    assert!(e.contains("not an LKP performance report"), "{e}");
    // Bytes with no headers are a mail with an empty body, which is no report.
    let empty = lkp_mail::decode(b"").unwrap();
    assert!(lkp_mail::parse_report(&empty.body).is_err());
    // A table whose header is not lkp-tests' names its line.
    let raw =
        std::fs::read(fixtures().join("15-20240102-fileio-regression-6a3afb6ac6.eml")).unwrap();
    let body = lkp_mail::decode(&raw).unwrap().body;
    let bad = body.replacen("     %change  ", "     %chaNGE  ", 1);
    assert_ne!(bad, body);
    let e = lkp_mail::parse_report(&bad).unwrap_err();
    assert!(e.contains("not a table header"), "{e}");
}
