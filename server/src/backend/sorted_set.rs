//! The sorted set calls, implemented by the embedded store in
//! `store/sorted_set.rs` and by the Redis store in `backend/redis/sorted_set.rs`.

use super::Caches;

pub trait SortedSetStorage: Caches {}
