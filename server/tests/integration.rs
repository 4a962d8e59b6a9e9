//! The server's integration tests: one test binary, whose modules were each
//! a binary of their own, so that the harness (`common`) and the server are
//! compiled and linked once. One suite:
//! `cargo test -p jiffy-server --test integration -- no_lost_writes::`.
//! The suites that need the process to themselves are in `stress.rs`.

mod common;

mod abandoned_calls;
mod admin_port;
mod allocator;
mod auth;
mod auth_tokens;
mod bad_input_calls;
mod bad_input_limits;
mod bad_input_protosocket;
mod bad_input_wire;
mod cache_limits;
mod cache_metrics;
mod catalogue;
mod connections;
mod control_plane;
mod data_plane;
mod dictionary;
mod fault_injection;
mod hash;
mod health;
mod http_api;
mod large_answers;
mod leaderboard;
mod limits;
mod list;
mod memory;
mod memory_collections;
mod memory_per_element;
mod momento_keys;
mod no_lost_writes;
mod operations;
mod ops;
mod proptest_protosocket;
mod proptest_requests;
mod proptest_store;
mod protosocket;
mod protosocket_in_flight;
mod redis_backend_down;
mod redis_failover;
mod redis_layout;
mod redis_semantics;
mod redis_tls;
mod set;
mod signing_keys;
mod sorted_set;
mod storage_equivalence;
mod topics;
mod topics_limits;
mod topics_redis;
mod webhooks;
