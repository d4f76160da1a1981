// SPDX-License-Identifier: GPL-3.0-or-later
//! Which way is better for a metric an upload does not say: LKP's KPIs ([`lkp::kpi`]), the metrics
//! mmtests compares (`mmtests_directions`, from its shellpack YAML), then the names that say
//! it themselves. Anything else has no direction: its changes are changes, never better or
//! worse, and raise no alerts of their own.

use app::label::Direction;

use super::mmtests_directions::MMTESTS_DIRECTIONS;

/// The direction of `metric` of `benchmark`, if it is known.
pub fn direction(benchmark: &str, metric: &str) -> Option<Direction> {
    kpi_direction(metric)
        .or_else(|| kpi_direction(&format!("{benchmark}.{metric}")))
        .or_else(|| mmtests(benchmark, metric))
        .or_else(|| by_name(metric))
}

/// The direction of an mmtests family's metric as its `shellpack.yaml` states it (under the
/// metric, else at the top), else the family's own (`higher`, mmtests' default lower).
pub fn mmtests_direction(shellpack: &str, metric: &str, higher: bool) -> Direction {
    let higher = mmtests_listed(shellpack, metric)
        .or_else(|| mmtests_listed(shellpack, "*"))
        .unwrap_or(higher);
    better(higher)
}

/// The direction lkp-tests gives stats key `key`, if it is one of its KPIs.
pub fn kpi_direction(key: &str) -> Option<Direction> {
    lkp::kpi::sign(key).map(|d| match d {
        lkp::kpi::Sign::Positive => Direction::Higher,
        lkp::kpi::Sign::Negative => Direction::Lower,
    })
}

/// Higher is better, or lower.
fn better(higher: bool) -> Direction {
    if higher {
        Direction::Higher
    } else {
        Direction::Lower
    }
}

/// Sets the direction of every series `stated` (benchmark, metric, param) gives one: what
/// an upload or an alert rule says over what the parser knew.
pub fn apply(
    runs: &mut [super::ParsedRun],
    stated: impl Fn(&str, &str, &str, Direction) -> Option<Direction>,
) {
    for run in runs {
        let benchmark = run.key.benchmark.as_str();
        for s in &mut run.series {
            if let Some(d) = stated(benchmark, s.metric.as_str(), &s.param, s.direction) {
                s.direction = d;
            }
        }
    }
}

/// Whether higher is better for `metric` of `benchmark` as `MMTESTS_DIRECTIONS` lists it (the
/// first listing), looked up by benchmark then metric: it is asked once a series of every
/// directory of a tree.
fn mmtests_listed(benchmark: &str, metric: &str) -> Option<bool> {
    type ByMetric = std::collections::HashMap<&'static str, bool>;
    static LISTED: std::sync::LazyLock<std::collections::HashMap<&'static str, ByMetric>> =
        std::sync::LazyLock::new(|| {
            let mut by: std::collections::HashMap<&'static str, ByMetric> = Default::default();
            for &(b, m, higher) in MMTESTS_DIRECTIONS {
                by.entry(b).or_default().entry(m).or_insert(higher);
            }
            by
        });
    LISTED.get(benchmark)?.get(metric).copied()
}

/// mmtests' direction for a metric its YAML lists for `benchmark` (or a benchmark whose name
/// it starts, as `netperf-tcp` starts with `netperf`).
fn mmtests(benchmark: &str, metric: &str) -> Option<Direction> {
    let of = |b: &str| mmtests_listed(b, metric).map(better);
    of(benchmark).or_else(|| {
        let mut stem = benchmark;
        while let Some((head, _)) = stem.rsplit_once('-') {
            if let Some(d) = of(head) {
                return Some(d);
            }
            stem = head;
        }
        None
    })
}

/// Name conventions: a rate of work is better higher, a time or latency lower. Whole words
/// (split at `_ . - / space`) or unit suffixes, so `timeouts` or `lateness` are not times.
fn by_name(metric: &str) -> Option<Direction> {
    const HIGHER: &[&str] = &[
        "throughput",
        "tput",
        "bandwidth",
        "bw",
        "iops",
        "ops",
        "tps",
        "qps",
        "rps",
        "score",
        "mbps",
        "gbps",
        "kbps",
        "mb/s",
        "gb/s",
        "ops/s",
        "ops/sec",
        "per_sec",
        "persec",
    ];
    const LOWER: &[&str] = &[
        "latency", "lat", "time", "elapsed", "duration", "runtime", "us", "usec", "usecs", "ms",
        "msec", "msecs", "ns", "nsec", "nsecs", "seconds", "secs",
    ];
    let lower = metric.to_ascii_lowercase();
    if HIGHER
        .iter()
        .any(|w| lower.ends_with(&format!("_{w}")) || lower.ends_with(&format!(".{w}")))
    {
        return Some(Direction::Higher);
    }
    let words: Vec<&str> = lower
        .split(['_', '.', '-', ' ', '/'])
        .filter(|w| !w.is_empty())
        .collect();
    let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
    match (has(HIGHER), has(LOWER)) {
        (true, false) => Some(Direction::Higher),
        (false, true) => Some(Direction::Lower),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(benchmark: &str, metric: &str, expect: Option<Direction>) {
        assert_eq!(direction(benchmark, metric), expect, "{benchmark} {metric}");
    }

    #[test]
    fn known_metrics_have_their_directions() {
        use Direction::{Higher, Lower};
        // LKP's KPIs, by key or as benchmark.metric.
        check("netperf", "netperf.Throughput_Mbps", Some(Higher));
        check("netperf", "Throughput_Mbps", Some(Higher));
        // mmtests' YAML.
        check("netperf-tcp", "tcpstream-send", Some(Higher));
        check("hackbench-process-pipes", "time", Some(Lower));
        check("dbench", "tput", Some(Higher));
        check("dbench", "loadfile", Some(Lower));
        // Names that say it.
        check("mybench", "request_latency_us", Some(Lower));
        check("mybench", "Throughput", Some(Higher));
        check("mybench", "read_iops", Some(Higher));
        check("mybench", "elapsed", Some(Lower));
        // Nothing to go by: no direction.
        check("mybench", "nr_dirty", None);
        check("mybench", "timeouts", None);
        check("mybench", "m", None);
        check("mybench", "proc-vmstat.pgfault", None);
    }
}
