//! Active expiry: one background task per shard frees expired items even if
//! nobody reads them again, so memory held by dead items is given back.
//!
//! In the manner of mini-redis `db.rs`: the task sleeps until its shard's
//! earliest deadline, or until a write that sets an earlier one wakes it
//! through a `Notify` (the writer releases the shard lock first). Purges run
//! in batches of [`BATCH`] per lock hold, with a yield between, so a mass
//! expiry never stalls requests on that shard.

use std::sync::{Arc, Weak};

use tokio::sync::Notify;
use tokio::time::Instant;

use super::Store;

/// Items freed per lock hold before the task yields.
pub(super) const BATCH: usize = 256;

/// What the shard still has to expire after a batch.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Pending {
    /// Expired items remain: yield, then purge again.
    More,
    /// Nothing due until this instant.
    At(Instant),
    /// No deadlines at all.
    Idle,
}

/// Spawns the task of every shard. The tasks hold only a `Weak`, and the
/// store's `Drop` wakes them, so they end with the store.
pub(super) fn spawn(store: &Arc<Store>) {
    for (index, wake) in store.wakers().enumerate() {
        tokio::spawn(run(Arc::downgrade(store), index, wake));
    }
}

async fn run(store: Weak<Store>, shard: usize, wake: Arc<Notify>) {
    loop {
        // The strong reference lives only for the batch, never across an await.
        let pending = match store.upgrade() {
            Some(store) => store.expire_shard(shard, BATCH),
            None => return,
        };
        match pending {
            Pending::More => tokio::task::yield_now().await,
            Pending::At(deadline) => {
                tokio::select! {
                    _ = tokio::time::sleep_until(deadline) => {}
                    _ = wake.notified() => {}
                }
            }
            Pending::Idle => wake.notified().await,
        }
    }
}
