//! The connections still in their handshake, oldest first, shared by the
//! gRPC and protosocket ports: at `--max-connections` a new connection takes
//! the place of the oldest one, so silent sockets cannot keep clients out.
//!
//! A connection that has already sent bytes when it is accepted is not
//! registered: it is not silent, only not yet read. Under a flood of
//! connections the accept loop takes hundreds before the runtime first
//! polls the tasks it spawned (tens of milliseconds on two cores under the
//! attack tests' flood of 2,000 reconnecting sockets), so a client whose
//! first frame was waiting in its socket would otherwise be evicted unread.
//! Its handshake deadline still holds.

use std::collections::BTreeMap;
use std::mem::MaybeUninit;

use parking_lot::Mutex;
use tokio::net::TcpStream;
use tokio::task::AbortHandle;

#[derive(Default)]
pub struct InHandshake(Mutex<BTreeMap<u64, AbortHandle>>);

/// Whether `stream`'s peer has sent bytes that wait to be read: looked at
/// without reading them (and without waiting), once, as it is accepted.
pub(super) fn has_spoken(stream: &TcpStream) -> bool {
    let mut byte = [MaybeUninit::uninit()];
    matches!(socket2::SockRef::from(stream).peek(&mut byte), Ok(n) if n > 0)
}

impl InHandshake {
    /// Spawns connection `id`'s task with `spawn` and, unless the
    /// connection has already spoken, registers it: under the lock, so the
    /// task cannot finish its handshake (and unregister) before it is
    /// registered.
    pub fn spawn(&self, id: u64, spoken: bool, spawn: impl FnOnce() -> AbortHandle) {
        let mut waiting = self.0.lock();
        let task = spawn();
        if !spoken {
            waiting.insert(id, task);
        }
    }

    /// Closes the oldest connection in its handshake; false if there is
    /// none.
    pub fn evict_oldest(&self) -> bool {
        let oldest = self.0.lock().pop_first();
        oldest.map(|(_, task)| task.abort()).is_some()
    }

    /// Connection `id` has finished its handshake, or ended.
    pub fn done(&self, id: u64) {
        self.0.lock().remove(&id);
    }

    /// Closes every connection still in its handshake (at shutdown).
    pub fn abort_all(&self) {
        for (_, task) in std::mem::take(&mut *self.0.lock()) {
            task.abort();
        }
    }
}
