//! HTTP/2 bytes made by hand, for tests that misbehave on purpose.
//!
//! Written here rather than taken from a library because no HTTP/2 client
//! will send a truncated frame, a frame header that lies about its length,
//! or stop in the middle of a frame: that is exactly what these tests need.
//! The 9-byte frame header (RFC 9113 §4.1), whole frames of each type, and
//! for the attack suite a minimal HPACK encoder (literals, no Huffman).

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

// ---------------------------------------------------------------------------
// For the attack suite (tests/attacks.rs): the other frame types, frames
// built whole, a minimal HPACK encoder and a gRPC message framer. Enough to
// write a valid gRPC request by hand, and to misuse it.

pub const PRIORITY: u8 = 0x2;
pub const RST_STREAM: u8 = 0x3;
pub const WINDOW_UPDATE: u8 = 0x8;
pub const CONTINUATION: u8 = 0x9;

pub const FLAG_END_STREAM: u8 = 0x1;

/// More error codes (RFC 9113 §7).
pub const NO_ERROR: u32 = 0x0;
pub const CANCEL: u32 = 0x8;
pub const ENHANCE_YOUR_CALM: u32 = 0xb;

/// SETTINGS parameters (RFC 9113 §6.5.2).
pub const SETTINGS_ENABLE_PUSH: u16 = 0x2;
pub const SETTINGS_INITIAL_WINDOW_SIZE: u16 = 0x4;

/// The name of an error code, for reports.
pub fn error_name(code: u32) -> String {
    let name = match code {
        0x0 => "NO_ERROR",
        0x1 => "PROTOCOL_ERROR",
        0x2 => "INTERNAL_ERROR",
        0x3 => "FLOW_CONTROL_ERROR",
        0x4 => "SETTINGS_TIMEOUT",
        0x5 => "STREAM_CLOSED",
        0x6 => "FRAME_SIZE_ERROR",
        0x7 => "REFUSED_STREAM",
        0x8 => "CANCEL",
        0x9 => "COMPRESSION_ERROR",
        0xa => "CONNECT_ERROR",
        0xb => "ENHANCE_YOUR_CALM",
        0xc => "INADEQUATE_SECURITY",
        0xd => "HTTP_1_1_REQUIRED",
        _ => return format!("0x{code:x}"),
    };
    name.to_owned()
}

/// A SETTINGS frame carrying `params` (empty: the client's defaults).
pub fn settings(params: &[(u16, u32)]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(params.len() * 6);
    for (id, value) in params {
        payload.extend_from_slice(&id.to_be_bytes());
        payload.extend_from_slice(&value.to_be_bytes());
    }
    frame(SETTINGS, 0, 0, &payload)
}

/// A PING frame (an answer when `ack`).
pub fn ping(data: [u8; 8], ack: bool) -> Vec<u8> {
    frame(PING, if ack { FLAG_ACK } else { 0 }, 0, &data)
}

/// RST_STREAM on `stream` with `code`.
pub fn rst_stream(stream: u32, code: u32) -> Vec<u8> {
    frame(RST_STREAM, 0, stream, &code.to_be_bytes())
}

/// WINDOW_UPDATE on `stream` (0: the connection) by `increment`, which may
/// be 0 (a stream error, RFC 9113 §6.9).
pub fn window_update(stream: u32, increment: u32) -> Vec<u8> {
    frame(
        WINDOW_UPDATE,
        0,
        stream,
        &(increment & 0x7fff_ffff).to_be_bytes(),
    )
}

/// PRIORITY on `stream`, depending on `depends_on` (`stream` itself is a
/// stream error, RFC 9113 §5.3.1).
pub fn priority(stream: u32, depends_on: u32, weight: u8) -> Vec<u8> {
    let mut payload = (depends_on & 0x7fff_ffff).to_be_bytes().to_vec();
    payload.push(weight);
    frame(PRIORITY, 0, stream, &payload)
}

/// An HPACK integer with an `prefix_bits`-bit prefix, the first byte's
/// other bits set to `flags` (RFC 7541 §5.1).
pub fn hpack_int(out: &mut Vec<u8>, flags: u8, prefix_bits: u8, mut value: usize) {
    let max = (1usize << prefix_bits) - 1;
    if value < max {
        out.push(flags | value as u8);
        return;
    }
    out.push(flags | max as u8);
    value -= max;
    while value >= 128 {
        out.push((value % 128) as u8 | 0x80);
        value /= 128;
    }
    out.push(value as u8);
}

/// An HPACK string literal, not Huffman-coded (RFC 7541 §5.2).
pub fn hpack_string(out: &mut Vec<u8>, s: &[u8]) {
    hpack_int(out, 0x00, 7, s.len());
    out.extend_from_slice(s);
}

/// A literal header field without indexing, new name (RFC 7541 §6.2.2):
/// the decoder's table is left as it was.
pub fn hpack_literal(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(0x00);
    hpack_string(out, name);
    hpack_string(out, value);
}

/// A literal header field with incremental indexing, new name (RFC 7541
/// §6.2.1): the decoder inserts it in its dynamic table, at index 62 first.
pub fn hpack_literal_indexed(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(0x40);
    hpack_string(out, name);
    hpack_string(out, value);
}

/// An indexed header field (RFC 7541 §6.1): one byte for indexes below 127.
pub fn hpack_indexed(out: &mut Vec<u8>, index: usize) {
    hpack_int(out, 0x80, 7, index);
}

/// The first index of the dynamic table (RFC 7541 §2.3.3).
pub const HPACK_FIRST_DYNAMIC_INDEX: usize = 62;

/// The header block of a gRPC call to `path` (e.g. `/cache_client.Scs/Get`)
/// in `cache`, every field a literal without indexing.
pub fn grpc_request_block(scheme: &str, authority: &str, path: &str, cache: &str) -> Vec<u8> {
    let mut block = Vec::with_capacity(160);
    hpack_literal(&mut block, b":method", b"POST");
    hpack_literal(&mut block, b":scheme", scheme.as_bytes());
    hpack_literal(&mut block, b":path", path.as_bytes());
    hpack_literal(&mut block, b":authority", authority.as_bytes());
    hpack_literal(&mut block, b"content-type", b"application/grpc");
    hpack_literal(&mut block, b"te", b"trailers");
    hpack_literal(&mut block, b"cache", cache.as_bytes());
    block
}

/// A gRPC message: the 5-byte prefix (not compressed, length) and `message`
/// (e.g. a prost-encoded request).
pub fn grpc_message(message: &[u8]) -> Vec<u8> {
    let mut framed = Vec::with_capacity(5 + message.len());
    framed.push(0);
    framed.extend_from_slice(&(message.len() as u32).to_be_bytes());
    framed.extend_from_slice(message);
    framed
}

/// The next frame from any byte stream (a TLS one too), or `None` once the
/// server has closed the connection.
pub async fn read_frame_from<R: tokio::io::AsyncRead + Unpin>(
    reader: &mut R,
) -> io::Result<Option<Frame>> {
    let mut header = [0u8; 9];
    match reader.read_exact(&mut header).await {
        Ok(_) => {}
        Err(e) if matches!(e.kind(), io::ErrorKind::UnexpectedEof) => return Ok(None),
        Err(e) if matches!(e.kind(), io::ErrorKind::ConnectionReset) => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
    let mut payload = vec![0; length];
    reader.read_exact(&mut payload).await?;
    Ok(Some(Frame {
        kind: header[3],
        flags: header[4],
        stream: u32::from_be_bytes(header[5..9].try_into().unwrap()) & 0x7fff_ffff,
        payload,
    }))
}
