//! Command-line and environment configuration.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

/// Perfline: upload, compare and chart kernel benchmark results.
#[derive(Debug, Clone, Parser)]
#[command(name = "perfline", version, about, long_about = None)]
pub struct Config {
    /// SQLite database file; created and migrated on first start.
    #[arg(long, env = "PERFLINE_DB", default_value = "./perfline.db")]
    pub db: PathBuf,

    /// Address to listen on.
    #[arg(long, env = "PERFLINE_LISTEN", default_value = "127.0.0.1:3000")]
    pub listen: SocketAddr,

    /// Directory holding the built site (`pkg/perfline.js`, `pkg/perfline_bg.wasm`, `pkg/perfline.css`).
    #[arg(long, env = "PERFLINE_SITE_ROOT", default_value = "target/site")]
    pub site_root: PathBuf,

    /// Largest accepted upload body, in bytes (default 64 MiB).
    #[arg(long, env = "PERFLINE_MAX_UPLOAD", default_value_t = 64 * 1024 * 1024)]
    pub max_upload: usize,

    /// Seconds a request may take before it is answered with 408.
    #[arg(long, env = "PERFLINE_REQUEST_TIMEOUT", default_value_t = 120)]
    pub request_timeout: u64,

    /// Log filter, in `tracing_subscriber::EnvFilter` syntax (e.g. `info`, `perfline=debug`).
    #[arg(long, env = "PERFLINE_LOG", default_value = "info")]
    pub log: String,
}

impl Config {
    /// A configuration for tests and benchmarks: a database file and defaults for the rest.
    pub fn for_db(db: PathBuf) -> Config {
        Config {
            db,
            listen: "127.0.0.1:0".parse().expect("valid address"),
            site_root: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/site")),
            max_upload: 64 * 1024 * 1024,
            request_timeout: 120,
            log: "warn".into(),
        }
    }
}
