//! The HTTP/1.1 settings of the HTTP API's port (`crate::http`), and why
//! each is set.
//!
//! - The request head (request line and headers) is capped at
//!   `--max-header-list-size`, as HTTP/2's header list is on the gRPC port;
//!   a larger one is answered 431 and the connection closed.
//! - A request head must arrive within `--request-timeout` of the server
//!   waiting for it, which also closes a kept-alive connection that sends
//!   no next request for that long: an idle HTTP/1.1 connection cannot be
//!   pinged as an HTTP/2 one is, and would otherwise hold a place under
//!   `--max-connections` for good. The body is bounded by the same timeout
//!   (`crate::in_flight::RequestBody`).
//! - One request at a time per connection (no pipelining flush), so a
//!   connection holds at most one request and one answer.

use std::time::Duration;

use hyper::server::conn::http1::Builder;
use hyper_util::rt::TokioTimer;

use crate::close::CloseReason;

/// hyper's smallest read buffer: what a head may fill at least.
const MIN_READ_BUFFER: usize = 8192;

#[derive(Clone, Debug)]
pub struct Settings {
    pub max_header_size: usize,
    pub header_read_timeout: Duration,
}

pub fn builder(settings: &Settings) -> Builder {
    let mut builder = Builder::new();
    builder
        .timer(TokioTimer::new())
        .keep_alive(true)
        .max_header_size(settings.max_header_size)
        .max_buf_size(settings.max_header_size.max(MIN_READ_BUFFER))
        .header_read_timeout(settings.header_read_timeout);
    builder
}

/// Why a served HTTP/1.1 connection ended, from hyper's answer.
pub fn close_reason(result: &Result<(), hyper::Error>) -> CloseReason {
    match result {
        Ok(()) => CloseReason::ClientClosed,
        // The head did not arrive in time: a slow or an idle client.
        Err(error) if error.is_timeout() => CloseReason::IdleTimeout,
        Err(error) if error.is_closed() || error.is_incomplete_message() => {
            CloseReason::ClientClosed
        }
        Err(error) if error.is_parse() || error.is_parse_too_large() => CloseReason::BadFrame,
        Err(_) => CloseReason::ProtocolError,
    }
}
