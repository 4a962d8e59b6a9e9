//! What every message carries, so a subscriber can time it and place it:
//! bytes 0..8 the time it was due (at a fixed rate; otherwise the time it
//! was sent), bytes 8..16 the time it was sent, both in nanoseconds since
//! the run's base `Instant`, bytes 16..24 the publisher's number for it
//! (all little-endian), then padding up to `--value-size`. Publisher and
//! subscribers share one process, so one `Instant` (the monotonic clock)
//! times both ends.

use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};

/// Bytes of the header: due time, send time, number.
pub const HEADER_LEN: usize = 24;

/// When a message was due and sent, and its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub due: Instant,
    pub sent: Instant,
    pub number: u64,
}

impl Header {
    /// The message, `size` bytes (at least the header).
    pub fn encode(&self, base: Instant, size: usize) -> Bytes {
        let nanos = |at: Instant| {
            u64::try_from(at.saturating_duration_since(base).as_nanos()).unwrap_or(u64::MAX)
        };
        let mut message = BytesMut::with_capacity(size.max(HEADER_LEN));
        message.put_u64_le(nanos(self.due));
        message.put_u64_le(nanos(self.sent));
        message.put_u64_le(self.number);
        message.resize(size.max(HEADER_LEN), b'x');
        message.freeze()
    }

    /// The header of a message; `None` for one too short to be ours.
    pub fn decode(base: Instant, message: &[u8]) -> Option<Self> {
        let field = |i: usize| -> Option<u64> {
            Some(u64::from_le_bytes(
                message.get(i * 8..i * 8 + 8)?.try_into().ok()?,
            ))
        };
        Some(Header {
            due: base + Duration::from_nanos(field(0)?),
            sent: base + Duration::from_nanos(field(1)?),
            number: field(2)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_gives_back_its_header() {
        let base = Instant::now();
        let header = Header {
            due: base + Duration::from_micros(1234),
            sent: base + Duration::from_micros(1300),
            number: 42,
        };
        let message = header.encode(base, 100);
        assert_eq!(message.len(), 100);
        assert_eq!(Header::decode(base, &message), Some(header));
        assert_eq!(Header::decode(base, &message[..20]), None);
    }
}
