//! The connections one port holds, against `--max-connections`.
//!
//! A connection evicted at the cap (see [`super::in_handshake`]) is closed
//! when the runtime drops its task, which under a flood of new connections
//! can be thousands of accepts later: counted only by the cap, the port
//! would hold several times its cap in sockets. So the accept loop waits
//! while more than [`CLOSING_SLACK`] connections past the cap are still
//! closing; the kernel's listen backlog holds the newcomers meanwhile, and
//! the accept loop cannot run far ahead of the tasks it spawns.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::in_handshake::{has_spoken, InHandshake};
use crate::close::CloseReason;
use crate::metrics::Metrics;

/// Connections past the cap that may still be closing before the port
/// stops accepting until they have.
pub const CLOSING_SLACK: usize = 32;

pub struct Slots {
    max: usize,
    open: AtomicUsize,
    freed: Notify,
    metrics: Arc<Metrics>,
}

impl Slots {
    pub fn new(max: usize, metrics: Arc<Metrics>) -> Arc<Slots> {
        Arc::new(Slots {
            max,
            open: AtomicUsize::new(0),
            freed: Notify::new(),
            metrics,
        })
    }

    /// Waits until fewer than the cap plus [`CLOSING_SLACK`] are open.
    pub async fn room_to_accept(&self) {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before the count is read: a slot freed in between
            // still wakes it.
            freed.as_mut().enable();
            if self.open.load(Ordering::Acquire) < self.max + CLOSING_SLACK {
                return;
            }
            freed.await;
        }
    }

    /// A connection just accepted, if it may open: room made for it,
    /// TCP_NODELAY set and counted as open, with whether it has already
    /// spoken (see [`super::in_handshake`]). None: closed at the cap.
    pub fn admit(
        self: &Arc<Self>,
        stream: &TcpStream,
        in_handshake: &InHandshake,
    ) -> Option<Admitted> {
        if !self.make_room(in_handshake) {
            return None;
        }
        // Requests are small and latency-bound: never wait to coalesce.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        Some(Admitted {
            slot: self.take(),
            spoken: has_spoken(stream),
        })
    }

    /// True if a new connection may open: under the cap, or the oldest one
    /// in its handshake was closed to make room. Either close is counted.
    fn make_room(&self, in_handshake: &InHandshake) -> bool {
        if self.open.load(Ordering::Acquire) < self.max {
            return true;
        }
        let evicted = in_handshake.evict_oldest();
        self.metrics.connection_closed(if evicted {
            CloseReason::Evicted
        } else {
            CloseReason::OverLimit
        });
        evicted
    }

    /// Counts a new connection as open until the returned guard drops.
    fn take(self: &Arc<Self>) -> Slot {
        self.open.fetch_add(1, Ordering::AcqRel);
        self.metrics.open_connections.inc();
        self.metrics.connections.inc();
        Slot {
            slots: self.clone(),
        }
    }
}

/// A connection [`Slots::admit`] let in.
pub struct Admitted {
    pub slot: Slot,
    /// It had sent bytes by the time it was accepted: never evicted.
    pub spoken: bool,
}

/// One open connection, counted until it drops, whatever ends it.
pub struct Slot {
    slots: Arc<Slots>,
}

impl Slot {
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.slots.metrics
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.open.fetch_sub(1, Ordering::AcqRel);
        self.slots.metrics.open_connections.dec();
        self.slots.freed.notify_waiters();
    }
}
