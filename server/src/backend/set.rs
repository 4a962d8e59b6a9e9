//! The set calls, implemented by the embedded store in
//! `store/set.rs` and by the Redis store in `backend/redis/set.rs`.

use super::Caches;

pub trait SetStorage: Caches {}
