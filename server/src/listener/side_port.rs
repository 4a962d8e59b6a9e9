//! The side ports, `--metrics-listen` and `--admin-listen`: served by the
//! HTTP API port's connection handling (`super::serve` over HTTP/1.1), each
//! under `--max-side-port-connections`.
//!
//! A metrics port is often open to a whole monitoring network, and a bare
//! HTTP server holds every socket it accepts until the client leaves: idle
//! ones would take memory and the descriptors sized for the cache ports,
//! and lock out the prober. Here a connection must send its first byte
//! within `--handshake-timeout`; at the cap a new connection takes the place
//! of the oldest one still silent, as on the cache ports, so a prober,
//! which speaks at once (a health check, a scrape), is served past a flood
//! of silent sockets. Each request head (at most `--max-header-list-size`)
//! must arrive within [`SIDE_PORT_IDLE_TIMEOUT`] (or `--request-timeout` if
//! shorter), which also closes a kept-alive connection that asks nothing
//! more: a socket that spoke once holds its place for at most that long.

use std::future::Future;
use std::time::Duration;

use prometheus::IntGauge;
use tokio::net::TcpListener;

use super::{http1, Settings};
use crate::in_flight::InFlight;
use crate::metrics::Metrics;

/// Request bytes a side port may hold at once, over all its connections:
/// its requests are bodiless GETs, so this only bounds a client that sends
/// a body anyway.
pub const SIDE_PORT_IN_FLIGHT_BYTES: usize = 1 << 20;

/// How long a side port's connection may take to send a request head, or
/// stay idle between requests: a scrape or a probe asks at once, and
/// reconnecting costs it a handshake, while a socket that spoke once holds
/// one of the few places for no longer than this.
pub const SIDE_PORT_IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// A side port's connection settings: the cache ports' timeouts and head
/// cap, `max_connections` places, a short idle timeout.
pub fn settings(cache_port: &Settings, max_connections: usize, max_header_size: usize) -> Settings {
    Settings {
        max_connections,
        http1: Some(http1::Settings {
            max_header_size,
            header_read_timeout: cache_port.request_timeout.min(SIDE_PORT_IDLE_TIMEOUT),
        }),
        ..cache_port.clone()
    }
}

/// Serves `router` on `listener` with `settings` until `stop` completes.
pub async fn serve(
    listener: TcpListener,
    settings: Settings,
    router: axum::Router,
    stop: impl Future<Output = ()>,
) {
    // Its own connection counters, not exported: a scrape's own connection
    // must not show in the cache ports' `jiffy_open_connections` and
    // `jiffy_connections_total`, which operators and tests read as the
    // clients'. The side ports' sockets show in `process_open_fds`, and
    // their cap bounds them.
    let metrics = Metrics::new(None, 0);
    // Its own budget, so a side port can never take the cache ports' room;
    // not exported (the gauge is unregistered): it is small and fixed.
    let gauge = IntGauge::new("side_port_in_flight_bytes", "side port request bytes")
        .expect("a valid gauge name");
    let in_flight = InFlight::new(SIDE_PORT_IN_FLIGHT_BYTES, gauge);
    super::serve(listener, settings, None, router, metrics, in_flight, stop).await;
}
