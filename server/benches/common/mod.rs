//! The real server on port 0 with a fresh database, for the benchmarks.

use std::future::Future;

use perfline_server::{serve, AppState, Config};

/// Runs `body` with the base URL of a fresh server, then stops the server.
pub fn with_server<F, Fut, T>(rt: &tokio::runtime::Runtime, body: F) -> T
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = T>,
{
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let state = AppState::new(Config::for_db(dir.path().join("bench.db")))
            .await
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(listener, state, async {
            let _ = rx.await;
        }));
        let out = body(base).await;
        let _ = tx.send(());
        let _ = server.await;
        out
    })
}
