// SPDX-License-Identifier: GPL-3.0-or-later
//! The compare page of two LKP jobs is LKP-shaped: lkp-tests' `%stddev %change %stddev`
//! table as HTML (every changed row with the numbers of lkp-tests' own text, over all ten
//! oracle cases, page after page), KPIs first, the toggle to every key, the job's
//! parameters and the robot's headline, and the commit picker answering with subjects.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::helpers::*;

/// The oracle cases: (name, dir, testcase, machine, [base, head]).
fn cases() -> Vec<(String, PathBuf, String, String, [String; 2])> {
    oracle_cases_in(&crate_fixture("lkp", "lkp-oracle"))
        .into_iter()
        .map(|(name, dir, _)| {
            let meta: Value =
                serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
            let s = |k: &str| meta[k].as_str().unwrap().to_owned();
            let c = |i: usize| meta["commits"][i].as_str().unwrap().to_owned();
            let machine = format!("{}-{name}", s("machine"));
            (name, dir, s("testcase"), machine, [c(0), c(1)])
        })
        .collect()
}

/// Uploads a case's runs as a robot does (each `stats.json` under its commit), with `tags`.
pub(crate) async fn upload_case(
    app: &TestApp,
    dir: &std::path::Path,
    testcase: &str,
    machine: &str,
    commits: &[String],
    tags: &str,
) {
    for commit in commits {
        let mut runs: Vec<(u64, PathBuf)> = std::fs::read_dir(dir.join("runs").join(commit))
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (p.file_name().unwrap().to_str().unwrap().parse().unwrap(), p)
            })
            .collect();
        runs.sort();
        for (_, run) in runs {
            let body = std::fs::read(run.join("stats.json")).unwrap();
            let r = app
                .upload_raw(
                    &format!(
                        "benchmark={testcase}&machine={machine}&kernel=4.19.0-rc1\
                         &commit={commit}&format=lkp-stats{tags}"
                    ),
                    body,
                )
                .await;
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        }
    }
}

pub(crate) fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Text without its tags.
fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for ch in s.chars() {
        match ch {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    unescape(&out)
}

/// The page's table rows: each key with its five cells' words, in page order.
fn page_rows(html: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<tr data-key=\"") {
        rest = &rest[at..];
        let end = rest.find("</tr>").unwrap();
        let tr = &rest[..end];
        let key_at = tr.find("data-key=\"").unwrap() + "data-key=\"".len();
        let key = unescape(&tr[key_at..key_at + tr[key_at..].find('"').unwrap()]);
        let words: Vec<String> = tr
            .split("<td")
            .skip(1)
            .take(5)
            .flat_map(|td| {
                let inner = &td[td.find('>').unwrap() + 1..td.find("</td>").unwrap()];
                strip_tags(inner)
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        out.push((key, words));
        rest = &rest[end..];
    }
    out
}

/// lkp-tests' rows: each key with the words before it.
fn text_rows(text: &str) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    let mut in_rows = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("fail:runs") || t.starts_with("%stddev") {
            in_rows = true;
            continue;
        }
        if t.is_empty() || t.starts_with('|') || t.starts_with('\\') || t.starts_with("Permalink:")
        {
            if t.is_empty() || t.starts_with("Permalink:") {
                in_rows = false;
            }
            continue;
        }
        if in_rows {
            let mut words: Vec<String> = t.split_whitespace().map(str::to_owned).collect();
            let key = words.pop().unwrap();
            out.insert(key, words);
        }
    }
    out
}

/// Every page of a compare page's LKP table, following its "Next" links.
async fn all_pages(app: &TestApp, first: &str) -> (Vec<(String, Vec<String>)>, Vec<String>) {
    let mut rows = Vec::new();
    let mut pages = Vec::new();
    let mut url = first.to_owned();
    loop {
        let (status, html) = app.get_text(&url).await;
        assert_eq!(status, 200, "{url}: {html}");
        assert!(html.contains("id=\"lkp-table\""), "{url}: not LKP-shaped");
        assert!(html.len() < 1 << 20, "{url}: {} bytes", html.len());
        rows.extend(page_rows(&html));
        let next = html.find("class=\"rows-next\"").map(|i| {
            let start = html[..i].rfind("<a").unwrap();
            let tag = &html[start..i + html[i..].find('>').unwrap()];
            let from = tag.find("href=\"").unwrap() + "href=\"".len();
            unescape(&tag[from..from + tag[from..].find('"').unwrap()])
        });
        pages.push(html);
        match next {
            Some(n) => url = n,
            None => break,
        }
    }
    (rows, pages)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_lkp_page_table_is_lkp_tests_table_for_every_oracle_case() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let cases = cases();
    assert_eq!(cases.len(), 10);
    let mut checked = 0;
    for (case, dir, testcase, machine, commits) in &cases {
        upload_case(&app, dir, testcase, machine, commits, "").await;
        let q = format!(
            "benchmark={testcase}&machine={machine}&commits={},{}",
            commits[0], commits[1]
        );
        let (status, text) = app
            .get_text(&format!("/api/v1/compare?{q}&format=text&style=lkp"))
            .await;
        assert_eq!(status, 200, "{case}: {text}");
        let theirs = text_rows(&text);
        let (rows, pages) = all_pages(&app, &format!("/compare?{q}")).await;
        // The same rows, each with the same numbers as lkp-tests' text.
        assert_eq!(
            rows.len(),
            theirs.len(),
            "{case}: rows of the page and of the text"
        );
        for (key, words) in &rows {
            assert_eq!(Some(words), theirs.get(key), "{case}: row {key}");
            checked += 1;
        }
        // KPIs first: no KPI row after a row that is not one.
        let first_page = &pages[0];
        if let Some(kpi) = first_page.rfind("class=\"lkp-row kpi\"") {
            assert!(
                first_page[..kpi].matches("class=\"lkp-row\"").count() == 0,
                "{case}: a KPI row after other rows"
            );
        }
        if text.contains("fail:runs") {
            assert!(
                first_page.contains("%reproduction"),
                "{case}: the fail:runs header"
            );
            assert!(first_page.contains("class=\"lkp-row failure\""), "{case}");
        }
        if text.contains(" ±") {
            assert!(
                pages.iter().any(|p| p.contains("± ")),
                "{case}: the ± stddev cells"
            );
        }
    }
    assert!(checked > 400, "{checked} rows checked");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_lkp_page_shows_the_job_the_headline_the_toggle_and_picks_commits_by_subject() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let (_, dir, testcase, machine, commits) = cases().into_iter().next().unwrap();
    upload_case(
        &app,
        &dir,
        &testcase,
        &machine,
        &commits,
        "&tags=ip=ipv4,runtime=300s",
    )
    .await;
    // The commits' subjects, from a git log.
    let log = format!(
        "{} 1700000100 tcp: up initial rmem to 128KB\n{} 1700000000 hns3: Another build fix.\n",
        commits[1], commits[0]
    );
    let r = app
        .client
        .post(app.url("/api/v1/commits?repo=linux&branch=master"))
        .body(log)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let q = format!(
        "benchmark={testcase}&machine={machine}&commits={},{}",
        commits[0], commits[1]
    );
    let (status, html) = app.get_text(&format!("/compare?{q}")).await;
    assert_eq!(status, 200, "{html}");
    // The robot's headline, the commit with its subject, the parameters and axes.
    assert!(
        html.contains(
            "FYI, we noticed a -6.1% regression of netperf.Throughput_Mbps due to commit:"
        ),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            "{} (&quot;tcp: up initial rmem to 128KB&quot;)",
            &commits[1][..10]
        )) || html.contains(&format!(
            "{} (\"tcp: up initial rmem to 128KB\")",
            &commits[1][..10]
        )),
        "the head commit with its subject"
    );
    for p in ["ip: ipv4", "runtime: 300s"] {
        assert!(html.contains(p), "parameter {p}");
    }
    assert!(
        html.contains(&format!(
            "tbox_group/testcase/ip/runtime:\n  {machine}/netperf/ipv4/300s"
        )),
        "the axes"
    );
    assert!(html.contains("bin/lkp run job.yaml"), "the reproduce block");
    // Changed rows only, KPI first, with the toggle to every key.
    let changed = page_rows(&html);
    assert_eq!(changed.len(), 6);
    assert_eq!(changed[0].0, "netperf.Throughput_Mbps");
    assert!(html.contains("Show all "), "the toggle");
    let (_, all) = app.get_text(&format!("/compare?{q}&all=1")).await;
    let every = page_rows(&all);
    assert!(
        every.len() > changed.len(),
        "{} rows with all=1",
        every.len()
    );
    assert!(
        every.iter().any(|(k, _)| k == "netperf.time.elapsed_time"),
        "an unchanged key is shown with all=1"
    );
    assert!(all.contains("Show only the 6 changed rows"));
    // A trend per row, on demand: an SVG of the key's trend without script.
    let spark = all
        .split("<img loading=\"lazy\" src=\"")
        .nth(1)
        .map(|s| unescape(&s[..s.find('"').unwrap()]))
        .unwrap();
    assert!(spark.starts_with("/api/v1/trend?"), "{spark}");
    let (status, svg) = app.get_text(&spark).await;
    assert_eq!(status, 200, "{spark}: {svg}");
    assert!(svg.contains("<svg") && !svg.contains("<script"), "{svg}");
    // The mmtests statistics are a link away.
    let (_, stats) = app.get_text(&format!("/compare?{q}&view=mmtests")).await;
    assert!(stats.contains("id=\"compare-table\"") && !stats.contains("id=\"lkp-table\""));
    // The commit picker: a word of the subject finds the commit, with its subject.
    let r = app
        .client
        .post(app.url("/sfn/commit_matches"))
        .header("origin", &app.base)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "search[benchmark]={testcase}&search[machine]={machine}&search[text]=RMEM"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let found: Value = r.json().await.unwrap();
    assert_eq!(found["total"], 2, "{found}");
    assert_eq!(found["matching"], 1, "{found}");
    assert_eq!(found["matches"][0]["sha"], commits[1].as_str());
    assert_eq!(
        found["matches"][0]["subject"],
        "tcp: up initial rmem to 128KB"
    );
    // A picked pair arrives as `commits=A&commits=B`.
    let (_, picked) = app
        .get_text(&format!(
            "/compare?benchmark={testcase}&machine={machine}&commits={}&commits={}",
            commits[0], commits[1]
        ))
        .await;
    assert_eq!(page_rows(&picked).len(), 6);
    app.stop().await;
}
