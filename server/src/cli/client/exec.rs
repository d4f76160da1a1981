//! What `perfline work` and `perfline bisect run` share: run the user's command for one run
//! (through `sh -c`, with the server and token in its environment) and upload what it prints.

use super::http::*;
use super::*;
use reqwest::Method;

/// Runs `command` with `env` (beside `PERFLINE_SERVER` and `PERFLINE_TOKEN`) and uploads a
/// non-empty standard output as one run, with the upload fields `fields` (an empty output:
/// the command uploaded itself). `what` names the run in errors. The server's text summary,
/// when it uploaded.
pub(super) async fn run_and_upload(
    http: &Http,
    client: &Client,
    command: &str,
    env: &[(String, String)],
    fields: &[(&str, Option<&str>)],
    what: &str,
) -> Result<Option<String>, CliError> {
    let mut c = tokio::process::Command::new("sh");
    c.arg("-c")
        .arg(command)
        .env("PERFLINE_SERVER", &client.server)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit());
    for (name, value) in env {
        c.env(name, value);
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
            "the command failed ({}) for {what}: {command}",
            out.status
        )));
    }
    if out.stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let path = format!("/api/v1/upload?{}", query(fields));
    let body = out.stdout;
    let response = http
        .send(Method::POST, &path, "text/plain", || {
            Some(Body::Bytes(body.clone()))
        })
        .await?;
    Ok(Some(read_text(response).await?))
}
