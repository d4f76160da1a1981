// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! Ruby's numbers as lkp-tests computes with them: JSON integers stay Integers and JSON floats
//! Floats (the difference decides README rules A2 and B5), comparisons between the two are exact,
//! `Array#sum` is exact for Integers and Kahan–Babuska compensated once a Float appears,
//! `average` is that sum over `n`, and the standard deviation is `lib/statistics.rb`'s
//! population one (README C, E "Sums").

use std::cmp::Ordering;

/// A Ruby number: an Integer (exact; 128 bits covers every sum of JSON integers lkp-tests
/// could meet) or a Float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    /// The value as a double, as Ruby converts an Integer for Float arithmetic.
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// Whether this is an Integer (not a Float of integral value).
    pub fn is_int(self) -> bool {
        matches!(self, Num::Int(_))
    }

    /// Ruby's `zero?`.
    pub fn is_zero(self) -> bool {
        match self {
            Num::Int(i) => i == 0,
            Num::Float(f) => f == 0.0,
        }
    }

    /// Ruby's `<=>` between two numbers: exact between Integers and Floats, `None` with NaN.
    pub fn num_cmp(self, other: Num) -> Option<Ordering> {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(&b)),
            (Num::Float(a), Num::Float(b)) => a.partial_cmp(&b),
            (Num::Int(a), Num::Float(b)) => int_float_cmp(a, b),
            (Num::Float(a), Num::Int(b)) => int_float_cmp(b, a).map(Ordering::reverse),
        }
    }

    /// `self > other` (false with NaN).
    pub fn gt(self, other: Num) -> bool {
        self.num_cmp(other) == Some(Ordering::Greater)
    }

    /// `self < other` (false with NaN).
    pub fn lt(self, other: Num) -> bool {
        self.num_cmp(other) == Some(Ordering::Less)
    }

    /// Ruby's `==` between numbers (`1 == 1.0`).
    pub fn num_eq(self, other: Num) -> bool {
        self.num_cmp(other) == Some(Ordering::Equal)
    }

    /// Ruby's `-`: exact between Integers, a double otherwise.
    pub fn minus(self, other: Num) -> Num {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => match a.checked_sub(b) {
                Some(d) => Num::Int(d),
                None => Num::Float(a as f64 - b as f64),
            },
            _ => Num::Float(self.to_f64() - other.to_f64()),
        }
    }

    /// The larger of two numbers (the first one when they compare equal).
    pub fn max(self, other: Num) -> Num {
        if other.gt(self) {
            other
        } else {
            self
        }
    }
}

/// Compares an Integer with a Float exactly, as Ruby's `rb_integer_float_cmp` does.
fn int_float_cmp(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f == f64::INFINITY {
        return Some(Ordering::Less);
    }
    if f == f64::NEG_INFINITY {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    // 2^127: beyond every i128.
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if t >= LIMIT {
        return Some(Ordering::Less);
    }
    if t < -LIMIT {
        return Some(Ordering::Greater);
    }
    let ti = t as i128;
    Some(match i.cmp(&ti) {
        Ordering::Equal => {
            let frac = f - t;
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        other => other,
    })
}

/// One step of Ruby's Kahan–Babuska summation (`ary_add_one` in Ruby's `array.c`).
fn kahan_babuska(f: &mut f64, c: &mut f64, x: f64) {
    if f.is_nan() {
        return;
    }
    if x.is_nan() {
        *f = x;
        return;
    }
    if x.is_infinite() {
        *f = if f.is_infinite() && x.is_sign_negative() != f.is_sign_negative() {
            f64::NAN
        } else {
            x
        };
        return;
    }
    if f.is_infinite() {
        return;
    }
    let t = *f + x;
    if f.abs() >= x.abs() {
        *c += (*f - t) + x;
    } else {
        *c += (x - t) + *f;
    }
    *f = t;
}

/// Ruby's `Array#sum`: Integers add exactly; from the first Float on, the running sum is a
/// double and the rest is added with Kahan–Babuska compensation.
pub fn ruby_sum(values: impl IntoIterator<Item = Num>) -> Num {
    let mut it = values.into_iter();
    let mut n: i128 = 0;
    while let Some(v) = it.next() {
        match v {
            Num::Int(i) => match n.checked_add(i) {
                Some(s) => n = s,
                None => return float_sum(n as f64 + i as f64, it),
            },
            Num::Float(x) => {
                let mut f = n as f64;
                let mut c = 0.0;
                kahan_babuska(&mut f, &mut c, x);
                return float_sum_from(f, c, it);
            }
        }
    }
    Num::Int(n)
}

fn float_sum(start: f64, rest: impl Iterator<Item = Num>) -> Num {
    float_sum_from(start, 0.0, rest)
}

fn float_sum_from(mut f: f64, mut c: f64, rest: impl Iterator<Item = Num>) -> Num {
    for v in rest {
        kahan_babuska(&mut f, &mut c, v.to_f64());
    }
    Num::Float(f + c)
}

/// `Enumerable#average` (`lib/statistics.rb`): `sum / length.to_f`.
pub fn average(values: &[Num]) -> f64 {
    ruby_sum(values.iter().copied()).to_f64() / values.len() as f64
}

/// `Enumerable#standard_deviation` (`lib/statistics.rb`): the population deviation, the
/// squares added left to right and multiplied by `1 / n`.
pub fn standard_deviation(values: &[Num]) -> f64 {
    let avg = average(values);
    let mut acc = 0.0;
    for v in values {
        let d = v.to_f64() - avg;
        // Ruby's `Float#**` squares with `d * d` for the exponent 2.
        acc += d * d;
    }
    (1.0 / values.len() as f64 * acc).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_floats_compare_exactly() {
        assert!(Num::Int(1).num_eq(Num::Float(1.0)));
        assert!(Num::Int(9_007_199_254_740_993).gt(Num::Float(9_007_199_254_740_992.0)));
        assert!(Num::Int(-3).lt(Num::Float(-2.5)));
        assert!(Num::Float(2.5).gt(Num::Int(2)));
        assert_eq!(Num::Int(5).num_cmp(Num::Float(f64::NAN)), None);
    }

    #[test]
    fn sum_is_compensated_like_ruby() {
        let v = [4.38, 4.41, 4.41, 4.42];
        // Left to right, the sum is 4.4049999999999994 × 4; compensated, 4.405 × 4.
        assert_ne!(v.iter().sum::<f64>() / 4.0, 4.405);
        assert_eq!(average(&v.map(Num::Float)), 4.405);
        assert_eq!(ruby_sum([Num::Int(1), Num::Int(2)]), Num::Int(3));
        assert_eq!(
            ruby_sum([Num::Int(1), Num::Float(0.5), Num::Int(2)]),
            Num::Float(3.5)
        );
    }
}
