//! The dictionary calls of the Redis store.

use std::sync::Arc;

use super::RedisStore;
use crate::backend::DictionaryStorage;

impl DictionaryStorage for Arc<RedisStore> {}
