// SPDX-License-Identifier: GPL-3.0-or-later
//! The lab simulator (issue 52): the real `perfline` server (SQLite; or PostgreSQL behind two
//! servers), a history of commits, and one robot process per machine running the real
//! `perfline work --forever` loop against a fake benchmark whose results depend on the commit:
//! regressions of known sizes at known commits, noise within and between boots (seed 003's
//! levels that move across reboots), A/A calibration, one machine with a hostile name, and
//! faults on a schedule (a robot killed mid-run and one that never comes back, a command that
//! fails and one that hangs, the server stopped with SIGTERM and with `kill -9`).
//!
//! The lab's own stream (the robot that tests new commits as they land) is played by the
//! simulator: every `stride`-th commit, three boots per machine, uploaded with the commit.
//! Everything after that is Perfline's and the robots': detection, confirmation by reruns,
//! the bisection its alert rule starts (`"history"`), the culprit webhook (sent with the mail).
//!
//! Shared by the CI-sized test (`lab::sim_ci`) and the bench (`server/benches/lab.rs`).

#![allow(dead_code, reason = "the test and the bench use different parts")]

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// What a simulated lab is made of.
#[derive(Debug, Clone)]
pub struct Lab {
    pub commits: usize,
    pub machines: usize,
    /// Injected regressions per machine (each 2–10 %, at least `min_points` apart).
    pub steps: usize,
    /// The lab's robot tests every `stride`-th commit.
    pub stride: usize,
    pub seed: u64,
    pub lease_secs: u64,
    /// The faults of issue 52's point 3, on a schedule.
    pub faults: bool,
    /// A PostgreSQL URL: two servers on it instead of one on a SQLite file.
    pub postgres: Option<String>,
    /// The directory of the cluster `postgres` is on (`scripts/pg-cluster`), when this run
    /// may stop it for a while (an outage; never on a cluster other tests share).
    pub pg_outage: Option<PathBuf>,
    /// How long to wait, once everything is uploaded, for the last bisection to end.
    pub drain: Duration,
}

/// One injected regression.
#[derive(Debug, Clone)]
pub struct Step {
    pub machine: usize,
    pub commit: usize,
    pub pct: f64,
    pub detectable: bool,
}

/// What a run of the lab came to.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub injected: usize,
    pub detectable: usize,
    /// Detectable regressions whose culprit webhook named the exact commit.
    pub exact: usize,
    /// Detectable regressions with no culprit (within the noise, or still running at the end).
    pub missed: Vec<String>,
    /// Culprit notices naming a commit that is not the injected one (of a regression).
    pub wrong: usize,
    /// Culprit notices where no regression was injected.
    pub not_injected: usize,
    /// Bisection runs per culprit (done bisections), and what a fixed-runs bisection spends
    /// on the same ranges (every tested commit run `FIXED_RUNS` times).
    pub runs_per_culprit: f64,
    pub fixed_runs_per_culprit: f64,
    /// Seconds from the first upload of a regression's bad commit to its culprit notice.
    pub secs_to_mail: Vec<f64>,
    pub uploads: usize,
    pub lost: usize,
    pub server_errors: usize,
    pub stuck_leases: usize,
    pub rss_kib: (u64, u64),
    pub hostile_ran: bool,
    pub wall: Duration,
    pub faults: Vec<String>,
    /// The alert summaries and bisections at the end, one line each.
    pub summaries: Vec<String>,
}

/// The runs every tested commit gets in the fixed-runs bisection we compare with.
pub const FIXED_RUNS: u32 = 5;

impl Report {
    pub fn print(&self) -> String {
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
        };
        format!(
            "injected regressions {}, detectable by the noise model {}, culprit naming the exact commit {} ({:.1} %)\n\
             missed: {:?}\n\
             wrong commits mailed {}, culprits where nothing was injected {}\n\
             bisection runs per culprit {:.1} (fixed {FIXED_RUNS} runs a commit: {:.1})\n\
             first bad upload to culprit notice: median {:.1} s, max {:.1} s\n\
             uploads {}, lost {}, 5xx answers {}, leases stuck past expiry {}\n\
             server VmRSS {} KiB after the first quarter, {} KiB at the end\n\
             hostile names ran as code: {}\n\
             faults: {}\n\
             {}\n\
             wall time {:.1} s",
            self.injected,
            self.detectable,
            self.exact,
            100.0 * self.exact as f64 / self.detectable.max(1) as f64,
            self.missed,
            self.wrong,
            self.not_injected,
            self.runs_per_culprit,
            self.fixed_runs_per_culprit,
            median(&self.secs_to_mail),
            self.secs_to_mail.iter().copied().fold(0.0, f64::max),
            self.uploads,
            self.lost,
            self.server_errors,
            self.stuck_leases,
            self.rss_kib.0,
            self.rss_kib.1,
            self.hostile_ran,
            self.faults.join("; "),
            self.summaries.join("\n"),
            self.wall.as_secs_f64()
        )
    }
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }
}

pub fn sha(i: usize) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(format!("sim commit {i}")))
        .chars()
        .take(40)
        .collect()
}

/// The fake benchmark: `sh bench.sh COMMIT MACHINE` prints one boot's five iterations of
/// `Throughput` for the commit's level on that machine, with the machine's noise: a boot
/// level drawn per run (between boots) and per-iteration noise (within). Faults by file, in
/// the robots' runs only (`PERFLINE_REQUEST` set): a `flaky` file of the machine fails one
/// run in ten; a `hang` file hangs one run, once.
const BENCH: &str = r#"#!/bin/sh
key=$(printf %s "$2" | sha256sum | cut -c1-16)
dir=machines/$key
[ -d "$dir" ] || { echo "no machine $2" >&2; exit 2; }
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
robot=${PERFLINE_REQUEST:+1}
if [ -n "$robot" ] && [ -f "$dir/hang" ] && mkdir "$dir/hung" 2>/dev/null; then sleep 600; fi
awk -v c="$1" -v seed="$seed" -v flaky="$( [ -n "$robot" ] && [ -f "$dir/flaky" ] && echo 1 || echo 0 )" '
  FILENAME ~ /noise$/ { within = $1; between = $2; next }
  $1 == c { level = $2 }
  function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }
  END {
    srand(seed)
    if (level == "") { print "no level for " c > "/dev/stderr"; exit 1 }
    if (flaky && rand() < 0.1) { print "flaky machine failed" > "/dev/stderr"; exit 3 }
    boot = 1 + between * gauss()
    print "metric,iteration,value"
    for (i = 1; i <= 5; i++) printf "Throughput,%d,%.4f\n", i, level * boot * (1 + within * gauss())
  }' "$dir/noise" "$dir/levels"
"#;

/// A server process on a fixed port (so that it can be restarted where robots look).
struct Server {
    child: Option<Child>,
    port: u16,
    args: Vec<String>,
    log: PathBuf,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Server {
    fn start(port: u16, args: Vec<String>, log: PathBuf) -> Server {
        let mut s = Server {
            child: None,
            port,
            args,
            log,
        };
        s.spawn();
        s
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_perfline"))
            .args(["--listen", &format!("127.0.0.1:{}", self.port)])
            .args(&self.args)
            .stdout(Stdio::piped())
            .stderr(log.try_clone().unwrap())
            .spawn()
            .expect("perfline starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        loop {
            let line = lines.next().expect("perfline printed its address").unwrap();
            if line.contains("listening on http://") {
                break;
            }
        }
        // The rest of what it prints (its log) goes to the log file too.
        std::thread::spawn(move || {
            use std::io::Write;
            let mut log = log;
            for line in lines.map_while(Result::ok) {
                let _ = writeln!(log, "{line}");
            }
        });
        self.child = Some(child);
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn signal(&mut self, name: &str) {
        if let Some(child) = &mut self.child {
            let _ = Command::new("kill")
                .args(["-s", name, &child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(30);
            while child.try_wait().unwrap().is_none() {
                assert!(
                    Instant::now() < deadline,
                    "the server did not stop on {name}"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        self.child = None;
    }

    fn rss_kib(&self) -> u64 {
        let Some(child) = &self.child else { return 0 };
        std::fs::read_to_string(format!("/proc/{}/status", child.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| v.split_whitespace().next()?.parse().ok())
            })
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A robot: `perfline work --forever` for one machine, its output in a file.
struct Robot {
    child: Child,
    name: String,
}

fn start_robot(dir: &Path, server: &str, machine: &str, name: &str, lease: u64) -> Robot {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("robot-{}.log", hex::encode(name.as_bytes()))))
        .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_perfline"))
        .args([
            "work",
            "--forever",
            "--poll",
            "1",
            "--machine",
            machine,
            "--robot",
            name,
            "--timeout",
            &(lease * 3).to_string(),
            "--exec",
            "sh bench.sh {commit} {machine}",
        ])
        .env("PERFLINE_SERVER", server)
        .env_remove("PERFLINE_TOKEN")
        .current_dir(dir)
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("perfline work starts");
    Robot {
        child,
        name: name.to_owned(),
    }
}

impl Drop for Robot {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Culprit notices the webhook receiver got: (machine, culprit sha, when), and the delivery
/// ids seen.
type Notices = Arc<(
    Mutex<Vec<(String, String, Instant)>>,
    Mutex<std::collections::HashSet<String>>,
)>;

async fn start_receiver(notices: Notices) -> String {
    use axum::routing::post;
    let app = axum::Router::new().route(
        "/hook",
        post(
            |axum::extract::State(n): axum::extract::State<Notices>,
             headers: axum::http::HeaderMap,
             body: axum::body::Bytes| async move {
                let event = headers
                    .get("x-perfline-event")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("");
                let delivery = headers
                    .get("x-perfline-delivery")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                if event == "alert.bisected" || event == "bisected" {
                    // Delivered at least once: a delivery seen before (a server killed after
                    // posting it, before recording it) is not a second notice.
                    if !delivery.is_empty() && !n.1.lock().unwrap().insert(delivery) {
                        return axum::http::StatusCode::NO_CONTENT;
                    }
                    if let Ok(v) = serde_json::from_slice::<Value>(&body) {
                        let machine = v["summary"]["machine"].as_str().unwrap_or("").to_owned();
                        let sha = v["summary"]["bad"]["sha"].as_str().unwrap_or("").to_owned();
                        n.0.lock().unwrap().push((machine, sha, Instant::now()));
                    }
                }
                axum::http::StatusCode::NO_CONTENT
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app.with_state(notices)).await;
    });
    format!("http://{addr}/hook")
}

/// A machine of the lab: its name, its noise (within a boot, between boots; fractions).
struct Machine {
    name: String,
    within: f64,
    between: f64,
    steps: Vec<(usize, f64)>,
}

fn machine_key(name: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(name.as_bytes()))
        .chars()
        .take(16)
        .collect()
}

/// Sends `req`, retrying while the server is away (a restart): the response, and whether
/// it was a 5xx.
async fn send(
    http: &reqwest::Client,
    build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    errors: &mut usize,
) -> reqwest::Response {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match build(http).send().await {
            Ok(r) if r.status().as_u16() == 503 => {}
            Ok(r) => {
                if r.status().is_server_error() {
                    *errors += 1;
                }
                return r;
            }
            Err(_) => {}
        }
        assert!(Instant::now() < deadline, "the server stayed away");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One boot of `machine` at `commit`'s level, as the fake benchmark prints it.
fn boot(dir: &Path, commit: &str, machine: &str) -> Option<String> {
    let out = Command::new("sh")
        .args(["bench.sh", commit, machine])
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs the lab; the report. Panics only on a broken harness, never on a bad figure (the
/// caller judges those).
pub async fn run(lab: &Lab) -> Report {
    let started = Instant::now();
    let mut rng = Rng(lab.seed);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("bench.sh"), BENCH).unwrap();

    // Machines, their noise and their regressions (2–10 %, far enough apart for the
    // detector's 8 points before and 4 after, plus a margin).
    let points = lab.commits / lab.stride;
    let gap = 16;
    let mut machines = Vec::new();
    for m in 0..lab.machines {
        let name = if m == 1 {
            // A hostile name: shell code if anything ever ran it.
            "lab-$(touch${IFS}pwned)-`touch${IFS}pwned`-'\";touch pwned".to_owned()
        } else {
            format!("lab-{m:02}")
        };
        let within = rng.range(0.005, 0.05);
        let between = within / 2.0;
        let mut steps = Vec::new();
        let mut at = gap + (rng.next() % 4) as usize;
        while steps.len() < lab.steps && at + gap < points {
            let commit = at * lab.stride - (rng.next() % lab.stride as u64) as usize;
            steps.push((commit, -rng.range(0.02, 0.10)));
            at += gap + (rng.next() % 8) as usize;
        }
        machines.push(Machine {
            name,
            within,
            between,
            steps,
        });
    }
    for m in &machines {
        let mdir = root.join("machines").join(machine_key(&m.name));
        std::fs::create_dir_all(&mdir).unwrap();
        std::fs::write(mdir.join("noise"), format!("{} {}\n", m.within, m.between)).unwrap();
        let mut levels = String::new();
        let mut level = 1000.0;
        for c in 0..lab.commits {
            for &(at, pct) in &m.steps {
                if at == c {
                    level *= 1.0 + pct;
                }
            }
            levels.push_str(&format!("{} {level:.4}\n", sha(c)));
        }
        std::fs::write(mdir.join("levels"), levels).unwrap();
    }
    // The noise model: a commit's mean over 3 boots of 5 iterations has the spread
    // sd = sqrt(between² + within²/5) / sqrt(3); a step is detectable when it is at least the
    // detector's smallest alert (2 %) and four such spreads.
    let steps: Vec<Step> = machines
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            let sd = ((m.between.powi(2) + m.within.powi(2) / 5.0) / 3.0).sqrt();
            m.steps.iter().map(move |&(commit, pct)| Step {
                machine: i,
                commit,
                pct,
                detectable: pct.abs() >= 0.02 && pct.abs() >= 4.0 * sd,
            })
        })
        .collect();

    // The server(s), the rule that bisects, the history.
    let notices: Notices = Arc::default();
    let hook = start_receiver(notices.clone()).await;
    let db = match &lab.postgres {
        Some(url) => url.clone(),
        None => root.join("perfline.db").to_string_lossy().into_owned(),
    };
    let args = |_: usize| -> Vec<String> {
        [
            "--db",
            &db,
            "--log",
            "info",
            "--write-rate",
            "0",
            "--lease-secs",
            &lab.lease_secs.to_string(),
            "--webhook",
            &hook,
            "--allow-internal-webhooks",
            "--notify-retry-first-ms",
            "50",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let mut servers = vec![Server::start(
        free_port(),
        args(0),
        root.join("server-0.log"),
    )];
    if lab.postgres.is_some() {
        servers.push(Server::start(
            free_port(),
            args(1),
            root.join("server-1.log"),
        ));
    }
    let urls: Vec<String> = servers.iter().map(Server::url).collect();
    let http = reqwest::Client::new();
    let mut report = Report::default();
    let base = urls[0].clone();
    let r = send(
        &http,
        |h| {
            h.put(format!("{base}/api/v1/alert-rules"))
                .json(&json!({"rules": [{"benchmark": "sim", "direction": "higher", "history": "linux/master"}]}))
        },
        &mut report.server_errors,
    )
    .await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let log: String = (0..lab.commits)
        .rev()
        .map(|i| format!("{} {} commit number {i}\n", sha(i), 1_700_000_000 + i * 60))
        .collect();
    let r = send(
        &http,
        |h| {
            h.post(format!("{base}/api/v1/commits?repo=linux&branch=master"))
                .body(log.clone())
        },
        &mut report.server_errors,
    )
    .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());

    // A/A calibration of every machine: ten boots of one kernel, no commit.
    for m in &machines {
        let mut csv = String::from("kernel,metric,iteration,value\n");
        for b in 0..10 {
            let out = boot(root, &sha(0), &m.name).expect("a boot");
            for line in out.lines().skip(1) {
                csv.push_str(&format!("aa-{b},{line}\n"));
            }
        }
        let url = format!(
            "{base}/api/v1/upload?benchmark=sim&calibration=aa&machine={}",
            urlencode(&m.name)
        );
        let r = send(
            &http,
            |h| h.post(&url).body(csv.clone()),
            &mut report.server_errors,
        )
        .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }

    // A robot per machine (on the servers in turn).
    let robot_url = |m: usize| urls[m % urls.len()].clone();
    let mut robots: Vec<Option<Robot>> = machines
        .iter()
        .enumerate()
        .map(|(i, m)| {
            Some(start_robot(
                root,
                &robot_url(i),
                &m.name,
                &format!("robot-{i}"),
                lab.lease_secs,
            ))
        })
        .collect();
    if lab.faults && machines.len() > 2 {
        // Machine 2's command fails one run in ten; machine 0's hangs once.
        std::fs::write(
            root.join("machines")
                .join(machine_key(&machines[2].name))
                .join("flaky"),
            "",
        )
        .unwrap();
        std::fs::write(
            root.join("machines")
                .join(machine_key(&machines[0].name))
                .join("hang"),
            "",
        )
        .unwrap();
        report
            .faults
            .push("machine 2's command fails 1 run in 10".into());
        report
            .faults
            .push("machine 0's command hangs once (killed at --timeout)".into());
    }

    // The lab's stream: every stride-th commit, three boots per machine.
    let mut uploaded: Vec<(String, i64)> = Vec::new();
    let mut first_bad_upload: HashMap<(usize, usize), Instant> = HashMap::new();
    let rounds: Vec<usize> = (0..lab.commits).step_by(lab.stride).collect();
    for (k, &c) in rounds.iter().enumerate() {
        let quarter = rounds.len() / 4;
        if k == quarter {
            report.rss_kib.0 = servers[0].rss_kib();
        }
        if lab.faults {
            if k == quarter {
                // A robot killed mid-run (or idle): a new one takes over its machine.
                if let Some(r) = robots[0].as_mut() {
                    let _ = r.child.kill();
                    let _ = r.child.wait();
                }
                robots[0] = Some(start_robot(
                    root,
                    &robot_url(0),
                    &machines[0].name,
                    "robot-0",
                    lab.lease_secs,
                ));
                report
                    .faults
                    .push(format!("robot-0 killed -9 at round {k}, restarted"));
            }
            if k == 2 * quarter && machines.len() > 3 {
                // A robot that never comes back; another robot serves its machine.
                robots[3] = None;
                robots[3] = Some(start_robot(
                    root,
                    &robot_url(3),
                    &machines[3].name,
                    "robot-3-replacement",
                    lab.lease_secs,
                ));
                report.faults.push(format!(
                    "robot-3 killed for good at round {k}, robot-3-replacement started"
                ));
            }
            if k == quarter + quarter / 2 {
                servers[0].signal("TERM");
                servers[0].spawn();
                report.faults.push(format!(
                    "server 0 stopped with SIGTERM at round {k}, restarted"
                ));
            }
            if k == quarter / 2 {
                if let (Some(_), Some(cluster)) = (&lab.postgres, &lab.pg_outage) {
                    // PostgreSQL away for 8 s while robots and the stream go on.
                    let script =
                        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pg-cluster");
                    let cluster = cluster.clone();
                    std::thread::spawn(move || {
                        let status = Command::new(script)
                            .arg("outage")
                            .arg(cluster)
                            .arg("8")
                            .status();
                        assert!(
                            status.is_ok_and(|s| s.success()),
                            "the outage script failed"
                        );
                    });
                    report
                        .faults
                        .push(format!("PostgreSQL stopped for 8 s at round {k}"));
                }
            }
            if k == 3 * quarter {
                servers[0].signal("KILL");
                servers[0].spawn();
                report
                    .faults
                    .push(format!("server 0 killed -9 at round {k}, restarted"));
            }
        }
        if k % 10 == 0 {
            eprintln!(
                "lab: round {k} of {} at {:.1} s",
                rounds.len(),
                started.elapsed().as_secs_f64()
            );
        }
        for (i, m) in machines.iter().enumerate() {
            let mut csv = String::from("kernel,commit,metric,iteration,value\n");
            for b in 0..3 {
                // A boot that fails (the flaky machine) is booted again, as a lab does.
                let out = loop {
                    if let Some(out) = boot(root, &sha(c), &m.name) {
                        break out;
                    }
                };
                for line in out.lines().skip(1) {
                    csv.push_str(&format!("sim-{c}-{b},{},{line}\n", sha(c)));
                }
            }
            let url = format!(
                "{}/api/v1/upload?benchmark=sim&machine={}",
                urls[k % urls.len()],
                urlencode(&m.name)
            );
            let r = send(
                &http,
                |h| h.post(&url).body(csv.clone()),
                &mut report.server_errors,
            )
            .await;
            let status = r.status().as_u16();
            let body: Value = r.json().await.unwrap_or(Value::Null);
            if status == 201 {
                uploaded.push((m.name.clone(), body["upload"]["id"].as_i64().unwrap_or(0)));
            } else {
                report.lost += 1;
            }
            for s in steps.iter().filter(|s| s.machine == i && s.commit <= c) {
                first_bad_upload
                    .entry((i, s.commit))
                    .or_insert_with(Instant::now);
            }
        }
    }
    report.uploads = uploaded.len();
    eprintln!(
        "lab: {} uploads in {:.1} s; draining",
        uploaded.len(),
        started.elapsed().as_secs_f64()
    );

    // Drain: until nothing has been queued, pending, awaiting or running for three seconds
    // (the detector's passes start what a rule asks meanwhile), or the time is up.
    let deadline = Instant::now() + lab.drain;
    let mut quiet_since: Option<Instant> = None;
    while Instant::now() < deadline {
        let (_, list) = get(&http, &format!("{base}/api/v1/bisections?limit=200")).await;
        let running = list["bisections"]
            .as_array()
            .map_or(0, |b| b.iter().filter(|b| b["state"] == "running").count());
        let (_, awaiting) = get(
            &http,
            &format!("{base}/api/v1/alerts?status=awaiting-confirmation"),
        )
        .await;
        let waiting = awaiting["summaries"].as_array().map_or(0, Vec::len);
        let mut pending = 0;
        for m in &machines {
            let (_, work) = get(
                &http,
                &format!("{base}/api/v1/work?machine={}", urlencode(&m.name)),
            )
            .await;
            pending += work["requests"].as_array().map_or(0, Vec::len);
        }
        // The series uploads queued for the detector, and the notices not yet sent: an
        // alert the detector has not stored yet is none of the above (CI once ended the
        // drain before the last two were found, under load).
        let queued = queued(&http, &base).await;
        if running + waiting + pending + queued == 0 {
            let since = *quiet_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= Duration::from_secs(3) {
                break;
            }
        } else {
            quiet_since = None;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    // The notifier posts the last culprit within a moment.
    tokio::time::sleep(Duration::from_secs(1)).await;
    report.rss_kib.1 = servers[0].rss_kib();

    // The culprits against what was injected.
    let notices = notices.0.lock().unwrap().clone();
    let mut matched: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for (machine, culprit, at) in &notices {
        let Some(i) = machines.iter().position(|m| &m.name == machine) else {
            report.not_injected += 1;
            continue;
        };
        match steps
            .iter()
            .find(|s| s.machine == i && sha(s.commit) == *culprit)
        {
            Some(s) => {
                let since = first_bad_upload
                    .get(&(i, s.commit))
                    .map_or(0.0, |t| at.duration_since(*t).as_secs_f64());
                matched.entry((i, s.commit)).or_insert(since);
            }
            None if steps.iter().any(|s| s.machine == i) => {
                report.wrong += 1;
                let at = (0..lab.commits).find(|&c| sha(c) == *culprit);
                let injected: Vec<usize> = steps
                    .iter()
                    .filter(|s| s.machine == i)
                    .map(|s| s.commit)
                    .collect();
                report.summaries.push(format!(
                    "wrong culprit on {machine}: commit {at:?}; injected at {injected:?}"
                ));
            }
            None => report.not_injected += 1,
        }
    }
    report.injected = steps.len();
    report.detectable = steps.iter().filter(|s| s.detectable).count();
    for s in steps.iter().filter(|s| s.detectable) {
        match matched.get(&(s.machine, s.commit)) {
            Some(&secs) => {
                report.exact += 1;
                report.secs_to_mail.push(secs);
            }
            None => report.missed.push(format!(
                "{} at commit {} ({:+.1} %)",
                machines[s.machine].name,
                s.commit,
                s.pct * 100.0
            )),
        }
    }
    // Runs: the done bisections' against a fixed-runs bisection of the same ranges.
    let (_, list) = get(&http, &format!("{base}/api/v1/bisections?limit=200")).await;
    let done: Vec<&Value> = list["bisections"]
        .as_array()
        .map(|b| b.iter().filter(|b| b["state"] == "done").collect())
        .unwrap_or_default();
    if !done.is_empty() {
        let ours: u64 = done
            .iter()
            .map(|b| b["runs_total"].as_u64().unwrap_or(0))
            .sum();
        let fixed: u64 = done
            .iter()
            .map(|b| {
                let between = b["tested"].as_array().map_or(0, Vec::len) as u64;
                let range = (b["remaining"].as_u64().unwrap_or(0) + between).max(1);
                // Both ends, then a binary search over the range.
                u64::from(FIXED_RUNS) * (2 + (64 - u64::from(range.leading_zeros())))
            })
            .sum();
        report.runs_per_culprit = ours as f64 / done.len() as f64;
        report.fixed_runs_per_culprit = fixed as f64 / done.len() as f64;
    }
    // Nothing lost or half-stored: every upload answered 201 is there with its three runs.
    for (machine, id) in &uploaded {
        let (status, u) = get(&http, &format!("{base}/api/v1/uploads/{id}")).await;
        let runs = u["runs"].as_array().map_or(0, |r| {
            r.iter()
                .filter(|r| r["machine"] == machine.as_str())
                .count()
        });
        if status != 200 || runs != 3 {
            report.lost += 1;
        }
    }
    // Leases: at the end, no pending request holds runs past its lease for long.
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for m in &machines {
        let (_, work) = get(
            &http,
            &format!("{base}/api/v1/work?machine={}", urlencode(&m.name)),
        )
        .await;
        for r in work["requests"].as_array().into_iter().flatten() {
            let until = r["lease"]["until"].as_i64().unwrap_or(0);
            let left = r["runs"].as_u64().unwrap_or(0) > r["received"].as_u64().unwrap_or(0);
            if left && until > 0 && until < now_ms - 2 * 1000 * lab.lease_secs as i64 {
                report.stuck_leases += 1;
            }
        }
    }
    // Robots' answers of 5xx (not the connection errors of a restart, nor the 503 "the
    // database is unreachable; try again" of a PostgreSQL outage: the answer designed for it).
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("robot-") {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            report.server_errors += text.matches("server answered 5").count()
                - text.matches("server answered 503").count();
        }
    }
    report.hostile_ran = walk_for(root, "pwned");
    let (_, all) = get(&http, &format!("{base}/api/v1/alerts?status=all&limit=500")).await;
    for s in all["summaries"].as_array().into_iter().flatten() {
        report.summaries.push(format!(
            "#{} {} {} {:?}..{:?} {}",
            s["id"],
            s["machine"],
            s["status"],
            s["good"]["sha"].as_str().map(|x| x.get(..8).unwrap_or(x)),
            s["bad"]["sha"].as_str().map(|x| x.get(..8).unwrap_or(x)),
            s["alerts"][0]["change_pct"]
        ));
    }
    let index = |v: &Value| {
        v.as_str()
            .and_then(|x| (0..lab.commits).find(|&c| sha(c) == x))
    };
    for b in list["bisections"].as_array().into_iter().flatten() {
        report.summaries.push(format!(
            "bisection {} {} {} good {:?} bad {:?} culprit {:?} runs {} reason {}",
            b["id"],
            b["machine"],
            b["state"],
            index(&b["good"]),
            index(&b["bad"]),
            index(&b["culprit"]),
            b["runs_total"],
            b["reason"]
        ));
    }
    if std::env::var_os("LAB_KEEP").is_some() {
        eprintln!("lab: kept {}", dir.keep().display());
        return report;
    }
    drop(robots);
    drop(servers);
    report.wall = started.elapsed();
    report
}

/// What `/metrics` says waits in the alert pipeline's queues: series for the detector,
/// events not yet rendered, notifications not yet delivered (an unreadable answer counts as
/// one waiting).
async fn queued(http: &reqwest::Client, base: &str) -> usize {
    let Ok(r) = http.get(format!("{base}/metrics")).send().await else {
        return 1;
    };
    let text = r.text().await.unwrap_or_default();
    let mut total = 0;
    let mut seen = 0;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(name), Some(value)) = (words.next(), words.next()) else {
            continue;
        };
        if matches!(
            name,
            "perfline_alert_jobs" | "perfline_alert_events_unnotified" | "perfline_outbox_pending"
        ) {
            seen += 1;
            total += value.parse::<usize>().unwrap_or(1);
        }
    }
    if seen == 3 {
        total
    } else {
        1
    }
}

async fn get(http: &reqwest::Client, url: &str) -> (u16, Value) {
    for _ in 0..600 {
        if let Ok(r) = http.get(url).send().await {
            if r.status().as_u16() != 503 {
                let status = r.status().as_u16();
                return (status, r.json().await.unwrap_or(Value::Null));
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no answer from {url}");
}

fn walk_for(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let p = e.path();
            e.file_name() == name || (p.is_dir() && walk_for(&p, name))
        })
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The scale run: `robots` robots, each uploading a `keys`-key LKP job (`format=lkp-stats`) of
/// the next commit every `every`, for `duration`; a tenth of them with a 10 % KPI step at
/// their 40th job (a third of the way in a shorter run). Steps alert at once (`"confirm": false`): the time measured is from the
/// upload that makes a step detectable (the 4th after it) to its summary in the API.
#[derive(Debug, Clone)]
pub struct Scale {
    pub robots: usize,
    pub keys: usize,
    pub every: Duration,
    pub duration: Duration,
    pub postgres: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct ScaleReport {
    pub uploads: usize,
    pub failed: usize,
    pub samples_per_sec: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub steps: usize,
    pub alerted: usize,
    pub alert_secs: Vec<f64>,
    pub rss_kib: (u64, u64),
}

impl ScaleReport {
    pub fn print(&self) -> String {
        let worst = self.alert_secs.iter().copied().fold(0.0, f64::max);
        format!(
            "uploads {} ({} failed), {:.0} samples/s sustained\n\
             upload latency p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms\n\
             steps {}, alerted {}, slowest alert {:.1} s after the upload that made it detectable\n\
             server VmRSS {} KiB at 10 %, {} KiB at the end",
            self.uploads,
            self.failed,
            self.samples_per_sec,
            self.p50_ms,
            self.p99_ms,
            self.max_ms,
            self.steps,
            self.alerted,
            worst,
            self.rss_kib.0,
            self.rss_kib.1
        )
    }
}

fn lkp_job(keys: usize, robot: usize, n: usize, stepped: bool) -> String {
    let mut out = String::with_capacity(keys * 40);
    out.push('{');
    let noise = |k: usize| 1.0 + (((robot * 31 + n * 17 + k * 7) % 11) as f64 - 5.0) / 2500.0;
    let kpi = if stepped { 2250.0 } else { 2500.0 };
    out.push_str(&format!(
        "\"netperf.Throughput_Mbps\": {:.3}",
        kpi * noise(0)
    ));
    for k in 1..keys {
        out.push_str(&format!(
            ", \"proc-vmstat.key_{k}\": {:.3}",
            (1000 + k) as f64 * noise(k)
        ));
    }
    out.push('}');
    out
}

pub async fn scale(s: &Scale) -> ScaleReport {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let db = match &s.postgres {
        Some(url) => url.clone(),
        None => root.join("perfline.db").to_string_lossy().into_owned(),
    };
    let args: Vec<String> = ["--db", &db, "--log", "info", "--write-rate", "0"]
        .iter()
        .map(|a| (*a).to_owned())
        .collect();
    let mut servers = vec![Server::start(
        free_port(),
        args.clone(),
        root.join("server-0.log"),
    )];
    if s.postgres.is_some() {
        servers.push(Server::start(free_port(), args, root.join("server-1.log")));
    }
    let urls: Vec<String> = servers.iter().map(Server::url).collect();
    let http = reqwest::Client::new();
    let mut errors = 0;
    let base = urls[0].clone();
    let r = send(
        &http,
        |h| {
            h.put(format!("{base}/api/v1/alert-rules"))
                .json(&json!({"rules": [{"confirm": false}]}))
        },
        &mut errors,
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    let jobs = (s.duration.as_secs_f64() / s.every.as_secs_f64()).ceil() as usize + 1;
    let log: String = (0..jobs)
        .rev()
        .map(|i| format!("{} {} commit number {i}\n", sha(i), 1_700_000_000 + i * 60))
        .collect();
    let r = send(
        &http,
        |h| {
            h.post(format!("{base}/api/v1/commits?repo=linux&branch=master"))
                .body(log.clone())
        },
        &mut errors,
    )
    .await;
    assert_eq!(r.status().as_u16(), 201);
    // (seconds into the run, milliseconds the upload took)
    let latencies: Arc<Mutex<Vec<(f64, f64)>>> = Arc::default();
    let failed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let detectable: Arc<Mutex<Vec<(String, Instant)>>> = Arc::default();
    let started = Instant::now();
    // The step early enough to be found within the run (8 jobs before it, 4 after at least).
    let step_at = (jobs / 3).clamp(10, 40);
    let mut tasks = Vec::new();
    for robot in 0..s.robots {
        let (http, url) = (http.clone(), urls[robot % urls.len()].clone());
        let (latencies, failed, detectable) =
            (latencies.clone(), failed.clone(), detectable.clone());
        let (keys, every, duration) = (s.keys, s.every, s.duration);
        tasks.push(tokio::spawn(async move {
            // Robots start spread over one period.
            tokio::time::sleep(every.mul_f64(robot as f64 / 100.0 % 1.0)).await;
            let machine = format!("scale-{robot:03}");
            let stepped = robot % 10 == 0;
            let mut n = 0;
            let mut next = Instant::now();
            while started.elapsed() < duration {
                let body = lkp_job(keys, robot, n, stepped && n >= step_at);
                let q = format!(
                    "{url}/api/v1/upload?benchmark=netperf&machine={machine}&kernel=6.{n}&commit={}&format=lkp-stats",
                    sha(n)
                );
                let t = Instant::now();
                match http.post(&q).body(body).send().await {
                    Ok(r) if r.status().as_u16() == 201 => {
                        latencies.lock().unwrap().push((
                            started.elapsed().as_secs_f64(),
                            t.elapsed().as_secs_f64() * 1e3,
                        ));
                        if stepped && n == step_at + 3 {
                            detectable.lock().unwrap().push((machine.clone(), Instant::now()));
                        }
                    }
                    _ => {
                        failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                n += 1;
                next += every;
                tokio::time::sleep_until(next.into()).await;
            }
        }));
    }
    // Watch for the steps' summaries meanwhile.
    let mut report = ScaleReport::default();
    let mut alerted: HashMap<String, f64> = HashMap::new();
    let mut sampled = false;
    // Server 0's VmRSS each minute, to see whether it levels off.
    let mut rss_minutes: Vec<u64> = Vec::new();
    while started.elapsed() < s.duration + Duration::from_secs(10) {
        if !sampled && started.elapsed() > s.duration / 10 {
            report.rss_kib.0 = servers[0].rss_kib();
            sampled = true;
        }
        if started.elapsed() >= Duration::from_secs(60 * (rss_minutes.len() as u64 + 1)) {
            rss_minutes.push(servers[0].rss_kib() / 1024);
        }
        let waiting: Vec<(String, Instant)> = detectable
            .lock()
            .unwrap()
            .iter()
            .filter(|(m, _)| !alerted.contains_key(m))
            .cloned()
            .collect();
        for (machine, at) in waiting {
            let (_, found) = get(
                &http,
                &format!("{base}/api/v1/alerts?status=all&machine={machine}"),
            )
            .await;
            if found["summaries"].as_array().is_some_and(|a| !a.is_empty()) {
                alerted.insert(machine, at.elapsed().as_secs_f64());
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    for t in tasks {
        let _ = t.await;
    }
    report.rss_kib.1 = servers[0].rss_kib();
    let timed = latencies.lock().unwrap().clone();
    // The slowest upload of each 10 s, to see when uploads waited.
    let mut windows: Vec<f64> = Vec::new();
    for &(at, ms) in &timed {
        let w = (at / 10.0) as usize;
        if windows.len() <= w {
            windows.resize(w + 1, 0.0);
        }
        windows[w] = windows[w].max(ms);
    }
    eprintln!("scale: slowest upload per 10 s: {windows:.0?}");
    eprintln!("scale: server 0's VmRSS each minute (MiB): {rss_minutes:?}");
    if std::env::var_os("LAB_KEEP").is_some() {
        eprintln!("scale: kept {}", dir.keep().display());
    }
    let mut l: Vec<f64> = timed.iter().map(|&(_, ms)| ms).collect();
    l.sort_by(f64::total_cmp);
    let q = |p: f64| {
        l.get(((l.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    report.uploads = l.len();
    report.failed = failed.load(std::sync::atomic::Ordering::Relaxed);
    report.samples_per_sec = (l.len() * s.keys) as f64 / s.duration.as_secs_f64();
    report.p50_ms = q(0.5);
    report.p99_ms = q(0.99);
    report.max_ms = l.last().copied().unwrap_or(f64::NAN);
    report.steps = detectable.lock().unwrap().len();
    report.alerted = alerted.len();
    report.alert_secs = alerted.into_values().collect();
    report
}
