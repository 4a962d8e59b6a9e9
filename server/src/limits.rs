//! The limits every request is checked against before it reaches the store.
//!
//! A request that breaks one is answered with its error and changes nothing:
//! handlers call these checks first, for every item of a batch, and only then
//! write.

use std::time::Duration;

use crate::error::Error;

/// The longest cache name accepted, in bytes.
pub const MAX_CACHE_NAME_LEN: usize = 255;

/// Per-request limits, from the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_key_size: usize,
    pub max_value_size: usize,
    /// Checked by the gRPC decoder before a message is parsed, so an oversized
    /// request costs no more memory than this.
    pub max_request_size: usize,
    pub max_ttl: Duration,
    /// Items in one GetBatch or SetBatch: each is a call on the store, so a
    /// huge batch would hold a worker and memory for the whole of it.
    pub max_batch_items: usize,
}

impl Limits {
    pub fn check_key(&self, key: &[u8]) -> Result<(), Error> {
        if key.is_empty() {
            return Err(Error::EmptyKey);
        }
        if key.len() > self.max_key_size {
            return Err(Error::KeyTooLarge {
                size: key.len(),
                limit: self.max_key_size,
            });
        }
        Ok(())
    }

    pub fn check_value(&self, value: &[u8]) -> Result<(), Error> {
        if value.len() > self.max_value_size {
            return Err(Error::ValueTooLarge {
                size: value.len(),
                limit: self.max_value_size,
            });
        }
        Ok(())
    }

    /// Turns a wire TTL in milliseconds into a duration within the limit.
    pub fn ttl(&self, milliseconds: u64) -> Result<Duration, Error> {
        if milliseconds == 0 {
            return Err(Error::ZeroTtl);
        }
        let ttl = Duration::from_millis(milliseconds);
        if ttl > self.max_ttl {
            return Err(Error::TtlTooLong {
                ttl,
                limit: self.max_ttl,
            });
        }
        Ok(ttl)
    }

    pub fn check_batch(&self, items: usize) -> Result<(), Error> {
        if items > self.max_batch_items {
            return Err(Error::TooManyBatchItems {
                items,
                limit: self.max_batch_items,
            });
        }
        Ok(())
    }

    pub fn check_item(&self, key: &[u8], value: &[u8], ttl_ms: u64) -> Result<Duration, Error> {
        self.check_key(key)?;
        self.check_value(value)?;
        self.ttl(ttl_ms)
    }
}

/// Cache names are 1 to 255 bytes of ASCII letters, digits, `-`, `_` and `.`:
/// safe in a header, a metric label, a log line and a Redis key prefix.
pub fn check_cache_name(name: &str) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::InvalidCacheName("it must not be empty".into()));
    }
    if name.len() > MAX_CACHE_NAME_LEN {
        return Err(Error::InvalidCacheName(format!(
            "it is {} bytes, over the limit of {MAX_CACHE_NAME_LEN}",
            name.len()
        )));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(Error::InvalidCacheName(format!(
            "{bad:?} is not allowed; use ASCII letters, digits, '-', '_' and '.'"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_key_size: 4,
        max_value_size: 8,
        max_request_size: 64,
        max_ttl: Duration::from_secs(60),
        max_batch_items: 3,
    };

    #[test]
    fn keys_must_be_nonempty_and_small() {
        assert_eq!(LIMITS.check_key(b""), Err(Error::EmptyKey));
        assert!(LIMITS.check_key(b"abcd").is_ok());
        assert_eq!(
            LIMITS.check_key(b"abcde"),
            Err(Error::KeyTooLarge { size: 5, limit: 4 })
        );
    }

    #[test]
    fn values_may_be_empty_but_not_large() {
        assert!(LIMITS.check_value(b"").is_ok());
        assert!(LIMITS.check_value(&[0; 8]).is_ok());
        assert!(matches!(
            LIMITS.check_value(&[0; 9]),
            Err(Error::ValueTooLarge { .. })
        ));
    }

    #[test]
    fn ttl_must_be_positive_and_within_the_limit() {
        assert_eq!(LIMITS.ttl(0), Err(Error::ZeroTtl));
        assert_eq!(LIMITS.ttl(60_000), Ok(Duration::from_secs(60)));
        assert!(matches!(LIMITS.ttl(60_001), Err(Error::TtlTooLong { .. })));
        assert!(matches!(
            LIMITS.ttl(u64::MAX),
            Err(Error::TtlTooLong { .. })
        ));
    }

    #[test]
    fn batches_are_limited_in_items() {
        assert!(LIMITS.check_batch(3).is_ok());
        assert_eq!(
            LIMITS.check_batch(4),
            Err(Error::TooManyBatchItems { items: 4, limit: 3 })
        );
    }

    #[test]
    fn cache_names() {
        assert!(check_cache_name("my-cache_1.v2").is_ok());
        assert!(check_cache_name("").is_err());
        assert!(check_cache_name("has space").is_err());
        assert!(check_cache_name("ünï").is_err());
        assert!(check_cache_name(&"a".repeat(255)).is_ok());
        assert!(check_cache_name(&"a".repeat(256)).is_err());
    }
}
