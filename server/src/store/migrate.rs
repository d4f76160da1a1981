// SPDX-License-Identifier: GPL-3.0-or-later
//! `perfline migrate-db`: copies a SQLite store, table by table and row by row, into a new
//! PostgreSQL database whose schema (`migrations/postgres/`) has the same tables and columns,
//! ids included, in one PostgreSQL transaction; then checks each table's row count and
//! checksum on both sides.

use std::path::Path;

use anyhow::{bail, Context};
use futures_util::TryStreamExt;
use sha2::Digest;
use sqlx::postgres::Postgres;
use sqlx::{ConnectOptions, Connection, Row};

/// The tables in an order that satisfies their foreign keys, and `data_version` last.
const TABLES: &[&str] = &[
    "machine",
    "kernel",
    "upload",
    "upload_file",
    "run",
    "metric_key",
    "run_data",
    "series",
    "sample",
    "permalink",
    "history",
    "history_commit",
    "commit_mark",
    "commit_detail",
    "trend_chunk",
    "trend_block",
    "trend_cell",
    "trend_key",
    "api_token",
    "audit",
    "retired_run",
    "session",
    "alert_job",
    "alert_rule",
    "alert_summary",
    "alert",
    "alert_event",
    "bisection",
    "bisection_event",
    "bisection_mark",
    "work_request",
    "outbox",
    "quarantine",
    "robot",
    "worker_lease",
    "lkp_report",
    "lkp_metric",
    "lkp_report_metric",
    "data_version",
];

/// Bound values per `INSERT` (PostgreSQL takes at most 65,535) and bytes per batch.
const MAX_BINDS: usize = 30_000;
const MAX_BATCH_BYTES: usize = 16 << 20;

/// What one table came to: its rows and a checksum of them, equal on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub table: String,
    pub rows: i64,
    pub checksum: String,
}

/// A column's type, in PostgreSQL's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Text,
    Bytes,
}

/// One value, as both engines hold it.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Null,
    Int(i64),
    Float(f64),
    Text(String),
    Bytes(Vec<u8>),
}

impl Value {
    fn size(&self) -> usize {
        match self {
            Value::Text(s) => s.len(),
            Value::Bytes(b) => b.len(),
            _ => 8,
        }
    }

    /// Feeds the value to a row's hash, unambiguously (a tag, then a length where needed).
    fn hash_into(&self, h: &mut sha2::Sha256) {
        match self {
            Value::Null => h.update([0]),
            Value::Int(i) => {
                h.update([1]);
                h.update(i.to_le_bytes());
            }
            Value::Float(f) => {
                h.update([2]);
                h.update(f.to_bits().to_le_bytes());
            }
            Value::Text(s) => {
                h.update([3]);
                h.update((s.len() as u64).to_le_bytes());
                h.update(s.as_bytes());
            }
            Value::Bytes(b) => {
                h.update([4]);
                h.update((b.len() as u64).to_le_bytes());
                h.update(b);
            }
        }
    }
}

/// An order-free checksum of a table's rows: the sum, modulo 2²⁵⁶, of each row's SHA-256 (rows
/// are unique by their keys, and the engines need not sort text alike).
#[derive(Default)]
struct Checksum {
    sum: [u64; 4],
    rows: i64,
}

impl Checksum {
    fn add(&mut self, row: &[Value]) {
        let mut h = sha2::Sha256::new();
        for v in row {
            v.hash_into(&mut h);
        }
        let digest = h.finalize();
        let mut carry = 0u128;
        for (lane, chunk) in self.sum.iter_mut().zip(digest.chunks_exact(8)) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            let total = u128::from(*lane) + u128::from(word) + carry;
            *lane = total as u64;
            carry = total >> 64;
        }
        self.rows += 1;
    }

    fn hex(&self) -> String {
        self.sum.iter().rev().map(|w| format!("{w:016x}")).collect()
    }
}

/// The columns of `table` in the PostgreSQL schema, in order, with their kinds.
async fn columns(pg: &mut sqlx::PgConnection, table: &str) -> anyhow::Result<Vec<(String, Kind)>> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT column_name::text, data_type::text FROM information_schema.columns \
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
    )
    .bind(table)
    .fetch_all(&mut *pg)
    .await?;
    if rows.is_empty() {
        bail!("the PostgreSQL schema has no table {table}");
    }
    rows.into_iter()
        .map(|(name, ty)| {
            let kind = match ty.as_str() {
                "bigint" => Kind::Int,
                "double precision" => Kind::Float,
                "text" => Kind::Text,
                "bytea" => Kind::Bytes,
                other => bail!("{table}.{name} is a {other}, which migrate-db does not copy"),
            };
            Ok((name, kind))
        })
        .collect()
}

fn select(table: &str, cols: &[(String, Kind)]) -> String {
    let list: Vec<&str> = cols.iter().map(|(c, _)| c.as_str()).collect();
    format!("SELECT {} FROM {table}", list.join(", "))
}

/// Column `i` of a row of either engine, read as `kind`.
fn read_value<'r, R>(row: &'r R, i: usize, kind: Kind) -> anyhow::Result<Value>
where
    R: Row,
    usize: sqlx::ColumnIndex<R>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<f64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<Vec<u8>>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(match kind {
        Kind::Int => row
            .try_get::<Option<i64>, _>(i)?
            .map_or(Value::Null, Value::Int),
        Kind::Float => row
            .try_get::<Option<f64>, _>(i)?
            .map_or(Value::Null, Value::Float),
        Kind::Text => row
            .try_get::<Option<String>, _>(i)?
            .map_or(Value::Null, Value::Text),
        Kind::Bytes => row
            .try_get::<Option<Vec<u8>>, _>(i)?
            .map_or(Value::Null, Value::Bytes),
    })
}

/// Inserts `rows` into `table` in one statement.
async fn insert(
    tx: &mut sqlx::PgConnection,
    table: &str,
    cols: &[(String, Kind)],
    rows: &[Vec<Value>],
) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let list: Vec<&str> = cols.iter().map(|(c, _)| c.as_str()).collect();
    let mut q =
        sqlx::QueryBuilder::<Postgres>::new(format!("INSERT INTO {table} ({}) ", list.join(", ")));
    q.push_values(rows, |mut b, row| {
        for (v, (_, kind)) in row.iter().zip(cols) {
            match (v, kind) {
                (Value::Null, Kind::Int) => b.push_bind(None::<i64>),
                (Value::Null, Kind::Float) => b.push_bind(None::<f64>),
                (Value::Null, Kind::Text) => b.push_bind(None::<String>),
                (Value::Null, Kind::Bytes) => b.push_bind(None::<Vec<u8>>),
                (Value::Int(i), _) => b.push_bind(*i),
                (Value::Float(f), _) => b.push_bind(*f),
                (Value::Text(s), _) => b.push_bind(s.clone()),
                (Value::Bytes(x), _) => b.push_bind(x.clone()),
            };
        }
    });
    q.build()
        .execute(&mut *tx)
        .await
        .with_context(|| format!("cannot insert into {table}"))?;
    Ok(())
}

/// Copies the SQLite store at `from` into the PostgreSQL database at `to` (migrated first),
/// which must hold no data. Everything is copied in one PostgreSQL transaction from one
/// SQLite snapshot, then every table's rows and checksum are compared; any difference is an
/// error. `progress` hears each table as it is done.
pub async fn sqlite_to_postgres(
    from: &Path,
    to: &str,
    progress: impl Fn(&Copied),
) -> anyhow::Result<Vec<Copied>> {
    // Opening the store brings the file to the current schema (and its packed trends).
    let store = super::Store::open(from)
        .await
        .with_context(|| format!("cannot open {}", from.display()))?;
    store.close().await;
    let options = super::Connect {
        busy_timeout: std::time::Duration::from_secs(30),
        pool_size: 2,
        acquire_timeout: std::time::Duration::from_secs(30),
        wait: std::time::Duration::ZERO,
    };
    let pool = super::postgres::connect(to, &options).await?;
    let mut pg = pool.acquire().await?;
    for table in TABLES.iter().filter(|t| **t != "data_version") {
        let (n,): (i64,) =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
                .fetch_one(&mut *pg)
                .await?;
        if n > 0 {
            bail!("the PostgreSQL database is not empty ({table} has {n} rows): migrate-db copies into a new database only");
        }
    }
    let mut source = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(from)
        .read_only(true)
        .connect()
        .await
        .with_context(|| format!("cannot read {}", from.display()))?;
    // One snapshot of the source for the copy.
    let mut snapshot = source.begin().await?;
    // A table this copy does not know would be left behind: refuse instead.
    let names: Vec<(String,)> = sqlx::query_as(
        "SELECT name FROM sqlite_master WHERE type = 'table' \
         AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_sqlx%' ESCAPE '\\'",
    )
    .fetch_all(&mut *snapshot)
    .await?;
    if let Some((unknown,)) = names.iter().find(|(n,)| !TABLES.contains(&n.as_str())) {
        bail!("the SQLite store has a table migrate-db does not copy: {unknown}");
    }
    let mut tx = pg.begin().await?;
    let mut copied = Vec::new();
    for table in TABLES {
        let cols = columns(&mut tx, table).await?;
        // A summary may be fixed by a later one: its `fixed_by` is set once all are in.
        let fixed_by = cols
            .iter()
            .position(|(c, _)| *table == "alert_summary" && c == "fixed_by");
        let mut fixes: Vec<(i64, i64)> = Vec::new();
        let mut sum = Checksum::default();
        let mut batch: Vec<Vec<Value>> = Vec::new();
        let mut bytes = 0;
        // The copy's triggers bumped the data version: it becomes the source's.
        if *table == "data_version" {
            sqlx::query("DELETE FROM data_version")
                .execute(&mut *tx)
                .await?;
        }
        let sql = select(table, &cols);
        let mut rows = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch(&mut *snapshot);
        while let Some(row) = rows
            .try_next()
            .await
            .with_context(|| format!("cannot read {table}"))?
        {
            let mut values = cols
                .iter()
                .enumerate()
                .map(|(i, (_, kind))| read_value(&row, i, *kind))
                .collect::<anyhow::Result<Vec<Value>>>()
                .with_context(|| format!("a row of {table} does not read"))?;
            sum.add(&values);
            if let Some(i) = fixed_by {
                if let (Value::Int(id), Value::Int(by)) = (&values[0], &values[i]) {
                    fixes.push((*id, *by));
                    values[i] = Value::Null;
                }
            }
            bytes += values.iter().map(Value::size).sum::<usize>();
            batch.push(values);
            if (batch.len() + 1) * cols.len() > MAX_BINDS || bytes > MAX_BATCH_BYTES {
                insert(&mut tx, table, &cols, &batch).await?;
                batch.clear();
                bytes = 0;
            }
        }
        drop(rows);
        insert(&mut tx, table, &cols, &batch).await?;
        for (id, by) in fixes {
            sqlx::query("UPDATE alert_summary SET fixed_by = $1 WHERE id = $2")
                .bind(by)
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        // Identities continue after the copied ids.
        if cols
            .first()
            .is_some_and(|(c, k)| c == "id" && *k == Kind::Int)
            && *table != "data_version"
        {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM {table}"
            )))
            .execute(&mut *tx)
            .await
            .with_context(|| format!("cannot move the ids of {table} on"))?;
        }
        let done = Copied {
            table: (*table).to_owned(),
            rows: sum.rows,
            checksum: sum.hex(),
        };
        progress(&done);
        copied.push(done);
    }
    tx.commit().await?;
    snapshot.rollback().await?;
    source.close().await?;
    // Read back what PostgreSQL holds now and compare.
    for c in &copied {
        let cols = columns(&mut pg, &c.table).await?;
        let sql = select(&c.table, &cols);
        let mut rows = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch(&mut *pg);
        let mut sum = Checksum::default();
        while let Some(row) = rows.try_next().await? {
            let values = cols
                .iter()
                .enumerate()
                .map(|(i, (_, kind))| read_value(&row, i, *kind))
                .collect::<anyhow::Result<Vec<Value>>>()?;
            sum.add(&values);
        }
        if (sum.rows, sum.hex()) != (c.rows, c.checksum.clone()) {
            bail!(
                "{}: {} rows with checksum {} in SQLite, {} rows with checksum {} in PostgreSQL",
                c.table,
                c.rows,
                c.checksum,
                sum.rows,
                sum.hex()
            );
        }
    }
    // The pool closes once its connection is back.
    drop(pg);
    pool.close().await;
    Ok(copied)
}
