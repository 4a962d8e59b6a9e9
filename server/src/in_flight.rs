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
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};
use prometheus::IntGauge;
use tokio::time::{Instant, Sleep};
use tonic::Status;

/// The largest answer frame handed to HTTP/2 at once: h2 buffers a frame
/// whole whatever the client's window, so this bounds what a stalled stream
/// holds beyond what it is charged for.
pub const CHUNK: usize = 64 << 10;

/// The process-wide count of bytes in flight, and its bound.
pub struct InFlight {
    used: AtomicUsize,
    limit: usize,
    gauge: IntGauge,
}

impl InFlight {
    pub fn new(limit: usize, gauge: IntGauge) -> Arc<InFlight> {
        Arc::new(InFlight {
            used: AtomicUsize::new(0),
            limit,
            gauge,
        })
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// True while new work must be refused.
    pub fn is_full(&self) -> bool {
        self.used() >= self.limit
    }

    fn charge(&self, bytes: usize) -> usize {
        let total = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.gauge.add(bytes as i64);
        total
    }

    fn release(&self, bytes: usize) {
        if bytes > 0 {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            self.gauge.sub(bytes as i64);
        }
    }

    /// The status of a call refused, or failed, because the budget is spent.
    pub fn full_status(&self) -> Status {
        Status::resource_exhausted(format!(
            "the server holds {} bytes of requests and answers in flight, over its limit of {} \
             (--max-in-flight-bytes); retry later",
            self.used(),
            self.limit
        ))
    }
}

/// What one connection's answers are doing, for the send-timeout watchdog.
pub struct ConnectionState {
    started: Instant,
    /// Answers created and not yet finished.
    answers_waiting: AtomicUsize,
    /// When an answer last handed a frame to HTTP/2 or finished, in
    /// milliseconds since `started`.
    last_progress_ms: AtomicU64,
}

impl Default for ConnectionState {
    fn default() -> Self {
        ConnectionState {
            started: Instant::now(),
            answers_waiting: AtomicUsize::new(0),
            last_progress_ms: AtomicU64::new(0),
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
    charged: usize,
    timeout: Duration,
    /// Armed on the first poll that has to wait, so a request that arrives
    /// whole (nearly all of them) never creates a timer.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<B> RequestBody<B> {
    pub fn new(inner: B, budget: Arc<InFlight>, timeout: Duration) -> Self {
        RequestBody {
            inner,
            budget,
            charged: 0,
            timeout,
            deadline: None,
        }
    }
}

impl<B> Drop for RequestBody<B> {
    fn drop(&mut self) {
        self.budget.release(self.charged);
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
                    this.charged += bytes;
                    if this.budget.charge(bytes) > this.budget.limit {
                        return Poll::Ready(Some(Err(Box::new(this.budget.full_status()))));
                    }
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
}

impl<B> AnswerBody<B> {
    pub fn new(inner: B, budget: Arc<InFlight>, connection: Option<Arc<ConnectionState>>) -> Self {
        if let Some(connection) = &connection {
            connection.answers_waiting.fetch_add(1, Ordering::Relaxed);
            connection.progress();
        }
        AnswerBody {
            inner,
            budget,
            charged: 0,
            connection,
            rest: Bytes::new(),
        }
    }

    fn next_chunk(&mut self) -> Frame<Bytes> {
        let size = self.rest.len().min(CHUNK);
        if let Some(connection) = &self.connection {
            connection.progress();
        }
        Frame::data(self.rest.split_to(size))
    }
}

impl<B> Drop for AnswerBody<B> {
    fn drop(&mut self) {
        self.budget.release(self.charged);
        if let Some(connection) = &self.connection {
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
                    this.budget.release(this.charged);
                    this.charged = bytes;
                    this.budget.charge(bytes);
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

    #[tokio::test]
    async fn answers_are_cut_into_chunks_and_released_when_done() {
        let budget = budget(1 << 30);
        let connection = Arc::new(ConnectionState::default());
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
        }
        assert_eq!(sizes, [CHUNK, CHUNK, CHUNK, 5]);
        assert_eq!(received, value);
        assert_eq!(connection.answers_waiting.load(Ordering::Relaxed), 1);
        drop(body);
        assert_eq!(budget.used(), 0);
        assert_eq!(connection.answers_waiting.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn a_request_past_the_budget_fails_and_gives_its_bytes_back() {
        let budget = budget(10);
        let mut body = RequestBody::new(
            Full::new(Bytes::from_static(b"more than ten bytes")),
            budget.clone(),
            Duration::from_secs(1),
        );
        let error = body.frame().await.unwrap().unwrap_err();
        let status = error.downcast::<Status>().unwrap();
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert!(status.message().contains("--max-in-flight-bytes"));
        drop(body);
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_body_that_never_arrives_times_out() {
        let budget = budget(1 << 20);
        let never = http_body_util::StreamBody::new(futures_util::stream::pending::<
            Result<Frame<Bytes>, std::convert::Infallible>,
        >());
        let mut body = RequestBody::new(never, budget, Duration::from_secs(30));
        let error = body.frame().await.unwrap().unwrap_err();
        let status = error.downcast::<Status>().unwrap();
        assert_eq!(status.code(), tonic::Code::DeadlineExceeded);
        assert!(status.message().contains("--request-timeout"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_is_stalled_only_with_answers_waiting() {
        let connection = Arc::new(ConnectionState::default());
        tokio::time::advance(Duration::from_secs(60)).await;
        assert!(!connection.is_stalled(Duration::from_secs(30)));
        let budget = budget(1 << 20);
        let answer = AnswerBody::new(Full::new(Bytes::new()), budget, Some(connection.clone()));
        assert!(!connection.is_stalled(Duration::from_secs(30)));
        tokio::time::advance(Duration::from_secs(31)).await;
        assert!(connection.is_stalled(Duration::from_secs(30)));
        drop(answer);
        assert!(!connection.is_stalled(Duration::from_secs(30)));
    }
}
