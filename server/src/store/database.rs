// SPDX-License-Identifier: GPL-3.0-or-later
//! Which database the store opens, as `--db` names it: a SQLite file or a PostgreSQL URL.

use std::path::PathBuf;

/// Where the data lives, as `--db` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file: a path, `sqlite:path` or `sqlite://path`.
    Sqlite(PathBuf),
    /// A `postgres://` or `postgresql://` URL.
    Postgres(String),
}

impl Database {
    /// Reads `--db`: a `postgres://` URL, a `sqlite:` URL, or else a path.
    pub fn parse(raw: &str) -> Result<Database, String> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err("is empty: give a file, a sqlite: URL or a postgres:// URL".into());
        }
        if raw.starts_with("postgres://") || raw.starts_with("postgresql://") {
            return Ok(Database::Postgres(raw.to_owned()));
        }
        let path = raw
            .strip_prefix("sqlite://")
            .or_else(|| raw.strip_prefix("sqlite:"))
            .unwrap_or(raw);
        if path.is_empty() {
            return Err("names no file".into());
        }
        if path.contains("://") {
            return Err(format!(
                "'{raw}' is not a database Perfline knows: give a file, a sqlite: URL or a postgres:// URL"
            ));
        }
        Ok(Database::Sqlite(PathBuf::from(path)))
    }

    /// The SQLite file, for what only SQLite has (its file's size, `perfline backup`).
    pub fn sqlite_path(&self) -> anyhow::Result<&std::path::Path> {
        match self {
            Database::Sqlite(path) => Ok(path),
            Database::Postgres(_) => anyhow::bail!(
                "--db names a PostgreSQL database: this works on a SQLite file only \
                 (back PostgreSQL up with pg_dump)"
            ),
        }
    }
}

impl std::fmt::Display for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(path) => write!(f, "{}", path.display()),
            // Never the password.
            Database::Postgres(url) => match url.split_once('@') {
                Some((_, host)) => write!(f, "postgres://...@{host}"),
                None => write!(f, "{url}"),
            },
        }
    }
}
