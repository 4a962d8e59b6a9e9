//! The dictionary calls, implemented by the embedded store in
//! `store/dictionary.rs` and by the Redis store in `backend/redis/dictionary.rs`.

use super::Caches;

pub trait DictionaryStorage: Caches {}
