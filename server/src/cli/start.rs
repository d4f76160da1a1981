// SPDX-License-Identifier: GPL-3.0-or-later
//! Serving: the log subscriber, the listeners (the site and API, and `/metrics` on its own
//! address when asked), and a drain on SIGINT or SIGTERM.

use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

use crate::config::{Config, LogFormat};
use crate::{serve, AppState};

/// Logs to stderr as the configuration says: plain text (coloured on a terminal only) or JSON.
pub fn init_logging(config: &Config) {
    let filter = EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info"));
    match config.log_format {
        LogFormat::Text => {
            // Colours for a terminal only: a log file or journal gets plain text.
            let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
            tracing_subscriber::fmt()
                .with_ansi(terminal)
                .with_env_filter(filter)
                .init();
        }
        LogFormat::Json => tracing_subscriber::fmt()
            .json()
            .with_current_span(true)
            .with_env_filter(filter)
            .init(),
    }
}

/// Serves until SIGINT or SIGTERM, then drains and answers success.
pub async fn serve_until_signalled(config: Config) -> ExitCode {
    if config.listen.ip().is_loopback() || config.auth_mode() == crate::config::AuthMode::Token {
        tracing::info!(mode = ?config.auth_mode(), private = config.private, "access control");
    } else {
        tracing::warn!(
            listen = %config.listen,
            "--auth open on a non-loopback address: anyone who reaches the port may write"
        );
    }
    let listen = config.listen;
    let metrics_listen = config.metrics_listen;
    let db = config.db.clone();
    let state = match AppState::new(config).await {
        Ok(state) => state,
        Err(e) => {
            eprintln!("perfline: cannot start: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    match state.site.name() {
        Some(name) => tracing::info!(site = name, "serving the site"),
        None => tracing::warn!(
            "this binary was built without the site: pages will not hydrate (run scripts/build-site, then cargo build)"
        ),
    }
    // SIGINT (Ctrl-C) and SIGTERM (systemd, `docker stop`) both drain and exit 0. The process
    // handles the signals itself, so it stops cleanly as PID 1 in a container too. The handlers
    // are installed here, before the first request can be served, not when the future is
    // first polled: a signal in between would otherwise kill the process outright.
    use tokio::signal::unix::{signal, SignalKind};
    let (mut term, mut int) = match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(term), Ok(int)) => (term, int),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("perfline: cannot handle SIGTERM and SIGINT: {e}");
            return ExitCode::FAILURE;
        }
    };
    let shutdown = async move {
        tokio::select! {
            _ = int.recv() => tracing::info!("SIGINT: shutting down"),
            _ = term.recv() => tracing::info!("SIGTERM: shutting down"),
        }
    };
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("perfline: cannot listen on {listen}: {e}");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(
        "perfline listening on http://{} (database {})",
        listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_default(),
        db
    );
    if let Some(addr) = metrics_listen {
        let metrics = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("perfline: cannot listen on {addr} for metrics: {e}");
                return ExitCode::FAILURE;
            }
        };
        tracing::info!(
            "metrics served at http://{}/metrics",
            metrics
                .local_addr()
                .map(|a| a.to_string())
                .unwrap_or_default()
        );
        let router = crate::http::metrics::router(state.clone());
        // Lives as long as the process: a scrape during the drain still answers.
        tokio::spawn(async move {
            if let Err(e) = axum::serve(metrics, router).await {
                tracing::error!("metrics listener: {e}");
            }
        });
    }
    match serve(listener, state, shutdown).await {
        Ok(()) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("perfline: server error: {e}");
            ExitCode::FAILURE
        }
    }
}
