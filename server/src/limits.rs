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
    /// Items in one GetBatch or SetBatch, or elements (fields, values) in
    /// one collection call: each is work under a lock or a call on the
    /// store, so a huge request would hold a worker for the whole of it.
    pub max_request_items: usize,
    /// Elements one collection may hold.
    pub max_collection_elements: usize,
    /// The largest answer built, encoded. Without it one DictionaryGet
    /// naming a large field 10,000 times (a 30 KB request) made the server
    /// encode fields x value: gigabytes, and an abort when the allocation
    /// failed. Checked before the answer is encoded, from the sizes of the
    /// values the store shares (`Bytes`), so a refusal costs no copy.
    pub max_response_size: usize,
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

    pub fn check_request_items(&self, items: usize) -> Result<(), Error> {
        if items > self.max_request_items {
            return Err(Error::TooManyItems {
                items,
                limit: self.max_request_items,
            });
        }
        Ok(())
    }

    /// A field, element or value of a collection: at most `--max-value-size`.
    pub fn check_element(&self, what: &'static str, element: &[u8]) -> Result<(), Error> {
        if element.len() > self.max_value_size {
            return Err(Error::ElementTooLarge {
                what,
                size: element.len(),
                limit: self.max_value_size,
            });
        }
        Ok(())
    }

    /// A write that leaves a collection holding `elements`.
    pub fn check_collection_size(&self, elements: usize) -> Result<(), Error> {
        if elements > self.max_collection_elements {
            return Err(Error::CollectionTooLarge {
                elements,
                limit: self.max_collection_elements,
            });
        }
        Ok(())
    }

    /// An answer about to be encoded: at most `--max-response-size`.
    /// `encoded_len` walks the message and adds up lengths; the values it
    /// holds are shared with the store, so nothing has been copied yet.
    pub fn check_answer(&self, answer: &impl prost::Message) -> Result<(), Error> {
        let size = answer.encoded_len();
        if size > self.max_response_size {
            return Err(Error::AnswerTooLarge {
                size,
                limit: self.max_response_size,
            });
        }
        Ok(())
    }

    /// A union about to read `elements` elements of its sources, counting
    /// a source named twice twice: the work (and, unfolded, the copies)
    /// it costs. At most `--max-collection-elements`, what one collection
    /// may hold: a union of more is refused before any source is read.
    pub fn check_union_work(&self, elements: usize) -> Result<(), Error> {
        if elements > self.max_collection_elements {
            return Err(Error::UnionTooLarge {
                elements,
                limit: self.max_collection_elements,
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
pub(crate) mod tests {
    use super::*;

    /// Small limits, for the tests of the checks that take them.
    pub(crate) const LIMITS: Limits = Limits {
        max_key_size: 4,
        max_value_size: 8,
        max_request_size: 64,
        max_ttl: Duration::from_secs(60),
        max_request_items: 3,
        max_collection_elements: 5,
        max_response_size: 16,
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
        assert!(LIMITS.check_request_items(3).is_ok());
        assert_eq!(
            LIMITS.check_request_items(4),
            Err(Error::TooManyItems { items: 4, limit: 3 })
        );
        assert!(LIMITS.check_collection_size(5).is_ok());
        assert!(LIMITS.check_collection_size(6).is_err());
        assert!(LIMITS.check_element("field", &[0; 8]).is_ok());
        assert!(matches!(
            LIMITS.check_element("field", &[0; 9]),
            Err(Error::ElementTooLarge { .. })
        ));
    }

    #[test]
    fn answers_are_limited_in_encoded_bytes() {
        use crate::proto::cache_client::GetResponse;
        let answer = |size: usize| GetResponse {
            result: 2,
            cache_body: vec![0; size].into(),
            message: String::new(),
        };
        // A tag and a result, a tag and a length: 4 bytes besides the value.
        assert!(LIMITS.check_answer(&answer(12)).is_ok());
        assert_eq!(
            LIMITS.check_answer(&answer(13)),
            Err(Error::AnswerTooLarge {
                size: 17,
                limit: 16
            })
        );
        assert!(LIMITS.check_union_work(5).is_ok());
        assert!(LIMITS.check_union_work(6).is_err());
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
