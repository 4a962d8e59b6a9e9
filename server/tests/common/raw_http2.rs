//! HTTP/2 bytes made by hand, for tests that misbehave on purpose.
//!
//! Written here rather than taken from a library because no HTTP/2 client
//! will send a truncated frame, a frame header that lies about its length,
//! or stop in the middle of a frame: that is exactly what these tests need.
//! Only the 9-byte frame header is needed (RFC 9113 §4.1); no HPACK.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The client connection preface (RFC 9113 §3.4).
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

pub const DATA: u8 = 0x0;
pub const HEADERS: u8 = 0x1;
pub const SETTINGS: u8 = 0x4;
pub const PING: u8 = 0x6;
pub const GOAWAY: u8 = 0x7;

pub const FLAG_ACK: u8 = 0x1;
pub const FLAG_END_HEADERS: u8 = 0x4;

/// GOAWAY error codes (RFC 9113 §7).
pub const PROTOCOL_ERROR: u32 = 0x1;
pub const FRAME_SIZE_ERROR: u32 = 0x6;

/// A frame header claiming `length` bytes of payload, whatever follows it.
pub fn frame_header(length: u32, kind: u8, flags: u8, stream: u32) -> [u8; 9] {
    assert!(length < 1 << 24, "the length field has 24 bits");
    let l = length.to_be_bytes();
    let s = (stream & 0x7fff_ffff).to_be_bytes();
    [l[1], l[2], l[3], kind, flags, s[0], s[1], s[2], s[3]]
}

/// A whole frame: its header and `payload`.
pub fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut bytes = frame_header(payload.len() as u32, kind, flags, stream).to_vec();
    bytes.extend_from_slice(payload);
    bytes
}

/// One frame as received.
#[derive(Debug)]
pub struct Frame {
    pub kind: u8,
    pub flags: u8,
    pub stream: u32,
    pub payload: Vec<u8>,
}

impl Frame {
    /// The error code of a GOAWAY frame.
    pub fn goaway_code(&self) -> Option<u32> {
        (self.kind == GOAWAY && self.payload.len() >= 8)
            .then(|| u32::from_be_bytes(self.payload[4..8].try_into().unwrap()))
    }
}

/// The next frame, or `None` once the server has closed the connection.
pub async fn read_frame(stream: &mut TcpStream) -> io::Result<Option<Frame>> {
    let mut header = [0u8; 9];
    match stream.read_exact(&mut header).await {
        Ok(_) => {}
        Err(e) if matches!(e.kind(), io::ErrorKind::UnexpectedEof) => return Ok(None),
        Err(e) if matches!(e.kind(), io::ErrorKind::ConnectionReset) => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
    let mut payload = vec![0; length];
    stream.read_exact(&mut payload).await?;
    Ok(Some(Frame {
        kind: header[3],
        flags: header[4],
        stream: u32::from_be_bytes(header[5..9].try_into().unwrap()) & 0x7fff_ffff,
        payload,
    }))
}

/// Every frame the server sends until it closes the connection; panics if
/// it is still open after `limit`.
pub async fn frames_until_closed(stream: &mut TcpStream, limit: Duration) -> Vec<Frame> {
    let read_all = async {
        let mut frames = Vec::new();
        while let Ok(Some(frame)) = read_frame(stream).await {
            frames.push(frame);
        }
        frames
    };
    tokio::time::timeout(limit, read_all)
        .await
        .expect("the server should have closed the connection")
}

/// A TCP connection that has sent the preface and an empty SETTINGS frame
/// and received the server's SETTINGS: an HTTP/2 connection, idle.
pub async fn handshake(addr: SocketAddr) -> io::Result<TcpStream> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(PREFACE).await?;
    stream.write_all(&frame(SETTINGS, 0, 0, &[])).await?;
    loop {
        match read_frame(&mut stream).await? {
            Some(frame) if frame.kind == SETTINGS && frame.flags & FLAG_ACK == 0 => break,
            Some(_) => {}
            None => return Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }
    stream.write_all(&frame(SETTINGS, FLAG_ACK, 0, &[])).await?;
    Ok(stream)
}
