//! The test admin port, `--admin-listen`: momento-local's `/block` and
//! `/unblock`, so that the official SDKs' reconnect tests written for
//! momento-local run against jiffy-server too.
//!
//! momento-local blocks its port with a firewall rule (it runs with
//! `NET_ADMIN`): packets are dropped, so calls go unanswered and a
//! subscription's connection is found dead by its keepalive pings. Without
//! a firewall, the server does what the client sees: from `GET /block` to
//! `GET /unblock` no gRPC call is handled (a call waits, and is answered
//! once unblocked if its deadline has not passed), and every open answer
//! stream, a topic subscription above all, ends with UNAVAILABLE, as a
//! connection lost would. Both answer `200` with an empty body; anything
//! else is `404`.
//!
//! The port takes no token: it is loopback only unless
//! `--insecure-allow-anonymous` says otherwise (`config`). The protosocket
//! port is not blocked.

mod layer;

use std::sync::Arc;

use axum::http::StatusCode;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::listener;

pub use layer::BlockLayer;

/// Whether calls are blocked; shared by the admin port and the gRPC layer.
#[derive(Clone)]
pub struct Blocker {
    blocked: Arc<watch::Sender<bool>>,
}

impl Default for Blocker {
    fn default() -> Self {
        Blocker {
            blocked: Arc::new(watch::channel(false).0),
        }
    }
}

impl Blocker {
    pub fn new() -> Blocker {
        Blocker::default()
    }

    pub fn block(&self) {
        self.blocked.send_replace(true);
    }

    pub fn unblock(&self) {
        self.blocked.send_replace(false);
    }

    /// Changes of the state, for the answers being sent.
    fn watch(&self) -> watch::Receiver<bool> {
        self.blocked.subscribe()
    }

    /// Returns once calls are not blocked.
    async fn unblocked(&self) {
        let mut state = self.watch();
        let _ = state.wait_for(|blocked| !*blocked).await;
    }
}

/// Serves `GET /block` and `GET /unblock` on `listener` until `stop`,
/// as a side port (`crate::listener::side_port`).
pub async fn serve(
    listener: TcpListener,
    settings: listener::Settings,
    blocker: Blocker,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let set = |blocked: bool| {
        let blocker = blocker.clone();
        axum::routing::get(move || async move {
            if blocked {
                blocker.block();
            } else {
                blocker.unblock();
            }
            tracing::warn!(
                blocked,
                "admin port: calls {}",
                if blocked { "blocked" } else { "unblocked" }
            );
            StatusCode::OK
        })
    };
    let app = axum::Router::new()
        .route("/block", set(true))
        .route("/unblock", set(false));
    listener::side_port::serve(listener, settings, app, stop).await;
}
