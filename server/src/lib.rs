//! jiffy-server: an in-memory cache that speaks the Momento cache protocol.
//!
//! # Layout
//!
//! - [`proto`]: code generated from `proto/` at build time (servers and clients).
//! - [`error`]: the one error type, and how it maps to a gRPC status.

pub mod error;

/// Code generated from the `.proto` files in `proto/`.
pub mod proto {
    pub mod common {
        tonic::include_proto!("common");
    }
    pub mod cache_client {
        tonic::include_proto!("cache_client");
    }
    pub mod control_client {
        tonic::include_proto!("control_client");
    }
}
