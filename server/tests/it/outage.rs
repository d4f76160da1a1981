// SPDX-License-Identifier: GPL-3.0-or-later
//! PostgreSQL going away under load, as a team instance lives it: a cluster of the test's own
//! (from `scripts/pg-cluster`) stopped, crashed (`-m immediate`) and frozen (SIGSTOP), then
//! brought back, while robots upload and a load balancer polls `/healthz`. Run by `.ci/run`
//! through `scripts/test` (the first pass; it needs Debian's postgresql, which the test
//! command installs).

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::helpers::*;

/// A throwaway cluster of this test's own.
struct Cluster {
    url: String,
    dir: String,
}

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs a PostgreSQL program as the `postgres` user when we are root (it refuses root).
fn as_postgres(program: &str, args: &[&str]) -> std::process::Output {
    let bindir = std::fs::read_dir("/usr/lib/postgresql")
        .expect("Debian's postgresql (scripts/ensure-tools installs it)")
        .filter_map(Result::ok)
        .map(|e| e.path().join("bin"))
        .max()
        .unwrap();
    let program = bindir.join(program);
    let id = Command::new("id").arg("-u").output().expect("id runs");
    let root = String::from_utf8_lossy(&id.stdout).trim() == "0";
    let mut cmd = if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(&program);
        c
    } else {
        Command::new(&program)
    };
    cmd.args(args).output().expect("a PostgreSQL program runs")
}

impl Cluster {
    fn start() -> Cluster {
        let out = Command::new(root().join("scripts/pg-cluster"))
            .arg("start")
            .output()
            .expect("scripts/pg-cluster runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let var = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("export {name}=")))
                .unwrap()
                .to_owned()
        };
        Cluster {
            url: var("PERFLINE_TEST_PG"),
            dir: var("PERFLINE_TEST_PG_DIR"),
        }
    }

    fn port(&self) -> String {
        self.url
            .rsplit(':')
            .next()
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_owned()
    }

    fn stop(&self, mode: &str) {
        let data = format!("{}/data", self.dir);
        let out = as_postgres("pg_ctl", &["-D", &data, "-m", mode, "-w", "stop"]);
        assert!(
            out.status.success(),
            "pg_ctl stop: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn start_again(&self) {
        let data = format!("{}/data", self.dir);
        let log = format!("{}/server.log", self.dir);
        let options = format!(
            "-c listen_addresses=127.0.0.1 -p {} -k {} -c fsync=off -c max_connections=200",
            self.port(),
            self.dir
        );
        let out = as_postgres(
            "pg_ctl",
            &[
                "-D", &data, "-l", &log, "-w", "-t", "60", "-o", &options, "start",
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// SIGSTOP (or SIGCONT) to the postmaster and every backend: a frozen server.
    fn signal_all(&self, signal: &str) {
        let pid = std::fs::read_to_string(format!("{}/data/postmaster.pid", self.dir)).unwrap();
        let pid = pid.lines().next().unwrap().trim().to_owned();
        let children = Command::new("pgrep").args(["-P", &pid]).output().unwrap();
        let mut pids = vec![pid];
        pids.extend(
            String::from_utf8_lossy(&children.stdout)
                .split_whitespace()
                .map(str::to_owned),
        );
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .args(&pids)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(root().join("scripts/pg-cluster"))
            .args(["stop", &self.dir])
            .status();
    }
}

/// One answer: when it was sent and received (since the test's start), its status.
#[derive(Debug, Clone)]
struct Answer {
    sent: Duration,
    done: Duration,
    status: u16,
    /// The upload's id, for a 200 or 201.
    upload: Option<i64>,
    /// The body it sent, for an upload.
    body: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_outage_fails_fast_recovers_fast_and_loses_nothing() {
    let cluster = Cluster::start();
    let url = cluster.url.clone();
    let app = spawn_app_with(move |c| {
        c.db = perfline_server::config::Database::Postgres(url);
        c.write_rate = 0;
        c.db_acquire_timeout = 2000;
    })
    .await;
    let epoch = Instant::now();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let uploads: Arc<Mutex<Vec<Answer>>> = Default::default();
    let health: Arc<Mutex<Vec<Answer>>> = Default::default();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let mut tasks = Vec::new();
    for robot in 0..4 {
        let (client, base, stop, uploads) = (
            client.clone(),
            app.base.clone(),
            stop.clone(),
            uploads.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                n += 1;
                let body = format!("benchmark,metric,value\nb,tput,{robot}.{n}\nb,tput,{n}\n");
                let sent = epoch.elapsed();
                let r = client
                    .post(format!(
                        "{base}/api/v1/upload?machine=robot{robot}&kernel=6.1"
                    ))
                    .body(body.clone())
                    .send()
                    .await;
                let (status, upload) = match r {
                    Ok(r) => {
                        let status = r.status().as_u16();
                        let v: serde_json::Value = r.json().await.unwrap_or_default();
                        (status, v["upload"]["id"].as_i64())
                    }
                    Err(_) => (0, None),
                };
                uploads.lock().unwrap().push(Answer {
                    sent,
                    done: epoch.elapsed(),
                    status,
                    upload,
                    body,
                });
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    {
        let (client, base, stop, health) = (
            client.clone(),
            app.base.clone(),
            stop.clone(),
            health.clone(),
        );
        tasks.push(tokio::spawn(async move {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let sent = epoch.elapsed();
                let r = client.get(format!("{base}/healthz")).send().await;
                let status = r.map_or(0, |r| r.status().as_u16());
                health.lock().unwrap().push(Answer {
                    sent,
                    done: epoch.elapsed(),
                    status,
                    upload: None,
                    body: String::new(),
                });
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    let mut figures = Vec::new();
    for outage in ["stop -m fast", "crash (-m immediate)", "freeze (SIGSTOP)"] {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let t0 = epoch.elapsed();
        match outage {
            "stop -m fast" => cluster.stop("fast"),
            "crash (-m immediate)" => cluster.stop("immediate"),
            _ => cluster.signal_all("STOP"),
        }
        tokio::time::sleep(Duration::from_secs(4)).await;
        // While it is down: /healthz says why.
        let (status, text) = app.get_text("/healthz").await;
        assert_eq!(status, 503, "{outage}: {text}");
        assert!(
            text.contains("database unreachable since"),
            "{outage}: {text}"
        );
        assert!(!text.to_lowercase().contains("pool timed out"), "{text}");
        // Recovery begins (pg_ctl start returns only once it has seen the server accept, which
        // may be after the first upload already went through).
        let recovering = epoch.elapsed();
        match outage {
            "freeze (SIGSTOP)" => cluster.signal_all("CONT"),
            _ => cluster.start_again(),
        }
        let t1 = epoch.elapsed();
        tokio::time::sleep(Duration::from_secs(3)).await;
        let h = health.lock().unwrap().clone();
        let u = uploads.lock().unwrap().clone();
        // The first 503 of the health check after the outage began, and how long it took.
        let first_down = h
            .iter()
            .find(|a| a.sent >= t0 && a.status == 503)
            .unwrap_or_else(|| panic!("{outage}: /healthz never said 503"));
        let detect = first_down.done - t0;
        let slowest_health = h.iter().map(|a| a.done - a.sent).max().unwrap();
        // Uploads sent while it was down (after the detection, before recovery began) and how
        // long their 503 took.
        let during: Vec<&Answer> = u
            .iter()
            .filter(|a| a.sent > first_down.done && a.done < recovering)
            .collect();
        assert!(!during.is_empty(), "{outage}: no upload during the outage");
        let slowest_refusal = during.iter().map(|a| a.done - a.sent).max().unwrap();
        assert!(
            during.iter().all(|a| a.status == 503),
            "{outage}: {during:?}"
        );
        // Back: the first success once the database answers again (measured from when
        // pg_ctl said so; 0 if an upload beat pg_ctl to it).
        let back = u
            .iter()
            .filter(|a| a.done > recovering && (a.status == 201 || a.status == 200))
            .map(|a| a.done.saturating_sub(t1))
            .min()
            .unwrap_or_else(|| panic!("{outage}: no upload succeeded after recovery"));
        figures.push(format!(
            "{outage}: /healthz 503 after {} ms; refusals within {} ms; first success {} ms after recovery; slowest /healthz {} ms",
            detect.as_millis(),
            slowest_refusal.as_millis(),
            back.as_millis(),
            slowest_health.as_millis()
        ));
        // The figures: 1 s, 2 s, 1 s (a 250 ms margin for a loaded 2-core CI machine).
        assert!(
            detect <= Duration::from_millis(1250),
            "{}",
            figures.last().unwrap()
        );
        assert!(
            slowest_refusal <= Duration::from_millis(2250),
            "{}",
            figures.last().unwrap()
        );
        assert!(
            back <= Duration::from_millis(1250),
            "{}",
            figures.last().unwrap()
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for t in tasks {
        t.await.unwrap();
    }
    eprintln!("outage figures:\n  {}", figures.join("\n  "));
    let answers = uploads.lock().unwrap().clone();
    assert!(
        answers.iter().all(|a| matches!(a.status, 200 | 201 | 503)),
        "only 200, 201 and 503: {:?}",
        answers
            .iter()
            .filter(|a| !matches!(a.status, 200 | 201 | 503))
            .collect::<Vec<_>>()
    );
    // Every acknowledged upload is there, whole.
    for a in answers
        .iter()
        .filter(|a| a.status == 201 || a.status == 200)
    {
        let id = a.upload.expect("an acknowledged upload names its id");
        let (status, u) = app.get_json(&format!("/api/v1/uploads/{id}")).await;
        assert_eq!(status, 200);
        assert_eq!(u["upload"]["runs"], 1, "{u}");
        assert_eq!(u["upload"]["samples"], 2, "{u}");
    }
    // A refused upload sent again is stored once: 201 if the first never was, 200 if it was
    // after all (cut off at the moment the database went away).
    let mut again = (0, 0);
    for a in answers.iter().filter(|a| a.status == 503) {
        let robot = a
            .body
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .nth(2)
            .unwrap()
            .split('.')
            .next()
            .unwrap()
            .to_owned();
        let r = app
            .upload_raw(&format!("machine=robot{robot}&kernel=6.1"), a.body.clone())
            .await;
        match r.status().as_u16() {
            201 => again.0 += 1,
            200 => again.1 += 1,
            s => panic!("a retry answered {s}"),
        }
    }
    // Nothing is stored half: every upload has its one run and two samples.
    let (_, runs) = app.get_json("/api/v1/runs?limit=1000").await;
    let total = runs["total"].as_i64().unwrap();
    let acked = answers.iter().filter(|a| a.status == 201).count() as i64 + again.0;
    assert_eq!(
        total, acked,
        "runs stored = uploads acknowledged 201 (first time or on retry)"
    );
    eprintln!(
        "uploads: {} answered, {} acknowledged, {} refused (retried: {} stored then, {} already stored)",
        answers.len(),
        answers.iter().filter(|a| a.status != 503).count(),
        answers.iter().filter(|a| a.status == 503).count(),
        again.0,
        again.1
    );
}

/// Started before its database, Perfline waits for it (`--db-wait`), saying each time which
/// server and why, then gives up with a message naming both.
#[test]
fn start_waits_for_the_database_and_names_it() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args(["--listen", "127.0.0.1:0", "--db-wait", "2", "--db"])
        .arg(format!("postgres://perfline@127.0.0.1:{port}/perfline"))
        .output()
        .unwrap();
    let waited = started.elapsed();
    assert!(!out.status.success());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let server = format!("127.0.0.1:{port}");
    assert!(
        text.contains(&server) && text.contains("connection refused"),
        "{text}"
    );
    assert!(
        text.contains("PostgreSQL does not answer yet"),
        "each attempt is logged: {text}"
    );
    assert!(
        waited >= Duration::from_millis(1500) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
}
