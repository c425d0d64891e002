//! The header read timeout, which `axum::serve` does not have: a slow or
//! stalled client (slowloris) must not hold a connection open.
//!
//! Each connection has a clock. From the moment the connection opens, and
//! again from the end of each request, the client has `header_timeout` to
//! deliver its next request's headers; a read still waiting after that ends
//! the connection. Data arriving drop by drop does not reset the clock.
//! While a request is being handled (its body read under the body timeout,
//! its work under the request timeout) the clock is paused.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::extract::{ConnectInfo, Request};
use axum::middleware::Next;
use axum::response::Response;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// A connection's clock, shared by its socket and its requests.
#[derive(Debug, Default)]
pub struct ConnClock {
    busy: AtomicU32,
    /// When the wait for the next request began (nanoseconds after [`base`]).
    since: AtomicU64,
}

fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

impl ConnClock {
    fn new() -> Self {
        let clock = Self::default();
        clock.restart();
        clock
    }

    fn restart(&self) {
        let nanos = Instant::now().duration_since(base()).as_nanos() as u64;
        self.since.store(nanos, Ordering::Relaxed);
    }

    fn waiting_since(&self) -> Instant {
        base() + Duration::from_nanos(self.since.load(Ordering::Relaxed))
    }

    fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Acquire) > 0
    }
}

/// The client of a connection: its address, and its connection's clock.
#[derive(Clone, Debug)]
pub struct Peer {
    pub addr: SocketAddr,
    clock: Arc<ConnClock>,
}

impl Connected<IncomingStream<'_, DeadlineListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, DeadlineListener>) -> Self {
        stream.remote_addr().clone()
    }
}

/// A TCP listener whose connections keep the header deadline.
pub struct DeadlineListener {
    inner: TcpListener,
    header_timeout: Duration,
}

impl DeadlineListener {
    pub fn new(inner: TcpListener, header_timeout: Duration) -> Self {
        Self {
            inner,
            header_timeout,
        }
    }
}

impl Listener for DeadlineListener {
    type Io = DeadlineIo;
    type Addr = Peer;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    let _ = stream.set_nodelay(true);
                    let clock = Arc::new(ConnClock::new());
                    let io = DeadlineIo {
                        inner: stream,
                        clock: clock.clone(),
                        timeout: self.header_timeout,
                        sleep: Box::pin(tokio::time::sleep(self.header_timeout)),
                    };
                    return (io, Peer { addr, clock });
                }
                // Out of file descriptors and the like: wait, as axum's own listener does.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(Peer {
            addr: self.inner.local_addr()?,
            clock: Arc::new(ConnClock::new()),
        })
    }
}

/// A connection's socket, with its clock.
pub struct DeadlineIo {
    inner: TcpStream,
    clock: Arc<ConnClock>,
    timeout: Duration,
    sleep: Pin<Box<Sleep>>,
}

impl AsyncRead for DeadlineIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Pending if !this.clock.is_busy() => {
                let deadline = this.clock.waiting_since() + this.timeout;
                if this.sleep.deadline() != deadline {
                    this.sleep.as_mut().reset(deadline);
                }
                match this.sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the request's headers did not arrive in time",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
            other => other,
        }
    }
}

impl AsyncWrite for DeadlineIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Middleware: the connection's clock is paused while a request is handled
/// and restarts when it ends (or is dropped).
pub async fn pause_while_handling(request: Request, next: Next) -> Response {
    let clock = request
        .extensions()
        .get::<ConnectInfo<Peer>>()
        .map(|info| info.0.clock.clone());
    let _guard = clock.map(Busy::new);
    next.run(request).await
}

struct Busy(Arc<ConnClock>);

impl Busy {
    fn new(clock: Arc<ConnClock>) -> Self {
        clock.busy.fetch_add(1, Ordering::AcqRel);
        Self(clock)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.restart();
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}
