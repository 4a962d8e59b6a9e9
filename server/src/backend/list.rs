//! The list calls, implemented by the embedded store in
//! `store/list.rs` and by the Redis store in `backend/redis/list.rs`.

use super::Caches;

pub trait ListStorage: Caches {}
