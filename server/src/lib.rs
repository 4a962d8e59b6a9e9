//! jiffy-server: an in-memory cache that speaks the Momento cache protocol.
//!
//! # Layout
//!
//! - [`server`] — wiring: each store assembles its parts, then one `serve`;
//!   [`run_with`] serves until a shutdown future completes.
//! - [`rpcs`] — the catalogue of calls (path, name, auth class, idempotence)
//!   that metrics, auth and fault injection read.
//! - [`config`] — flags, environment variables and the TOML file, each
//!   setting declared once (`config/settings.rs`).
//! - [`auth`] — signed tokens: who may call what on which caches.
//! - [`fault`] — the momento-local fault headers, behind `--enable-fault-injection`.
//! - [`service`] — the gRPC handlers, one file per group of RPCs.
//! - [`backend`] — the [`backend::Storage`] trait: the embedded store, or a Redis Cluster.
//! - [`store`] — the embedded store: sharded, TTL with active expiry, SIEVE eviction;
//!   [`defrag`] moves its items out of the allocator's emptiest slabs.
//! - [`topics`] — publish and subscribe: numbering, the resume buffer, fan-out.
//! - [`limits`] — what a request may carry (key, value, TTL, cache name).
//! - [`cache_limits`] — per-cache rates: calls, bytes and publishes a second.
//! - [`admin_port`] — `--admin-listen`: momento-local's `/block` and `/unblock`, for tests.
//! - [`error`] — the one error type, and how it maps to a gRPC status.
//! - [`metrics`] and [`rpc_layer`] — Prometheus metrics, and the layer that feeds them;
//!   [`allocator`] — jemalloc's own figures among them; [`thread_cache`] —
//!   the freed blocks a worker's cache holds, given back once a second.
//! - [`routes`] — the gRPC router: the data plane and topics by path prefix,
//!   the other services through tonic's.
//! - [`listener`] — connections: handshake deadline, cap, HTTP/2 limits, send timeout.
//! - [`close`] — why a connection closed, for both ports and the metrics.
//! - [`protosocket`] — the second port, `--protosocket-listen`: Get, Set and
//!   Delete over Momento's protosocket protocol (length-prefixed protobuf).
//! - [`webhooks`] — a topic's messages POSTed to a URL, signed; their calls.
//! - [`http`] — the HTTP API's port, `--http-listen`: get, set and delete of
//!   an item and publish to a topic, as Momento's HTTP API.
//! - [`in_flight`] — the bound on bytes of requests and answers in flight.
//! - [`proto`] — code generated from `proto/` at build time (servers and clients).

pub mod admin_port;
#[cfg(not(target_env = "msvc"))]
pub mod allocator;
pub mod auth;
pub mod backend;
pub mod cache_limits;
pub mod close;
pub mod config;
pub mod defrag;
pub mod error;
pub mod fault;
pub mod http;
pub mod in_flight;
pub mod limits;
pub mod listener;
pub mod metrics;
pub mod protosocket;
pub mod routes;
pub mod rpc_layer;
pub mod rpcs;
pub mod server;
pub mod service;
pub mod store;
#[cfg(not(target_env = "msvc"))]
pub mod thread_cache;
pub mod topics;
pub mod webhooks;

pub use server::{run_with, BoxError};

/// Code generated from the `.proto` files in `proto/`.
pub mod proto {
    pub mod common {
        tonic::include_proto!("common");
    }
    pub mod cache_client {
        tonic::include_proto!("cache_client");
        pub mod pubsub {
            tonic::include_proto!("cache_client.pubsub");
        }
    }
    pub mod control_client {
        tonic::include_proto!("control_client");
    }
    pub mod leaderboard {
        tonic::include_proto!("leaderboard");
    }
    /// Jiffy's own administration calls (`proto/admin.proto`).
    pub mod admin {
        tonic::include_proto!("jiffy.admin");
    }
    pub mod permission_messages {
        tonic::include_proto!("permission_messages");
    }
    pub mod token {
        tonic::include_proto!("token");
    }
    pub mod auth {
        tonic::include_proto!("auth");
    }
    pub mod webhook {
        tonic::include_proto!("webhook");
    }
    /// The messages of the protosocket port (`proto/protosocket/`).
    pub mod protosocket {
        pub mod common {
            include!(concat!(env!("OUT_DIR"), "/protosocket/common.rs"));
        }
        pub mod cache {
            include!(concat!(env!("OUT_DIR"), "/protosocket/cache.rs"));
        }
    }
}
