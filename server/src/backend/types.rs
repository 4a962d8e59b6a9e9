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
    /// The hash conditions of SetIfHash: each compares [`value_hash`] of
    /// the value held with the hash given.
    PresentAndHashEqual(Bytes),
    PresentAndNotHashEqual(Bytes),
    AbsentOrHashEqual(Bytes),
    AbsentOrNotHashEqual(Bytes),
    /// Always stores (SetIfHash's `unconditional`, the SDKs' setWithHash).
    Always,
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
            Condition::PresentAndHashEqual(h) => current.is_some_and(|c| value_hash(c) == h),
            Condition::PresentAndNotHashEqual(h) => current.is_some_and(|c| value_hash(c) != h),
            Condition::AbsentOrHashEqual(h) => current.is_none_or(|c| value_hash(c) == h),
            Condition::AbsentOrNotHashEqual(h) => current.is_none_or(|c| value_hash(c) != h),
            Condition::Always => true,
        }
    }
}

/// The hash of a value, as GetWithHash and SetIfHash answer it and the hash
/// conditions compare it: SHA-1, as 40 lowercase hex digits. SHA-1 because
/// Redis's Lua has it built in (`redis.sha1hex`), so both stores compute
/// the same hash where the value is; the SDKs only hand the hash back, so
/// any stable function would do, and this one is not used for security.
pub fn value_hash(value: &[u8]) -> Bytes {
    use std::fmt::Write;
    let digest = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, value);
    let mut hex = String::with_capacity(40);
    for byte in digest.as_ref() {
        write!(hex, "{byte:02x}").expect("writing to a String cannot fail");
    }
    Bytes::from(hex)
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
#[derive(Debug, Clone, Default)]
pub struct StoreStats {
    pub items: u64,
    /// Accounted bytes, including the per-item overhead.
    pub bytes: u64,
    pub evictions: u64,
    pub expirations: u64,
    pub caches: u64,
    /// Each cache's share of `items` and `bytes`, by name, sorted.
    pub per_cache: Vec<(String, CacheUsage)>,
}

/// One cache's items and charged bytes (what `--max-memory` counts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUsage {
    pub items: u64,
    pub bytes: u64,
}

/// The TTL of a collection write (the wire's `ttl_milliseconds` and
/// `refresh_ttl`): a write that creates the collection always gives it
/// `ttl`; a write to an existing one resets its TTL to `ttl` only when
/// `refresh` is set, and otherwise leaves the TTL it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectionTtl {
    pub ttl: Duration,
    pub refresh: bool,
}

/// What an item holds; ItemGetType answers it, and a call of one type on
/// an item of another is refused with [`crate::error::Error::WrongType`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemType {
    Scalar,
    Dictionary,
    Set,
    List,
    SortedSet,
    /// Never an item's type: leaderboards live apart from items
    /// (`backend/leaderboard.rs`), so no item call meets one.
    Leaderboard,
}

impl ItemType {
    /// The name the wrong-type message uses.
    pub fn name(self) -> &'static str {
        match self {
            ItemType::Scalar => "a scalar value",
            ItemType::Dictionary => "a dictionary",
            ItemType::Set => "a set",
            ItemType::List => "a list",
            ItemType::SortedSet => "a sorted set",
            ItemType::Leaderboard => "a leaderboard",
        }
    }

    /// The error for a call of type `self` on an item of type `found`.
    pub fn mismatch(self, found: ItemType) -> crate::error::Error {
        crate::error::Error::WrongType {
            expected: self.name(),
            found: found.name(),
        }
    }
}
