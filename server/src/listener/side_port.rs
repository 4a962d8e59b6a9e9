//! The side ports, `--metrics-listen` and `--admin-listen`: served by the
//! HTTP API port's connection handling (`super::serve` over HTTP/1.1), each
//! under `--max-side-port-connections`.
//!
//! A metrics port is often open to a whole monitoring network, and a bare
//! HTTP server holds every socket it accepts until the client leaves: idle
//! ones would take memory and the descriptors sized for the cache ports,
//! and lock out the prober. Here a connection must send its first byte
//! within `--handshake-timeout` and each request head within
//! `--request-timeout` (which also closes a kept-alive idle one), the head
//! is capped at `--max-header-list-size`, and at the cap a new connection
//! replaces the oldest, so a prober always gets in.

use std::future::Future;
use std::sync::Arc;

use prometheus::IntGauge;
use tokio::net::TcpListener;

use super::{http1, Settings};
use crate::in_flight::InFlight;
use crate::metrics::Metrics;

/// Request bytes a side port may hold at once, over all its connections:
/// its requests are bodiless GETs, so this only bounds a client that sends
/// a body anyway.
pub const SIDE_PORT_IN_FLIGHT_BYTES: usize = 1 << 20;

/// A side port's connection settings: the cache ports' timeouts and head
/// cap, `max_connections` places, the oldest replaced at the cap.
pub fn settings(cache_port: &Settings, max_connections: usize, max_header_size: usize) -> Settings {
    Settings {
        max_connections,
        http1: Some(http1::Settings {
            max_header_size,
            header_read_timeout: cache_port.request_timeout,
        }),
        replace_oldest: true,
        ..cache_port.clone()
    }
}

/// Serves `router` on `listener` with `settings` until `stop` completes.
pub async fn serve(
    listener: TcpListener,
    settings: Settings,
    router: axum::Router,
    metrics: Arc<Metrics>,
    stop: impl Future<Output = ()>,
) {
    // Its own budget, so a side port can never take the cache ports' room;
    // not exported (the gauge is unregistered): it is small and fixed.
    let gauge = IntGauge::new("side_port_in_flight_bytes", "side port request bytes")
        .expect("a valid gauge name");
    let in_flight = InFlight::new(SIDE_PORT_IN_FLIGHT_BYTES, gauge);
    super::serve(listener, settings, None, router, metrics, in_flight, stop).await;
}
