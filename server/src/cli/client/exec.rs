// SPDX-License-Identifier: GPL-3.0-or-later
//! What `perfline work` and `perfline bisect run` share: run the user's command for one run
//! (through `sh -c`, with the server and token in its environment) and upload what it prints.
//! The values the server names reach the command only through its environment
//! ([`placeholders`](super::placeholders)): nothing a server or an uploader wrote is run.

use super::http::*;
use super::*;
use reqwest::Method;
use std::time::Duration;

/// How one run of the command is watched: killed (its whole process group) after `timeout`,
/// and the robot's lease on its request renewed while it runs.
#[derive(Default)]
pub(super) struct Watch<'a> {
    pub timeout: Option<Duration>,
    pub lease: Option<Renewal<'a>>,
}

/// A lease to renew while the command runs: `POST /api/v1/work/{request}/renew`.
pub(super) struct Renewal<'a> {
    pub request: i64,
    pub robot: &'a str,
    pub every: Duration,
}

/// Runs the user's `template` with each `{name}` of `vars` standing for its value, which the
/// command gets as the variable `PERFLINE_NAME` (beside `PERFLINE_SERVER` and
/// `PERFLINE_TOKEN`), and uploads a non-empty standard output as one run, with the upload
/// fields `fields` (an empty output: the command uploaded itself). `what` names the run in
/// errors. The server's text summary, when it uploaded. A command that fails, times out or is
/// stopped (SIGTERM to the robot) is [`CliError::Failed`], with nothing uploaded.
pub(super) async fn run_and_upload(
    http: &Http,
    client: &Client,
    template: &str,
    vars: &[(&str, &str)],
    fields: &[(&str, Option<&str>)],
    what: &str,
    watch: &Watch<'_>,
) -> Result<Option<String>, CliError> {
    let names: Vec<&str> = vars.iter().map(|(name, _)| *name).collect();
    let command = placeholders::expand(template, &names).map_err(CliError::Usage)?;
    let mut c = tokio::process::Command::new("sh");
    c.arg("-c")
        .arg(&command)
        .env("PERFLINE_SERVER", &client.server)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        // Its own process group: a timeout kills what it started too (a build, a benchmark).
        .process_group(0)
        .kill_on_drop(true);
    for (name, value) in vars {
        c.env(placeholders::variable(name), value);
    }
    if let Some(t) = &client.token {
        c.env("PERFLINE_TOKEN", t);
    }
    let stdout = watched(http, c, watch).await.map_err(|e| match e {
        Ended::Spawn(source) => CliError::File {
            path: "sh".into(),
            source,
        },
        Ended::Failed(why) => CliError::Failed(format!("{why} for {what}: {template}")),
    })?;
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    // A name of this run, the same on every retry of its upload: an output that repeats an
    // earlier run's byte for byte is still a new run (`run=`).
    let run =
        rand::distr::SampleString::sample_string(&rand::distr::Alphanumeric, &mut rand::rng(), 16);
    let mut fields = fields.to_vec();
    fields.push(("run", Some(run.as_str())));
    let path = format!("/api/v1/upload?{}", query(&fields));
    let response = http
        .send(Method::POST, &path, "text/plain", || {
            Some(Body::Bytes(stdout.clone()))
        })
        .await?;
    Ok(Some(read_text(response).await?))
}

/// How a watched command ended without an output to upload.
enum Ended {
    Spawn(std::io::Error),
    Failed(String),
}

/// Runs `c`, renewing the lease and enforcing the timeout of `watch`; its standard output.
async fn watched(
    http: &Http,
    mut c: tokio::process::Command,
    watch: &Watch<'_>,
) -> Result<Vec<u8>, Ended> {
    use tokio::io::AsyncReadExt as _;
    use tokio::signal::unix::{signal, SignalKind};
    let mut child = c.spawn().map_err(Ended::Spawn)?;
    let mut pipe = child.stdout.take().ok_or_else(|| {
        Ended::Spawn(std::io::Error::other(
            "the command's standard output is not a pipe",
        ))
    })?;
    let reading = tokio::spawn(async move {
        let mut out = Vec::new();
        pipe.read_to_end(&mut out).await.map(|_| out)
    });
    let deadline = watch.timeout.map(|t| tokio::time::Instant::now() + t);
    let every = watch.lease.as_ref().map_or(Duration::from_secs(3600), |l| {
        l.every.max(Duration::from_millis(100))
    });
    let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let mut term = signal(SignalKind::terminate()).map_err(Ended::Spawn)?;
    let status = loop {
        tokio::select! {
            status = child.wait() => break status.map_err(Ended::Spawn)?,
            () = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            } => {
                kill_group(&mut child).await;
                return Err(Ended::Failed(format!(
                    "the command timed out after {} s",
                    watch.timeout.map_or(0, |t| t.as_secs())
                )));
            }
            _ = term.recv() => {
                kill_group(&mut child).await;
                return Err(Ended::Failed("the robot was stopped (SIGTERM)".into()));
            }
            _ = renew.tick(), if watch.lease.is_some() => {
                if let Some(l) = &watch.lease {
                    renew_lease(http, l).await;
                }
            }
        }
    };
    let out = reading
        .await
        .map_err(|e| Ended::Spawn(std::io::Error::other(e)))?
        .map_err(Ended::Spawn)?;
    if !status.success() {
        return Err(Ended::Failed(format!("the command failed ({status})")));
    }
    Ok(out)
}

/// Kills the command and everything in its process group, and reaps it.
async fn kill_group(child: &mut tokio::process::Child) {
    #[cfg(target_os = "linux")]
    if let Some(pid) = child
        .id()
        .and_then(|p| rustix::process::Pid::from_raw(p as i32))
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill().await;
}

/// Renews a lease once; a failure is only reported (the run goes on and still counts).
async fn renew_lease(http: &Http, l: &Renewal<'_>) {
    let body = serde_json::json!({ "robot": l.robot })
        .to_string()
        .into_bytes();
    match http
        .send_json(
            Method::POST,
            &format!("/api/v1/work/{}/renew", l.request),
            &body,
        )
        .await
    {
        Ok(r) => {
            if let Ok(lease) = r.json::<app::alerts::Lease>().await {
                if lease.until == 0 {
                    eprintln!(
                        "perfline: request {}: the lease is no longer ours (the run still counts when uploaded)",
                        l.request
                    );
                }
            }
        }
        Err(e) => eprintln!(
            "perfline: request {}: could not renew the lease: {e}",
            l.request
        ),
    }
}

/// Gives back `runs` runs of request `request` after a failure for `reason`; a failure to
/// reach the server is only reported (the lease then ends by itself).
pub(super) async fn release(http: &Http, request: i64, robot: &str, runs: u32, reason: &str) {
    let body = serde_json::json!({ "robot": robot, "reason": reason, "runs": runs })
        .to_string()
        .into_bytes();
    if let Err(e) = http
        .send_json(
            Method::POST,
            &format!("/api/v1/work/{request}/release"),
            &body,
        )
        .await
    {
        eprintln!("perfline: request {request}: could not give the run back: {e}");
    }
}

/// Refuses, before any work is taken, an `--exec` template whose placeholders (of `names`)
/// could not be run safely.
pub(super) fn check_template(template: &str, names: &[&str]) -> Result<(), CliError> {
    placeholders::expand(template, names)
        .map(drop)
        .map_err(CliError::Usage)
}
