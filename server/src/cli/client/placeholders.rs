//! `{placeholders}` in a robot's `--exec` command, made safe to hand to `sh -c`.
//!
//! The values a server names (benchmark, kernel, metric, commit, …) are chosen by whoever may
//! upload, and a robot runs as root. So no value is ever spliced into the command's text: each
//! `{name}` becomes a reference to the environment variable `PERFLINE_NAME`, which holds the
//! value, and the shell expands it as data, never as code. Whatever its bytes (`;`, `$(…)`,
//! backticks, quotes, a newline), the value is one argument.
//!
//! The reference is quoted for where the placeholder stands, so that the value stays one
//! argument there too: bare, `{commit}` becomes `"${PERFLINE_COMMIT}"`; inside double quotes,
//! `${PERFLINE_COMMIT}`; inside single quotes, `'"${PERFLINE_COMMIT}"'` (the single quotes
//! closed and reopened around it). The quoting context is followed through `$(…)` and
//! backticks. Should it misjudge a context (the shell's grammar is larger than this reader),
//! the worst outcome is a value split into words or taken literally; never code, since the
//! command's text holds only the user's own bytes and the fixed references.

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
pub(super) fn expand(template: &str, names: &[&str]) -> String {
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
                match top {
                    Context::Double => out.push_str(&format!("${{{var}}}")),
                    Context::Single => out.push_str(&format!("'\"${{{var}}}\"'")),
                    Context::Bare { .. } | Context::Backtick => {
                        out.push_str(&format!("\"${{{var}}}\""));
                    }
                }
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
    out
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
        assert_eq!(expand(template, NAMES), expect, "{template}");
    }

    #[test]
    fn each_context_gets_its_quoting() {
        check(
            "build-boot-bench.sh {commit} {benchmark}",
            r#"build-boot-bench.sh "${PERFLINE_COMMIT}" "${PERFLINE_BENCHMARK}""#,
        );
        check(
            r#"run "at {commit}" --id={request}"#,
            r#"run "at ${PERFLINE_COMMIT}" --id="${PERFLINE_REQUEST}""#,
        );
        check("echo 'at {commit}'", r#"echo 'at '"${PERFLINE_COMMIT}"''"#);
        check(
            r#"echo "$(basename {benchmark})" `echo {commit}`"#,
            r#"echo "$(basename "${PERFLINE_BENCHMARK}")" `echo "${PERFLINE_COMMIT}"`"#,
        );
        check(
            r#"x=$( (echo a) ; echo {commit} ) "{commit}""#,
            r#"x=$( (echo a) ; echo "${PERFLINE_COMMIT}" ) "${PERFLINE_COMMIT}""#,
        );
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
            "printf '%s\\n' \"{benchmark}\"",
            "printf '%s\\n' '{benchmark}'",
            "printf '%s\\n' \"$(printf '%s' {benchmark})\"",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(expand(template, NAMES))
                .env("PERFLINE_BENCHMARK", hostile)
                .output()
                .expect("sh runs");
            assert!(out.status.success(), "{template}");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!("{hostile}\n"),
                "{template}"
            );
        }
    }
}
