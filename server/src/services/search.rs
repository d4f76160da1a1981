// SPDX-License-Identifier: GPL-3.0-or-later
//! Type-to-search metric pickers: which of thousands of metrics match what the user typed,
//! KPIs first. Pure ranking (`rank`) over the names the store lists.

use app::types::MAX_METRIC_SEARCH;
use app::types::{compare_params, MetricMatch, MetricMatches, MetricSearch, MAX_METRIC_MATCHES};

use super::{ServiceError, Services};

impl Services {
    /// The picker's matches for `search`: the series of a benchmark on a machine, or the
    /// metrics with alerts.
    pub async fn metric_matches(
        &self,
        search: &MetricSearch,
    ) -> Result<MetricMatches, ServiceError> {
        if search.text.len() > MAX_METRIC_SEARCH {
            return Err(ServiceError::Invalid(format!(
                "search text of {} bytes; at most {MAX_METRIC_SEARCH}",
                search.text.len()
            )));
        }
        let pairs = if search.alerts {
            let mut metrics: Vec<(String, String)> = self
                .store
                .alert_metrics()
                .await?
                .into_iter()
                .map(|(m, _)| (m, String::new()))
                .collect();
            metrics.sort_unstable();
            metrics.dedup();
            metrics
        } else if search.benchmark.is_empty() || search.machine.is_empty() {
            Vec::new()
        } else {
            self.store
                .trend_choices(&search.benchmark, &search.machine)
                .await?
        };
        Ok(rank(pairs, &search.text))
    }
}

/// How well a name matches: KPIs first, then the whole name, a prefix, a part.
fn rank(pairs: Vec<(String, String)>, text: &str) -> MetricMatches {
    let total = pairs.len();
    let needle = text.trim().to_lowercase();
    let mut found: Vec<(u8, MetricMatch)> = pairs
        .into_iter()
        .filter_map(|(metric, param)| {
            let name = metric.to_lowercase();
            let place = if needle.is_empty() || name == needle {
                0
            } else if name.starts_with(&needle) {
                1
            } else if name.contains(&needle) {
                2
            } else {
                return None;
            };
            let kpi = crate::ingest::known::kpi_direction(&metric).is_some();
            Some((
                place + if kpi { 0 } else { 3 },
                MetricMatch { metric, param, kpi },
            ))
        })
        .collect();
    let matching = found.len();
    found.sort_by(|(a, x), (b, y)| {
        a.cmp(b)
            .then_with(|| x.metric.cmp(&y.metric))
            .then_with(|| compare_params(&x.param, &y.param))
    });
    found.truncate(MAX_METRIC_MATCHES);
    MetricMatches {
        total,
        matching,
        matches: found.into_iter().map(|(_, m)| m).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(names: &[&str], text: &str, expect: &[&str], matching: usize) {
        let pairs = names
            .iter()
            .map(|n| match n.split_once(" @ ") {
                Some((m, p)) => (m.to_string(), p.to_string()),
                None => (n.to_string(), String::new()),
            })
            .collect();
        let got = rank(pairs, text);
        let labels: Vec<String> = got.matches.iter().map(MetricMatch::label).collect();
        assert_eq!(labels, expect, "{text:?}");
        assert_eq!((got.total, got.matching), (names.len(), matching));
    }

    #[test]
    fn kpis_first_then_prefixes_then_parts() {
        let names = [
            "proc-vmstat.nr_free_pages",
            "netperf.Throughput_total_Mbps",
            "netperf.Throughput_Mbps",
            "perf-stat.throughput",
            "time @ 8",
            "time @ 16",
            "time @ 2",
        ];
        check(
            &names,
            "",
            &[
                "netperf.Throughput_Mbps",
                "perf-stat.throughput",
                "netperf.Throughput_total_Mbps",
                "proc-vmstat.nr_free_pages",
                "time @ 2",
                "time @ 8",
                "time @ 16",
            ],
            7,
        );
        check(
            &names,
            "THROUGHPUT",
            &[
                "netperf.Throughput_Mbps",
                "perf-stat.throughput",
                "netperf.Throughput_total_Mbps",
            ],
            3,
        );
        check(
            &names,
            "perf",
            &[
                "perf-stat.throughput",
                "netperf.Throughput_Mbps",
                "netperf.Throughput_total_Mbps",
            ],
            3,
        );
        check(&names, "time", &["time @ 2", "time @ 8", "time @ 16"], 3);
        check(&names, "nothing", &[], 0);
    }

    #[test]
    fn at_most_fifty_of_thousands() {
        let names: Vec<String> = (0..5000).map(|i| format!("sched_debug.cpu.{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let pairs = refs
            .iter()
            .map(|n| (n.to_string(), String::new()))
            .collect();
        let got = rank(pairs, "cpu.1");
        assert_eq!(got.matches.len(), MAX_METRIC_MATCHES);
        assert_eq!(got.matching, 1111);
        assert_eq!(got.total, 5000);
    }
}
