//! The set calls of the Redis store.

use std::sync::Arc;

use super::RedisStore;
use crate::backend::SetStorage;

impl SetStorage for Arc<RedisStore> {}
