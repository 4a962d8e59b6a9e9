//! A tower layer around every gRPC call: it times the call, counts its status,
//! gives oversized requests the status the SDKs expect, refuses new calls
//! while the in-flight budget is spent, and wraps each answer so its bytes
//! are counted until sent (`crate::in_flight`).
//!
//! A call the client abandons (its deadline passes, or it resets the stream)
//! is dropped by the HTTP/2 server before it answers; the guard in the future
//! still records it, as DEADLINE_EXCEEDED or CANCELLED, so client timeouts
//! show in the server's metrics too.
//!
//! tonic's decoder refuses a message over the size limit with OUT_OF_RANGE,
//! while the Momento SDKs read RESOURCE_EXHAUSTED plus the `err` reason
//! `request_size_limit_exceeded`. No handler of ours answers OUT_OF_RANGE, so
//! the layer can rewrite that status alone without hiding anything else.
//!
//! tonic answers a path it does not route UNIMPLEMENTED with no message,
//! which some SDKs show as a bare "bad request"; the layer adds one naming
//! the path. (Calls of the catalogue not served yet name themselves.)

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::{HeaderName, HeaderValue, Request, Response};
use pin_project_lite::pin_project;
use tokio::time::Instant;
use tonic::Code;
use tower::{Layer, Service};

use crate::error::reason;
use crate::fault::grpc_timeout;
use crate::in_flight::{AnswerBody, CallCharges, ConnectionState, InFlight, CALL_OVERHEAD};
use crate::metrics::{InFlightGuard, Metrics, RpcId};

#[derive(Clone)]
pub struct RpcLayer {
    metrics: Arc<Metrics>,
    max_request_size: usize,
    /// `--max-value-size`, when `--max-request-size` is derived from it:
    /// then a one-value call over the request limit has a value over this
    /// one, and its refusal names the value limit instead.
    value_limit: Option<usize>,
    in_flight: Arc<InFlight>,
}

/// The calls whose request is one key, one value and a TTL: over a derived
/// request limit, their value is what is too large. (SetIf may carry a
/// second value, its condition; a batch many.)
const ONE_VALUE_CALLS: [&str; 2] = ["Set", "SetIfNotExists"];

impl RpcLayer {
    pub fn new(metrics: Arc<Metrics>, max_request_size: usize, in_flight: Arc<InFlight>) -> Self {
        RpcLayer {
            metrics,
            max_request_size,
            value_limit: None,
            in_flight,
        }
    }

    /// Answers a one-value call over the request limit as a value over
    /// `max_value_size`: right when the request limit leaves room for the
    /// largest key and value (`config::derived_request_size`).
    pub fn with_value_limit(mut self, max_value_size: usize) -> Self {
        self.value_limit = Some(max_value_size);
        self
    }
}

impl<S> Layer<S> for RpcLayer {
    type Service = RpcService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RpcService {
            inner,
            layer: self.clone(),
        }
    }
}

#[derive(Clone)]
pub struct RpcService<S> {
    inner: S,
    layer: RpcLayer,
}

impl<S, B, ResBody> Service<Request<B>> for RpcService<S>
where
    S: Service<Request<B>, Response = Response<ResBody>>,
    ResBody: Default,
{
    type Response = Response<AnswerBody<ResBody>>;
    type Error = S::Error;
    type Future = RpcFuture<S::Future, ResBody>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let metrics = &self.layer.metrics;
        let path = request.uri().path();
        let rpc = metrics.rpc_id(path);
        let connection = request.extensions().get::<Arc<ConnectionState>>().cloned();
        let admitted = self
            .layer
            .in_flight
            .admit(CALL_OVERHEAD, connection.as_deref());
        let call = CallRecord {
            rpc,
            unknown_path: rpc.is_unknown().then(|| path.into()),
            timeout: grpc_timeout(request.headers()),
            started: Instant::now(),
            answered: false,
            _in_flight: metrics.start_call(),
            layer: self.layer.clone(),
            overhead: if admitted { CALL_OVERHEAD } else { 0 },
            connection,
        };
        if !admitted {
            let refused = self.layer.in_flight.full_status().into_http();
            return RpcFuture {
                inner: None,
                refused: Some(refused),
                charges: None,
                call,
            };
        }
        let charges = CallCharges::new(self.layer.in_flight.clone(), call.connection.clone());
        RpcFuture {
            inner: Some(self.inner.call(request)),
            refused: None,
            charges: Some(charges),
            call,
        }
    }
}

pin_project! {
    pub struct RpcFuture<F, ResBody> {
        #[pin]
        inner: Option<F>,
        // The answer of a call refused before it reached the service.
        refused: Option<Response<ResBody>>,
        // What the handler charges for its answer before encoding it; it
        // moves to the answer body.
        charges: Option<Arc<CallCharges>>,
        call: CallRecord,
    }
}

/// How close to its deadline an abandoned call still counts as timed out:
/// the client's clock started before the server saw the headers, so its
/// reset can arrive a network hop before the server's own deadline.
const DEADLINE_SLACK: Duration = Duration::from_millis(20);

/// One call's bookkeeping. It records the call when the answer is ready, or,
/// if the future is dropped first, when it drops.
struct CallRecord {
    layer: RpcLayer,
    rpc: RpcId,
    /// Kept only for a path outside the catalogue, to name it in the answer.
    unknown_path: Option<Box<str>>,
    started: Instant,
    /// From `grpc-timeout`, to tell a passed deadline from a cancel.
    timeout: Option<Duration>,
    answered: bool,
    /// The connection the call came on, for its answer's send progress.
    connection: Option<Arc<ConnectionState>>,
    /// [`CALL_OVERHEAD`] charged to the in-flight budget while the call is
    /// handled (0 if it was refused).
    overhead: usize,
    // Fields drop after `drop` runs: the call is recorded, then leaves the gauge.
    _in_flight: InFlightGuard,
}

impl CallRecord {
    fn record(&mut self, code: usize) {
        self.answered = true;
        self.layer
            .metrics
            .observe(self.rpc, code, self.started.elapsed());
    }
}

impl Drop for CallRecord {
    fn drop(&mut self) {
        let connection = self.connection.as_deref();
        self.layer.in_flight.release(self.overhead, connection);
        if self.answered {
            return;
        }
        let elapsed = self.started.elapsed();
        let code = match self.timeout {
            Some(timeout) if elapsed + DEADLINE_SLACK >= timeout => Code::DeadlineExceeded,
            _ => Code::Cancelled,
        };
        self.layer.metrics.observe(self.rpc, code as usize, elapsed);
    }
}

impl<F, ResBody, E> Future for RpcFuture<F, ResBody>
where
    F: Future<Output = Result<Response<ResBody>, E>>,
{
    type Output = Result<Response<AnswerBody<ResBody>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut result = match (this.inner.as_pin_mut(), this.refused.take()) {
            (Some(inner), _) => match this.charges {
                Some(charges) => std::task::ready!(charges.scope(|| inner.poll(cx))),
                None => std::task::ready!(inner.poll(cx)),
            },
            (None, Some(refused)) => Ok(refused),
            (None, None) => panic!("RpcFuture polled after it answered"),
        };
        let code = match &mut result {
            Ok(response) => {
                if let Some(path) = &this.call.unknown_path {
                    name_unknown_path(response, path);
                }
                answer_code(response, &this.call.layer, this.call.rpc)
            }
            Err(_) => Code::Internal as usize,
        };
        this.call.record(code);
        let in_flight = &this.call.layer.in_flight;
        let connection = this.call.connection.clone();
        let charges = this.charges.take();
        Poll::Ready(result.map(|response| {
            response.map(|body| {
                AnswerBody::new(body, in_flight.clone(), connection).with_call_charges(charges)
            })
        }))
    }
}

/// Named once, for lookups that skip parsing the name (see `fault::grpc_timeout`).
static GRPC_STATUS: HeaderName = HeaderName::from_static("grpc-status");

/// The gRPC status code of a response, after the size-limit rewrite.
///
/// Errors of unary and server-streaming calls are sent "trailers-only", with
/// `grpc-status` in the headers; a response without it has succeeded so far.
fn answer_code<B>(response: &mut Response<B>, layer: &RpcLayer, rpc: RpcId) -> usize {
    let headers = response.headers_mut();
    let code = headers
        .get(&GRPC_STATUS)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok())
        .unwrap_or(Code::Ok as usize);
    if code != Code::OutOfRange as usize {
        return code;
    }
    let found = headers
        .get("grpc-message")
        .and_then(|message| decoded_length(message.as_bytes()));
    let value_limit = layer.value_limit.filter(|_| {
        rpc.name()
            .is_some_and(|name| ONE_VALUE_CALLS.contains(&name))
    });
    let (message, why) = match (value_limit, found) {
        (Some(limit), Some(size)) => (
            format!(
                "item size limit exceeded: the request is {size} bytes, so its value is over the limit of {limit} bytes (--max-value-size)"
            ),
            reason::ITEM_SIZE_LIMIT_EXCEEDED,
        ),
        (Some(limit), None) => (
            format!("item size limit exceeded: the value is over the limit of {limit} bytes (--max-value-size)"),
            reason::ITEM_SIZE_LIMIT_EXCEEDED,
        ),
        (None, _) => (
            format!(
                "request limit exceeded: the request is {}over {} bytes (--max-request-size)",
                found.map_or(String::new(), |size| format!("{size} bytes, ")),
                layer.max_request_size
            ),
            reason::REQUEST_SIZE_LIMIT_EXCEEDED,
        ),
    };
    headers.insert(
        "grpc-status",
        HeaderValue::from(Code::ResourceExhausted as u16),
    );
    headers.insert(
        "grpc-message",
        HeaderValue::from_str(&percent_encode(&message)).expect("ASCII message"),
    );
    headers.insert("err", HeaderValue::from_static(why));
    Code::ResourceExhausted as usize
}

/// The length tonic's decoder found in an oversized message's prefix, from
/// its message (`... too large: found 6291470 bytes, the limit is ...`),
/// which tonic sends percent-encoded, as `grpc-message` is.
fn decoded_length(message: &[u8]) -> Option<usize> {
    let message = percent_encoding::percent_decode(message)
        .decode_utf8()
        .ok()?;
    let (_, rest) = message.split_once("found ")?;
    let (digits, _) = rest.split_once(' ')?;
    digits.parse().ok()
}

/// Longest part of an unknown path echoed back: enough for any real
/// `/package.Service/Method`, not a way to bounce a 16 KiB header.
const MAX_PATH_ECHO: usize = 200;

/// Gives tonic's UNIMPLEMENTED for a path it does not route a message
/// naming the path; any other answer is left alone.
fn name_unknown_path<B>(response: &mut Response<B>, path: &str) {
    let headers = response.headers_mut();
    let unimplemented = headers
        .get("grpc-status")
        .is_some_and(|code| code.as_bytes() == b"12");
    let has_message = headers
        .get("grpc-message")
        .is_some_and(|message| !message.is_empty());
    if !unimplemented || has_message {
        return;
    }
    // A URI path is ASCII, so any byte is a character boundary.
    let shown = if path.len() > MAX_PATH_ECHO {
        format!("{}...", &path[..MAX_PATH_ECHO])
    } else {
        path.to_owned()
    };
    let message = format!("{shown} is not served by this jiffy-server");
    headers.insert(
        "grpc-message",
        HeaderValue::from_str(&percent_encode(&message)).expect("ASCII message"),
    );
}

/// gRPC percent-encodes `grpc-message`; ours is ASCII, so only `%` and
/// characters outside the printable range need it.
fn percent_encode(message: &str) -> String {
    message
        .bytes()
        .map(|b| match b {
            b' '..=b'~' if b != b'%' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_length_is_read_from_tonics_message() {
        let tonic = b"Error, decoded message length too large: found 6291470 bytes, the limit is: 5248000 bytes";
        assert_eq!(decoded_length(tonic), Some(6_291_470));
        let encoded =
            b"Error,%20decoded%20message%20length%20too%20large:%20found%206291470%20bytes";
        assert_eq!(decoded_length(encoded), Some(6_291_470));
        assert_eq!(decoded_length(b"some other message"), None);
    }

    /// A service that never answers, like a handler held past the deadline.
    fn never_answers(
        _: Request<()>,
    ) -> std::future::Pending<Result<Response<()>, std::convert::Infallible>> {
        std::future::pending()
    }

    fn abandoned_get(metrics: &Arc<Metrics>, grpc_timeout: Option<&'static str>) {
        let in_flight = InFlight::new(1 << 20, metrics.in_flight_bytes.clone());
        let mut service =
            RpcLayer::new(metrics.clone(), 1024, in_flight).layer(tower::service_fn(never_answers));
        let mut request = Request::post("/cache_client.Scs/Get").body(()).unwrap();
        if let Some(timeout) = grpc_timeout {
            request
                .headers_mut()
                .insert("grpc-timeout", HeaderValue::from_static(timeout));
        }
        drop(service.call(request));
    }

    fn count(metrics: &Metrics, code: &str) -> Option<String> {
        let series =
            format!("jiffy_requests_total{{code=\"{code}\",rpc=\"Get\",transport=\"grpc\"}} ");
        let text = metrics.render();
        text.lines()
            .find_map(|line| line.strip_prefix(&series).map(str::to_owned))
    }

    #[test]
    fn an_unrouted_path_is_named_in_the_answer() {
        let answer = |status: tonic::Status| {
            let mut response = status.into_http::<()>();
            name_unknown_path(&mut response, "/cache_client.pubsub.Pubsub/Publish");
            tonic::Status::from_header_map(response.headers()).unwrap()
        };
        let named = answer(tonic::Status::unimplemented(""));
        assert_eq!(named.code(), Code::Unimplemented);
        assert_eq!(
            named.message(),
            "/cache_client.pubsub.Pubsub/Publish is not served by this jiffy-server"
        );
        // A message already there, or another status, is left alone.
        let own = answer(tonic::Status::unimplemented("not here"));
        assert_eq!(own.message(), "not here");
        let other = answer(tonic::Status::not_found(""));
        assert_eq!((other.code(), other.message()), (Code::NotFound, ""));
    }

    #[tokio::test]
    async fn a_dropped_call_is_counted_by_whether_its_deadline_passed() {
        let metrics = Metrics::new(None, 1 << 20);
        abandoned_get(&metrics, Some("1m"));
        assert_eq!(count(&metrics, "DEADLINE_EXCEEDED").as_deref(), Some("1"));
        assert_eq!(count(&metrics, "CANCELLED"), None);
        // No deadline, or one far off: the client cancelled.
        abandoned_get(&metrics, None);
        abandoned_get(&metrics, Some("1H"));
        assert_eq!(count(&metrics, "CANCELLED").as_deref(), Some("2"));
        assert!(metrics.render().contains("\njiffy_requests_in_flight 0\n"));
    }
}
