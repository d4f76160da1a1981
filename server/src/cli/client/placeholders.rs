// SPDX-License-Identifier: GPL-3.0-or-later
//! `{placeholders}` in a robot's `--exec` command, made safe to hand to `sh -c`.
//!
//! The values a server names (benchmark, kernel, metric, commit, …) are chosen by whoever may
//! upload, and a robot runs as root. So no value is ever spliced into the command's text: each
//! `{name}` becomes `"${PERFLINE_NAME}"`, a quoted reference to the environment variable that
//! holds the value, which the shell expands as data, never as code: whatever its bytes (`;`,
//! `$(…)`, backticks, quotes, a newline), the value is one argument of the command.
//!
//! A placeholder inside quotes is refused: quoted text is mostly there to be handed to another
//! interpreter (`awk '…'`, `sh -c "…"`, `perl -e`, `ssh host "…"`), which would read the
//! value as code. There the command should read the variable itself (`ENVIRON["PERFLINE_X"]`,
//! `awk -v x="$PERFLINE_X"`, `"$1"` after `sh -c '…' sh "$PERFLINE_X"`). The quoting context
//! is followed through `$(…)` and backticks (bare inside them).

/// Where a placeholder stands in the command's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Outside quotes (the command's top level or a `$(…)`), with its open parentheses.
    Bare {
        parens: u32,
    },
    /// Inside `` `…` `` (bare inside).
    Backtick,
    Double,
    Single,
}

/// The environment variable that carries placeholder `name`'s value.
pub(super) fn variable(name: &str) -> String {
    format!("PERFLINE_{}", name.to_ascii_uppercase())
}

/// `template` with each `{name}` of `names` replaced by a quoted reference to its variable
/// ([`variable`]). Other braces, and a placeholder right after a backslash, stay as written.
/// A placeholder inside single or double quotes is an error that says what to write instead.
pub(super) fn expand(template: &str, names: &[&str]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 32);
    let mut stack = vec![Context::Bare { parens: 0 }];
    let mut rest = template;
    loop {
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        let after = chars.as_str();
        let top = *stack.last().unwrap_or(&Context::Bare { parens: 0 });
        if c == '{' {
            if let Some((name, after)) = placeholder(after, names) {
                let var = variable(name);
                if matches!(top, Context::Double | Context::Single) {
                    return Err(format!(
                        "{{{name}}} stands inside quotes in --exec, where the text may go to \
                         another program (awk, sh -c, ssh) that would read the value as code; \
                         write it bare, or read \"${var}\" in the command itself"
                    ));
                }
                out.push_str(&format!("\"${{{var}}}\""));
                rest = after;
                continue;
            }
        }
        out.push(c);
        rest = after;
        match (top, c) {
            (Context::Single, '\'') => {
                stack.pop();
            }
            (Context::Single, _) => {}
            (Context::Double | Context::Bare { .. } | Context::Backtick, '\\') => {
                // The backslash and what it escapes are copied as they are.
                let mut escaped = rest.chars();
                if let Some(e) = escaped.next() {
                    out.push(e);
                    rest = escaped.as_str();
                }
            }
            (Context::Double, '"') => {
                stack.pop();
            }
            (Context::Bare { .. } | Context::Backtick, '"') => stack.push(Context::Double),
            (Context::Bare { .. } | Context::Backtick, '\'') => stack.push(Context::Single),
            (Context::Double | Context::Bare { .. } | Context::Backtick, '$') => {
                if let Some(inner) = rest.strip_prefix('(') {
                    out.push('(');
                    rest = inner;
                    stack.push(Context::Bare { parens: 0 });
                }
            }
            (Context::Backtick, '`') => {
                stack.pop();
            }
            (Context::Double | Context::Bare { .. }, '`') => stack.push(Context::Backtick),
            (Context::Bare { parens }, '(') => {
                if let Some(last) = stack.last_mut() {
                    *last = Context::Bare { parens: parens + 1 };
                }
            }
            (Context::Bare { parens }, ')') => {
                if parens > 0 {
                    if let Some(last) = stack.last_mut() {
                        *last = Context::Bare { parens: parens - 1 };
                    }
                } else if stack.len() > 1 {
                    // The end of a `$(…)`.
                    stack.pop();
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The placeholder of `names` that `inner` (the text after a `{`) starts with, and the text
/// after its `}`.
fn placeholder<'t, 'n>(inner: &'t str, names: &[&'n str]) -> Option<(&'n str, &'t str)> {
    let (name, after) = inner.split_once('}')?;
    let name = names.iter().find(|n| **n == name)?;
    Some((name, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["commit", "benchmark", "request"];

    fn check(template: &str, expect: &str) {
        assert_eq!(expand(template, NAMES).as_deref(), Ok(expect), "{template}");
    }

    #[test]
    fn bare_placeholders_become_quoted_variables() {
        check(
            "build-boot-bench.sh {commit} {benchmark}",
            r#"build-boot-bench.sh "${PERFLINE_COMMIT}" "${PERFLINE_BENCHMARK}""#,
        );
        check(
            r#"run "at" --id={request}"#,
            r#"run "at" --id="${PERFLINE_REQUEST}""#,
        );
        check(
            r#"echo "$(basename {benchmark})" `echo {commit}`"#,
            r#"echo "$(basename "${PERFLINE_BENCHMARK}")" `echo "${PERFLINE_COMMIT}"`"#,
        );
        check(
            r#"x=$( (echo a) ; echo {commit} ) {commit}"#,
            r#"x=$( (echo a) ; echo "${PERFLINE_COMMIT}" ) "${PERFLINE_COMMIT}""#,
        );
    }

    #[test]
    fn placeholders_in_quotes_are_refused() {
        for template in [
            "awk 'BEGIN{print \"{benchmark}\"}'",
            "sh -c 'run {benchmark}'",
            "sh -c \"run {benchmark}\"",
            "ssh box \"run {commit}\"",
            "echo \"$(echo '{commit}')\"",
        ] {
            let e = expand(template, NAMES).unwrap_err();
            assert!(e.contains("inside quotes"), "{template}: {e}");
        }
    }

    #[test]
    fn other_braces_stay_as_written() {
        check(
            r#"awk '{print $1}' {nope} \{commit} {commit"#,
            r#"awk '{print $1}' {nope} \{commit} {commit"#,
        );
        check(
            "{commit}{commit}",
            r#""${PERFLINE_COMMIT}""${PERFLINE_COMMIT}""#,
        );
    }

    /// Whatever the template, the expanded command runs the user's own words with each value
    /// as one argument, and never a value's bytes as code.
    #[test]
    fn hostile_values_reach_sh_as_one_argument() {
        let hostile = "x;touch /tmp/perfline-pwned-unit $(id) `id` \"'\n\\";
        for template in [
            "printf '%s\\n' {benchmark}",
            "printf '%s\\n' \"$(printf '%s' {benchmark})\"",
            "printf '%s\\n' `printf '%s' {benchmark}`",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(expand(template, NAMES).unwrap())
                .env("PERFLINE_BENCHMARK", hostile)
                .output()
                .expect("sh runs");
            assert!(out.status.success(), "{template}");
            let printed = String::from_utf8_lossy(&out.stdout);
            assert!(printed.starts_with("x;touch"), "{template}: {printed}");
            assert!(!std::path::Path::new("/tmp/perfline-pwned-unit").exists());
        }
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(expand("printf '%s\\n' {benchmark}", NAMES).unwrap())
            .env("PERFLINE_BENCHMARK", hostile)
            .output()
            .expect("sh runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{hostile}\n"));
    }
}
