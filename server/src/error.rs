//! The one error type of the server, and how it travels on the wire.
//!
//! Every failure a handler can answer is a variant here. `From<Error> for
//! tonic::Status` is the only place that picks a gRPC status code and the
//! `err` trailer, so the official SDKs raise their own matching error types.

use std::time::Duration;

use tonic::metadata::MetadataValue;
use tonic::{Code, Status};

/// The machine-readable reasons of the `err` trailer, as the Momento SDKs read them.
///
/// A missing or existing *cache* carries no reason: the official JS SDK reads
/// `store_not_found` / `store_already_exists` as errors of Momento's separate
/// storage product, and raises its cache errors only when the trailer is absent.
pub mod reason {
    pub const ITEM_SIZE_LIMIT_EXCEEDED: &str = "item_size_limit_exceeded";
    pub const REQUEST_SIZE_LIMIT_EXCEEDED: &str = "request_size_limit_exceeded";
    pub const ELEMENT_SIZE_LIMIT_EXCEEDED: &str = "element_size_limit_exceeded";
    pub const TOPIC_SUBSCRIPTIONS_LIMIT_EXCEEDED: &str = "topic_subscriptions_limit_exceeded";
    pub const OPERATIONS_RATE_LIMIT_EXCEEDED: &str = "operations_rate_limit_exceeded";
    pub const THROUGHPUT_RATE_LIMIT_EXCEEDED: &str = "throughput_rate_limit_exceeded";
    /// Jiffy's own: a Get over the protosocket port whose value no answer
    /// there can carry; the SDKs read it over gRPC instead.
    pub const ANSWER_TOO_LARGE_FOR_PROTOSOCKET: &str = "answer_too_large_for_protosocket";

    /// Every reason above: each names a limit of the call or of its cache,
    /// never a server shedding load, so the SDKs' adaptive in-flight limit
    /// does not back off on them (`adaptive.drop_exempt_reasons` of
    /// `sdk/spec.json`, checked against this list by a test).
    pub const ALL: [&str; 7] = [
        ITEM_SIZE_LIMIT_EXCEEDED,
        REQUEST_SIZE_LIMIT_EXCEEDED,
        ELEMENT_SIZE_LIMIT_EXCEEDED,
        TOPIC_SUBSCRIPTIONS_LIMIT_EXCEEDED,
        OPERATIONS_RATE_LIMIT_EXCEEDED,
        THROUGHPUT_RATE_LIMIT_EXCEEDED,
        ANSWER_TOO_LARGE_FOR_PROTOSOCKET,
    ];
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    #[error("missing `cache` request header: every data-plane call names its cache there")]
    MissingCacheHeader,
    #[error(
        "cache `{0}` does not exist; create it first (CreateCache; CLI: jiffy cache create {0})"
    )]
    CacheNotFound(String),
    #[error("cache `{0}` already exists")]
    CacheAlreadyExists(String),
    #[error("cache name is invalid: {0}")]
    InvalidCacheName(String),
    #[error("this server already holds {limit} caches; delete one or raise --max-caches")]
    TooManyCaches { limit: usize },
    #[error("key is {size} bytes, over the limit of {limit} bytes (--max-key-size)")]
    KeyTooLarge { size: usize, limit: usize },
    #[error("key must not be empty")]
    EmptyKey,
    // "item size" is the phrase the JS SDK looks for to word its error.
    #[error("item size limit exceeded: value is {size} bytes, over the limit of {limit} bytes (--max-value-size)")]
    ValueTooLarge { size: usize, limit: usize },
    // "request limit" is the phrase the JS SDK looks for to word its error.
    // The protosocket port (`crate::protosocket`): the official client reads
    // no frame over 4 MiB, so a value it could not read back is refused.
    #[error("item size limit exceeded: value is {size} bytes, over the {limit} bytes a protosocket Get answer can carry; store it over gRPC")]
    ValueTooLargeForProtosocket { size: usize, limit: usize },
    #[error("the value is {size} bytes, over the {limit} bytes a protosocket answer can carry; read it over gRPC")]
    AnswerTooLargeForProtosocket { size: usize, limit: usize },
    #[error("request limit exceeded: the request is {size} bytes, over {limit} bytes (--max-request-size)")]
    RequestTooLarge { size: usize, limit: usize },
    #[error("request has {items} items or elements, over the limit of {limit} (--max-request-items); split it")]
    TooManyItems { items: usize, limit: usize },
    #[error("the collection would hold {elements} elements, over the limit of {limit} (--max-collection-elements)")]
    CollectionTooLarge { elements: usize, limit: usize },
    #[error("the answer would be {size} bytes or more, over the limit of {limit} (--max-response-size); ask for less at a time")]
    AnswerTooLarge { size: usize, limit: usize },
    /// A part of a list or sorted set: the Redis store sizes one by a walk
    /// that stops once past the limit, so neither store names a size that
    /// would depend on where a walk stopped.
    #[error("the answer would be over the limit of {limit} bytes (--max-response-size); ask for less at a time")]
    PartTooLarge { limit: usize },
    #[error("the union would read {elements} elements of its sources, over the limit of {limit} (--max-collection-elements); name fewer or smaller sources")]
    UnionTooLarge { elements: usize, limit: usize },
    // "item size" is the phrase the JS SDK looks for to word its error.
    #[error("item size limit exceeded: the item would be charged {size} bytes, over the {limit} bytes one item may hold (half of --max-memory)")]
    ItemTooLarge { size: u64, limit: u64 },
    #[error("element size limit exceeded: {what} is {size} bytes, over the limit of {limit} bytes (--max-value-size)")]
    ElementTooLarge {
        what: &'static str,
        size: usize,
        limit: usize,
    },
    #[error("the item is {found}, not {expected}; delete it first to use its key for {expected}")]
    WrongType {
        expected: &'static str,
        found: &'static str,
    },
    #[error("TTL must be at least 1 millisecond")]
    ZeroTtl,
    #[error("TTL of {} is over the limit of {} (--max-ttl)", humantime::format_duration(*.ttl), humantime::format_duration(*.limit))]
    TtlTooLong { ttl: Duration, limit: Duration },
    #[error("value is not a base-10 integer, so it cannot be incremented")]
    NotAnInteger,
    #[error("increment would overflow a signed 64-bit integer")]
    IncrementOverflow,
    #[error(
        "the resulting score would not be a finite number, so the sorted set is left as it was"
    )]
    ScoreNotFinite,
    #[error("{0}")]
    InvalidArgument(String),
    #[error("topic name is invalid: {0}")]
    InvalidTopicName(String),
    // "request limit" is the phrase the JS SDK looks for to word its error.
    #[error("request limit exceeded: the topic message is {size} bytes, over the limit of {limit} bytes (--max-topic-message-size)")]
    TopicMessageTooLarge { size: usize, limit: usize },
    // "subscribers" is the word the JS SDK looks for to word its error.
    #[error("cache `{cache}` already has {limit} subscriptions open, the most it may have (--max-topic-subscriptions): too many subscribers")]
    TooManySubscriptions { cache: String, limit: usize },
    #[error("the server already has {limit} subscriptions open, the most it may have (--max-subscriptions): too many subscribers")]
    TooManySubscriptionsTotal { limit: usize },
    #[error("subscriber too slow: it fell behind the topic's buffer {falls} times without catching up in between, so it would keep losing messages; read faster, or raise --topic-buffer-messages / --topic-buffer-bytes")]
    SubscriberTooSlow { falls: u32 },
    // "operations" and "throughput" are the words the SDKs look for when the
    // `err` trailer is absent (`crate::cache_limits`).
    #[error("cache `{cache}` is over its limit of {limit} calls a second: too many operations; slow down, or raise the cache's max-calls-per-second")]
    CallRateExceeded { cache: String, limit: u64 },
    #[error("cache `{cache}` is over its limit of {limit} bytes a second: throughput exceeded; slow down, or raise the cache's max-bytes-per-second")]
    ByteRateExceeded { cache: String, limit: u64 },
    #[error("cache `{cache}` is over its limit of {limit} publishes a second: too many operations; slow down, or raise the cache's max-publishes-per-second")]
    PublishRateExceeded { cache: String, limit: u64 },
    // "subscribers" is the word the JS SDK looks for to word its error.
    #[error("cache `{cache}` already has {limit} subscriptions open, its limit: too many subscribers; close one, or raise the cache's max-subscriptions")]
    CacheSubscriptionsExceeded { cache: String, limit: u64 },
    #[error("the server is shutting down; subscribe again (to another server)")]
    ShuttingDown,
    /// An answer refused by the in-flight bound (`crate::in_flight`).
    #[error("{0}")]
    InFlightFull(String),
    // Webhooks (`crate::webhooks`).
    #[error("signing key `{0}` does not exist: never made, revoked or expired")]
    SigningKeyNotFound(String),
    #[error(
        "this server already holds {limit} signing keys; revoke one or raise --max-signing-keys"
    )]
    TooManySigningKeys { limit: usize },
    #[error("webhook `{name}` of cache `{cache}` does not exist")]
    WebhookNotFound { cache: String, name: String },
    #[error("cache `{cache}` already has {limit} webhooks, the most a cache may have")]
    TooManyWebhooks { cache: String, limit: usize },
    #[error("the webhook's destination is refused: {0}")]
    WebhookRefused(String),
    #[error("the store is unavailable: {0}")]
    StoreUnavailable(String),
    #[error("the store failed: {0}")]
    StoreFailed(String),
    #[error(
        "the store is out of memory; give Redis a maxmemory-policy that evicts (volatile-lru): {0}"
    )]
    StoreFull(String),
}

impl Error {
    /// The status this error answers, on either port.
    pub fn code(&self) -> Code {
        self.code_and_reason().0
    }

    /// Counts the error in `jiffy_answers_refused_total` if it refused an
    /// answer for its size: the stores refuse far from any server's metrics.
    pub fn count_if_refused_answer(&self) {
        use crate::metrics::{
            count_refused_answer, REFUSED_OVER_MAX_RESPONSE_SIZE, REFUSED_OVER_PROTOSOCKET_FRAME,
        };
        match self {
            Error::AnswerTooLarge { .. } | Error::PartTooLarge { .. } => {
                count_refused_answer(REFUSED_OVER_MAX_RESPONSE_SIZE)
            }
            Error::AnswerTooLargeForProtosocket { .. } => {
                count_refused_answer(REFUSED_OVER_PROTOSOCKET_FRAME)
            }
            _ => {}
        }
    }

    /// The `err` reason this error answers with, on either port.
    pub fn reason(&self) -> Option<&'static str> {
        self.code_and_reason().1
    }

    fn code_and_reason(&self) -> (Code, Option<&'static str>) {
        use Error::*;
        match self {
            CacheNotFound(_) => (Code::NotFound, None),
            CacheAlreadyExists(_) => (Code::AlreadyExists, None),
            TooManyCaches { .. } => (Code::ResourceExhausted, None),
            ValueTooLarge { .. } | ValueTooLargeForProtosocket { .. } | ItemTooLarge { .. } => (
                Code::ResourceExhausted,
                Some(reason::ITEM_SIZE_LIMIT_EXCEEDED),
            ),
            RequestTooLarge { .. } | TooManyItems { .. } => (
                Code::ResourceExhausted,
                Some(reason::REQUEST_SIZE_LIMIT_EXCEEDED),
            ),
            ElementTooLarge { .. } => (
                Code::ResourceExhausted,
                Some(reason::ELEMENT_SIZE_LIMIT_EXCEEDED),
            ),
            CollectionTooLarge { .. }
            | AnswerTooLarge { .. }
            | PartTooLarge { .. }
            | UnionTooLarge { .. } => (Code::ResourceExhausted, None),
            TopicMessageTooLarge { .. } => (
                Code::ResourceExhausted,
                Some(reason::REQUEST_SIZE_LIMIT_EXCEEDED),
            ),
            TooManySubscriptions { .. }
            | TooManySubscriptionsTotal { .. }
            | CacheSubscriptionsExceeded { .. } => (
                Code::ResourceExhausted,
                Some(reason::TOPIC_SUBSCRIPTIONS_LIMIT_EXCEEDED),
            ),
            SubscriberTooSlow { .. } => (Code::ResourceExhausted, None),
            CallRateExceeded { .. } | PublishRateExceeded { .. } => (
                Code::ResourceExhausted,
                Some(reason::OPERATIONS_RATE_LIMIT_EXCEEDED),
            ),
            ByteRateExceeded { .. } => (
                Code::ResourceExhausted,
                Some(reason::THROUGHPUT_RATE_LIMIT_EXCEEDED),
            ),
            ShuttingDown => (Code::Unavailable, None),
            WebhookNotFound { .. } => (Code::NotFound, None),
            SigningKeyNotFound(_) => (Code::NotFound, None),
            TooManySigningKeys { .. } => (Code::ResourceExhausted, None),
            TooManyWebhooks { .. } => (Code::ResourceExhausted, None),
            WebhookRefused(_) => (Code::PermissionDenied, None),
            NotAnInteger | IncrementOverflow | ScoreNotFinite | WrongType { .. } => {
                (Code::FailedPrecondition, None)
            }
            StoreUnavailable(_) => (Code::Unavailable, None),
            StoreFailed(_) => (Code::Internal, None),
            StoreFull(_) | InFlightFull(_) => (Code::ResourceExhausted, None),
            AnswerTooLargeForProtosocket { .. } => (
                Code::ResourceExhausted,
                Some(reason::ANSWER_TOO_LARGE_FOR_PROTOSOCKET),
            ),
            MissingCacheHeader
            | InvalidCacheName(_)
            | KeyTooLarge { .. }
            | EmptyKey
            | ZeroTtl
            | TtlTooLong { .. }
            | InvalidArgument(_)
            | InvalidTopicName(_) => (Code::InvalidArgument, None),
        }
    }
}

impl From<Error> for Status {
    fn from(error: Error) -> Self {
        error.count_if_refused_answer();
        let (code, reason) = error.code_and_reason();
        let mut status = Status::new(code, error.to_string());
        if let Some(reason) = reason {
            status
                .metadata_mut()
                .insert("err", MetadataValue::from_static(reason));
        }
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_not_found_has_no_err_trailer() {
        let status = Status::from(Error::CacheNotFound("c".into()));
        assert_eq!(status.code(), Code::NotFound);
        assert!(status.metadata().get("err").is_none());
    }

    #[test]
    fn value_too_large_is_resource_exhausted() {
        let status = Status::from(Error::ValueTooLarge { size: 9, limit: 8 });
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(
            status.metadata().get("err").unwrap(),
            "item_size_limit_exceeded"
        );
        assert!(status.message().contains("--max-value-size"));
    }

    /// The SDKs back off on a RESOURCE_EXHAUSTED without a reason (the
    /// in-flight budget, a full store) and on none of the reasons above.
    #[test]
    fn the_sdks_exempt_every_reason_from_backing_off() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk/spec.json");
        let spec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut exempt: Vec<&str> = spec["adaptive"]["drop_exempt_reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|reason| reason.as_str().unwrap())
            .collect();
        exempt.sort_unstable();
        let mut ours = reason::ALL.to_vec();
        ours.sort_unstable();
        assert_eq!(exempt, ours);
        for full in [
            Error::InFlightFull(String::new()),
            Error::StoreFull(String::new()),
        ] {
            assert!(Status::from(full).metadata().get("err").is_none());
        }
    }
}
