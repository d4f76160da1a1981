//! Cutting text on character boundaries. Labels, kernels and (stored before they were checked)
//! commits are any uploader's bytes: `&s[..12]` panics when byte 12 falls inside a character,
//! and a panic in a background task once stopped the alerts for good (issue 51). Every cut of
//! a text to a length goes through [`head`]; `clippy::string_slice` (workspace lints) refuses
//! `&s[..n]` elsewhere.

/// How many characters of a commit every view prints (LKP prints ten).
pub const SHORT_COMMIT: usize = 12;

/// The first `chars` characters of `s`, all of it when it is shorter; never cuts inside a
/// character.
pub fn head(s: &str, chars: usize) -> &str {
    match s.char_indices().nth(chars) {
        Some((end, _)) => s.get(..end).unwrap_or(s),
        None => s,
    }
}

/// A commit (or the kernel label standing for one) as views print it: its first
/// [`SHORT_COMMIT`] characters.
pub fn short_commit(s: &str) -> &str {
    head(s, SHORT_COMMIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_fall_between_characters() {
        assert_eq!(short_commit("0123456789abcdef"), "0123456789ab");
        assert_eq!(short_commit("abc"), "abc");
        assert_eq!(short_commit(""), "");
        // Byte 12 is inside the sixth `é`: the audit's commit.
        assert_eq!(short_commit("0ééééééééééé"), "0ééééééééééé");
        assert_eq!(short_commit("0éééééééééééééé"), "0ééééééééééé");
        assert_eq!(head("v6.1-rc1-🦀🦀🦀🦀", 10), "v6.1-rc1-🦀");
        assert_eq!(head("a\u{301}bc", 1), "a");
        for s in [
            "",
            "x",
            "ééé",
            "🦀x🦀",
            "abcdefghijklmnopq",
            "日本語のカーネル名",
        ] {
            for n in 0..20 {
                let h = head(s, n);
                assert!(s.starts_with(h));
                assert_eq!(h.chars().count(), n.min(s.chars().count()), "{s:?} {n}");
            }
        }
    }
}
