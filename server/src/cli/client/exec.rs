//! What `perfline work` and `perfline bisect run` share: run the user's command for one run
//! (through `sh -c`, with the server and token in its environment) and upload what it prints.
//! The values the server names reach the command only through its environment
//! ([`placeholders`](super::placeholders)): nothing a server or an uploader wrote is run.

use super::http::*;
use super::*;
use reqwest::Method;

/// Runs the user's `template` with each `{name}` of `vars` standing for its value, which the
/// command gets as the variable `PERFLINE_NAME` (beside `PERFLINE_SERVER` and
/// `PERFLINE_TOKEN`), and uploads a non-empty standard output as one run, with the upload
/// fields `fields` (an empty output: the command uploaded itself). `what` names the run in
/// errors. The server's text summary, when it uploaded.
pub(super) async fn run_and_upload(
    http: &Http,
    client: &Client,
    template: &str,
    vars: &[(&str, &str)],
    fields: &[(&str, Option<&str>)],
    what: &str,
) -> Result<Option<String>, CliError> {
    let names: Vec<&str> = vars.iter().map(|(name, _)| *name).collect();
    let command = placeholders::expand(template, &names).map_err(CliError::Usage)?;
    let mut c = tokio::process::Command::new("sh");
    c.arg("-c")
        .arg(&command)
        .env("PERFLINE_SERVER", &client.server)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit());
    for (name, value) in vars {
        c.env(placeholders::variable(name), value);
    }
    if let Some(t) = &client.token {
        c.env("PERFLINE_TOKEN", t);
    }
    let out = c.output().await.map_err(|source| CliError::File {
        path: "sh".into(),
        source,
    })?;
    if !out.status.success() {
        return Err(CliError::Failed(format!(
            "the command failed ({}) for {what}: {template}",
            out.status
        )));
    }
    if out.stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    // A name of this run, the same on every retry of its upload: an output that repeats an
    // earlier run's byte for byte is still a new run (`run=`).
    let run =
        rand::distr::SampleString::sample_string(&rand::distr::Alphanumeric, &mut rand::rng(), 16);
    let mut fields = fields.to_vec();
    fields.push(("run", Some(run.as_str())));
    let path = format!("/api/v1/upload?{}", query(&fields));
    let body = out.stdout;
    let response = http
        .send(Method::POST, &path, "text/plain", || {
            Some(Body::Bytes(body.clone()))
        })
        .await?;
    Ok(Some(read_text(response).await?))
}

/// Refuses, before any work is taken, an `--exec` template whose placeholders (of `names`)
/// could not be run safely.
pub(super) fn check_template(template: &str, names: &[&str]) -> Result<(), CliError> {
    placeholders::expand(template, names)
        .map(drop)
        .map_err(CliError::Usage)
}
