//! A tower layer around every gRPC call: it times the call, counts its status,
//! and gives oversized requests the status the SDKs expect.
//!
//! tonic's decoder refuses a message over the size limit with OUT_OF_RANGE,
//! while the Momento SDKs read RESOURCE_EXHAUSTED plus the `err` reason
//! `request_size_limit_exceeded`. No handler of ours answers OUT_OF_RANGE, so
//! the layer can rewrite that status alone without hiding anything else.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{HeaderValue, Request, Response};
use pin_project_lite::pin_project;
use tokio::time::Instant;
use tonic::Code;
use tower::{Layer, Service};

use crate::error::reason;
use crate::metrics::{InFlightGuard, Metrics, RpcId};

#[derive(Clone)]
pub struct RpcLayer {
    metrics: Arc<Metrics>,
    max_request_size: usize,
}

impl RpcLayer {
    pub fn new(metrics: Arc<Metrics>, max_request_size: usize) -> Self {
        RpcLayer {
            metrics,
            max_request_size,
        }
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
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = RpcFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let rpc = self.layer.metrics.rpc_id(request.uri().path());
        RpcFuture {
            in_flight: self.layer.metrics.start_call(),
            inner: self.inner.call(request),
            layer: self.layer.clone(),
            rpc,
            started: Instant::now(),
        }
    }
}

pin_project! {
    pub struct RpcFuture<F> {
        #[pin]
        inner: F,
        layer: RpcLayer,
        rpc: RpcId,
        started: Instant,
        // Dropped with the future, whether it finished or was cancelled.
        in_flight: InFlightGuard,
    }
}

impl<F, ResBody, E> Future for RpcFuture<F>
where
    F: Future<Output = Result<Response<ResBody>, E>>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut result = std::task::ready!(this.inner.poll(cx));
        let code = match &mut result {
            Ok(response) => answer_code(response, this.layer.max_request_size),
            Err(_) => Code::Internal as usize,
        };
        this.layer
            .metrics
            .observe(*this.rpc, code, this.started.elapsed());
        Poll::Ready(result)
    }
}

/// The gRPC status code of a response, after the size-limit rewrite.
///
/// Errors of unary and server-streaming calls are sent "trailers-only", with
/// `grpc-status` in the headers; a response without it has succeeded so far.
fn answer_code<B>(response: &mut Response<B>, max_request_size: usize) -> usize {
    let headers = response.headers_mut();
    let code = headers
        .get("grpc-status")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok())
        .unwrap_or(Code::Ok as usize);
    if code != Code::OutOfRange as usize {
        return code;
    }
    let message =
        format!("request is over the limit of {max_request_size} bytes (--max-request-size)");
    headers.insert(
        "grpc-status",
        HeaderValue::from(Code::ResourceExhausted as u16),
    );
    headers.insert(
        "grpc-message",
        HeaderValue::from_str(&percent_encode(&message)).expect("ASCII message"),
    );
    headers.insert(
        "err",
        HeaderValue::from_static(reason::REQUEST_SIZE_LIMIT_EXCEEDED),
    );
    Code::ResourceExhausted as usize
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
