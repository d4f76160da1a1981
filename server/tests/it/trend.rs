// SPDX-License-Identifier: GPL-3.0-or-later
//! Trends through the HTTP API: histories, marks, bisect logs, change points, ASCII and SVG.

use serde_json::{json, Value};

use crate::helpers::*;

/// A fake sha for commit number `i`.
pub(crate) fn sha(i: usize) -> String {
    format!(
        "{:016x}{:024x}",
        (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        i
    )
}

/// `git log --format='%H %ct %s'` of 30 commits: newest first, as git prints it. The subject of
/// commit 15 ends in BEL and ESC, which must never reach a terminal.
pub(crate) fn git_log() -> String {
    (0..30)
        .rev()
        .map(|i| {
            let tail = if i == 15 { "\u{7}\u{1b}" } else { "" };
            format!(
                "{} {} commit number {i}{tail}\n",
                sha(i),
                1_700_000_000 + i * 60
            )
        })
        .collect()
}

/// Runs at every third commit, uploaded out of order: throughput 2500 until commit 15, then
/// 2345 (−6.2%), three runs of five samples each. Kernel names carry no order.
pub(crate) fn runs_csv() -> String {
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for i in (0..30).step_by(3).rev() {
        let level = if i < 15 { 2500.0 } else { 2345.0 };
        for run in 0..3 {
            // One run per (kernel, commit): the run number goes into the kernel name.
            for it in 1..=5 {
                let noise = ((i * 31 + run * 7 + it * 3) % 11) as f64 - 5.0;
                csv.push_str(&format!(
                    "build-{run},{},Throughput_Mbps,{it},{}\n",
                    &sha(i)[..12],
                    level + noise
                ));
            }
        }
    }
    csv
}

pub(crate) async fn seeded() -> TestApp {
    let app = spawn_app().await;
    let r = app
        .client
        .post(app.url("/api/v1/commits?repo=linux&branch=master"))
        .body(git_log())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["commits"], 30);
    let r = app
        .upload_raw("benchmark=netperf&machine=lkp-bdw-de1", runs_csv())
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    app
}

pub(crate) const TREND: &str =
    "/api/v1/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps";

#[tokio::test(flavor = "multi_thread")]
async fn trend_follows_the_history_and_finds_the_step() {
    let app = seeded().await;
    let (status, t) = app.get_json(TREND).await;
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["order"], "history linux/master");
    let points = t["points"].as_array().unwrap();
    assert_eq!(
        points.len(),
        10,
        "one x per commit, its three runs together"
    );
    let positions: Vec<i64> = points
        .iter()
        .map(|p| p["position"].as_i64().unwrap())
        .collect();
    assert_eq!(positions, (0..30).step_by(3).collect::<Vec<i64>>());
    assert_eq!(points[0]["n"], 15);
    assert_eq!(points[0]["runs"].as_array().unwrap().len(), 3);
    assert_eq!(points[0]["subject"], "commit number 0");
    let cps = t["change_points"].as_array().unwrap();
    assert_eq!(cps.len(), 1, "{cps:?}");
    assert_eq!(
        cps[0]["x"], 5,
        "the first commit at the new level (commit 15)"
    );
    assert_eq!(cps[0]["verdict"], "regression");
    assert!((cps[0]["change_pct"].as_f64().unwrap() - -6.2).abs() < 0.1);
}

#[tokio::test(flavor = "multi_thread")]
async fn marks_come_from_uploads_the_api_and_bisect_logs() {
    let app = seeded().await;
    // A good run uploaded with mark=good at commit 0...
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    csv.push_str(&format!("marked,{},Throughput_Mbps,1,2501\n", sha(0)));
    let r = app
        .upload_raw("benchmark=netperf&machine=lkp-bdw-de1&mark=good", csv)
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let run_id = r.json::<Value>().await.unwrap()["runs"][0]["id"]
        .as_i64()
        .unwrap();
    let (_, t) = app.get_json(TREND).await;
    assert_eq!(t["points"][0]["mark"], "good");

    // ...marked bad through the API, then cleared.
    let post = |path: String, body: Value| {
        let app = &app;
        async move {
            app.client
                .post(app.url(&path))
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let r = post(
        format!("/api/v1/runs/{run_id}/mark"),
        json!({"mark": "bad"}),
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    let (_, t) = app.get_json(TREND).await;
    assert_eq!(t["points"][0]["mark"], "bad");
    let r = post(format!("/api/v1/runs/{run_id}/mark"), json!({"mark": null})).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_error(
        post(
            format!("/api/v1/runs/{run_id}/mark"),
            json!({"mark": "ugly"}),
        )
        .await,
        400,
        "mark must be",
    )
    .await;
    assert_error(
        post("/api/v1/runs/999/mark".into(), json!({"mark": "bad"})).await,
        404,
        "no run 999",
    )
    .await;

    // A bisect log marks commits; the first bad commit is flagged.
    let log = format!(
        "git bisect start\n# bad: [{b}] commit number 15\ngit bisect bad {b}\n# good: [{g}] commit number 12\ngit bisect good {g}\n# first bad commit: [{b}] commit number 15\n",
        b = sha(15),
        g = sha(12)
    );
    let r = app
        .client
        .post(app.url("/api/v1/bisect"))
        .body(log)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (_, t) = app.get_json(TREND).await;
    let at = |x: usize| &t["points"][x];
    assert_eq!(
        (at(4)["mark"].clone(), at(5)["mark"].clone()),
        (json!("good"), json!("bad"))
    );
    assert_eq!(at(5)["first_bad"], true);
    let (_, html) = app
        .get_text("/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps")
        .await;
    assert!(
        html.contains("class=\"point bad first-bad\""),
        "the first bad commit is highlighted on the page"
    );
    assert!(html.contains("(first bad commit)"));
    assert_eq!(at(0)["mark"], Value::Null);

    // The ASCII chart shows both kinds of samples and the legend, and lists the change point.
    let (status, _, text) = app.get_accept(TREND, "text/plain").await;
    assert_eq!(status, 200);
    assert!(
        text.starts_with(&format!("{}Throughput_Mbps\n", " ".repeat(32))),
        "{text}"
    );
    assert!(
        text.contains("[*] bisect-good sample\n[O] bisect-bad  sample\n"),
        "{text}"
    );
    assert!(text.contains('O') && text.contains('+'));
    let expected = format!("change point: regression at {}", sha(15));
    assert!(text.contains(&expected), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn trend_svg_escapes_user_text_and_control_characters_are_refused() {
    let app = spawn_app().await;
    let hostile = "<script>alert(1)</script>";
    let mut csv = String::from("kernel,metric,iteration,value\n");
    for (k, v) in [("6.1.0", 1.0), (hostile, 2.0)] {
        csv.push_str(&format!("{k},tput,1,{v}\n"));
    }
    let r = app.upload_raw("benchmark=b&machine=m", csv).await;
    assert_eq!(r.status().as_u16(), 201);
    let (status, content_type, svg) = app
        .get_accept(
            "/api/v1/trend?benchmark=b&machine=m&metric=tput&format=svg",
            "*/*",
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "image/svg+xml");
    assert!(
        svg.starts_with("<svg") && !svg.contains("<script>"),
        "escaped"
    );
    let (_, t) = app
        .get_json("/api/v1/trend?benchmark=b&machine=m&metric=tput")
        .await;
    assert_eq!(t["order"], "kernel version");

    let before = app.counts().await;
    let r = app
        .upload_raw(
            "benchmark=b&machine=m",
            "kernel,metric,iteration,value\n6.2\u{1}x,tput,1,3\n",
        )
        .await;
    assert_error(r, 422, "control character").await;
    assert_eq!(app.counts().await, before);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_history_and_trend_requests_say_what_is_wrong() {
    let app = spawn_app().await;
    let r = app
        .client
        .post(app.url("/api/v1/commits?repo=linux&branch=master"))
        .body(format!("{}\nnot-a-sha oops\n", sha(1)))
        .send()
        .await
        .unwrap();
    let body = assert_error(r, 422, "not a commit id").await;
    assert_eq!(body["error"]["line"], 2);
    let r = app
        .client
        .post(app.url("/api/v1/bisect"))
        .body("hello\n")
        .send()
        .await
        .unwrap();
    assert_error(r, 422, "git bisect log").await;
    for (path, status, needle) in [
        (
            "/api/v1/trend?benchmark=b&machine=m",
            400,
            "metric is required",
        ),
        (
            "/api/v1/trend?benchmark=b&machine=m&metric=x",
            404,
            "No runs of b on m.",
        ),
        (
            "/api/v1/trend?benchmark=b&machine=m&metric=x&width=5",
            400,
            "width",
        ),
        (
            "/api/v1/trend?benchmark=b&machine=m&metric=x&format=png",
            400,
            "format",
        ),
    ] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        assert_error(r, status, needle).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_regression_report_reads_like_the_robots_mail() {
    let app = seeded().await;
    let path = format!(
        "/api/v1/report?benchmark=netperf&machine=lkp-bdw-de1&base={}&bad={}",
        &sha(12)[..10],
        sha(15)
    );
    let (status, text) = app.get_text(&path).await;
    assert_eq!(status, 200, "{text}");
    assert!(
        text.starts_with("FYI, we noticed a -6.2% regression of netperf.Throughput_Mbps due to commit:\n\ncommit: "),
        "{text}"
    );
    assert!(
        text.contains(&format!("commit: {} (\"commit number 15\")", sha(15))),
        "{text}"
    );
    assert!(
        !text.contains(['\u{7}', '\u{1b}']),
        "control characters: {text:?}"
    );
    assert!(
        text.contains("         %stddev     %change         %stddev\n"),
        "{text}"
    );
    assert!(text.contains("-6.2%"), "{text}");
    assert!(
        text.contains("  Throughput_Mbps\n"),
        "the changed row: {text}"
    );
    assert!(
        text.contains(&format!("{}Throughput_Mbps\n", " ".repeat(32))),
        "its trend: {text}"
    );
    assert!(
        text.trim_end()
            .ends_with(&format!("Permalink: {}{path}", app.base)),
        "{text}"
    );

    let (status, _) = app
        .get_text("/api/v1/report?benchmark=netperf&machine=lkp-bdw-de1&base=zzz&bad=abcdef0")
        .await;
    assert_eq!(status, 400);
    let (status, _) = app
        .get_text("/api/v1/report?benchmark=netperf&machine=lkp-bdw-de1&base=1234567&bad=abcdef0")
        .await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_param_as_small_multiples() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    let (status, html) = app
        .get_text("/trend?benchmark=netperf-tcp&machine=m1&metric=tcpstream-send&param=*")
        .await;
    assert_eq!(status, 200);
    let params: Vec<&str> = html
        .split("<figure data-param=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect();
    assert_eq!(
        params,
        ["64", "256", "1024", "4096", "16384"],
        "one chart per param"
    );
    assert!(html.contains(
        "/trend?benchmark=netperf-tcp&amp;machine=m1&amp;metric=tcpstream-send&amp;param=64"
    ));
    let (status, one) = app
        .get_text("/trend?benchmark=netperf-tcp&machine=m1&metric=tcpstream-send&param=64")
        .await;
    assert_eq!(status, 200);
    assert!(
        one.contains("id=\"trend-svg\""),
        "a single param gets the full chart"
    );
    assert!(one.contains("ordered by kernel version"));
    // Or all of them on one chart, each param a series with its own points under the tooltips.
    let (status, overlay) = app
        .get_text("/trend?benchmark=netperf-tcp&machine=m1&metric=tcpstream-send&param=*&overlay=1")
        .await;
    assert_eq!(status, 200);
    assert!(overlay.contains("id=\"trend-overlay\"") && !overlay.contains("trend-multiples"));
    for param in ["64", "256", "1024", "4096", "16384"] {
        assert!(
            overlay.contains(&format!("tcpstream-send%20{param}")),
            "legend of {param}"
        );
    }
    assert!(overlay.contains("data-series=\"4\"") && !overlay.contains("data-series=\"5\""));
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_marks_and_commit_times_at_upload_are_refused() {
    let app = spawn_app().await;
    let before = app.counts().await;
    let csv = "kernel,metric,iteration,value\n6.1.0,tput,1,1\n";
    for (query, needle) in [
        (
            "benchmark=b&machine=m&mark=ugly",
            "mark must be good, bad or skip",
        ),
        (
            "benchmark=b&machine=m&commit_time=yesterday",
            "commit_time must be seconds",
        ),
    ] {
        let body = assert_error(app.upload_raw(query, csv).await, 422, needle).await;
        assert!(body["error"]["field"].is_string(), "{body}");
    }
    assert_eq!(app.counts().await, before, "nothing stored");
    let r = app
        .upload_raw(
            "benchmark=b&machine=m&mark=skip&commit_time=1700000000&commit=abcdef0123",
            csv,
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let (_, t) = app
        .get_json("/api/v1/trend?benchmark=b&machine=m&metric=tput")
        .await;
    assert_eq!(t["points"][0]["mark"], "skip");
    assert_eq!(t["points"][0]["time"], 1700000000);
    assert_eq!(t["order"], "commit time");
}

/// `machines=` puts several machines on one commit axis, `params=` several params: a JSON array
/// of trends or one SVG chart; ASCII and contradictory or oversized asks are refused.
#[tokio::test(flavor = "multi_thread")]
async fn several_machines_or_params_share_one_chart() {
    let app = seeded().await;
    // A second machine that ran other commits (every other one), at two message sizes.
    let mut csv = String::from("kernel,commit,metric,param,iteration,value\n");
    for i in (0..30).step_by(2) {
        for (param, v) in [("64", 900.0), ("1024", 5000.0)] {
            csv.push_str(&format!("k,{},Throughput_Mbps,{param},1,{v}\n", sha(i)));
        }
    }
    let r = app
        .upload_raw("benchmark=netperf&machine=lkp-skl-d01", csv)
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());

    let base = "/api/v1/trend?benchmark=netperf&metric=Throughput_Mbps";
    let (status, all) = app
        .get_json(&format!("{base}&machines=lkp-bdw-de1,lkp-skl-d01&param=64"))
        .await;
    assert_eq!(status, 404, "lkp-bdw-de1 has no param 64: {all}");
    let (status, all) = app
        .get_json(&format!("{base}&machines=lkp-bdw-de1, lkp-skl-d01"))
        .await;
    assert_eq!(status, 404, "lkp-skl-d01 has no run without a param: {all}");

    let (status, params) = app
        .get_json(&format!("{base}&machine=lkp-skl-d01&params=*"))
        .await;
    assert_eq!(status, 200, "{params}");
    let got: Vec<(&str, usize)> = params
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["query"]["param"].as_str().unwrap(),
                t["points"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(got, [("64", 15), ("1024", 15)], "in param order");

    let (status, content_type, svg) = app
        .get_accept(
            &format!("{base}&machine=lkp-skl-d01&params=64,1024&format=svg"),
            "*/*",
        )
        .await;
    assert_eq!((status, content_type.as_str()), (200, "image/svg+xml"));
    assert!(svg.contains("Throughput_Mbps 64") && svg.contains("Throughput_Mbps 1024"));

    // Two machines: their own params, one axis.
    let r = app
        .upload_raw(
            "benchmark=netperf&machine=lkp-skl-d01",
            format!(
                "kernel,commit,metric,iteration,value\nk,{},Throughput_Mbps,1,2400\n",
                sha(1)
            ),
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let (status, both) = app
        .get_json(&format!("{base}&machines=lkp-bdw-de1,lkp-skl-d01"))
        .await;
    assert_eq!(status, 200, "{both}");
    let machines: Vec<&str> = both
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["query"]["machine"].as_str().unwrap())
        .collect();
    assert_eq!(machines, ["lkp-bdw-de1", "lkp-skl-d01"]);
    let (status, _, svg) = app
        .get_accept(
            &format!("{base}&machines=lkp-bdw-de1,lkp-skl-d01&format=svg"),
            "*/*",
        )
        .await;
    assert_eq!(status, 200);
    assert!(svg.contains("lkp-bdw-de1") && svg.contains("lkp-skl-d01"));

    for (query, needle) in [
        (
            "&machines=lkp-bdw-de1&format=text",
            "shows one trend: ask for one machine",
        ),
        ("&machines=lkp-bdw-de1&params=*", "not both"),
        ("&params=*", "machine is required"),
        (
            &format!(
                "&machines={}",
                (0..13)
                    .map(|i| format!("m{i}"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            "machines: names more than 12 machines; at most 12 are accepted",
        ),
    ] {
        let r = app
            .client
            .get(app.url(&format!("{base}{query}")))
            .send()
            .await
            .unwrap();
        assert_error(r, 400, needle).await;
    }
}

/// The trend page of a long history carries what its first view shows, not every commit: the
/// points the chart draws (LTTB to 1,500), the change points and the selected commit. The
/// page fetches any other commit when it is selected.
#[tokio::test(flavor = "multi_thread")]
async fn a_long_history_page_ships_only_what_its_first_view_shows() {
    let app = spawn_app().await;
    let n = 4000;
    let log: String = (0..n)
        .rev()
        .map(|i| format!("{} {} commit number {i}\n", sha(i), 1_700_000_000 + i * 60))
        .collect();
    let r = app
        .client
        .post(app.url("/api/v1/commits?repo=linux&branch=master"))
        .body(log)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for i in 0..n {
        let level = if i < 3000 { 1000.0 } else { 900.0 };
        for it in 1..=3 {
            let noise = ((i * 7 + it * 13) % 17) as f64 - 8.0;
            csv.push_str(&format!("k-{i},{},tput,{it},{}\n", sha(i), level + noise));
        }
    }
    let r = app.upload_raw("benchmark=b&machine=m1", csv).await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let (_, trend) = app
        .get_json("/api/v1/trend?benchmark=b&machine=m1&metric=tput")
        .await;
    let points = trend["points"].as_array().unwrap();
    assert_eq!(points.len(), n);

    let (status, html) = app
        .get_text("/trend?benchmark=b&machine=m1&metric=tput&param=")
        .await;
    assert_eq!(status, 200);
    let drawn: std::collections::HashSet<usize> = html
        .split("<circle ")
        .skip(1)
        .filter(|c| c[..c.find('>').unwrap()].contains("class=\"point "))
        .map(|c| {
            let x = &c[c.find("data-x=\"").unwrap() + 8..];
            x[..x.find('"').unwrap()].parse().unwrap()
        })
        .collect();
    assert_eq!(drawn.len(), 1500, "LTTB draws 1,500 of the {n} commits");
    // Besides those: the change points and the commits before them (the report's base).
    let mut shown = drawn.clone();
    for c in trend["change_points"].as_array().unwrap() {
        let x = c["x"].as_u64().unwrap() as usize;
        shown.extend([x, x - 1]);
    }
    assert!(shown.len() < 1510, "{} commits shown", shown.len());
    for (i, p) in points.iter().enumerate() {
        let sha = p["sha"].as_str().unwrap();
        assert_eq!(
            html.contains(sha),
            shown.contains(&i),
            "commit {i} ({sha}) in the page: {}",
            html.contains(sha)
        );
    }

    // Selecting a commit the chart does not draw fetches it, with its runs.
    let hidden = (0..n).find(|i| !shown.contains(i)).unwrap();
    let r = app
        .client
        .post(app.url("/sfn/trend_point"))
        .header("origin", &app.base)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "query[benchmark]=b&query[machine]=m1&query[metric]=tput&query[param]=&index={hidden}"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let point: Value = r.json().await.unwrap();
    assert_eq!(point["sha"], points[hidden]["sha"]);
    assert_eq!(point["runs"], points[hidden]["runs"]);
    assert_eq!(point["runs"].as_array().unwrap().len(), 1);
}

/// A trend of a metric the runs do not have answers a sentence naming the nearest one (a
/// robot's job has thousands of metrics; a typo must not mean reading them all).
#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_metric_is_answered_with_the_nearest_one() {
    let app = seeded().await;
    let r = app
        .client
        .get(app.url("/api/v1/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mpbs"))
        .send()
        .await
        .unwrap();
    assert_error(
        r,
        404,
        "No runs of netperf on lkp-bdw-de1 have a metric named Throughput_Mpbs; did you mean Throughput_Mbps?",
    )
    .await;
    let r = app
        .client
        .get(app.url("/api/v1/trend?benchmark=netperf&machine=nowhere&metric=Throughput_Mbps"))
        .send()
        .await
        .unwrap();
    assert_error(r, 404, "No runs of netperf on nowhere.").await;
}
