// SPDX-License-Identifier: GPL-3.0-or-later
//! Ingest of an mmtests work/log archive through `POST /api/v1/upload`: 5 kernels × 9 message
//! sizes × 50 netperf logs (2,250 files), generated here, uploaded as a tar.gz to the real server
//! on port 0. Goal: ≤ 1 s. `cargo bench -p perfline-server --bench mmtests`.

mod common;

use std::time::{Duration, Instant};

use common::KERNELS;
const SIZES: [u32; 9] = [64, 128, 256, 1024, 2048, 3312, 4096, 8192, 16384];
const SAMPLES: u32 = 50;
const REPEATS: usize = 5;

fn log(size: u32, tput: f64) -> String {
    format!(
        "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET : +/-2.500% @ 95% conf.  : demo\n\
         Recv   Send    Send                          \n\
         Socket Socket  Message  Elapsed              \n\
         Size   Size    Size     Time     Throughput  \n\
         bytes  bytes   bytes    secs.    10^6bits/sec  \n\n\
         131072  16384  {size:>5}    10.00    {tput:.2}   \n"
    )
}

/// The archive, with `run` in the top directory so each upload is new.
fn archive(run: usize) -> Vec<u8> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    for (k, kernel) in KERNELS.iter().enumerate() {
        // netperf-bench names the protocol it ran; mmtests' parser reads it first.
        let mut header = tar::Header::new_gnu();
        header.set_size(11);
        header.set_mode(0o644);
        header.set_cksum();
        let path = format!("work{run}/log/{kernel}/iter-0/netperf-tcp/logs/protocols");
        tar.append_data(&mut header, path, &b"TCP_STREAM\n"[..])
            .unwrap();
        for (s, size) in SIZES.iter().enumerate() {
            for i in 1..=SAMPLES {
                let noise =
                    f64::from((i * 7919 + s as u32 * 104729 + k as u32 * 31) % 1000) / 1000.0;
                let text = log(
                    *size,
                    1000.0 * (s + 1) as f64 * (1.0 - 0.02 * k as f64) + noise * 40.0,
                );
                let mut header = tar::Header::new_gnu();
                header.set_size(text.len() as u64);
                header.set_mode(0o644);
                header.set_cksum();
                let path =
                    format!("work{run}/log/{kernel}/iter-0/netperf-tcp/logs/TCP_STREAM-{size}.{i}");
                tar.append_data(&mut header, path, text.as_bytes()).unwrap();
            }
        }
    }
    tar.into_inner().unwrap().finish().unwrap()
}

fn main() {
    let rt = common::runtime();
    let times: Vec<Duration> = common::with_server(&rt, |base| async move {
        let client = reqwest::Client::new();
        let mut times = Vec::new();
        for run in 0..REPEATS {
            let body = archive(run);
            if run == 0 {
                println!(
                    "mmtests: {} files, {} bytes of tar.gz",
                    KERNELS.len() * SIZES.len() * SAMPLES as usize,
                    body.len()
                );
            }
            // A new machine each time: the same tree on another machine is a new upload.
            let t = Instant::now();
            let r = client
                .post(format!("{base}/api/v1/upload?machine=bench-{run}"))
                .body(body)
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let text = r.text().await.unwrap();
            assert_eq!(status, 201, "{text}");
            times.push(t.elapsed());
        }
        times
    });
    let mut sorted = times.clone();
    sorted.sort();
    println!(
        "mmtests: upload median {:.1} ms (all: {:?})",
        sorted[REPEATS / 2].as_secs_f64() * 1e3,
        times
    );
}
