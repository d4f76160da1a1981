// SPDX-License-Identifier: GPL-3.0-or-later
//! The real server on port 0 with a fresh database, and the data the benchmarks share.

use std::future::Future;
use std::time::Duration;

use perfline_server::config::Database;
use perfline_server::{serve, AppState, Config};

/// The kernels of the generated comparisons and archives (mmtests' naming).
#[allow(dead_code, reason = "not every benchmark uses it")]
pub const KERNELS: [&str; 5] = [
    "5.4.0-vanilla",
    "5.5.0-rc1-vanilla",
    "5.5.0-rc3-vanilla",
    "5.5.0-vanilla",
    "5.6.0-rc1-vanilla",
];

/// The multi-threaded runtime the benchmarks run the server and their clients on.
/// With `PERFLINE_BENCH_LOG` set (`perfline_server=debug`), the server's log goes to stderr:
/// every request's stages (parse, store, query, ...) with their times.
pub fn runtime() -> tokio::runtime::Runtime {
    if let Ok(filter) = std::env::var("PERFLINE_BENCH_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .try_init();
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Times `n` calls of `f`; returns the timings and the last call's result.
#[allow(dead_code, reason = "not every benchmark uses it")]
pub fn repeat<R>(n: usize, mut f: impl FnMut() -> R) -> (Vec<Duration>, R) {
    let mut times = Vec::with_capacity(n);
    let mut last = None;
    for _ in 0..n {
        // The previous result is freed first, outside the timing.
        drop(last.take());
        let t = std::time::Instant::now();
        let r = f();
        times.push(t.elapsed());
        last = Some(r);
    }
    (times, last.expect("n > 0"))
}

/// The databases a benchmark runs on: a fresh SQLite file, then, when `PERFLINE_BENCH_PG`
/// names a PostgreSQL server (`scripts/bench-postgres` starts one), a fresh database on it; each
/// with its name for the printed lines.
#[allow(dead_code, reason = "not every benchmark uses it")]
pub fn databases(rt: &tokio::runtime::Runtime) -> Vec<(&'static str, Database)> {
    let mut out = vec![("sqlite", Database::Sqlite(std::path::PathBuf::new()))];
    if let Ok(base) = std::env::var("PERFLINE_BENCH_PG") {
        out.push((
            "postgres",
            Database::Postgres(
                rt.block_on(perfline_server::store::postgres::create_database(
                    &base, "bench",
                ))
                .unwrap(),
            ),
        ));
    }
    out
}

/// Runs `body` with the base URL of a fresh server on `db` (a SQLite `Database` with an empty
/// path: a file in a new temporary directory), then stops the server.
#[allow(dead_code, reason = "not every benchmark uses it")]
pub fn with_server_on<F, Fut, T>(rt: &tokio::runtime::Runtime, db: &Database, body: F) -> T
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = T>,
{
    let db = db.clone();
    with_server_using(
        rt,
        move |c| {
            if let Database::Postgres(_) = db {
                c.db = db;
            }
        },
        |base, _| body(base),
    )
}

/// Runs `body` with the base URL of a fresh server, then stops the server.
#[allow(dead_code, reason = "not every benchmark uses it")]
pub fn with_server<F, Fut, T>(rt: &tokio::runtime::Runtime, body: F) -> T
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = T>,
{
    with_server_using(rt, |_| {}, |base, _| body(base))
}

/// Runs `body` with the base URL and the store of a fresh server configured by `configure`,
/// then stops the server.
pub fn with_server_using<F, Fut, T>(
    rt: &tokio::runtime::Runtime,
    configure: impl FnOnce(&mut Config),
    body: F,
) -> T
where
    F: FnOnce(String, perfline_server::store::Store) -> Fut,
    Fut: Future<Output = T>,
{
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::for_db(dir.path().join("bench.db"));
        configure(&mut config);
        let state = AppState::new(config).await.unwrap();
        let store = state.store.clone();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(listener, state, async {
            let _ = rx.await;
        }));
        let out = body(base, store).await;
        let _ = tx.send(());
        let _ = server.await;
        out
    })
}

/// The median, minimum and maximum of timings, for the benchmarks' output.
#[allow(dead_code, reason = "not every benchmark uses it")]
pub fn summary(mut times: Vec<Duration>) -> String {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!(
        "median {:.2} ms (min {:.2}, max {:.2}, n={})",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
        times.len()
    )
}

/// `GET url`'s body as text.
#[allow(dead_code, reason = "not every benchmark uses it")]
pub async fn get_text(client: &reqwest::Client, url: String) -> String {
    client.get(url).send().await.unwrap().text().await.unwrap()
}

/// The alert detector's work so far, from the server's `/metrics`: its passes, the series
/// it examined, and the seconds its passes took (wall time: an upper bound of their CPU).
#[allow(dead_code, reason = "not every benchmark uses it")]
pub async fn detector_work(client: &reqwest::Client, base: &str) -> (f64, f64, f64) {
    let text = get_text(client, format!("{base}/metrics")).await;
    let value = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /metrics"))
    };
    (
        value("perfline_detector_pass_seconds_count"),
        value("perfline_detector_series_total"),
        value("perfline_detector_pass_seconds_sum"),
    )
}

/// Waits until the alert detector has examined every queued series.
#[allow(dead_code, reason = "not every benchmark uses it")]
pub async fn detector_idle(store: &perfline_server::store::Store) {
    while !store.alert_jobs(1).await.unwrap().is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
