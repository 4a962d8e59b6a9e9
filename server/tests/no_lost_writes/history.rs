//! The record of a workload: every call with when it was sent and when its
//! answer came, on the test's monotonic clock (the server's clock too, as
//! both run on one machine, which the TTL checks rely on).

use std::time::Duration;

use bytes::Bytes;

/// The three kinds of key, each used in one way only, so that each has a
/// simple rule for what a read may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// Set (long TTL), Delete and Get.
    Register(u16),
    /// Set with [`SHORT_TTL`] and Get; never deleted.
    Short(u16),
    /// Increment (by a positive amount, long TTL) and Get.
    Counter(u16),
}

/// Every Set of a short key has this TTL. One TTL for all, so that a later
/// write never expires before an earlier one would have.
pub const SHORT_TTL: Duration = Duration::from_secs(2);

impl Key {
    pub fn name(self) -> String {
        match self {
            Key::Register(i) => format!("register-{i}"),
            Key::Short(i) => format!("short-{i}"),
            Key::Counter(i) => format!("counter-{i}"),
        }
    }
}

#[derive(Debug, Clone)]
pub enum Call {
    /// Values are unique across the whole run, so a read names its write.
    Set {
        value: Bytes,
        ttl: Duration,
    },
    Delete,
    Get {
        found: Option<Bytes>,
    },
    Increment {
        amount: i64,
        total: i64,
    },
}

/// One acknowledged call: sent at `send`, answered at `ack` (both since the
/// start of the run), so it took effect at some instant between the two.
#[derive(Debug, Clone)]
pub struct Op {
    pub key: Key,
    pub call: Call,
    pub send: Duration,
    pub ack: Duration,
}

impl Op {
    pub fn is_write(&self) -> bool {
        !matches!(self.call, Call::Get { .. })
    }
}
