// SPDX-License-Identifier: GPL-3.0-or-later
//! Server-rendered pages, as a browser without JavaScript (or curl) receives them.

use crate::helpers::*;

#[tokio::test(flavor = "multi_thread")]
async fn dashboard_lists_benchmarks_machines_kernels_and_uploads() {
    let app = spawn_app().await;
    let (status, empty) = app.get_text("/").await;
    assert_eq!(status, 200);
    assert!(empty.contains("Nothing uploaded yet"));
    app.upload_raw(
        "machine=lkp-bdw-de1&kernel=4.16.0-rc1",
        read_fixture("generic/netperf-sweep.csv"),
    )
    .await;
    let (_, html) = app.get_text("/").await;
    for needle in [
        "netperf-tcp",
        "lkp-bdw-de1",
        "4.16.0-rc1",
        "href=\"/uploads/1\"",
        "href=\"/runs/1\"",
        &site_file(".js"),
        &site_file(".css"),
    ] {
        assert!(html.contains(needle), "dashboard should contain {needle}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_labels_are_rendered_as_text() {
    let app = spawn_app().await;
    let r = app
        .upload_multipart(
            &[("x.csv", read_fixture("generic/netperf-sweep.csv"))],
            &[
                ("machine", "<script>alert(1)</script>"),
                ("kernel", "6.1.0\"><img src=x>"),
            ],
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    for page in ["/", "/runs/1", "/uploads/1"] {
        let (status, html) = app.get_text(page).await;
        assert_eq!(status, 200, "{page}");
        assert!(
            !html.contains("<script>alert(1)"),
            "{page} must escape the machine name"
        );
        assert!(
            !html.contains("<img src=x>"),
            "{page} must escape the kernel name"
        );
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;")
                || html.contains("&lt;script>alert(1)&lt;/script>"),
            "{page} shows the name as text"
        );
    }
    // The forms are islands: the names are in their serialised props too, escaped there.
    for page in ["/compare", "/trend"] {
        let (status, html) = app.get_text(page).await;
        assert_eq!(status, 200, "{page}");
        assert!(html.contains("<leptos-island"), "{page} has no island");
        assert!(html.contains("data-props=\""), "{page} has no island props");
        assert!(!html.contains("<script>alert(1)"), "{page}: {html}");
        assert!(!html.contains("<img src=x>"), "{page}");
        assert!(html.contains("alert(1)"), "{page} offers the machine");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn run_upload_and_compare_pages() {
    let app = spawn_app().await;
    app.upload_hackbench_samples().await;
    let (status, run) = app.get_text("/runs/1").await;
    assert_eq!(status, 200);
    assert!(run.contains("Run #1: hackbench-process-pipes"));
    assert!(run.contains("5.4.0-vanilla"));
    let (_, upload) = app.get_text("/uploads/1").await;
    assert!(upload.contains("Stored 4 runs with 96 samples"));
    assert!(upload.contains("/api/v1/uploads/1/raw?file=0"));

    // mmtests' own tree knows hackbench is lower-is-better, so the table has Amean rows.
    app.upload_work_log().await;
    let (status, compare) = app.get_text("/compare?benchmark=hackbench-process-pipes&machine=m1&kernels=5.4.0-vanilla,5.5.0-vanilla").await;
    assert_eq!(status, 200);
    assert!(compare.contains("id=\"compare-table\""));
    // Amean time-1 of the two kernels, as mmtests printed them.
    assert!(
        compare.contains("0.0505") && compare.contains("0.0560"),
        "compare page shows the means"
    );

    // A page about something that is not there answers 404 (and says so).
    let (status, missing) = app.get_text("/runs/77").await;
    assert_eq!(status, 404);
    assert!(missing.contains("No such run"));
    let (status, missing) = app.get_text("/uploads/77").await;
    assert_eq!(status, 404);
    assert!(missing.contains("No such upload"));
    let (status, missing) = app.get_text("/c/nosuchlink00").await;
    assert_eq!(status, 404, "{missing}");
    assert!(missing.contains("no permalink"), "{missing}");
    let (status, missing) = app
        .get_text(
            "/compare?benchmark=hackbench-process-pipes&machine=m1&kernels=5.4.0-vanilla,9.9.9",
        )
        .await;
    assert_eq!(status, 404, "an unknown kernel: {missing}");
    let (status, _) = app.get_text("/no/such/page").await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_browser_form_upload_redirects_to_the_upload_page() {
    let app = spawn_app().await;
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(read_fixture("generic/netperf-sweep.csv"))
                .file_name("s.csv"),
        )
        .text("machine", "m1")
        .text("kernel", "6.1.0")
        .text("benchmark", "")
        .text("format", "auto");
    let r = app
        .client
        .post(app.url("/api/v1/upload"))
        .header("accept", "text/html,application/xhtml+xml")
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(r.headers()["location"], "/uploads/1");

    let bad = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"metric,value\nm,<b>x</b>\n".to_vec())
                .file_name("s.csv"),
        )
        .text("benchmark", "b")
        .text("machine", "m1")
        .text("kernel", "6.1.0");
    let r = app
        .client
        .post(app.url("/api/v1/upload"))
        .header("accept", "text/html")
        .multipart(bad)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 422);
    let html = r.text().await.unwrap();
    assert!(html.contains("Upload refused"));
    assert!(
        html.contains("&lt;b&gt;x&lt;/b&gt;"),
        "the message is escaped: {html}"
    );
}
