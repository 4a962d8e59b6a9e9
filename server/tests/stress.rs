//! The suites that must not share their process with the others, run one
//! test at a time (`common::attack::serialize`): the attacks assert one
//! server's latency and resident memory on a machine of two cores, and lower
//! this process's open-file limit around a spawn (the server inherits it);
//! idle_connections and many_clients hold thousands of sockets in this
//! process. Beside other tests they would measure each other's load, or run
//! out of descriptors. One suite:
//! `cargo test -p jiffy-server --test stress -- attacks_budget::`.

mod common;

mod attacks;
mod attacks_budget;
mod attacks_http;
mod attacks_presigned;
mod attacks_side_ports;
mod attacks_tls;
mod idle_connections;
mod many_clients;
