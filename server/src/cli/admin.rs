// SPDX-License-Identifier: GPL-3.0-or-later
//! The commands on the database without a server: `perfline token ...`, `perfline backup`,
//! `perfline migrate-db` and `perfline import-mail` (its own file).

use std::process::ExitCode;

use super::{Command, TokenCommand};
use crate::config::Config;
use crate::http::auth::{issue_token, Scopes};

/// Runs one of them on the database `config` names.
pub async fn run(config: &Config, command: Command) -> ExitCode {
    if let Command::Backup { to } = &command {
        let from = match config.db.sqlite_path() {
            Ok(path) => path,
            Err(e) => {
                eprintln!("perfline: backup: {e:#}");
                return ExitCode::FAILURE;
            }
        };
        return match crate::store::Store::backup(from, to).await {
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
        let shown = crate::config::Database::Postgres(to.clone());
        return match crate::store::sqlite_to_postgres(from, to, |c| {
            eprintln!(
                "perfline: {:<16} {:>10} rows  sha256-sum {}",
                c.table,
                c.rows,
                app::text::head(&c.checksum, 16)
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
    let opened = crate::store::Store::connect(
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
        Command::ImportMail { path, no_plot_runs } => {
            return super::import_mail::run(&store, &path, !no_plot_runs).await
        }
        Command::Client(_)
        | Command::Source { .. }
        | Command::MigrateDb { .. }
        | Command::Backup { .. } => {
            unreachable!("run above, or by cli::main")
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
