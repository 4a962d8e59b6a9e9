//! The names of the caches and the id each one currently answers to.
//!
//! Items are keyed by [`CacheId`], not by name, so flushing or deleting a
//! cache is one map update: the old id becomes unreachable at once and its
//! items are purged afterwards, shard by shard, without a global lock.

use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashMap;
use parking_lot::RwLock;

use super::CacheId;
use crate::error::Error;

pub(super) struct Registry {
    names: RwLock<HashMap<String, CacheId>>,
    /// Ids are never reused, so an item left under a dead id can never be
    /// read through a newer cache of the same name.
    next_id: AtomicU64,
    max_caches: usize,
}

impl Registry {
    pub(super) fn new(max_caches: usize) -> Self {
        Registry {
            names: RwLock::new(HashMap::new()),
            next_id: AtomicU64::new(0),
            max_caches,
        }
    }

    fn fresh_id(&self) -> CacheId {
        CacheId(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    pub(super) fn create(&self, name: &str) -> Result<(), Error> {
        let mut names = self.names.write();
        if names.contains_key(name) {
            return Err(Error::CacheAlreadyExists(name.to_owned()));
        }
        if names.len() >= self.max_caches {
            return Err(Error::TooManyCaches {
                limit: self.max_caches,
            });
        }
        names.insert(name.to_owned(), self.fresh_id());
        Ok(())
    }

    /// Forgets `name`; returns the id whose items must now be purged.
    pub(super) fn remove(&self, name: &str) -> Result<CacheId, Error> {
        self.names
            .write()
            .remove(name)
            .ok_or_else(|| Error::CacheNotFound(name.to_owned()))
    }

    /// Gives `name` a fresh id; returns the old one, whose items must now be purged.
    pub(super) fn renew(&self, name: &str) -> Result<CacheId, Error> {
        let mut names = self.names.write();
        let id = names
            .get_mut(name)
            .ok_or_else(|| Error::CacheNotFound(name.to_owned()))?;
        Ok(std::mem::replace(id, self.fresh_id()))
    }

    pub(super) fn id(&self, name: &str) -> Result<CacheId, Error> {
        self.names
            .read()
            .get(name)
            .copied()
            .ok_or_else(|| Error::CacheNotFound(name.to_owned()))
    }

    pub(super) fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.names.read().keys().cloned().collect();
        names.sort_unstable();
        names
    }

    /// Every cache's name and the id it answers to now.
    pub(super) fn ids(&self) -> Vec<(String, CacheId)> {
        let names = self.names.read();
        names.iter().map(|(name, &id)| (name.clone(), id)).collect()
    }

    pub(super) fn len(&self) -> usize {
        self.names.read().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renew_hands_out_a_new_id_and_returns_the_old() {
        let registry = Registry::new(4);
        registry.create("a").unwrap();
        let old = registry.id("a").unwrap();
        assert_eq!(registry.renew("a").unwrap(), old);
        assert_ne!(registry.id("a").unwrap(), old);
    }

    #[test]
    fn a_recreated_cache_does_not_reuse_the_old_id() {
        let registry = Registry::new(4);
        registry.create("a").unwrap();
        let old = registry.remove("a").unwrap();
        registry.create("a").unwrap();
        assert_ne!(registry.id("a").unwrap(), old);
    }

    #[test]
    fn unknown_names_are_not_found() {
        let registry = Registry::new(4);
        let missing = Err(Error::CacheNotFound("x".into()));
        assert_eq!(registry.id("x"), missing);
        assert_eq!(registry.remove("x"), missing);
        assert_eq!(registry.renew("x"), missing);
    }
}
