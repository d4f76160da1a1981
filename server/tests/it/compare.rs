// SPDX-License-Identifier: GPL-3.0-or-later
//! Comparisons through the HTTP API: mmtests text against mmtests' own output, LKP text, JSON,
//! permalinks, exports, and bad requests.

use serde_json::Value;
use std::time::Instant;

use crate::helpers::*;

const KERNELS: &str = "5.4.0-vanilla,5.5.0-rc3-vanilla,5.5.0-rc3-wakeidle,5.5.0-vanilla";

/// Splits the text answer into the table and the permalink line under it.
fn table_and_permalink(text: &str) -> (&str, &str) {
    let (table, footer) = text
        .rsplit_once("\nPermalink: ")
        .expect("a permalink line under the table");
    (table, footer.trim_end())
}

#[tokio::test(flavor = "multi_thread")]
async fn mmtests_text_is_what_mmtests_printed() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    for (benchmark, fixture_name) in [
        ("netperf-tcp", "mmtests/netperf-tcp-compare.txt"),
        ("hackbench-process-pipes", "mmtests/hackbench-compare.txt"),
    ] {
        let expected = String::from_utf8(read_fixture(fixture_name)).unwrap();
        let path = format!("/api/v1/compare?benchmark={benchmark}&machine=m1&kernels={KERNELS}");
        let (status, content_type, text) = app.get_accept(&path, "text/plain").await;
        assert_eq!(status, 200, "{text}");
        assert!(content_type.starts_with("text/plain"), "{content_type}");
        let (table, permalink) = table_and_permalink(&text);
        // Number for number, percentage for percentage, marker for marker.
        assert_eq!(
            table, expected,
            "{benchmark}: ours\n{table}\nmmtests\n{expected}"
        );
        assert!(
            permalink.starts_with(&format!("{}/c/", app.base)),
            "{permalink}"
        );
        // format=text says the same as the Accept header.
        let (_, by_format) = app.get_text(&format!("{path}&format=text")).await;
        assert_eq!(by_format, text);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn json_has_every_statistic_and_verdict() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    let (status, c) = app
        .get_json(&format!(
            "/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels={KERNELS}"
        ))
        .await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["precision"], 2);
    assert_eq!(c["query"]["kernels"][0], "5.4.0-vanilla");
    assert_eq!(c["runs"].as_array().unwrap().len(), 4);
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "five message sizes");
    let row = &rows[0];
    assert_eq!(row["label"], "tcpstream-send-64");
    assert_eq!(row["direction"], "higher");
    let base = &row["cells"][0];
    assert_eq!(base["verdict"], "baseline");
    assert_eq!(base["stats"]["n"], 6);
    for key in [
        "min",
        "max",
        "amean",
        "hmean",
        "stddev",
        "hstddev",
        "coeffvar",
        "hcoeffvar",
        "bamean95",
        "bhmean95",
        "median",
        "pstddev",
        "upper_median",
    ] {
        assert!(base["stats"][key].is_number(), "stats.{key} in {base}");
    }
    assert_eq!(
        format!("{:.2}", base["stats"]["hmean"].as_f64().unwrap()),
        "1784.43"
    );
    let new = &row["cells"][1];
    assert_eq!(new["significant"], true);
    assert_eq!(new["verdict"], "regression");
    assert_eq!(
        format!("{:.2}", new["changes"]["mean"].as_f64().unwrap()),
        "-47.02"
    );
    assert_eq!(new["lkp_changed"], true);
}

fn lkp_csv() -> String {
    let mut csv = String::from("kernel,metric,iteration,value\n");
    let rows: [(&str, &str, [f64; 4]); 4] = [
        (
            "4.16.0-rc1",
            "netperf.Throughput_Mbps",
            [2497.1, 2501.3, 2490.0, 2499.6],
        ),
        (
            "4.16.0-rc2",
            "netperf.Throughput_Mbps",
            [2345.2, 2340.1, 2350.3, 2344.9],
        ),
        (
            "4.16.0-rc1",
            "netperf.time.elapsed_time",
            [900.1, 900.2, 900.0, 900.1],
        ),
        (
            "4.16.0-rc2",
            "netperf.time.elapsed_time",
            [900.1, 900.0, 900.2, 900.1],
        ),
    ];
    for (kernel, metric, values) in rows {
        for (i, v) in values.iter().enumerate() {
            csv.push_str(&format!("{kernel},{metric},{},{v}\n", i + 1));
        }
    }
    csv
}

#[tokio::test(flavor = "multi_thread")]
async fn lkp_style_shows_the_changed_rows_like_ncompare() {
    let app = spawn_app().await;
    let r = app
        .upload_raw("benchmark=netperf&machine=lkp-bdw-de1", lkp_csv())
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let path = "/api/v1/compare?benchmark=netperf&machine=lkp-bdw-de1&kernels=4.16.0-rc1,4.16.0-rc2&format=text&style=lkp";
    let (status, text) = app.get_text(path).await;
    assert_eq!(status, 200, "{text}");
    let (report, _) = table_and_permalink(&text);
    // lkp-tests' own layout (`lkp`): each iteration counts as one of LKP's runs.
    let header = "\
=========================================================================================
tbox_group/testcase:
  lkp-bdw-de1/netperf

commit: 
  4.16.0-rc1
  4.16.0-rc2

      4.16.0-rc1                  4.16.0-rc2 
---------------- --------------------------- 
         %stddev     %change         %stddev
             \\          |                \\  
";
    let throughput = "      2497            -6.1%       2345        netperf.Throughput_Mbps\n";
    let elapsed = "    900.10            +0.0%     900.10        netperf.time.elapsed_time\n";
    assert_eq!(report, format!("{header}{throughput}\n"));
    let (_, all) = app.get_text(&format!("{path}&all=1")).await;
    let (report, link) = table_and_permalink(&all);
    assert_eq!(report, format!("{header}{throughput}{elapsed}\n"));

    // The page draws one chart per metric; each is the permalink's SVG for that metric.
    let (_, html) = app
        .get_text("/compare?benchmark=netperf&machine=lkp-bdw-de1&kernels=4.16.0-rc1,4.16.0-rc2")
        .await;
    let id = link.rsplit('/').next().unwrap();
    for metric in ["netperf.Throughput_Mbps", "netperf.time.elapsed_time"] {
        let src = format!("/c/{id}?format=svg&amp;chart={metric}");
        assert!(html.contains(&src), "the page has a chart {src}");
        let (status, svg) = app
            .get_text(&format!("/c/{id}?format=svg&chart={metric}"))
            .await;
        assert_eq!(status, 200);
        assert!(
            svg.contains(metric),
            "the chart of {metric} says so in its caption"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn permalinks_pin_the_runs_and_answer_every_shape() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    let live = "/api/v1/compare?benchmark=hackbench-process-pipes&machine=m1&kernels=5.4.0-vanilla,5.5.0-vanilla";
    let (_, before) = app.get_json(live).await;
    let id = before["permalink"]
        .as_str()
        .expect("a permalink id")
        .to_owned();
    assert!(
        id.len() >= 10 && id.chars().all(|c| c.is_ascii_alphanumeric()),
        "{id}"
    );
    let (_, again) = app.get_json(live).await;
    assert_eq!(
        again["permalink"],
        id.as_str(),
        "the same question over the same runs"
    );
    let permalinks = |counts: Vec<(String, i64)>| {
        counts
            .into_iter()
            .find(|(t, _)| t == "permalink")
            .unwrap()
            .1
    };
    assert_eq!(permalinks(app.counts().await), 1);

    // New, much slower runs of 5.5.0-vanilla: the live comparison moves, the permalink does not.
    let mut csv = String::from("kernel,metric,param,iteration,value\n");
    for i in 1..=5 {
        csv.push_str(&format!("5.5.0-vanilla,time,1,{i},9.0\n"));
    }
    let r = app
        .upload_raw("benchmark=hackbench-process-pipes&machine=m1", csv)
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let (_, after) = app.get_json(live).await;
    assert_ne!(
        after["permalink"],
        id.as_str(),
        "new runs answer, so a new permalink"
    );
    let amean = |c: &Value| c["rows"][0]["cells"][1]["stats"]["amean"].as_f64().unwrap();
    assert!(amean(&after) > amean(&before));

    let (status, content_type, pinned) = app
        .get_accept(&format!("/c/{id}"), "application/json")
        .await;
    assert_eq!(status, 200);
    assert!(content_type.starts_with("application/json"));
    let pinned: Value = serde_json::from_str(&pinned).unwrap();
    assert_eq!(pinned["rows"], before["rows"], "the same numbers forever");
    assert_eq!(pinned["runs"], before["runs"]);

    let (status, _, text) = app.get_accept(&format!("/c/{id}"), "text/plain").await;
    assert_eq!(status, 200);
    let (table, link) = table_and_permalink(&text);
    assert!(table.contains("Amean     time-1"), "{table}");
    assert_eq!(link, format!("{}/c/{id}", app.base));

    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let (status, content_type, html) = app.get_accept(&format!("/c/{id}"), browser).await;
    assert_eq!(status, 200);
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(
        html.contains("id=\"compare-table\""),
        "the page renders the table"
    );

    let (status, _, _) = app.get_accept("/c/doesnotexist", "application/json").await;
    assert_eq!(status, 404);
    let (status, _, _) = app.get_accept("/c/not%2Fan%2Fid", "text/plain").await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn exports_are_safe_csv_and_escaped_svg() {
    let app = spawn_app().await;
    let hostile = "=HYPERLINK(\"http://evil\")<script>alert(1)</script>";
    let mut csv = String::from("kernel,metric,param,iteration,value\n");
    for (kernel, base) in [("6.1.0", 10.0), (hostile, 12.0)] {
        for i in 1..=3 {
            csv.push_str(&format!(
                "\"{}\",tput,64,{i},{}\n",
                kernel.replace('"', "\"\""),
                base + f64::from(i) / 10.0
            ));
        }
    }
    let r = app.upload_raw("benchmark=b&machine=m", csv).await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let kernels = format!("6.1.0,{}", urlencode(hostile));
    let path = format!("/api/v1/compare?benchmark=b&machine=m&kernels={kernels}");

    let (status, content_type, body) = app.get_accept(&format!("{path}&format=csv"), "*/*").await;
    assert_eq!(status, 200, "{body}");
    assert!(content_type.starts_with("text/csv"));
    let mut lines = body.lines();
    assert_eq!(
        lines.next(),
        Some("kernel,run,metric,param,unit,direction,iteration,value")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 6);
    assert!(rows[0].starts_with("6.1.0,"), "{}", rows[0]);
    assert!(
        rows[3].starts_with("\"'=HYPERLINK("),
        "a formula is defused: {}",
        rows[3]
    );

    let (status, content_type, svg) = app.get_accept(&path, "image/svg+xml").await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "image/svg+xml");
    assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
    assert!(!svg.contains("<script>"), "user text is escaped in the SVG");
    assert!(svg.contains("6.1.0"), "the legend names the kernels");
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_compare_requests_say_what_is_wrong() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    let base = "/api/v1/compare?benchmark=netperf-tcp&machine=m1";
    let get = |path: String| {
        let app = &app;
        async move { app.client.get(app.url(&path)).send().await.unwrap() }
    };
    let cases: [(String, u16, &str); 8] = [
        (base.to_string(), 400, "kernels is required"),
        (format!("{base}&kernels="), 400, "at least one kernel"),
        (
            format!("{base}&kernels=5.4.0-vanilla,5.4.0-vanilla"),
            400,
            "twice",
        ),
        (
            format!("{base}&kernels=5.4.0-vanilla,9.9.9"),
            404,
            "kernel 9.9.9",
        ),
        (
            format!("{base}&kernels=5.4.0-vanilla&format=xls"),
            400,
            "format must be",
        ),
        (
            format!("{base}&kernels=5.4.0-vanilla&format=text&style=x"),
            400,
            "style must be",
        ),
        (
            format!("{base}&kernels=5.4.0-vanilla&precision=99"),
            400,
            "precision",
        ),
        (
            format!("{base}&kernels=5.4.0-vanilla&colour=red"),
            400,
            "colour",
        ),
    ];
    for (path, status, needle) in cases {
        assert_error(get(path).await, status, needle).await;
    }
    let before = app.counts().await;
    assert_error(
        get(format!("{base}&kernels=5.4.0-vanilla&metric=nope")).await,
        404,
        "metric nope",
    )
    .await;
    assert_eq!(
        app.counts().await,
        before,
        "a failed comparison stores nothing"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_offers_kernels_in_version_order() {
    let app = spawn_app().await;
    let mut csv = String::from("kernel,metric,iteration,value\n");
    for kernel in ["4.17.0-rc1", "4.16.1", "4.16.0", "4.16.0-rc2", "4.16.0-rc1"] {
        csv.push_str(&format!("{kernel},tput,1,1.0\n"));
    }
    let r = app.upload_raw("benchmark=b&machine=m", csv).await;
    assert_eq!(r.status().as_u16(), 201);
    let (status, html) = app.get_text("/compare?benchmark=b&machine=m").await;
    assert_eq!(status, 200);
    let offered: Vec<&str> = html
        .split("class=\"add-kernel\"")
        .skip(1)
        .filter_map(|s| {
            s.split("+ <!-- -->")
                .nth(1)
                .or_else(|| s.split("+ <!>").nth(1))
        })
        .filter_map(|s| s.split('<').next())
        .collect();
    assert_eq!(
        offered,
        ["4.16.0-rc1", "4.16.0-rc2", "4.16.0", "4.16.1", "4.17.0-rc1"],
        "kernel-aware order"
    );
}

/// Seed 001: LKP's failure keys are `fail:runs` with `%reproduction`, above the `%stddev`
/// block, in lkp-tests' columns; in the comparison's LKP text and in `/api/v1/report`.
#[tokio::test(flavor = "multi_thread")]
async fn lkp_failure_keys_print_as_fail_runs() {
    let app = spawn_app().await;
    let base = r#"{"stats_source": ["a", "b", "c", "d"],
        "netperf.Throughput_Mbps": [2497, 2496, 2498, 2497]}"#;
    let bad = r#"{"stats_source": ["a", "b", "c", "d"],
        "netperf.Throughput_Mbps": [2345, 2346, 2344, 2345],
        "dmesg.WARNING:at#for_ip_interrupt_entry/0x": [1, 0, 1, 0]}"#;
    for (commit, body) in [("3ff6cde846857d45", base), ("a337531b942bd8a0", bad)] {
        let r = app
            .upload_raw(
                &format!("benchmark=netperf&machine=lkp-bdw-de1&kernel={commit}&commit={commit}"),
                body,
            )
            .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    let (status, text) = app
        .get_text("/api/v1/compare?benchmark=netperf&machine=lkp-bdw-de1&kernels=3ff6cde846857d45,a337531b942bd8a0&format=text&style=lkp")
        .await;
    assert_eq!(status, 200, "{text}");
    // lkp-tests' layout, to the trailing spaces of its second line.
    let block = "       fail:runs  %reproduction    fail:runs\n           |             |             |    \n           :4           50%           2:4     dmesg.WARNING:at#for_ip_interrupt_entry/0x\n         %stddev     %change         %stddev\n";
    assert!(text.contains(block), "{text}");
    assert_eq!(
        text.matches("dmesg.WARNING").count(),
        1,
        "the failure key is not also a %stddev row: {text}"
    );
    let (status, report) = app
        .get_text("/api/v1/report?benchmark=netperf&machine=lkp-bdw-de1&base=3ff6cde846857d45&bad=a337531b942bd8a0")
        .await;
    assert_eq!(status, 200, "{report}");
    assert!(report.contains(block), "{report}");
    assert!(
        report.contains("FYI, we noticed a -6.1% regression of netperf.Throughput_Mbps"),
        "{report}"
    );
}

/// An mmtests tree whose runs carry their system files: the comparison says what differs
/// besides the kernel — config options, and loudly the governor — in JSON, text and page.
#[tokio::test(flavor = "multi_thread")]
async fn what_changed_besides_the_kernel() {
    let app = spawn_app().await;
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    tar.append_dir_all("log", fixture("mmtests/work-log"))
        .unwrap();
    let mut add = |path: &str, text: &str| {
        let mut h = tar::Header::new_gnu();
        h.set_size(text.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, path, text.as_bytes()).unwrap();
    };
    let governor = |g: &str| {
        format!("analyzing CPU 0:\n  driver: intel_pstate\n  The governor \"{g}\" may decide which speed to use\n")
    };
    add(
        "log/5.4.0-vanilla/iter-0/cpupower",
        &governor("performance"),
    );
    add("log/5.5.0-vanilla/iter-0/cpupower", &governor("powersave"));
    add(
        "log/5.4.0-vanilla/iter-0/kernel-config",
        "CONFIG_HZ=250\nCONFIG_OLD=y\n",
    );
    add(
        "log/5.5.0-vanilla/iter-0/kernel-config",
        "CONFIG_HZ=1000\nCONFIG_NEW=m\n",
    );
    add(
        "log/5.5.0-rc3-vanilla/iter-0/kernel-config",
        "CONFIG_HZ=250\nCONFIG_OLD=y\n",
    );
    add(
        "log/5.5.0-rc3-vanilla/iter-0/cpupower",
        &governor("performance"),
    );
    let bytes = tar.into_inner().unwrap().finish().unwrap();
    let r = app
        .upload_multipart(&[("work-log.tar.gz", bytes)], &[("machine", "m1")])
        .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let path = "/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels=5.4.0-vanilla,5.5.0-rc3-vanilla,5.5.0-vanilla";
    let (status, c) = app.get_json(path).await;
    assert_eq!(status, 200, "{c}");
    let facts = c["facts"].as_array().unwrap();
    assert_eq!(facts.len(), 1, "only 5.5.0-vanilla differs: {c}");
    assert_eq!(facts[0]["kernel"], "5.5.0-vanilla");
    assert_eq!(facts[0]["warning"], true);
    let (_, text) = app.get_text(&format!("{path}&format=text")).await;
    assert!(text.contains("WARNING: more than the kernel changed between 5.4.0-vanilla and 5.5.0-vanilla: governor\n"), "{text}");
    assert!(
        text.contains("    governor: performance -> powersave\n"),
        "{text}"
    );
    assert!(text.contains("    CONFIG_HZ: 250 -> 1000\n"), "{text}");
    assert!(
        text.contains("    + CONFIG_NEW=m\n") && text.contains("    - CONFIG_OLD=y\n"),
        "{text}"
    );
    let (_, page) = app
        .get_text("/compare?benchmark=netperf-tcp&machine=m1&kernels=5.4.0-vanilla,5.5.0-vanilla")
        .await;
    assert!(page.contains("id=\"facts-warning\""), "the page warns");
}

/// LKP's job.yaml uploaded beside the results: its testbox, CPU count and governor are facts
/// of every run of the upload, and a governor that changed is called out.
#[tokio::test(flavor = "multi_thread")]
async fn lkp_job_files_say_what_the_runs_ran_on() {
    let app = spawn_app().await;
    for (commit, governor, tput) in [
        ("aaaaaaaaaaaa", "performance", 2497),
        ("bbbbbbbbbbbb", "powersave", 2345),
    ] {
        let stats = format!(
            r#"{{"stats_source": ["a", "b"], "netperf.Throughput_Mbps": [{tput}, {tput}]}}"#
        );
        let job = format!("testbox: lkp-bdw-de1\nnr_cpu: 16\ncpufreq_governor: {governor}\nnetperf:\n  runtime: 900s\n");
        let r = app
            .upload_multipart(
                &[
                    ("matrix.json", stats.into_bytes()),
                    ("job.yaml", job.into_bytes()),
                ],
                &[
                    ("benchmark", "netperf"),
                    ("machine", "lkp-bdw-de1"),
                    ("kernel", commit),
                ],
            )
            .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    let (_, run) = app.get_json("/api/v1/runs/1").await;
    let facts = run["run"]["facts"].to_string();
    assert!(
        facts.contains("\"governor\",\"performance\"") && facts.contains("\"cpu.count\",\"16\""),
        "{facts}"
    );
    let (_, text) = app
        .get_text("/api/v1/compare?benchmark=netperf&machine=lkp-bdw-de1&kernels=aaaaaaaaaaaa,bbbbbbbbbbbb&format=text&style=lkp")
        .await;
    assert!(
        text.contains(
            "WARNING: more than the kernel changed between aaaaaaaaaaaa and bbbbbbbbbbbb: governor"
        ),
        "{text}"
    );
    // Side files alone describe nothing.
    let r = app
        .upload_multipart(
            &[("job.yaml", b"testbox: x\n".to_vec())],
            &[("machine", "m"), ("benchmark", "b")],
        )
        .await;
    assert_error(r, 422, "only side files").await;
}

/// Columns across machines and configurations: the same kernel on two machines, and one
/// machine's runs split by a tag; texts name the columns, facts say what differs.
#[tokio::test(flavor = "multi_thread")]
async fn columns_across_machines_and_tags() {
    let app = spawn_app().await;
    let csv = |level: f64| {
        let mut s = String::from("metric,iteration,value\n");
        for i in 1..=5 {
            s.push_str(&format!("Throughput,{i},{}\n", level + f64::from(i)));
        }
        s
    };
    for (machine, tags, level) in [
        ("box-a", "governor=performance", 1000.0),
        ("box-b", "governor=performance", 900.0),
        ("box-a", "governor=powersave", 800.0),
    ] {
        let r = app
            .upload_raw(
                &format!("benchmark=netperf&machine={machine}&kernel=6.1.0&tags={tags}"),
                csv(level),
            )
            .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    // The same kernel on two machines (the baseline's performance-governor runs only).
    let path =
        "/api/v1/compare?benchmark=netperf&columns=6.1.0@box-a:governor=performance,6.1.0@box-b";
    let (status, c) = app.get_json(path).await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["query"]["kernels"][1], "6.1.0@box-b");
    let cells = c["rows"][0]["cells"].as_array().unwrap();
    assert_eq!(cells[0]["stats"]["n"], 5);
    assert_eq!(cells[1]["stats"]["amean"], 903.0);
    assert_eq!(c["facts"][0]["warning"], true, "{c}");
    let (_, text) = app.get_text(&format!("{path}&format=text&style=lkp")).await;
    assert!(text.contains("6.1.0@box-b"), "{text}");
    assert!(text.contains("WARNING: more than the kernel changed between 6.1.0@box-a:governor=performance and 6.1.0@box-b: machine"), "{text}");
    // The page takes the same columns.
    let (status, page) = app
        .get_text("/compare?benchmark=netperf&columns=6.1.0@box-a:governor=performance,6.1.0@box-b")
        .await;
    assert_eq!(status, 200);
    assert!(
        page.contains("id=\"compare-table\"") && page.contains("6.1.0@box-b"),
        "the page shows the columns"
    );
    assert!(
        page.contains("id=\"facts-warning\""),
        "and warns that the machine differs"
    );
    // One machine, split by a tag.
    let (status, c) = app
        .get_json("/api/v1/compare?benchmark=netperf&machine=box-a&columns=governor=performance,governor=powersave")
        .await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["rows"][0]["cells"][1]["stats"]["amean"], 803.0);
    let groups = c["facts"][0]["groups"].to_string();
    assert!(groups.contains("tag.governor"), "{groups}");
    // Its permalink pins the same runs under the same columns.
    let id = c["permalink"].as_str().unwrap();
    let (_, p) = app.get_json(&format!("/c/{id}?format=json")).await;
    assert_eq!(p["query"]["kernels"], c["query"]["kernels"]);
    assert_eq!(p["rows"], c["rows"]);
    // Refused at the edge.
    for (bad, needle) in [
        ("columns=6.1.0@box-a&kernels=6.1.0", "not both"),
        ("columns=6.1.0,6.1.0@box-b", "names no machine"),
        ("columns=6.1.0@box-a:governor", "must be kernel@machine"),
    ] {
        let r = app
            .client
            .get(app.url(&format!("/api/v1/compare?benchmark=netperf&{bad}")))
            .send()
            .await
            .unwrap();
        assert_error(r, 400, needle).await;
    }
}

/// An LKP job of `n` keys: the KPI, then monitors' keys. Side `bad` has the KPI 6 % down and
/// the first 20 `proc-vmstat` keys 30 % up; `run` varies the values a little.
pub(crate) fn big_job(n: usize, bad: bool, run: usize) -> String {
    let noise = 1.0 + (run as f64 - 1.0) / 1000.0;
    let mut keys = vec![format!(
        "\"netperf.Throughput_Mbps\": {}",
        if bad { 2345.0 } else { 2500.0 } * noise
    )];
    let prefixes = [
        "proc-vmstat.",
        "sched_debug.cpu.",
        "perf-stat.",
        "meminfo.",
        "slabinfo.",
    ];
    for i in 1..n {
        let prefix = prefixes[i % prefixes.len()];
        let moved = bad && prefix == "proc-vmstat." && i < 100;
        let value = (1000 + i) as f64 * noise * if moved { 1.3 } else { 1.0 };
        if i <= 3 {
            // Real jobs carry call chains of 200 to 350 characters without a space.
            let chain = [
                "entry_SYSCALL_64_after_hwframe",
                "do_syscall_64",
                "__x64_sys_sendto",
                "__sys_sendto",
                "sock_sendmsg",
                "tcp_sendmsg",
                "tcp_sendmsg_locked",
                "tcp_push_one",
                "tcp_write_xmit",
                "__tcp_transmit_skb",
                "ip_queue_xmit",
                "__ip_queue_xmit",
                "ip_finish_output2",
            ];
            // A share of the cycles, the same on both commits.
            let share = 0.5 * noise;
            keys.push(format!(
                "\"perf-profile.calltrace.cycles-pp.{}_{i}\": {share}",
                chain.join(".")
            ));
            continue;
        }
        keys.push(format!("\"{prefix}key_{i}\": {value}"));
    }
    format!("{{{}}}", keys.join(", "))
}

/// Issue 28: the compare page of two commits of 5,000-key jobs is one page of rows, changed
/// ones first, with a filter and pages; not 37 MB of every key.
#[tokio::test(flavor = "multi_thread")]
async fn the_compare_page_of_5000_key_jobs_is_small_with_changed_rows_first() {
    let app = spawn_app().await;
    for (commit, bad) in [("a".repeat(40), false), ("b".repeat(40), true)] {
        for run in 0..3 {
            let r = app
                .client
                .post(app.url(&format!(
                    "/api/v1/upload?benchmark=netperf&machine=lkp-bdw-de1&kernel=4.19.0-rc1\
                     &commit={commit}&format=lkp-stats"
                )))
                .body(big_job(5000, bad, run))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
        }
    }
    // mmtests' statistics of the two jobs (`view=mmtests`); the LKP table is it::lkp_compare's.
    let page = format!(
        "/compare?benchmark=netperf&machine=lkp-bdw-de1&commits={},{}&view=mmtests",
        "a".repeat(40),
        "b".repeat(40)
    );
    let started = Instant::now();
    let (status, html) = app.get_text(&page).await;
    let took = started.elapsed();
    assert_eq!(status, 200);
    assert!(html.len() <= 1_000_000, "{} bytes", html.len());
    eprintln!(
        "compare page of two 5,000-key commits: {} bytes in {took:?}",
        html.len()
    );
    assert!(
        html.contains("5000 metrics; 20 changed, shown first. Rows 1–50, page 1 of 100."),
        "{}",
        &html[html.find("rows-page").unwrap_or(0)..][..300.min(html.len())]
    );
    // The KPI leads (lkp-tests' order: the testcase's own keys first), then the moved keys.
    let labels: Vec<&str> = html
        .split("data-label=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(labels[0], "netperf.Throughput_Mbps");
    let first: std::collections::BTreeSet<&str> = labels.iter().copied().take(300).collect();
    assert_eq!(first.len(), 50, "50 rows, each with its statistics");
    assert!(first.contains("proc-vmstat.key_5"));
    // A filter by prefix and the next page, as links and a plain form.
    assert!(html.contains("id=\"rows-filter\""));
    assert!(html.contains("&amp;page=2\"") || html.contains("&page=2\""));
    let (status, html) = app
        .get_text(&format!("{page}&filter=SLABINFO&page=3"))
        .await;
    assert_eq!(status, 200);
    assert!(
        html.contains("1000 of 5000 metrics match \"SLABINFO\"")
            || html.contains("1000 of 5000 metrics match &quot;SLABINFO&quot;"),
        "{}",
        &html[html.find("rows-page").unwrap_or(0)..][..300.min(html.len())]
    );
    assert!(html.contains("Rows 101–150, page 3 of 20."));
    let labels: Vec<&str> = html
        .split("data-label=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert!(!labels.is_empty());
    assert!(
        labels.iter().all(|l| l.starts_with("slabinfo.")),
        "{labels:?}"
    );
}

/// A perf-profile row's change is the difference of the unrounded averages printed as Ruby
/// 3.1 prints it (`%+.1f`: 15 significant digits, then half to even): 6.41 → 6.065 is `-0.3`,
/// not the `-0.4` of the printed averages' difference (6.06 − 6.41). The expected line is what
/// Ruby 3.1.2 printed for these samples with lkp-tests' formats.
#[tokio::test(flavor = "multi_thread")]
async fn lkp_perf_profile_changes_round_as_lkp_tests_prints_them() {
    let app = spawn_app().await;
    for (commit, tput, profile) in [
        ("aaaaaaaaaaaa", [3472, 3470], [6.36, 6.46]),
        ("bbbbbbbbbbbb", [3262, 3260], [6.06, 6.07]),
    ] {
        let stats = format!(
            r#"{{"stats_source": ["a", "b"], "netperf.Throughput_Mbps": [{}, {}], "perf-profile.self.cycles-pp.copy_user_enhanced_fast_string": [{}, {}]}}"#,
            tput[0], tput[1], profile[0], profile[1]
        );
        let r = app
            .upload_multipart(
                &[("matrix.json", stats.into_bytes())],
                &[
                    ("benchmark", "netperf"),
                    ("machine", "lkp-bdw-de1"),
                    ("kernel", commit),
                ],
            )
            .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }
    let path = "/api/v1/compare?benchmark=netperf&machine=lkp-bdw-de1&kernels=aaaaaaaaaaaa,bbbbbbbbbbbb&format=text&style=lkp";
    let key = "perf-profile.self.cycles-pp.copy_user_enhanced_fast_string";
    for path in [format!("{path}&all=1")] {
        let (status, text) = app.get_text(&path).await;
        assert_eq!(status, 200, "{text}");
        let row = text
            .lines()
            .find(|l| l.ends_with(key))
            .unwrap_or_else(|| panic!("no {key} row in {path}:\n{text}"));
        assert_eq!(
            row,
            format!("      6.41            -0.3        6.06        {key}"),
            "{path}"
        );
    }
}

/// A kernel named twice is refused on the page as in the API (400, saying which), not folded
/// into one column with a 200.
#[tokio::test(flavor = "multi_thread")]
async fn a_kernel_named_twice_is_refused_on_the_page() {
    let app = spawn_app().await;
    app.upload_work_log().await;
    let (status, page) = app
        .get_text("/compare?benchmark=netperf-tcp&machine=m1&kernels=5.4.0-vanilla,5.4.0-vanilla")
        .await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("kernels names 5.4.0-vanilla twice"), "{page}");
    let (status, _) = app
        .get_json(
            "/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels=5.4.0-vanilla,5.4.0-vanilla",
        )
        .await;
    assert_eq!(status, 400);
}
