//! The protosocket port (`--protosocket-listen`): Momento's protosocket
//! cache protocol, Get, Set and Delete on the same store as the gRPC port.
//!
//! On the wire each message is a frame: its length as a protobuf varint,
//! then a `CacheCommand` (client) or `CacheResponse` (server) of
//! `proto/protosocket/cache.proto`. The first command on a connection is
//! Authenticate; then commands may be pipelined, and answers come back as
//! they finish, paired by message id.
//!
//! The framing is ours, over prost's length-delimited decoding and tokio,
//! rather than the `protosocket-rpc` crate's server: that server owns the
//! accept loop and each socket (its own listener trait, spawner and
//! runtime), which leaves no place for what every connection of ours has:
//! the connection cap, the TLS handshake deadline, the send timeout, the
//! count of closes by reason, and answering before a command is read
//! (Authenticate first). Its wire format is small enough that the reader in
//! [`framing`] is a few dozen lines, and is tested against split and bad
//! input.
//!
//! - [`framing`] — frames in and out, and the largest value an answer carries.
//! - [`connection`] — one connection: in-flight commands, cancel.
//! - [`answers`] — answers charged, encoded and written.
//! - [`dispatch`] — each command, through the gRPC handlers' code.
//! - [`auth`] — the session Authenticate opens, checked per command.
//! - [`budget`] — what commands and answers hold of `--max-in-flight-bytes`.

pub mod answers;
pub mod auth;
pub mod budget;
pub mod connection;
pub mod dispatch;
pub mod framing;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use crate::backend::Storage;
use crate::close::CloseReason;
use crate::listener::in_handshake::InHandshake;
use crate::listener::slots::Slots;
pub use connection::Limits;
pub use dispatch::Context;

/// How long to wait after an accept error before accepting again.
const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `listener` until `shutdown` completes; then stops accepting, lets
/// each connection finish the commands it has read and send their answers,
/// and returns once all have closed.
///
/// At `max_connections` a new connection takes the place of the oldest one
/// still in its handshake (TLS and the first frame), as on the gRPC port:
/// sockets that connect and stay silent cannot keep clients out until the
/// handshake deadline frees them. With none in a handshake it is closed.
pub async fn serve<S: Storage>(
    listener: TcpListener,
    context: Arc<Context<S>>,
    limits: Limits,
    max_connections: usize,
    handshake_timeout: Duration,
    tls: Option<TlsAcceptor>,
    shutdown: impl Future<Output = ()>,
) {
    let metrics = context.metrics.clone();
    let (stopping, stop) = watch::channel(false);
    let mut connections = JoinSet::new();
    let in_handshake = Arc::new(InHandshake::default());
    let slots = Slots::new(max_connections, metrics.clone());
    let mut next_id = 0u64;
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            () = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = async {
                slots.room_to_accept().await;
                listener.accept().await
            } => match accepted {
                Ok((stream, _peer)) => stream,
                Err(error) => {
                    tracing::warn!(%error, "protosocket accept failed; retrying");
                    tokio::time::sleep(ACCEPT_ERROR_BACKOFF).await;
                    continue;
                }
            },
        };
        let Some(admitted) = slots.admit(&stream, &in_handshake) else {
            continue;
        };
        let open = admitted.slot;
        let (context, limits, tls, stop) =
            (context.clone(), limits.clone(), tls.clone(), stop.clone());
        let id = next_id;
        next_id += 1;
        let handshaken = {
            let in_handshake = in_handshake.clone();
            move || in_handshake.done(id)
        };
        let ended = in_handshake.clone();
        let task = async move {
            let reason = match tls {
                None => connection::serve(context, limits, stream, stop, handshaken).await,
                Some(tls) => {
                    match tokio::time::timeout(handshake_timeout, tls.accept(stream)).await {
                        Ok(Ok(stream)) => {
                            connection::serve(context, limits, stream, stop, handshaken).await
                        }
                        Ok(Err(_)) => CloseReason::HandshakeFailed,
                        Err(_) => CloseReason::HandshakeTimeout,
                    }
                }
            };
            ended.done(id);
            open.metrics().connection_closed(reason);
        };
        in_handshake.spawn(id, admitted.spoken, || connections.spawn(task));
    }
    drop(listener);
    let _ = stopping.send(true);
    while connections.join_next().await.is_some() {}
}
