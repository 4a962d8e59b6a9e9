//! The list calls of the Redis store.

use std::sync::Arc;

use super::RedisStore;
use crate::backend::ListStorage;

impl ListStorage for Arc<RedisStore> {}
