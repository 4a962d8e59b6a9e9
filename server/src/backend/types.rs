//! The values the [`super::Storage`] calls take and answer, shared by both
//! backends: the conditions of conditional writes, TTL updates, and the
//! figures `/metrics` shows.

use std::time::Duration;

use bytes::Bytes;

/// When a conditional write stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Present,
    /// Only when the key is present and holds a different value.
    PresentAndNotEqual(Bytes),
    Absent,
    Equal(Bytes),
    AbsentOrEqual(Bytes),
    /// When the key is absent or holds a different value.
    NotEqual(Bytes),
}

impl Condition {
    /// Whether a key holding `current` (`None`: absent) meets the condition.
    pub fn admits(&self, current: Option<&[u8]>) -> bool {
        match self {
            Condition::Present => current.is_some(),
            Condition::PresentAndNotEqual(v) => current.is_some_and(|c| c != v),
            Condition::Absent => current.is_none(),
            Condition::Equal(v) => current == Some(v),
            Condition::AbsentOrEqual(v) => current.is_none_or(|c| c == v),
            Condition::NotEqual(v) => current != Some(v),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TtlUpdate {
    /// Applied only if longer than the TTL left.
    IncreaseTo(Duration),
    /// Applied only if shorter than the TTL left.
    DecreaseTo(Duration),
    Overwrite(Duration),
}

#[derive(Debug, PartialEq, Eq)]
pub enum TtlOutcome {
    Set,
    NotSet,
    Missing,
}

/// Item and memory figures of a store that lives in this process.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoreStats {
    pub items: u64,
    /// Accounted bytes, including the per-item overhead.
    pub bytes: u64,
    pub evictions: u64,
    pub expirations: u64,
    pub caches: u64,
}
