// SPDX-License-Identifier: GPL-3.0-or-later
//! Cutting text on character boundaries. Labels, kernels and (stored before they were checked)
//! commits are any uploader's bytes: `&s[..12]` panics when byte 12 falls inside a character,
//! and a panic in a background task once stopped the alerts for good (issue 51). Every cut of
//! a text to a length goes through [`head`]; `clippy::string_slice` (workspace lints) refuses
//! `&s[..n]` elsewhere.

/// How many characters of a commit every view prints (LKP prints ten).
pub const SHORT_COMMIT: usize = 12;

/// The first `chars` characters of `s`, all of it when it is shorter; never cuts inside a
/// character.
/// C's `%.<precision>g` of `v` (`mmtests_parse::format_g`, what awk, Perl and Ruby print), or
/// `-` for no number (NaN, ±∞), as Perfline's tables show a missing value.
pub fn g(v: f64, precision: usize) -> String {
    if v.is_finite() {
        mmtests_parse::format_g(v, precision).to_string()
    } else {
        "-".to_owned()
    }
}

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

/// Unix milliseconds as `2026-12-06T14:02:11.042Z` (UTC), as the database writes times.
pub fn utc_from_ms(ms: i64) -> String {
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let secs = ms_of_day / 1000;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60,
        ms_of_day % 1000
    )
}

/// Unix milliseconds as `2026-12-06T14:02:11Z` (UTC, to the second).
pub fn utc_seconds(ms: i64) -> String {
    let text = utc_from_ms(ms);
    format!("{}Z", head(&text, 19))
}

#[cfg(test)]
mod tests {
    #[test]
    fn g_is_c_printf_g() {
        let cases = [
            (5.488e8, 4, "5.488e+08"),
            (2.755e8, 4, "2.755e+08"),
            (1.145e8, 4, "1.145e+08"),
            (6.26e11, 4, "6.26e+11"),
            (1.0e-5, 4, "1e-05"),
            (1234.5, 4, "1234"),
            (0.0001234, 4, "0.0001234"),
            (61380.1, 2, "6.1e+04"),
            (210000.0, 2, "2.1e+05"),
            (-3.0e5, 2, "-3e+05"),
            (0.0, 4, "0"),
            (f64::NAN, 4, "-"),
            (f64::INFINITY, 4, "-"),
        ];
        for (v, p, want) in cases {
            assert_eq!(g(v, p), want, "{v} %.{p}g");
        }
    }

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
