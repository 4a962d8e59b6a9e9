//! Memory held for requests and answers in flight, counted and bounded.
//!
//! `--max-memory` bounds items; this bounds the other memory a client can
//! make the server hold: request bodies being received and answers waiting
//! for a client's flow-control window. Without it one connection that never
//! reads could pin hundreds of MiB of answers, and a few could exhaust the
//! machine (see docs/RELIABILITY.md, "Attacks").
//!
//! - [`RequestBody`] charges each chunk of a request body as it arrives and
//!   releases it when the body is dropped (tonic drops it once decoded). A
//!   chunk that would take the total past the budget fails its call with
//!   RESOURCE_EXHAUSTED; a body still incomplete after `--request-timeout`
//!   fails with DEADLINE_EXCEEDED.
//! - [`AnswerBody`] charges each answer frame it makes, and the charge
//!   stays with the frame's bytes until HTTP/2 has written them to the
//!   socket ([`Charged`]): each chunk handed to hyper carries a charge,
//!   released when h2 drops it, which it does once written (or once its
//!   stream or connection is gone); a frame of several chunks, which share
//!   its buffer, is charged whole until the last of them goes. A client
//!   that opens wide windows and never reads would otherwise leave each
//!   stream's answer in h2's send buffer, uncounted, and a stream whose
//!   whole answer is queued no longer counts against the stream limit, so
//!   it could open more.
//!   A frame is only made (encoded: tonic copies the message into a new
//!   buffer) while the budget has room: HTTP/2 asks for every stream's
//!   first frame before the client's window allows sending it, so the
//!   answers of a client that never reads would otherwise all be encoded
//!   and held. With the budget spent an answer waits for room (the
//!   connection holding the most being closed to make it), or, if its own
//!   connection holds the most or is closing, ends RESOURCE_EXHAUSTED.
//!   Frames are cut into [`CHUNK`]s, and a chunk not written is a stalled
//!   answer on its connection: chunks that wait with none written for
//!   `--send-timeout` close it ([`ConnectionState`]).
//! - Each call is charged [`CALL_OVERHEAD`] from its HEADERS until it is
//!   answered (`RpcLayer`); past the bound the connection holding the most
//!   is closed, or, if that is the caller's, the call is refused with
//!   RESOURCE_EXHAUSTED.
//!
//! - An answer read from a store that copies it (Redis) is charged before
//!   its bytes leave the store: a reply over [`SMALL_ANSWER`] is first
//!   announced by its size, charged to the call's connection
//!   ([`reserve_answer`], through [`CallCharges`] the call carries), then
//!   fetched. Past the bound it is refused like a call's overhead. The
//!   charge moves to the encoded frames as the answer is encoded. Without
//!   it, 400 Gets of 4 MiB from clients that never read pulled 1.6 GB from
//!   Redis before any answer was counted, and queued every other call
//!   behind it on the connection to Redis. The bytes such answers have on
//!   their way from Redis are bounded by the Redis store itself
//!   (`RedisStore::run_large_item`): an answer asked for still arrives
//!   after its call is dropped.
//!
//! Past the bound, what connections already told to close still hold
//! counts as room coming: for the charge that told one to close (the room
//! it made is its own: the client asking is served while the hog closes),
//! and for small charges (a call's overhead, a small answer), while those
//! connections' streams are dropped. Any other larger charge waits for the
//! room to be there, or is refused: each new connection's first answers
//! charged against room still held by the connections closing would pass
//! the bound by whole answers.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};
use parking_lot::Mutex;
use prometheus::IntGauge;
use tokio::time::{Instant, Sleep};
use tonic::Status;

use crate::error::Error;

/// The largest answer frame handed to HTTP/2 at once: h2 buffers a frame
/// whole whatever the client's window, so this bounds what a stalled stream
/// holds beyond what it is charged for.
pub const CHUNK: usize = 64 << 10;

/// What one call costs before any body byte: its stream, headers and
/// handler state. Charged from its HEADERS while the call is handled, so
/// that streams that send HEADERS and then nothing are bounded by the
/// budget too. Measured at about 6 KiB with 20,000 streams held open; a
/// client that opens streams as fast as the bound lets it (a new one for
/// each refused or closed) keeps streams whose charge is released but
/// whose state is not yet freed, so each is charged more than it holds at
/// rest (tests/attacks.rs, `headers_without_data`). 100 calls of one
/// connection are 1.6 MiB; the default bound fits 16,000 at once.
pub const CALL_OVERHEAD: usize = 16 << 10;

/// What an answer chunk waiting in h2 holds beyond its bytes, charged
/// with it until written: its share of the stream's state, its frame and
/// the answer's headers and trailers queued behind it. A stream whose
/// answer is queued whole is closed for h2's stream limit but kept until
/// written, so a client that never reads could otherwise pile up streams
/// of small answers.
pub const CHUNK_OVERHEAD: usize = 2 << 10;

/// h2's send buffer per stream (hyper's default is 400 KiB): what h2 takes
/// of an answer beyond what the socket has taken. Two chunks keep a stream
/// busy while the socket drains; more only queues, charged, in memory.
pub const SEND_BUFFER: usize = 2 * CHUNK;

/// An answer this small is not reserved before it is read from the store:
/// the call's [`CALL_OVERHEAD`] already pays for it.
pub const SMALL_ANSWER: usize = CALL_OVERHEAD;

/// A connection holding less than this of the budget is not made to wait
/// for room to encode an answer (see [`AnswerBody`]).
pub const LIGHT_CONNECTION: usize = 1 << 20;

/// The largest charge taken against room coming (what connections told to
/// close still hold, see [`InFlight::make_room`]) rather than room there:
/// a call's overhead with its request or a small answer (a protosocket
/// command is charged its overhead plus its frame), so that a well-behaved
/// client is served while the connections holding the budget close.
/// Anything larger waits until their streams are dropped, or is refused,
/// unless it is the charge that told a connection to close
/// ([`InFlight::admit`]).
pub const ROOM_COMING_CHARGE: usize = CALL_OVERHEAD + SMALL_ANSWER;

/// The process-wide count of bytes in flight, and its bound.
pub struct InFlight {
    used: AtomicUsize,
    limit: usize,
    gauge: IntGauge,
    /// Every open connection, to find the one holding the most when the
    /// budget is spent. Dead entries are dropped as the list grows.
    connections: Mutex<Vec<Weak<ConnectionState>>>,
    /// Woken when the total falls back under the bound: answers waiting for
    /// room to be encoded in ([`AnswerBody`]).
    room: Arc<tokio::sync::Notify>,
    /// Answers waiting for room for their encoding, which may need more
    /// than the total falling under the bound, and the largest encoding
    /// they wait for: a release that makes room for it wakes them all
    /// (not every release: 800 such answers woken by each one kept the
    /// runtime from the other calls).
    waiting: AtomicUsize,
    waiting_for: AtomicUsize,
}

impl InFlight {
    pub fn new(limit: usize, gauge: IntGauge) -> Arc<InFlight> {
        Arc::new(InFlight {
            used: AtomicUsize::new(0),
            limit,
            gauge,
            connections: Mutex::new(Vec::new()),
            room: Arc::new(tokio::sync::Notify::new()),
            waiting: AtomicUsize::new(0),
            waiting_for: AtomicUsize::new(0),
        })
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// A new connection's state, known to the budget.
    pub fn connection(&self) -> Arc<ConnectionState> {
        let state = Arc::new(ConnectionState::default());
        let mut connections = self.connections.lock();
        if connections.len() >= 1024 && connections.len().is_power_of_two() {
            connections.retain(|c| c.strong_count() > 0);
        }
        connections.push(Arc::downgrade(&state));
        state
    }

    /// Charges `bytes` if they fit. Past the bound room is made
    /// ([`Self::find_room`]), and the charge is taken at once against the
    /// room coming (the memory of the connections closing, freed as their
    /// streams are dropped, a moment later) if it is the charge that told a
    /// connection to close, whose room is its own, or if it is at most
    /// [`ROOM_COMING_CHARGE`]. Any other charge is not taken until that
    /// memory is freed: room still held, lent to every charge, let the
    /// bound be passed by a whole answer per charge. So while connections
    /// close, the total passes the bound by at most what they hold. False
    /// (nothing charged) if there is no room yet, or `own` holds the most.
    pub fn admit(&self, bytes: usize, own: Option<&ConnectionState>) -> bool {
        if self.used() + bytes > self.limit {
            match self.find_room(bytes, own) {
                Room::Made => {}
                Room::Coming if bytes <= ROOM_COMING_CHARGE => {}
                Room::Coming | Room::None => return false,
            }
        }
        self.charge(bytes, own);
        true
    }

    /// True if `bytes` more fit under the bound now (with nothing to add,
    /// if the budget is not spent).
    fn fits(&self, bytes: usize) -> bool {
        match bytes {
            0 => !self.is_spent(),
            bytes => self.used() + bytes <= self.limit,
        }
    }

    /// Charges `bytes` if they fit under the bound as it is; closes nothing.
    pub fn admit_if_room(&self, bytes: usize, own: Option<&ConnectionState>) -> bool {
        if self.used() + bytes > self.limit {
            return false;
        }
        self.charge(bytes, own);
        true
    }

    /// True if the budget is spent: a caller about to make bytes (encode an
    /// answer) should make room first, or give up.
    pub fn is_spent(&self) -> bool {
        self.used() >= self.limit
    }

    /// Makes room for `bytes`: true if the connections already closing
    /// will free enough, or will once the connection holding the most of
    /// the others is told to close. That one is closed unless it is `own`
    /// (refused then: the caller is the one holding the most); a single one
    /// per call, so that a budget spent by many small calls refuses a large
    /// one rather than closing many connections for it. Nobody is closed
    /// when that would not make the room: an answer larger than the worst
    /// connection holds is refused, and the innocent connection that
    /// happens to hold the most (a client making small calls) stays.
    pub fn make_room(&self, bytes: usize, own: Option<&ConnectionState>) -> bool {
        !matches!(self.find_room(bytes, own), Room::None)
    }

    /// [`Self::make_room`], saying whether the room is coming from
    /// connections already closing or was made by telling one to close.
    fn find_room(&self, bytes: usize, own: Option<&ConnectionState>) -> Room {
        let connections = self.connections.lock();
        let mut coming = 0;
        let mut worst: Option<Arc<ConnectionState>> = None;
        for connection in connections.iter().filter_map(Weak::upgrade) {
            let held = connection.held.load(Ordering::Relaxed);
            if connection.closing.load(Ordering::Relaxed) {
                coming += held;
            } else if worst
                .as_ref()
                .is_none_or(|w| held > w.held.load(Ordering::Relaxed))
            {
                worst = Some(connection);
            }
        }
        drop(connections);
        if self.used().saturating_sub(coming) + bytes <= self.limit {
            return Room::Coming;
        }
        let Some(worst) = worst else {
            return Room::None;
        };
        if own.is_some_and(|own| std::ptr::eq(own, &*worst)) {
            return Room::None;
        }
        coming += worst.held.load(Ordering::Relaxed);
        if self.used().saturating_sub(coming) + bytes > self.limit {
            return Room::None;
        }
        worst.closing.store(true, Ordering::Relaxed);
        worst.close.notify_one();
        Room::Made
    }

    fn charge(&self, bytes: usize, connection: Option<&ConnectionState>) {
        self.used.fetch_add(bytes, Ordering::Relaxed);
        self.gauge.add(bytes as i64);
        if let Some(connection) = connection {
            connection.held.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    pub fn release(&self, bytes: usize, connection: Option<&ConnectionState>) {
        if bytes > 0 {
            let before = self.used.fetch_sub(bytes, Ordering::Relaxed);
            let after = before - bytes;
            let under = before >= self.limit && after < self.limit;
            // Answers waiting, and room for the largest of them (a
            // largest not yet known counts as any).
            let room = self.waiting.load(Ordering::Relaxed) > 0
                && after + self.waiting_for.load(Ordering::Relaxed) <= self.limit;
            if under || room {
                self.room.notify_waiters();
            }
            self.gauge.sub(bytes as i64);
            if let Some(connection) = connection {
                connection.held.fetch_sub(bytes, Ordering::Relaxed);
            }
        }
    }

    /// Waits until an answer of `own` may be made (encoded), as
    /// [`AnswerBody`] waits for a gRPC answer: at once while the budget has
    /// room, or for a connection holding next to nothing; otherwise the
    /// connection holding the most is closed to make room and this waits
    /// for it. False if the answer should give way instead: `own` is
    /// closing, or holds the most itself.
    pub async fn room_for_answer(&self, own: &ConnectionState) -> bool {
        loop {
            if own.closing.load(Ordering::Relaxed) {
                return false;
            }
            if !self.is_spent() {
                return true;
            }
            if !self.make_room(0, Some(own)) {
                return false;
            }
            if own.held.load(Ordering::Relaxed) < LIGHT_CONNECTION {
                return true;
            }
            let room = self.room.notified();
            tokio::pin!(room);
            // Registered before the check again, so a release in between
            // still wakes this one.
            room.as_mut().enable();
            if !self.is_spent() {
                return true;
            }
            room.await;
        }
    }

    /// The status of a call refused, or failed, because the budget is spent.
    pub fn full_status(&self) -> Status {
        Status::resource_exhausted(format!(
            "the server holds {} bytes of requests and answers in flight, over its limit of {} \
             (--max-in-flight-bytes), most of them for this connection; retry later",
            self.used(),
            self.limit
        ))
    }
}

/// Where [`InFlight::find_room`] found room past the bound.
enum Room {
    /// Nowhere: the connections closing and the one that could be told to
    /// close would not free enough, or the caller's holds the most.
    None,
    /// In what connections already closing hold: the room is coming, and
    /// shared with every charge that asks for it.
    Coming,
    /// In what the connection just told to close holds: made for the
    /// caller, which may take it all.
    Made,
}

tokio::task_local! {
    /// The charges of the call being handled. A task-local, not an argument:
    /// the store reads it deep under a handler, and no storage trait should
    /// grow a parameter that only the Redis store needs.
    static CALL: Arc<CallCharges>;
}

/// What one call has charged for its answer before encoding it (answers a
/// store reads into new memory), released as the answer is encoded or, the
/// rest, when the call and its answer are dropped.
pub struct CallCharges {
    budget: Arc<InFlight>,
    connection: Option<Arc<ConnectionState>>,
    held: AtomicUsize,
}

impl CallCharges {
    pub fn new(budget: Arc<InFlight>, connection: Option<Arc<ConnectionState>>) -> Arc<Self> {
        Arc::new(CallCharges {
            budget,
            connection,
            held: AtomicUsize::new(0),
        })
    }

    /// Runs `poll` (a step of the call's handler) with these charges as the
    /// ones [`reserve_answer`] adds to.
    pub fn scope<R>(self: &Arc<Self>, poll: impl FnOnce() -> R) -> R {
        CALL.sync_scope(Arc::clone(self), poll)
    }

    /// Runs `call` with these charges as the ones [`reserve_answer`] adds
    /// to: a whole call at once, where a handler is not polled step by step
    /// (the protosocket port).
    pub async fn within<F: Future>(self: &Arc<Self>, call: F) -> F::Output {
        CALL.scope(Arc::clone(self), call).await
    }

    /// A connection holding next to nothing (a client making small calls)
    /// is charged as a call is, other connections being closed to make
    /// room. One that holds more only while the budget has room: otherwise
    /// clients that never read, each read of theirs closing another of
    /// them, kept megabytes streaming out of the store as fast as they
    /// could reconnect.
    fn reserve(&self, bytes: usize) -> Result<(), Status> {
        let connection = self.connection.as_deref();
        let light = connection.is_none_or(|c| c.held.load(Ordering::Relaxed) < LIGHT_CONNECTION);
        let admitted = if light {
            self.budget.admit(bytes, connection)
        } else {
            self.budget.admit_if_room(bytes, connection)
        };
        if !admitted {
            return Err(self.budget.full_status());
        }
        self.held.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// Releases up to `bytes` of what is held: that much of the answer has
    /// been encoded (and the encoded frame is charged instead).
    fn release_up_to(&self, bytes: usize) {
        let mut released = 0;
        let _ = self
            .held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                released = held.min(bytes);
                Some(held - released)
            });
        self.budget.release(released, self.connection.as_deref());
    }
}

impl Drop for CallCharges {
    fn drop(&mut self) {
        let held = *self.held.get_mut();
        self.budget.release(held, self.connection.as_deref());
    }
}

/// Charges `bytes` of an answer the store is about to read into new memory
/// to the call being handled; RESOURCE_EXHAUSTED (the message of
/// [`InFlight::full_status`]) if the budget is spent and this call's
/// connection holds the most of it. Outside a call (a store used directly)
/// there is nothing to charge.
pub fn reserve_answer(bytes: usize) -> Result<(), Status> {
    CALL.try_with(|call| call.reserve(bytes)).unwrap_or(Ok(()))
}

/// [`reserve_answer`] for a store: refused as [`Error::InFlightFull`],
/// which answers the same status.
pub fn reserve_store_answer(bytes: usize) -> Result<(), Error> {
    reserve_answer(bytes).map_err(|refused| Error::InFlightFull(refused.message().to_owned()))
}

/// What one connection holds and how its answers move: for the send
/// timeout, and for closing the connection that holds the most.
pub struct ConnectionState {
    started: Instant,
    /// Answer chunks handed to HTTP/2 and not yet written ([`Charged`]).
    unsent: AtomicUsize,
    /// When a chunk was last written (or dropped with its stream), or when
    /// chunks started waiting; milliseconds since `started`.
    last_progress_ms: AtomicU64,
    /// Bytes in flight charged to this connection.
    held: AtomicUsize,
    /// Set when the budget asks this connection to close.
    closing: std::sync::atomic::AtomicBool,
    pub close: tokio::sync::Notify,
}

impl Default for ConnectionState {
    fn default() -> Self {
        ConnectionState {
            started: Instant::now(),
            unsent: AtomicUsize::new(0),
            last_progress_ms: AtomicU64::new(0),
            held: AtomicUsize::new(0),
            closing: std::sync::atomic::AtomicBool::new(false),
            close: tokio::sync::Notify::new(),
        }
    }
}

impl ConnectionState {
    fn progress(&self) {
        let now = self.started.elapsed().as_millis() as u64;
        self.last_progress_ms.store(now, Ordering::Relaxed);
    }

    /// True if answer chunks are waiting and none was written for `timeout`.
    pub fn is_stalled(&self, timeout: Duration) -> bool {
        if self.unsent.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let last = Duration::from_millis(self.last_progress_ms.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(last) > timeout
    }
}

/// A request body that counts what it has received and gives up on one
/// that never completes.
pub struct RequestBody<B> {
    inner: B,
    budget: Arc<InFlight>,
    connection: Arc<ConnectionState>,
    charged: usize,
    timeout: Duration,
    /// Armed on the first poll that has to wait, so a request that arrives
    /// whole (nearly all of them) never creates a timer.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<B> RequestBody<B> {
    pub fn new(
        inner: B,
        budget: Arc<InFlight>,
        connection: Arc<ConnectionState>,
        timeout: Duration,
    ) -> Self {
        RequestBody {
            inner,
            budget,
            connection,
            charged: 0,
            timeout,
            deadline: None,
        }
    }
}

impl<B> Drop for RequestBody<B> {
    fn drop(&mut self) {
        self.budget.release(self.charged, Some(&self.connection));
    }
}

impl<B> Body for RequestBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<crate::BoxError>,
{
    type Data = Bytes;
    type Error = crate::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    let bytes = data.len();
                    if !this.budget.admit(bytes, Some(&this.connection)) {
                        return Poll::Ready(Some(Err(Box::new(this.budget.full_status()))));
                    }
                    this.charged += bytes;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(error.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => {
                let timeout = this.timeout;
                let deadline = this
                    .deadline
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                if deadline.as_mut().poll(cx).is_ready() {
                    let status = Status::deadline_exceeded(format!(
                        "the request body did not arrive within {} (--request-timeout)",
                        humantime::format_duration(timeout)
                    ));
                    return Poll::Ready(Some(Err(Box::new(status))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// An answer body: each frame charged once made, cut into chunks that
/// carry their charge until written ([`Charged`]). A streamed answer
/// (GetBatch) holds what it has made and not yet sent, no more.
pub struct AnswerBody<B> {
    inner: B,
    budget: Arc<InFlight>,
    connection: Option<Arc<ConnectionState>>,
    /// The rest of a frame not yet handed to HTTP/2, and its charge if the
    /// frame is one chunk: a frame of several is charged by its buffer
    /// ([`Charged`]), whose slices `rest` and its chunks are.
    rest: Bytes,
    rest_charged: usize,
    /// Ended early by [`Self::refuse`]: the rest is never asked for.
    ended: bool,
    /// Set while the answer waits for the budget to have room.
    room: Option<Pin<Box<tokio::sync::futures::OwnedNotified>>>,
    /// Set while the answer waits for room for an encoding of a known size
    /// (counted in `InFlight::waiting`).
    waits_for_encoding: bool,
    /// What the call charged for its answer before encoding it.
    call: Option<Arc<CallCharges>>,
}

impl<B> AnswerBody<B> {
    pub fn new(inner: B, budget: Arc<InFlight>, connection: Option<Arc<ConnectionState>>) -> Self {
        AnswerBody {
            inner,
            budget,
            connection,
            rest: Bytes::new(),
            rest_charged: 0,
            ended: false,
            room: None,
            waits_for_encoding: false,
            call: None,
        }
    }

    /// Carries the call's charges until the answer is encoded. Charges are
    /// added only while the handler runs (`CallCharges::scope`), which is
    /// over once there is an answer: charges holding nothing are dropped
    /// now, rather than kept by an answer that streams for hours (an open
    /// subscription).
    pub fn with_call_charges(mut self, call: Option<Arc<CallCharges>>) -> Self {
        self.call = call.filter(|call| call.held.load(Ordering::Relaxed) > 0);
        self
    }

    /// Ready once the budget has room for this answer to be encoded, in
    /// `encoding` bytes if that is known (the answer the call copied and
    /// charged), else as the bound allows; an error (a refusal) if the
    /// answer should give way instead.
    ///
    /// Asking the inner body for its next frame encodes it: tonic copies
    /// the message, value and all, into a new buffer. HTTP/2 asks for every
    /// stream's first frame before it has any window to send it, so without
    /// this wait a client that never reads could have every one of its
    /// streams' answers encoded and held, whatever the bound. With the
    /// budget spent, the connection holding the most is closed to make room
    /// and the answer waits for it; an answer of a connection that is
    /// closing, or that holds the most itself, is refused at once (but a
    /// copied answer whose copy is within the bound, which is encoded in
    /// the copy's place).
    fn poll_room(&mut self, cx: &mut Context<'_>, encoding: usize) -> Poll<Result<(), ()>> {
        let ready = loop {
            let connection = self.connection.as_deref();
            if connection.is_some_and(|c| c.closing.load(Ordering::Relaxed)) {
                break Err(());
            }
            if self.budget.fits(encoding) {
                break Ok(());
            }
            if !self.budget.make_room(encoding, connection) {
                // Nobody can be closed to make the room. A copied answer
                // whose copy is within the bound is encoded all the same:
                // the encoding takes the copy's place, which goes as it is
                // encoded, so the total passes the bound by one answer at
                // most, on the worker encoding it, for that moment.
                // Refused, an answer the bound holds once but not twice
                // would never be served.
                let in_place = encoding > 0 && self.budget.used() <= self.budget.limit;
                break if in_place { Ok(()) } else { Err(()) };
            }
            // A connection holding next to nothing (a client making small
            // calls) goes ahead with an answer of unknown size: it is small
            // or, if large, counted before it is kept (`admit`). Waiting it
            // for the bound to clear could starve it while others keep the
            // total up. A known encoding (a copied answer, larger than a
            // call's overhead) waits for its room to be there.
            let light =
                connection.is_none_or(|c| c.held.load(Ordering::Relaxed) < LIGHT_CONNECTION);
            if encoding == 0 && light {
                break Ok(());
            }
            if encoding > 0 && !self.waits_for_encoding {
                self.waits_for_encoding = true;
                self.budget.waiting.fetch_add(1, Ordering::Relaxed);
                self.budget
                    .waiting_for
                    .fetch_max(encoding, Ordering::Relaxed);
            }
            let room = self.budget.room.clone();
            let waiter = self
                .room
                .get_or_insert_with(|| Box::pin(room.notified_owned()));
            // Registered before the check again, so a release in between
            // still wakes this one.
            waiter.as_mut().enable();
            if self.budget.fits(encoding) {
                break Ok(());
            }
            std::task::ready!(waiter.as_mut().poll(cx));
            self.room = None;
        };
        self.room = None;
        self.stop_waiting();
        Poll::Ready(ready)
    }

    fn stop_waiting(&mut self) {
        if std::mem::take(&mut self.waits_for_encoding)
            && self.budget.waiting.fetch_sub(1, Ordering::Relaxed) == 1
        {
            self.budget.waiting_for.store(0, Ordering::Relaxed);
        }
    }

    /// Ends the answer with RESOURCE_EXHAUSTED in its trailers: the budget
    /// is spent and this connection holds the most of it. The headers are
    /// sent already (HTTP/2 sends them before asking for the body), so the
    /// status goes in the trailers, as for any streamed call that fails.
    fn refuse(&mut self) -> Frame<Bytes> {
        self.ended = true;
        let mut trailers = self
            .budget
            .full_status()
            .into_http::<()>()
            .into_parts()
            .0
            .headers;
        trailers.remove(http::header::CONTENT_TYPE);
        Frame::trailers(trailers)
    }

    /// The next chunk of `rest`, owning its share of the charge, if the
    /// frame is one chunk, and [`CHUNK_OVERHEAD`] until h2 drops it.
    fn next_chunk(&mut self) -> Frame<Bytes> {
        let size = self.rest.len().min(CHUNK);
        // The frame was charged its size: each chunk takes its own share.
        let charged = size.min(self.rest_charged);
        self.rest_charged -= charged;
        self.budget
            .charge(CHUNK_OVERHEAD, self.connection.as_deref());
        if let Some(connection) = &self.connection {
            // The stall clock starts when chunks start waiting.
            if connection.unsent.fetch_add(1, Ordering::Relaxed) == 0 {
                connection.progress();
            }
        }
        let chunk = Charged {
            bytes: self.rest.split_to(size),
            charged: charged + CHUNK_OVERHEAD,
            budget: self.budget.clone(),
            connection: self.connection.clone(),
            chunk: true,
        };
        Frame::data(Bytes::from_owner(chunk))
    }
}

impl<B> Drop for AnswerBody<B> {
    fn drop(&mut self) {
        self.stop_waiting();
        self.budget
            .release(self.rest_charged, self.connection.as_deref());
    }
}

/// Bytes of an answer and their charge, released when they are dropped:
/// a chunk handed to HTTP/2, or the frame of several chunks they are
/// slices of.
///
/// h2 keeps a chunk (inside the `Bytes` it was given) until it has written
/// it to the socket, or its stream or connection is gone, then drops it.
/// (A chunk under 256 bytes h2 copies into its write buffer, of bounded
/// size, and drops at once.) So what h2 holds of answers is counted, and a
/// chunk dropped is progress for the send timeout.
///
/// The chunks of a frame are slices of its one buffer, freed only once the
/// last of them is dropped, so the frame stays charged whole until then. A
/// chunk's share released as soon as it was written stopped counting the
/// bytes it still kept alive: a client that lets the kernel take a few MiB
/// of each connection's answers and then reads no more kept that much of
/// every answer under way resident, uncounted (8 x 100 fetches of 5 MB
/// never read peaked at up to +65 MiB at a 32 MiB budget).
struct Charged {
    bytes: Bytes,
    charged: usize,
    budget: Arc<InFlight>,
    connection: Option<Arc<ConnectionState>>,
    /// A chunk handed to HTTP/2, counted in its connection's `unsent`;
    /// false for the frame its chunks are slices of.
    chunk: bool,
}

impl AsRef<[u8]> for Charged {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Charged {
    fn drop(&mut self) {
        let connection = self.connection.as_deref();
        self.budget.release(self.charged, connection);
        if let Some(connection) = connection.filter(|_| self.chunk) {
            connection.unsent.fetch_sub(1, Ordering::Relaxed);
            connection.progress();
        }
    }
}

impl<B> Body for AnswerBody<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        if !this.rest.is_empty() {
            return Poll::Ready(Some(Ok(this.next_chunk())));
        }
        // An answer the call copied is encoded into a buffer of its encoded
        // size, at most what the copy was charged (which adds a handle per
        // element), while the copy is still held: the encoding is charged
        // as much before it is made, so that both are counted while both
        // are held, and the frame takes that charge over.
        let encoding = this
            .call
            .as_ref()
            .map_or(0, |call| call.held.load(Ordering::Relaxed));
        if std::task::ready!(this.poll_room(cx, encoding)).is_err() {
            return Poll::Ready(Some(Ok(this.refuse())));
        }
        let connection = this.connection.as_deref();
        this.budget.charge(encoding, connection);
        let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => frame,
            other => {
                this.budget.release(encoding, connection);
                return other;
            }
        };
        match frame.into_data() {
            Ok(mut data) => {
                let bytes = data.remaining();
                if let Some(call) = &this.call {
                    call.release_up_to(bytes);
                    if call.held.load(Ordering::Relaxed) == 0 {
                        this.call = None;
                    }
                }
                let admitted = if bytes <= encoding {
                    this.budget.release(encoding - bytes, connection);
                    true
                } else if this.budget.admit(bytes - encoding, connection) {
                    true
                } else {
                    this.budget.release(encoding, connection);
                    false
                };
                if !admitted {
                    // This connection holds the most: its answer gives
                    // way, and the memory just encoded goes at once.
                    drop(data);
                    return Poll::Ready(Some(Ok(this.refuse())));
                }
                let data = data.copy_to_bytes(bytes);
                if bytes <= CHUNK {
                    this.rest_charged = bytes;
                    this.rest = data;
                } else {
                    this.rest = Bytes::from_owner(Charged {
                        bytes: data,
                        charged: bytes,
                        budget: this.budget.clone(),
                        connection: this.connection.clone(),
                        chunk: false,
                    });
                }
                if this.rest.is_empty() {
                    this.budget
                        .release(std::mem::take(&mut this.rest_charged), connection);
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::new()))));
                }
                Poll::Ready(Some(Ok(this.next_chunk())))
            }
            Err(frame) => {
                this.budget.release(encoding, connection);
                Poll::Ready(Some(Ok(frame)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.ended || (self.rest.is_empty() && self.inner.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        let mut hint = self.inner.size_hint();
        let rest = self.rest.len() as u64;
        hint.set_lower(hint.lower() + rest);
        if let Some(upper) = hint.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Full};

    fn budget(limit: usize) -> Arc<InFlight> {
        InFlight::new(limit, IntGauge::new("in_flight", "test").unwrap())
    }

    fn unsent(connection: &ConnectionState) -> usize {
        connection.unsent.load(Ordering::Relaxed)
    }

    fn held(connection: &ConnectionState) -> usize {
        connection.held.load(Ordering::Relaxed)
    }

    /// The next frame of `body`, which must be data.
    async fn chunk<B: Body<Data = Bytes> + Unpin>(body: &mut AnswerBody<B>) -> Bytes
    where
        B::Error: std::fmt::Debug,
    {
        body.frame().await.unwrap().unwrap().into_data().unwrap()
    }

    #[tokio::test]
    async fn an_answer_keeps_the_call_charges_only_while_they_hold_something() {
        let budget = budget(1 << 30);
        let connection = budget.connection();
        let charges = || CallCharges::new(budget.clone(), Some(connection.clone()));
        let answer = |bytes: usize| Full::new(Bytes::from(vec![7u8; bytes]));
        // A handler that charged nothing (a subscription): gone at once.
        let empty = charges();
        let body = AnswerBody::new(answer(10), budget.clone(), Some(connection.clone()))
            .with_call_charges(Some(empty.clone()));
        assert_eq!(Arc::strong_count(&empty), 1);
        drop(body);
        // One that charged its answer: kept until the answer is encoded.
        let held_charges = charges();
        held_charges.scope(|| reserve_answer(100)).unwrap();
        let mut body = AnswerBody::new(answer(300), budget.clone(), Some(connection.clone()))
            .with_call_charges(Some(held_charges.clone()));
        assert_eq!(Arc::strong_count(&held_charges), 2);
        assert_eq!(budget.used(), 100);
        let frame = chunk(&mut body).await;
        assert_eq!(Arc::strong_count(&held_charges), 1);
        assert_eq!(
            budget.used(),
            300 + CHUNK_OVERHEAD,
            "the frame is charged instead"
        );
        drop((frame, body));
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn answers_are_cut_into_chunks_charged_until_written() {
        let budget = budget(1 << 30);
        let connection = budget.connection();
        let value = Bytes::from(vec![7u8; 3 * CHUNK + 5]);
        let mut body = AnswerBody::new(
            Full::new(value.clone()),
            budget.clone(),
            Some(connection.clone()),
        );
        // HTTP/2 takes every chunk and writes none.
        let mut taken = Vec::new();
        while let Some(frame) = body.frame().await {
            taken.push(frame.unwrap().into_data().unwrap());
        }
        let sizes: Vec<usize> = taken.iter().map(Bytes::len).collect();
        assert_eq!(sizes, [CHUNK, CHUNK, CHUNK, 5]);
        assert_eq!(taken.concat(), value);
        let whole = value.len() + 4 * CHUNK_OVERHEAD;
        assert_eq!((budget.used(), held(&connection)), (whole, whole));
        // The answer is done, but its bytes are not written yet.
        drop(body);
        assert_eq!(budget.used(), whole);
        assert_eq!(unsent(&connection), 4);
        // Written, one by one: a chunk written gives back its overhead,
        // and the frame's bytes stay charged while any chunk still keeps
        // their buffer, whichever is written last.
        taken.remove(0);
        assert_eq!(budget.used(), whole - CHUNK_OVERHEAD);
        taken.pop();
        taken.remove(0);
        assert_eq!(budget.used(), whole - 3 * CHUNK_OVERHEAD);
        assert_eq!(unsent(&connection), 1);
        drop(taken);
        assert_eq!((budget.used(), held(&connection)), (0, 0));
        assert_eq!(unsent(&connection), 0);
    }

    #[tokio::test]
    async fn a_frame_of_one_chunk_is_released_once_written() {
        let budget = budget(1 << 30);
        let connection = budget.connection();
        let mut body = AnswerBody::new(
            Full::new(Bytes::from(vec![7u8; CHUNK])),
            budget.clone(),
            Some(connection.clone()),
        );
        let only = chunk(&mut body).await;
        assert_eq!(budget.used(), CHUNK + CHUNK_OVERHEAD);
        drop(body);
        assert_eq!(budget.used(), CHUNK + CHUNK_OVERHEAD);
        drop(only);
        assert_eq!((budget.used(), held(&connection)), (0, 0));
    }

    #[tokio::test]
    async fn an_answer_dropped_half_sent_keeps_its_frame_charged_while_h2_holds_a_chunk() {
        let budget = budget(1 << 30);
        let connection = budget.connection();
        let value = Bytes::from(vec![7u8; 4 * CHUNK]);
        let mut body = AnswerBody::new(Full::new(value), budget.clone(), Some(connection.clone()));
        let first = chunk(&mut body).await;
        // The stream is gone with the rest of its answer never asked for;
        // h2 still holds the first chunk, a slice of the frame's buffer.
        drop(body);
        assert_eq!(budget.used(), 4 * CHUNK + CHUNK_OVERHEAD);
        drop(first);
        assert_eq!((budget.used(), held(&connection)), (0, 0));
    }

    #[tokio::test]
    async fn a_request_past_the_budget_fails_and_gives_its_bytes_back() {
        let budget = budget(10);
        let mut body = RequestBody::new(
            Full::new(Bytes::from_static(b"more than ten bytes")),
            budget.clone(),
            budget.connection(),
            Duration::from_secs(1),
        );
        let error = body.frame().await.unwrap().unwrap_err();
        let status = error.downcast::<Status>().unwrap();
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert!(status.message().contains("--max-in-flight-bytes"));
        drop(body);
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn at_the_bound_the_connection_holding_most_is_closed_not_the_caller() {
        let budget = budget(100);
        let (hog, other) = (budget.connection(), budget.connection());
        assert!(budget.admit(90, Some(&hog)));
        // The hog itself asking for more is refused.
        assert!(!budget.admit(20, Some(&hog)));
        // Another connection gets in, and the hog is told to close.
        assert!(budget.admit(20, Some(&other)));
        assert!(hog.closing.load(Ordering::Relaxed));
        assert!(!other.closing.load(Ordering::Relaxed));
        tokio::time::timeout(Duration::from_secs(1), hog.close.notified())
            .await
            .expect("the hog is notified");
    }

    #[tokio::test]
    async fn nobody_is_closed_when_closing_cannot_make_the_room() {
        let budget = budget(100);
        let (small, other) = (budget.connection(), budget.connection());
        assert!(budget.admit(30, Some(&small)));
        assert!(budget.admit(20, Some(&other)));
        // 80 more: closing `small` (30) would leave 20 + 80 = 100, room.
        // 90 more: it would not; nobody is closed and the caller refused.
        let caller = budget.connection();
        assert!(!budget.admit(90, Some(&caller)));
        assert!(!small.closing.load(Ordering::Relaxed));
        assert!(!other.closing.load(Ordering::Relaxed));
        assert_eq!(budget.used(), 50);
        assert!(budget.admit(80, Some(&caller)));
        assert!(small.closing.load(Ordering::Relaxed));
        assert!(!other.closing.load(Ordering::Relaxed));
    }

    #[tokio::test]
    async fn an_answer_past_the_bound_is_counted_before_it_waits_or_refused() {
        let budget = budget(10 * CHUNK);
        let (hog, other) = (budget.connection(), budget.connection());
        let value = Bytes::from(vec![3u8; 6 * CHUNK]);
        let answer = |connection: &Arc<ConnectionState>| {
            AnswerBody::new(
                Full::new(value.clone()),
                budget.clone(),
                Some(connection.clone()),
            )
        };
        // The first answer fits, and waits (its first chunk taken, no more).
        let mut first = answer(&hog);
        let first_chunk = chunk(&mut first).await;
        assert_eq!(budget.used(), 6 * CHUNK + CHUNK_OVERHEAD);
        // The hog's second one would pass the bound: it ends at once with
        // RESOURCE_EXHAUSTED in its trailers, and nothing of it is held.
        let mut second = answer(&hog);
        let trailers = second
            .frame()
            .await
            .unwrap()
            .unwrap()
            .into_trailers()
            .unwrap();
        assert_eq!(trailers["grpc-status"], "8");
        assert!(second.is_end_stream());
        assert!(second.frame().await.is_none());
        assert_eq!(budget.used(), 6 * CHUNK + CHUNK_OVERHEAD);
        // Another connection's answer closes the hog and goes ahead: the
        // room the hog frees is made for it.
        let mut third = answer(&other);
        let third_chunk = chunk(&mut third).await;
        assert!(hog.closing.load(Ordering::Relaxed));
        assert_eq!(budget.used(), 12 * CHUNK + 2 * CHUNK_OVERHEAD);
        // While the hog closes, the others may not pass the bound by more
        // than it holds: a fourth answer gives way.
        let mut fourth = answer(&other);
        let refused = fourth.frame().await.unwrap().unwrap();
        assert!(refused.is_trailers());
        drop((first, second, third, fourth));
        drop((first_chunk, third_chunk));
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn room_coming_is_the_closers_and_lends_only_small_charges() {
        let budget = budget(10 * CALL_OVERHEAD);
        let (hog, asker, other) = (
            budget.connection(),
            budget.connection(),
            budget.connection(),
        );
        assert!(budget.admit(9 * CALL_OVERHEAD, Some(&hog)));
        // The charge that tells the hog to close takes the room it makes,
        // though the hog still holds it.
        assert!(budget.admit(2 * CALL_OVERHEAD, Some(&asker)));
        assert!(hog.closing.load(Ordering::Relaxed));
        assert_eq!(budget.used(), 11 * CALL_OVERHEAD);
        // Another connection is lent a small charge of that room, and
        // nothing larger until it is there.
        assert!(!budget.admit(ROOM_COMING_CHARGE + 1, Some(&other)));
        assert!(budget.admit(ROOM_COMING_CHARGE, Some(&other)));
        assert!(!asker.closing.load(Ordering::Relaxed));
        assert!(!other.closing.load(Ordering::Relaxed));
        budget.release(9 * CALL_OVERHEAD, Some(&hog));
        assert!(budget.admit(ROOM_COMING_CHARGE + 1, Some(&other)));
        assert_eq!(
            budget.used(),
            2 * CALL_OVERHEAD + 2 * ROOM_COMING_CHARGE + 1
        );
    }

    /// An inner body that records what the budget holds when it is asked
    /// for its frame, which is when tonic's would encode it.
    struct Recording {
        frame: Option<Bytes>,
        budget: Arc<InFlight>,
        used_when_encoded: Arc<AtomicUsize>,
    }

    impl Body for Recording {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            self.used_when_encoded
                .store(self.budget.used(), Ordering::Relaxed);
            Poll::Ready(self.frame.take().map(|data| Ok(Frame::data(data))))
        }
    }

    /// An answer of `own` whose call copied and charged `copy` bytes, and
    /// whose encoding records what the budget held when it was made.
    fn copied_answer(
        budget: &Arc<InFlight>,
        own: &Arc<ConnectionState>,
        copy: usize,
        used_when_encoded: &Arc<AtomicUsize>,
    ) -> (AnswerBody<Recording>, Arc<CallCharges>) {
        let charges = CallCharges::new(budget.clone(), Some(own.clone()));
        charges.scope(|| reserve_answer(copy)).unwrap();
        let inner = Recording {
            frame: Some(Bytes::from(vec![1u8; copy - 100])),
            budget: budget.clone(),
            used_when_encoded: used_when_encoded.clone(),
        };
        let body = AnswerBody::new(inner, budget.clone(), Some(own.clone()))
            .with_call_charges(Some(charges.clone()));
        (body, charges)
    }

    #[tokio::test]
    async fn a_copied_answer_and_its_encoding_are_both_charged_while_both_are_held() {
        let copy = 8 * CHUNK;
        let budget = budget(20 * CHUNK);
        let (other, own) = (budget.connection(), budget.connection());
        let used_when_encoded = Arc::new(AtomicUsize::new(0));
        let (mut body, charges) = copied_answer(&budget, &own, copy, &used_when_encoded);
        // Another connection holds enough that the encoding does not fit.
        assert!(budget.admit(11 * CHUNK, Some(&other)));
        let waiting = tokio::time::timeout(Duration::from_millis(50), body.frame()).await;
        assert!(waiting.is_err(), "the encoding waits for its room");
        assert!(other.closing.load(Ordering::Relaxed));
        assert_eq!(used_when_encoded.load(Ordering::Relaxed), 0);
        // Its room is there once the other connection lets go.
        budget.release(11 * CHUNK, Some(&other));
        let first = chunk(&mut body).await;
        assert_eq!(
            used_when_encoded.load(Ordering::Relaxed),
            2 * copy,
            "the copy and its encoding"
        );
        // The frame took the encoding's charge over; the copy's is gone
        // but for its handles.
        assert_eq!(budget.used(), copy - 100 + 100 + CHUNK_OVERHEAD);
        drop((first, body, charges));
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn a_copied_answer_the_bound_holds_once_is_encoded_in_its_copys_place() {
        let copy = 8 * CHUNK;
        let budget = budget(12 * CHUNK);
        let own = budget.connection();
        let used_when_encoded = Arc::new(AtomicUsize::new(0));
        let (mut body, charges) = copied_answer(&budget, &own, copy, &used_when_encoded);
        // No room for the copy and its encoding, and nobody to close to
        // make it: the answer is encoded all the same, both charged while
        // both are held, past the bound for that moment only.
        let first = chunk(&mut body).await;
        assert_eq!(used_when_encoded.load(Ordering::Relaxed), 2 * copy);
        assert_eq!(budget.used(), copy - 100 + 100 + CHUNK_OVERHEAD);
        assert!(budget.used() <= budget.limit());
        drop((first, body, charges));
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_body_that_never_arrives_times_out() {
        let budget = budget(1 << 20);
        let never = http_body_util::StreamBody::new(futures_util::stream::pending::<
            Result<Frame<Bytes>, std::convert::Infallible>,
        >());
        let connection = budget.connection();
        let mut body = RequestBody::new(never, budget, connection, Duration::from_secs(30));
        let error = body.frame().await.unwrap().unwrap_err();
        let status = error.downcast::<Status>().unwrap();
        assert_eq!(status.code(), tonic::Code::DeadlineExceeded);
        assert!(status.message().contains("--request-timeout"));
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_not_written_stalls_its_connection() {
        let budget = budget(1 << 30);
        let connection = budget.connection();
        tokio::time::advance(Duration::from_secs(60)).await;
        assert!(!connection.is_stalled(Duration::from_secs(30)));

        // An answer without data (a refusal, say) never waits.
        let mut empty = AnswerBody::new(
            Full::new(Bytes::new()),
            budget.clone(),
            Some(connection.clone()),
        );
        while empty.frame().await.is_some() {}
        assert_eq!(unsent(&connection), 0);

        // One whose first chunk HTTP/2 took and never wrote: stalled after
        // 30 s, whether or not the answer asks for more.
        let value = Bytes::from(vec![1u8; 2 * CHUNK]);
        let mut stuck = AnswerBody::new(Full::new(value), budget.clone(), Some(connection.clone()));
        let first = chunk(&mut stuck).await;
        tokio::time::advance(Duration::from_secs(29)).await;
        assert!(!connection.is_stalled(Duration::from_secs(30)));
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(connection.is_stalled(Duration::from_secs(30)));
        // Written: progress.
        drop(first);
        assert!(!connection.is_stalled(Duration::from_secs(30)));
        let second = chunk(&mut stuck).await;
        drop(stuck);
        tokio::time::advance(Duration::from_secs(31)).await;
        assert!(connection.is_stalled(Duration::from_secs(30)));
        drop(second);
        assert!(!connection.is_stalled(Duration::from_secs(30)));
    }
}
