// SPDX-License-Identifier: GPL-3.0-or-later
//! Security findings of the 2026-12-06 audit (issue 51): reads.
//!
//! Finding 6: after two uploads of 500 benchmarks × 400 metrics, one anonymous
//! `GET /api/v1/compare?benchmark=*` answered 270 MB and four at once took the server to
//! 8.6 GiB. A whole-tree report now holds at most `MAX_TREE_CELLS` cells (rows × columns) and
//! says, in every shape, what it left out and how to get it (the next page, `offset=`, or one
//! benchmark, `benchmark=`); it is rendered as heavy work. Anonymous compares make at most
//! `--max-anonymous-permalinks` permalinks (the oldest anonymous ones go first).

use std::process::Command;
use std::time::{Duration, Instant};

use perfline_server::http::auth::AuthMode;
use serde_json::Value;

use crate::helpers::*;

/// The cells (rows × compared kernels) one whole-tree report holds: docs/api.md's figure,
/// `services::compare::MAX_TREE_CELLS`.
const MAX_TREE_CELLS: usize = 20_000;

/// A generic CSV of `benchmarks` × `metrics`, one sample each (`bench-000,metric-000-...,v`):
/// the shape of the audit's uploads (500 × 400, 9.3 MB each), at any scale.
fn tree_csv(benchmarks: usize, metrics: usize, seed: u64) -> String {
    let mut csv = String::with_capacity(benchmarks * metrics * 48);
    csv.push_str("benchmark,metric,value\n");
    for b in 0..benchmarks {
        for m in 0..metrics {
            let v = 1000 + (b * 7919 + m * 104_729 + seed as usize * 31) % 9000;
            csv.push_str(&format!(
                "bench-{b:03},metric-{m:03}-of-a-benchmark,{v}.{seed}\n"
            ));
        }
    }
    csv
}

/// The cells of a whole-tree JSON answer's sections.
fn cells(answer: &Value) -> usize {
    answer["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .map(|s| {
            let c = &s["comparison"];
            c["rows"].as_array().map_or(0, Vec::len)
                * c["query"]["kernels"].as_array().map_or(0, Vec::len)
        })
        .sum()
}

fn names(answer: &Value) -> Vec<String> {
    answer["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .map(|s| s["benchmark"].as_str().unwrap().to_owned())
        .collect()
}

/// The path of a URL the server printed (`http://host:port/api/...` → `/api/...`).
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    &rest[rest.find('/').expect("a path")..]
}

/// A tree of more cells than one report holds: the first page holds at most
/// `MAX_TREE_CELLS`, and says in JSON, text and the HTML document which benchmarks it left
/// out and where the rest is; following `next` pages through every benchmark once.
/// On the code the audit read the answer held every cell and said nothing.
#[tokio::test]
async fn a_whole_tree_report_holds_at_most_its_cells_and_says_what_it_left_out() {
    let app = spawn_app_with(|c| c.auth = Some(AuthMode::Token)).await;
    let robot = token(&app, "robot", "upload").await;
    // 30 benchmarks × 500 metrics × 2 kernels: 30,000 cells, a page and a half.
    let (benchmarks, metrics) = (30, 500);
    for (kernel, seed) in [("6.1", 1), ("6.2", 2)] {
        let r = app
            .client
            .post(app.url(&format!("/api/v1/upload?machine=m1&kernel={kernel}")))
            .header("authorization", format!("Bearer {robot}"))
            .header("content-type", "text/csv")
            .body(tree_csv(benchmarks, metrics, seed))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    let tree = "/api/v1/compare?benchmark=*&machine=m1&kernels=6.1,6.2";

    // JSON: the first page, within the cap, and what it left out.
    let (status, first) = app.get_json(tree).await;
    assert_eq!(status, 200, "{first}");
    let shown = names(&first);
    assert!(!shown.is_empty());
    assert!(shown.len() < benchmarks, "{} sections", shown.len());
    assert!(cells(&first) <= MAX_TREE_CELLS, "{} cells", cells(&first));
    assert_eq!(
        first["page"]["max_cells"], MAX_TREE_CELLS,
        "{}",
        first["page"]
    );
    let more = &first["more"];
    let rest: Vec<&str> = more["benchmarks"]
        .as_array()
        .expect("more.benchmarks: what this page left out")
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    assert_eq!(shown.len() + rest.len(), benchmarks, "{more}");
    assert_eq!(rest[0], format!("bench-{:03}", shown.len()));
    let next = more["next"].as_str().expect("more.next: the next page");
    assert!(next.contains(&format!("offset={}", shown.len())), "{next}");
    assert!(next.contains("benchmark=*"), "{next}");

    // Following `next` reads every benchmark once, in order.
    let mut all = shown.clone();
    let mut next = Some(path_of(next).to_owned());
    while let Some(page) = next.take() {
        let (status, answer) = app.get_json(&page).await;
        assert_eq!(status, 200, "{page}: {answer}");
        assert!(cells(&answer) <= MAX_TREE_CELLS);
        all.extend(names(&answer));
        next = answer["more"]["next"]
            .as_str()
            .map(|u| path_of(u).to_owned());
    }
    let expected: Vec<String> = (0..benchmarks).map(|b| format!("bench-{b:03}")).collect();
    assert_eq!(all, expected);

    // Text: the same page, the same words under the permalinks.
    let (status, text) = app.get_text(&format!("{tree}&format=text")).await;
    assert_eq!(status, 200);
    let (_, tail) = text.split_once("\nPermalinks:\n").expect("the permalinks");
    assert!(tail.contains(&format!("{MAX_TREE_CELLS}")), "{tail}");
    assert!(tail.contains(&rest.join(", ")), "{tail}");
    assert!(tail.contains(&format!("offset={}", shown.len())), "{tail}");
    assert!(tail.contains("benchmark=NAME"), "{tail}");

    // The offline HTML document says it too.
    let (status, html) = app.get_text(&format!("{tree}&format=html")).await;
    assert_eq!(status, 200);
    assert!(
        html.contains(&rest.join(", ")),
        "the document names what it left out"
    );
    assert!(html.contains(&format!("offset={}", shown.len())));

    // `offset=` pages only a whole tree, and only within it.
    let r = app
        .client
        .get(app.url("/api/v1/compare?benchmark=bench-000&machine=m1&kernels=6.1,6.2&offset=1"))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "offset").await;
    let r = app
        .client
        .get(app.url(&format!("{tree}&offset={benchmarks}")))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "offset").await;
}

/// The audit's amplification through the real binary in token mode: two uploads of a tree
/// (125 benchmarks × 400 metrics × 2 kernels: the audit's 500 × 400 scaled down four times to
/// keep a debug build's test short; past the cap an answer no longer grows with the tree),
/// then four anonymous `benchmark=*` reports at once. The server's peak resident set while
/// they run stays under 512 MiB, and each answer is the capped page. On the code the audit
/// read, each answered every cell (about 65 MB) and the four peaked over 1 GiB.
#[tokio::test(flavor = "multi_thread")]
async fn four_anonymous_whole_tree_reports_at_once_stay_under_512_mib() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let minted = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .arg("--db")
        .arg(&db)
        .args(["token", "create", "--name", "robot", "--scope", "upload"])
        .output()
        .expect("perfline token create");
    assert!(minted.status.success(), "{minted:?}");
    let robot = String::from_utf8(minted.stdout).unwrap().trim().to_owned();
    let server = Perfline::start(&db, &["--auth", "token"]);
    let base = format!("http://{}", server.addr);
    let client = reqwest::Client::new();
    let (benchmarks, metrics) = (125, 400);
    for (kernel, seed) in [("6.1", 1), ("6.2", 2)] {
        let r = client
            .post(format!("{base}/api/v1/upload?machine=m1&kernel={kernel}"))
            .header("authorization", format!("Bearer {robot}"))
            .header("content-type", "text/csv")
            .body(tree_csv(benchmarks, metrics, seed))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    let after_uploads = server.status_kib("VmHWM");
    server.reset_peak();
    let rss_before = server.status_kib("VmRSS");

    let url = format!("{base}/api/v1/compare?benchmark=*&machine=m1&kernels=6.1,6.2");
    let started = Instant::now();
    let answers = futures_util::future::join_all((0..4).map(|_| {
        let (client, url) = (client.clone(), url.clone());
        async move {
            let t = Instant::now();
            let r = client
                .get(&url)
                .timeout(Duration::from_secs(300))
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let body = r.bytes().await.unwrap();
            (status, body, t.elapsed())
        }
    }))
    .await;
    let elapsed = started.elapsed();
    let peak = server.status_kib("VmHWM");
    for (status, body, took) in &answers {
        eprintln!(
            "benchmark=* answered {status}: {} bytes in {took:.2?}",
            body.len()
        );
    }
    eprintln!(
        "uploads peaked at {} MiB; four reports at once: {elapsed:.2?}, resident {} MiB before, peak {} MiB",
        after_uploads / 1024,
        rss_before / 1024,
        peak / 1024
    );
    for (status, body, _) in &answers {
        assert_eq!(
            *status,
            200,
            "{}",
            String::from_utf8_lossy(&body[..body.len().min(500)])
        );
        let answer: Value = serde_json::from_slice(body).unwrap();
        assert!(cells(&answer) <= MAX_TREE_CELLS, "{} cells", cells(&answer));
        assert!(
            answer["more"]["next"].is_string(),
            "the answer says where the rest is"
        );
    }
    assert!(
        peak < 512 * 1024,
        "four anonymous reports at once peaked at {} MiB",
        peak / 1024
    );
}

/// An anonymous compare made a permalink row per new question, without bound: every order
/// and subset of kernels is a new one. Now at most `--max-anonymous-permalinks` anonymous ones
/// are kept (the oldest go first); a token holder's are kept for ever, and asking for an
/// anonymous one with a token keeps it too.
#[tokio::test]
async fn anonymous_permalinks_are_bounded_and_a_token_holders_are_kept() {
    let cap = 4;
    let app = spawn_app_with(|c| {
        c.auth = Some(AuthMode::Token);
        c.max_anonymous_permalinks = cap as u32;
    })
    .await;
    let robot = token(&app, "robot", "upload").await;
    let reader = token(&app, "reader", "read").await;
    for kernel in ["6.1", "6.2", "6.3", "6.4"] {
        let r = app
            .client
            .post(app.url(&format!("/api/v1/upload?machine=m1&kernel={kernel}")))
            .header("authorization", format!("Bearer {robot}"))
            .header("content-type", "text/csv")
            .body(format!(
                "benchmark,metric,value\nb,tput,1{kernel}\nb,tput,2{kernel}\n"
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    let permalinks = |app: &TestApp| {
        let store = app.store.clone();
        async move {
            let counts = store.table_counts().await.unwrap();
            counts.iter().find(|(t, _)| t == "permalink").unwrap().1
        }
    };
    let compare =
        |kernels: &str| format!("/api/v1/compare?benchmark=b&machine=m1&kernels={kernels}");

    // A reader's permalink: kept for ever.
    let r = app
        .client
        .get(app.url(&compare("6.1,6.2,6.3")))
        .header("authorization", format!("Bearer {reader}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let kept: Value = r.json().await.unwrap();
    let kept = kept["permalink"].as_str().unwrap().to_owned();

    // Twelve anonymous questions, each a new permalink.
    let kernels = ["6.1", "6.2", "6.3", "6.4"];
    let mut questions = Vec::new();
    for a in kernels {
        for b in kernels {
            if a != b && questions.len() < 12 {
                questions.push(format!("{a},{b}"));
            }
        }
    }
    let mut anonymous = Vec::new();
    for q in &questions {
        let (status, answer) = app.get_json(&compare(q)).await;
        assert_eq!(status, 200, "{answer}");
        let id = answer["permalink"]
            .as_str()
            .expect("a permalink")
            .to_owned();
        // Each answer's permalink answers at once.
        let (status, _) = app.get_json(&format!("/c/{id}?format=json")).await;
        assert_eq!(status, 200, "{id} right after it was made");
        anonymous.push(id);
        assert!(
            permalinks(&app).await <= cap as i64 + 1,
            "{} permalinks after {} anonymous questions (cap {cap}, and the reader's)",
            permalinks(&app).await,
            anonymous.len()
        );
    }
    // Asking again finds the same one (no new row).
    let before = permalinks(&app).await;
    let (_, again) = app.get_json(&compare(questions.last().unwrap())).await;
    assert_eq!(
        again["permalink"].as_str(),
        anonymous.last().map(String::as_str)
    );
    assert_eq!(permalinks(&app).await, before);

    // The newest anonymous ones and the reader's answer; the oldest anonymous ones are gone.
    for id in anonymous.iter().rev().take(cap) {
        let (status, _) = app.get_json(&format!("/c/{id}?format=json")).await;
        assert_eq!(status, 200, "recent anonymous permalink {id}");
    }
    let (status, _) = app.get_json(&format!("/c/{kept}?format=json")).await;
    assert_eq!(status, 200, "the reader's permalink");
    let (status, gone) = app
        .get_json(&format!("/c/{}?format=json", anonymous[0]))
        .await;
    assert_eq!(status, 404, "{gone}");

    // A token holder asking the question of a kept anonymous permalink keeps it for ever.
    let newest = anonymous.last().unwrap().clone();
    let r = app
        .client
        .get(app.url(&compare(questions.last().unwrap())))
        .header("authorization", format!("Bearer {reader}"))
        .send()
        .await
        .unwrap();
    let answer: Value = r.json().await.unwrap();
    assert_eq!(answer["permalink"].as_str(), Some(newest.as_str()));
    for q in questions.iter().take(cap + 1) {
        let (status, _) = app.get_json(&compare(q)).await;
        assert_eq!(status, 200);
    }
    let (status, _) = app.get_json(&format!("/c/{newest}?format=json")).await;
    assert_eq!(
        status, 200,
        "an anonymous permalink a token holder asked for is kept"
    );
}

/// Benchmarks too big for any page (over `MAX_TREE_CELLS` alone) each cost a whole
/// comparison to find out: one page computes at most two, names them, and ends; the next
/// page goes on after them (review of issue 51: a tree of many such was computed whole on
/// every anonymous page).
#[tokio::test]
async fn a_page_computes_few_benchmarks_too_big_for_it() {
    let app = spawn_app().await;
    let rows = MAX_TREE_CELLS / 2 + 1;
    for (kernel, seed) in [("6.1", 1), ("6.2", 2)] {
        let mut csv = String::from("benchmark,metric,value\n");
        for b in ["big-a", "big-b", "big-c"] {
            for m in 0..rows {
                csv.push_str(&format!("{b},m{m},{}\n", 100 + (m + seed) % 7));
            }
        }
        for m in 0..5 {
            csv.push_str(&format!("small,m{m},{}\n", 10 + m + seed));
        }
        let r = app
            .upload_raw(&format!("machine=m1&kernel={kernel}"), csv)
            .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    let tree = "/api/v1/compare?benchmark=*&machine=m1&kernels=6.1,6.2";
    let (status, first) = app.get_json(tree).await;
    assert_eq!(status, 200, "{first}");
    let left: Vec<&str> = first["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["big-a", "big-b"], "{}", first["left_out"]);
    assert!(names(&first).is_empty());
    assert_eq!(first["more"]["offset"], 2, "{}", first["more"]);
    let next = first["more"]["next"].as_str().unwrap();
    let (status, second) = app.get_json(path_of(next)).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["left_out"][0]["benchmark"], "big-c");
    assert_eq!(names(&second), ["small"]);
    assert!(second["more"].is_null(), "{}", second["more"]);
}
