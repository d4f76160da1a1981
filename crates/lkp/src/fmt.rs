// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! Ruby 3.1's `sprintf` for the conversions lkp-tests' comparison prints (README E).
//!
//! A Float's `%.Nf` and `%.Ng` behave as: round the value correctly to 15 significant digits,
//! then round that decimal half-to-even to the digits asked for. So `399.755` (binary
//! 399.754999…) prints `399.76` and `0.125` prints `0.12`, where C and Rust print `399.75` and
//! `0.13`/`0.12`. `%g` drops trailing zeros, except when that last rounding was a tie rounded
//! down (Ruby printed `95.10` for `95.105` with `%.4g`; a tie rounded up ends in the digit it
//! raised, as Ruby's `dtoa` cuts the digits there). `%d` of a Float truncates toward zero. An Integer
//! prints exactly.

use super::num::Num;

/// The first 15 significant digits of `x` (finite, > 0), correctly rounded, and the decimal
/// exponent of the first one: `x ≈ d0.d1d2… × 10^exp`.
fn digits15(x: f64) -> ([u8; 15], i32) {
    let s = format!("{x:.14e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mut digits = [0u8; 15];
    for (d, c) in digits
        .iter_mut()
        .zip(mantissa.bytes().filter(u8::is_ascii_digit))
    {
        *d = c - b'0';
    }
    (digits, exp.parse().unwrap_or(0))
}

/// Rounds the 15 digits to their first `keep` (0..=15), half-to-even on an exact tie.
/// Returns the kept digits (one more, `1` then zeros, when the rounding carried out of the
/// first digit), whether it carried, and whether it was a tie rounded down (where Ruby's `%g`
/// keeps the trailing zeros).
fn round_to(digits: &[u8; 15], keep: usize) -> (Vec<u8>, bool, bool) {
    let mut kept: Vec<u8> = digits[..keep].to_vec();
    if keep >= 15 {
        return (kept, false, false);
    }
    let rest = &digits[keep..];
    let tie = rest[0] == 5 && rest[1..].iter().all(|&d| d == 0);
    let last_odd = kept.last().is_some_and(|d| d % 2 == 1);
    let up = rest[0] > 5 || (rest[0] == 5 && !tie) || (tie && last_odd);
    if !up {
        return (kept, false, tie);
    }
    for d in kept.iter_mut().rev() {
        if *d == 9 {
            *d = 0;
        } else {
            *d += 1;
            return (kept, false, false);
        }
    }
    kept.insert(0, 1);
    (kept, true, false)
}

fn digit_string(digits: &[u8]) -> String {
    digits.iter().map(|d| char::from(b'0' + d)).collect()
}

fn non_finite(v: f64) -> Option<String> {
    if v.is_nan() {
        Some("NaN".into())
    } else if v.is_infinite() {
        Some(if v > 0.0 { "Inf" } else { "-Inf" }.into())
    } else {
        None
    }
}

/// Ruby's `%.{prec}f` (no width, no `+`): a leading `-` for negative values (and `-0.0`).
pub fn fixed(v: Num, prec: usize) -> String {
    let x = match v {
        Num::Int(i) => {
            return if prec == 0 {
                i.to_string()
            } else {
                format!("{i}.{}", "0".repeat(prec))
            };
        }
        Num::Float(x) => x,
    };
    if let Some(s) = non_finite(x) {
        return s;
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let x = x.abs();
    if x == 0.0 {
        return format!("{sign}{}", fixed(Num::Int(0), prec));
    }
    let (digits, exp) = digits15(x);
    // Digits before the cut: those of the integer part plus `prec` decimals.
    let keep = i64::from(exp) + 1 + prec as i64;
    if keep > 15 {
        // More than 15 significant digits asked for: no rounding at the 15th digit happens.
        return format!("{sign}{x:.prec$}");
    }
    // The value × 10^prec, as decimal digits.
    let scaled = if keep < 0 {
        Vec::new()
    } else {
        round_to(&digits, keep as usize).0
    };
    let mut s = digit_string(&scaled);
    if s.len() <= prec {
        s = format!("{}{s}", "0".repeat(prec + 1 - s.len()));
    }
    if prec > 0 {
        s.insert(s.len() - prec, '.');
    }
    format!("{sign}{s}")
}

/// Ruby's `%.{prec}g` (no width, no `+`).
#[expect(
    clippy::string_slice,
    reason = "`digits` is ASCII (`digit_string`), so every byte is a character"
)]
pub fn general(v: f64, prec: usize) -> String {
    if let Some(s) = non_finite(v) {
        return s;
    }
    let prec = prec.clamp(1, 15);
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let x = v.abs();
    if x == 0.0 {
        return format!("{sign}0");
    }
    let (digits, exp) = digits15(x);
    let (mut kept, carried, keep_zeros) = round_to(&digits, prec);
    let mut exp = exp;
    if carried {
        kept.truncate(prec);
        exp += 1;
    }
    let strip = |s: String| -> String {
        if keep_zeros || !s.contains('.') {
            return s;
        }
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    };
    let digits = digit_string(&kept);
    if exp < -4 || exp >= prec as i32 {
        let mantissa = strip(format!("{}.{}", &digits[..1], &digits[1..]));
        let e_sign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{e_sign}{:02}", exp.abs())
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        let body = format!("{}.{}", &digits[..int_len], &digits[int_len..]);
        format!("{sign}{}", strip(body))
    } else {
        let body = format!("0.{}{digits}", "0".repeat((-exp - 1) as usize));
        format!("{sign}{}", strip(body))
    }
}

/// Ruby's `%d`: an Integer exactly, a Float truncated toward zero.
pub fn integer(v: Num) -> String {
    match v {
        Num::Int(i) => i.to_string(),
        Num::Float(x) => {
            if let Some(s) = non_finite(x) {
                return s;
            }
            let t = x.trunc();
            if t == 0.0 {
                "0".into()
            } else {
                format!("{t:.0}")
            }
        }
    }
}

/// `%+…`: a `+` before a formatted non-negative number.
pub fn plus(s: String) -> String {
    if s.starts_with('-') {
        s
    } else {
        format!("+{s}")
    }
}

/// Right-aligns `s` in `width` characters (`%{width}s`; never truncates).
pub fn right(s: &str, width: usize) -> String {
    format!("{s:>width$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64, prec: usize) -> String {
        fixed(Num::Float(x), prec)
    }

    #[test]
    fn fixed_rounds_the_15_digit_form_half_to_even() {
        // Binary 399.754999…: Ruby prints 399.76 (case 03, will-it-scale.time.system_time).
        assert_eq!(f(399.755, 2), "399.76");
        assert_eq!(format!("{:.2}", 399.755), "399.75");
        assert_eq!(f(399.754, 2), "399.75");
        assert_eq!(f(2.675, 2), "2.68");
        // An average of 4.4050000000000002 (case 05, turbostat.C1%): 4.40, not 4.41.
        assert_eq!(f(4.405, 2), "4.40");
        assert_eq!(f(0.125, 2), "0.12");
        assert_eq!(f(0.375, 2), "0.38");
        assert_eq!(f(12.5, 0), "12");
        assert_eq!(f(13.5, 0), "14");
        assert_eq!(f(133.333_333_333_333_34, 0), "133");
        assert_eq!(f(16.666_666_666_666_668, 0), "17");
        assert_eq!(f(-0.04, 1), "-0.0");
        assert_eq!(f(-0.0, 1), "-0.0");
        assert_eq!(f(0.004, 2), "0.00");
        assert_eq!(f(0.006, 2), "0.01");
        assert_eq!(f(0.0004, 2), "0.00");
        assert_eq!(f(999.999, 2), "1000.00");
        assert_eq!(f(9.96, 1), "10.0");
        assert_eq!(fixed(Num::Int(0), 2), "0.00");
        assert_eq!(fixed(Num::Int(0), 1), "0.0");
    }

    #[test]
    fn general_4_and_2_digits() {
        assert_eq!(general(609_800_000.0, 4), "6.098e+08");
        assert_eq!(general(210_000_000.0, 4), "2.1e+08");
        assert_eq!(general(120_000_001.0, 4), "1.2e+08");
        assert_eq!(general(549_400_000.0, 4), "5.494e+08");
        assert_eq!(general(2_101_234_567_890.0, 4), "2.101e+12");
        assert_eq!(general(99_995_000_000.0, 4), "1e+11");
        assert_eq!(general(1.49e105, 2), "1.5e+105");
        assert_eq!(general(236_400.0, 2), "2.4e+05");
        assert_eq!(general(-236_400.0, 2), "-2.4e+05");
        // A tie rounded down keeps its trailing zero; rounded up, it has none.
        assert_eq!(general(95.105, 4), "95.10");
        assert_eq!(general(95.195, 4), "95.2");
        assert_eq!(general(95.1, 4), "95.1");
        assert_eq!(general(0.000_012_34, 2), "1.2e-05");
        assert_eq!(general(0.001_234, 2), "0.0012");
        assert_eq!(general(0.0, 2), "0");
    }

    #[test]
    fn integer_truncates_toward_zero() {
        assert_eq!(integer(Num::Float(3474.9)), "3474");
        assert_eq!(integer(Num::Float(-2.5)), "-2");
        assert_eq!(integer(Num::Float(-0.5)), "0");
        assert_eq!(integer(Num::Int(-7)), "-7");
        assert_eq!(integer(Num::Float(1e20)), "100000000000000000000");
    }

    #[test]
    fn signs_and_widths() {
        assert_eq!(right(&plus(f(1.55, 1)), 10), "      +1.6");
        assert_eq!(right(&plus(f(-6.1, 1)), 10), "      -6.1");
        assert_eq!(right(&plus(general(1.49e105, 2)), 10), " +1.5e+105");
    }
}
