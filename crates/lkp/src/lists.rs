// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! lkp-tests' key classification, from its `etc` lists and program directory (copied
//! unchanged into `etc/` beside this file, from lkp-tests commit `bbbc29c495d9`; the
//! `programs-*` files list `programs/*/run`, the executable `programs/*/daemon` and
//! `programs/*/parse` of that commit):
//!
//! - failure stats, `function_stat?` (`lib/stats.rb:292`, `etc/failure`, `etc/pass`): README A4;
//! - bisectable / report-allowlisted stats (`lib/stats.rb:378`, `:614`, `lib/lkp_pattern.rb`):
//!   README B2;
//! - perf metrics, `perf_metric?` (`lib/perf_metrics.rb`): README B6;
//! - `reasonable_perf_change?` (`lib/stats.rb:62`, `etc/perf-metrics-threshold.yaml`): README B6;
//! - test programs, `LKP::Programs.all_tests_set` (`lib/programs.rb`): README D1.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::num::Num;
use super::pattern::{Pattern, PatternList};

const FAILURE: &str = include_str!("etc/failure");
const PASS: &str = include_str!("etc/pass");
const STAT_DENYLIST: &str = include_str!("etc/stat-denylist");
const STAT_ALLOWLIST: &str = include_str!("etc/stat-allowlist");
const REPORT_ALLOWLIST: &str = include_str!("etc/report-allowlist");
const PERF_METRICS_PATTERNS: &str = include_str!("etc/perf-metrics-patterns");
const PERF_METRICS_PREFIXES: &str = include_str!("etc/perf-metrics-prefixes");
const PERF_METRICS_THRESHOLD: &str = include_str!("etc/perf-metrics-threshold.yaml");
const PROGRAMS_PARSE: &str = include_str!("etc/programs-parse");
const LINUX_TEST_CASES: &str = include_str!("etc/linux-test-cases");
const OTHER_TEST_CASES: &str = include_str!("etc/other-test-cases");

/// `LKP::Pattern.lines`: non-empty lines not starting with `#`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

fn compile(text: &str, prefix: &str) -> PatternList {
    // The lists are constants of this crate; the tests compile every one of them.
    PatternList::new(lines(text), prefix).unwrap_or_else(|e| panic!("{e}"))
}

struct Lists {
    failure: PatternList,
    stat_denylist: PatternList,
    stat_allowlist: PatternList,
    report_allowlist: PatternList,
    perf_metrics_patterns: PatternList,
    perf_metrics_prefixes: Vec<&'static str>,
    /// `<test>.` prefixes of performance test programs (without the dot).
    perf_tests: HashSet<&'static str>,
    thresholds: Vec<(Pattern, Num)>,
}

static LISTS: LazyLock<Lists> = LazyLock::new(|| {
    let all_tests = &*crate::programs::ALL_TESTS;
    let functional: HashSet<&str> = lines(LINUX_TEST_CASES).map(str::trim).collect();
    let other: HashSet<&str> = lines(OTHER_TEST_CASES).map(str::trim).collect();
    // `test_prefixes` (`lib/perf_metrics.rb`): parsers that are also tests or daemons, less
    // the functional and "other" tests.
    let perf_tests = lines(PROGRAMS_PARSE)
        .filter(|p| all_tests.contains(p) && !functional.contains(p) && !other.contains(p))
        .filter(|p| !matches!(*p, "kmsg" | "dmesg" | "stderr" | "last_state"))
        .collect();
    let failure_lines: Vec<&str> = lines(FAILURE).chain(lines(PASS)).collect();
    Lists {
        failure: compile(&failure_lines.join("\n"), "^"),
        stat_denylist: compile(STAT_DENYLIST, ""),
        stat_allowlist: compile(STAT_ALLOWLIST, ""),
        report_allowlist: compile(REPORT_ALLOWLIST, ""),
        perf_metrics_patterns: compile(PERF_METRICS_PATTERNS, ""),
        perf_metrics_prefixes: PERF_METRICS_PREFIXES.split_whitespace().collect(),
        perf_tests,
        thresholds: thresholds(),
    }
});

/// `etc/perf-metrics-threshold.yaml`: `pattern: number` lines, in file order, each pattern
/// matched against the whole key.
fn thresholds() -> Vec<(Pattern, Num)> {
    lines(PERF_METRICS_THRESHOLD)
        .filter_map(|l| l.rsplit_once(": "))
        .map(|(k, v)| {
            let v = v.trim();
            let n = match v.parse::<i128>() {
                Ok(i) => Num::Int(i),
                Err(_) => Num::Float(v.parse().unwrap_or_else(|_| panic!("threshold {v:?}"))),
            };
            let p = Pattern::new(&format!("^{k}$")).unwrap_or_else(|e| panic!("{e}"));
            (p, n)
        })
        .collect()
}

/// `function_stat?`: a failure (or pass) stat, README A4.
pub fn is_failure(key: &str) -> bool {
    if key.contains(".time.") || key.contains(".timestamp:") || key.contains(".bootstage:") {
        return false;
    }
    LISTS.failure.is_match(key)
}

/// Whether `skip_stat?` drops the key as neither bisectable nor report-allowlisted (README B2).
pub fn is_unreported(key: &str) -> bool {
    if LISTS.report_allowlist.is_match(key) || LISTS.stat_allowlist.is_match(key) {
        return false;
    }
    LISTS.stat_denylist.is_match(key)
}

/// `perf_metric?` (README B6).
pub fn is_perf_metric(key: &str) -> bool {
    if LISTS.perf_metrics_patterns.is_match(key) {
        return true;
    }
    if LISTS
        .perf_metrics_prefixes
        .iter()
        .any(|p| key.starts_with(p))
    {
        return true;
    }
    key.split_once('.')
        .is_some_and(|(base, _)| LISTS.perf_tests.contains(base))
}

/// `reasonable_perf_change?(key, delta, max)` (README B6).
pub fn is_reasonable_change(key: &str, delta: Num, max: Num) -> bool {
    if let Some((_, v)) = LISTS.thresholds.iter().find(|(p, _)| p.is_match(key)) {
        if max.lt(*v) {
            return false;
        }
        if let Num::Int(v) = v {
            if delta.lt(Num::Int(v.div_euclid(2))) {
                return false;
            }
        }
        return true;
    }
    let gt = |x: Num, limit: i128| x.gt(Num::Int(limit));
    if key.starts_with("iostat") {
        gt(max, 1)
    } else if key.starts_with("pagetypeinfo")
        || key.starts_with("buddyinfo")
        || key.starts_with("slabinfo")
    {
        gt(delta, 100)
    } else if key.starts_with("proc-vmstat") || key.contains("meminfo") {
        gt(max, 1000)
    } else if key.starts_with("lock_stat") {
        // The `'waittime-total'`/`'holdtime-total'` branches compare the whole key: never.
        if key.contains("time") {
            gt(delta, 1000)
        } else {
            gt(delta, 10_000)
        }
    } else if key.starts_with("interrupts") || key.starts_with("softirqs") {
        gt(max, 10_000)
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_compiles() {
        LazyLock::force(&LISTS);
        assert_eq!(LISTS.thresholds.len(), 45);
        assert!(LISTS.perf_tests.contains("netperf"));
        assert!(LISTS.perf_tests.contains("schbench"));
        assert!(!LISTS.perf_tests.contains("xfstests"));
        assert!(!LISTS.perf_tests.contains("mpstat"));
    }

    #[test]
    fn classification() {
        assert!(is_failure(
            "dmesg.BUG:kernel_NULL_pointer_dereference,address"
        ));
        assert!(is_failure("netperf.test_splice.pass"));
        assert!(is_failure("last_state.is_incomplete_run"));
        assert!(!is_failure("netperf.Throughput_Mbps"));
        assert!(!is_failure("dmesg.timestamp:x"));
        assert!(is_unreported("interrupts.CAL:Function_call_interrupts"));
        assert!(is_unreported("dmesg.boot_failures"));
        assert!(!is_unreported("meminfo.Active"));
        assert!(!is_unreported("netperf.Throughput_Mbps"));
        assert!(is_perf_metric("netperf.Throughput_Mbps"));
        assert!(is_perf_metric("perf-stat.i.ipc"));
        assert!(is_perf_metric("hackbench.time.user_time"));
        assert!(is_perf_metric("lock_stat.&zone->lock.contentions"));
        assert!(!is_perf_metric("sched_debug.cpu.nr_switches.avg"));
        assert!(!is_perf_metric("meminfo.Active"));
        assert!(!is_perf_metric("mpstat.cpu.all.usr%"));
        assert!(crate::programs::is_test_program("netperf"));
        assert!(crate::programs::is_test_program("netserver"));
        assert!(!crate::programs::is_test_program("mpstat"));
    }

    #[test]
    fn thresholds_first_match_decides() {
        let i = Num::Int;
        assert!(!is_reasonable_change(
            "proc-vmstat.nr_zone_write_pending",
            i(60),
            i(99)
        ));
        assert!(!is_reasonable_change(
            "proc-vmstat.nr_inactive_file",
            i(49),
            i(5000)
        ));
        assert!(is_reasonable_change(
            "proc-vmstat.nr_inactive_file",
            i(50),
            i(5000)
        ));
        assert!(!is_reasonable_change(
            "proc-vmstat.pgalloc_normal",
            i(500),
            i(1000)
        ));
        assert!(is_reasonable_change("proc-vmstat.pgfree", i(500), i(1001)));
        assert!(!is_reasonable_change(
            "lock_stat.&zone->lock.waittime-total",
            i(1000),
            i(9)
        ));
        assert!(is_reasonable_change(
            "lock_stat.&rq->__lock.waittime-total",
            i(1001),
            i(9)
        ));
        assert!(!is_reasonable_change(
            "lock_stat.&rq->__lock.contentions",
            i(10_000),
            i(9)
        ));
        assert!(is_reasonable_change("netperf.Throughput_Mbps", i(1), i(2)));
    }
}
