//! A new connection's handshake: TLS when configured, then the start of the
//! HTTP/2 client preface (or, on the HTTP/1.1 port, the first byte of a
//! request), all within `--handshake-timeout`.
//!
//! The bytes read to see the preface are handed on to HTTP/2 unchanged
//! ([`Prefixed`]): the point is only that the client has spoken, so a
//! socket that connects and then stays silent (or trickles bytes) is closed
//! instead of holding a descriptor forever.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};

/// The client preface (RFC 9113 §3.4) and the header of the SETTINGS frame
/// that must follow it: what a client has sent once it has really started.
pub const PREFACE_AND_SETTINGS_HEADER: usize = 24 + 9;

/// A stream whose first bytes were read ahead; they are read again first.
pub struct Prefixed<IO> {
    prefix: Vec<u8>,
    consumed: usize,
    io: IO,
}

/// The client connection preface (RFC 9113 §3.4).
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Reads the start of what the client must send first: one byte of an
/// HTTP/1.1 request when `http1` (hyper's header read timeout bounds the
/// rest of it), else the HTTP/2 preface ([`read_preface`]).
pub async fn read_start<IO: AsyncRead + Unpin>(
    mut io: IO,
    http1: bool,
) -> io::Result<Prefixed<IO>> {
    if !http1 {
        return read_preface(io).await;
    }
    let mut prefix = vec![0; 1];
    if io.read(&mut prefix).await? == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Prefixed {
        prefix,
        consumed: 0,
        io,
    })
}

/// Reads the start of the client's HTTP/2 preface. Fails at end of stream,
/// and as soon as a byte differs from the preface: a client speaking
/// another protocol (HTTP/1.1, TLS on the plaintext port) is closed at
/// once rather than at the deadline.
pub async fn read_preface<IO: AsyncRead + Unpin>(mut io: IO) -> io::Result<Prefixed<IO>> {
    let mut prefix = vec![0; PREFACE_AND_SETTINGS_HEADER];
    let mut filled = 0;
    while filled < prefix.len() {
        let read = io.read(&mut prefix[filled..]).await?;
        if read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        filled += read;
        let checked = filled.min(PREFACE.len());
        if prefix[..checked] != PREFACE[..checked] {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not the HTTP/2 client preface",
            ));
        }
    }
    Ok(Prefixed {
        prefix,
        consumed: 0,
        io,
    })
}

impl<IO: AsyncRead + Unpin> AsyncRead for Prefixed<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.consumed < this.prefix.len() {
            let rest = &this.prefix[this.consumed..];
            let n = rest.len().min(buf.remaining());
            buf.put_slice(&rest[..n]);
            this.consumed += n;
            if this.consumed == this.prefix.len() {
                this.prefix = Vec::new();
                this.consumed = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Prefixed<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn the_bytes_read_ahead_are_read_again() {
        let (mut client, server) = tokio::io::duplex(1024);
        let sent = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0and the rest";
        client.write_all(sent).await.unwrap();
        drop(client);
        let mut prefixed = read_preface(server).await.unwrap();
        let mut all = Vec::new();
        prefixed.read_to_end(&mut all).await.unwrap();
        assert_eq!(all, sent);
    }

    #[tokio::test]
    async fn another_protocol_fails_at_its_first_wrong_byte() {
        let (mut client, server) = tokio::io::duplex(1024);
        client.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        // The client stays connected: the handshake fails on the bytes alone.
        let error = read_preface(server).await.err().unwrap();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        drop(client);
    }

    #[tokio::test]
    async fn an_http1_request_is_read_again_whole_after_its_first_byte() {
        let (mut client, server) = tokio::io::duplex(1024);
        let sent = b"GET /cache/c?key=k HTTP/1.1\r\n\r\n";
        client.write_all(sent).await.unwrap();
        drop(client);
        let mut prefixed = read_start(server, true).await.unwrap();
        let mut all = Vec::new();
        prefixed.read_to_end(&mut all).await.unwrap();
        assert_eq!(all, sent);
        let (client, server) = tokio::io::duplex(1024);
        drop(client);
        assert!(read_start(server, true).await.is_err());
    }

    #[tokio::test]
    async fn a_client_that_stops_early_fails_the_handshake() {
        let (mut client, server) = tokio::io::duplex(1024);
        client.write_all(b"PRI * HTTP/2.0").await.unwrap();
        drop(client);
        assert!(read_preface(server).await.is_err());
    }
}
