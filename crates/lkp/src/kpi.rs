// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! LKP's KPIs and their directions, as lkp-tests decides them: the first pattern of
//! `index-perf-all.yaml` that matches a stats key whole, else the first of
//! `index-latency-all.yaml`; the sign of its number is the direction (positive: higher is
//! better). The files are unchanged copies from lkp-tests (`kpis/README.md` says which).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use regex::RegexSet;

/// Which way a KPI is better: the sign of its weight in lkp-tests' tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// A positive weight: a bigger value is better (throughput).
    Higher,
    /// A negative weight: a smaller value is better (latency, time).
    Lower,
}

/// One table: its patterns (matched whole) and each one's direction, in file order.
struct Table {
    patterns: RegexSet,
    directions: Vec<Direction>,
}

impl Table {
    fn parse(yaml: &str) -> Table {
        let mut patterns = Vec::new();
        let mut directions = Vec::new();
        for line in yaml.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((pattern, weight)) = line.rsplit_once(": ") else {
                continue;
            };
            let Ok(weight) = weight.trim().parse::<f64>() else {
                continue;
            };
            patterns.push(format!("^(?:{pattern})$"));
            directions.push(if weight < 0.0 {
                Direction::Lower
            } else {
                Direction::Higher
            });
        }
        Table {
            patterns: RegexSet::new(&patterns).expect("lkp-tests' KPI patterns are regexes"),
            directions,
        }
    }

    /// The direction of the first pattern matching `key`.
    fn direction(&self, key: &str) -> Option<Direction> {
        self.patterns
            .matches(key)
            .iter()
            .next()
            .map(|i| self.directions[i])
    }
}

static PERF: LazyLock<Table> =
    LazyLock::new(|| Table::parse(include_str!("kpis/index-perf-all.yaml")));
static LATENCY: LazyLock<Table> =
    LazyLock::new(|| Table::parse(include_str!("kpis/index-latency-all.yaml")));

/// Keys looked up before: a robot sends the same 5,000 keys job after job, and matching one
/// against ~250 patterns costs more than the rest of its parsing.
type Seen = HashMap<String, Option<Direction>, foldhash::fast::RandomState>;
static SEEN: LazyLock<Mutex<Seen>> = LazyLock::new(Default::default);

/// The most keys remembered (then forgotten all at once).
const MAX_SEEN: usize = 200_000;

/// The direction lkp-tests gives stats key `key`, if it is one of its KPIs.
pub fn direction(key: &str) -> Option<Direction> {
    if let Some(&d) = SEEN.lock().ok().as_ref().and_then(|m| m.get(key)) {
        return d;
    }
    let d = PERF.direction(key).or_else(|| LATENCY.direction(key));
    if let Ok(mut m) = SEEN.lock() {
        if m.len() >= MAX_SEEN {
            m.clear();
        }
        m.insert(key.to_owned(), d);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(key: &str, expect: Option<Direction>) {
        assert_eq!(direction(key), expect, "{key}");
    }

    #[test]
    fn lkp_kpis_have_lkp_directions() {
        check("netperf.Throughput_Mbps", Some(Direction::Higher));
        check("hackbench.throughput", Some(Direction::Higher));
        check("fio.write_iops", Some(Direction::Higher));
        check("adrestia.wakeup_cost_periodic_us", Some(Direction::Lower));
        check("schbench.wakeup_latency_max_us", Some(Direction::Lower));
        check("iostat.sda.await.max", Some(Direction::Lower));
        check("pgbench.latency_ms", Some(Direction::Lower));
        // Whole keys only, and monitors are not KPIs.
        check("xnetperf.Throughput_Mbps", None);
        check("proc-vmstat.nr_dirty", None);
        check("perf-profile.calltrace.cycles-pp.do_syscall_64", None);
    }
}
