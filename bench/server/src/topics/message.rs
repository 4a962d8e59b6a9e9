//! What every message carries, so a subscriber can time it and place it:
//! bytes 0..8 the publish time (nanoseconds since the run's base `Instant`,
//! little-endian), bytes 8..16 the publisher's number for it, then padding
//! up to `--value-size`. Publisher and subscribers share one process, so
//! one `Instant` (the monotonic clock) times both ends.

use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};

/// Bytes of the header: publish time and number.
pub const HEADER_LEN: usize = 16;

/// The message numbered `number`, published (or due) at `at`.
pub fn encode(base: Instant, at: Instant, number: u64, size: usize) -> Bytes {
    let nanos = u64::try_from(at.saturating_duration_since(base).as_nanos()).unwrap_or(u64::MAX);
    let mut message = BytesMut::with_capacity(size.max(HEADER_LEN));
    message.put_u64_le(nanos);
    message.put_u64_le(number);
    message.resize(size.max(HEADER_LEN), b'x');
    message.freeze()
}

/// The publish instant and number of a message; `None` for one too short
/// to be ours.
pub fn decode(base: Instant, message: &[u8]) -> Option<(Instant, u64)> {
    let nanos = u64::from_le_bytes(message.get(0..8)?.try_into().ok()?);
    let number = u64::from_le_bytes(message.get(8..16)?.try_into().ok()?);
    Some((base + Duration::from_nanos(nanos), number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_gives_back_its_time_and_number() {
        let base = Instant::now();
        let at = base + Duration::from_micros(1234);
        let message = encode(base, at, 42, 100);
        assert_eq!(message.len(), 100);
        assert_eq!(decode(base, &message), Some((at, 42)));
        assert_eq!(decode(base, &message[..10]), None);
    }
}
