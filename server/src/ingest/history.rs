// SPDX-License-Identifier: GPL-3.0-or-later
//! What users upload about history: `git log` / `git rev-list` output (a repository's commit
//! order) and `git bisect log` (verdicts per commit). Pure, like every parser.

use app::trend::Mark;

use super::IngestError;

/// One commit of an uploaded history (oldest first in a history): its sha, commit time and
/// subject.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryCommit {
    pub sha: String,
    pub time: Option<i64>,
    pub subject: Option<String>,
}

/// A full or abbreviated commit id: 7 to 64 hex digits.
pub(crate) fn is_sha(s: &str) -> bool {
    (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Parses `git log --format='%H %ct %s'` or `git rev-list` output (newest first, as git prints
/// it) into a history, oldest first.
pub fn parse_git_log(text: &str) -> Result<Vec<HistoryCommit>, IngestError> {
    let mut commits = Vec::new();
    for (no, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.splitn(3, ' ');
        let sha = parts.next().unwrap_or_default();
        if !is_sha(sha) {
            return Err(IngestError::at_line(
                no as u64 + 1,
                format!("'{sha}' is not a commit id; expected lines of `git log --format='%H %ct %s'` or `git rev-list`"),
            ));
        }
        let (time, subject) = match parts.next() {
            Some(t) if t.bytes().all(|b| b.is_ascii_digit()) => (
                t.parse::<i64>().ok(),
                parts.next().map(|s| s.trim().to_owned()),
            ),
            Some(t) => (
                None,
                Some(
                    format!("{t} {}", parts.next().unwrap_or_default())
                        .trim()
                        .to_owned(),
                ),
            ),
            None => (None, None),
        };
        commits.push(HistoryCommit {
            sha: sha.to_ascii_lowercase(),
            time,
            // ESC, BEL and the like never reach a terminal through a report.
            subject: subject
                .map(|s| app::label::clean_subject(&s))
                .filter(|s| !s.is_empty()),
        });
    }
    if commits.is_empty() {
        return Err(IngestError::new("the commit list is empty"));
    }
    commits.reverse();
    Ok(commits)
}

/// What `git log --name-only` says of a commit beyond its place: how many parents it has (a
/// merge has two or more) and the files it touches (`None`: more than [`MAX_COMMIT_FILES`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CommitDetail {
    pub sha: String,
    pub parents: u32,
    pub files: Option<Vec<String>>,
}

/// The most files kept of one commit; a commit touching more is not "only" anything.
pub const MAX_COMMIT_FILES: usize = 1000;

/// The `git log` arguments whose output [`parse_git_log_detailed`] reads unambiguously: each
/// commit's header after an empty NUL-terminated field, and file names NUL-terminated, so
/// that no file name (`commit 1234567`, a newline) can pass for a commit.
pub const GIT_LOG_WITH_FILES: [&str; 3] =
    ["-z", "--format=%x00commit %H %P%n%ct %s", "--name-only"];

/// Parses a history: the lines `parse_git_log` reads; or (what `perfline history --with-files`
/// sends) the NUL-separated output of `git log` with [`GIT_LOG_WITH_FILES`]; or the same
/// without `-z` and the leading `%x00` (`git log --format='commit %H %P%n%ct %s'
/// --name-only`), with each commit's parents and files.
pub fn parse_git_log_detailed(
    text: &str,
) -> Result<(Vec<HistoryCommit>, Vec<CommitDetail>), IngestError> {
    if text.contains('\0') {
        return parse_git_log_nul(text);
    }
    let rich = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with("commit "));
    if !rich {
        return Ok((parse_git_log(text)?, Vec::new()));
    }
    let mut commits = Vec::new();
    let mut details: Vec<CommitDetail> = Vec::new();
    // Whether the line after a `commit` line (time and subject) is still to come.
    let mut header = false;
    for (no, line) in text.lines().enumerate() {
        let bad = |m: String| IngestError::at_line(no as u64 + 1, m);
        if let Some(rest) = line.strip_prefix("commit ") {
            let mut ids = rest.split_whitespace();
            let sha = ids.next().unwrap_or_default();
            let parents: Vec<&str> = ids.collect();
            let ids_ok = is_sha(sha) && parents.iter().all(|p| is_sha(p));
            if !ids_ok && !commits.is_empty() {
                header = false;
                // A file named `commit …` in the list of the commit above (only the `-z`
                // form tells such a name from a commit whose ids are all hex).
                if let Some(files) = details.last_mut().and_then(|d| d.files.as_mut()) {
                    if files.len() < MAX_COMMIT_FILES {
                        files.push(app::label::clean_subject(line.trim()));
                    }
                }
                continue;
            }
            if !ids_ok {
                return Err(bad(format!(
                    "'{}' is not `commit <sha> <parent shas>`; expected `git log --format='commit %H %P%n%ct %s' --name-only`",
                    line.chars().take(100).collect::<String>()
                )));
            }
            commits.push(HistoryCommit {
                sha: sha.to_ascii_lowercase(),
                time: None,
                subject: None,
            });
            details.push(CommitDetail {
                sha: sha.to_ascii_lowercase(),
                parents: u32::try_from(parents.len()).unwrap_or(u32::MAX),
                files: Some(Vec::new()),
            });
            header = true;
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let (Some(c), Some(d)) = (commits.last_mut(), details.last_mut()) else {
            return Err(bad("a line before the first `commit <sha>` line".into()));
        };
        if header {
            header = false;
            let (t, subject) = trimmed.split_once(' ').unwrap_or((trimmed, ""));
            c.time = t.parse::<i64>().ok();
            let subject = if c.time.is_some() { subject } else { trimmed };
            c.subject = Some(app::label::clean_subject(subject)).filter(|s| !s.is_empty());
            continue;
        }
        if let Some(files) = &mut d.files {
            if files.len() >= MAX_COMMIT_FILES {
                d.files = None;
            } else {
                files.push(app::label::clean_subject(trimmed));
            }
        }
    }
    if commits.is_empty() {
        return Err(IngestError::new("the commit list is empty"));
    }
    commits.reverse();
    Ok((commits, details))
}

/// [`parse_git_log_detailed`] of `git log` with [`GIT_LOG_WITH_FILES`]: fields end in NUL; a
/// commit's header (`commit <sha> <parents>\n<time> <subject>`) is the field after an empty
/// one (or the first), the fields after it its files (the first after a newline).
fn parse_git_log_nul(text: &str) -> Result<(Vec<HistoryCommit>, Vec<CommitDetail>), IngestError> {
    let mut commits = Vec::new();
    let mut details: Vec<CommitDetail> = Vec::new();
    let mut header = true;
    for (no, field) in text.split('\0').enumerate() {
        if field.is_empty() || (header && field.trim().is_empty()) {
            header = true;
            continue;
        }
        if !header {
            let name = field.strip_prefix('\n').unwrap_or(field);
            if let Some(d) = details.last_mut() {
                match &mut d.files {
                    Some(files) if files.len() >= MAX_COMMIT_FILES => d.files = None,
                    Some(files) => files.push(app::label::clean_subject(name)),
                    None => {}
                }
            }
            continue;
        }
        header = false;
        let bad = |m: String| IngestError::new(format!("field {}: {m}", no + 1));
        let field = field.trim_start_matches('\n');
        let (ids, rest) = field.split_once('\n').unwrap_or((field, ""));
        let mut ids = ids
            .strip_prefix("commit ")
            .unwrap_or("?")
            .split_whitespace();
        let sha = ids.next().unwrap_or_default();
        let parents: Vec<&str> = ids.collect();
        if !is_sha(sha) || !parents.iter().all(|p| is_sha(p)) {
            return Err(bad(format!(
                "'{}' is not `commit <sha> <parent shas>`; expected `git log {}`",
                field.chars().take(100).collect::<String>().escape_debug(),
                GIT_LOG_WITH_FILES.join(" ")
            )));
        }
        let rest = rest.trim();
        let (t, subject) = rest.split_once(' ').unwrap_or((rest, ""));
        let time = t.parse::<i64>().ok();
        let subject = if time.is_some() { subject } else { rest };
        commits.push(HistoryCommit {
            sha: sha.to_ascii_lowercase(),
            time,
            subject: Some(app::label::clean_subject(subject)).filter(|s| !s.is_empty()),
        });
        details.push(CommitDetail {
            sha: sha.to_ascii_lowercase(),
            parents: u32::try_from(parents.len()).unwrap_or(u32::MAX),
            files: Some(Vec::new()),
        });
    }
    if commits.is_empty() {
        return Err(IngestError::new("the commit list is empty"));
    }
    commits.reverse();
    Ok((commits, details))
}

/// The most verdicts one bisect log may carry.
pub const MAX_BISECT_VERDICTS: usize = 10_000;

/// A bisect log's verdicts per commit, and the first bad commit.
pub type BisectVerdicts = (Vec<(String, Mark)>, Option<String>);

/// The verdicts of a `git bisect log`, and the first bad commit if the bisection found it.
pub fn parse_bisect_log(text: &str) -> Result<BisectVerdicts, IngestError> {
    let mut marks: Vec<(String, Mark)> = Vec::new();
    let mut first_bad = None;
    let bracketed = |rest: &str| -> Option<String> {
        let inner = rest.trim().strip_prefix('[')?.split(']').next()?;
        is_sha(inner).then(|| inner.to_ascii_lowercase())
    };
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("# first bad commit:") {
            first_bad = bracketed(rest);
        } else if let Some(rest) = line.strip_prefix("git bisect ") {
            let mut words = rest.split_whitespace();
            let mark = match words.next() {
                Some("good" | "old") => Mark::Good,
                Some("bad" | "new") => Mark::Bad,
                Some("skip") => Mark::Skip,
                _ => continue,
            };
            for sha in words.filter(|w| is_sha(w)) {
                marks.push((sha.to_ascii_lowercase(), mark));
            }
        } else if let Some(rest) = line.strip_prefix("# good:") {
            if let Some(sha) = bracketed(rest) {
                marks.push((sha, Mark::Good));
            }
        } else if let Some(rest) = line.strip_prefix("# bad:") {
            if let Some(sha) = bracketed(rest) {
                marks.push((sha, Mark::Bad));
            }
        } else if let Some(rest) = line.strip_prefix("# skip:") {
            if let Some(sha) = bracketed(rest) {
                marks.push((sha, Mark::Skip));
            }
        }
    }
    if marks.len() > MAX_BISECT_VERDICTS {
        return Err(IngestError::new(format!(
            "{} verdicts in one bisect log; at most {MAX_BISECT_VERDICTS} are accepted (a bisection of a million commits takes about 20)",
            marks.len()
        )));
    }
    if marks.is_empty() && first_bad.is_none() {
        return Err(IngestError::new(
            "no verdicts found; expected the output of `git bisect log`",
        ));
    }
    // The last verdict on a commit wins.
    let mut seen = std::collections::HashSet::new();
    marks.reverse();
    marks.retain(|(sha, _)| seen.insert(sha.clone()));
    marks.reverse();
    if let Some(fb) = &first_bad {
        if !marks.iter().any(|(s, _)| s == fb) {
            marks.push((fb.clone(), Mark::Bad));
        }
    }
    Ok((marks, first_bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_lose_their_control_characters() {
        let h = parse_git_log("a337531b94 1538000000 tcp:\u{1b}[2J fix\u{7}\n").unwrap();
        assert_eq!(h[0].subject.as_deref(), Some("tcp:[2J fix"));
    }

    #[test]
    fn a_history_with_files_says_which_are_merges_and_what_each_touches() {
        let (a, b, c) = ("a".repeat(40), "b".repeat(40), "c".repeat(40));
        let text = format!(
            "commit {c} {b} {a}\n1700000120 Merge branch 'docs'\n\ncommit {b} {a}\n1700000060 docs: typo\n\nDocumentation/x.rst\nDocumentation/y.rst\ncommit {a}\n1700000000 net: first\n\nnet/core/dev.c\n"
        );
        let (commits, details) = parse_git_log_detailed(&text).unwrap();
        assert_eq!(
            commits.iter().map(|c| c.sha.as_str()).collect::<Vec<_>>(),
            [&a, &b, &c]
        );
        assert_eq!(commits[1].subject.as_deref(), Some("docs: typo"));
        assert_eq!(commits[1].time, Some(1_700_000_060));
        let by = |sha: &str| details.iter().find(|d| d.sha == sha).unwrap();
        assert_eq!(by(&c).parents, 2);
        assert_eq!(by(&c).files, Some(vec![]));
        assert_eq!(
            by(&b).files,
            Some(vec![
                "Documentation/x.rst".to_owned(),
                "Documentation/y.rst".to_owned()
            ])
        );
        // The plain form has no details.
        let (plain, none) = parse_git_log_detailed(&format!("{a} 1700000000 x\n")).unwrap();
        assert_eq!(plain.len(), 1);
        assert!(none.is_empty());
        assert!(parse_git_log_detailed("commit nothex\n").is_err());
    }

    /// Read as real git writes it: a file named like a commit header, or with a newline in
    /// its name, stays a file.
    #[test]
    fn a_nul_separated_history_has_no_false_commits() {
        let dir = std::env::temp_dir().join(format!("perfline-gitz-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(["-c", "user.email=t@t", "-c", "user.name=t"])
                .args(args)
                .current_dir(&dir)
                .output()
                .expect("git runs");
            assert!(out.status.success(), "git {args:?}: {out:?}");
            out.stdout
        };
        git(&["init", "-q"]);
        for name in ["commit 1234567", "commit of the year.txt", "new\nline"] {
            std::fs::write(dir.join(name), "x").unwrap();
        }
        git(&["add", "."]);
        git(&["commit", "-qm", "first"]);
        git(&["commit", "-q", "--allow-empty", "-m", "empty"]);
        std::fs::write(dir.join("x"), "y").unwrap();
        git(&["add", "x"]);
        git(&["commit", "-qm", "third"]);
        let mut args = vec!["log"];
        args.extend(GIT_LOG_WITH_FILES);
        let log = String::from_utf8(git(&args)).unwrap();
        let (commits, details) = parse_git_log_detailed(&log).unwrap();
        assert_eq!(
            commits
                .iter()
                .map(|c| c.subject.as_deref().unwrap_or(""))
                .collect::<Vec<_>>(),
            ["first", "empty", "third"]
        );
        let mut first = details[2].files.clone().unwrap();
        first.sort();
        assert_eq!(
            first,
            ["commit 1234567", "commit of the year.txt", "newline"]
        );
        assert_eq!(details[1].files, Some(vec![]));
        assert_eq!(details[0].files, Some(vec!["x".to_owned()]));
        // Without -z a `commit …` file name that is not all hex is a file, not an error.
        let plain = String::from_utf8(git(&[
            "log",
            "--format=commit %H %P%n%ct %s",
            "--name-only",
        ]))
        .unwrap();
        let (commits, _) = parse_git_log_detailed(&plain).unwrap();
        assert_eq!(
            commits.len(),
            4,
            "the old form still reads `commit 1234567` as a commit"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bisect_logs_have_a_bound() {
        let log: String = (0..=MAX_BISECT_VERDICTS)
            .map(|i| format!("git bisect good {i:040x}\n"))
            .collect();
        let e = parse_bisect_log(&log).unwrap_err();
        assert!(
            e.message
                .starts_with("10001 verdicts in one bisect log; at most 10000"),
            "{e}"
        );
    }

    #[test]
    fn git_log_and_rev_list_become_a_history_oldest_first() {
        let log =
            "a337531b942bd8a03e7052444d7e36972aac2d92 1538000000 tcp: up initial rmem to 128KB\n\
                   3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b 1537990000 hns3: Another build fix.\n";
        let h = parse_git_log(log).unwrap();
        assert_eq!(h[0].sha, "3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b");
        assert_eq!(h[0].time, Some(1537990000));
        assert_eq!(
            h[1].subject.as_deref(),
            Some("tcp: up initial rmem to 128KB")
        );
        let h = parse_git_log("a337531b94\n3ff6cde846\n").unwrap();
        assert_eq!((h[0].sha.as_str(), h[0].time), ("3ff6cde846", None));
        let err = parse_git_log("a337531b94\nnot-a-sha x\n").unwrap_err();
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn bisect_logs_mark_commits() {
        let log = "git bisect start\n\
                   # bad: [a337531b942bd8a03e7052444d7e36972aac2d92] tcp: up initial rmem\n\
                   git bisect bad a337531b942bd8a03e7052444d7e36972aac2d92\n\
                   # good: [3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b] hns3: Another build fix.\n\
                   git bisect good 3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b\n\
                   git bisect skip 1111111111111111111111111111111111111111\n\
                   # first bad commit: [a337531b942bd8a03e7052444d7e36972aac2d92] tcp: up initial rmem\n";
        let (marks, first) = parse_bisect_log(log).unwrap();
        assert_eq!(
            first.as_deref(),
            Some("a337531b942bd8a03e7052444d7e36972aac2d92")
        );
        assert_eq!(marks.len(), 3);
        assert!(marks.contains(&(
            "3ff6cde846857d45aa9ccf6a3c87f0b5bc0a9e6b".into(),
            Mark::Good
        )));
        assert!(marks.contains(&(
            "1111111111111111111111111111111111111111".into(),
            Mark::Skip
        )));
        assert!(parse_bisect_log("hello\n").is_err());
    }
}
