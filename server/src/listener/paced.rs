//! A connection's bytes handed to HTTP/2 at most [`STREAMS_PER_READ`] new
//! streams at a time.
//!
//! h2 reads every frame the socket holds before it lets any stream run, and
//! keeps each frame it has not yet handed over (a request's headers and
//! body) in one slab per connection; the answers' frames wait in another
//! until written. Both slabs keep, for as long as the connection lives, the
//! room of the largest burst they ever held (about 250 bytes a frame,
//! never given back). A client that opens 100 streams in one write
//! (a request's headers and its body each) left 256 slots in each, some
//! 130 KB a connection: for 100 subscriptions held open for hours, 1.3 KiB
//! each, more than all their other state. No setting of h2 or hyper bounds
//! those slabs, so the bytes are paced here: once [`STREAMS_PER_READ`]
//! HEADERS frames have passed in one burst, the read stops at the end of
//! the last one (what the socket gave past it is kept for the next read)
//! and the connection's task yields once. The streams it accepted run
//! meanwhile: they take their requests out of the slab, and their answers'
//! first frames are written before more streams are read. A burst of any
//! size then needs a few dozen slots.
//!
//! Only HEADERS frames are counted, so large request bodies stream through
//! unpaced; a burst that ends in the socket (the usual case) resets the
//! count, since the task waits for the socket then anyway.
//!
//! The pause lasts until the connection's task has been polled to its end
//! ([`Turns::polled`]): hyper asks h2 for the next stream as long as one is
//! accepted, so a pause of one read would not make the task yield.

use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// HEADERS frames (new streams, or trailers) passed to HTTP/2 before its
/// task yields, when they come in one burst. Small enough that the slabs'
/// high-water mark stays low (a stream's request is two frames there, its
/// first answer two more), large enough that a busy connection's task
/// yields only once per this many calls.
pub const STREAMS_PER_READ: usize = 16;

/// The HTTP/2 client connection preface (RFC 9113 §3.4), which comes first.
const PREFACE_LEN: usize = 24;

/// The frame header: length (24 bits), type, flags, stream (RFC 9113 §4.1).
const FRAME_HEADER_LEN: usize = 9;

const HEADERS: u8 = 0x1;

/// `io`, its bytes paced (see the module).
pub struct Paced<IO> {
    io: IO,
    scan: FrameScan,
    /// Bytes read past a pause, handed over first once it ends.
    kept: BytesMut,
    /// Set at a pause, cleared by [`Turns::polled`] when the task's poll ends.
    paused: Arc<AtomicBool>,
}

/// The other end of a [`Paced`] reader's pause.
pub struct Turns {
    paused: Arc<AtomicBool>,
}

impl<IO> Paced<IO> {
    /// `io` paced, and what ends its pauses.
    pub fn new(io: IO) -> (Self, Turns) {
        let paused = Arc::new(AtomicBool::new(false));
        let paced = Paced {
            io,
            scan: FrameScan::default(),
            kept: BytesMut::new(),
            paused: paused.clone(),
        };
        (paced, Turns { paused })
    }
}

impl Turns {
    /// Polls `connection` (served over the [`Paced`] reader); a pause ends
    /// with the poll, so the reader waits for the task's next turn.
    pub fn polled<'a, F: Future>(
        &'a self,
        mut connection: Pin<&'a mut F>,
    ) -> impl Future<Output = F::Output> + 'a {
        poll_fn(move |cx| {
            let polled = connection.as_mut().poll(cx);
            self.paused.store(false, Ordering::Relaxed);
            polled
        })
    }
}

/// Where a connection's bytes are, frame by frame.
struct FrameScan {
    /// Bytes of the preface still to come.
    preface_left: usize,
    /// The frame header being read, and how much of it has come.
    header: [u8; FRAME_HEADER_LEN],
    header_read: usize,
    /// Bytes of the current frame's payload still to come.
    payload_left: usize,
    /// Whether the current frame is a HEADERS frame.
    in_headers: bool,
    /// HEADERS frames passed since the last pause.
    headers: usize,
}

impl Default for FrameScan {
    fn default() -> Self {
        FrameScan {
            preface_left: PREFACE_LEN,
            header: [0; FRAME_HEADER_LEN],
            header_read: 0,
            payload_left: 0,
            in_headers: false,
            headers: 0,
        }
    }
}

impl FrameScan {
    /// Follows `bytes`, the next of the connection; `Some(n)` if the read
    /// should stop after the first `n` of them (the end of the
    /// [`STREAMS_PER_READ`]-th HEADERS frame), the rest not scanned.
    fn scan(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut at = 0;
        while at < bytes.len() {
            let left = bytes.len() - at;
            if self.preface_left > 0 {
                let n = self.preface_left.min(left);
                self.preface_left -= n;
                at += n;
                continue;
            }
            if self.payload_left > 0 {
                let n = self.payload_left.min(left);
                self.payload_left -= n;
                at += n;
            } else {
                let n = (FRAME_HEADER_LEN - self.header_read).min(left);
                self.header[self.header_read..self.header_read + n]
                    .copy_from_slice(&bytes[at..at + n]);
                self.header_read += n;
                at += n;
                if self.header_read < FRAME_HEADER_LEN {
                    continue;
                }
                self.header_read = 0;
                let [a, b, c, kind, ..] = self.header;
                self.payload_left = u32::from_be_bytes([0, a, b, c]) as usize;
                self.in_headers = kind == HEADERS;
            }
            if self.payload_left == 0 && std::mem::take(&mut self.in_headers) {
                self.headers += 1;
                if self.headers >= STREAMS_PER_READ {
                    self.headers = 0;
                    return Some(at);
                }
            }
        }
        None
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Paced<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.paused.load(Ordering::Relaxed) {
            // The task's next turn: the streams it accepted run first.
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if !this.kept.is_empty() {
            let n = this.kept.len().min(buf.remaining());
            let n = match this.scan.scan(&this.kept[..n]) {
                Some(cut) => {
                    this.paused.store(true, Ordering::Relaxed);
                    cut
                }
                None => n,
            };
            buf.put_slice(&this.kept[..n]);
            this.kept.advance(n);
            if this.kept.is_empty() {
                // Not kept for the connection's life either.
                this.kept = BytesMut::new();
            }
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {}
            Poll::Pending => {
                // The task waits for the socket: a pause of its own.
                this.scan.headers = 0;
                return Poll::Pending;
            }
            ready => return ready,
        }
        if let Some(cut) = this.scan.scan(&buf.filled()[before..]) {
            this.kept.extend_from_slice(&buf.filled()[before + cut..]);
            buf.set_filled(before + cut);
            this.paused.store(true, Ordering::Relaxed);
        }
        Poll::Ready(Ok(()))
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Paced<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = (payload.len() as u32).to_be_bytes()[1..].to_vec();
        out.extend([kind, 0, 0, 0, 0, 1]);
        out.extend_from_slice(payload);
        out
    }

    /// The preface, then `streams` requests: HEADERS and DATA each.
    fn burst(streams: usize) -> Vec<u8> {
        let mut bytes = vec![b'P'; PREFACE_LEN];
        for _ in 0..streams {
            bytes.extend(frame(HEADERS, &[0x82; 30]));
            bytes.extend(frame(0x0, &[7; 12]));
        }
        bytes
    }

    #[test]
    fn the_scan_stops_after_the_last_headers_frame_allowed_whatever_the_reads() {
        let bytes = burst(STREAMS_PER_READ + 1);
        let request = FRAME_HEADER_LEN * 2 + 30 + 12;
        // The end of the last HEADERS frame allowed: its DATA frame not in.
        let expected = PREFACE_LEN + request * STREAMS_PER_READ - (FRAME_HEADER_LEN + 12);
        for step in [1, 5, 9, 40, bytes.len()] {
            let mut scan = FrameScan::default();
            let mut passed = 0;
            let stop = bytes.chunks(step).find_map(|chunk| {
                let stop = scan.scan(chunk).map(|cut| passed + cut);
                passed += chunk.len();
                stop
            });
            assert_eq!(stop, Some(expected), "read {step} bytes at a time");
        }
        let mut scan = FrameScan::default();
        assert_eq!(scan.scan(&burst(STREAMS_PER_READ - 1)), None);
    }

    #[tokio::test]
    async fn a_burst_is_handed_over_whole_with_a_yield_per_pause() {
        let bytes = burst(3 * STREAMS_PER_READ + 5);
        let (mut client, server) = tokio::io::duplex(1 << 20);
        tokio::io::AsyncWriteExt::write_all(&mut client, &bytes)
            .await
            .unwrap();
        drop(client);
        let (mut paced, turns) = Paced::new(server);
        let (mut read, mut pauses) = (Vec::new(), 0);
        loop {
            let mut chunk = [0u8; 64 << 10];
            let mut buf = ReadBuf::new(&mut chunk);
            let step = std::future::poll_fn(|cx| {
                Poll::Ready(Pin::new(&mut paced).poll_read(cx, &mut buf))
            })
            .await;
            match step {
                Poll::Ready(result) => result.unwrap(),
                Poll::Pending => {
                    pauses += 1;
                    // Paused for the rest of the task's turn...
                    let mut empty = [0u8; 0];
                    let mut again = ReadBuf::new(&mut empty);
                    let waker = std::task::Waker::noop();
                    let mut cx = Context::from_waker(waker);
                    assert!(Pin::new(&mut paced)
                        .poll_read(&mut cx, &mut again)
                        .is_pending());
                    // ...which ends with the connection's poll.
                    let mut turn = std::pin::pin!(std::future::ready(()));
                    turns.polled(turn.as_mut()).await;
                    continue;
                }
            }
            if buf.filled().is_empty() {
                break;
            }
            read.extend_from_slice(buf.filled());
        }
        assert_eq!(read, bytes);
        assert_eq!(pauses, 3);
        assert_eq!(paced.read(&mut [0; 8]).await.unwrap(), 0);
    }
}
