// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! lkp-tests' test programs (`LKP::Programs.all_tests_set`, `lib/programs.rb`): the
//! `programs/*/run` and the executable `programs/*/daemon` of lkp-tests `bbbc29c495d9`
//! (`etc/programs-run`, `etc/programs-daemon`, see `etc/README.md`): ingest tells a job's test
//! program from its monitors with it.

use std::collections::HashSet;
use std::sync::LazyLock;

const PROGRAMS_RUN: &str = include_str!("etc/programs-run");
const PROGRAMS_DAEMON: &str = include_str!("etc/programs-daemon");

/// Every test program and daemon by name.
pub static ALL_TESTS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    PROGRAMS_RUN
        .lines()
        .chain(PROGRAMS_DAEMON.lines())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
});

/// Whether `base` (a key's part before the first `.`) is a test program or daemon.
pub fn is_test_program(base: &str) -> bool {
    ALL_TESTS.contains(base)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tests_not_monitors() {
        assert!(super::is_test_program("netperf"));
        assert!(!super::is_test_program("perf-profile"));
        assert!(!super::is_test_program("proc-vmstat"));
    }
}
