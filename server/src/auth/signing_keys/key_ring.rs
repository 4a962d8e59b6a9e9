//! Where the signing keys live, and what is kept of each.

use std::collections::HashMap;

use futures_util::future::BoxFuture;
use parking_lot::Mutex;

use crate::error::Error;

/// What the server keeps of a signing key: its id, the public point (the
/// JWK's base64url `x` and `y`) and when it expires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    pub id: String,
    pub x: String,
    pub y: String,
    /// Seconds since the epoch; from then on the key signs nothing.
    pub expires_at: u64,
}

impl PublicKey {
    /// As one string (`<expires_at> <x> <y>`), as the Redis store keeps it.
    pub fn record(&self) -> String {
        format!("{} {} {}", self.expires_at, self.x, self.y)
    }

    /// The key `id` from its [`record`](Self::record).
    pub fn from_record(id: &str, record: &str) -> Option<PublicKey> {
        let mut parts = record.split(' ');
        let expires_at = parts.next()?.parse().ok()?;
        let (x, y) = (parts.next()?, parts.next()?);
        Some(PublicKey {
            id: id.to_owned(),
            x: x.to_owned(),
            y: y.to_owned(),
            expires_at,
        })
    }
}

/// Where the signing keys live: shared by every front-end of one store.
/// Expired keys are never answered, and are dropped when the ring is full.
pub trait KeyRing: Send + Sync + 'static {
    /// Adds `key` unless `cap` live keys are held already (false then).
    fn add(&self, key: PublicKey, cap: usize, now: u64) -> BoxFuture<'_, Result<bool, Error>>;
    /// The live key `id`, if there is one.
    fn find<'a>(&'a self, id: &'a str, now: u64)
        -> BoxFuture<'a, Result<Option<PublicKey>, Error>>;
    /// Every live key.
    fn list(&self, now: u64) -> BoxFuture<'_, Result<Vec<PublicKey>, Error>>;
    /// Removes key `id`; false when there was none.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, Error>>;
}

/// The keys of this process, for the embedded store.
#[derive(Default)]
pub struct LocalKeyRing {
    keys: Mutex<HashMap<String, PublicKey>>,
}

impl KeyRing for LocalKeyRing {
    fn add(&self, key: PublicKey, cap: usize, now: u64) -> BoxFuture<'_, Result<bool, Error>> {
        let mut keys = self.keys.lock();
        if keys.len() >= cap {
            keys.retain(|_, key| key.expires_at > now);
        }
        let added = keys.len() < cap;
        if added {
            keys.insert(key.id.clone(), key);
        }
        Box::pin(async move { Ok(added) })
    }

    fn find<'a>(
        &'a self,
        id: &'a str,
        now: u64,
    ) -> BoxFuture<'a, Result<Option<PublicKey>, Error>> {
        let found = self
            .keys
            .lock()
            .get(id)
            .filter(|key| key.expires_at > now)
            .cloned();
        Box::pin(async move { Ok(found) })
    }

    fn list(&self, now: u64) -> BoxFuture<'_, Result<Vec<PublicKey>, Error>> {
        let live = self
            .keys
            .lock()
            .values()
            .filter(|key| key.expires_at > now)
            .cloned()
            .collect();
        Box::pin(async move { Ok(live) })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, Error>> {
        let removed = self.keys.lock().remove(id).is_some();
        Box::pin(async move { Ok(removed) })
    }
}
