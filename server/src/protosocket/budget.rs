//! What a protosocket connection holds of `--max-in-flight-bytes`: the
//! same budget as the gRPC port's, charged as a gRPC call is charged
//! (`crate::in_flight`), so that either port's clients can make room by
//! closing the other's connection holding the most.
//!
//! - A frame arriving in pieces is charged whole from its first piece (its
//!   length says how large it will be), as a gRPC request body is charged
//!   as it arrives. Past the bound the connection holding the most is
//!   closed to make room; if that is this one, this one is closed
//!   (`in_flight_limit`): a command cannot be answered before it is read.
//! - A command is charged [`CALL_OVERHEAD`] plus its frame from when it is
//!   read until it has run, as a gRPC call its overhead and body. If this
//!   connection holds the most, it is answered RESOURCE_EXHAUSTED, not run.
//! - An answer is charged from before it is encoded until it is written to
//!   the socket. With the bound spent it waits for room (the connection
//!   holding the most closed to make it), and the answers of the
//!   connection holding the most are RESOURCE_EXHAUSTED instead.

use std::sync::Arc;

use tonic::Status;

use crate::in_flight::{ConnectionState, InFlight};

pub use crate::in_flight::CALL_OVERHEAD;

/// One connection's share of the server's in-flight budget.
#[derive(Clone)]
pub struct Budget {
    in_flight: Arc<InFlight>,
    connection: Arc<ConnectionState>,
}

impl Budget {
    /// A new connection's share.
    pub fn open(in_flight: &Arc<InFlight>) -> Budget {
        Budget {
            in_flight: in_flight.clone(),
            connection: in_flight.connection(),
        }
    }

    /// The connection's state: its `close` is notified when the budget
    /// closes it to make room for others.
    pub fn connection(&self) -> &Arc<ConnectionState> {
        &self.connection
    }

    /// Charges `bytes` (closing the connection holding the most to make
    /// room, if need be); `None` if this connection holds the most.
    pub fn charge(&self, bytes: usize) -> Option<Charge> {
        self.in_flight
            .admit(bytes, Some(&self.connection))
            .then(|| Charge {
                budget: self.clone(),
                bytes,
            })
    }

    /// Charges an answer of `bytes`, once there is room to make it; `None`
    /// if it should be RESOURCE_EXHAUSTED instead.
    pub async fn charge_answer(&self, bytes: usize) -> Option<Charge> {
        if !self.in_flight.room_for_answer(&self.connection).await {
            return None;
        }
        self.charge(bytes)
    }

    /// The status of a command or answer refused by the bound.
    pub fn full_status(&self) -> Status {
        self.in_flight.full_status()
    }

    /// The in-flight budget, for the charges of answers a store reads into
    /// new memory (`in_flight::CallCharges`).
    pub fn in_flight(&self) -> &Arc<InFlight> {
        &self.in_flight
    }
}

/// Bytes charged to a connection, released when dropped.
pub struct Charge {
    budget: Budget,
    bytes: usize,
}

impl std::fmt::Debug for Charge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Charge({} bytes)", self.bytes)
    }
}

impl Charge {
    /// Raises the charge to `bytes` if it is less; `None` (and all of it
    /// released) if the bound refuses the rest.
    pub fn top_up(mut self, bytes: usize) -> Option<Charge> {
        if bytes > self.bytes {
            let more = self.budget.charge(bytes - self.bytes)?;
            self.bytes += more.bytes;
            std::mem::forget(more);
        }
        Some(self)
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        let Budget {
            in_flight,
            connection,
        } = &self.budget;
        in_flight.release(self.bytes, Some(connection));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus::IntGauge;

    #[tokio::test]
    async fn charges_are_released_when_dropped_and_the_hog_gives_way() {
        let in_flight = InFlight::new(100, IntGauge::new("in_flight", "test").unwrap());
        let (hog, other) = (Budget::open(&in_flight), Budget::open(&in_flight));
        let held = hog.charge(60).unwrap().top_up(90).unwrap();
        assert_eq!(in_flight.used(), 90);
        // The hog asking for more is refused, and what it asked is not kept.
        assert!(hog.charge(20).is_none());
        assert!(hog.charge(5).unwrap().top_up(20).is_none());
        assert_eq!(in_flight.used(), 90);
        assert!(hog.charge_answer(1).await.is_some_and(|c| c.bytes == 1));
        // The hog's answers give way once the budget is spent.
        let full = other.charge(10).unwrap();
        assert!(hog.charge_answer(1).await.is_none());
        // Another connection gets in and the hog is told to close.
        let answer = other.charge_answer(30).await.unwrap();
        tokio::time::timeout(
            std::time::Duration::from_secs(1),
            hog.connection().close.notified(),
        )
        .await
        .expect("the hog is told to close");
        drop((held, full, answer));
        assert_eq!(in_flight.used(), 0);
    }
}
