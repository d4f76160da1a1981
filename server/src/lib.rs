//! The Perfline server: ingest, storage, statistics, the HTTP API and server-side rendering.
//!
//! [`serve`] takes a bound listener and a shutdown future, so tests can bind port 0 and stop the
//! server when they are done.

pub mod ingest;

// Everything below is the server (feature `server`, on by default). Without it the crate is
// only the parsers, which is what the fuzz targets build.
#[cfg(feature = "server")]
pub mod alert_rule;
#[cfg(feature = "server")]
pub mod bisect;
#[cfg(feature = "server")]
pub mod changepoint;
#[cfg(feature = "server")]
pub mod chart;
#[cfg(feature = "server")]
pub mod cli;
#[cfg(feature = "server")]
pub mod config;
#[cfg(feature = "server")]
pub mod http;
#[cfg(feature = "server")]
pub mod noise;
#[cfg(feature = "server")]
pub mod services;
#[cfg(feature = "server")]
pub mod stats;
#[cfg(feature = "server")]
pub mod store;
#[cfg(feature = "server")]
pub mod telemetry;
#[cfg(feature = "server")]
pub mod verdict;
#[cfg(feature = "server")]
pub use http::{page_paths, router, serve, AppState, Config};

/// mimalloc instead of the system allocator: a trend of 50,000 runs allocates and frees some
/// 100,000 small objects and several megabytes of output per request, and glibc's malloc spends
/// a third of that time in `malloc`/`free` and fresh pages (see BENCHMARKS.md). Declared here so
/// that the server, its tests and its benchmarks all run with it.
#[cfg(feature = "server")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
