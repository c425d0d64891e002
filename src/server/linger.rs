//! Ending a connection without destroying its last answer.
//!
//! The server ends a connection whose client may still be sending: a body
//! refused with 413 before it was read, a head refused with 431. Closing the
//! socket then, with bytes unread, makes the kernel answer with a reset, and
//! a reset can reach the client before it has read the answer (a client
//! still writing its body mostly sees only its write fail). So, as RFC 9112
//! §9.6 advises, the server closes its sending side first and then reads
//! and throws away whatever still arrives, until the client closes too, for
//! at most [`LINGER`] and `cap` bytes. Nothing read here is kept: the
//! memory a connection holds stays bounded whatever the client sends.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// The longest a closing connection waits for its client to stop sending.
pub const LINGER: Duration = Duration::from_secs(2);

/// A connection's socket whose shutdown lingers (see the module's comment).
pub struct Linger<S> {
    inner: S,
    cap: usize,
    drained: usize,
    closing: Closing,
}

enum Closing {
    Open,
    Draining(Pin<Box<Sleep>>),
    Done,
}

impl<S> Linger<S> {
    /// `cap`: the most bytes thrown away before the connection is closed
    /// anyway.
    pub fn new(inner: S, cap: usize) -> Self {
        Self {
            inner,
            cap,
            drained: 0,
            closing: Closing::Open,
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Linger<S> {
    /// Reads and discards until the client closes, `cap` bytes have
    /// arrived, or the time is up.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Closing::Draining(until) = &mut self.closing else {
            return Poll::Ready(());
        };
        let mut scratch = [0u8; 4096];
        loop {
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut self.inner).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if !buf.filled().is_empty() => {
                    self.drained += buf.filled().len();
                    if self.drained >= self.cap {
                        return Poll::Ready(());
                    }
                }
                // The client's end (or a reset: nothing left to protect).
                Poll::Ready(_) => return Poll::Ready(()),
                Poll::Pending => return until.as_mut().poll(cx),
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Linger<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Linger<S> {
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
        let this = &mut *self;
        if let Closing::Open = this.closing {
            let sent = ready!(Pin::new(&mut this.inner).poll_shutdown(cx));
            if sent.is_err() {
                this.closing = Closing::Done;
                return Poll::Ready(sent);
            }
            this.closing = Closing::Draining(Box::pin(tokio::time::sleep(LINGER)));
        }
        ready!(this.poll_drain(cx));
        this.closing = Closing::Done;
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    use super::*;

    async fn pair() -> (Linger<TcpStream>, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        (Linger::new(server, 1024 * 1024), client)
    }

    #[tokio::test]
    async fn a_client_still_sending_reads_the_answer_whole() {
        let (mut server, mut client) = pair().await;
        let sending = tokio::spawn(async move {
            // More than the sockets' buffers take at once: without the
            // drain this write is cut by a reset.
            let sent = client.write_all(&vec![b'x'; 800 * 1024]).await;
            let mut answer = Vec::new();
            let read = client.read_to_end(&mut answer).await;
            (sent.is_ok(), read.is_ok(), answer)
        });
        server.write_all(b"HTTP/1.1 413 \r\n\r\n").await.unwrap();
        server.shutdown().await.unwrap();
        drop(server);
        let (sent, read, answer) = sending.await.unwrap();
        assert!(sent && read, "sent {sent}, read {read}");
        assert_eq!(answer, b"HTTP/1.1 413 \r\n\r\n");
    }

    #[tokio::test]
    async fn the_drain_ends_when_the_client_closes() {
        let (mut server, client) = pair().await;
        drop(client);
        let t0 = Instant::now();
        server.shutdown().await.unwrap();
        assert!(t0.elapsed() < LINGER, "{:?}", t0.elapsed());
    }

    #[tokio::test]
    async fn the_drain_is_bounded_in_time_and_bytes() {
        // A client that neither sends nor closes: the time bound ends it.
        let (mut server, _silent) = pair().await;
        let t0 = Instant::now();
        server.shutdown().await.unwrap();
        let took = t0.elapsed();
        assert!(took >= LINGER - Duration::from_millis(100), "{took:?}");
        assert!(took < LINGER * 5, "{took:?}");
        // A client that sends without end: the byte cap ends it.
        let (server, mut client) = pair().await;
        let mut server = Linger::new(server.inner, 64 * 1024);
        let flood = tokio::spawn(async move {
            let chunk = vec![b'x'; 16 * 1024];
            for _ in 0..100_000 {
                if client.write_all(&chunk).await.is_err() {
                    break;
                }
            }
        });
        server.shutdown().await.unwrap();
        assert!(server.drained >= 64 * 1024, "{}", server.drained);
        drop(server);
        flood.await.unwrap();
    }
}
