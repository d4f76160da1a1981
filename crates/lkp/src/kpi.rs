// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! LKP's KPIs and their directions, as lkp-tests decides them: the first pattern of
//! `index-perf-all.yaml` that matches a stats key whole, else the first of
//! `index-latency-all.yaml`; the sign of its number is the direction (positive: higher is
//! better). The files are unchanged copies from lkp-tests (`kpis/README.md` says which).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use regex::RegexSet;

/// The sign of a KPI's weight in lkp-tests' tables, which says which way it is better
/// (Perfline reads it as its own `Sign`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    /// A positive weight: a bigger value is better (throughput).
    Positive,
    /// A negative weight: a smaller value is better (latency, time).
    Negative,
}

/// One table: its patterns (matched whole) and each one's direction, in file order.
struct Table {
    patterns: RegexSet,
    signs: Vec<Sign>,
}

impl Table {
    fn parse(yaml: &str) -> Table {
        let mut patterns = Vec::new();
        let mut signs = Vec::new();
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
            signs.push(if weight < 0.0 {
                Sign::Negative
            } else {
                Sign::Positive
            });
        }
        Table {
            patterns: RegexSet::new(&patterns).expect("lkp-tests' KPI patterns are regexes"),
            signs,
        }
    }

    /// The direction of the first pattern matching `key`.
    fn sign(&self, key: &str) -> Option<Sign> {
        self.patterns
            .matches(key)
            .iter()
            .next()
            .map(|i| self.signs[i])
    }
}

static PERF: LazyLock<Table> =
    LazyLock::new(|| Table::parse(include_str!("kpis/index-perf-all.yaml")));
static LATENCY: LazyLock<Table> =
    LazyLock::new(|| Table::parse(include_str!("kpis/index-latency-all.yaml")));

/// Keys looked up before: a robot sends the same 5,000 keys job after job, and matching one
/// against ~250 patterns costs more than the rest of its parsing.
type Seen = HashMap<String, Option<Sign>, foldhash::fast::RandomState>;
static SEEN: LazyLock<Mutex<Seen>> = LazyLock::new(Default::default);

/// The most keys remembered (then forgotten all at once).
const MAX_SEEN: usize = 200_000;

/// The direction lkp-tests gives stats key `key`, if it is one of its KPIs.
pub fn sign(key: &str) -> Option<Sign> {
    if let Some(&d) = SEEN.lock().ok().as_ref().and_then(|m| m.get(key)) {
        return d;
    }
    let d = PERF.sign(key).or_else(|| LATENCY.sign(key));
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

    fn check(key: &str, expect: Option<Sign>) {
        assert_eq!(sign(key), expect, "{key}");
    }

    #[test]
    fn lkp_kpis_have_lkp_directions() {
        check("netperf.Throughput_Mbps", Some(Sign::Positive));
        check("hackbench.throughput", Some(Sign::Positive));
        check("fio.write_iops", Some(Sign::Positive));
        check("adrestia.wakeup_cost_periodic_us", Some(Sign::Negative));
        check("schbench.wakeup_latency_max_us", Some(Sign::Negative));
        check("iostat.sda.await.max", Some(Sign::Negative));
        check("pgbench.latency_ms", Some(Sign::Negative));
        // Whole keys only, and monitors are not KPIs.
        check("xnetperf.Throughput_Mbps", None);
        check("proc-vmstat.nr_dirty", None);
        check("perf-profile.calltrace.cycles-pp.do_syscall_64", None);
    }
}
