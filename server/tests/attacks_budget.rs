//! Attacks on the budget: small requests that would make the server spend
//! bytes or seconds out of all proportion (amplified answers, topic and
//! subscription floods, answers held by clients that never read, calls whose
//! cost grows with a collection, writes past the memory caps), against the
//! release binary, each for a bounded time (`JIFFY_ATTACK_SECONDS`, 2 s by
//! default; `bench/reliability/attacks.sh` runs them longer). One runs at a
//! time.
//!
//! Each asserts what `attacks.rs` asserts (the server stays up, its peak
//! resident memory stays within the bound above idle, the well-behaved
//! client's calls succeed with p99 under the bound, newcomers are served),
//! on both stores where the call has both. docs/RELIABILITY.md, "Budget",
//! lists each place that holds bytes a client sent and the attack here that
//! proves its bound.

mod amplification;
mod collections;
mod fetches;
mod memory_caps;
mod send_path;
mod topics;
