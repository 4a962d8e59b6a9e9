//! Answers of the HTTP API: gRPC statuses as the HTTP statuses Momento's
//! HTTP API answers, and each call counted (`transport="http"`) and
//! charged to the in-flight budget as a gRPC call is (`crate::rpc_layer`).

use std::future::Future;
use std::sync::Arc;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::{header, StatusCode};
use tokio::time::Instant;
use tonic::{Code, Status};

use crate::error::{reason, Error};
use crate::in_flight::{AnswerBody, CallCharges, ConnectionState, InFlight, CALL_OVERHEAD};
use crate::metrics::{InFlightGuard, Metrics, RpcId, Transport};
use crate::rpcs::Rpc;

/// What Momento's HTTP API answers for a miss (a missing cache says
/// otherwise: the message of `Error::CacheNotFound`).
pub const MISS: &str = "Key Not Found";

/// One answer: its HTTP status and body, and the gRPC code its call counts
/// as in the metrics (a miss is OK, as on the gRPC port).
#[derive(Debug)]
pub struct Answer {
    status: StatusCode,
    code: Code,
    /// `Some` for a value, sent as binary; an error's body is its message.
    value: Option<Bytes>,
    message: String,
}

impl Answer {
    /// A hit: the value, as `application/octet-stream`.
    pub fn value(value: Bytes) -> Answer {
        Answer {
            status: StatusCode::OK,
            code: Code::Ok,
            value: Some(value),
            message: String::new(),
        }
    }

    /// A call done with nothing to answer (set, delete, publish).
    pub fn done() -> Answer {
        Answer {
            status: StatusCode::NO_CONTENT,
            code: Code::Ok,
            value: None,
            message: String::new(),
        }
    }

    pub fn miss() -> Answer {
        Answer {
            status: StatusCode::NOT_FOUND,
            code: Code::Ok,
            value: None,
            message: MISS.to_owned(),
        }
    }

    fn into_parts(self) -> (StatusCode, Option<&'static str>, Bytes) {
        match self.value {
            Some(value) => (self.status, Some("application/octet-stream"), value),
            None if self.message.is_empty() => (self.status, None, Bytes::new()),
            None => (
                self.status,
                Some("text/plain; charset=utf-8"),
                Bytes::from(self.message + "\n"),
            ),
        }
    }
}

impl From<Status> for Answer {
    fn from(status: Status) -> Answer {
        let reason = status
            .metadata()
            .get("err")
            .and_then(|value| value.to_str().ok());
        Answer {
            status: http_status(status.code(), reason),
            code: status.code(),
            value: None,
            message: status.message().to_owned(),
        }
    }
}

impl From<Error> for Answer {
    fn from(error: Error) -> Answer {
        Status::from(error).into()
    }
}

/// The HTTP status of a gRPC status code (and its `err` reason): those of
/// Momento's HTTP API reference (400, 401, 403, 404, 429, 500), with 413
/// for a size limit, 409, 503 and 504 where HTTP has a closer one.
pub fn http_status(code: Code, err: Option<&str>) -> StatusCode {
    match code {
        Code::Ok => StatusCode::OK,
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => {
            StatusCode::BAD_REQUEST
        }
        Code::Unauthenticated => StatusCode::UNAUTHORIZED,
        Code::PermissionDenied => StatusCode::FORBIDDEN,
        Code::NotFound => StatusCode::NOT_FOUND,
        Code::AlreadyExists => StatusCode::CONFLICT,
        Code::ResourceExhausted
            if matches!(
                err,
                Some(reason::ITEM_SIZE_LIMIT_EXCEEDED | reason::REQUEST_SIZE_LIMIT_EXCEEDED)
            ) =>
        {
            StatusCode::PAYLOAD_TOO_LARGE
        }
        Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
        Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Code::DeadlineExceeded => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// Runs one call of `rpc`: its overhead charged to the in-flight budget
/// (refused, 429, when there is no room), what the store reads for it
/// charged to it (`CallCharges`), its answer charged until written
/// (`AnswerBody`), and the call counted with its code and latency.
pub async fn call(
    metrics: &Arc<Metrics>,
    in_flight: &Arc<InFlight>,
    rpc: &'static Rpc,
    connection: Option<Arc<ConnectionState>>,
    handler: impl Future<Output = Answer>,
) -> Response {
    let admitted = in_flight.admit(CALL_OVERHEAD, connection.as_deref());
    let mut record = Record {
        metrics: metrics.clone(),
        in_flight: in_flight.clone(),
        rpc: metrics.rpc_id(rpc.path),
        started: Instant::now(),
        answered: false,
        overhead: if admitted { CALL_OVERHEAD } else { 0 },
        connection: connection.clone(),
        _in_flight: metrics.start_call(),
    };
    let charges = CallCharges::new(in_flight.clone(), connection.clone());
    let answer = if admitted {
        charges.within(handler).await
    } else {
        Answer::from(in_flight.full_status())
    };
    record.answered(answer.code);
    let (status, content_type, body) = answer.into_parts();
    let body = AnswerBody::new(Body::from(body), in_flight.clone(), connection)
        .with_call_charges(Some(charges));
    let mut response = (status, Body::new(body)).into_response();
    if let Some(content_type) = content_type {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static(content_type),
        );
    }
    response
}

/// One call's bookkeeping: counted once answered, or as cancelled if the
/// client leaves first (hyper drops the call); its overhead released.
struct Record {
    metrics: Arc<Metrics>,
    in_flight: Arc<InFlight>,
    rpc: RpcId,
    started: Instant,
    answered: bool,
    overhead: usize,
    connection: Option<Arc<ConnectionState>>,
    // Dropped after `drop` runs: the call is recorded, then leaves the gauge.
    _in_flight: InFlightGuard,
}

impl Record {
    fn answered(&mut self, code: Code) {
        self.answered = true;
        self.observe(code);
    }

    fn observe(&self, code: Code) {
        let elapsed = self.started.elapsed();
        self.metrics
            .observe_on(Transport::Http, self.rpc, code as usize, elapsed);
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        self.in_flight
            .release(self.overhead, self.connection.as_deref());
        if !self.answered {
            self.observe(Code::Cancelled);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_momentos_http_statuses() {
        let cases = [
            (Code::InvalidArgument, None, 400),
            (Code::Unauthenticated, None, 401),
            (Code::PermissionDenied, None, 403),
            (Code::NotFound, None, 404),
            (Code::ResourceExhausted, None, 429),
            (
                Code::ResourceExhausted,
                Some(reason::ITEM_SIZE_LIMIT_EXCEEDED),
                413,
            ),
            (Code::Internal, None, 500),
            (Code::Unavailable, None, 503),
        ];
        for (code, err, expected) in cases {
            assert_eq!(
                http_status(code, err).as_u16(),
                expected,
                "{code:?} {err:?}"
            );
        }
    }

    #[test]
    fn a_miss_is_404_but_counts_as_ok() {
        let miss = Answer::miss();
        assert_eq!(miss.code, Code::Ok);
        let (status, _, body) = miss.into_parts();
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body, "Key Not Found\n");
    }

    #[test]
    fn an_error_answers_its_message() {
        let answer = Answer::from(Error::CacheNotFound("c".into()));
        let (status, content_type, body) = answer.into_parts();
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(content_type, Some("text/plain; charset=utf-8"));
        assert!(String::from_utf8_lossy(&body).contains("cache `c` does not exist"));
    }
}
