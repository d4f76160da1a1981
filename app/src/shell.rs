// SPDX-License-Identifier: GPL-3.0-or-later
//! Text for a POSIX shell: every value Perfline puts into a command it prints (on a page, in a
//! mail, a webhook or the CLI's output) goes through [`quote`], so that pasting the command runs
//! what it says and nothing a stored name carries.

/// `s` as one word of a POSIX shell: as it is when every character is one the shell takes
/// literally, else in single quotes (a `'` inside written `'\''`).
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.,:=/@%+".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// `--name=VALUE` with the value quoted: one word however the value starts (a value starting
/// with `-` is not taken for an option).
pub fn option(name: &str, value: &str) -> String {
    format!("--{name}={}", quote(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_come_back_as_they_were() {
        for value in [
            "plain",
            "a337531b94",
            "",
            "bb;touch /tmp/pwned;echo",
            "$(reboot)",
            "`id`",
            "it's",
            "two words",
            "new\nline",
            "-rf",
            "glob*?[x]",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf '%s' {}", quote(value)))
                .output()
                .expect("sh runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), value, "{value:?}");
        }
        assert_eq!(quote("netperf"), "netperf");
        assert_eq!(option("benchmark", "-x y"), "--benchmark='-x y'");
    }
}
