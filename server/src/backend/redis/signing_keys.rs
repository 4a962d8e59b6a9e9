//! The signing keys of presigned URLs (`crate::auth::signing_keys`), in one
//! hash every front-end reads: a key made on one is checked on all, and a
//! revoked one is refused by all at once.

use std::collections::HashMap;

use futures_util::future::BoxFuture;
use redis::{Cmd, FromRedisValue, Value};

use super::{keys, scripts, unexpected, RedisStore};
use crate::auth::signing_keys::{KeyRing, PublicKey};
use crate::error::Error;

impl RedisStore {
    /// `command` on the hash of signing keys, within `--store-timeout`.
    async fn on_keys<T: FromRedisValue>(&self, command: Cmd) -> Result<T, Error> {
        self.bounded(async {
            let mut connection = self.connection.get().await?;
            command.query_async(&mut connection).await
        })
        .await
    }
}

impl KeyRing for RedisStore {
    fn add(&self, key: PublicKey, cap: usize, now: u64) -> BoxFuture<'_, Result<bool, Error>> {
        Box::pin(async move {
            let mut invocation = scripts::SIGNING_KEY_ADD.prepare_invoke();
            invocation
                .key(keys::SIGNING_KEYS)
                .arg(&key.id)
                .arg(key.record())
                .arg(cap)
                .arg(now);
            match self.run(invocation).await? {
                Value::Int(added) => Ok(added == 1),
                other => Err(unexpected("signing_key_add", &other)),
            }
        })
    }

    fn find<'a>(
        &'a self,
        id: &'a str,
        now: u64,
    ) -> BoxFuture<'a, Result<Option<PublicKey>, Error>> {
        Box::pin(async move {
            let record: Option<String> = self.on_keys(Cmd::hget(keys::SIGNING_KEYS, id)).await?;
            Ok(record
                .and_then(|record| PublicKey::from_record(id, &record))
                .filter(|key| key.expires_at > now))
        })
    }

    fn list(&self, now: u64) -> BoxFuture<'_, Result<Vec<PublicKey>, Error>> {
        Box::pin(async move {
            let records: HashMap<String, String> =
                self.on_keys(Cmd::hgetall(keys::SIGNING_KEYS)).await?;
            Ok(records
                .iter()
                .filter_map(|(id, record)| PublicKey::from_record(id, record))
                .filter(|key| key.expires_at > now)
                .collect())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, Error>> {
        Box::pin(async move {
            let removed: i64 = self.on_keys(Cmd::hdel(keys::SIGNING_KEYS, id)).await?;
            Ok(removed == 1)
        })
    }
}
