//! The sorted set calls of the Redis store.

use std::sync::Arc;

use super::RedisStore;
use crate::backend::SortedSetStorage;

impl SortedSetStorage for Arc<RedisStore> {}
