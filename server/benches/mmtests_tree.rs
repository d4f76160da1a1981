// SPDX-License-Identifier: GPL-3.0-or-later
//! A `work/log` tree of every mmtests family Perfline parses, through `POST /api/v1/upload`
//! and back as one whole-tree report (`benchmark=*`), end to end (release, HTTP, the real
//! server on port 0 with a fresh database). The tree is built from the test fixtures: each
//! family's logs (the coverage cases' trees and `mmtests-families/*/logs`) under three kernels,
//! each logs directory repeated in `MMTESTS_ITERS` (default 4) `iter-N` directories, with a
//! `tests-activity` per kernel. Each round uploads it for a new machine, then asks for the
//! whole-tree report once (cold: nothing of that machine was compared before), each on an
//! idle server (the alert detector done with what the last upload queued). Prints the
//! upload's median time and samples per second, the report's median time, and the time the
//! alert detector spent on each tree (from `/metrics`). Then
//! `MMTESTS_STREAMS` clients (default 2) upload `MMTESTS_STREAM_UPLOADS` trees each (default
//! 8) back to back, at once, as several robots do: the server's ingest rate under load, as
//! answered and as examined by the alert detector (its queue empty again). Last,
//! `MMTESTS_HISTORY` trees (default 6) for one machine, each of new kernels: the detector's
//! time after each as the machine's series grow.
//!
//! `cargo bench -p perfline-server --bench mmtests_tree` (`MMTESTS_ROUNDS=5`).

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::time::{Duration, Instant};

// The tree itself is built where the HTTP tests build it too.
#[path = "../tests/it/big_tree.rs"]
mod big_tree;
use big_tree::{archive, corpus, Tree, KERNELS};

/// Uploads `body` for `machine`: the time from sending it to the answer's last byte, and
/// the answer. (Reading the answer into a JSON value, ≈ 1 ms of the client's for its 157 KB,
/// comes after the clock stops: the server's ingest ends with the answer sent.)
async fn upload_timed(
    client: &reqwest::Client,
    base: &str,
    machine: &str,
    body: &[u8],
) -> (Duration, serde_json::Value) {
    let started = Instant::now();
    let r = client
        .post(format!("{base}/api/v1/upload?machine={machine}"))
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let bytes = r.bytes().await.unwrap();
    let took = started.elapsed();
    let answer: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(status, 201, "{answer}");
    (took, answer)
}

/// Uploads the tree for `machine`; its answer (a 201, or the bench stops).
async fn upload(
    client: &reqwest::Client,
    base: &str,
    machine: &str,
    body: &[u8],
) -> serde_json::Value {
    upload_timed(client, base, machine, body).await.1
}

/// The tree with its kernels renamed `<kernel>-h<round>`: the trees of one machine's history.
fn renamed(tree: &Tree, round: usize) -> Tree {
    tree.iter()
        .map(|((k, i, b), files)| ((format!("{k}-h{round}"), *i, b.clone()), files.clone()))
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (iters, rounds) = (env("MMTESTS_ITERS", 4), env("MMTESTS_ROUNDS", 5));
    // `MMTESTS_STREAMS` clients uploading `MMTESTS_STREAM_UPLOADS` trees each, at once.
    let (streams, per_stream) = (env("MMTESTS_STREAMS", 2), env("MMTESTS_STREAM_UPLOADS", 8));
    let tree = corpus(iters);
    let body = archive(&tree);
    let benchmarks: std::collections::BTreeSet<&str> =
        tree.keys().map(|(_, _, b)| b.as_str()).collect();
    println!(
        "mmtests_tree: {} benchmarks, {} logs directories, {} bytes of tar.gz",
        benchmarks.len(),
        tree.len(),
        body.len()
    );
    // The server runs without transparent huge pages (`serve` asks first); so does the
    // parse here, to be measured as it runs there.
    perfline_server::small_pages();
    // Where parsing goes, in process: the whole tree, then each family's parser alone.
    let mut meta = perfline_server::ingest::UploadMeta::default();
    meta.set("machine", "m").unwrap();
    if let Ok(path) = std::env::var("MMTESTS_DUMP") {
        std::fs::write(path, &body).unwrap();
    }
    // `MMTESTS_PARSE_ONLY=N`: parse N times and stop (for a profiler).
    if let Some(n) = std::env::var("MMTESTS_PARSE_ONLY")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        // `MMTESTS_PARSE_GAP_MS`: an idle pause before each parse, as uploads have between
        // them (the pool's threads asleep, freed memory given back).
        let gap = Duration::from_millis(env("MMTESTS_PARSE_GAP_MS", 0) as u64);
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            std::thread::sleep(gap);
            let t = Instant::now();
            perfline_server::ingest::parse_file_reporting(&body, None, &meta).unwrap();
            times.push(t.elapsed());
        }
        let mean = times.iter().sum::<Duration>().as_secs_f64() * 1e3 / n as f64;
        println!(
            "mmtests_tree: parse {mean:.1} ms each, median {:.1} ms",
            median(times).as_secs_f64() * 1e3
        );
        return;
    }
    let parse_times: Vec<Duration> = (0..3)
        .map(|_| {
            let t = Instant::now();
            perfline_server::ingest::parse_file_reporting(&body, None, &meta).unwrap();
            t.elapsed()
        })
        .collect();
    let mut by_family: BTreeMap<&str, Duration> = BTreeMap::new();
    let mut decompress = Duration::ZERO;
    for ((_, _, b), files) in &tree {
        let Some(shellpack) = perfline_server::ingest::mmtests::Shellpack::of(b) else {
            continue;
        };
        let t = Instant::now();
        let mut dir = perfline_server::ingest::mmtests::family::LogDir::new(b);
        for (name, data) in files {
            let mut text = Vec::new();
            if name.ends_with(".gz") {
                flate2::read::MultiGzDecoder::new(&data[..])
                    .read_to_end(&mut text)
                    .unwrap();
            } else if name.ends_with(".xz") {
                liblzma::read::XzDecoder::new_multi_decoder(&data[..])
                    .read_to_end(&mut text)
                    .unwrap();
            } else {
                text = data.clone();
            }
            dir.insert(name, String::from_utf8_lossy(&text).into_owned());
        }
        decompress += t.elapsed();
        let parser = perfline_server::ingest::mmtests::families::parser(shellpack.name).unwrap();
        let t = Instant::now();
        let _ = parser(&dir);
        *by_family.entry(shellpack.name).or_default() += t.elapsed();
    }
    let mut slowest: Vec<(&str, Duration)> = by_family.into_iter().collect();
    slowest.sort_by_key(|(_, d)| std::cmp::Reverse(*d));
    let total: Duration = slowest.iter().map(|(_, d)| *d).sum();
    println!(
        "mmtests_tree: in process, parse median {:.1} ms; members decompressed {:.1} ms, parsers {:.1} ms, slowest: {}",
        median(parse_times).as_secs_f64() * 1e3,
        decompress.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3,
        slowest
            .iter()
            .take(6)
            .map(|(f, d)| format!("{f} {:.1} ms", d.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // `MMTESTS_UPLOAD_GAP_MS`: an idle pause before each upload.
    let upload_gap = Duration::from_millis(env("MMTESTS_UPLOAD_GAP_MS", 0) as u64);
    let rt = common::runtime();
    // `MMTESTS_HISTORY` trees (default 6) for one machine, each of new kernels.
    let histories: Vec<Vec<u8>> = (0..env("MMTESTS_HISTORY", 6))
        .map(|round| archive(&renamed(&tree, round)))
        .collect();
    let (
        uploads,
        reports,
        samples,
        read,
        (stored, took, examined),
        (passes, series, seconds),
        history,
        pages,
    ) = common::with_server_using(
        &rt,
        |_| {},
        |base, store| async move {
            let client = reqwest::Client::new();
            let (mut uploads, mut reports) = (Vec::new(), Vec::new());
            let (mut samples, mut read) = (0, 0);
            for round in 0..rounds {
                // Each upload and report on an otherwise idle server: the alert detector has
                // examined what the last upload queued.
                common::detector_idle(&store).await;
                tokio::time::sleep(upload_gap).await;
                let (took, answer) =
                    upload_timed(&client, &base, &format!("tree-{round}"), &body).await;
                uploads.push(took);
                samples = answer["upload"]["samples"].as_u64().unwrap();
                read = answer["directories"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|d| d["samples"].as_u64() > Some(0))
                    .count();
                common::detector_idle(&store).await;
                let t = Instant::now();
                let r = client
                    .get(format!(
                    "{base}/api/v1/compare?machine=tree-{round}&benchmark=*&kernels={}&format=text",
                    KERNELS.join(",")
                ))
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let text = r.text().await.unwrap();
                reports.push(t.elapsed());
                assert_eq!(status, 200, "{text}");
            }
            // The whole tree's page (`/compare?benchmark=*`, issue 54), cold, on a machine of
            // its own each round; then the same page saved (`format=html`): times and bytes.
            let mut pages = Vec::new();
            for round in 0..rounds {
                common::detector_idle(&store).await;
                upload(&client, &base, &format!("page-{round}"), &body).await;
                common::detector_idle(&store).await;
                let query = format!(
                    "machine=page-{round}&benchmark=*&kernels={}",
                    KERNELS.join(",")
                );
                let mut timed = Vec::new();
                for path in [
                    format!("{base}/compare?{query}"),
                    format!("{base}/api/v1/compare?{query}&format=html"),
                ] {
                    let t = Instant::now();
                    let r = client.get(path).send().await.unwrap();
                    let status = r.status().as_u16();
                    let body = r.bytes().await.unwrap();
                    timed.push((t.elapsed(), body.len()));
                    assert_eq!(status, 200);
                }
                pages.push(timed);
            }
            // What the alert detector spent on the rounds' trees (the report asks for none).
            let detector = common::detector_work(&client, &base).await;
            // Throughput: `streams` clients upload back to back, each tree for a new
            // machine, as robots do; the detector examines what they queue meanwhile.
            common::detector_idle(&store).await;
            let started = Instant::now();
            let clients: Vec<_> = (0..streams)
                .map(|stream| {
                    let (client, base, body) = (client.clone(), base.clone(), body.clone());
                    tokio::spawn(async move {
                        let mut stored = 0;
                        for n in 0..per_stream {
                            let machine = format!("stream-{stream}-{n}");
                            let answer = upload(&client, &base, &machine, &body).await;
                            stored += answer["upload"]["samples"].as_u64().unwrap();
                        }
                        stored
                    })
                })
                .collect();
            let mut stored = 0;
            for c in clients {
                stored += c.await.unwrap();
            }
            let answered = started.elapsed();
            // And until the alert detector has examined all they queued: the rate the
            // server keeps up with, its alert work included.
            common::detector_idle(&store).await;
            let streamed = (stored, answered, started.elapsed());
            // One machine's history: each tree of new kernels on the same machine, the
            // detector's time after each (its series longer each time).
            let mut history = Vec::new();
            for body in &histories {
                let before = common::detector_work(&client, &base).await.2;
                upload(&client, &base, "history", body).await;
                common::detector_idle(&store).await;
                history.push(common::detector_work(&client, &base).await.2 - before);
            }
            (
                uploads, reports, samples, read, streamed, detector, history, pages,
            )
        },
    );
    let up = median(uploads.clone());
    println!(
        "mmtests_tree: {samples} samples from {read} directories; upload median {:.1} ms ({:.0} samples/s); all {:?}",
        up.as_secs_f64() * 1e3,
        samples as f64 / up.as_secs_f64(),
        uploads
    );
    println!(
        "mmtests_tree: whole-tree report, cold, median {:.1} ms; all {:?}",
        median(reports.clone()).as_secs_f64() * 1e3,
        reports
    );
    for (i, what) in [
        "page (/compare?benchmark=*), cold",
        "saved page (format=html), right after",
    ]
    .iter()
    .enumerate()
    {
        let times: Vec<Duration> = pages.iter().map(|p| p[i].0).collect();
        let bytes: Vec<usize> = pages.iter().map(|p| p[i].1).collect();
        println!(
            "mmtests_tree: whole tree's {what}: median {:.1} ms, {} bytes; all {:?}",
            median(times.clone()).as_secs_f64() * 1e3,
            bytes.iter().max().copied().unwrap_or_default(),
            times
        );
    }
    println!(
        "mmtests_tree: alert detector after each tree: {:.1} ms ({passes} passes over {series} series, {:.3} ms a series)",
        seconds * 1e3 / rounds as f64,
        seconds * 1e3 / series.max(1.0)
    );
    println!(
        "mmtests_tree: {streams} clients uploading {per_stream} trees each at once: {stored} samples in {:.1} ms ({:.0} samples/s, {:.1} ms a tree); with the alert detector done, {:.1} ms ({:.0} samples/s)",
        took.as_secs_f64() * 1e3,
        stored as f64 / took.as_secs_f64(),
        took.as_secs_f64() * 1e3 / (streams * per_stream) as f64,
        examined.as_secs_f64() * 1e3,
        stored as f64 / examined.as_secs_f64(),
    );
    println!(
        "mmtests_tree: alert detector after each tree of one machine's history (3 kernels a tree): {}",
        history
            .iter()
            .map(|s| format!("{:.1} ms", s * 1e3))
            .collect::<Vec<_>>()
            .join(", ")
    );
}
