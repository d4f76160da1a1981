// SPDX-License-Identifier: GPL-3.0-or-later
//! The PostgreSQL engine against a real server: the throwaway cluster `scripts/test` starts
//! (`scripts/pg-cluster`, Debian's postgresql), named by `PERFLINE_TEST_PG`. Without it these
//! tests fail, never skip.

#[path = "outage.rs"]
mod outage;

use std::collections::BTreeSet;

use crate::helpers::fresh_postgres;
use perfline_server::store::postgres;
use sqlx::postgres::PgPool;

/// Every column of every table: (table, column, type, not null), the types in PostgreSQL's
/// words (SQLite's INTEGER is a BIGINT there, REAL a DOUBLE PRECISION, BLOB a BYTEA).
type Columns = BTreeSet<(String, String, String, bool)>;

async fn sqlite_columns() -> Columns {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    perfline_server::store::Store::open(&path).await.unwrap();
    let mut conn = crate::helpers::sqlx_connect(&path).await;
    let rows: Vec<(String, String, String, i64, i64)> = sqlx::query_as(
        "SELECT m.name, p.name, p.type, p.\"notnull\", p.pk FROM sqlite_master m \
         JOIN pragma_table_info(m.name) p WHERE m.type = 'table' \
         AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '\\_sqlx%' ESCAPE '\\'",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(table, column, ty, notnull, pk)| {
            let ty = match ty.as_str() {
                "INTEGER" => "bigint",
                "TEXT" => "text",
                "REAL" => "double precision",
                "BLOB" => "bytea",
                other => panic!("{table}.{column}: SQLite type {other} has no PostgreSQL twin"),
            };
            // A primary key column is NOT NULL in PostgreSQL (SQLite only says so for rowid keys).
            (table, column, ty.to_owned(), notnull == 1 || pk > 0)
        })
        .collect()
}

async fn postgres_columns(pool: &PgPool) -> Columns {
    let rows: Vec<(String, String, String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text \
         FROM information_schema.columns WHERE table_schema = 'public' \
         AND table_name NOT LIKE '\\_sqlx%'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(t, c, ty, nullable)| (t, c, ty, nullable == "NO"))
        .collect()
}

/// Several servers starting at once migrate one database once, and its schema has every table
/// and column of SQLite's, with the same types and the same NOT NULLs.
#[tokio::test(flavor = "multi_thread")]
async fn the_postgres_schema_is_sqlites() {
    let url = fresh_postgres().await;
    let two = pool_of(2);
    let starts =
        futures_util::future::join_all((0..4).map(|_| postgres::connect(&url, &two))).await;
    let pools: Vec<PgPool> = starts.into_iter().map(Result::unwrap).collect();
    let (applied,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM _sqlx_migrations")
        .fetch_one(&pools[0])
        .await
        .unwrap();
    let files = std::fs::read_dir(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../migrations/postgres"
    ))
    .unwrap()
    .count();
    assert_eq!(applied as usize, files, "each migration applied once");

    let sqlite = sqlite_columns().await;
    let pg = postgres_columns(&pools[0]).await;
    let only_sqlite: Vec<_> = sqlite.difference(&pg).collect();
    let only_pg: Vec<_> = pg.difference(&sqlite).collect();
    assert!(
        only_sqlite.is_empty() && only_pg.is_empty(),
        "only in SQLite: {only_sqlite:#?}\nonly in PostgreSQL: {only_pg:#?}"
    );
    assert!(sqlite.len() > 150, "{} columns compared", sqlite.len());
}

/// A statement that changes data bumps the data version in its own transaction, and every
/// listener hears the new version when (and only when) it commits; writes that change no
/// data leave it.
#[tokio::test(flavor = "multi_thread")]
async fn data_changes_bump_the_version_and_notify_at_commit() {
    let url = fresh_postgres().await;
    let pool = postgres::connect(&url, &pool_of(4)).await.unwrap();
    let mut listener = postgres::listen(&url).await.unwrap();
    let start = postgres::data_version(&pool).await.unwrap();

    let mut tx = pool.begin().await.unwrap();
    sqlx::query("INSERT INTO upload (digest, metadata) VALUES ('d1', '{}')")
        .execute(&mut *tx)
        .await
        .unwrap();
    let quiet = tokio::time::timeout(std::time::Duration::from_millis(300), listener.recv()).await;
    assert!(quiet.is_err(), "a notice before the commit: {quiet:?}");
    assert_eq!(
        postgres::data_version(&pool).await.unwrap(),
        start,
        "not visible before commit"
    );
    tx.commit().await.unwrap();
    let notice = tokio::time::timeout(std::time::Duration::from_secs(5), listener.recv())
        .await
        .expect("a notice at commit")
        .unwrap();
    assert_eq!(notice.channel(), postgres::DATA_VERSION_CHANNEL);
    assert_eq!(notice.payload(), (start + 1).to_string());
    assert_eq!(postgres::data_version(&pool).await.unwrap(), start + 1);

    // No data changed: no bump.
    for sql in [
        "INSERT INTO permalink (id, spec, digest) VALUES ('p1', '{}', 'x')",
        "INSERT INTO audit (actor, action, target) VALUES ('t', 'a', 'b')",
        "INSERT INTO api_token (name, hash, scopes) VALUES ('robot', 'h', 'upload')",
    ] {
        sqlx::query(sql).execute(&pool).await.unwrap();
    }
    assert_eq!(postgres::data_version(&pool).await.unwrap(), start + 1);
    // A rolled-back change is neither counted nor announced.
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("DELETE FROM upload")
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    assert_eq!(postgres::data_version(&pool).await.unwrap(), start + 1);
    let quiet = tokio::time::timeout(std::time::Duration::from_millis(300), listener.recv()).await;
    assert!(
        quiet.is_err(),
        "a notice of a rolled-back change: {quiet:?}"
    );
}

/// `perfline migrate-db` copies a SQLite store with everything in it into an empty PostgreSQL
/// database (ids, raw bytes, marks, permalinks, tokens, alerts, audit), checked table by table;
/// new rows there continue after the copied ids; a database with data is refused.
#[tokio::test(flavor = "multi_thread")]
async fn migrate_db_copies_everything_and_refuses_a_full_target() {
    use crate::helpers::*;
    let app = crate::trend::seeded().await;
    app.upload_work_log().await;
    let r = app
        .client
        .post(app.url("/api/v1/runs/2/mark"))
        .json(&serde_json::json!({ "mark": "bad" }))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let (status, compare) = app
        .get_json(
            "/api/v1/compare?benchmark=netperf-tcp&machine=m1&kernels=5.4.0-vanilla,5.5.0-vanilla",
        )
        .await;
    assert_eq!(status, 200, "{compare}");
    let permalink = compare["permalink"].as_str().unwrap().to_owned();
    token(&app, "robot", "upload").await;
    // The robot's report mails too (issue 56): their sections, metric names and index.
    let mail = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/lkp-mails/18-20250310-netperf-regression-01d37228d3.eml"),
    )
    .unwrap();
    let r = app.upload_raw("", mail).await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let db = app.db_path();
    let mut sqlite = sqlx_connect(&db).await;
    // Let the alert detector finish its queue, so that nothing writes while the counts are taken.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (jobs,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM alert_job")
            .fetch_one(&mut sqlite)
            .await
            .unwrap();
        if jobs == 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{jobs} alert jobs left"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let count = |table: &'static str| format!("SELECT COUNT(*) FROM {table}");
    let tables = [
        "machine",
        "kernel",
        "upload",
        "upload_file",
        "run",
        "metric_key",
        "run_data",
        "permalink",
        "history",
        "history_commit",
        "trend_block",
        "trend_cell",
        "api_token",
        "audit",
        "alert_job",
        "alert_summary",
        "work_request",
        "lkp_report",
        "lkp_metric",
        "lkp_report_metric",
    ];
    let mut before = Vec::new();
    for t in tables {
        let (n,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(count(t)))
            .fetch_one(&mut sqlite)
            .await
            .unwrap();
        before.push((t, n));
    }
    let raw: Vec<(i64, i64, Vec<u8>)> =
        sqlx::query_as("SELECT upload_id, idx, raw FROM upload_file ORDER BY upload_id, idx")
            .fetch_all(&mut sqlite)
            .await
            .unwrap();
    drop(sqlite);
    // The server stays up (its temporary directory holds the file); nothing writes meanwhile.
    for (t, n) in &before {
        if [
            "machine",
            "upload",
            "run",
            "metric_key",
            "run_data",
            "permalink",
            "history",
            "api_token",
            "audit",
            "lkp_report",
            "lkp_metric",
            "lkp_report_metric",
        ]
        .contains(t)
        {
            assert!(*n > 0, "the source has no {t}");
        }
    }

    let url = fresh_postgres().await;
    let migrate = |url: String| {
        let db = db.clone();
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_perfline"))
                .args(["migrate-db", "--from"])
                .arg(&db)
                .args(["--to", &url])
                .output()
                .expect("perfline runs")
        })
    };
    let out = migrate(url.clone()).await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("every count and checksum equal"),
        "{stderr}"
    );

    let pg = PgPool::connect(&url).await.unwrap();
    for (t, n) in &before {
        let (m,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(count(t)))
            .fetch_one(&pg)
            .await
            .unwrap();
        assert_eq!(m, *n, "rows of {t}");
    }
    let copied: Vec<(i64, i64, Vec<u8>)> =
        sqlx::query_as("SELECT upload_id, idx, raw FROM upload_file ORDER BY upload_id, idx")
            .fetch_all(&pg)
            .await
            .unwrap();
    assert_eq!(copied, raw, "the raw bytes of every file");
    let (mark,): (Option<String>,) = sqlx::query_as("SELECT mark FROM run WHERE id = 2")
        .fetch_one(&pg)
        .await
        .unwrap();
    assert_eq!(mark.as_deref(), Some("bad"));
    let (spec,): (String,) = sqlx::query_as("SELECT spec FROM permalink WHERE id = $1")
        .bind(&permalink)
        .fetch_one(&pg)
        .await
        .unwrap();
    assert!(spec.contains("5.5.0-vanilla"), "{spec}");
    // New rows continue after the copied ids.
    let (max,): (i64,) = sqlx::query_as("SELECT MAX(id) FROM machine")
        .fetch_one(&pg)
        .await
        .unwrap();
    let (id,): (i64,) =
        sqlx::query_as("INSERT INTO machine (name) VALUES ('new-box') RETURNING id")
            .fetch_one(&pg)
            .await
            .unwrap();
    assert_eq!(id, max + 1);

    // A Perfline serving the copy answers every permalink with the same numbers, in every
    // shape, as the one serving the file.
    let ids: Vec<(String,)> = sqlx::query_as("SELECT id FROM permalink ORDER BY id")
        .fetch_all(&pg)
        .await
        .unwrap();
    assert!(ids.iter().any(|(id,)| permalink.ends_with(id.as_str())));
    let served = spawn_app_with(|c| {
        c.db = perfline_server::config::Database::Postgres(url.clone());
    })
    .await;
    for (id,) in &ids {
        for shape in [
            "format=text",
            "format=text&style=lkp",
            "format=json",
            "format=csv",
        ] {
            let path = format!("/c/{id}?{shape}");
            let (was, old) = app.get_text(&path).await;
            let (is, new) = served.get_text(&path).await;
            assert_eq!((was, is), (200, 200), "{path}: {old} {new}");
            assert_eq!(
                old.replace(&app.base, "HOST"),
                new.replace(&served.base, "HOST"),
                "{path}"
            );
        }
    }
    served.stop().await;

    // Now it holds data: a second copy is refused, and changes nothing.
    let out = migrate(url).await.unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not empty"), "{stderr}");
    let (runs,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM run")
        .fetch_one(&pg)
        .await
        .unwrap();
    assert_eq!(runs, before.iter().find(|(t, _)| *t == "run").unwrap().1);
    app.stop().await;
}

/// Connection options with a pool of `n`.
fn pool_of(n: u32) -> perfline_server::store::Connect {
    perfline_server::store::Connect {
        pool_size: n,
        ..Default::default()
    }
}

/// Every run a server stores, as `GET /api/v1/runs/{id}` answers it, without the time it was
/// stored (which differs by nature).
async fn every_run(app: &crate::helpers::TestApp) -> Vec<serde_json::Value> {
    let (status, runs) = app.get_json("/api/v1/runs?limit=1000").await;
    assert_eq!(status, 200);
    let mut out = Vec::new();
    for run in runs["runs"].as_array().unwrap() {
        let (status, mut detail) = app.get_json(&format!("/api/v1/runs/{}", run["id"])).await;
        assert_eq!(status, 200);
        detail["run"]["created_at"] = serde_json::Value::Null;
        out.push(detail);
    }
    out
}

/// The upload's two write paths store the same rows: SQLite's row by row, PostgreSQL's with
/// `UNNEST` of bound arrays. The same uploads (a generic sweep and a multi-kernel JSON, raw LKP
/// logs, netperf output, an mmtests `work/log` tree) through a server on each engine read back
/// identically, run by run, series by series, sample by sample.
#[tokio::test(flavor = "multi_thread")]
async fn both_write_paths_store_the_same_rows() {
    use crate::helpers::spawn_app_with;
    let url = fresh_postgres().await;
    let sqlite = spawn_app_with(|c| {
        c.db = perfline_server::config::Database::Sqlite(c.db.sqlite_path().unwrap().to_owned());
    })
    .await;
    let postgres =
        spawn_app_with(move |c| c.db = perfline_server::config::Database::Postgres(url)).await;
    let uploads = [
        ("machine=m1&kernel=6.1", "generic/netperf-sweep.csv"),
        ("machine=m1&benchmark=multi", "generic/multi-kernel.json"),
        (
            "machine=lkp-1&kernel=6.2&commit=a337531b94",
            "lkp-raw/netperf-udp-recv.log",
        ),
        (
            "machine=lkp-1&kernel=6.2&commit=a337531b94",
            "lkp-raw/hackbench.log",
        ),
        ("machine=m2&kernel=6.3", "netperf/tcp_stream-m1024.txt"),
    ];
    for app in [&sqlite, &postgres] {
        for (query, name) in uploads {
            app.upload_fixture(query, name).await;
        }
        app.upload_work_log().await;
    }
    let (a, b) = (every_run(&sqlite).await, every_run(&postgres).await);
    assert!(a.len() >= 10, "{} runs", a.len());
    assert_eq!(a.len(), b.len(), "the same number of runs");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "run {} differs between the engines", x["run"]["id"]);
    }
}
