//! What the bad-input tests share: a server with small limits and a
//! baseline, and builders for the requests they bend.

use bytes::Bytes;
use jiffy_server::proto::cache_client::*;

use super::baseline::{Baseline, CACHE};
use super::{in_cache, TestServer};

pub const SMALL: &[&str] = &[
    "--max-key-size",
    "16B",
    "--max-value-size",
    "1KiB",
    "--max-request-size",
    "4KiB",
    "--max-ttl",
    "1h",
    "--max-caches",
    "4",
];
pub const MAX_TTL_MS: u64 = 3_600_000;

pub async fn start() -> (TestServer, Baseline) {
    let server = TestServer::with_args(SMALL).await;
    let baseline = Baseline::create(&server.url(), Some(server.metrics_addr)).await;
    (server, baseline)
}

/// The bad calls were answered on the baseline's connection, which is still
/// good, and changed nothing.
pub async fn assert_nothing_changed(baseline: &Baseline) {
    baseline.assert_connection_kept().await;
    baseline.assert_unchanged().await;
}

/// `message` as a call in the baseline's cache, `c`.
pub fn in_c<T>(message: T) -> tonic::Request<T> {
    in_cache(CACHE, message)
}

pub fn bytes(b: &[u8]) -> Bytes {
    Bytes::copy_from_slice(b)
}

pub fn set(key: &[u8], value: &[u8], ttl_ms: u64) -> SetRequest {
    SetRequest {
        cache_key: bytes(key),
        cache_body: bytes(value),
        ttl_milliseconds: ttl_ms,
    }
}

pub fn set_if(key: &[u8], value: &[u8], ttl_ms: u64) -> SetIfRequest {
    SetIfRequest {
        cache_key: bytes(key),
        cache_body: bytes(value),
        ttl_milliseconds: ttl_ms,
        condition: Some(set_if_request::Condition::Present(
            jiffy_server::proto::common::Present {},
        )),
    }
}

pub fn set_if_absent(key: &[u8], value: &[u8], ttl_ms: u64) -> SetIfNotExistsRequest {
    SetIfNotExistsRequest {
        cache_key: bytes(key),
        cache_body: bytes(value),
        ttl_milliseconds: ttl_ms,
    }
}

pub fn increment(key: &[u8], amount: i64, ttl_ms: u64) -> IncrementRequest {
    IncrementRequest {
        cache_key: bytes(key),
        amount,
        ttl_milliseconds: ttl_ms,
    }
}

pub fn update_ttl(key: &[u8], update: update_ttl_request::UpdateTtl) -> UpdateTtlRequest {
    UpdateTtlRequest {
        cache_key: bytes(key),
        update_ttl: Some(update),
    }
}
