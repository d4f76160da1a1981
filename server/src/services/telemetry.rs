// SPDX-License-Identifier: GPL-3.0-or-later
//! The process's Prometheus metrics: requests by route and status, their latency, uploads and
//! samples stored, cache hits and misses, and (set at each scrape) the database's size and the
//! alert pipeline's queues. The HTTP edge counts requests and serves them (`GET /metrics`).

use std::sync::Mutex;

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
    /// The route's pattern (`/api/v1/runs/{id}`), never the raw path: bounded cardinality.
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    /// `compare` (computed comparisons), `compare_body` (their rendered answers), `trend`,
    /// `trend_body`.
    pub cache: &'static str,
    /// `hit` or `miss`.
    pub result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    pub route: String,
}

/// The background tasks, as `/healthz`, `/metrics` (`task=`) and the log name them. The
/// confirmation and the bisections run in the detector's pass, under its lease.
pub const BACKGROUND_TASKS: [&str; 5] = [
    "detector",
    "confirmation",
    "bisection",
    "notifier",
    "deliverer",
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TaskLabels {
    /// One of [`BACKGROUND_TASKS`].
    pub task: &'static str,
}

type LatencyFamily = Family<RouteLabels, Histogram, fn() -> Histogram>;

pub struct Metrics {
    registry: Mutex<Registry>,
    pub requests: Family<RequestLabels, Counter>,
    pub latency: LatencyFamily,
    pub uploads: Counter,
    pub samples: Counter,
    pub cache_lookups: Family<CacheLabels, Counter>,
    pub database_bytes: Gauge,
    pub alert_jobs: Gauge,
    pub unnotified_events: Gauge,
    pub outbox_pending: Gauge,
    /// Wall time of each alert detector pass (an upper bound of its CPU time) and the series
    /// it examined.
    pub detector_seconds: Histogram,
    pub detector_series: Counter,
    /// Failures of each background task: failed passes, items set aside, restarts.
    pub background_failures: Family<TaskLabels, Counter>,
    /// 1 while a background task's last pass went through, 0 while it fails or restarts.
    pub background_up: Family<TaskLabels, Gauge>,
    /// Items the background tasks set aside (`quarantine`).
    pub background_quarantined: Gauge,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms to ~16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("perfline");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency: LatencyFamily = Family::new_with_constructor(latency_histogram);
        let (uploads, samples) = (Counter::default(), Counter::default());
        let database_bytes = Gauge::default();
        let cache_lookups = Family::<CacheLabels, Counter>::default();
        let (alert_jobs, unnotified_events, outbox_pending) =
            (Gauge::default(), Gauge::default(), Gauge::default());
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer, by route",
            latency.clone(),
        );
        registry.register("uploads", "Uploads stored", uploads.clone());
        registry.register("samples", "Samples stored", samples.clone());
        registry.register(
            "cache_lookups",
            "Lookups in the in-memory caches, by cache and hit or miss",
            cache_lookups.clone(),
        );
        registry.register(
            "database_bytes",
            "Size of the SQLite database and its WAL",
            database_bytes.clone(),
        );
        registry.register(
            "alert_jobs",
            "Series waiting for the alert detector",
            alert_jobs.clone(),
        );
        registry.register(
            "alert_events_unnotified",
            "Alert events not yet rendered into the outbox",
            unnotified_events.clone(),
        );
        registry.register(
            "outbox_pending",
            "Notifications (webhooks, mails) not yet delivered",
            outbox_pending.clone(),
        );
        let detector_seconds = latency_histogram();
        let detector_series = Counter::default();
        registry.register(
            "detector_pass_seconds",
            "Time of each alert detector pass over a batch of queued series",
            detector_seconds.clone(),
        );
        registry.register(
            "detector_series",
            "Series the alert detector examined",
            detector_series.clone(),
        );
        let background_failures = Family::<TaskLabels, Counter>::default();
        let background_up = Family::<TaskLabels, Gauge>::default();
        let background_quarantined = Gauge::default();
        for task in BACKGROUND_TASKS {
            // Each task's counter from the start, at 0.
            drop(background_failures.get_or_create(&TaskLabels { task }));
        }
        registry.register(
            "background_failures",
            "Failures of each background task: failed passes, items set aside, restarts",
            background_failures.clone(),
        );
        registry.register(
            "background_task_up",
            "1 while a background task's last pass went through, 0 while it fails or restarts",
            background_up.clone(),
        );
        registry.register(
            "background_quarantined_items",
            "Items the background tasks set aside (quarantined) until an admin releases them",
            background_quarantined.clone(),
        );
        Metrics {
            registry: Mutex::new(registry),
            background_failures,
            background_up,
            background_quarantined,
            detector_seconds,
            detector_series,
            requests,
            latency,
            uploads,
            samples,
            cache_lookups,
            database_bytes,
            alert_jobs,
            unnotified_events,
            outbox_pending,
        }
    }
}

impl Metrics {
    /// Counts a failure of background task `task`.
    pub fn background_failed(&self, task: &'static str) {
        self.background_failures
            .get_or_create(&TaskLabels { task })
            .inc();
    }

    /// Whether background task `task`'s last pass went through.
    pub fn background_up(&self, task: &'static str, up: bool) {
        self.background_up
            .get_or_create(&TaskLabels { task })
            .set(i64::from(up));
    }

    /// Counts a lookup in `cache`; answers `found` unchanged, for use around the lookup.
    pub fn cache<T>(&self, cache: &'static str, found: Option<T>) -> Option<T> {
        let result = if found.is_some() { "hit" } else { "miss" };
        self.cache_lookups
            .get_or_create(&CacheLabels { cache, result })
            .inc();
        found
    }

    /// The OpenMetrics text of every metric.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if let Ok(registry) = self.registry.lock() {
            let _ = encode(&mut out, &registry);
        }
        out
    }
}
