//! The HTTP/2 settings every connection is served with, and why each is set.
//!
//! These bound what one connection can make the server hold or do, whatever
//! the client sends (docs/RELIABILITY.md, "Attacks", has the test of each):
//!
//! - Streams the server resets itself (a malformed frame on a stream, a
//!   header block over the size limit...) are capped per connection; past
//!   the cap the connection gets GOAWAY ENHANCE_YOUR_CALM. This is the fix
//!   for "MadeYouReset" (CVE-2025-8671): a client that provokes resets keeps
//!   the handlers running while the stream limit no longer counts them. h2
//!   has the cap, but tonic's server builder leaves it unset and so passes
//!   "no limit" through hyper; serving connections ourselves sets it.
//! - Streams the client opens and resets before the server accepts them are
//!   capped likewise (Rapid Reset, CVE-2023-44487).
//! - The header list is capped (`--max-header-list-size`), and the streams
//!   per connection (`--max-concurrent-streams`).
//! - h2's send buffer per stream is [`SEND_BUFFER`], not hyper's 400 KiB:
//!   what h2 holds of an answer is charged to the in-flight budget until
//!   written (`crate::in_flight`), and beyond two chunks a larger buffer
//!   only queues in memory what the socket has not taken.
//! - h2's receive window, per connection and per stream, is
//!   [`RECEIVE_WINDOW`], not hyper's 1 MiB: request bytes h2 has taken
//!   and no handler has read yet are not in the in-flight budget
//!   (`crate::in_flight::RequestBody` charges a chunk when it is read), so
//!   what a connection can make h2 hold before it is counted is kept small.
//! - Keepalive pings find dead peers; a peer that answers pings but never
//!   reads is found by the send timeout instead (`super::serve_connection`).
//!
//! One setting is for CPU, not a bound: no `date` header on answers. gRPC
//! clients do not read it, and hyper's adds a clock read and a header to
//! encode to every answer.

use std::time::Duration;

use hyper::server::conn::http2::Builder;
use hyper_util::rt::{TokioExecutor, TokioTimer};

use crate::close::CloseReason;
use crate::in_flight::SEND_BUFFER;

/// Streams one connection may make the server reset before it is closed.
/// A well-behaved client provokes none; h2's own default.
pub const MAX_LOCAL_ERROR_RESETS: usize = 1024;

/// Streams reset by the client while still queued for the server; h2's
/// default, which bounds Rapid Reset to a few streams' work.
pub const MAX_PENDING_ACCEPT_RESETS: usize = 20;

/// h2's receive window, per connection and per stream (hyper's default is
/// 1 MiB each): the request bytes a connection may send before the server
/// has read them, which h2 holds until a handler does, uncounted by the
/// in-flight budget. 64 connections sending bodies at once held +80 to
/// +85 MiB above idle at a 32 MiB budget with hyper's windows, +44 to +46
/// with these (`attacks_budget`
/// `send_path::request_bodies_filling_the_windows_of_many_connections`).
/// 128 KiB still lets a 5 MiB request through in 40 windows, which on a
/// network with a 10 ms round trip is about 13 MB/s per connection.
pub const RECEIVE_WINDOW: u32 = 128 << 10;

/// The HTTP/2 settings of [`Settings`] as a connection builder.
#[derive(Clone, Debug)]
pub struct Settings {
    pub max_concurrent_streams: u32,
    pub max_header_list_size: u32,
    pub keepalive_interval: Duration,
    pub keepalive_timeout: Duration,
}

pub fn builder(settings: &Settings) -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .timer(TokioTimer::new())
        .max_concurrent_streams(settings.max_concurrent_streams)
        .max_header_list_size(settings.max_header_list_size)
        .max_local_error_reset_streams(Some(MAX_LOCAL_ERROR_RESETS))
        .max_pending_accept_reset_streams(Some(MAX_PENDING_ACCEPT_RESETS))
        .max_send_buf_size(SEND_BUFFER)
        .initial_connection_window_size(RECEIVE_WINDOW)
        .initial_stream_window_size(RECEIVE_WINDOW)
        .keep_alive_interval(Some(settings.keepalive_interval))
        .keep_alive_timeout(settings.keepalive_timeout)
        .auto_date_header(false);
    builder
}

/// Why a served connection ended, from hyper's answer.
pub fn close_reason(result: &Result<(), hyper::Error>) -> CloseReason {
    let Err(error) = result else {
        return CloseReason::ClientClosed;
    };
    if error.is_timeout() {
        return CloseReason::KeepaliveTimeout;
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(h2) = cause.downcast_ref::<h2::Error>() {
            if h2.is_io() || h2.is_remote() {
                return CloseReason::ClientClosed;
            }
            return match h2.reason() {
                Some(h2::Reason::ENHANCE_YOUR_CALM) => CloseReason::EnhanceYourCalm,
                Some(h2::Reason::NO_ERROR) => CloseReason::ClientClosed,
                _ => CloseReason::ProtocolError,
            };
        }
        source = cause.source();
    }
    if error.is_closed() || error.is_incomplete_message() {
        CloseReason::ClientClosed
    } else {
        CloseReason::ProtocolError
    }
}
