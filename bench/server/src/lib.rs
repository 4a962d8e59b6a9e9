//! What the load clients of this crate share: `jiffy-bench-server` (Get,
//! Set and the collection calls, `src/main.rs`) and `jiffy-bench-topics`
//! (Publish and Subscribe beside Redis PUBLISH / SUBSCRIBE,
//! `src/topics/main.rs`).
//!
//! # Layout
//!
//! - [`cpu`]: CPU time of a process and of the machine, from /proc.
//! - [`latency`]: the HDR histogram both record into, and its percentiles.
//! - [`grpc`]: connecting to jiffy-server and creating the cache.

pub mod cpu;
pub mod grpc;
pub mod latency;
