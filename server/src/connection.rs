//! Accepted client connections: TCP_NODELAY on, counted while open.
//!
//! We accept connections ourselves rather than through tonic's listener so
//! that every socket is counted in `jiffy_open_connections` until it closes,
//! and so that an accept error (for example, out of file descriptors) slows
//! the accept loop down instead of ending the server.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::metrics::Metrics;

/// How long to wait after an accept error before accepting again.
const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(50);

/// A client connection; dropping it closes the socket and the count.
pub struct Connection {
    stream: TcpStream,
    metrics: Arc<Metrics>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.metrics.open_connections.dec();
    }
}

/// The stream of accepted connections that the gRPC server serves.
pub fn accept(
    listener: TcpListener,
    metrics: Arc<Metrics>,
) -> impl Stream<Item = io::Result<Connection>> {
    futures_util::stream::unfold((listener, metrics), |(listener, metrics)| async move {
        loop {
            match listener.accept().await {
                Ok((stream, _peer)) => {
                    // Requests are small and latency-bound: never wait to coalesce.
                    if let Err(error) = stream.set_nodelay(true) {
                        tracing::debug!(%error, "cannot set TCP_NODELAY");
                    }
                    metrics.open_connections.inc();
                    metrics.connections.inc();
                    let connection = Connection {
                        stream,
                        metrics: metrics.clone(),
                    };
                    return Some((Ok(connection), (listener, metrics)));
                }
                Err(error) => {
                    tracing::warn!(%error, "accept failed; retrying");
                    tokio::time::sleep(ACCEPT_ERROR_BACKOFF).await;
                }
            }
        }
    })
}

impl Connected for Connection {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
