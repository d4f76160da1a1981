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
            // The fuzz target's property (`fuzz/fuzz_targets/lkp_mail.rs`): a printed section
            // parses back to the same cells.
            let alone = format!(
                "we noticed a -1.0% regression of m due to commit:\ncommit: 0 (\"x\")\n\
                 testcase: t\ntest machine: m\n\n=====\n{}:\n  {}\n\n{}",
                s.axis_keys, s.axis_values, text
            );
            let again = lkp_mail::parse_report(&alone).unwrap();
            assert_eq!(again.sections[0].blocks, s.blocks, "{file} section {i}");
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

/// An mbox of the fixture mails `names`, in order.
fn mbox_of(names: &[&str]) -> Vec<u8> {
    let mut mbox = Vec::new();
    for name in names {
        mbox.extend_from_slice(b"From lkp@intel.com Mon Jan  1 00:00:00 2024\n");
        mbox.extend_from_slice(&mail_bytes(name));
        mbox.extend_from_slice(b"\n\n");
    }
    mbox
}

fn mail_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap()
}

/// The robot's mail posted as `curl --data-binary @mail.eml` is its reports; the same mail
/// again stores nothing new; the reports are found by commit, testcase and metric, and each
/// prints its table as the mail did.
#[tokio::test(flavor = "multi_thread")]
async fn a_mail_is_an_upload_of_its_reports() {
    use crate::helpers::{assert_error, spawn_app};
    let app = spawn_app().await;
    let name = "18-20250310-netperf-regression-01d37228d3.eml";
    let raw = mail_bytes(name);
    let r = app.upload_raw("", raw.clone()).await;
    assert_eq!(r.status().as_u16(), 201);
    let v: serde_json::Value = r.json().await.unwrap();
    let reports = v["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 7, "{v}");
    assert_eq!(v["new"], 7);
    let first = &reports[0];
    assert_eq!(first["message_id"], "202503101254.cfd454df-lkp@intel.com");
    assert_eq!(first["commit"], "01d37228d331047a0bbbd1026cec2ccabef6d88d");
    assert_eq!(first["base"], "8c57b687e8");
    assert_eq!(first["testcase"], "netperf");
    assert_eq!(first["machine"], "lkp-icl-2sp2");
    assert_eq!(first["kpi"], "netperf.Throughput_Mbps");
    assert_eq!(first["change"], "37.9%");
    assert_eq!(first["kind"], "regression");
    assert_eq!(reports[1]["testcase"], "stress-ng");
    assert_eq!(reports[1]["kpi"], "stress-ng.mmapfork.ops_per_sec");
    assert_eq!(reports[5]["kind"], "improvement");

    // The same mail again: 200, nothing new, the same ids.
    let again = app.upload_raw("format=lkp-mail", raw.clone()).await;
    assert_eq!(again.status().as_u16(), 200);
    let w: serde_json::Value = again.json().await.unwrap();
    assert_eq!(w["new"], 0);
    assert_eq!(w["reports"][0]["id"], first["id"]);

    let (status, by_commit) = app.get_json("/api/v1/reports?commit=01d37228d3").await;
    assert_eq!(status, 200);
    assert_eq!(by_commit["reports"].as_array().unwrap().len(), 7);
    let (_, by_base) = app.get_json("/api/v1/reports?commit=8c57b687e8").await;
    assert_eq!(by_base["reports"].as_array().unwrap().len(), 7);
    let (_, by_testcase) = app.get_json("/api/v1/reports?testcase=hackbench").await;
    assert_eq!(by_testcase["reports"].as_array().unwrap().len(), 1);
    let (_, by_metric) = app
        .get_json("/api/v1/reports?metric=netperf.Throughput_Mbps")
        .await;
    assert_eq!(
        by_metric["reports"].as_array().unwrap().len(),
        2,
        "{by_metric}"
    );
    let (_, none) = app.get_json("/api/v1/reports?commit=0000000").await;
    assert!(none["reports"].as_array().unwrap().is_empty());

    // Each section's text is the mail's, byte for byte, from the stored cells.
    let body = lkp_mail::decode(&raw).unwrap().body.replace("\r\n", "\n");
    let parsed = lkp_mail::parse_report(&body).unwrap();
    for (i, entry) in reports.iter().enumerate() {
        let id = entry["id"].as_i64().unwrap();
        let text = app
            .client
            .get(app.url(&format!("/api/v1/reports/{id}?format=text")))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(text, parsed.sections[i].text(), "section {i}");
        assert!(body.contains(&text), "section {i}");
    }
    let (status, one) = app
        .get_json(&format!("/api/v1/reports/{}", first["id"]))
        .await;
    assert_eq!(status, 200);
    assert_eq!(one["section"]["commits"][1]["id"], "01d37228d3");
    assert_eq!(one["parameters"][0], serde_json::json!(["ip", "ipv4"]));

    // Bad requests say what is wrong.
    let get = |path: &str| app.client.get(app.url(path)).send();
    assert_error(
        get("/api/v1/reports?commit=xyz").await.unwrap(),
        400,
        "hex digits",
    )
    .await;
    assert_error(get("/api/v1/reports?limit=0").await.unwrap(), 400, "limit").await;
    assert_error(
        get("/api/v1/reports/999999").await.unwrap(),
        404,
        "no report",
    )
    .await;
    assert_error(
        get(&format!("/api/v1/reports/{}?format=pdf", first["id"]))
            .await
            .unwrap(),
        400,
        "format",
    )
    .await;
}

/// A mail's ASCII plots are the bisection's samples as runs (issue 56, point 1): an upload of
/// `lkp-mail:TESTCASE` on the mail's machine, its run at the base marked bisect-good and its
/// run at the tested commit marked bisect-bad, each with a series per plotted metric at the section's
/// parameters; the trend shows them with their marks; the same mail twice stores no new run;
/// an uploader without the mark scope stores the reports and is told why not the runs.
#[tokio::test(flavor = "multi_thread")]
async fn the_plots_samples_are_runs_marked_good_and_bad() {
    use crate::helpers::{spawn_app_with, token};
    use perfline_server::http::auth::AuthMode;
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let name = "01-20190708-aim7-regression-490d451fa5.eml";
    let raw = mail_bytes(name);
    let body = lkp_mail::decode(&raw).unwrap().body;
    let report = lkp_mail::parse_report(&body).unwrap();
    let kpi = report
        .plots
        .iter()
        .find(|p| p.metric == "aim7.jobs-per-min")
        .expect("the headline's plot");
    let post = |token: String, bytes: Vec<u8>| {
        let r = app
            .client
            .post(app.url("/api/v1/upload"))
            .header("authorization", format!("Bearer {token}"))
            .body(bytes);
        async move { r.send().await.unwrap() }
    };

    // A robot that may upload but not mark: the reports, and a note.
    let robot = token(&app, "robot", "upload").await;
    let r = post(robot, raw.clone()).await;
    assert_eq!(r.status().as_u16(), 201);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["plot_uploads"], serde_json::json!([]), "{v}");
    let page = format!("/reports/{}", v["reports"][0]["id"]);
    let (status, html) = app.get_text(&page).await;
    assert_eq!(status, 200);
    assert!(
        html.contains(r#"id="report-plot-runs" class="muted">Not stored as runs"#),
        "{html}"
    );
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains("needs the mark scope"),
        "{v}"
    );

    // One that may: an upload of two runs, good at the base and bad at the tested commit.
    let bisector = token(&app, "bisector", "upload,mark").await;
    let r = post(bisector.clone(), raw.clone()).await;
    assert_eq!(r.status().as_u16(), 200, "the reports were stored before");
    let v: serde_json::Value = r.json().await.unwrap();
    let ids = v["plot_uploads"].as_array().unwrap();
    assert_eq!(ids.len(), 1, "{v}");
    let read = |path: String| {
        let r = app.client.get(app.url(&path)).send();
        async move {
            let r = r.await.unwrap();
            assert_eq!(r.status().as_u16(), 200);
            r.json::<serde_json::Value>().await.unwrap()
        }
    };
    let u = read(format!("/api/v1/uploads/{}", ids[0])).await;
    let runs = u["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{u}");
    let param = "compiler=gcc-7 cpufreq_governor=performance disk=4BRD_12G fs=xfs kconfig=x86_64-rhel-7.6 load=3000 md=RAID0 rootfs=debian-x86_64-2019-05-14.cgz test=disk_src ucode=0x200005e";
    // (the kernel, which is also the commit; the samples; whether they are the good ones)
    let sides = [
        ("494dba7b27", &kpi.good, true),
        ("490d451fa5188975c21246f7f8f4914cd3f2d6f2", &kpi.bad, false),
    ];
    for (run, (kernel, want, good)) in runs.iter().zip(sides) {
        assert_eq!(run["benchmark"], "lkp-mail:aim7");
        assert_eq!(run["machine"], "lkp-skl-2sp7");
        assert_eq!(run["uploaded_by"], "bisector");
        assert_eq!(
            (run["kernel"].as_str(), run["commit"].as_str()),
            (Some(kernel), Some(kernel))
        );
        let samples: usize = report
            .plots
            .iter()
            .map(|p| if good { p.good.len() } else { p.bad.len() })
            .sum();
        assert_eq!(run["samples"].as_u64().unwrap() as usize, samples, "{run}");
        let detail = read(format!("/api/v1/runs/{}", run["id"])).await;
        let series = detail["series"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["metric"] == "aim7.jobs-per-min")
            .unwrap_or_else(|| panic!("{detail}"));
        assert_eq!(series["param"], param);
        let values: Vec<f64> = series["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                s.as_f64()
                    .or_else(|| s[1].as_f64())
                    .or_else(|| s["value"].as_f64())
                    .unwrap()
            })
            .collect();
        assert_eq!(&values, want, "{series}");
    }

    // The trend: two commits, the base marked good and the tested one bad (in the order a
    // history posted to Perfline gives them; here, without one, the kernels' names').
    let (status, t) = app
        .get_json(&format!(
            "/api/v1/trend?benchmark=lkp-mail:aim7&machine=lkp-skl-2sp7&metric=aim7.jobs-per-min&param={}",
            param.replace(' ', "%20").replace('=', "%3D")
        ))
        .await;
    assert_eq!(status, 200, "{t}");
    let points = t["points"].as_array().unwrap();
    let at = |sha: &str| {
        points
            .iter()
            .find(|p| p["sha"] == sha)
            .unwrap_or_else(|| panic!("{sha}: {t}"))
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (base, head) = (
        at("494dba7b27"),
        at("490d451fa5188975c21246f7f8f4914cd3f2d6f2"),
    );
    assert_eq!(
        (points.len(), &base["mark"], &head["mark"]),
        (2, &"good".into(), &"bad".into())
    );
    assert!(
        (base["mean"].as_f64().unwrap() - mean(&kpi.good)).abs() < 1e-6,
        "{t}"
    );
    assert!(
        (head["mean"].as_f64().unwrap() - mean(&kpi.bad)).abs() < 1e-6,
        "{t}"
    );

    // The report's page links each plotted metric's trend; the lab's findings beside it
    // are the lab's: the runs read off the plots are not among them.
    let (_, html) = app.get_text(&page).await;
    let href = format!(
        "/trend?benchmark=lkp-mail%3Aaim7&amp;machine=lkp-skl-2sp7&amp;metric=aim7.jobs-per-min&amp;param={}",
        param.replace(' ', "%20").replace('=', "%3D")
    );
    assert!(html.contains(&href), "{href} not in {html}");
    let links = html
        .matches(r#"<a href="/trend?benchmark=lkp-mail%3Aaim7"#)
        .count();
    assert_eq!(links, report.plots.len(), "{html}");
    assert!(!html.contains("lab-runs"), "{html}");

    // The same mail again: the same uploads, no new run.
    let before = app.counts().await;
    let r = post(bisector, raw).await;
    assert_eq!(r.status().as_u16(), 200);
    let again: serde_json::Value = r.json().await.unwrap();
    assert_eq!(again["plot_uploads"], v["plot_uploads"]);
    assert_eq!(app.counts().await, before);
    app.stop().await;
}

/// An mbox of three mails, one of which is no report: the two reports are stored and the
/// third is refused with its reason; a pasted body (no headers) is a report of its own.
#[tokio::test(flavor = "multi_thread")]
async fn an_mbox_stores_what_parses_and_says_what_did_not() {
    use crate::helpers::{assert_error, spawn_app};
    let app = spawn_app().await;
    let mut mbox = mbox_of(&[
        "15-20240102-fileio-regression-6a3afb6ac6.eml",
        "13-20230906-adrestia-improvement-5484e31bbb.eml",
    ]);
    mbox.extend_from_slice(
        b"From someone@example.org Mon Jan  1 00:00:00 2024\nMessage-ID: <thanks@example.org>\nSubject: Re: thanks\n\nThanks for the report.\n",
    );
    let r = app.upload_raw("format=lkp-mail", mbox).await;
    assert_eq!(r.status().as_u16(), 201);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["reports"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["reports"][1]["kind"], "improvement");
    assert_eq!(v["reports"][1]["change"], "-33.3%");
    let refused = v["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0]["mail"], 2);
    assert_eq!(refused[0]["message_id"], "thanks@example.org");
    assert!(refused[0]["reason"]
        .as_str()
        .unwrap()
        .contains("not an LKP performance report"));

    // A body pasted without its headers.
    let raw = mail_bytes("14-20231122-aim7-regression-f6eccb4300.eml");
    let body = lkp_mail::decode(&raw).unwrap().body;
    let r = app.upload_raw("", body.clone()).await;
    assert_eq!(r.status().as_u16(), 201);
    let v: serde_json::Value = r.json().await.unwrap();
    assert!(v["reports"][0]["message_id"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    assert_eq!(v["reports"][0]["kpi"], "aim7.jobs-per-min");
    assert_eq!(app.upload_raw("", body).await.status().as_u16(), 200);

    // Nothing that is a report: 400 with the reasons.
    assert_error(
        app.upload_raw("format=lkp-mail", "Subject: hi\n\nhello\n")
            .await,
        400,
        "no LKP report",
    )
    .await;
}

/// `perfline upload mail.eml`, as a maintainer saves the robot's mail and sends it on.
#[tokio::test(flavor = "multi_thread")]
async fn perfline_upload_takes_a_mail_and_prints_its_reports() {
    use crate::client::{perfline, stderr, stdout};
    use crate::helpers::spawn_app;
    let app = spawn_app().await;
    let path = fixtures().join("12-20230116-fio-improvement-64ea9d6c5f.eml");
    let out = perfline(&app.base, &["upload", path.to_str().unwrap()], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("4 LKP report(s), 4 new\n"), "{text}");
    assert!(
        text.contains("126.2% improvement of fio.read_iops  fio-basic"),
        "{text}"
    );
    assert!(
        text.contains("https://lore.kernel.org/r/202301161451.44ad1124-yujie.liu@intel.com"),
        "{text}"
    );
}

/// Runs `perfline --db DB import-mail PATH`: its exit status and stderr.
fn import_mail(db: &Path, path: &Path) -> (bool, String) {
    import_mail_with(db, path, &[])
}

fn import_mail_with(db: &Path, path: &Path, flags: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perfline"))
        .arg("--db")
        .arg(db)
        .arg("import-mail")
        .arg(path)
        .args(flags)
        .output()
        .expect("perfline runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs git with `GIT_DIR`, `input` on stdin; its stdout, trimmed.
fn git(git_dir: &Path, args: &[&str], input: &[u8]) -> String {
    use std::io::Write as _;
    let mut child = std::process::Command::new("git")
        .env("GIT_DIR", git_dir)
        .env("GIT_AUTHOR_NAME", "a")
        .env("GIT_AUTHOR_EMAIL", "a@example.org")
        .env("GIT_COMMITTER_NAME", "a")
        .env("GIT_COMMITTER_EMAIL", "a@example.org")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// `perfline import-mail` over a directory of mails, an mbox and a public-inbox archive (one
/// mail per commit, as the file `m`): reports stored, other mails skipped, and a second run
/// adds nothing.
#[test]
fn import_mail_walks_an_archive_and_a_rerun_adds_only_what_is_new() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("perfline.db");
    // A directory: three reports and a mail that is none.
    let dir = tmp.path().join("maildir");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    for name in [
        "01-20190708-aim7-regression-490d451fa5.eml",
        "13-20230906-adrestia-improvement-5484e31bbb.eml",
    ] {
        std::fs::copy(fixtures().join(name), dir.join(name)).unwrap();
    }
    std::fs::copy(
        fixtures().join("03-20200324-will-it-scale-regression-06c4d00466.eml"),
        dir.join("sub/03.eml"),
    )
    .unwrap();
    std::fs::write(dir.join("sub/chat.eml"), "Subject: hello\n\nhi\n").unwrap();
    let (ok, err) = import_mail(&db, &dir);
    assert!(ok, "{err}");
    assert!(err.contains("4 mails in"), "{err}");
    assert!(err.contains("15 report sections stored, 15 new"), "{err}");
    // 01 and 03 carry plots: their samples are runs, good at the base and bad at the head.
    assert!(
        err.contains("2 uploads of plots' samples as runs, 2 new;"),
        "{err}"
    );
    assert!(err.contains("1 mails not performance reports"), "{err}");
    let (ok, err) = import_mail(&db, &dir);
    assert!(
        ok && err.contains("15 report sections stored, 0 new")
            && err.contains("2 uploads of plots' samples as runs, 0 new;"),
        "{err}"
    );

    // A public-inbox v2 archive: git/0.git, a commit per mail, each the file `m`.
    let epoch = tmp.path().join("inbox/git/0.git");
    std::fs::create_dir_all(&epoch).unwrap();
    git(&epoch, &["init", "--bare", "-q"], b"");
    let mut parent: Option<String> = None;
    for name in [
        "13-20230906-adrestia-improvement-5484e31bbb.eml",
        "15-20240102-fileio-regression-6a3afb6ac6.eml",
        "20-20250613-stress-ng-regression-8343cae362.eml",
    ] {
        let blob = git(&epoch, &["hash-object", "-w", "--stdin"], &mail_bytes(name));
        let tree = git(
            &epoch,
            &["mktree"],
            format!("100644 blob {blob}\tm\n").as_bytes(),
        );
        let mut args = vec!["commit-tree", tree.as_str(), "-m", name];
        if let Some(p) = &parent {
            args.extend(["-p", p.as_str()]);
        }
        let commit = git(&epoch, &args, b"");
        parent = Some(commit);
    }
    git(
        &epoch,
        &[
            "update-ref",
            "refs/heads/master",
            parent.as_deref().unwrap(),
        ],
        b"",
    );
    let (ok, err) = import_mail(&db, &tmp.path().join("inbox"));
    assert!(ok, "{err}");
    // adrestia was stored from the directory already.
    assert!(err.contains("3 mails in"), "{err}");
    assert!(err.contains("3 report sections stored, 2 new"), "{err}");

    // An mbox of the same mails: nothing new.
    let mbox = mbox_of(&[
        "15-20240102-fileio-regression-6a3afb6ac6.eml",
        "20-20250613-stress-ng-regression-8343cae362.eml",
    ]);
    let mbox_path = tmp.path().join("all.mbox");
    std::fs::write(&mbox_path, mbox).unwrap();
    let (ok, err) = import_mail(&db, &mbox_path);
    assert!(
        ok && err.contains("2 report sections stored, 0 new"),
        "{err}"
    );

    // `--no-plot-runs`: the reports only.
    let (ok, err) = import_mail_with(
        &tmp.path().join("reports-only.db"),
        &dir,
        &["--no-plot-runs"],
    );
    assert!(
        ok && err.contains("15 report sections stored, 15 new")
            && err.contains("0 uploads of plots' samples as runs, 0 new;"),
        "{err}"
    );

    let (ok, err) = import_mail(&db, &tmp.path().join("nowhere"));
    assert!(!ok && err.contains("nowhere"), "{err}");
}

/// The bytes of `s` within 40 of byte `at`, as text (a cut may split a `±`).
fn around(s: &str, at: usize) -> String {
    let b = s.as_bytes();
    String::from_utf8_lossy(&b[at.saturating_sub(40).min(b.len())..(at + 40).min(b.len())])
        .into_owned()
}

/// The text between the element `<tag id="id"...>` and its end.
fn element(html: &str, tag: &str, id: &str) -> String {
    let start = html
        .find(&format!("<{tag} id=\"{id}\""))
        .unwrap_or_else(|| panic!("no {tag}#{id}"));
    let body = start + html[start..].find('>').unwrap() + 1;
    let end = body + html[body..].find(&format!("</{tag}>")).unwrap();
    html[body..end].to_owned()
}

/// Issue 56, point 3: `/reports` lists the stored reports by testcase, KPI, metric, commit,
/// subsystem, machine and date, each linking its page, its commit's page and its mail on
/// lore; a report's page prints the mail's table byte for byte, the KPI over the robot's
/// reports, and what the robot said of the same commits; a commit's page lists every report
/// that named it.
#[tokio::test(flavor = "multi_thread")]
async fn the_reports_pages_search_link_and_reprint_the_mails() {
    use crate::helpers::spawn_app;
    use crate::lkp_compare::unescape;
    let app = spawn_app().await;
    let names: Vec<String> = manifest()
        .iter()
        .map(|m| m["file"].as_str().unwrap().to_owned())
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let r = app.upload_raw("", mbox_of(&refs)).await;
    assert_eq!(r.status().as_u16(), 201);
    let stored: serde_json::Value = r.json().await.unwrap();
    let all = stored["reports"].as_array().unwrap().len();
    assert!(all >= 20, "{all}");

    // Every report, newest mail first, in pages of `limit`.
    let (status, html) = app.get_text("/reports?limit=1000").await;
    assert_eq!(status, 200);
    assert_eq!(html.matches("class=\"report-row\"").count(), all);
    let first = html.find("8343cae362").unwrap();
    let last = html.find("490d451fa5").unwrap();
    assert!(first < last, "newest first");
    let (_, page) = app.get_text("/reports?limit=5").await;
    assert_eq!(page.matches("class=\"report-row\"").count(), 5);
    assert!(page.contains("offset=5"), "a link to the next page");

    // By subsystem, machine, commit, date, KPI and any metric.
    let (_, html) = app.get_text("/reports?subsystem=memcg").await;
    let rows = html.matches("class=\"report-row\"").count();
    assert_eq!(rows, 7, "the memcg mail's seven sections");
    assert!(html.contains("href=\"https://lore.kernel.org/r/202503101254.cfd454df-lkp@intel.com\""));
    let (_, html) = app
        .get_text("/reports?machine=lkp-icl-2sp2&commit=01d37228d3")
        .await;
    assert!(html.matches("class=\"report-row\"").count() >= 1);
    assert!(html.contains("href=\"/commits/01d37228d331047a0bbbd1026cec2ccabef6d88d\""));
    let (_, html) = app
        .get_text("/reports?since=2022-01-01&until=2022-12-31")
        .await;
    assert!(
        html.contains("1a61b300c0") && html.contains("345a4666a7"),
        "2022's mails"
    );
    assert!(!html.contains("8343cae362") && !html.contains("490d451fa5"));
    let (_, v) = app
        .get_json("/api/v1/reports?testcase=fsmark&kpi=fsmark.files_per_sec")
        .await;
    let fsmark = v["reports"].as_array().unwrap();
    let commits: Vec<&str> = fsmark
        .iter()
        .map(|r| r["commit"].as_str().unwrap())
        .collect();
    for c in ["f59743f788", "1a61b300c0", "38f83090f5"] {
        assert!(
            commits.iter().any(|x| x.starts_with(c)),
            "{c} in {commits:?}"
        );
    }
    assert!(fsmark
        .iter()
        .all(|r| r["kpi_head"].is_number() && r["kpi_base"].is_number()));
    let (status, v) = app.get_json("/api/v1/reports?since=yesterday").await;
    assert_eq!(status, 400, "{v}");

    // A report's page: the mail's table byte for byte, its lore link, its commits.
    let id = fsmark
        .iter()
        .find(|r| r["commit"].as_str().unwrap().starts_with("1a61b300c0"))
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let (status, html) = app.get_text(&format!("/reports/{id}")).await;
    assert_eq!(status, 200);
    let (_, text) = app
        .get_text(&format!("/api/v1/reports/{id}?format=text"))
        .await;
    // (Without the renderer's `<!>` markers, which a browser's text has not either.)
    let shown = unescape(&element(&html, "pre", "report-text").replace("<!>", ""));
    let at = shown
        .bytes()
        .zip(text.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(shown.len().min(text.len()));
    assert_eq!(
        shown.len(),
        text.len(),
        "the page's table differs at byte {at}: {:?} against {:?}",
        around(&shown, at),
        around(&text, at)
    );
    assert!(shown == text, "the page's table is the text's");
    let body = lkp_mail::decode(&mail_bytes("09-20220117-fsmark-regression-1a61b300c0.eml"))
        .unwrap()
        .body
        .replace("\r\n", "\n");
    assert!(body.contains(&text), "the page's table is the mail's");
    assert!(element(&html, "a", "report-lore").contains("on lore"));
    assert!(element(&html, "ul", "report-commits").contains("/commits/"));
    // Its KPI over the reports: the three fsmark.files_per_sec mails, oldest first.
    let trend = element(&html, "table", "report-trend-table");
    assert!(trend.matches("<tr").count() >= 4, "{trend}");
    let (a, b, c) = (
        trend.find("38f83090f5").unwrap(),
        trend.find("1a61b300c0").unwrap(),
        trend.find("f59743f788").unwrap(),
    );
    assert!(a < b && b < c, "newest row first in the table");
    assert!(html.contains("id=\"report-trend\""), "the chart");
    assert!(html.contains("class=\"trend-this\""), "this report ringed");

    // A mail of 2019: its plots' samples, on the page and in the JSON.
    let (_, v) = app.get_json("/api/v1/reports?commit=490d451fa5").await;
    let old = v["reports"][0]["id"].as_i64().unwrap();
    let (_, html) = app.get_text(&format!("/reports/{old}")).await;
    let samples = element(&html, "table", "report-samples");
    assert!(samples.contains("aim7.jobs-per-min"), "{samples}");
    let (_, v) = app.get_json(&format!("/api/v1/reports/{old}")).await;
    let plots = v["plots"].as_array().unwrap();
    assert!(plots.len() >= 3, "{v}");
    assert!(plots[0]["good"].as_array().unwrap().len() > 10);

    // A commit's page: every report that named it.
    let (status, html) = app
        .get_text("/commits/01d37228d331047a0bbbd1026cec2ccabef6d88d")
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        element(&html, "table", "commit-tested")
            .matches("class=\"report-row\"")
            .count(),
        7
    );
    // And each KPI the robot named there, over its testcase's reports.
    let trend = element(&html, "table", "commit-trend-0-table");
    assert!(trend.contains("01d37228d3"), "{trend}");
    assert!(html.contains("id=\"commit-trend-0\""));
    let (status, _) = app.get_text("/commits/not-a-commit").await;
    assert_eq!(status, 400);
    let (status, _) = app.get_text("/reports/999999").await;
    assert_eq!(status, 404);
}

/// Issue 56, point 4: where the lab's own LKP uploads meet a report (same testcase and
/// commits), the report's page shows them beside it, with the lab's own comparison.
#[tokio::test(flavor = "multi_thread")]
async fn the_labs_runs_stand_beside_the_robots_report() {
    use crate::helpers::spawn_app;
    let app = spawn_app().await;
    let r = app
        .upload_raw(
            "",
            mail_bytes("18-20250310-netperf-regression-01d37228d3.eml"),
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let v: serde_json::Value = r.json().await.unwrap();
    let id = v["reports"][0]["id"].as_i64().unwrap();
    let (_, html) = app.get_text(&format!("/reports/{id}")).await;
    assert!(html.contains("id=\"lab-none\""), "no lab runs yet");
    for (commit, mbps) in [("8c57b687e8", 5000.0), ("01d37228d3", 3100.0)] {
        for run in 0..3 {
            let r = app
                .client
                .post(app.url(&format!(
                    "/api/v1/upload?benchmark=netperf&machine=lkp-icl-2sp2&kernel=6.14.0-rc5\
                     &commit={commit}&format=lkp-stats"
                )))
                .body(format!(
                    r#"{{"netperf.Throughput_Mbps": {}, "netperf.workload": 1000}}"#,
                    mbps + f64::from(run)
                ))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        }
    }
    let (_, html) = app.get_text(&format!("/reports/{id}")).await;
    let runs = element(&html, "table", "lab-runs");
    assert!(
        runs.contains("8c57b687e8") && runs.contains("01d37228d3"),
        "{runs}"
    );
    let compare = element(&html, "a", "lab-compare");
    assert!(compare.contains("comparison"), "{compare}");
    let href = "/compare?benchmark=netperf&amp;machine=lkp-icl-2sp2&amp;commits=8c57b687e8,01d37228d331047a0bbbd1026cec2ccabef6d88d";
    assert!(html.contains(href), "the lab's comparison link");
    let (status, page) = app.get_text(&crate::lkp_compare::unescape(href)).await;
    assert_eq!(status, 200, "{page}");
    // The page's words, each tag a space.
    let mut words = String::new();
    let mut inside = false;
    for c in page.chars() {
        match c {
            '<' => inside = true,
            '>' => {
                inside = false;
                words.push(' ');
            }
            c if !inside => words.push(c),
            _ => {}
        }
    }
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("commit 01d37228d3 against 8c57b687e8"),
        "{words}"
    );
    assert!(words.contains("runs 3 against 3"), "{words}");
    // The lab's own finding, beside the robot's 37.9 %.
    assert!(
        words.contains("-38.0% regression of netperf.Throughput_Mbps"),
        "{words}"
    );
    let (_, html) = app.get_text("/commits/01d37228d3").await;
    assert!(element(&html, "table", "lab-runs").contains("netperf"));
}

/// Issue 56, point 1: the ASCII plots of the mails until 2021 are the bisection's samples:
/// every plot of the eight such fixtures is read, and the headline KPI's plot gives, from its
/// bisect-good and bad samples alone, the change the mail's table prints (within what reading
/// a value off a text row allows).
#[test]
fn the_plots_are_the_bisections_samples() {
    let mut checked = 0;
    for m in manifest() {
        let file = m["file"].as_str().unwrap();
        let raw = std::fs::read(fixtures().join(file)).unwrap();
        let body = lkp_mail::decode(&raw).unwrap().body;
        let report = lkp_mail::parse_report(&body).unwrap();
        let drawn = body.matches("[O] bisect-bad").count() > 0;
        assert_eq!(!report.plots.is_empty(), drawn, "{file}: plots read");
        if !drawn {
            continue;
        }
        // Frames: a y label, then `+-...-+`, mostly dashes, where a sample may be drawn over
        // any character (the box of other tests has no label).
        let frames = body
            .lines()
            .filter(|l| {
                let l = l.trim();
                let Some((label, line)) = l.split_once(' ') else {
                    return false;
                };
                let dashes = line.chars().filter(|c| *c == '-').count();
                label.parse::<f64>().is_ok()
                    && line.len() > 20
                    && dashes * 2 > line.len()
                    && line.chars().all(|c| matches!(c, '+' | '-' | 'O'))
            })
            .count();
        // A plot whose samples all lie on its frame's line shows no marker to read (05's
        // fio.latency_2ms_): at most one in ten.
        assert!(
            report.plots.len() * 2 <= frames && report.plots.len() * 20 >= frames * 9,
            "{file}: {} plots read of {}",
            report.plots.len(),
            frames / 2
        );
        for p in &report.plots {
            assert!(!p.metric.is_empty(), "{file}: a plot without its title");
            assert!(
                !p.good.is_empty() || !p.bad.is_empty(),
                "{file}: {}",
                p.metric
            );
        }
        let Some(kpi) = report.plots.iter().find(|p| p.metric == report.kpi) else {
            continue;
        };
        let printed: f64 = report.change.trim_end_matches('%').parse().unwrap();
        // 05's bad samples of fio.write_iops (-98.3%) all lie on the frame's bottom line.
        let Some(read) = kpi.change_pct() else {
            println!("{file}: no bad or no good sample of {} to read", kpi.metric);
            continue;
        };
        // Each sample is read within half a row, so each mean is: the change lies between
        // the changes of the means moved apart and moved together by that much (and the
        // table's means are rounded as printed: a point more).
        let (g, b, h) = (
            kpi.good_mean().unwrap(),
            kpi.bad_mean().unwrap(),
            kpi.row_step / 2.0,
        );
        let ends = [
            (b - h) / (g + h),
            (b + h) / (g + h),
            (b - h) / (g - h),
            (b + h) / (g - h),
        ]
        .map(|r| 100.0 * (r - 1.0));
        let lo = ends.iter().copied().fold(f64::INFINITY, f64::min) - 1.0;
        let hi = ends.iter().copied().fold(f64::NEG_INFINITY, f64::max) + 1.0;
        println!(
            "{file}: {} good {} bad samples of {}, {read:+.1}% read (between {lo:+.1}% and {hi:+.1}%) against {printed:+.1}% printed",
            kpi.good.len(),
            kpi.bad.len(),
            kpi.metric
        );
        assert!(
            g > h && (lo..=hi).contains(&printed),
            "{file}: {read:+.1}% read ({lo:+.1}..{hi:+.1}), {printed:+.1}% printed"
        );
        checked += 1;
    }
    assert!(checked >= 5, "{checked} headline plots checked");
}

/// Mails as they reach a list's archive after other hands: a reply quoting a report is
/// refused with that reason (storing it would count the report twice), and a body labelled
/// ISO-8859-1 whose bytes were converted to UTF-8 (`±` as two bytes) reads as the original.
#[test]
fn quoted_replies_are_refused_and_converted_bodies_read() {
    let raw = mail_bytes("08-20210731-unixbench-regression-4c40d6efc8.eml");
    let original = lkp_mail::parse_report(&lkp_mail::decode(&raw).unwrap().body).unwrap();
    assert!(
        String::from_utf8_lossy(&raw).contains("charset=iso-8859-1") && raw.contains(&0xb1),
        "the fixture's text is Latin-1 with a raw ±"
    );
    // The same mail converted to UTF-8, its text part's header left saying ISO-8859-1.
    let converted: String = raw.iter().map(|&b| char::from(b)).collect();
    let converted = converted.into_bytes();
    let mail = lkp_mail::decode(&converted).unwrap();
    assert!(mail.body.contains("±") && !mail.body.contains("Â±"));
    let report = lkp_mail::parse_report(&mail.body).unwrap();
    assert_eq!(report.sections, original.sections);

    // A reply quoting the report, as a maintainer's mail client writes it.
    let quoted: String = lkp_mail::decode(&raw)
        .unwrap()
        .body
        .lines()
        .map(|l| format!("> {l}\n"))
        .collect();
    let reply = format!(
        "Message-ID: <reply@example.org>\nSubject: Re: [fsnotify] 4c40d6efc8: unixbench.score -3.3% regression\n\n\
         On Sat, Jul 31, 2021, kernel test robot wrote:\n{quoted}\nThanks, looking.\n"
    );
    let e = lkp_mail::parse_report(&lkp_mail::decode(reply.as_bytes()).unwrap().body).unwrap_err();
    assert!(e.contains("a reply that quotes a robot's report"), "{e}");
}
