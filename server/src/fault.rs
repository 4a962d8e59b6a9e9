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
//!
//! RPC names are the catalogue's (`rpcs.rs`) in kebab case (`get`,
//! `set-batch`, `item-get-ttl`, `dictionary-set`, `create-cache`, `ping`); a
//! path outside it goes by its last part. As in momento-local, `set-if`
//! names both SetIf and SetIfNotExists. A call that is both held and failed fails after the
//! delay. A delay never outlives the call's deadline (`grpc-timeout`): when
//! the deadline comes first the call answers DEADLINE_EXCEEDED at that moment.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::future::Either;
use http::{HeaderMap, Request, Response};
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

impl<S, B, ResBody> Service<Request<B>> for FaultService<S>
where
    S: Service<Request<B>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send,
    B: Send + 'static,
    ResBody: Default + Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Either<S::Future, BoxFuture<Result<Response<ResBody>, S::Error>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let headers = request.headers();
        if !headers.contains_key("return-error") && !headers.contains_key("delay-ms") {
            return Either::Left(self.inner.call(request));
        }
        let deadline = grpc_timeout(headers).map(|timeout| Instant::now() + timeout);
        let rpc = rpc_name(request.uri().path());
        let delay = self.layer.delay(headers, &rpc);
        let error = self.layer.error(headers, &rpc);
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
            match error {
                Some(status) => Ok(status.into_http()),
                None => inner.call(request).await,
            }
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
        list.split([' ', ','])
            .map(str::trim)
            .any(|listed| listed == self.0 || (listed == "set-if" && self.0 == "set-if-not-exists"))
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
pub(crate) fn grpc_timeout(headers: &HeaderMap) -> Option<Duration> {
    let value = header(headers, "grpc-timeout")?;
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
