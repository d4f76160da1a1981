// SPDX-License-Identifier: GPL-3.0-or-later
//! The whole tree's page (`/compare?benchmark=*`, issue 54) over the tree of every mmtests
//! family: its summary and table of contents, coloured cells, charts, the saved copy that is
//! the same view, and the links to it from the upload's page and the dashboard.

use crate::big_tree::{archive, corpus, KERNELS};
use crate::helpers::*;

/// The page of the tree uploaded for `machine`.
fn page_path(machine: &str) -> String {
    format!(
        "/compare?machine={machine}&benchmark=*&kernels={}",
        KERNELS.join(",")
    )
}

/// Uploads the tree of every family (one iteration of each families' fixture) for `machine`:
/// the upload's id and how many benchmarks it stored runs of.
pub async fn upload_big_tree(app: &TestApp, machine: &str) -> (i64, usize) {
    let r = app
        .upload_multipart(
            &[("work-log.tar.gz", archive(&corpus(1)))],
            &[("machine", machine)],
        )
        .await;
    let status = r.status().as_u16();
    let answer: serde_json::Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{answer}");
    let stored: std::collections::BTreeSet<&str> = answer["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["benchmark"].as_str().unwrap())
        .collect();
    (answer["upload"]["id"].as_i64().unwrap(), stored.len())
}

/// The benchmarks' `<section id="b-NAME" class="tree-section">` elements of a page, in order:
/// from the id on.
fn sections(html: &str) -> Vec<&str> {
    html.split("<section id=\"")
        .filter(|s| s.starts_with("b-"))
        .map(|s| s.split_once("</section>").map_or(s, |(a, _)| a))
        .collect()
}

#[tokio::test]
async fn the_whole_tree_is_a_page_with_contents_colours_and_charts() {
    let app = spawn_app().await;
    let (upload, benchmarks) = upload_big_tree(&app, "big").await;
    assert!(benchmarks >= 60, "the corpus has {benchmarks} benchmarks");

    let (status, page) = app.get_text(&page_path("big")).await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.len() < 1_000_000,
        "the page of {benchmarks} benchmarks is {} bytes",
        page.len()
    );
    eprintln!("the page of {benchmarks} benchmarks: {} bytes", page.len());
    let shown = sections(&page);
    // Every benchmark the tree holds gets a section (or is named as left out).
    let left_out = page
        .split_once("id=\"tree-left-out\"")
        .map_or(0, |(_, rest)| {
            rest.split_once("</section>")
                .map_or(rest, |(a, _)| a)
                .matches("<li>")
                .count()
        });
    assert_eq!(shown.len() + left_out, benchmarks, "sections and left out");
    assert!(shown.len() >= 55, "{} sections", shown.len());
    // The summary is the table of contents: a row per section, linking to it.
    let toc = &page[page.find("id=\"tree-toc\"").expect("the table of contents")..];
    let toc = &toc[..toc.find("</table>").unwrap()];
    for s in &shown {
        let id = s.split_once('"').unwrap().0;
        assert!(
            toc.contains(&format!("href=\"#{id}\"")),
            "{id} in the contents"
        );
    }
    assert_eq!(toc.matches("<tr>").count(), shown.len() + 1, "a row each");
    // A verdict for each compared kernel, worded; the coverage cases' regressing kernel is
    // worse somewhere, and its marked cells are coloured.
    assert!(
        toc.contains("class=\"v-worse\""),
        "some benchmark got worse"
    );
    assert!(page.contains("worse in "), "the tally");
    assert!(
        page.contains("<td class=\"w"),
        "cells marked worse are coloured"
    );
    assert!(
        page.contains("<td class=\"b"),
        "cells marked better are coloured"
    );
    // mmtests' marks are in the cells as in its text.
    assert!(page.replace("<!>", "").contains("%*</td>"));
    // A chart per benchmark with something to draw: inline SVG, no script in it.
    let charts = page.matches("<figure class=\"tree-chart\"><svg").count();
    assert!(charts >= shown.len() / 2, "{charts} charts");
    assert!(page.contains("class=\"cw\""), "a significantly worse bar");
    // What was not uploaded is said.
    assert!(page.contains("id=\"tree-monitors\""));
    assert!(page.contains("Not shown: Perfline reads the benchmarks' logs"));

    // The saved file is the same view: the same sections, byte for byte but for the
    // origin of its links and the page's hydration markers (`<!>`); no script, nothing
    // loaded from elsewhere.
    let (status, saved) = app
        .get_text(&format!(
            "/api/v1/compare?machine=big&benchmark=*&kernels={}&format=html",
            KERNELS.join(",")
        ))
        .await;
    assert_eq!(status, 200);
    assert!(!saved.contains("<script"), "no script in the saved page");
    assert!(saved.contains("default-src 'none'"));
    assert!(
        saved.contains("--bg-better"),
        "the site's style sheet, inlined"
    );
    let origin = app.url("");
    let saved_sections: Vec<String> = sections(&saved)
        .into_iter()
        .map(|s| s.replace(&format!("href=\"{origin}/"), "href=\"/"))
        .collect();
    assert_eq!(saved_sections.len(), shown.len());
    for (saved, shown) in saved_sections.iter().zip(&shown) {
        assert_eq!(*saved, shown.replace("<!>", ""));
    }
    assert!(saved.len() < 1_000_000, "{} bytes", saved.len());

    // The upload's page links the tree's page.
    let (status, upload_page) = app.get_text(&format!("/uploads/{upload}")).await;
    assert_eq!(status, 200);
    let link = page_path("big").replace('&', "&amp;");
    let trees = &upload_page[upload_page
        .find("id=\"upload-trees\"")
        .expect("the upload's tree")..];
    assert!(trees.contains(&format!("href=\"{link}\"")), "{trees}");
    assert!(
        trees.contains(&format!("{benchmarks} benchmarks")),
        "{trees}"
    );
}

/// The dashboard keeps every machine's newest tree, however many uploads came after it.
#[tokio::test]
async fn every_machine_keeps_its_tree_on_the_dashboard() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    for i in 0..12 {
        app.upload_fixture(
            &format!("benchmark=hackbench-process-pipes&machine=robot-{i}"),
            "mmtests/hackbench-samples.csv",
        )
        .await;
    }
    let (status, page) = app.get_text("/").await;
    assert_eq!(status, 200);
    let trees = &page[page.find("id=\"trees\"").expect("the dashboard's trees")..];
    assert!(trees.contains("m1: 2 benchmarks"), "{trees}");
    assert!(
        trees.contains("href=\"/compare?machine=m1&amp;benchmark=*&amp;kernels="),
        "{trees}"
    );
}

/// Without kernels the page says what it needs; an unknown kernel is a 404 that says why.
#[tokio::test]
async fn a_tree_page_without_a_tree_says_why() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    let (status, page) = app.get_text("/compare?benchmark=*&machine=m1").await;
    assert_eq!(status, 200);
    assert!(page.contains("Name a machine and kernels"), "{page}");
    let (status, page) = app
        .get_text("/compare?benchmark=*&machine=m1&kernels=1.0,2.0")
        .await;
    assert_eq!(status, 404, "{page}");
    assert!(
        page.contains("no benchmark has runs of kernel 1.0"),
        "{page}"
    );
}
