// SPDX-License-Identifier: GPL-3.0-or-later
//! The differential profile (`/profile`): LKP jobs with thousands of keys (the oracle's
//! `09-big-job`, 2,982 keys a run, 600-odd of them perf-profile keys) uploaded as a robot
//! does, each run with folded stacks beside it, then the page: the call-chain tree with both
//! sides' means, the children/self table, and the flame graph drawn as SVG with no script.

use std::path::PathBuf;

use serde_json::Value;

use crate::helpers::*;

pub const CASE: &str = "09-big-job";
pub const MACHINE: &str = "lkp-icl-2sp2";

/// The case's directory and its two commits (baseline first).
fn case() -> (PathBuf, Vec<String>) {
    let dir = crate_fixture("lkp", "lkp-oracle/cases").join(CASE);
    let meta: Value =
        serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
    let commits = meta["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    (dir, commits)
}

/// Each run's `stats.json` of `commit`, in run order.
fn runs_of(dir: &std::path::Path, commit: &str) -> Vec<Vec<u8>> {
    let mut runs: Vec<(u64, PathBuf)> = std::fs::read_dir(dir.join("runs").join(commit))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.file_name().unwrap().to_str().unwrap().parse().unwrap(), p)
        })
        .collect();
    runs.sort();
    runs.into_iter()
        .map(|(_, p)| std::fs::read(p.join("stats.json")).unwrap())
        .collect()
}

/// Folded stacks as `perf script | stackcollapse-perf.pl` prints them for netperf: a syscall
/// path shared by both sides, `copy_user_enhanced_fast_string` growing on the second side and
/// `tcp_ack` shrinking, and 2,000 distinct small stacks besides.
pub fn folded(second: bool, run: usize) -> String {
    let base = "netperf;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_recvfrom;__sys_recvfrom;inet_recvmsg;tcp_recvmsg;tcp_recvmsg_locked;skb_copy_datagram_iter;__skb_datagram_iter;_copy_to_iter";
    let mut out = String::new();
    let grow = if second { 9000 } else { 6000 };
    out.push_str(&format!(
        "{base};copy_user_enhanced_fast_string {}\n",
        grow + run * 10
    ));
    out.push_str(&format!(
        "netperf;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_sendto;__sys_sendto;tcp_sendmsg;tcp_sendmsg_locked;tcp_push;__tcp_push_pending_frames;tcp_write_xmit;__tcp_transmit_skb;ip_queue_xmit;__ip_queue_xmit;ip_finish_output2;__local_bh_enable_ip;do_softirq;net_rx_action;__napi_poll;process_backlog;__netif_receive_skb_one_core;ip_rcv;ip_local_deliver_finish;tcp_v4_rcv;tcp_v4_do_rcv;tcp_rcv_established;tcp_ack {}\n",
        if second { 500 } else { 2500 }
    ));
    for i in 0..2000 {
        out.push_str(&format!(
            "netperf;entry_SYSCALL_64_after_hwframe;do_syscall_64;fn_{};leaf_{i}.isra.0 {}\n",
            i % 50,
            1 + (i % 7)
        ));
    }
    out.push_str("swapper;secondary_startup_64_no_verify;cpu_startup_entry;do_idle;cpuidle_enter;intel_idle 3000\n");
    out
}

/// The mean of `key` over `runs`' stats, two decimals, as the page prints it.
fn mean(runs: &[Vec<u8>], key: &str) -> String {
    let values: Vec<f64> = runs
        .iter()
        .filter_map(|r| {
            let v: Value = serde_json::from_slice(r).unwrap();
            v[key].as_f64()
        })
        .collect();
    format!("{:.2}", values.iter().sum::<f64>() / values.len() as f64)
}

/// Uploads the case's runs, each with its folded stacks beside it; the commits.
pub async fn upload_case(app: &TestApp) -> Vec<String> {
    let (dir, commits) = case();
    for (side, commit) in commits.iter().enumerate() {
        for (i, stats) in runs_of(&dir, commit).into_iter().enumerate() {
            let r = app
                .upload_multipart(
                    &[
                        ("stats.json", stats),
                        ("perf.folded", folded(side == 1, i).into_bytes()),
                    ],
                    &[
                        ("benchmark", "netperf"),
                        ("machine", MACHINE),
                        ("kernel", "4.19.0-rc1"),
                        ("commit", commit),
                    ],
                )
                .await;
            let status = r.status().as_u16();
            let body: Value = r.json().await.unwrap();
            assert_eq!(status, 201, "{body}");
        }
    }
    commits
}

#[tokio::test(flavor = "multi_thread")]
async fn profile_of_two_commits_has_the_tree_the_table_and_the_flame_graph() {
    let app = spawn_app_with(|c| c.write_rate = 0).await;
    let commits = upload_case(&app).await;
    let (dir, _) = case();
    let base_runs = runs_of(&dir, &commits[0]);
    let new_runs = runs_of(&dir, &commits[1]);

    // The upload kept the folded file as it was, under its format.
    let (_, upload) = app.get_json("/api/v1/uploads/1").await;
    let text = upload.to_string();
    assert!(text.contains("\"format\":\"folded\""), "{text}");

    let path = format!(
        "/profile?benchmark=netperf&machine={MACHINE}&commits={},{}",
        commits[0], commits[1]
    );
    let started = std::time::Instant::now();
    let (status, page) = app.get_text(&path).await;
    let took = started.elapsed();
    assert_eq!(status, 200, "{page}");
    eprintln!(
        "profile page of {CASE} with folded stacks: {} bytes in {took:?}",
        page.len()
    );
    assert!(page.len() < 1_500_000, "{} bytes", page.len());

    // The tree: a two-symbol chain `callee.caller` is the node `callee` under `caller`,
    // with both sides' means of its key.
    let chains = &page[page.find("id=\"chains\"").expect("the call-chain tree")..];
    let first: Value = serde_json::from_slice(&base_runs[0]).unwrap();
    let key = first
        .as_object()
        .unwrap()
        .keys()
        .find(|k| {
            k.strip_prefix("perf-profile.calltrace.cycles-pp.")
                .is_some_and(|c| c.matches('.').count() == 1)
        })
        .expect("a chain of two symbols")
        .clone();
    let (callee, caller) = key
        .strip_prefix("perf-profile.calltrace.cycles-pp.")
        .unwrap()
        .split_once('.')
        .unwrap();
    let (m0, m1) = (mean(&base_runs, &key), mean(&new_runs, &key));
    let near = |at: usize| &chains[at..(at + 400).min(chains.len())];
    let caller_at = chains
        .find(&format!(">{caller}<"))
        .unwrap_or_else(|| panic!("{caller} in the tree"));
    assert!(
        chains[caller_at..]
            .match_indices(&format!(">{callee}<"))
            .any(|(at, _)| near(caller_at + at).contains(&m0) && near(caller_at + at).contains(&m1)),
        "{key}: {m0} and {m1} near {callee} under {caller}"
    );
    assert!(chains.contains("<details"), "expandable nodes");

    // The children/self table, sorted by the larger change: its first symbol moved most.
    let table = &page[page.find("id=\"symbols\"").expect("the symbol table")..];
    let first = table.find("<td class=\"sym\">").unwrap();
    let symbol = &table[first + 16..];
    let symbol = &symbol[..symbol.find('<').unwrap()];
    let moved = |s: &str| -> f64 {
        ["children", "self"]
            .iter()
            .map(|k| {
                let key = format!("perf-profile.{k}.cycles-pp.{s}");
                let b: f64 = mean(&base_runs, &key).parse().unwrap_or(f64::NAN);
                let n: f64 = mean(&new_runs, &key).parse().unwrap_or(f64::NAN);
                let (b, n) = (
                    if b.is_nan() { 0.0 } else { b },
                    if n.is_nan() { 0.0 } else { n },
                );
                (n - b).abs()
            })
            .fold(0.0, f64::max)
    };
    let top = moved(symbol);
    for other in ["copy_user_enhanced_fast_string", "do_syscall_64", "tcp_ack"] {
        assert!(
            top + 0.01 >= moved(other),
            "{symbol} first, but {other} moved more"
        );
    }

    // The flame graph: SVG on the page, frames with hover titles, no script in it; the
    // growing leaf red, the shrinking one blue.
    let svg_at = page.find("<svg").expect("an inline SVG");
    let svg = &page[svg_at..svg_at + page[svg_at..].find("</svg>").unwrap()];
    assert!(!svg.to_lowercase().contains("<script"));
    for handler in ["onload", "onclick", "onmouse", "javascript:"] {
        assert!(
            !svg.to_lowercase().contains(handler),
            "no {handler} in the SVG"
        );
    }
    let frames = svg.matches("<rect").count();
    assert!(frames > 50, "{frames} frames");
    assert!(frames <= 3001, "{frames} frames");
    assert_eq!(svg.matches("<title>").count(), frames);
    let frame_fill = |name: &str| -> String {
        let t = svg
            .find(&format!("<title>{name}\n"))
            .unwrap_or_else(|| panic!("a frame {name}"));
        let rect = &svg[t..];
        let fill = &rect[rect.find("fill=\"").unwrap() + 6..];
        fill[..fill.find('"').unwrap()].to_owned()
    };
    assert!(frame_fill("copy_user_enhanced_fast_string").starts_with("rgb(255,"));
    assert!(frame_fill("tcp_ack").ends_with(",255)"));
    assert!(svg.contains("narrow frames") || page.contains("merged"));

    // The page's own policy holds: its scripts are the shell's, with their nonce.
    let r = reqwest::get(app.url(&path)).await.unwrap();
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("script-src 'self'"), "{csp}");

    // One column is not a profile.
    let (status, page) = app
        .get_text(&format!(
            "/profile?benchmark=netperf&machine={MACHINE}&commits={}",
            commits[0]
        ))
        .await;
    assert_eq!(status, 400);
    assert!(page.contains("two kernels or commits"), "{page}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn folded_stacks_upload_beside_results_only_and_are_checked() {
    let app = spawn_app().await;
    let fields = [
        ("benchmark", "netperf"),
        ("machine", "m1"),
        ("kernel", "6.1.0"),
    ];
    // Alone they make no run.
    let r = app
        .upload_multipart(&[("perf.folded", folded(false, 0).into_bytes())], &fields)
        .await;
    assert_error(r, 422, "folded stacks").await;
    // A broken line is refused with its number when the format is named.
    let r = app
        .upload_raw(
            "benchmark=netperf&machine=m1&kernel=6.1.0&format=folded",
            "a;b 1\na;c many\n",
        )
        .await;
    assert_error(r, 422, "line 2").await;
    // Too deep a stack is refused.
    let deep = format!("{} 1\n", vec!["f"; 600].join(";"));
    let r = app
        .upload_multipart(
            &[
                (
                    "r.csv",
                    b"benchmark,metric,value\nnetperf,Throughput,1\n".to_vec(),
                ),
                ("perf.folded", deep.into_bytes()),
            ],
            &fields,
        )
        .await;
    assert_error(r, 422, "frames").await;
    // No folded stacks beside the runs: the page says so and draws no graph.
    let r = app
        .upload_raw(
            "benchmark=netperf&machine=m1&kernel=6.1.0",
            "benchmark,metric,value\nnetperf,Throughput,1\n",
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let r = app
        .upload_raw(
            "benchmark=netperf&machine=m1&kernel=6.2.0",
            "benchmark,metric,value\nnetperf,Throughput,2\n",
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let (status, page) = app
        .get_text("/profile?benchmark=netperf&machine=m1&kernels=6.1.0,6.2.0")
        .await;
    assert_eq!(status, 200);
    assert!(
        page.contains("id=\"profile-no-keys\""),
        "no perf-profile keys"
    );
    assert!(page.contains("No flame graph"));
    assert!(!page.contains("<svg"));
    app.stop().await;
}
