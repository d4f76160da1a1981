// SPDX-License-Identifier: GPL-3.0-or-later
//! The Perfline server: ingest, storage, statistics, the HTTP API and server-side rendering.
//!
//! [`serve`] takes a bound listener and a shutdown future, so tests can bind port 0 and stop the
//! server when they are done.

// Parsers cut text where they found what they cut at, and never panic on any input (the
// property tests in `ingest`, the fuzz targets): the workspace's `string_slice` lint is for
// the rest of the server.
#[allow(
    clippy::string_slice,
    reason = "parsers cut where `find` found; the fuzzers and property tests keep them from panicking"
)]
pub mod ingest;

// Everything below is the server (feature `server`, on by default). Without it the crate is
// only the parsers, which is what the fuzz targets build.
// The layers above `ingest`, bottom-up: pure rules; storage and the statistics beside it; a
// server's configuration; what Perfline does; the HTTP edge; the command line.
#[cfg(feature = "server")]
pub mod analysis;
#[cfg(feature = "server")]
pub mod cli;
#[cfg(feature = "server")]
pub mod config;
#[cfg(feature = "server")]
pub mod domain;
#[cfg(feature = "server")]
pub mod http;
#[cfg(feature = "server")]
pub mod services;
#[cfg(feature = "server")]
pub mod store;
#[cfg(feature = "server")]
pub use http::{page_paths, router, serve, AppState, Config};

/// mimalloc instead of the system allocator: a trend of 50,000 runs allocates and frees some
/// 100,000 small objects and several megabytes of output per request, and glibc's malloc spends
/// a third of that time in `malloc`/`free` and fresh pages (see BENCHMARKS.md). Declared here so
/// that the server, its tests and its benchmarks all run with it.
#[cfg(feature = "server")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Asks the kernel for no transparent huge pages in this process (`serve` does, first).
///
/// mimalloc advises huge pages on its arenas and gives freed memory back after a second; the
/// next request that needs it then faults 2 MiB pages in, and the kernel zeroes each whole
/// page however little of it is used. An upload of the 63-family mmtests tree spent 26–87 ms
/// of its parse's 70–170 ms of CPU in that zeroing on most uploads (0 on the few that found
/// memory still mapped); with 4 KiB pages it is gone and the parse's CPU steady (see
/// BENCHMARKS.md). Trends, comparisons and LKP ingest measured the same either way.
/// Best effort: a kernel without the flag leaves things as they were.
#[cfg(feature = "server")]
pub fn small_pages() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::thread::disable_transparent_huge_pages(true) {
        tracing::debug!(error = %e, "transparent huge pages stay enabled");
    }
}
