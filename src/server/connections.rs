//! Accepting connections and serving HTTP/1.1 on them with hyper's own
//! settings, which `axum::serve` does not expose:
//! - a request head larger than [`HEAD_LIMIT`] is answered 431 and the
//!   connection ends, so a connection holds at most that much of a head;
//! - a client has `header_timeout` to deliver each request's head, from
//!   the moment the connection opens and again from the end of the last
//!   answer: a silent, idle or slowly dripping client is dropped. hyper
//!   does not reset this clock as bytes arrive and stops it while a request
//!   is handled, so it does all a hand-made deadline did; its start on an
//!   idle kept-alive connection came with hyper 1.6 (hyperium/hyper#3828),
//!   hence the pinned 1.12, and `tests/server/transport.rs` checks it;
//! - stopping: no new connections, the requests in progress get up to
//!   `shutdown_grace` to finish, then the connections still open are cut
//!   (an upload still arriving is dropped, unstored).

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tower_service::Service;

use super::config::ServerSettings;
use super::linger::Linger;
use super::log;
use crate::t;

/// The largest request head (request line and headers) read: hyper's
/// default buffer is about 400 KB a connection.
pub const HEAD_LIMIT: usize = 64 * 1024;

/// Serves `router` on `listener` until `stop` resolves, then stops as the
/// module's comment says.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    settings: &ServerSettings,
    stop: impl Future<Output = ()>,
) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(settings.header_timeout)
        // The exact cap on a head; the buffer's own cap bounds the memory,
        // but one large read can pass it before the head is checked.
        .max_header_size(HEAD_LIMIT)
        .max_buf_size(HEAD_LIMIT);
    let drain_cap = drain_cap(settings.body_limit);
    let graceful = GracefulShutdown::new();
    let mut open = JoinSet::new();
    let mut stop = pin!(stop);
    loop {
        let accepted = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => accepted,
        };
        while open.try_join_next().is_some() {}
        let (stream, addr) = match accepted {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: wait, as axum's own loop does.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Linger::new(stream, drain_cap));
        let router = router.clone();
        // Handlers learn the client's address as `ConnectInfo<SocketAddr>`.
        let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(addr));
            router.clone().call(request)
        });
        let connection = http.serve_connection(io, service);
        let connection = graceful.watch(connection);
        open.spawn(async move {
            let _ = connection.await;
        });
    }
    drop(listener);
    drop(router);
    let grace = settings.shutdown_grace;
    if tokio::time::timeout(grace, graceful.shutdown())
        .await
        .is_err()
    {
        while open.try_join_next().is_some() {}
        log::line(&t!(
            crate::i18n::current(),
            "serve.log.cut",
            count = open.len(),
            grace = format!("{grace:?}")
        ));
    }
    open.shutdown().await;
}

/// How much of a refused body is read and thrown away while the connection
/// closes (see [`super::linger`]): enough for a client that sends a little
/// too much to finish writing and read its 413.
fn drain_cap(body_limit: usize) -> usize {
    body_limit.saturating_mul(4).max(1024 * 1024)
}
