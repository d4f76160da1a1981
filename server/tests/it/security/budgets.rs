// SPDX-License-Identifier: GPL-3.0-or-later
//! Security findings of the 2026-12-06 audit (issue 51): budgets. What one upload may make
//! (runs, series, samples, rows, inflated bytes) is the upload's, over all its files and all
//! their archive members, and counted while it is made; parsers are linear in their input.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::helpers::*;

/// The peak resident memory of this test process so far, in bytes (nextest runs every test in
/// its own process: the peak of this test and the server it started).
fn own_peak_rss() -> u64 {
    peak_rss(std::process::id())
}

/// `VmHWM` of process `pid`, in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kb * 1024
}

const MIB: u64 = 1 << 20;

/// A `.tar.gz` of `members` (path, bytes).
fn tar_gz(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::best(),
    ));
    for (path, bytes) in members {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, *bytes).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

/// `bytes` bytes of `line` repeated (as `yes LINE | head -c BYTES`), written to `out`.
fn repeat_into(out: &mut impl Write, line: &[u8], bytes: u64) {
    let chunk: Vec<u8> = line.iter().copied().cycle().take(1 << 20).collect();
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        out.write_all(&chunk[..n]).unwrap();
        left -= n as u64;
    }
}

/// The audit's bomb (section 3), built as it was: 64 MiB of one dbench line, xz-compressed,
/// as eight `benchlog-loadfile-N.xz` members of one dbench directory, tarred and gzipped.
/// About 10 KB that inflated to 512 MiB of text and 6 GiB of rows.
fn nested_xz_bomb() -> Vec<u8> {
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 1);
    repeat_into(
        &mut xz,
        b"   0 completed in 176 ms at time 176 ms\n",
        64 * MIB,
    );
    let member = xz.finish().unwrap();
    let names: Vec<String> = [1, 2, 4, 8, 16, 32, 64, 128]
        .iter()
        .map(|c| format!("6.6.0-vanilla/iter-0/dbench/logs/benchlog-loadfile-{c}.xz"))
        .collect();
    let members: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &member[..])).collect();
    tar_gz(&members)
}

/// Finding 3 (issue 51, point 4): the audit's 10 KB `.tgz` of eight `.xz` dbench logs, each
/// 64 MiB of text, sent to the real binary. Every byte the archive and its members inflate
/// to is charged to one allowance of the upload (16 MiB for so small a one): refused within a
/// second, the server's peak memory under 256 MiB (was 15 s and 6.0 GiB), nothing stored.
#[tokio::test(flavor = "multi_thread")]
async fn a_nested_xz_bomb_is_refused_within_a_second_under_256_mib() {
    let bomb = nested_xz_bomb();
    assert!(bomb.len() < 64 << 10, "a bomb of {} bytes", bomb.len());
    let bomb_len = bomb.len();
    let dir = tempfile::tempdir().unwrap();
    let server = Perfline::start(dir.path().join("p.db"), &[]);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let started = Instant::now();
    let answer = client
        .post(server.url("/api/v1/upload?machine=m"))
        .body(bomb)
        .send()
        .await;
    let took = started.elapsed();
    let peak = server.status_kib("VmHWM") * 1024;
    let r = answer.unwrap_or_else(|e| {
        panic!(
            "no answer after {took:?} ({e}); the server's peak memory {} MiB",
            peak / MIB
        )
    });
    let status = r.status().as_u16();
    assert!(status == 413 || status == 422, "status {status}");
    let v: serde_json::Value = r.json().await.unwrap();
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("inflates to more than 16777216 bytes"),
        "{v}"
    );
    assert!(
        took < Duration::from_secs(1),
        "answered after {took:?}; peak {} MiB",
        peak / MIB
    );
    assert!(
        peak < 256 * MIB,
        "the server's peak memory {} MiB (answered in {took:?})",
        peak / MIB
    );
    eprintln!(
        "the {}-byte bomb: {status} in {took:?}, the server's peak {} MiB",
        bomb_len,
        peak / MIB
    );
    let runs: serde_json::Value = client
        .get(server.url("/api/v1/runs"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(0), "{runs}");
}

/// Finding 3, the rows: a redis log of blank lines (each a CSV row to redis' parser, six rows
/// it prints) within the inflation allowance. The rows are counted as the parser prints them
/// and it is stopped at the upload's bound, long before the millions it would print exist
/// (was: 6 million rows, about a gigabyte, built before any bound was checked).
#[tokio::test(flavor = "multi_thread")]
async fn a_tree_printing_millions_of_rows_is_stopped_before_it_prints_them() {
    let mut log = Vec::new();
    repeat_into(&mut log, b"\n", MIB);
    let tree = tar_gz(&[("6.6/iter-0/redis/logs/redis-1-1.log", &log)]);
    let app = spawn_app().await;
    let before = app.counts().await;
    let started = Instant::now();
    let r = app.upload_raw("machine=m1", tree).await;
    let took = started.elapsed();
    assert_error(r, 422, "rows").await;
    assert_eq!(app.counts().await, before, "nothing is stored");
    let peak = own_peak_rss();
    eprintln!(
        "1 MiB of blank redis rows: refused in {took:?}, peak {} MiB",
        peak / MIB
    );
    assert!(
        peak < 256 * MIB,
        "peak memory {} MiB (refused in {took:?})",
        peak / MIB
    );
}

/// A generic CSV of one sample for each of `runs` kernels (`kernel` column), from `first`.
fn csv_of_runs(first: usize, runs: usize) -> Vec<u8> {
    let mut csv = String::from("benchmark,kernel,metric,value\n");
    for k in first..first + runs {
        csv.push_str(&format!("b,k{k},tput,1\n"));
    }
    csv.into_bytes()
}

/// A generic CSV of one run with `series` metrics, from `first`.
fn csv_of_series(first: usize, series: usize) -> Vec<u8> {
    let mut csv = String::from("benchmark,kernel,metric,value\n");
    for s in first..first + series {
        csv.push_str(&format!("b,k,m{s},1\n"));
    }
    csv.into_bytes()
}

/// Finding 5 (issue 51, point 5): the documented bounds of an upload (5,000 runs, 200,000
/// series) hold over all its files, not per file: two files within the bounds each, over
/// them together, are refused with nothing stored (were stored, and 250 files made 1.25 M
/// runs).
#[tokio::test(flavor = "multi_thread")]
async fn runs_and_series_are_bounded_per_upload_not_per_file() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let before = app.counts().await;
    let r = app
        .upload_multipart(
            &[
                ("a.csv", csv_of_runs(0, 2_600)),
                ("b.csv", csv_of_runs(2_600, 2_600)),
            ],
            &[("machine", "m1")],
        )
        .await;
    let v = assert_error(r, 422, "more than 5000 runs").await;
    assert_eq!(v["error"]["file"], "b.csv", "{v}");
    let r = app
        .upload_multipart(
            &[
                ("a.csv", csv_of_series(0, 100_001)),
                ("b.csv", csv_of_series(100_001, 100_000)),
            ],
            &[("machine", "m1")],
        )
        .await;
    assert_error(r, 422, "more than 200000 series").await;
    assert_eq!(
        app.counts().await,
        before,
        "a refused upload stored something"
    );
    // Each file alone is within the bounds.
    let r = app
        .upload_multipart(&[("a.csv", csv_of_runs(0, 2_600))], &[("machine", "m1")])
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

/// Finding 5, inflation: two trees of one upload, each inflating to 10 MiB (a hackbench log
/// and a 10 MiB file beside it, skipped but inflated), share the upload's 16 MiB allowance:
/// refused together, stored alone.
#[tokio::test(flavor = "multi_thread")]
async fn an_uploads_archives_share_one_inflation_allowance() {
    let padding = vec![0u8; 10 * MIB as usize];
    let tree = |kernel: &str| {
        let log = format!("{kernel}/iter-0/hackbench-process-pipes/logs/hackbench-4");
        let core = format!("{kernel}/iter-0/hackbench-process-pipes/core.dump");
        tar_gz(&[
            (
                log.as_str(),
                &b"Running in process mode with 4 groups using 40 file descriptors each (== 160 tasks)\nEach sender will pass 100 messages of 100 bytes\nTime: 0.5\nTotal time: 0.512\n"[..],
            ),
            (core.as_str(), &padding[..]),
        ])
    };
    let (a, b) = (tree("6.1"), tree("6.2"));
    assert!(a.len() + b.len() < 160 << 10, "{} bytes", a.len() + b.len());
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let before = app.counts().await;
    let r = app
        .upload_multipart(
            &[("a.tar.gz", a.clone()), ("b.tar.gz", b)],
            &[("machine", "m1")],
        )
        .await;
    let v = assert_error(r, 422, "inflates to more than 16777216 bytes").await;
    assert_eq!(v["error"]["file"], "b.tar.gz", "{v}");
    assert_eq!(
        app.counts().await,
        before,
        "a refused upload stored something"
    );
    let r = app
        .upload_multipart(&[("a.tar.gz", a)], &[("machine", "m1")])
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
}

/// The audit's LKP matrix (section 4): one key of 1,000,000 columns and 190,000 keys of one
/// value, 4.9 MB. Columns × keys was 11 minutes of a core, past the request's timeout; now a
/// pass over the keys, and the million columns are a million runs, over the upload's 5,000.
fn audit_matrix() -> Vec<u8> {
    let mut doc = String::with_capacity(5 << 20);
    doc.push_str("{\"netperf.Throughput_Mbps\":[");
    doc.push_str(&vec!["1"; 1_000_000].join(","));
    doc.push(']');
    for i in 0..190_000 {
        doc.push_str(&format!(",\"k{i}.x\":[1]"));
    }
    doc.push('}');
    doc.into_bytes()
}

/// Finding 4 (issue 51, point 6): the matrix is answered at once, refused for its runs; the
/// bounds of an upload hold for a matrix's columns (5,001 columns were 5,001 runs stored).
#[tokio::test(flavor = "multi_thread")]
async fn an_lkp_matrix_is_one_pass_within_the_uploads_bounds() {
    let app = spawn_app().await;
    let before = app.counts().await;
    let doc = audit_matrix();
    assert!(doc.len() > 4_800_000, "{} bytes", doc.len());
    let started = Instant::now();
    let r = app
        .client
        .post(app.url("/api/v1/upload?machine=m&kernel=6.9&format=lkp-matrix"))
        .header("content-type", "application/json")
        .timeout(Duration::from_secs(30))
        .body(doc)
        .send()
        .await
        .expect("an answer within 30 s");
    let took = started.elapsed();
    assert_error(r, 422, "1000000 runs").await;
    assert!(took < Duration::from_secs(15), "answered after {took:?}");
    let columns = |n: usize| {
        let ones = vec!["1"; n].join(",");
        format!("{{\"netperf.Throughput_Mbps\":[{ones}],\"netperf.workload\":[{ones}]}}")
    };
    let r = app
        .upload_raw("machine=m&kernel=6.9&format=lkp-matrix", columns(5_001))
        .await;
    assert_error(r, 422, "at most 5000 runs").await;
    assert_eq!(
        app.counts().await,
        before,
        "a refused upload stored something"
    );
    let r = app
        .upload_raw("machine=m&kernel=6.9&format=lkp-matrix", columns(3))
        .await;
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(3), "{v}");
}
