//! `perfline`: starts the server on an embedded SQLite file, manages its tokens, or (the
//! client commands in `cli.rs`) talks to a running server.

use clap::Parser;
use perfline_server::{serve, AppState, Config};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let config = Config::parse();
    // The client commands print only their answers on stdout and their messages on stderr:
    // no log subscriber.
    if let Some(perfline_server::config::Command::Client(command)) = config.command.clone() {
        return perfline_server::cli::run(command).await;
    }
    let filter = EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info"));
    match config.log_format {
        perfline_server::config::LogFormat::Text => {
            // Colours for a terminal only: a log file or journal gets plain text.
            let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
            tracing_subscriber::fmt()
                .with_ansi(terminal)
                .with_env_filter(filter)
                .init();
        }
        perfline_server::config::LogFormat::Json => tracing_subscriber::fmt()
            .json()
            .with_current_span(true)
            .with_env_filter(filter)
            .init(),
    }

    if let Some(command) = config.command.clone() {
        return run_command(&config, command).await;
    }
    if config.listen.ip().is_loopback()
        || config.auth_mode() == perfline_server::auth::AuthMode::Token
    {
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
            return std::process::ExitCode::FAILURE;
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
        db
    );
    if let Some(addr) = metrics_listen {
        let metrics = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("perfline: cannot listen on {addr} for metrics: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
        tracing::info!(
            "metrics served at http://{}/metrics",
            metrics
                .local_addr()
                .map(|a| a.to_string())
                .unwrap_or_default()
        );
        let router = perfline_server::metrics::router(state.clone());
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
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("perfline: server error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `perfline token ...`, `perfline backup` and `perfline migrate-db`: on the database, without
/// a server.
async fn run_command(
    config: &Config,
    command: perfline_server::config::Command,
) -> std::process::ExitCode {
    use perfline_server::auth::{issue_token, Scopes};
    use perfline_server::config::{Command, TokenCommand};
    use std::process::ExitCode;
    if let Command::Backup { to } = &command {
        let from = match config.db.sqlite_path() {
            Ok(path) => path,
            Err(e) => {
                eprintln!("perfline: backup: {e:#}");
                return ExitCode::FAILURE;
            }
        };
        return match perfline_server::store::Store::backup(from, to).await {
            Ok(counts) => {
                let counts: Vec<String> = counts.iter().map(|(t, n)| format!("{n} {t}")).collect();
                eprintln!(
                    "perfline: backed up {} to {}: {}",
                    config.db,
                    to.display(),
                    counts.join(", ")
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("perfline: backup: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    if let Command::MigrateDb { from, to } = &command {
        if !to.starts_with("postgres://") && !to.starts_with("postgresql://") {
            eprintln!("perfline: migrate-db: --to must be a postgres:// URL");
            return ExitCode::FAILURE;
        }
        let shown = perfline_server::config::Database::Postgres(to.clone());
        return match perfline_server::store::sqlite_to_postgres(from, to, |c| {
            eprintln!(
                "perfline: {:<16} {:>10} rows  sha256-sum {}",
                c.table,
                c.rows,
                &c.checksum[..16]
            );
        })
        .await
        {
            Ok(copied) => {
                let rows: i64 = copied.iter().map(|c| c.rows).sum();
                eprintln!(
                    "perfline: copied {} to {shown}: {rows} rows in {} tables, every count and checksum equal",
                    from.display(),
                    copied.len()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("perfline: migrate-db: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    let opened = perfline_server::store::Store::connect(
        &config.db,
        std::time::Duration::from_millis(config.busy_timeout),
        2,
    )
    .await;
    let store = match opened {
        Ok(s) => s,
        Err(e) => {
            eprintln!("perfline: cannot open the database: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    let action = match command {
        Command::Token { action } => action,
        Command::Client(_) | Command::MigrateDb { .. } | Command::Backup { .. } => {
            unreachable!("run above, or by main")
        }
    };
    let result: Result<(), String> = async {
        match action {
            TokenCommand::Create {
                name,
                scope,
                expires_days,
            } => {
                let name = app::label::Label::parse(&name).map_err(|e| format!("--name {e}"))?;
                let scopes = Scopes::parse(&scope).map_err(|e| format!("--scope: {e}"))?;
                let created = issue_token(&store, name.as_str(), &scopes, expires_days, "cli")
                    .await
                    .map_err(|e| e.to_string())?;
                let Some((_, token)) = created else {
                    return Err(format!(
                        "a token named '{name}' exists; revoke it or choose another name"
                    ));
                };
                // The token itself, once, alone on stdout; the rest goes to stderr.
                println!("{token}");
                eprintln!(
                    "perfline: token '{name}' with scopes {scopes} created; it is not shown again"
                );
                Ok(())
            }
            TokenCommand::List => {
                let tokens = store.list_tokens().await.map_err(|e| e.to_string())?;
                println!(
                    "{:<5} {:<24} {:<20} {:<21} {:<21} {:<21} revoked",
                    "id", "name", "scopes", "created", "expires", "last used"
                );
                for t in tokens {
                    let or = |v: Option<String>| v.unwrap_or_else(|| "-".into());
                    println!(
                        "{:<5} {:<24} {:<20} {:<21} {:<21} {:<21} {}",
                        t.id,
                        t.name,
                        t.scopes,
                        t.created_at,
                        or(t.expires_at),
                        or(t.last_used_at),
                        or(t.revoked_at)
                    );
                }
                Ok(())
            }
            TokenCommand::Revoke { token } => {
                if store
                    .revoke_token(&token, "cli")
                    .await
                    .map_err(|e| e.to_string())?
                {
                    eprintln!("perfline: token '{token}' revoked");
                    Ok(())
                } else {
                    Err(format!("no live token named or numbered '{token}'"))
                }
            }
        }
    }
    .await;
    store.close().await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("perfline: {e}");
            ExitCode::FAILURE
        }
    }
}
