// SPDX-License-Identifier: GPL-3.0-or-later
//! Serving: accepting connections (with a cap and a header timeout), the alert pipeline's
//! background tasks (each restarted if it dies), and a graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::{router, AppState};
use crate::services::alerts::{detector, notify};
use crate::services::background::supervise;

/// The answer to a connection over the limit, written straight to the socket.
const OVERLOADED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\n\
content-type: application/json\r\nx-content-type-options: nosniff\r\n\
content-security-policy: default-src 'none'; frame-ancestors 'none'\r\n\
connection: close\r\ncontent-length: 117\r\n\r\n\
{\"error\":{\"status\":503,\"code\":\"unavailable\",\"message\":\"too many open connections; try again in a second\"}}";

/// Serves until `shutdown` completes, then stops accepting, gives in-flight requests up to
/// `shutdown_timeout` seconds, and closes the store.
///
/// HTTP/1.1 through hyper with a header-read timeout (which also closes idle keep-alive
/// connections: hyper starts it whenever a connection waits for a request head) and a cap on
/// open connections.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use tokio::io::AsyncWriteExt;

    crate::small_pages();
    let store = state.store.clone();
    let config = state.config.clone();
    let worker_id = state.worker_id.clone();
    if let Ok(a) = listener.local_addr() {
        let _ = state.bound.set(a);
    }
    // The alert pipeline: detector, notifier, deliverer; stopped before the store closes. Each
    // is started again if it ever ends by a panic (`background::supervise`).
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let services = &state.services;
    let mut background = vec![
        tokio::spawn(supervise(services.clone(), "notifier", stop_rx.clone(), {
            let (s, stop) = (services.clone(), stop_rx.clone());
            move || notify::run_notifier(s.clone(), stop.clone())
        })),
        tokio::spawn(supervise(services.clone(), "deliverer", stop_rx.clone(), {
            let (s, stop) = (services.clone(), stop_rx.clone());
            move || notify::run_deliverer(s.clone(), stop.clone())
        })),
    ];
    if !config.no_alerts {
        background.push(tokio::spawn(supervise(
            services.clone(),
            "detector",
            stop_rx.clone(),
            {
                let (s, stop) = (services.clone(), stop_rx);
                move || detector::run_detector(s.clone(), stop.clone())
            },
        )));
    }
    let app = router(state);
    let connections = Arc::new(tokio::sync::Semaphore::new(config.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(config.header_timeout.max(1)))
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait a moment rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            tokio::spawn(async move {
                let mut stream = stream;
                let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(OVERLOADED))
                    .await;
                let _ = stream.shutdown().await;
            });
            continue;
        };
        let _ = stream.set_nodelay(true);
        // Handlers and the rate limits see the client's address.
        let app = tower::ServiceExt::map_request(
            app.clone(),
            move |mut req: axum::http::Request<hyper::body::Incoming>| {
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                req
            },
        );
        let service = hyper_util::service::TowerToHyperService::new(app);
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    let deadline = Duration::from_secs(config.shutdown_timeout);
    tracing::info!(
        deadline_s = deadline.as_secs(),
        "draining in-flight requests"
    );
    if tokio::time::timeout(deadline, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("requests still running after the shutdown deadline were cut off");
    }
    let _ = stop_tx.send(true);
    for task in background {
        // A task in the middle of a transaction finishes it; one waiting on the network is
        // cut off (its work stays queued in the database for the next start).
        if tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .is_err()
        {
            tracing::warn!("an alert task did not stop in time");
        }
    }
    // Another server on the database takes the tasks over at once.
    if let Err(e) = store.release_leases(&worker_id).await {
        tracing::warn!(error = %e, "cannot release the background tasks' leases");
    }
    store.close().await;
    Ok(())
}
