// SPDX-License-Identifier: GPL-3.0-or-later
//! One step told once: an LKP key's regression found, confirmed by a robot's reruns
//! (`perfline work`), bisected by `perfline bisect run`: every place that quotes the step
//! quotes the same figure and the same name, the alert's timeline names each event, and the
//! alert links its bisection.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::alerts::{app_with_receivers, body_of, header, settle, summaries};
use crate::bisect::{world, BENCH};
use crate::client::{perfline, stderr};
use crate::helpers::*;

const KEY: &str = "netperf.Throughput_Mbps";

/// Three runs of commit `i` at `level`, the metric named as LKP names it.
async fn upload(app: &TestApp, i: usize, sha: &str, level: f64) {
    let mut csv = String::from("kernel,commit,metric,iteration,value\n");
    for run in 0..3 {
        for it in 1..=5 {
            let noise = (((i * 31 + run * 7 + it * 3) % 11) as f64 - 5.0) * level / 2500.0;
            csv.push_str(&format!(
                "v6.{i}-{run},{sha},{KEY},{it},{}\n",
                level + noise
            ));
        }
    }
    let r = app
        .client
        .post(app.url("/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1"))
        .body(csv)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

async fn the_summary(app: &TestApp) -> Value {
    let all = summaries(app, "status=all").await;
    assert_eq!(all.len(), 1, "{all:?}");
    let (_, s) = app
        .get_json(&format!("/api/v1/alerts/{}", all[0]["id"]))
        .await;
    s
}

#[tokio::test(flavor = "multi_thread")]
async fn one_step_has_one_figure_one_name_and_a_timeline_that_names_its_events() {
    let (app, smtp, _) = app_with_receivers().await;
    let root = tempfile::tempdir().unwrap();
    let culprit = 77;
    let shas = world(&app, root.path(), culprit).await;
    std::fs::write(
        root.path().join("bench.sh"),
        BENCH.replace("Throughput_Mbps", KEY),
    )
    .unwrap();
    for i in (0..128).step_by(8) {
        let level = if i < culprit { 2500.0 } else { 2345.0 };
        upload(&app, i, &shas[i], level).await;
    }
    settle(&app).await;
    assert_eq!(the_summary(&app).await["status"], "awaiting-confirmation");

    // A robot reruns the two commits; the step is confirmed.
    let work = perfline(
        &app.base,
        &[
            "work",
            "--machine",
            "lkp-bdw-de1",
            "--exec",
            "sh bench.sh {commit}",
            "--settle",
            "20",
        ],
        Some(root.path()),
    )
    .await;
    assert!(work.status.success(), "{}", stderr(&work));
    let deadline = Instant::now() + Duration::from_secs(30);
    let s = loop {
        let s = the_summary(&app).await;
        if s["status"] != "awaiting-confirmation" {
            break s;
        }
        assert!(Instant::now() < deadline, "{s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    settle(&app).await;
    assert_eq!(s["status"], "new", "{s}");
    let lead = &s["alerts"][0];
    assert_eq!(lead["metric"], KEY);
    let figure = format!("{:+.1}", lead["change_pct"].as_f64().unwrap());

    // The bisection, from the alert.
    let id = s["id"].to_string();
    let out = perfline(&app.base, &["bisect", "start", "--alert", &id], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = perfline(
        &app.base,
        &[
            "bisect",
            "run",
            "--bisection",
            "1",
            "--exec",
            "sh bench.sh {commit}",
        ],
        Some(root.path()),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    settle(&app).await;

    // The figure and the name, everywhere the step is quoted.
    let s = the_summary(&app).await;
    assert_eq!(
        format!("{:+.1}", s["alerts"][0]["change_pct"].as_f64().unwrap()),
        figure,
        "the bisection moved the alert, not its figure"
    );
    let confirmation = s["confirmation"].as_str().unwrap();
    assert!(
        confirmation.contains(&format!("the {figure} % step")),
        "{confirmation}"
    );
    assert!(!confirmation.contains("in the reruns"), "{confirmation}");
    let mails = super::culprit_mails(&smtp).await;
    for m in &mails {
        let subject = header(m, "Subject").unwrap();
        let body = body_of(m);
        assert!(
            !subject.contains("netperf.netperf") && !body.contains("netperf.netperf"),
            "{subject}\n{body}"
        );
        for line in body.lines().filter(|l| l.contains("noticed a ")) {
            assert!(
                line.contains(&format!("noticed a {figure}% regression of {KEY}")),
                "{line}\n{body}"
            );
        }
    }
    let first = mails
        .iter()
        .find(|m| !body_of(m).contains("Perfline bisected it"))
        .unwrap();
    assert!(header(first, "Subject")
        .unwrap()
        .contains(&format!("{KEY} {figure}% regression")));
    assert!(
        body_of(first).contains(&format!(
            "FYI, we noticed a {figure}% regression of {KEY} due to commit"
        )),
        "the report's headline: {}",
        body_of(first)
    );

    // The alert's page: each event named, the bisection linked.
    let (_, page) = app.get_text(&format!("/alerts?id={id}")).await;
    for what in [
        "found by the detector",
        "reruns asked for, to confirm it",
        "confirmed (new)",
        "bisected: moved to its first bad commit",
    ] {
        assert!(page.contains(what), "{what} is not on the page");
    }
    assert!(
        page.contains("href=\"/bisections/1\""),
        "the alert links its bisection"
    );
}
