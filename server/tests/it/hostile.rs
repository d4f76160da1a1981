// SPDX-License-Identifier: GPL-3.0-or-later
//! What a hostile or careless client sends: archive bombs, absurd values, huge and odd strings.
//! Each is refused with a 422 naming the limit, quickly, without the memory the input claims,
//! and leaves the store as it was.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::helpers::*;

/// The peak resident memory of this test process so far, in bytes (nextest runs every test in
/// its own process, so this is the peak of this test and the server it started).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kb * 1024
}

/// One raw tar header block.
fn header(path: &str, kind: tar::EntryType, size: u64) -> [u8; 512] {
    let mut h = tar::Header::new_gnu();
    // Raw name bytes: the long-name entry's conventional name, or any path under 100 bytes.
    h.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
    h.set_entry_type(kind);
    h.set_size(size);
    h.set_mode(0o644);
    h.set_cksum();
    *h.as_bytes()
}

/// `header` followed by `zeros` zero bytes, gzipped: the bomb the header describes.
fn gz_bomb(first: [u8; 512], zeros: u64) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&first).unwrap();
    let block = vec![0u8; 1 << 20];
    let mut left = zeros;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        gz.write_all(&block[..n]).unwrap();
        left -= n as u64;
    }
    gz.finish().unwrap()
}

/// Uploads `body`, expects a 422 whose message contains `needle`, quickly, with the store
/// unchanged and the process's peak memory below `max_rss` bytes.
async fn refused_quickly(body: Vec<u8>, needle: &str, max_rss: u64) {
    let app = spawn_app().await;
    let before = app.counts().await;
    let started = Instant::now();
    let r = app.upload_raw("machine=m1", body).await;
    let took = started.elapsed();
    assert_error(r, 422, needle).await;
    assert_eq!(app.counts().await, before, "nothing is stored");
    assert!(took < Duration::from_secs(10), "refused after {took:?}");
    let rss = peak_rss();
    assert!(
        rss < max_rss,
        "peak memory {} MiB; the bomb claims far more",
        rss >> 20
    );
}

const MIB: u64 = 1 << 20;

#[tokio::test(flavor = "multi_thread")]
async fn a_long_name_header_claiming_256_mib_is_refused_before_it_is_read() {
    let bomb = gz_bomb(
        header("././@LongLink", tar::EntryType::GNULongName, 256 * MIB),
        256 * MIB,
    );
    assert!(bomb.len() < 400 * 1024, "{} bytes", bomb.len());
    refused_quickly(
        bomb,
        "extension header (long name or PAX) of 268435456 bytes; at most 65536",
        200 * MIB,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pax_header_claiming_256_mib_is_refused_before_it_is_read() {
    let bomb = gz_bomb(
        header("PaxHeaders/x", tar::EntryType::XHeader, 256 * MIB),
        256 * MIB,
    );
    refused_quickly(bomb, "extension header (long name or PAX)", 200 * MIB).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_directory_declaring_2_gib_is_refused_not_inflated() {
    let bomb = gz_bomb(
        header("work/log/", tar::EntryType::Directory, 2 << 30),
        64 * MIB,
    );
    refused_quickly(
        bomb,
        "work/log/: entry declares 2147483648 bytes; at most 67108864",
        200 * MIB,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_that_inflates_a_thousandfold_is_refused_at_the_ratio() {
    // 60 MiB of zeros in a file entry under the entry limit: ~60 KiB compressed. A log is
    // read; a file outside `logs/` is skipped unread, but every byte skipped is inflated too,
    // and counted against the allowance the same.
    for path in [
        "log/k/iter-0/hackbench/logs/time.1",
        "log/k/iter-0/hackbench/core.dump",
    ] {
        let bomb = gz_bomb(header(path, tar::EntryType::Regular, 60 * MIB), 60 * MIB);
        assert!(bomb.len() < 100 * 1024, "{} bytes", bomb.len());
        refused_quickly(
            bomb,
            "the archive inflates to more than 16777216 bytes",
            200 * MIB,
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn many_tiny_entries_are_refused() {
    // 300,000 empty files: 150 MB of tar headers that compress to almost nothing.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let h = header("log/a", tar::EntryType::Regular, 0);
    for _ in 0..300_000 {
        gz.write_all(&h).unwrap();
    }
    let bomb = gz.finish().unwrap();
    refused_quickly(bomb, "the archive has more than 200000 entries", 200 * MIB).await;
}

/// 50,000 logs directories, each with one compressed member: each directory waits for its
/// member to inflate before it is parsed, and however many wait, the walk does constant work
/// an entry (refused in seconds, not in the square of the count).
#[tokio::test(flavor = "multi_thread")]
async fn many_directories_of_compressed_members_are_read_in_linear_time() {
    let member = {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"no results here\n").unwrap();
        gz.finish().unwrap()
    };
    let mut padded = member.clone();
    padded.resize(member.len().div_ceil(512) * 512, 0);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..50_000 {
        let path = format!("k/iter-0/frobnicate-{i}/logs/out.gz");
        gz.write_all(&header(&path, tar::EntryType::Regular, member.len() as u64))
            .unwrap();
        gz.write_all(&padded).unwrap();
    }
    gz.write_all(&[0u8; 1024]).unwrap();
    let bomb = gz.finish().unwrap();
    refused_quickly(bomb, "nothing in the tree could be read", 400 * MIB).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_huge_value_is_refused_naming_the_line_and_the_bound() {
    let app = spawn_app().await;
    let r = app
        .upload_raw(
            "machine=m1&kernel=6.1.0",
            "benchmark,metric,value\nb,tput,1\nb,tput,1.7e308\n",
        )
        .await;
    let body = assert_error(
        r,
        422,
        "value 1.7e308 is outside the accepted range of ±1e15",
    )
    .await;
    assert_eq!(body["error"]["line"], 3);
    assert_eq!(body["error"]["field"], "value");
    assert_eq!(body["error"]["file"], "request body");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sysbench_output_without_results_is_refused() {
    let app = spawn_app().await;
    let text = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nRunning the test with following options:\nNumber of threads: 4\n";
    let r = app
        .upload_raw("machine=m1&kernel=6.1.0&format=sysbench", text)
        .await;
    assert_error(r, 422, "sysbench output without any result line").await;
    assert!(app.counts().await.iter().all(|(_, n)| *n == 0));
}

#[tokio::test(flavor = "multi_thread")]
async fn strings_and_counts_have_bounds() {
    let app = spawn_app().await;
    let csv = "benchmark,metric,value,unit\nb,tput,1,Mb\u{1b}]0;owned\u{7}\n";
    let r = app.upload_raw("machine=m1&kernel=6.1.0", csv).await;
    assert_error(r, 422, "contains the control character U+001B").await;

    let csv = format!(
        "benchmark,metric,value,unit\nb,tput,1,{}\n",
        "u".repeat(1_000_000)
    );
    let r = app.upload_raw("machine=m1&kernel=6.1.0", csv).await;
    assert_error(r, 422, "is longer than 32 characters").await;

    // Long and many tags come as form fields (a URL that long is refused by the HTTP layer).
    let data = ("data.csv", b"benchmark,metric,value\nb,tput,1\n".to_vec());
    let long_tag = format!("k={}", "v".repeat(1_000_000));
    let r = app
        .upload_multipart(
            std::slice::from_ref(&data),
            &[("machine", "m1"), ("kernel", "6.1.0"), ("tags", &long_tag)],
        )
        .await;
    assert_error(r, 422, "is longer than 200 characters").await;

    // 60,000 tags: refused by count, after a linear pass.
    let tags: Vec<String> = (0..60_000).map(|i| format!("k{i}=v")).collect();
    let started = Instant::now();
    let r = app
        .upload_multipart(
            &[data],
            &[
                ("machine", "m1"),
                ("kernel", "6.1.0"),
                ("tags", &tags.join(",")),
            ],
        )
        .await;
    assert_error(r, 422, "60000 tags given; at most 64 are accepted").await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(app.counts().await.iter().all(|(_, n)| *n == 0));
}

/// A permalink pinning 35,000 runs (more than SQLite's bound-variable limit) is made and
/// answers the same numbers.
#[tokio::test(flavor = "multi_thread")]
async fn a_permalink_over_35000_runs_answers() {
    let app = spawn_app().await;
    for part in 0..7 {
        // 5,000 runs per upload (the limit): one per commit, two kernels.
        let mut csv = String::from("kernel,commit,metric,value\n");
        for i in 0..5_000 {
            let kernel = if i % 2 == 0 { "6.1" } else { "6.2" };
            csv.push_str(&format!("{kernel},{:08x}{part},tput,{}\n", i, 100 + i % 7));
        }
        let r = app.upload_raw("benchmark=b&machine=m1", csv).await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    let (status, live) = app
        .get_json("/api/v1/compare?benchmark=b&machine=m1&kernels=6.1,6.2")
        .await;
    assert_eq!(status, 200, "{live}");
    let id = live["permalink"].as_str().expect("a permalink").to_owned();
    let (status, pinned) = app.get_json(&format!("/c/{id}?format=json")).await;
    assert_eq!(status, 200, "{pinned}");
    assert_eq!(pinned["rows"], live["rows"]);
    assert_eq!(pinned["rows"][0]["cells"][0]["stats"]["n"], 17_500);
}
