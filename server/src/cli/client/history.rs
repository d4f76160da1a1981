// SPDX-License-Identifier: GPL-3.0-or-later
//! `perfline history` (a branch's `git log`) and `perfline bisect-log` (`git bisect log`),
//! read from a git checkout and sent to the server.

use super::http::*;
use super::*;
use clap::Args;
use reqwest::Method;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub client: Client,
    /// The repository's name on the server (default: the checkout directory's name).
    #[arg(long)]
    pub repo: Option<String>,
    /// The branch's name on the server (default: the checked-out branch).
    #[arg(long)]
    pub branch: Option<String>,
    /// What `git log` walks (default `HEAD`), e.g. `v6.6..v6.7`.
    #[arg(long, default_value = "HEAD")]
    pub range: String,
    /// Send each commit's parents and files too (`git log --name-only`): a bisection then
    /// says when its culprit is a merge or touches only documentation or selftests.
    #[arg(long)]
    pub with_files: bool,
    /// The git checkout (default: the current directory).
    #[arg(default_value = ".")]
    pub git_dir: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct BisectArgs {
    #[command(flatten)]
    pub client: Client,
    /// The git checkout being bisected (default: the current directory).
    #[arg(default_value = ".")]
    pub git_dir: PathBuf,
}

/// Runs git in `dir` and answers its standard output.
pub(super) fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, CliError> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| CliError::Git(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        return Err(CliError::Git(format!(
            "git {} in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

pub(super) fn git_line(dir: &Path, args: &[&str]) -> Result<String, CliError> {
    Ok(String::from_utf8_lossy(&git(dir, args)?).trim().to_owned())
}

pub(super) async fn history(a: HistoryArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let repo = match a.repo {
        Some(r) => r,
        None => {
            let top = git_line(&a.git_dir, &["rev-parse", "--show-toplevel"])?;
            Path::new(&top)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .ok_or_else(|| CliError::Usage("cannot name the repository: give --repo".into()))?
        }
    };
    let branch = match a.branch {
        Some(b) => b,
        None => {
            let b = git_line(&a.git_dir, &["rev-parse", "--abbrev-ref", "HEAD"])?;
            if b == "HEAD" {
                return Err(CliError::Usage(
                    "the checkout is on no branch (detached HEAD): give --branch".into(),
                ));
            }
            b
        }
    };
    if a.range.starts_with('-') {
        return Err(CliError::Usage(format!(
            "--range '{}' is not a revision range",
            a.range
        )));
    }
    let log = if a.with_files {
        // NUL-separated: no file name can pass for a commit. File names that are not UTF-8
        // are sent with U+FFFD in place of their bad bytes.
        let mut args = vec!["log"];
        args.extend(crate::ingest::history::GIT_LOG_WITH_FILES);
        args.extend([a.range.as_str(), "--"]);
        String::from_utf8_lossy(&git(&a.git_dir, &args)?)
            .into_owned()
            .into_bytes()
    } else {
        git(&a.git_dir, &["log", "--format=%H %ct %s", &a.range, "--"])?
    };
    eprintln!(
        "perfline: uploading {} commits of {repo}/{branch}",
        if a.with_files {
            log.windows(8).filter(|w| w == b"\0commit ").count()
        } else {
            log.iter().filter(|&&b| b == b'\n').count()
        }
    );
    let path = format!(
        "/api/v1/commits?{}",
        query(&[("repo", Some(&repo)), ("branch", Some(&branch))])
    );
    let r = http
        .send(Method::POST, &path, "application/json", || {
            Some(Body::Bytes(log.clone()))
        })
        .await?;
    let v: serde_json::Value = r.json().await.unwrap_or_default();
    println!(
        "history {}/{}: {} commits",
        v["repo"].as_str().unwrap_or(&repo),
        v["branch"].as_str().unwrap_or(&branch),
        v["commits"]
    );
    Ok(Outcome::Done)
}

pub(super) async fn bisect_log(a: BisectArgs) -> Result<Outcome, CliError> {
    let http = Http::new(&a.client)?;
    let log = git(&a.git_dir, &["bisect", "log"])?;
    let r = http
        .send(Method::POST, "/api/v1/bisect", "application/json", || {
            Some(Body::Bytes(log.clone()))
        })
        .await?;
    let v: serde_json::Value = r.json().await.unwrap_or_default();
    let marks = v["marks"].as_array().map_or(0, Vec::len);
    print!("bisect log: {marks} commits marked");
    match v["first_bad"].as_str() {
        Some(sha) => println!("; first bad commit {sha}"),
        None => println!(),
    }
    Ok(Outcome::Done)
}
