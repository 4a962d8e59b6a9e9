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
//! - [`AnswerBody`] charges the answer frame it is handing to HTTP/2 and
//!   releases it when HTTP/2 asks for the next one, or the answer is done. It also cuts frames into [`CHUNK`]s, so that
//!   HTTP/2 takes one chunk at a time as the client's window allows: "the
//!   answer body is dropped" then means "sent", and a stalled answer is seen
//!   as no progress on its connection ([`ConnectionState`]).
//! - New calls are refused with RESOURCE_EXHAUSTED while the total is over
//!   the budget (`RpcLayer`).

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

/// The largest answer frame handed to HTTP/2 at once: h2 buffers a frame
/// whole whatever the client's window, so this bounds what a stalled stream
/// holds beyond what it is charged for.
pub const CHUNK: usize = 64 << 10;

/// What one call costs before any body byte: its stream, headers and
/// handler state (measured at about 6 KiB with 20,000 streams held open).
/// Charged while the call is handled, so that streams that send HEADERS and
/// then nothing are bounded by the budget too.
pub const CALL_OVERHEAD: usize = 8 << 10;

/// The process-wide count of bytes in flight, and its bound.
pub struct InFlight {
    used: AtomicUsize,
    limit: usize,
    gauge: IntGauge,
    /// Every open connection, to find the one holding the most when the
    /// budget is spent. Dead entries are dropped as the list grows.
    connections: Mutex<Vec<Weak<ConnectionState>>>,
}

impl InFlight {
    pub fn new(limit: usize, gauge: IntGauge) -> Arc<InFlight> {
        Arc::new(InFlight {
            used: AtomicUsize::new(0),
            limit,
            gauge,
            connections: Mutex::new(Vec::new()),
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

    /// Charges `bytes` if they fit. When they do not, the connection holding
    /// the most is closed to make room (unless that is `own`, which is then
    /// refused), and the charge is taken anyway: its memory is freed as that
    /// connection's streams are dropped, a moment later.
    pub fn admit(&self, bytes: usize, own: Option<&ConnectionState>) -> bool {
        if self.used() + bytes > self.limit && !self.close_worst(own) {
            return false;
        }
        self.charge(bytes, own);
        true
    }

    /// Makes room: closes the connection holding the most bytes, unless
    /// that is `own`. True if room is coming, also when the one holding the
    /// most is already closing (its streams are being dropped).
    fn close_worst(&self, own: Option<&ConnectionState>) -> bool {
        let worst = self
            .connections
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .max_by_key(|c| c.held.load(Ordering::Relaxed));
        let Some(worst) = worst else {
            return false;
        };
        if worst.closing.load(Ordering::Relaxed) {
            return true;
        }
        if own.is_some_and(|own| std::ptr::eq(own, &*worst)) {
            return false;
        }
        worst.closing.store(true, Ordering::Relaxed);
        worst.close.notify_one();
        true
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
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            self.gauge.sub(bytes as i64);
            if let Some(connection) = connection {
                connection.held.fetch_sub(bytes, Ordering::Relaxed);
            }
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

/// What one connection holds and how its answers move: for the send
/// timeout, and for closing the connection that holds the most.
pub struct ConnectionState {
    started: Instant,
    /// Answers holding data not yet taken by HTTP/2.
    answers_waiting: AtomicUsize,
    /// When a waiting answer last moved (HTTP/2 took a chunk after the
    /// first, or an answer with data finished), or when answers started
    /// waiting; milliseconds since `started`.
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
            answers_waiting: AtomicUsize::new(0),
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

    /// True if answers are waiting and none has moved for `timeout`.
    pub fn is_stalled(&self, timeout: Duration) -> bool {
        if self.answers_waiting.load(Ordering::Relaxed) == 0 {
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

/// An answer body: its current frame charged while held, cut into chunks,
/// tracked on its connection. A streamed answer (GetBatch) is charged one
/// item at a time, not for all it has sent.
pub struct AnswerBody<B> {
    inner: B,
    budget: Arc<InFlight>,
    charged: usize,
    connection: Option<Arc<ConnectionState>>,
    /// The rest of a frame larger than [`CHUNK`].
    rest: Bytes,
    /// Whether this answer counts among its connection's waiting ones: from
    /// its first data until it is dropped.
    waiting: bool,
    /// Chunks handed to HTTP/2; the first one proves nothing about the
    /// client (HTTP/2 takes it before it has window to send it).
    chunks: u64,
}

impl<B> AnswerBody<B> {
    pub fn new(inner: B, budget: Arc<InFlight>, connection: Option<Arc<ConnectionState>>) -> Self {
        AnswerBody {
            inner,
            budget,
            charged: 0,
            connection,
            rest: Bytes::new(),
            waiting: false,
            chunks: 0,
        }
    }

    fn next_chunk(&mut self) -> Frame<Bytes> {
        let size = self.rest.len().min(CHUNK);
        if let Some(connection) = &self.connection {
            if !self.waiting {
                self.waiting = true;
                if connection.answers_waiting.fetch_add(1, Ordering::Relaxed) == 0 {
                    connection.progress();
                }
            } else if self.chunks > 0 {
                connection.progress();
            }
        }
        self.chunks += 1;
        Frame::data(self.rest.split_to(size))
    }
}

impl<B> Drop for AnswerBody<B> {
    fn drop(&mut self) {
        self.budget
            .release(self.charged, self.connection.as_deref());
        if let (Some(connection), true) = (&self.connection, self.waiting) {
            connection.answers_waiting.fetch_sub(1, Ordering::Relaxed);
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
        if !this.rest.is_empty() {
            return Poll::Ready(Some(Ok(this.next_chunk())));
        }
        match std::task::ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(mut data) => {
                    // The frame before this one has been taken whole by
                    // HTTP/2, which asks for more only once it could send.
                    let bytes = data.remaining();
                    let connection = this.connection.as_deref();
                    this.budget.release(this.charged, connection);
                    this.charged = bytes;
                    this.budget.charge(bytes, connection);
                    this.rest = data.copy_to_bytes(bytes);
                    Poll::Ready(Some(Ok(this.next_chunk())))
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            other => Poll::Ready(other),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
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

    fn waiting(connection: &ConnectionState) -> usize {
        connection.answers_waiting.load(Ordering::Relaxed)
    }

    #[tokio::test]
    async fn answers_are_cut_into_chunks_and_released_when_done() {
        let budget = budget(1 << 30);
        let connection = budget.connection();
        let value = Bytes::from(vec![7u8; 3 * CHUNK + 5]);
        let mut body = AnswerBody::new(
            Full::new(value.clone()),
            budget.clone(),
            Some(connection.clone()),
        );
        let mut sizes = Vec::new();
        let mut received = Vec::new();
        while let Some(frame) = body.frame().await {
            let data = frame.unwrap().into_data().unwrap();
            sizes.push(data.len());
            received.extend_from_slice(&data);
            assert_eq!(budget.used(), value.len());
            assert_eq!(connection.held.load(Ordering::Relaxed), value.len());
        }
        assert_eq!(sizes, [CHUNK, CHUNK, CHUNK, 5]);
        assert_eq!(received, value);
        assert_eq!(waiting(&connection), 1);
        drop(body);
        assert_eq!(budget.used(), 0);
        assert_eq!(connection.held.load(Ordering::Relaxed), 0);
        assert_eq!(waiting(&connection), 0);
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
    async fn an_answer_that_does_not_move_stalls_its_connection() {
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
        assert_eq!(waiting(&connection), 0);

        // One whose first chunk was taken and no more: stalled after 30 s.
        let value = Bytes::from(vec![1u8; 2 * CHUNK]);
        let mut stuck = AnswerBody::new(Full::new(value), budget.clone(), Some(connection.clone()));
        stuck.frame().await.unwrap().unwrap();
        tokio::time::advance(Duration::from_secs(29)).await;
        assert!(!connection.is_stalled(Duration::from_secs(30)));
        // A second chunk taken is progress.
        stuck.frame().await.unwrap().unwrap();
        tokio::time::advance(Duration::from_secs(29)).await;
        assert!(!connection.is_stalled(Duration::from_secs(30)));
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(connection.is_stalled(Duration::from_secs(30)));
        drop(stuck);
        assert!(!connection.is_stalled(Duration::from_secs(30)));
    }
}
