// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see ../PROVENANCE.md.
//! mmtests' arithmetic, to the last digit: what `compare-mmtests.pl` computes from an
//! operation's samples (sorted best first, summed left to right, Perl's `**` = glibc `pow`,
//! the CI half-width as R prints it to 7 significant digits), its percentages (`pdiff`,
//! `pndiff`, `cidiff`) and the cells of its tables (value cells from the double, percentages
//! through Perl's `%.15g` first, NaN as `NaN`). The rules are in Perfline's
//! `server/tests/fixtures/mmtests-oracle/README.md`, each with its file and line in mmtests.

use crate::summarise::{SumStat, Summarise};
use crate::Direction;

/// The statistics a style prints beyond those every summary has, by row name, from the
/// samples sorted best first.
pub fn more_stats(
    style: Summarise,
    sorted: &[f64],
    direction: Direction,
) -> Vec<(String, Option<f64>)> {
    let n = sorted.len();
    let count = |pct: u32| (n * pct as usize / 100).max(1).min(n);
    let mean = |xs: &[f64]| match direction {
        Direction::Higher => hmean(xs),
        _ => amean(xs),
    };
    let mut out = Vec::new();
    for stat in style.rows() {
        let v = match *stat {
            SumStat::BMean(95) => continue,
            SumStat::BMean(p) => (n > 0).then(|| mean(&sorted[..count(p)])).flatten(),
            SumStat::Pctile(p) => (n > 0).then(|| sorted[count(p) - 1]),
            SumStat::Value => sorted.first().copied(),
            // mmtests draws these from an unseeded bootstrap (numpy), different on every
            // run; Perfline gives what that bootstrap estimates (`submean_ci`).
            SumStat::SubMean => mean(sorted),
            SumStat::SubMeanCi => submean_ci(sorted.len(), population_variance(sorted)),
            _ => continue,
        };
        out.push((stat.name(direction), v));
    }
    out
}

/// The half-width of a Subselection family's interval around its SubMean, as mmtests'
/// `subselection-confidence-interval.py` (Kalibera, Bulej, Tůma) estimates it for one group of
/// `n` samples of population variance `pvar`: it draws 1,000 subsets of `L = ⌊0.8·n⌋` samples
/// with replacement, takes the median of their variances (≈ `pvar·(L−1)/L`, what a subset's
/// variance estimates) and prints `qnorm(0.975)·√(that / L)`. The bootstrap is unseeded, so
/// mmtests' digits scatter around this value from run to run. `None` below two samples in
/// a subset (mmtests prints `nan`).
pub fn submean_ci(n: usize, pvar: f64) -> Option<f64> {
    let l = (0.8 * n as f64).floor();
    if l < 2.0 || !pvar.is_finite() {
        return None;
    }
    Some(Z975 * (pvar * (l - 1.0) / l / l).sqrt())
}

/// numpy's `var`: Σ(x − mean)² / n.
pub fn population_variance(xs: &[f64]) -> f64 {
    let Some(m) = amean(xs) else {
        return f64::NAN;
    };
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64
}

/// R 4.2's `qnorm(1 - 0.05/2)`.
pub const Z975: f64 = 1.959_963_984_540_054;

/// Perl's stringification of a number, `%.15g` (NaN → `NaN`, ±0 → `0`).
pub fn perl_str(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Inf" } else { "-Inf" }.into()
    } else if v == 0.0 {
        "0".into()
    } else {
        mmtests_parse::format_g(v, 15).to_string()
    }
}

/// A number through Perl's string and back: `strtod(sprintf("%.15g", v))`.
pub fn via_string(v: f64) -> f64 {
    if v.is_nan() || v.is_infinite() {
        return v;
    }
    perl_str(v).parse().unwrap_or(v)
}

/// Perl's `**`: an integral base to a non-negative integral power whose result fits in 64 bits
/// is exact; anything else is libm's `pow` (on glibc not always `x*x` for `x ** 2`).
pub fn perl_pow(b: f64, e: f64) -> f64 {
    if b.is_finite() && b == b.floor() && e == e.floor() && e >= 0.0 && b.abs() < 9.2e18 {
        let u = b.abs() as u64;
        let bits = 64 - u.leading_zeros();
        if (e as u64) * u64::from(bits) <= 64 {
            if let Some(r) = u.checked_pow(e as u32) {
                let r = r as f64;
                return if b < 0.0 && (e as u64) % 2 == 1 {
                    -r
                } else {
                    r
                };
            }
        }
    }
    b.powf(e)
}

/// The number R prints for `x` with 7 significant digits, as Perl reads it back.
pub fn r_print7(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    let neg = usize::from(x < 0.0);
    let sci = format!("{:.6e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i64 = exp.parse().unwrap_or(0);
    let mut alpha: u64 = mantissa.replace('.', "").parse().unwrap_or(0);
    let mut nsig: i64 = 7;
    while nsig > 1 && alpha.is_multiple_of(10) {
        alpha /= 10;
        nsig -= 1;
    }
    let left = e + 1;
    let sleft = neg as i64 + if left <= 0 { 1 } else { left };
    let rgt = (nsig - left).max(0);
    let mxsl = if left >= 0 { sleft } else { 1 + neg as i64 };
    let m_f = mxsl + rgt + i64::from(rgt != 0);
    let ee = if left > 100 || left <= -99 { 2 } else { 1 };
    let m_e = neg as i64 + i64::from(nsig - 1 > 0) + (nsig - 1) + 4 + ee;
    let text = if m_f <= m_e {
        format!("{:.*}", rgt as usize, x)
    } else {
        format!("{:.*e}", (nsig - 1) as usize, x)
    };
    text.parse().unwrap_or(f64::NAN)
}

/// mmtests' `pdiff` with Perl's semantics: `None` is the string `NaN`.
pub fn pdiff(a: Option<f64>, b: Option<f64>) -> f64 {
    let (an, bn) = (a.unwrap_or(f64::NAN), b.unwrap_or(f64::NAN));
    if an == bn || an == 0.0 {
        0.0
    } else if bn == 0.0 || b.is_none() || bn.is_nan() {
        100.0
    } else {
        an * 100.0 / bn - 100.0
    }
}

/// mmtests' `pndiff` with Perl's semantics.
pub fn pndiff(a: Option<f64>, b: Option<f64>) -> f64 {
    // Perl numifies the string "NaN" to NaN.
    let (an, bn) = (a.unwrap_or(f64::NAN), b.unwrap_or(f64::NAN));
    if an == bn {
        0.0
    } else if an == 0.0 {
        100.0
    } else if bn == 0.0 {
        -99.0
    } else {
        100.0 - (an * 100.0 / bn)
    }
}

/// mmtests' `cidiff(new, newci, base, baseci)`; a missing interval bound counts as 0.
pub fn cidiff(new: f64, new_ci: Option<(f64, f64)>, base: f64, base_ci: Option<(f64, f64)>) -> f64 {
    let (n0, n1) = new_ci.unwrap_or((0.0, 0.0));
    let (b0, b1) = base_ci.unwrap_or((0.0, 0.0));
    let diff = new - base;
    let cisum = if new < base {
        n1 - new + base - b0
    } else {
        new - n0 + b1 - base
    };
    if cisum == 0.0 {
        diff
    } else {
        diff / cisum
    }
}

/// What mmtests computes for one operation of one kernel. `None` is what Perl holds as the
/// string `NaN` (printed `0.00` in the table).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub max: f64,
    pub amean: Option<f64>,
    pub hmean: Option<f64>,
    /// ÷ (n − 1), summed in the samples' sorted order.
    pub stddev: Option<f64>,
    /// √(Σ(1/x − 1/H)² · H⁴ / n).
    pub hstddev: Option<f64>,
    pub coeffvar: f64,
    pub hcoeffvar: f64,
    pub bamean95: Option<f64>,
    pub bhmean95: Option<f64>,
    /// The half-width of the mean's 95 % interval as R prints it (`None` without a spread).
    pub ci: Option<f64>,
}

/// The arithmetic mean, summed in the order given (`Stat.pm` `calc_amean`).
pub fn amean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut s = 0.0;
    for x in xs {
        s += x;
    }
    Some(s / xs.len() as f64)
}

fn hmean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|x| *x <= 0.0 || x.is_nan()) {
        return None;
    }
    let mut s = 0.0;
    for x in xs {
        s += 1.0 / x;
    }
    Some(xs.len() as f64 / s)
}

fn coeffvar(mean: Option<f64>, sd: Option<f64>) -> f64 {
    let s = sd.unwrap_or(0.0);
    let m = mean.unwrap_or(0.0);
    if m != 0.0 && !m.is_nan() {
        (s * 100.0) / m
    } else {
        0.0
    }
}

/// mmtests' summary of one operation: `sorted` are its samples best first (descending for
/// higher-is-better, ascending for lower-is-better), as `Summarise.pm` sorts them.
pub fn summarise(sorted: &[f64], direction: Direction) -> Summary {
    let n = sorted.len();
    let (first, last) = (
        sorted.first().copied().unwrap_or(f64::NAN),
        sorted.last().copied().unwrap_or(f64::NAN),
    );
    let (min, max) = match direction {
        Direction::Lower | Direction::Unknown => (first, last),
        Direction::Higher => (last, first),
    };
    let am = amean(sorted);
    let hm = hmean(sorted);
    let stddev = am.and_then(|m| {
        if n <= 1 {
            return None;
        }
        let mut d = 0.0;
        for x in sorted {
            d += perl_pow(x - m, 2.0);
        }
        Some((d / (n - 1) as f64).sqrt())
    });
    let hstddev = hm.and_then(|h| {
        if n <= 1 {
            return None;
        }
        let mut d = 0.0;
        for x in sorted {
            d += perl_pow(1.0 / x - 1.0 / h, 2.0);
        }
        Some((d * perl_pow(h, 4.0) / n as f64).sqrt())
    });
    let count = (n * 95 / 100).max(1).min(n);
    let best = &sorted[..count];
    let (mean, sd) = match direction {
        Direction::Higher => (hm, hstddev),
        Direction::Lower | Direction::Unknown => (am, stddev),
    };
    // Stat.pm interpolates the stddev into R's input with Perl's %.15g.
    let ci = mean.and(sd).map(|sd| r_print7(via_string(sd) * Z975));
    Summary {
        n,
        min,
        max,
        amean: am,
        hmean: hm,
        stddev,
        hstddev,
        coeffvar: coeffvar(am, stddev),
        hcoeffvar: coeffvar(hm, hstddev),
        bamean95: amean(best),
        bhmean95: hmean(best),
        ci,
    }
}

/// C's `%W.Pf` for a Perl value: NaN right-aligned as `NaN`.
pub fn fixed(v: f64, width: usize, precision: usize) -> String {
    if v.is_nan() {
        format!("{:>width$}", "NaN")
    } else if v.is_infinite() {
        format!("{:>width$}", if v > 0.0 { "Inf" } else { "-Inf" })
    } else {
        format!("{v:>width$.precision$}")
    }
}

/// Perl's `substr($s, $off, $len)` on ASCII names.
fn substr(s: &str, off: i64, len: Option<i64>) -> String {
    let n = s.len() as i64;
    let off = if off < 0 { (n + off).max(0) } else { off };
    if off > n {
        return String::new();
    }
    let end = match len {
        None => n,
        Some(l) if l < 0 => n + l,
        Some(l) => (off + l).min(n),
    };
    if end <= off {
        return String::new();
    }
    s.get(off as usize..end as usize).unwrap_or("").to_owned()
}

/// The two header lines of a run name, split as `Compare.pm` does: at the first `-`, moved
/// past a `-rcN` right there; a name without `-` loses its last character on the top line.
pub fn header_parts(name: &str) -> (String, String) {
    let mut index = name.find('-').map_or(-1, |i| i as i64);
    let window = substr(name, index, Some(index + 3));
    let b = window.as_bytes();
    if b.windows(4)
        .any(|w| &w[..3] == b"-rc" && w[3].is_ascii_digit())
    {
        index += 4;
    }
    (substr(name, 0, Some(index)), substr(name, index + 1, None))
}

/// Two header lines: `first` wide blank cell, then each name's parts right-aligned in 29.
pub fn header<K: AsRef<str>>(kernels: &[K], first: usize) -> String {
    let mut out = String::new();
    let parts: Vec<(String, String)> = kernels.iter().map(|k| header_parts(k.as_ref())).collect();
    for line in 0..2 {
        out.push_str(&format!("{:>first$}", ""));
        for (top, bottom) in &parts {
            let p = if line == 0 { top } else { bottom };
            out.push_str(&format!("{p:>29}"));
        }
        out.push('\n');
    }
    out
}

/// The value width of mmtests' tables.
pub const FIELD: usize = 18;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_prints_seven_significant_digits() {
        assert_eq!(r_print7(0.4183333342226), 0.4183333);
        assert_eq!(r_print7(58.285_600_000_1), 58.2856);
        assert_eq!(r_print7(12_345_678.9), 12_345_679.0);
        assert_eq!(r_print7(0.0), 0.0);
    }

    #[test]
    fn header_names_split_as_mmtests_does() {
        let check = |name: &str, top: &str, bottom: &str| {
            assert_eq!(
                header_parts(name),
                (top.to_owned(), bottom.to_owned()),
                "{name}"
            );
        };
        check("6.2.0-rc3-sched", "6.2.0-rc3", "sched");
        check("v6.9-rc1", "v6.9-rc1", "");
        check("baseline", "baselin", "baseline");
        check("6.1.0-vanilla", "6.1.0", "vanilla");
        check("patched-v2", "patched", "v2");
    }

    #[test]
    fn sums_follow_the_sorted_order() {
        // hb08: 0.052 0.050 0.051 0.048, summed ascending, prints 0.0502.
        let s = summarise(&[0.048, 0.050, 0.051, 0.052], Direction::Lower);
        assert_eq!(format!("{:.4}", s.amean.unwrap()), "0.0502");
        // np12: Hmean of 1517.25 ×2, 1457.75 ×2 summed descending prints 1486.91.
        let s = summarise(&[1517.25, 1517.25, 1457.75, 1457.75], Direction::Higher);
        assert_eq!(format!("{:.2}", s.hmean.unwrap()), "1486.91");
        assert_eq!(format!("{:.2}", s.bhmean95.unwrap()), "1496.88");
        // Binary ties print half to even, as glibc does.
        assert_eq!(fixed(0.15625, 18, 4).trim(), "0.1562");
        assert_eq!(format!("{:.2}", 12.125), "12.12");
    }
}
