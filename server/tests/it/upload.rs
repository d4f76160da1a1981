// SPDX-License-Identifier: GPL-3.0-or-later
//! Uploads as users send them: curl with a raw body, curl -F, several files, re-uploads.

use serde_json::Value;

use crate::helpers::*;

#[tokio::test(flavor = "multi_thread")]
async fn raw_csv_upload_stores_runs_and_keeps_the_bytes() {
    let app = spawn_app().await;
    let body = read_fixture("generic/netperf-sweep.csv");
    let r = app.upload_raw("machine=lkp-bdw-de1&kernel=4.16.0-rc1&commit=a337531b94&tags=ip%3Dipv4,governor%3Dperformance", body.clone()).await;
    assert_eq!(r.status().as_u16(), 201);
    assert_eq!(r.headers()["location"], "/api/v1/uploads/1");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["created"], true);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["benchmark"], "netperf-tcp");
    assert_eq!(runs[0]["machine"], "lkp-bdw-de1");
    assert_eq!(runs[0]["kernel"], "4.16.0-rc1");
    assert_eq!(runs[0]["commit"], "a337531b94");
    assert_eq!(runs[0]["samples"], 6);
    assert_eq!(
        runs[0]["tags"],
        serde_json::json!([["governor", "performance"], ["ip", "ipv4"]])
    );
    assert_eq!(v["upload"]["files"][0]["format"], "csv");

    // The raw bytes come back exactly.
    let raw = app
        .client
        .get(app.url("/api/v1/uploads/1/raw"))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status().as_u16(), 200);
    assert_eq!(raw.bytes().await.unwrap().as_ref(), body.as_slice());

    // The run holds the samples, grouped by metric and param in natural order.
    let run_url = runs[0]["url"].as_str().unwrap();
    let (status, run) = app.get_json(run_url).await;
    assert_eq!(status, 200);
    let series = run["series"].as_array().unwrap();
    assert_eq!(series.len(), 2);
    assert_eq!(series[0]["param"], "64");
    assert_eq!(series[0]["unit"], "10^6bits/sec");
    assert_eq!(
        series[0]["samples"],
        serde_json::json!([[1, 1771.31], [2, 1835.70], [3, 1780.55]])
    );
    assert_eq!(series[1]["param"], "1024");
}

#[tokio::test(flavor = "multi_thread")]
async fn multipart_with_several_files_is_one_upload() {
    let app = spawn_app().await;
    let r = app
        .upload_multipart(
            &[
                ("sweep.csv", read_fixture("generic/netperf-sweep.csv")),
                ("hb.json", read_fixture("generic/multi-kernel.json")),
            ],
            &[("machine", "bdw-de1"), ("kernel", "4.15.0")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let v: Value = r.json().await.unwrap();
    let runs: Vec<(String, String, i64)> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["benchmark"].as_str().unwrap().to_owned(),
                r["kernel"].as_str().unwrap().to_owned(),
                r["samples"].as_i64().unwrap(),
            )
        })
        .collect();
    // The JSON's own kernels override the form's kernel; the CSV has none, so it gets the form's.
    assert_eq!(
        runs,
        vec![
            ("netperf-tcp".into(), "4.15.0".into(), 6),
            ("hackbench-process-pipes".into(), "4.16.0-rc1".into(), 2),
            ("hackbench-process-pipes".into(), "4.16.0".into(), 2),
        ]
    );
    let files = v["upload"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[1]["name"], "hb.json");
    assert_eq!(files[1]["format"], "json");
    let raw = app
        .client
        .get(app.url("/api/v1/uploads/1/raw?file=1"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(
        raw.as_ref(),
        read_fixture("generic/multi-kernel.json").as_slice()
    );
    // The JSON document's tags are kept on its runs.
    let (_, run) = app.get_json(v["runs"][1]["url"].as_str().unwrap()).await;
    assert_eq!(
        run["run"]["tags"],
        serde_json::json!([["ipc", "pipes"], ["mode", "process"]])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_upload_twice_stores_nothing_new() {
    let app = spawn_app().await;
    let body = read_fixture("generic/netperf-sweep.csv");
    let first: Value = app
        .upload_raw("machine=m1&kernel=6.1.0", body.clone())
        .await
        .json()
        .await
        .unwrap();
    let before = app.counts().await;
    let again = app
        .upload_raw("machine=m1&kernel=6.1.0", body.clone())
        .await;
    assert_eq!(again.status().as_u16(), 200);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["created"], false);
    assert_eq!(again["runs"], first["runs"]);
    assert_eq!(app.counts().await, before);
    // Other metadata with the same bytes is a new upload.
    let other = app.upload_raw("machine=m1&kernel=6.2.0", body).await;
    assert_eq!(other.status().as_u16(), 201);
}

#[tokio::test(flavor = "multi_thread")]
async fn text_plain_gives_a_short_summary() {
    let app = spawn_app().await;
    let r = app
        .client
        .post(app.url("/api/v1/upload?machine=m1&kernel=6.1.0"))
        .header("accept", "text/plain")
        .body(read_fixture("generic/netperf-sweep.csv"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let text = r.text().await.unwrap();
    let expected = format!("stored upload 1: 1 run(s), 6 sample(s)\n  run 1  netperf-tcp  m1  6.1.0  6 samples  http://{}/runs/1\n", app.addr);
    assert_eq!(text, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn one_csv_can_carry_several_kernels() {
    let app = spawn_app().await;
    let v = app.upload_hackbench_samples().await;
    let kernels: Vec<&str> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kernel"].as_str().unwrap())
        .collect();
    assert_eq!(
        kernels,
        vec![
            "5.4.0-vanilla",
            "5.5.0-rc3-vanilla",
            "5.5.0-rc3-wakeidle",
            "5.5.0-vanilla"
        ]
    );
    assert_eq!(v["upload"]["samples"], 96);
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_outputs_are_recognised_and_their_facts_shown() {
    let app = spawn_app().await;
    let v = app
        .upload_fixture(
            "machine=m1&kernel=6.1.0",
            "hackbench/hackbench-rt-tests-pipes.txt",
        )
        .await;
    assert_eq!(v["upload"]["files"][0]["format"], "hackbench");
    assert_eq!(v["runs"][0]["benchmark"], "hackbench");
    assert_eq!(v["runs"][0]["samples"], 9);
    let v = app
        .upload_fixture(
            "machine=m1&kernel=6.1.0&benchmark=sysbench-cpu-t1",
            "sysbench/sysbench-cpu.txt",
        )
        .await;
    assert_eq!(v["upload"]["files"][0]["format"], "sysbench");
    assert_eq!(v["runs"][0]["benchmark"], "sysbench-cpu-t1");
    assert!(v["runs"][0]["facts"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!(["threads", "1"])));
    let (_, page) = app.get_text("/runs/1").await;
    assert!(
        page.contains("fds_per_group") && page.contains("100 messages of 100 bytes"),
        "run page shows the facts"
    );
}

/// The mmtests fixture tree as a tar.gz, as `tar czf work-log.tar.gz -C work log` makes it.

#[tokio::test(flavor = "multi_thread")]
async fn an_mmtests_archive_becomes_runs_per_kernel_and_benchmark() {
    let app = spawn_app().await;
    let r = app
        .upload_multipart(
            &[("work-log.tar.gz", work_log_tar_gz())],
            &[("machine", "m1"), ("tags", "board=x1")],
        )
        .await;
    let status = r.status().as_u16();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["upload"]["files"][0]["format"], "mmtests");
    // The answer's upload and runs (summarised as they were stored) are what reading the
    // upload gives.
    let (code, stored) = app.get_json("/api/v1/uploads/1").await;
    assert_eq!(code, 200, "{stored}");
    assert_eq!(stored["upload"], v["upload"]);
    assert_eq!(stored["runs"], v["runs"]);
    assert_eq!(v["runs"][0]["tags"], serde_json::json!([["board", "x1"]]));
    assert!(!v["runs"][0]["facts"].as_array().unwrap().is_empty());
    assert_eq!(
        v["runs"].as_array().unwrap().len(),
        8,
        "4 kernels × 2 benchmarks"
    );
    assert_eq!(v["upload"]["samples"], 120 + 96);
    let (_, table) = app.get_json("/api/v1/compare?benchmark=hackbench-process-pipes&machine=m1&kernels=5.4.0-vanilla,5.5.0-vanilla").await;
    assert_eq!(table["rows"][0]["metric"], "time");
    assert_eq!(table["rows"][0]["direction"], "lower");
}

#[tokio::test(flavor = "multi_thread")]
async fn form_fields_may_not_contradict_the_file() {
    let app = spawn_app().await;
    let before = app.counts().await;
    let r = app
        .upload_multipart(
            &[("work-log.tar.gz", work_log_tar_gz())],
            &[("machine", "m1"), ("kernel", "6.1.0")],
        )
        .await;
    let body = assert_error(
        r,
        422,
        "the kernel field says '6.1.0' but the archive's tree says",
    )
    .await;
    assert_eq!(body["error"]["field"], "kernel");
    let r = app
        .upload_raw(
            "machine=m1&kernel=6.1.0&tags=threads%3D8",
            read_fixture("sysbench/sysbench-cpu.txt"),
        )
        .await;
    assert_error(
        r,
        422,
        "tag threads=8 contradicts the file, which says threads=1",
    )
    .await;
    assert_eq!(app.counts().await, before);
}

/// Seed 003 as it was pasted in the mail (wrapped header, `Run N:` blocks), and omni's
/// headerless `value,unit` lines, through the API with `format=netperf`.
#[tokio::test(flavor = "multi_thread")]
async fn netperf_as_people_paste_it() {
    let app = spawn_app().await;
    let body = app
        .upload_fixture(
            "format=netperf&benchmark=netperf-tcp&machine=dl145&kernel=2.6.12-rc5",
            "netperf/seed003-mail-wrapped-runs.txt",
        )
        .await;
    let run = body["runs"][0]["id"].as_i64().expect("a run");
    let (_, detail) = app.get_json(&format!("/api/v1/runs/{run}")).await;
    let tput = detail["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["metric"] == "Throughput")
        .unwrap()
        .clone();
    assert_eq!(tput["samples"].as_array().unwrap().len(), 3, "{tput}");
    assert_eq!(tput["unit"], "10^6bits/s");
    let body = app
        .upload_fixture(
            "format=netperf&benchmark=netperf-omni&machine=dl145&kernel=2.6.12-rc5",
            "netperf/omni-o-P0.txt",
        )
        .await;
    assert_eq!(body["runs"][0]["samples"], 3, "{body}");
}

/// The upload page packs a chosen mmtests folder with `app::resultdir::ustar` (no compressor
/// in the browser): the server reads that archive exactly as the `tar czf` of the same tree.
#[tokio::test(flavor = "multi_thread")]
async fn a_folder_packed_by_the_page_reads_like_tar_czf() {
    fn walk(dir: &std::path::Path, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for e in entries {
            let name = format!("{prefix}/{}", e.file_name().to_string_lossy());
            if e.path().is_dir() {
                walk(&e.path(), &name, out);
            } else {
                out.push((name, std::fs::read(e.path()).unwrap()));
            }
        }
    }
    let app = spawn_app().await;
    let mut entries = Vec::new();
    walk(&fixture("mmtests/work-log"), "log", &mut entries);
    let tar = app::resultdir::ustar(&entries).unwrap();
    // GNU tar lists it too.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("work-log.tar"), &tar).unwrap();
    let listed = std::process::Command::new("tar")
        .arg("tf")
        .arg(dir.path().join("work-log.tar"))
        .output()
        .unwrap();
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout).lines().count(),
        entries.len()
    );
    let r = app
        .upload_multipart(&[("work-log.tar", tar)], &[("machine", "page")])
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    app.upload_work_log().await;
    let samples = |machine: &'static str| {
        let app = &app;
        async move {
            let (_, runs) = app
                .get_json(&format!("/api/v1/runs?machine={machine}&limit=100"))
                .await;
            let mut v: Vec<(String, String, i64)> = runs["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["benchmark"].as_str().unwrap().to_owned(),
                        r["kernel"].as_str().unwrap().to_owned(),
                        r["samples"].as_i64().unwrap(),
                    )
                })
                .collect();
            v.sort();
            v
        }
    };
    let (page, cli) = (samples("page").await, samples("m1").await);
    assert_eq!(page.len(), 8);
    assert_eq!(page, cli);
    app.stop().await;
}

/// An LKP job as the robot writes it: keys of hundreds of characters with `: / % @ # + = ,`,
/// a few string values, a key longer than any Perfline takes. The job is stored without what
/// it cannot take, and the answer says what and why; a file that is no stats document at all
/// is still refused, naming the line.
#[tokio::test(flavor = "multi_thread")]
async fn lkp_jobs_are_stored_without_the_keys_perfline_cannot_take() {
    let app = spawn_app().await;
    let long = format!(
        "perf-profile.calltrace.cycles-pp.{}",
        "entry_SYSCALL_64_after_hwframe.do_syscall_64.".repeat(21)
    );
    assert!((900..=1024).contains(&long.len()), "{}", long.len());
    let too_long = format!("perf-profile.children.cycles-pp.{}", "x".repeat(1100));
    let mut stats = serde_json::Map::new();
    stats.insert("netperf.Throughput_Mbps".into(), 2497.1.into());
    stats.insert("proc-vmstat.nr_dirty:ratio/%@#+=,".into(), 3.into());
    stats.insert(long.clone(), 1.25.into());
    stats.insert(too_long.clone(), 0.5.into());
    stats.insert("kernel.version".into(), "4.16.0-rc1".into());
    let body = serde_json::to_vec(&Value::Object(stats)).unwrap();
    let r = app
        .upload_raw(
            "machine=lkp-bdw-de1&kernel=4.16.0&commit=a337531b94",
            body.clone(),
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let answer: Value = r.json().await.unwrap();
    let skipped: Vec<&str> = answer["skipped"]
        .as_array()
        .expect("the answer lists what was skipped")
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(
        skipped
            .iter()
            .any(|s| s.contains("kernel.version") && s.contains("a string")),
        "{skipped:?}"
    );
    assert!(
        skipped
            .iter()
            .any(|s| s.contains("perf-profile.children")
                && s.contains("longer than 1024 characters")),
        "{skipped:?}"
    );
    // The keys it could take are stored, the long one whole.
    let run = answer["runs"][0]["id"].as_i64().unwrap();
    let (_, detail) = app.get_json(&format!("/api/v1/runs/{run}")).await;
    let metrics: Vec<&str> = detail["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["metric"].as_str().unwrap())
        .collect();
    assert_eq!(metrics.len(), 3, "{metrics:?}");
    assert!(metrics.contains(&long.as_str()));
    assert!(metrics.contains(&"proc-vmstat.nr_dirty:ratio/%@#+=,"));
    // The text answer says it in a line.
    let r = app
        .client
        .post(app.url("/api/v1/upload?machine=lkp-bdw-de1&kernel=4.16.0&commit=a337531b95"))
        .header("accept", "text/plain")
        .body(body)
        .send()
        .await
        .unwrap();
    let text = r.text().await.unwrap();
    assert!(text.contains("2 keys skipped: "), "{text}");
    // A document that is not LKP's at all is still refused, naming the line.
    let r = app
        .upload_raw(
            "machine=m&kernel=k&format=lkp-stats",
            "{\"a.b\": 1,\n oops}",
        )
        .await;
    assert_error(r, 422, "line 2").await;
}

/// Deleting a machine's only upload removes the machine with it (issue 52: it answered 500,
/// a foreign key, when the machine had nothing else).
#[tokio::test(flavor = "multi_thread")]
async fn deleting_a_machines_only_upload_removes_the_machine() {
    let app = spawn_app().await;
    let r = app
        .upload_raw(
            "benchmark=b&machine=tmpbox&kernel=6.9.0",
            "metric,value\nthr,1\nthr,2\n".to_owned(),
        )
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let id = r.json::<Value>().await.unwrap()["upload"]["id"]
        .as_i64()
        .expect("the upload's id");
    crate::alerts::settle(&app).await;
    let r = app
        .client
        .delete(app.url(&format!("/api/v1/uploads/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let counts = app.counts().await;
    for table in ["machine", "kernel", "upload", "run"] {
        let n = counts.iter().find(|(t, _)| t == table).unwrap().1;
        assert_eq!(n, 0, "{table}: {counts:?}");
    }
}
