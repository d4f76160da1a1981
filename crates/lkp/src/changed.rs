// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! Which stats changed (README B): `_get_changed_stats(head, base, options)`
//! (`lib/stats.rb:753`) with the options `Compare::Comparer` passes (`gap`/`more` nil,
//! `perf-profile` 5), i.e. `StatCompare#process` (`lib/stats.rb:434`) for every key:
//! incomplete-run passes (B1), `skip_stat?` (B2), keys new in the head (B3), the trimmed
//! min/median/max summaries (B4), `changed_stats?` with `LKP::ChangedStat#change?` (B5,
//! `lib/changed_stat.rb`), and `skip_small_change?` (B6).

use std::collections::{HashMap, HashSet};

use super::lists;
use super::matrix::{Matrix, Value, INCOMPLETE_RUN};
use super::num::Num;
use super::pattern::Pattern;

/// `MARGIN_SHIFT`: a margin of `size >> 5` values is cut from each end.
const MARGIN_SHIFT: u32 = 5;
/// `MAX_RATIO`.
const MAX_RATIO: f64 = 5.0;
/// `options['perf-profile']`, the Integer threshold for integral perf-profile medians.
const PERF_PROFILE_THRESHOLD: i128 = 5;

/// One side of a comparison pass: a matrix restricted to some of its runs, without one key.
struct Side<'a> {
    m: &'a Matrix,
    cols: Vec<usize>,
    excluded: Option<usize>,
}

impl<'a> Side<'a> {
    fn all(m: &'a Matrix) -> Side<'a> {
        Side {
            m,
            cols: (0..m.runs()).collect(),
            excluded: None,
        }
    }

    /// `filter_incomplete_run`: without the incomplete runs and their key.
    fn complete(m: &'a Matrix) -> Side<'a> {
        let excluded = m.position(INCOMPLETE_RUN);
        let cols = match excluded {
            Some(i) => {
                let flags = m.values_at(i);
                (0..m.runs())
                    .filter(|&c| !flags[c].num().is_some_and(|n| n.num_eq(Num::Int(1))))
                    .collect()
            }
            None => (0..m.runs()).collect(),
        };
        Side { m, cols, excluded }
    }

    fn runs(&self) -> usize {
        self.cols.len()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.m.position(key).filter(|&i| Some(i) != self.excluded)
    }

    /// The key's numbers in the selected runs; `None` when one is a string.
    fn nums(&self, i: usize) -> Option<Vec<Num>> {
        let v = self.m.values_at(i);
        self.cols.iter().map(|&c| v[c].num()).collect()
    }

    fn last_is_string(&self, i: usize) -> bool {
        let v = self.m.values_at(i);
        self.cols
            .last()
            .is_some_and(|&c| matches!(v[c], Value::Str(_)))
    }
}

/// What the rules ask about the base's keys as a whole, computed once.
struct BaseKeys<'a> {
    /// `stat_key_base` of every key (`monitored_by_b?`).
    bases: HashSet<&'a str>,
    /// Keys ending `.error`, `.warn` or `.fail`, by their length in characters.
    failures_by_len: HashMap<usize, Vec<&'a str>>,
}

impl<'a> BaseKeys<'a> {
    fn new(m: &'a Matrix) -> BaseKeys<'a> {
        let mut bases = HashSet::new();
        let mut failures_by_len: HashMap<usize, Vec<&str>> = HashMap::new();
        for (k, _) in m.iter() {
            bases.insert(stat_key_base(k));
            if has_failure_suffix(k) {
                failures_by_len
                    .entry(k.chars().count())
                    .or_default()
                    .push(k);
            }
        }
        BaseKeys {
            bases,
            failures_by_len,
        }
    }
}

fn has_failure_suffix(k: &str) -> bool {
    k.ends_with(".error") || k.ends_with(".warn") || k.ends_with(".fail")
}

/// `stat_key_base`: the key up to its first `.`.
pub fn stat_key_base(key: &str) -> &str {
    key.split_once('.').map_or(key, |(b, _)| b)
}

/// `sort_remove_margin` + `min_mean_max` (README B4): the sorted values without leading `-1`s
/// and the margin, and their minimum, upper median and maximum. `None` when nothing is left.
struct Summary {
    min: Num,
    mean: Num,
    max: Num,
}

impl Summary {
    fn new(values: &[Num], max_margin: usize) -> Option<Summary> {
        let margin = (values.len() >> MARGIN_SHIFT).min(max_margin);
        let mut s = values.to_vec();
        s.sort_by(|a, b| a.num_cmp(*b).unwrap_or(std::cmp::Ordering::Equal));
        let minus_ones = s.iter().take_while(|v| v.num_eq(Num::Int(-1))).count();
        let s = &s[minus_ones..];
        if margin > s.len() {
            return None;
        }
        let s = &s[margin..(s.len() - margin).max(margin)];
        Some(Summary {
            min: *s.first()?,
            mean: s[s.len() / 2],
            max: *s.last()?,
        })
    }
}

/// `skip_function_stat?` (README B2): `.error|.warn|.fail` needs the base's `.pass`, `.pass`
/// needs the base's `.error|.warn|.fail` (the prefix read as a regular expression, as Ruby
/// interpolates it).
fn skip_function_stat(key: &str, base: &Side, base_keys: &BaseKeys) -> bool {
    if ["dmesg.", "kmsg.", "last_state.", "stderr."]
        .iter()
        .any(|p| key.starts_with(p))
    {
        return false;
    }
    let stat_base = key.rsplit_once('.').map_or(key, |(b, _)| b);
    if has_failure_suffix(key) && base.position(&format!("{stat_base}.pass")).is_none() {
        return true;
    }
    if key.ends_with(".pass") {
        let exact = ["error", "warn", "fail"]
            .iter()
            .any(|s| base.position(&format!("{stat_base}.{s}")).is_some());
        return !exact && !base_has_failure_like(stat_base, base_keys);
    }
    false
}

/// `b.keys.any? { |stat| stat =~ /^#{stat_base}\.(error|warn|fail)$/ }`.
fn base_has_failure_like(stat_base: &str, base_keys: &BaseKeys) -> bool {
    let plain = !stat_base.bytes().any(|c| b"\\^$|()[]{}*+?".contains(&c));
    let candidates: Vec<&str> = if plain {
        // Only `.` wildcards: a match has as many characters as the pattern.
        let n = stat_base.chars().count();
        [6, 5]
            .iter()
            .filter_map(|s| base_keys.failures_by_len.get(&(n + s)))
            .flatten()
            .copied()
            .collect()
    } else {
        base_keys
            .failures_by_len
            .values()
            .flatten()
            .copied()
            .collect()
    };
    if candidates.is_empty() {
        // Nothing to match: spare compiling the pattern (one per `.pass` key).
        return false;
    }
    match Pattern::new(&format!("^{stat_base}\\.(error|warn|fail)$")) {
        Ok(p) => candidates.iter().any(|k| p.is_match(k)),
        // Ruby would raise on an invalid pattern; read the prefix literally instead.
        Err(_) => candidates.iter().any(|k| {
            k.strip_prefix(stat_base)
                .is_some_and(|s| matches!(s, ".error" | ".warn" | ".fail"))
        }),
    }
}

/// `changed_stats?` (README B5).
fn changed_summaries(key: &str, failure: bool, a: &Summary, b: &Summary) -> bool {
    if key.starts_with("perf-profile.") && a.mean.is_int() {
        let t = Num::Int(PERF_PROFILE_THRESHOLD);
        return a.mean.gt(t) || b.mean.gt(t);
    }
    if failure {
        return !a.max.num_eq(b.max);
    }
    (b.min.gt(a.mean) && b.mean.gt(a.max)) || (a.min.gt(b.mean) && a.mean.gt(b.max))
}

/// `skip_small_change?` with `calc_stats_metrics` (README B6): whether the change is kept.
fn big_enough(key: &str, a: &Summary, b: &Summary) -> bool {
    if key.starts_with("perf-profile.") {
        return true;
    }
    let max = b.max.max(a.max);
    let (high, low) = if a.mean.gt(b.mean) { (a, b) } else { (b, a) };
    let delta = high.mean.minus(low.mean);
    let mut ratio = MAX_RATIO;
    if low.mean.gt(Num::Int(0)) {
        ratio = high.mean.to_f64() / low.mean.to_f64();
    }
    if ratio > MAX_RATIO {
        ratio = MAX_RATIO;
    }
    ratio > 1.01
        && (ratio > 1.05 || lists::is_perf_metric(key))
        && lists::is_reasonable_change(key, delta, max)
}

/// `StatCompare#process` for one key: whether it changed.
#[expect(
    clippy::too_many_arguments,
    reason = "one key of one pass, with its context"
)]
fn process(
    key: &str,
    failure: bool,
    head: &Side,
    head_i: Option<usize>,
    base: &Side,
    base_i: Option<usize>,
    base_keys: &BaseKeys,
    incomplete_pass: bool,
) -> bool {
    // `skip_stat?`
    if head_i.is_some_and(|i| head.last_is_string(i)) {
        return false;
    }
    if incomplete_pass
        && !["dmesg.", "last_state.", "stderr."]
            .iter()
            .any(|p| key.starts_with(p))
    {
        return false;
    }
    if lists::is_unreported(key) {
        return false;
    }
    if failure {
        if skip_function_stat(key, base, base_keys) {
            return false;
        }
    } else if head.runs() < 3 && base.runs() < 3 {
        return false;
    }
    // Newly added monitors have nothing to compare with in the base.
    let monitored = ["lock_stat", "perf-profile"].iter().any(|m| {
        key.strip_prefix(m).is_some_and(|r| r.starts_with('.')) && base_keys.bases.contains(m)
    });
    if base_i.is_none() && !failure && !monitored {
        return false;
    }
    // `calculate_matrix_values`. A string anywhere else would make lkp-tests raise while
    // sorting or comparing; such a key is not compared here.
    let a = match head_i {
        Some(i) => head.nums(i),
        None => Some(vec![Num::Int(0); head.runs()]),
    };
    let b = match base_i {
        Some(i) => base.nums(i),
        None => Some(vec![Num::Int(0); base.runs()]),
    };
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let max_margin = if failure { 0 } else { 3 };
    let Some(sb) = Summary::new(&b, max_margin) else {
        return false;
    };
    let max_margin = if b.len() <= 3 && max_margin > 1 {
        1
    } else {
        max_margin
    };
    let Some(sa) = Summary::new(&a, max_margin) else {
        return false;
    };
    changed_summaries(key, failure, &sa, &sb) && big_enough(key, &sa, &sb)
}

/// One `__get_changed_stats` pass: the head's keys, then the base's keys the head lacks (added
/// to the head as zeros, `lib/stats.rb:698`), in order.
fn pass(
    head: &Side,
    base: &Side,
    incomplete_pass: bool,
    out: &mut Vec<String>,
    seen: &mut HashSet<String>,
) {
    let base_keys = BaseKeys::new(base.m);
    let head_keys = (0..head.m.len())
        .filter(|&i| Some(i) != head.excluded)
        .map(|i| (head.m.key_at(i), Some(i)));
    let base_only = (0..base.m.len())
        .filter(|&i| Some(i) != base.excluded)
        .map(|i| base.m.key_at(i))
        .filter(|k| head.m.position(k).is_none())
        .map(|k| (k, None));
    for (key, head_i) in head_keys.chain(base_only) {
        let failure = lists::is_failure(key);
        let base_i = base.position(key);
        if process(
            key,
            failure,
            head,
            head_i,
            base,
            base_i,
            &base_keys,
            incomplete_pass,
        ) && seen.insert(key.to_owned())
        {
            out.push(key.to_owned());
        }
    }
}

/// The keys lkp-tests reports as changed from `base` to `head`, in its order (README B):
/// with incomplete runs, first the failure keys over all runs, then every key over the
/// complete runs.
pub fn changed_stats(base: &Matrix, head: &Matrix) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let incomplete =
        head.position(INCOMPLETE_RUN).is_some() || base.position(INCOMPLETE_RUN).is_some();
    if incomplete {
        pass(
            &Side::all(head),
            &Side::all(base),
            true,
            &mut out,
            &mut seen,
        );
        pass(
            &Side::complete(head),
            &Side::complete(base),
            false,
            &mut out,
            &mut seen,
        );
    } else {
        pass(
            &Side::all(head),
            &Side::all(base),
            false,
            &mut out,
            &mut seen,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_trims_and_takes_the_upper_median() {
        let v: Vec<Num> = [3, -1, 1, 2, 4].map(Num::Int).to_vec();
        let s = Summary::new(&v, 3).unwrap();
        assert_eq!(
            (s.min, s.mean, s.max),
            (Num::Int(1), Num::Int(3), Num::Int(4))
        );
        let v: Vec<Num> = (0..64).map(Num::Int).collect();
        let s = Summary::new(&v, 3).unwrap();
        assert_eq!(
            (s.min, s.mean, s.max),
            (Num::Int(2), Num::Int(32), Num::Int(61))
        );
        assert!(Summary::new(&[Num::Int(-1)], 0).is_none());
    }
}
