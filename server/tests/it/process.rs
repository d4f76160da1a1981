// SPDX-License-Identifier: GPL-3.0-or-later
//! The `perfline` binary as a process: signals drain it, and `kill -9` in the middle of an
//! upload leaves a consistent database where the upload is all there or not at all.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use crate::helpers::Perfline;

/// The body of `GET url` as text.
async fn get_text(client: &reqwest::Client, url: &str) -> String {
    client.get(url).send().await.unwrap().text().await.unwrap()
}

/// The server asks the kernel for no transparent huge pages (`perfline_server::small_pages`,
/// first thing in `serve`): its freed memory given back and faulted in again 2 MiB at a time
/// cost most uploads of an mmtests tree a third of their time (BENCHMARKS.md).
#[tokio::test(flavor = "multi_thread")]
async fn the_server_runs_without_transparent_huge_pages() {
    let dir = tempfile::tempdir().unwrap();
    let p = Perfline::start(dir.path().join("p.db"), &[]);
    // Answered: `serve` is running.
    let client = reqwest::Client::new();
    get_text(&client, &format!("http://{}/healthz", p.addr)).await;
    let status = std::fs::read_to_string(format!("/proc/{}/status", p.child.id())).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("THP_enabled:"))
        .expect("Linux reports THP_enabled (since 5.0)");
    assert_eq!(line.split_whitespace().nth(1), Some("0"), "{line}");
}

/// SIGTERM and SIGINT: an in-flight upload finishes, a half-sent one is cut off at the
/// deadline, and the process exits 0.
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_and_sigint_drain_and_exit_0() {
    for signal in ["TERM", "INT"] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("p.db");
        let mut server = Perfline::start(&db, &["--shutdown-timeout", "2"]);
        // A client that never finishes its request.
        let mut stuck = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
        stuck
            .write_all(b"POST /api/v1/upload?machine=m&kernel=k HTTP/1.1\r\nhost: localhost\r\ncontent-length: 100\r\n\r\nbench")
            .await
            .unwrap();
        // An upload in flight when the signal comes: its body arrives over 600 ms.
        let url = format!("http://{}/api/v1/upload?machine=m1&kernel=6.1", server.addr);
        let body = futures_util::stream::iter(
            ["benchmark,metric,value\n", "b,tput,1\n", "b,tput,2\n"]
                .map(|c| Ok::<_, std::io::Error>(c.as_bytes().to_vec())),
        );
        use futures_util::StreamExt;
        let body = body.then(|c| async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            c
        });
        let upload = tokio::spawn(
            reqwest::Client::new()
                .post(url)
                .body(reqwest::Body::wrap_stream(body))
                .send(),
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
        let started = Instant::now();
        server.signal(signal);
        let answer = upload
            .await
            .unwrap()
            .expect("the in-flight upload is answered");
        assert_eq!(answer.status().as_u16(), 201, "SIG{signal}");
        let code = server.wait(Duration::from_secs(6));
        assert_eq!(code, Ok(0), "SIG{signal}: exit code");
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(5),
            "SIG{signal}: exited after {took:?}"
        );
        drop(stuck);
        // Nothing of the cut-off request, all of the finished one.
        let mut db = crate::helpers::sqlx_connect(&db).await;
        let (samples,): (i64,) = sqlx::query_as("SELECT COALESCE(SUM(sample_count), 0) FROM run")
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(samples, 2);
    }
}

/// `kill -9` at random moments of a large upload: after a restart the database passes
/// `PRAGMA integrity_check`, and every upload is all there or not at all.
#[tokio::test(flavor = "multi_thread")]
async fn kill_9_during_an_upload_leaves_it_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    const SAMPLES: usize = 200_000;
    let mut csv = String::from("benchmark,metric,param,value\n");
    for i in 0..SAMPLES {
        csv.push_str(&format!("b,tput,{},{}.5\n", i % 100, i));
    }
    // Killed while the body arrives, while it is parsed, while it is written; the last
    // round waits for the answer first, so one upload is surely stored (and must be whole).
    let mut stored_before_kill = 0;
    for (round, delay_ms) in [
        Some(40u64),
        Some(150),
        Some(400),
        Some(800),
        Some(1500),
        None,
    ]
    .into_iter()
    .enumerate()
    {
        let mut server = Perfline::start(&db, &[]);
        let url = format!(
            "http://{}/api/v1/upload?machine=m1&kernel=round-{round}",
            server.addr
        );
        let body = csv.clone();
        let upload =
            tokio::spawn(async move { reqwest::Client::new().post(url).body(body).send().await });
        match delay_ms {
            Some(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
            None => {
                let answer = upload.await.unwrap().expect("answered");
                assert_eq!(answer.status().as_u16(), 201);
                stored_before_kill = 1;
                server.signal("KILL");
                assert_eq!(server.wait(Duration::from_secs(10)), Err(libc::SIGKILL));
                drop(server);
                check_all_or_nothing(&db, round, SAMPLES).await;
                continue;
            }
        }
        server.signal("KILL");
        assert_eq!(
            server.wait(Duration::from_secs(10)),
            Err(libc::SIGKILL),
            "killed"
        );
        let _ = upload.await;
        drop(server);
        check_all_or_nothing(&db, round, SAMPLES).await;
    }
    let mut conn = crate::helpers::sqlx_connect(&db).await;
    let (uploads,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM upload")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(
        uploads >= stored_before_kill,
        "the answered upload survived the kill"
    );
}

/// Restarts perfline on `db` (it must open, migrate and serve), stops it, and checks the
/// file: `integrity_check` ok, every upload whole, no orphan series.
async fn check_all_or_nothing(db: &Path, round: usize, samples_per_upload: usize) {
    {
        let mut restarted = Perfline::start(db, &[]);
        let health = reqwest::get(format!("http://{}/healthz", restarted.addr))
            .await
            .unwrap();
        assert_eq!(health.status().as_u16(), 200);
        restarted.signal("TERM");
        assert_eq!(restarted.wait(Duration::from_secs(10)), Ok(0));
    }
    {
        let mut conn = crate::helpers::sqlx_connect(db).await;
        let (check,): (String,) = sqlx::query_as("PRAGMA integrity_check")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(check, "ok");
        let per_upload: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT u.id, COALESCE(SUM(r.sample_count), 0) FROM upload u LEFT JOIN run r ON r.upload_id = u.id GROUP BY u.id",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap();
        eprintln!("round {round}: {} upload(s) stored", per_upload.len());
        for (id, samples) in per_upload {
            assert_eq!(
                samples as usize, samples_per_upload,
                "upload {id} is partial"
            );
        }
        let (orphans,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM run_data d LEFT JOIN run r ON r.id = d.run_id WHERE r.id IS NULL",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        assert_eq!(orphans, 0);
    }
}

/// `--log-format json`: one JSON object per line, the access line of a request carrying the
/// request id the client sent.
#[tokio::test(flavor = "multi_thread")]
async fn json_logs_carry_the_request_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--log",
            "info",
            "--log-format",
            "json",
            "--db",
        ])
        .arg(dir.path().join("j.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("perfline starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || {
        rx.recv_timeout(Duration::from_secs(20))
            .expect("a log line")
    };
    let addr = loop {
        let line = next();
        let v: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let message = v["fields"]["message"].as_str().unwrap_or("").to_owned();
        if let Some(rest) = message.split("listening on http://").nth(1) {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    let r = reqwest::Client::new()
        .get(format!("http://{addr}/api/v1/runs"))
        .header("x-request-id", "robot-42")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(
            Instant::now() < deadline,
            "no access line with the request id"
        );
        let line = next();
        let v: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if v["span"]["request_id"] == "robot-42" && v["fields"]["status"].as_u64() == Some(200) {
            assert_eq!(v["level"], "INFO");
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `--metrics-listen`: `/metrics` on its own address and not beside the API; and with
/// `--log perfline_server=debug` an upload's log shows its stages (request → parse → store) and
/// a comparison's (request → query → stats → render), each with its time.
#[tokio::test(flavor = "multi_thread")]
async fn metrics_on_their_own_listener_and_the_stages_of_a_request_in_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--log",
            "info,perfline_server=debug",
            "--log-format",
            "json",
            "--db",
        ])
        .arg(dir.path().join("m.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("perfline starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<serde_json::Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let v = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let next = || {
        rx.recv_timeout(Duration::from_secs(20))
            .expect("a log line")
    };
    let (mut api, mut metrics) = (None, None);
    while api.is_none() || metrics.is_none() {
        let v = next();
        let message = v["fields"]["message"].as_str().unwrap_or("").to_owned();
        if let Some(rest) = message.split("listening on http://").nth(1) {
            api = Some(rest.split_whitespace().next().unwrap().to_owned());
        }
        if let Some(rest) = message.split("metrics served at http://").nth(1) {
            metrics = Some(rest.trim_end_matches("/metrics").to_owned());
        }
    }
    let (api, metrics) = (api.unwrap(), metrics.unwrap());
    let client = reqwest::Client::new();
    let r = client
        .get(format!("http://{api}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status().as_u16(),
        404,
        "/metrics must not be beside the API"
    );
    let r = client
        .post(format!(
            "http://{api}/api/v1/upload?benchmark=netperf-tcp&machine=m1&kernel=6.1"
        ))
        .body(std::fs::read(crate::helpers::fixture("generic/netperf-sweep.csv")).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let r = client
        .post(format!(
            "http://{api}/api/v1/upload?benchmark=netperf-tcp&machine=m1&kernel=6.2"
        ))
        .body(std::fs::read(crate::helpers::fixture("generic/netperf-sweep.csv")).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let r = client
        .get(format!(
            "http://{api}/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels=6.1,6.2&format=text"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let text = client
        .get(format!("http://{metrics}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("perfline_uploads_total 2"), "{text}");

    // Every stage's "stage done" line, as the chain of span names it was logged in.
    let mut chains = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    let wanted = [
        "request/parse",
        "request/store",
        "request/query",
        "request/stats",
        "request/render",
    ];
    while !wanted
        .iter()
        .all(|w| chains.iter().any(|c: &String| c == w))
    {
        assert!(Instant::now() < deadline, "stages seen: {chains:?}");
        let v = next();
        if v["fields"]["message"] == "stage done" {
            assert!(v["fields"]["ms"].as_f64().is_some(), "{v}");
            let names: Vec<&str> = v["spans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["name"].as_str().unwrap())
                .collect();
            chains.push(names.join("/"));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `perfline backup` copies the database while the server serves it and uploads go on: the copy
/// is whole (integrity checked, every upload in it all there or not at all), a second server
/// on it answers a permalink with the same numbers, and an existing file is refused.
#[tokio::test(flavor = "multi_thread")]
async fn backup_while_serving_is_a_consistent_copy() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let server = Perfline::start(&db, &[]);
    let base = format!("http://{}", server.addr);
    let client = reqwest::Client::new();
    let csv = |i: usize| -> String {
        let mut s = String::from("kernel,metric,param,iteration,value\n");
        for k in 0..2 {
            for it in 1..=200 {
                s.push_str(&format!(
                    "6.{k}.0,tput,64,{it},{}\n",
                    1000 + i * 10 + k * 50 + it % 7
                ));
            }
        }
        s
    };
    let r = client
        .post(format!("{base}/api/v1/upload?benchmark=b&machine=m1"))
        .body(csv(0))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let compare = format!("{base}/api/v1/compare?benchmark=b&machine=m1&kernels=6.0.0,6.1.0");
    let live: serde_json::Value = client
        .get(&compare)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let permalink = live["permalink"].as_str().unwrap().to_owned();

    // Uploads keep coming while the backup runs.
    let writer = {
        let (client, base) = (client.clone(), base.clone());
        tokio::spawn(async move {
            for i in 1..40 {
                let r = client
                    .post(format!("{base}/api/v1/upload?benchmark=b&machine=m2"))
                    .body(csv(i))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status().as_u16(), 201);
            }
        })
    };
    let copy = dir.path().join("copy.db");
    let backup = {
        let db = db.clone();
        move |to: &Path| {
            Command::new(env!("CARGO_BIN_EXE_perfline"))
                .arg("--db")
                .arg(&db)
                .arg("backup")
                .arg(to)
                .output()
                .expect("perfline runs")
        }
    };
    let out = tokio::task::spawn_blocking({
        let backup = backup.clone();
        let copy = copy.clone();
        move || backup(&copy)
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("backed up") && stderr.contains(" run"),
        "{stderr}"
    );
    writer.await.unwrap();
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("copy.db"))
        .collect();
    assert_eq!(
        leftovers,
        ["copy.db"],
        "only the copy, no partial file or WAL"
    );

    // Every upload in the copy is whole: two runs of 200 samples each.
    let mut conn = crate::helpers::sqlx_connect(&copy).await;
    let per_upload: Vec<(i64, i64, i64)> = sqlx::query_as(
        "SELECT u.id, COUNT(r.id), COALESCE(SUM(r.sample_count), 0) FROM upload u \
         LEFT JOIN run r ON r.upload_id = u.id GROUP BY u.id",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert!(!per_upload.is_empty());
    for (id, runs, samples) in &per_upload {
        assert_eq!((*runs, *samples), (2, 400), "upload {id} in the copy");
    }

    // A second server on the copy answers the permalink with the same numbers.
    let restored = Perfline::start(&copy, &[]);
    let read = |addr: String| {
        let r = client
            .get(format!("http://{addr}/c/{permalink}"))
            .header("accept", "application/json")
            .send();
        async move { r.await.unwrap().json::<serde_json::Value>().await.unwrap() }
    };
    let original = read(server.addr.clone()).await;
    let again = read(restored.addr.clone()).await;
    assert_eq!(original["rows"], again["rows"]);
    assert!(original["rows"].as_array().is_some_and(|r| !r.is_empty()));

    // An existing file is never overwritten.
    let out = tokio::task::spawn_blocking(move || backup(&copy))
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists"));
}

/// The database two servers share, as `--db` names it: a SQLite file in `dir`, or a fresh
/// PostgreSQL database.
async fn shared_database(postgres: bool, dir: &Path) -> String {
    if postgres {
        crate::helpers::fresh_postgres().await
    } else {
        dir.join("p.db").to_str().unwrap().to_owned()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn two_servers_on_one_file_answer_as_one() {
    two_servers_answer_as_one(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_servers_on_one_postgres_answer_as_one() {
    two_servers_answer_as_one(true).await;
}

/// Two `perfline` processes on one database answer as one: what is written through either
/// is read through the other at once, cached trends and comparisons included (the data
/// version), and the same bytes uploaded through both at once are stored once. (`--no-alerts`
/// on the second: one detector per database.)
async fn two_servers_answer_as_one(postgres: bool) {
    let dir = tempfile::tempdir().unwrap();
    let db = shared_database(postgres, dir.path()).await;
    let a = Perfline::start(&db, &["--write-rate", "0"]);
    let b = Perfline::start(&db, &["--write-rate", "0", "--no-alerts"]);
    let client = reqwest::Client::new();
    let url = |p: &Perfline, path: &str| format!("http://{}{path}", p.addr);
    let r = client
        .post(url(&a, "/api/v1/commits?repo=linux&branch=master"))
        .body(crate::trend::git_log())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let r = client
        .post(url(
            &a,
            "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1",
        ))
        .body(crate::trend::runs_csv())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let trend = |p: &Perfline| {
        let r = client.get(url(p, crate::trend::TREND)).send();
        async move { r.await.unwrap().json::<serde_json::Value>().await.unwrap() }
    };
    let marks = |t: &serde_json::Value| -> Vec<String> {
        t["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["mark"].as_str().unwrap_or("-").to_owned())
            .collect()
    };
    // Uploaded through A, read through B; both now hold the trend in their caches.
    let (ta, tb) = (trend(&a).await, trend(&b).await);
    assert_eq!(ta["points"].as_array().unwrap().len(), 10);
    assert_eq!(ta, tb);
    // Marked through B, read through A.
    let run = ta["points"][4]["runs"][0]["id"].as_i64().unwrap();
    let r = client
        .post(url(&b, &format!("/api/v1/runs/{run}/mark")))
        .json(&serde_json::json!({ "mark": "bad" }))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let after = trend(&a).await;
    assert_eq!(
        marks(&after)[4],
        "bad",
        "A served its cached trend: {:?}",
        marks(&after)
    );
    assert_eq!(after, trend(&b).await);

    // The same bytes through A and B at once: one upload.
    let same = "benchmark,metric,value\nb,tput,1\nb,tput,2\n";
    let send = |p: &Perfline| {
        client
            .post(url(p, "/api/v1/upload?machine=m1&kernel=6.1"))
            .body(same)
            .send()
    };
    let (ra, rb) = tokio::join!(send(&a), send(&b));
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    let mut statuses = [ra.status().as_u16(), rb.status().as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 201]);
    let (ja, jb): (serde_json::Value, serde_json::Value) =
        (ra.json().await.unwrap(), rb.json().await.unwrap());
    assert_eq!(ja["upload_id"], jb["upload_id"], "{ja} {jb}");
    let runs = |p: &Perfline| {
        let r = client.get(url(p, "/api/v1/runs?machine=m1")).send();
        async move { r.await.unwrap().json::<serde_json::Value>().await.unwrap()["total"].clone() }
    };
    assert_eq!(runs(&a).await, 1);
    assert_eq!(runs(&b).await, 1);

    // A comparison computed by A, then new data through B: A answers the new numbers.
    let compare = "/api/v1/compare?benchmark=b&machine=m1&kernels=6.1&format=text";
    let before = get_text(&client, &url(&a, compare)).await;
    let r = client
        .post(url(&b, "/api/v1/upload?machine=m1&kernel=6.1"))
        .body("benchmark,metric,value\nb,tput,100\nb,tput,200\n")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let now = get_text(&client, &url(&a, compare)).await;
    assert_ne!(before, now, "A served its cached comparison");
    // The same table and the same permalink; each server names itself in the link.
    let through_b = get_text(&client, &url(&b, compare)).await;
    let strip = |t: &str| t.replace(&a.addr, "HOST").replace(&b.addr, "HOST");
    assert_eq!(strip(&now), strip(&through_b));
}

#[tokio::test(flavor = "multi_thread")]
async fn two_servers_notify_each_event_once() {
    two_servers_notify_once(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_servers_on_postgres_notify_each_event_once() {
    two_servers_notify_once(true).await;
}

/// Two servers on one database, both running the alert pipeline: each background task runs in
/// one of them at a time (its lease), so every event reaches the webhook once, not once per
/// server; when the holder stops, the other takes the tasks over.
async fn two_servers_notify_once(postgres: bool) {
    use crate::alerts::{commit_csv, git_log, start_receiver, Received};
    let received = Received::default();
    let hook = start_receiver(received.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = shared_database(postgres, dir.path()).await;
    // The receiver is on loopback, an internal address refused without the flag.
    let flags = [
        "--write-rate",
        "0",
        "--webhook",
        hook.as_str(),
        "--allow-internal-webhooks",
    ];
    let a = Perfline::start(&db, &flags);
    let b = Perfline::start(&db, &flags);
    let client = reqwest::Client::new();
    let post = |p: &Perfline, path: &str, body: String| {
        let r = client
            .post(format!("http://{}{path}", p.addr))
            .body(body)
            .send();
        async move {
            let r = r.await.unwrap();
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        }
    };
    post(&a, "/api/v1/commits?repo=linux&branch=master", git_log(40)).await;
    // Announced at once, without waiting for reruns (`confirm::` tests those).
    let r = client
        .put(format!("http://{}/api/v1/alert-rules", a.addr))
        .json(&serde_json::json!({"rules": [{"confirm": false}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    // The robot's uploads, alternately through A and B: a 6.2% drop at commit 24.
    for i in (0..=30).step_by(2) {
        let level = if i < 24 { 2500.0 } else { 2345.0 };
        let server = if i % 4 == 0 { &a } else { &b };
        post(
            server,
            "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1",
            commit_csv(i, level),
        )
        .await;
    }
    let hooks = || -> Vec<serde_json::Value> {
        received
            .hooks
            .lock()
            .unwrap()
            .iter()
            .map(|(_, body)| serde_json::from_slice(body).unwrap())
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while hooks().is_empty() {
        assert!(Instant::now() < deadline, "no notification arrived");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Time for a second copy, were one coming.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let first = hooks();
    let key = |h: &serde_json::Value| (h["summary"]["id"].clone(), h["event"].clone());
    let mut keys: Vec<String> = first.iter().map(|h| format!("{:?}", key(h))).collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "an event was delivered twice: {first:#?}");

    // The holder of the tasks stops; the other server takes them over and delivers the next
    // event (a triage) once.
    let (mut stopped, survivor) = (a, b);
    stopped.signal("TERM");
    assert_eq!(stopped.wait(Duration::from_secs(20)), Ok(0));
    let id = first[0]["summary"]["id"].as_i64().unwrap();
    let r = client
        .patch(format!("http://{}/api/v1/alerts/{id}", survivor.addr))
        .json(&serde_json::json!({ "status": "acknowledged" }))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let deadline = Instant::now() + Duration::from_secs(30);
    while hooks().len() == n {
        assert!(
            Instant::now() < deadline,
            "the other server did not take over"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(hooks().len(), n + 1, "{:#?}", hooks());
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_of_one_server_mid_upload_while_the_other_serves() {
    kill_9_of_one_server_while_the_other_serves(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_of_one_server_on_postgres_while_the_other_serves() {
    kill_9_of_one_server_while_the_other_serves(true).await;
}

/// The samples of each upload of benchmark `b` in the database `db` (a file or a URL).
async fn samples_per_upload(db: &str) -> Vec<(i64, i64)> {
    use sqlx::Connection;
    const SQL: &str =
        "SELECT u.id, CAST(COALESCE(SUM(r.sample_count), 0) AS BIGINT) FROM upload u \
         JOIN run r ON r.upload_id = u.id WHERE r.benchmark = 'b' GROUP BY u.id";
    if db.starts_with("postgres") {
        let mut conn = sqlx::PgConnection::connect(db).await.unwrap();
        sqlx::query_as(SQL).fetch_all(&mut conn).await.unwrap()
    } else {
        let mut conn = crate::helpers::sqlx_connect(Path::new(db)).await;
        sqlx::query_as(SQL).fetch_all(&mut conn).await.unwrap()
    }
}

/// Two servers on one database; one is killed (`kill -9`) at several moments of a large
/// upload: the other goes on serving reads and storing uploads meanwhile and after, and the
/// killed one's upload is all there or not at all.
async fn kill_9_of_one_server_while_the_other_serves(postgres: bool) {
    let dir = tempfile::tempdir().unwrap();
    let db = shared_database(postgres, dir.path()).await;
    const SAMPLES: usize = 200_000;
    let mut csv = String::from("benchmark,metric,param,value\n");
    for i in 0..SAMPLES {
        csv.push_str(&format!("b,tput,{},{}.5\n", i % 100, i));
    }
    let other = Perfline::start(&db, &["--write-rate", "0"]);
    let client = reqwest::Client::new();
    let small =
        |round: usize| format!("benchmark,metric,value\nsmall,tput,{round}\nsmall,tput,1\n");
    for (round, delay_ms) in [60u64, 300, 900, 1600].into_iter().enumerate() {
        let mut victim = Perfline::start(&db, &[]);
        let url = format!(
            "http://{}/api/v1/upload?machine=m1&kernel=round-{round}",
            victim.addr
        );
        let upload = tokio::spawn({
            let (client, body) = (client.clone(), csv.clone());
            async move { client.post(url).body(body).send().await }
        });
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        // While the victim works, the other server serves and stores.
        let r = client
            .post(format!(
                "http://{}/api/v1/upload?machine=m2&kernel=6.{round}",
                other.addr
            ))
            .body(small(round))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        victim.signal("KILL");
        assert_eq!(victim.wait(Duration::from_secs(10)), Err(libc::SIGKILL));
        let _ = upload.await;
        drop(victim);
        // The survivor answers at once, with every small upload so far.
        let runs: serde_json::Value = client
            .get(format!("http://{}/api/v1/runs?machine=m2", other.addr))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(runs["total"], round + 1, "round {round}: {runs}");
        let health = client
            .get(format!("http://{}/healthz", other.addr))
            .send()
            .await
            .unwrap();
        assert_eq!(health.status().as_u16(), 200);
        // Every large upload in the database is whole.
        for (id, samples) in samples_per_upload(&db).await {
            assert_eq!(
                samples as usize, SAMPLES,
                "round {round}: upload {id} is partial"
            );
        }
    }
    if !postgres {
        let mut conn = crate::helpers::sqlx_connect(Path::new(&db)).await;
        let (check,): (String,) = sqlx::query_as("PRAGMA integrity_check")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(check, "ok");
    }
}
