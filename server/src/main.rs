//! `perfline`: starts the server on an embedded SQLite file.

use clap::Parser;
use perfline_server::{serve, AppState, Config};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let config = Config::parse();
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info")))
        .init();

    let listen = config.listen;
    let db = config.db.clone();
    let state = match AppState::new(config).await {
        Ok(state) => state,
        Err(e) => {
            eprintln!("perfline: cannot start: {e:#}");
            return std::process::ExitCode::FAILURE;
        }
    };
    if !std::path::Path::new(&*state.leptos.site_root)
        .join("pkg/perfline.js")
        .exists()
    {
        tracing::warn!(site_root = %state.leptos.site_root, "the site is not built: pages will not hydrate (run scripts/build-site)");
    }
    // SIGINT (Ctrl-C) and SIGTERM (systemd, `docker stop`) both drain and exit 0. The process
    // handles the signals itself, so it stops cleanly as PID 1 in a container too. The handlers
    // are installed here, before the first request can be served, not when the future is
    // first polled: a signal in between would otherwise kill the process outright.
    use tokio::signal::unix::{signal, SignalKind};
    let (mut term, mut int) = match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
        (Ok(term), Ok(int)) => (term, int),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("perfline: cannot handle SIGTERM and SIGINT: {e}");
            return std::process::ExitCode::FAILURE;
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
            return std::process::ExitCode::FAILURE;
        }
    };
    tracing::info!(
        "perfline listening on http://{} (database {})",
        listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_default(),
        db.display()
    );
    match serve(listener, state, shutdown).await {
        Ok(()) => {
            tracing::info!("stopped");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("perfline: server error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
