//! Fault injection through request headers, as momento-local does, so the
//! retry and deadline tests written for momento-local run against us too.
//! Installed only with `--enable-fault-injection`; otherwise the headers are
//! not even looked at.
//!
//! | header         | value                                                    |
//! |----------------|----------------------------------------------------------|
//! | `return-error` | a status in kebab case: `unavailable`, `internal`, ...   |
//! | `error-rpcs`   | calls that fail, e.g. `get set` or `get,set`; all if absent |
//! | `error-count`  | only the first N matching calls fail; all if absent      |
//! | `delay-ms`     | hold matching calls this long before handling them      |
//! | `delay-rpcs`   | calls that are held; all if absent                       |
//! | `delay-count`  | only the first N matching calls are held; all if absent  |
//! | `request-id`   | counts are kept per value (calls without one share one count) |
//! | `stream-error` | a status: the answer stream ends with it after `stream-error-message-limit` messages |
//! | `stream-error-rpcs` | calls whose stream ends so; Subscribe if absent           |
//! | `stream-error-message-limit` | messages sent before the error; 0 if absent     |
//!
//! RPC names are the catalogue's (`rpcs.rs`) in kebab case (`get`,
//! `set-batch`, `item-get-ttl`, `dictionary-set`, `create-cache`, `ping`); a
//! path outside it goes by its last part. As in momento-local, `set-if`
//! names both SetIf and SetIfNotExists, and `topic-publish` and
//! `topic-subscribe` name Publish and Subscribe. A stream error counts
//! every message of the answer (heartbeats included), then ends it with
//! the status in its trailers, as a server failing mid-stream would; the
//! official SDKs' subscription retry tests use it. A call that is both held and failed fails after the
//! delay. A delay never outlives the call's deadline (`grpc-timeout`): when
//! the deadline comes first the call answers DEADLINE_EXCEEDED at that moment.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::future::Either;
use http::{HeaderMap, Request, Response};
use http_body::Frame;
use parking_lot::Mutex;
use tokio::time::Instant;
use tonic::{Code, Status};
use tower::{Layer, Service};

use crate::rpcs;

/// Distinct (request id, fault) counters kept; past it they start over.
const MAX_COUNTERS: usize = 10_000;

#[derive(Clone, Default)]
pub struct FaultLayer {
    counters: Arc<Mutex<HashMap<(String, Fault), u64>>>,
}

impl FaultLayer {
    pub fn new() -> Self {
        FaultLayer::default()
    }
}

impl<S> Layer<S> for FaultLayer {
    type Service = FaultService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        FaultService {
            inner,
            layer: self.clone(),
        }
    }
}

#[derive(Clone)]
pub struct FaultService<S> {
    inner: S,
    layer: FaultLayer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Fault {
    Error,
    Delay,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// An answer body a stream error can be put into: tonic's, which boxes
/// whatever body it is given.
pub trait FaultableBody: Sized {
    fn ending_with(self, fault: StreamFault) -> Self;
}

impl FaultableBody for tonic::body::Body {
    fn ending_with(self, fault: StreamFault) -> Self {
        let ending = fault.limit == 0;
        tonic::body::Body::new(StreamFaultBody {
            inner: self,
            fault,
            header: [0; 5],
            header_seen: 0,
            payload_left: 0,
            sent: 0,
            ending,
            done: false,
        })
    }
}

impl<S, B, ResBody> Service<Request<B>> for FaultService<S>
where
    S: Service<Request<B>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send,
    B: Send + 'static,
    ResBody: Default + FaultableBody + Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Either<S::Future, BoxFuture<Result<Response<ResBody>, S::Error>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let headers = request.headers();
        if !headers.contains_key("return-error")
            && !headers.contains_key("delay-ms")
            && !headers.contains_key("stream-error")
        {
            return Either::Left(self.inner.call(request));
        }
        let deadline = grpc_timeout(headers).map(|timeout| Instant::now() + timeout);
        let rpc = rpc_name(request.uri().path());
        let delay = self.layer.delay(headers, &rpc);
        let error = self.layer.error(headers, &rpc);
        let stream_fault = stream_fault(headers, &rpc);
        // The service that was made ready goes into the future; a clone stays.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Either::Right(Box::pin(async move {
            if let Some(delay) = delay {
                let until = Instant::now() + delay;
                match deadline {
                    Some(deadline) if deadline <= until => {
                        tokio::time::sleep_until(deadline).await;
                        let status = Status::deadline_exceeded(
                            "deadline exceeded while the call was held by the delay-ms header",
                        );
                        return Ok(status.into_http());
                    }
                    _ => tokio::time::sleep_until(until).await,
                }
            }
            let answer = match error {
                Some(status) => return Ok(status.into_http()),
                None => inner.call(request).await?,
            };
            // An answer that already failed (its status in the headers) is left as it is.
            let failed = answer.headers().contains_key("grpc-status");
            Ok(match stream_fault {
                Some(fault) if !failed => answer.map(|body| body.ending_with(fault)),
                _ => answer,
            })
        }))
    }
}

impl FaultLayer {
    fn delay(&self, headers: &HeaderMap, rpc: &RpcName) -> Option<Duration> {
        let millis: u64 = header(headers, "delay-ms")?.parse().ok()?;
        self.applies(headers, rpc, Fault::Delay, "delay-rpcs", "delay-count")
            .then(|| Duration::from_millis(millis))
    }

    fn error(&self, headers: &HeaderMap, rpc: &RpcName) -> Option<Status> {
        let name = header(headers, "return-error")?;
        if !self.applies(headers, rpc, Fault::Error, "error-rpcs", "error-count") {
            return None;
        }
        Some(match parse_code(name) {
            Some(code) => Status::new(code, "injected by the return-error header"),
            None => Status::invalid_argument(format!(
                "return-error `{name}` is not a status; use one like `unavailable` or `internal`"
            )),
        })
    }

    /// Whether the fault applies to this call, counting it when it does.
    fn applies(
        &self,
        headers: &HeaderMap,
        rpc: &RpcName,
        fault: Fault,
        rpcs_header: &str,
        count_header: &str,
    ) -> bool {
        if let Some(list) = header(headers, rpcs_header) {
            if !rpc.listed_in(list) {
                return false;
            }
        }
        let Some(limit) = header(headers, count_header).and_then(|v| v.parse::<u64>().ok()) else {
            return true;
        };
        let request_id = header(headers, "request-id").unwrap_or_default().to_owned();
        let mut counters = self.counters.lock();
        if counters.len() >= MAX_COUNTERS {
            counters.clear();
        }
        let seen = counters.entry((request_id, fault)).or_insert(0);
        *seen += 1;
        *seen <= limit
    }
}

/// A stream error asked for by the `stream-error` headers.
#[derive(Clone, Debug)]
pub struct StreamFault {
    /// Messages sent before the stream ends.
    limit: u64,
    status: Status,
}

fn stream_fault(headers: &HeaderMap, rpc: &RpcName) -> Option<StreamFault> {
    let name = header(headers, "stream-error")?;
    let applies = match header(headers, "stream-error-rpcs") {
        Some(list) => rpc.listed_in(list),
        None => rpc.0 == "subscribe",
    };
    if !applies {
        return None;
    }
    let limit = header(headers, "stream-error-message-limit")
        .and_then(|limit| limit.parse().ok())
        .unwrap_or(0);
    let status = match parse_code(name) {
        Some(code) => Status::new(code, "injected by the stream-error header"),
        None => Status::invalid_argument(format!(
            "stream-error `{name}` is not a status; use one like `unavailable` or `not-found`"
        )),
    };
    Some(StreamFault { limit, status })
}

pin_project_lite::pin_project! {
    /// An answer body that ends with the fault's status once it has sent
    /// the fault's number of gRPC messages. It reads the messages' 5-byte
    /// prefixes to count them, and cuts a chunk at the message where the
    /// limit falls.
    struct StreamFaultBody<B> {
        #[pin]
        inner: B,
        fault: StreamFault,
        // The prefix of the message being read, and how much of it was seen.
        header: [u8; 5],
        header_seen: usize,
        // Bytes of the current message's payload still to come.
        payload_left: u64,
        sent: u64,
        // The limit is reached: the next frame is the error's trailers.
        ending: bool,
        // The trailers are sent.
        done: bool,
    }
}

impl<B> StreamFaultBody<B> {
    /// How many bytes of `data` to pass on: all of it, or up to the end of
    /// the message that reaches the limit (then `ending` is set).
    fn walk(
        data: &[u8],
        header: &mut [u8; 5],
        header_seen: &mut usize,
        payload_left: &mut u64,
        sent: &mut u64,
        limit: u64,
        ending: &mut bool,
    ) -> usize {
        let mut at = 0;
        while at < data.len() {
            if *payload_left > 0 {
                let take = (*payload_left).min((data.len() - at) as u64);
                *payload_left -= take;
                at += take as usize;
            } else {
                header[*header_seen] = data[at];
                *header_seen += 1;
                at += 1;
                if *header_seen < 5 {
                    continue;
                }
                *header_seen = 0;
                *payload_left = u64::from(u32::from_be_bytes([
                    header[1], header[2], header[3], header[4],
                ]));
            }
            if *header_seen == 0 && *payload_left == 0 {
                *sent += 1;
                if *sent >= limit {
                    *ending = true;
                    return at;
                }
            }
        }
        at
    }
}

impl<B> http_body::Body for StreamFaultBody<B>
where
    B: http_body::Body<Data = Bytes, Error = Status>,
{
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = self.project();
        if *this.done {
            return Poll::Ready(None);
        }
        if *this.ending {
            *this.done = true;
            let mut trailers = HeaderMap::new();
            // A status of ours always makes valid headers.
            let _ = this.fault.status.add_header(&mut trailers);
            return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
        }
        match std::task::ready!(this.inner.poll_frame(cx)) {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(mut data) => {
                    let keep = Self::walk(
                        &data,
                        this.header,
                        this.header_seen,
                        this.payload_left,
                        this.sent,
                        this.fault.limit,
                        this.ending,
                    );
                    if keep < data.len() {
                        data.truncate(keep);
                    }
                    Poll::Ready(Some(Ok(Frame::data(data))))
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            other => Poll::Ready(other),
        }
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
}

/// The kebab-case name of a call (`/cache_client.Scs/ItemGetTtl` -> `item-get-ttl`).
struct RpcName(String);

impl RpcName {
    fn listed_in(&self, list: &str) -> bool {
        list.split([' ', ',']).map(str::trim).any(|listed| {
            listed == self.0
                || (listed == "set-if" && self.0 == "set-if-not-exists")
                || (listed == "topic-publish" && self.0 == "publish")
                || (listed == "topic-subscribe" && self.0 == "subscribe")
        })
    }
}

fn rpc_name(path: &str) -> RpcName {
    let method = match rpcs::find(path) {
        Some(rpc) => rpc.name,
        None => path.rsplit('/').next().unwrap_or(path),
    };
    let mut name = String::with_capacity(method.len() + 4);
    for (i, c) in method.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            name.push('-');
        }
        name.push(c.to_ascii_lowercase());
    }
    RpcName(name)
}

/// A gRPC status from its name in kebab, snake or upper case.
fn parse_code(name: &str) -> Option<Code> {
    let name = name.trim().to_ascii_lowercase().replace('_', "-");
    let code = match name.as_str() {
        "cancelled" => Code::Cancelled,
        "unknown" => Code::Unknown,
        "invalid-argument" => Code::InvalidArgument,
        "deadline-exceeded" => Code::DeadlineExceeded,
        "not-found" => Code::NotFound,
        "already-exists" => Code::AlreadyExists,
        "permission-denied" => Code::PermissionDenied,
        "resource-exhausted" => Code::ResourceExhausted,
        "failed-precondition" => Code::FailedPrecondition,
        "aborted" => Code::Aborted,
        "out-of-range" => Code::OutOfRange,
        "unimplemented" => Code::Unimplemented,
        "internal" => Code::Internal,
        "unavailable" => Code::Unavailable,
        "data-loss" => Code::DataLoss,
        "unauthenticated" => Code::Unauthenticated,
        _ => return None,
    };
    Some(code)
}

/// The `grpc-timeout` header: up to 8 digits and a unit (H, M, S, m, u, n).
/// Named once: a lookup by a `HeaderName` skips parsing the name, which
/// a lookup by `&str` repeats on every call.
static GRPC_TIMEOUT: http::HeaderName = http::HeaderName::from_static("grpc-timeout");

pub(crate) fn grpc_timeout(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(&GRPC_TIMEOUT)?.to_str().ok()?.trim();
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 {
        return None;
    }
    let amount = u64::from_str(digits).ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount * 3600),
        "M" => Duration::from_secs(amount * 60),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_names_are_kebab_case() {
        assert_eq!(rpc_name("/cache_client.Scs/ItemGetTtl").0, "item-get-ttl");
        assert_eq!(rpc_name("/cache_client.Scs/Get").0, "get");
        assert!(rpc_name("/cache_client.Scs/SetIfNotExists").listed_in("get set-if"));
        assert!(rpc_name("/control_client.ScsControl/ListCaches").listed_in("get,list-caches"));
        assert!(!rpc_name("/cache_client.Scs/SetBatch").listed_in("set"));
        assert_eq!(
            rpc_name("/cache_client.Scs/SortedSetLengthByScore").0,
            "sorted-set-length-by-score"
        );
        assert_eq!(rpc_name("/cache_client.pubsub.Pubsub/Publish").0, "publish");
        assert!(rpc_name("/cache_client.pubsub.Pubsub/Subscribe").listed_in("topic-subscribe"));
        assert!(rpc_name("/cache_client.pubsub.Pubsub/Publish").listed_in("topic-publish get"));
        assert!(!rpc_name("/cache_client.Scs/Get").listed_in("topic-get"));
    }

    #[test]
    fn statuses_parse_in_any_case() {
        assert_eq!(parse_code("unavailable"), Some(Code::Unavailable));
        assert_eq!(
            parse_code("DEADLINE_EXCEEDED"),
            Some(Code::DeadlineExceeded)
        );
        assert_eq!(parse_code("nope"), None);
    }

    #[test]
    fn grpc_timeouts_parse() {
        let timeout = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert("grpc-timeout", value.parse().unwrap());
            grpc_timeout(&headers)
        };
        assert_eq!(timeout("250m"), Some(Duration::from_millis(250)));
        assert_eq!(timeout("2S"), Some(Duration::from_secs(2)));
        assert_eq!(timeout("123456789m"), None);
        assert_eq!(timeout("5x"), None);
    }
}
