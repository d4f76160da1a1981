// SPDX-License-Identifier: GPL-3.0-or-later
//! The engine boundary: one way to run a query on SQLite or PostgreSQL.
//!
//! The store's queries are written once, in the SQL both engines share, with `?` placeholders
//! and a few tokens for what they spell differently (`{now_ms}`, `{ids}`, ...; see
//! [`translate`]). Each is a static [`Sql`] made by [`sql!`](crate::store::sql::sql) at its call
//! site and resolved for an engine the first time it runs there (`?` stays `?` for SQLite and
//! becomes `$1`, `$2`, ... for PostgreSQL), so what reaches sqlx is a `&'static str`, as its
//! static-SQL guard wants: only a [`Builder`] (filters, `IN` lists, multi-row `VALUES`) puts
//! SQL together at run time. A query is bound with the store's own [`Arg`] values and run on a
//! [`Pool`] or a [`Tx`]. Rows decode into tuples (`query_as`) or a [`Row`] read by column.
//! This is not sqlx's `Any` driver: each engine keeps its own types, pool, transactions
//! (`BEGIN IMMEDIATE` on SQLite's single writer; an advisory lock on PostgreSQL) and what only
//! it has (PostgreSQL's `COPY`, `LISTEN`, arrays), reached through [`Pool::engine`].

use std::borrow::Cow;
use std::sync::OnceLock;

use sqlx::postgres::{PgConnection, PgPool, PgRow};
use sqlx::sqlite::{SqliteConnection, SqlitePool, SqliteRow};
use sqlx::{Postgres, Sqlite, Transaction};

use super::StoreResult;

/// Which engine a pool or transaction speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// The advisory lock every PostgreSQL write transaction takes first: writes are serialised
/// across all servers sharing the database, as SQLite's one writer serialises them on a file.
/// (A number of our own; `pg_advisory_xact_lock` releases it at commit or rollback.)
pub const WRITE_LOCK: i64 = 0x7065_7266_6c69_6e65; // "perfline"

/// A pool of connections of either engine.
#[derive(Clone, Debug)]
pub enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl Pool {
    pub fn engine(&self) -> Engine {
        match self {
            Pool::Sqlite(_) => Engine::Sqlite,
            Pool::Postgres(_) => Engine::Postgres,
        }
    }

    /// A write transaction: SQLite's `BEGIN IMMEDIATE` (the file's write lock at once), or a
    /// PostgreSQL transaction holding [`WRITE_LOCK`]. Its caller is remembered: a transaction
    /// that holds the lock longer than [`SLOW_WRITE`] is logged with where it began.
    #[track_caller]
    pub fn begin_write(&self) -> impl std::future::Future<Output = StoreResult<Tx>> + '_ {
        let at = std::panic::Location::caller();
        async move {
            let inner = match self {
                Pool::Sqlite(p) => TxInner::Sqlite(p.begin_with("BEGIN IMMEDIATE").await?),
                Pool::Postgres(p) => {
                    let mut tx = p.begin().await?;
                    sqlx::query("SELECT pg_advisory_xact_lock($1)")
                        .bind(WRITE_LOCK)
                        .execute(&mut *tx)
                        .await?;
                    TxInner::Postgres(tx)
                }
            };
            Ok(Tx {
                inner,
                write: Some((std::time::Instant::now(), at)),
            })
        }
    }

    /// A read transaction: one consistent snapshot for all its statements.
    pub async fn begin_read(&self) -> StoreResult<Tx> {
        Ok(match self {
            Pool::Sqlite(p) => Tx {
                inner: TxInner::Sqlite(p.begin().await?),
                write: None,
            },
            Pool::Postgres(p) => Tx {
                inner: TxInner::Postgres(
                    p.begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                        .await?,
                ),
                write: None,
            },
        })
    }

    pub fn is_closed(&self) -> bool {
        match self {
            Pool::Sqlite(p) => p.is_closed(),
            Pool::Postgres(p) => p.is_closed(),
        }
    }

    pub async fn close(&self) {
        match self {
            Pool::Sqlite(p) => p.close().await,
            Pool::Postgres(p) => p.close().await,
        }
    }
}

/// A write transaction holding the lock longer than this is logged (`warn`), with the line
/// that began it: every other writer waited that long.
pub const SLOW_WRITE: std::time::Duration = std::time::Duration::from_millis(250);

/// A transaction of either engine.
pub struct Tx {
    inner: TxInner,
    /// A write transaction's start and the line that began it.
    write: Option<(std::time::Instant, &'static std::panic::Location<'static>)>,
}

enum TxInner {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

impl Tx {
    pub async fn commit(self) -> StoreResult<()> {
        let write = self.write;
        match self.inner {
            TxInner::Sqlite(t) => t.commit().await?,
            TxInner::Postgres(t) => t.commit().await?,
        }
        held(write, "committed");
        Ok(())
    }

    pub async fn rollback(self) -> StoreResult<()> {
        let write = self.write;
        match self.inner {
            TxInner::Sqlite(t) => t.rollback().await?,
            TxInner::Postgres(t) => t.rollback().await?,
        }
        held(write, "rolled back");
        Ok(())
    }

    /// The PostgreSQL connection, for what only it has (`COPY`); `None` on SQLite.
    pub fn postgres(&mut self) -> Option<&mut PgConnection> {
        match &mut self.inner {
            TxInner::Postgres(t) => Some(&mut **t),
            TxInner::Sqlite(_) => None,
        }
    }
}

/// Logs a write transaction that held the lock longer than [`SLOW_WRITE`].
fn held(write: Option<(std::time::Instant, &'static std::panic::Location<'static>)>, how: &str) {
    if let Some((since, at)) = write {
        let took = since.elapsed();
        if took > SLOW_WRITE {
            tracing::warn!(
                ms = took.as_millis() as u64,
                began = %at,
                "a write transaction held the write lock for {} ms ({how})",
                took.as_millis()
            );
        }
    }
}

/// Where a query runs: a pool (any free connection) or one connection (a transaction's).
pub enum Target<'a> {
    SqlitePool(&'a SqlitePool),
    PostgresPool(&'a PgPool),
    Sqlite(&'a mut SqliteConnection),
    Postgres(&'a mut PgConnection),
}

impl Target<'_> {
    /// The same target for one more query.
    pub fn reborrow(&mut self) -> Target<'_> {
        match self {
            Target::SqlitePool(p) => Target::SqlitePool(p),
            Target::PostgresPool(p) => Target::PostgresPool(p),
            Target::Sqlite(c) => Target::Sqlite(c),
            Target::Postgres(c) => Target::Postgres(c),
        }
    }

    pub fn engine(&self) -> Engine {
        match self {
            Target::SqlitePool(_) | Target::Sqlite(_) => Engine::Sqlite,
            Target::PostgresPool(_) | Target::Postgres(_) => Engine::Postgres,
        }
    }
}

impl<'a> From<&'a Pool> for Target<'a> {
    fn from(p: &'a Pool) -> Self {
        match p {
            Pool::Sqlite(p) => Target::SqlitePool(p),
            Pool::Postgres(p) => Target::PostgresPool(p),
        }
    }
}

impl<'a> From<&'a mut Tx> for Target<'a> {
    fn from(t: &'a mut Tx) -> Self {
        match &mut t.inner {
            TxInner::Sqlite(t) => Target::Sqlite(t),
            TxInner::Postgres(t) => Target::Postgres(t),
        }
    }
}

impl<'a> From<&'a mut SqliteConnection> for Target<'a> {
    fn from(c: &'a mut SqliteConnection) -> Self {
        Target::Sqlite(c)
    }
}

impl<'a> From<&'a mut PgConnection> for Target<'a> {
    fn from(c: &'a mut PgConnection) -> Self {
        Target::Postgres(c)
    }
}

/// A bound value. Flags are integers (0/1) on both engines, as the schemas store them.
#[derive(Debug, Clone)]
pub enum Arg<'q> {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<Cow<'q, str>>),
    Blob(Option<Cow<'q, [u8]>>),
}

/// What can be bound to a query.
pub trait Bind<'q> {
    fn arg(self) -> Arg<'q>;
}

macro_rules! bind_as {
    ($($t:ty => |$v:ident| $e:expr;)*) => {
        $(impl<'q> Bind<'q> for $t {
            fn arg(self) -> Arg<'q> {
                let $v = self;
                $e
            }
        })*
    };
}

bind_as! {
    Arg<'q> => |v| v;
    i64 => |v| Arg::Int(Some(v));
    &'q i64 => |v| Arg::Int(Some(*v));
    Option<i64> => |v| Arg::Int(v);
    u32 => |v| Arg::Int(Some(i64::from(v)));
    Option<u32> => |v| Arg::Int(v.map(i64::from));
    bool => |v| Arg::Int(Some(i64::from(v)));
    f64 => |v| Arg::Real(Some(v));
    Option<f64> => |v| Arg::Real(v);
    &'q str => |v| Arg::Text(Some(Cow::Borrowed(v)));
    &'q String => |v| Arg::Text(Some(Cow::Borrowed(v.as_str())));
    String => |v| Arg::Text(Some(Cow::Owned(v)));
    Option<&'q str> => |v| Arg::Text(v.map(Cow::Borrowed));
    Option<String> => |v| Arg::Text(v.map(Cow::Owned));
    &'q Option<String> => |v| Arg::Text(v.as_deref().map(Cow::Borrowed));
    &'q [u8] => |v| Arg::Blob(Some(Cow::Borrowed(v)));
    &'q Vec<u8> => |v| Arg::Blob(Some(Cow::Borrowed(v.as_slice())));
    Vec<u8> => |v| Arg::Blob(Some(Cow::Owned(v)));
    Option<Vec<u8>> => |v| Arg::Blob(v.map(Cow::Owned));
    // The validated names, bound as the text they are.
    app::label::Label => |v| Arg::Text(Some(Cow::Owned(v.into())));
    &'q app::label::Label => |v| Arg::Text(Some(Cow::Borrowed(v.as_str())));
    app::label::Param => |v| Arg::Text(Some(Cow::Owned(v.into())));
    &'q app::label::Metric => |v| Arg::Text(Some(Cow::Borrowed(v.as_str())));
    app::label::Metric => |v| Arg::Text(Some(Cow::Owned(v.into())));
    &'q app::label::Param => |v| Arg::Text(Some(Cow::Borrowed(v.as_str())));
}

/// What a write changed.
pub struct Done(u64);

impl Done {
    pub fn rows_affected(&self) -> u64 {
        self.0
    }
}

/// A row of either engine, read by column index or name.
pub enum Row {
    Sqlite(SqliteRow),
    Postgres(PgRow),
}

impl Row {
    /// The value of a column; panics on a type mismatch, as `sqlx::Row::get` does (the
    /// store's columns and the schemas are tested together on both engines).
    pub fn get<'r, T, I>(&'r self, index: I) -> T
    where
        T: sqlx::Decode<'r, Sqlite>
            + sqlx::Type<Sqlite>
            + sqlx::Decode<'r, Postgres>
            + sqlx::Type<Postgres>,
        I: sqlx::ColumnIndex<SqliteRow> + sqlx::ColumnIndex<PgRow>,
    {
        use sqlx::Row as _;
        match self {
            Row::Sqlite(r) => r.get(index),
            Row::Postgres(r) => r.get(index),
        }
    }
}

/// The tuples and rows a query can decode into on both engines.
pub trait FromRows:
    for<'r> sqlx::FromRow<'r, SqliteRow> + for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin
{
}

impl<T> FromRows for T where
    T: for<'r> sqlx::FromRow<'r, SqliteRow> + for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin
{
}

/// A statement in the shared SQL, written once at its call site with [`sql!`] and spelled for
/// each engine the first time it runs there.
pub struct Sql {
    sqlite_text: &'static str,
    postgres_text: &'static str,
    sqlite: OnceLock<String>,
    postgres: OnceLock<String>,
}

impl Sql {
    /// One statement for both engines.
    pub const fn new(text: &'static str) -> Sql {
        Sql::each(text, text)
    }

    /// A statement each engine spells its own way (still with `?` placeholders and tokens).
    pub const fn each(sqlite: &'static str, postgres: &'static str) -> Sql {
        Sql {
            sqlite_text: sqlite,
            postgres_text: postgres,
            sqlite: OnceLock::new(),
            postgres: OnceLock::new(),
        }
    }

    /// The statement as `engine` takes it.
    pub fn on(&'static self, engine: Engine) -> &'static str {
        let (cell, text) = match engine {
            Engine::Sqlite => (&self.sqlite, self.sqlite_text),
            Engine::Postgres => (&self.postgres, self.postgres_text),
        };
        cell.get_or_init(|| translate(engine, text).into_owned())
    }
}

/// A static [`Sql`] of string literals (or macros that expand to them), concatenated.
macro_rules! sql {
    ($($text:expr),+ $(,)?) => {{
        static SQL: $crate::store::sql::Sql = $crate::store::sql::Sql::new(concat!($($text),+));
        &SQL
    }};
}
pub(crate) use sql;

/// A static [`Sql`] each engine spells its own way: `sql_each!(sqlite: "...", postgres: "...")`.
macro_rules! sql_each {
    (sqlite: $sqlite:expr, postgres: $postgres:expr $(,)?) => {{
        static SQL: $crate::store::sql::Sql = $crate::store::sql::Sql::each($sqlite, $postgres);
        &SQL
    }};
}
pub(crate) use sql_each;

/// What a query runs: a static statement, or one a [`Builder`] put together.
enum Statement {
    Static(&'static Sql),
    Built(String),
}

impl Statement {
    fn on(&self, engine: Engine) -> sqlx::SqlStr {
        use sqlx::SqlSafeStr as _;
        match self {
            Statement::Static(sql) => sql.on(engine).into_sql_str(),
            Statement::Built(text) => {
                sqlx::AssertSqlSafe(translate(engine, text).into_owned()).into_sql_str()
            }
        }
    }
}

/// A query with its bound values, not yet given its engine.
pub struct Query<'q> {
    sql: Statement,
    args: Vec<Arg<'q>>,
}

/// A query whose rows decode into `T`.
pub struct QueryAs<'q, T> {
    inner: Query<'q>,
    _row: std::marker::PhantomData<fn() -> T>,
}

pub fn query<'q>(sql: &'static Sql) -> Query<'q> {
    Query {
        sql: Statement::Static(sql),
        args: Vec::new(),
    }
}

pub fn query_as<'q, T: FromRows>(sql: &'static Sql) -> QueryAs<'q, T> {
    QueryAs {
        inner: query(sql),
        _row: std::marker::PhantomData,
    }
}

/// Binds each of `args` to a sqlx query of either kind (`Query` or `QueryAs`).
macro_rules! bind_all {
    ($q:expr, $args:expr) => {{
        let mut q = $q;
        for a in $args {
            q = match a {
                Arg::Int(v) => q.bind(v),
                Arg::Real(v) => q.bind(v),
                Arg::Text(v) => q.bind(v.map(Cow::into_owned)),
                Arg::Blob(Some(Cow::Borrowed(b))) => q.bind(b),
                Arg::Blob(v) => q.bind(v.map(Cow::into_owned)),
            };
        }
        q
    }};
}

/// Runs the sqlx method `$method` (`execute`, `fetch_all`, `fetch_optional`) of the query that
/// `sqlx::$make` (`query` or `query_as` with the row type `$t`) builds of `$sql` and `$args` for
/// `$target`'s engine, and hands its result to `$sqlite` or `$postgres`.
macro_rules! run {
    ($target:ident, $sql:expr, $args:expr, $make:ident $(<$t:ty>)?, $method:ident, $sqlite:expr, $postgres:expr) => {{
        let sql = $sql.on($target.engine());
        match $target {
            Target::SqlitePool(p) => $sqlite(
                bind_all!(sqlx::$make::<Sqlite $(, $t)?>(sql), $args).$method(p).await?,
            ),
            Target::Sqlite(c) => $sqlite(
                bind_all!(sqlx::$make::<Sqlite $(, $t)?>(sql), $args).$method(c).await?,
            ),
            Target::PostgresPool(p) => $postgres(
                bind_all!(sqlx::$make::<Postgres $(, $t)?>(sql), $args).$method(p).await?,
            ),
            Target::Postgres(c) => $postgres(
                bind_all!(sqlx::$make::<Postgres $(, $t)?>(sql), $args).$method(c).await?,
            ),
        }
    }};
}

impl<'q> Query<'q> {
    pub fn bind(mut self, value: impl Bind<'q>) -> Self {
        self.args.push(value.arg());
        self
    }

    pub async fn execute<'e>(self, target: impl Into<Target<'e>>) -> StoreResult<Done> {
        let target = target.into();
        Ok(Done(run!(
            target,
            self.sql,
            self.args,
            query,
            execute,
            |r: sqlx::sqlite::SqliteQueryResult| r.rows_affected(),
            |r: sqlx::postgres::PgQueryResult| r.rows_affected()
        )))
    }

    pub async fn fetch_all<'e>(self, target: impl Into<Target<'e>>) -> StoreResult<Vec<Row>> {
        let target = target.into();
        Ok(run!(
            target,
            self.sql,
            self.args,
            query,
            fetch_all,
            |rows: Vec<SqliteRow>| rows.into_iter().map(Row::Sqlite).collect(),
            |rows: Vec<PgRow>| rows.into_iter().map(Row::Postgres).collect()
        ))
    }

    pub async fn fetch_optional<'e>(
        self,
        target: impl Into<Target<'e>>,
    ) -> StoreResult<Option<Row>> {
        let target = target.into();
        Ok(run!(
            target,
            self.sql,
            self.args,
            query,
            fetch_optional,
            |row: Option<SqliteRow>| row.map(Row::Sqlite),
            |row: Option<PgRow>| row.map(Row::Postgres)
        ))
    }
}

impl<'q, T: FromRows> QueryAs<'q, T> {
    pub fn bind(mut self, value: impl Bind<'q>) -> Self {
        self.inner.args.push(value.arg());
        self
    }

    pub async fn fetch_all<'e>(self, target: impl Into<Target<'e>>) -> StoreResult<Vec<T>> {
        let target = target.into();
        Ok(run!(
            target,
            self.inner.sql,
            self.inner.args,
            query_as<T>,
            fetch_all,
            std::convert::identity,
            std::convert::identity
        ))
    }

    pub async fn fetch_optional<'e>(self, target: impl Into<Target<'e>>) -> StoreResult<Option<T>> {
        let target = target.into();
        Ok(run!(
            target,
            self.inner.sql,
            self.inner.args,
            query_as<T>,
            fetch_optional,
            std::convert::identity,
            std::convert::identity
        ))
    }

    pub async fn fetch_one<'e>(self, target: impl Into<Target<'e>>) -> StoreResult<T> {
        self.fetch_optional(target)
            .await?
            .ok_or_else(|| sqlx::Error::RowNotFound.into())
    }
}

/// A query put together piece by piece (filters, `IN` lists, multi-row `VALUES`).
pub struct Builder<'q> {
    query: Query<'q>,
}

impl<'q> Builder<'q> {
    pub fn new(sql: &str) -> Self {
        Builder {
            query: Query {
                sql: Statement::Built(sql.to_owned()),
                args: Vec::new(),
            },
        }
    }

    fn text(&mut self) -> &mut String {
        match &mut self.query.sql {
            Statement::Built(text) => text,
            Statement::Static(_) => unreachable!("a builder's statement is built"),
        }
    }

    pub fn push(&mut self, sql: &str) -> &mut Self {
        self.text().push_str(sql);
        self
    }

    /// Appends a placeholder bound to `value`.
    pub fn push_bind(&mut self, value: impl Bind<'q>) -> &mut Self {
        self.text().push('?');
        self.query.args.push(value.arg());
        self
    }

    /// Binds `value` to the placeholder a token pushed before (`{ids}`, `{texts}`).
    pub fn push_arg(&mut self, value: impl Bind<'q>) -> &mut Self {
        self.query.args.push(value.arg());
        self
    }

    /// Appends `(?, ?, ...)`, one placeholder per value.
    pub fn push_list<B: Bind<'q>>(&mut self, values: impl IntoIterator<Item = B>) -> &mut Self {
        self.push("(");
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.push_bind(v);
        }
        self.push(")")
    }

    pub fn build(self) -> Query<'q> {
        self.query
    }

    pub fn build_query_as<T: FromRows>(self) -> QueryAs<'q, T> {
        QueryAs {
            inner: self.query,
            _row: std::marker::PhantomData,
        }
    }
}

/// What the tokens of the shared SQL stand for on each engine: `(token, SQLite, PostgreSQL)`.
/// Times are ISO-8601 text in UTC on both, as the schemas' defaults write them.
const TOKENS: &[(&str, &str, &str)] = &[
    (
        "{now_ms}",
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
        "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')",
    ),
    (
        "{now_s}",
        "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
        "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
    ),
    // The time a bound number of days from now.
    (
        "{now_s_plus_days}",
        "strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+' || ? || ' days')",
        "to_char((now() + make_interval(days => CAST(? AS INTEGER))) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
    ),
    // Milliseconds since the time in the column `created_at`.
    (
        "{age_ms}",
        "CAST((julianday('now') - julianday(created_at)) * 86400000 AS INTEGER)",
        "CAST(EXTRACT(EPOCH FROM (now() - CAST(created_at AS TIMESTAMPTZ))) * 1000 AS BIGINT)",
    ),
    // The integers of a bound JSON array, as a subquery (one value, however many ids).
    (
        "{ids}",
        "(SELECT value FROM json_each(?))",
        "(SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(? AS JSON)))",
    ),
    // The strings of a bound JSON array, as a subquery.
    (
        "{texts}",
        "(SELECT value FROM json_each(?))",
        "(SELECT value FROM json_array_elements_text(CAST(? AS JSON)))",
    ),
    ("{greatest}", "max", "GREATEST"),
    // Text in byte order (SQLite's own), whatever the PostgreSQL database's collation.
    ("{bytes}", "", " COLLATE \"C\""),
];

/// The SQL `sql` is on `engine`: tokens spelled out; for PostgreSQL, `?` placeholders
/// numbered `$1`, `$2`, ... (never inside quotes).
pub fn translate(engine: Engine, sql: &str) -> Cow<'_, str> {
    let mut sql = Cow::Borrowed(sql);
    if sql.contains('{') {
        let mut out = sql.into_owned();
        for (token, sqlite, postgres) in TOKENS {
            if out.contains(token) {
                let with = if engine == Engine::Sqlite {
                    sqlite
                } else {
                    postgres
                };
                out = out.replace(token, with);
            }
        }
        sql = Cow::Owned(out);
    }
    if engine == Engine::Sqlite || !sql.contains('?') {
        return sql;
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                out.push(c);
            }
            (Some(_), c) => out.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '?') => {
                // `?NNN` keeps its number; a bare `?` takes the next one.
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                if digits.is_empty() {
                    n += 1;
                    out.push('$');
                    out.push_str(&n.to_string());
                } else {
                    out.push('$');
                    out.push_str(&digits);
                }
            }
            (None, c) => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(sql: &str, sqlite: &str, postgres: &str) {
        assert_eq!(translate(Engine::Sqlite, sql), sqlite);
        assert_eq!(translate(Engine::Postgres, sql), postgres);
    }

    #[test]
    fn placeholders_and_tokens_per_engine() {
        check(
            "SELECT a FROM t WHERE b = ? AND c = ?",
            "SELECT a FROM t WHERE b = ? AND c = ?",
            "SELECT a FROM t WHERE b = $1 AND c = $2",
        );
        check(
            "SELECT '?', \"a?\" FROM t WHERE x = ?2 OR y = ?1",
            "SELECT '?', \"a?\" FROM t WHERE x = ?2 OR y = ?1",
            "SELECT '?', \"a?\" FROM t WHERE x = $2 OR y = $1",
        );
        check(
            "DELETE FROM t WHERE id IN {ids} AND k = ?",
            "DELETE FROM t WHERE id IN (SELECT value FROM json_each(?)) AND k = ?",
            "DELETE FROM t WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST($1 AS JSON))) AND k = $2",
        );
        check(
            "UPDATE t SET at = {now_s}",
            "UPDATE t SET at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
            "UPDATE t SET at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
        );
    }
}
