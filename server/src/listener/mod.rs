//! Client connections: accepted, handshaken within a deadline, served over
//! HTTP/2 with bounded settings, watched for stalled answers, counted.
//!
//! We serve connections ourselves (hyper, with the service tonic builds)
//! rather than through tonic's `Server` because tonic gives no handshake
//! deadline, no connection cap, no way to see why a connection closed, and
//! leaves h2's reset-flood limit off (see [`http2`]).
//!
//! - At most `--max-connections` are open. At the cap a new connection takes
//!   the place of the oldest one still in its handshake, so silent sockets
//!   cannot keep real clients out; with none in a handshake it is closed.
//! - A connection must finish TLS (when on) and start the HTTP/2 preface
//!   within `--handshake-timeout`.
//! - A connection with answers waiting that makes no progress sending any of
//!   them for `--send-timeout` is closed (a client that never reads still
//!   answers keepalive pings, so keepalive does not find it).
//! - Established idle connections are left alone: SDKs keep them and ping.
//!   (The protosocket port closes its idle ones after `--idle-timeout`.)
//!
//! Every close is counted in `jiffy_connections_closed_total{reason}`.
//!
//! The HTTP API's port (`crate::http`) is served by the same code over
//! HTTP/1.1 ([`http1`]): the same cap, handshake deadline, in-flight budget
//! and send timeout; its handshake is TLS and the first byte of a request.
//! So are the side ports, metrics and admin ([`side_port`]), each under its
//! own small cap.

pub mod descriptors;
mod handshake;
pub mod http1;
pub mod http2;
pub mod in_handshake;
mod paced;
pub mod side_port;
pub mod slots;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{FuturesUnordered, StreamExt};
use http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;
use tower::{Service, ServiceExt};

use crate::close::CloseReason;
use hyper_util::server::graceful::GracefulConnection;

use crate::in_flight::{ConnectionState, InFlight, RequestBody};
use crate::metrics::Metrics;
use handshake::read_start;
use in_handshake::InHandshake;
use paced::Paced;
use slots::{Slot, Slots};

/// How long to wait after an accept error (out of descriptors, say) before
/// accepting again, so the loop does not spin.
const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(50);

/// The connection settings of the configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    pub max_connections: usize,
    pub handshake_timeout: Duration,
    pub send_timeout: Duration,
    pub request_timeout: Duration,
    pub http2: http2::Settings,
    /// Set on the HTTP API's port: connections speak HTTP/1.1 with these
    /// settings instead of HTTP/2.
    pub http1: Option<http1::Settings>,
}

/// What every connection task shares.
struct Shared<S> {
    settings: Settings,
    tls: Option<TlsAcceptor>,
    service: S,
    metrics: Arc<Metrics>,
    in_flight: Arc<InFlight>,
    slots: Arc<Slots>,
    next_id: AtomicU64,
    in_handshake: InHandshake,
}

/// Serves `listener` until `shutdown` completes, then asks every connection
/// to finish (GOAWAY) and returns once all have closed.
pub async fn serve<S, B>(
    listener: TcpListener,
    settings: Settings,
    tls: Option<TlsAcceptor>,
    service: S,
    metrics: Arc<Metrics>,
    in_flight: Arc<InFlight>,
    shutdown: impl Future<Output = ()>,
) where
    S: Service<Request<tonic::body::Body>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<crate::BoxError>,
{
    let shared = Arc::new(Shared {
        slots: Slots::new(settings.max_connections, metrics.clone()),
        settings,
        tls,
        service,
        metrics,
        in_flight,
        next_id: AtomicU64::new(0),
        in_handshake: InHandshake::default(),
    });
    let (stopping, stop_requested) = watch::channel(false);
    tokio::select! {
        () = accept_loop(&listener, &shared, &stop_requested) => {}
        () = shutdown => {}
    }
    drop(listener);
    shared.in_handshake.abort_all();
    let _ = stopping.send(true);
    drop(stop_requested);
    // Each connection task holds a receiver; this waits for the last one.
    stopping.closed().await;
}

async fn accept_loop<S, B>(
    listener: &TcpListener,
    shared: &Arc<Shared<S>>,
    stop_requested: &watch::Receiver<bool>,
) where
    S: Service<Request<tonic::body::Body>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<crate::BoxError>,
{
    loop {
        shared.slots.room_to_accept().await;
        let stream = match listener.accept().await {
            Ok((stream, _peer)) => stream,
            Err(error) => {
                tracing::warn!(%error, "accept failed; retrying");
                tokio::time::sleep(ACCEPT_ERROR_BACKOFF).await;
                continue;
            }
        };
        let Some(admitted) = shared.slots.admit(&stream, &shared.in_handshake) else {
            continue;
        };
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let task = connection(
            shared.clone(),
            stream,
            id,
            stop_requested.clone(),
            admitted.slot,
        );
        shared
            .in_handshake
            .spawn(id, admitted.spoken, || tokio::spawn(task).abort_handle());
    }
}

async fn connection<S, B>(
    shared: Arc<Shared<S>>,
    stream: TcpStream,
    id: u64,
    stop_requested: watch::Receiver<bool>,
    _open: Slot,
) where
    S: Service<Request<tonic::body::Body>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<crate::BoxError>,
{
    match shared.tls.clone() {
        Some(tls) => {
            // A TLS session mid-handshake is kilobytes, and a task is sized
            // for the largest state it may reach: inline, every connection
            // in its handshake, plaintext ones too, would carry it (about
            // 9 KiB each, 140 MiB for 15,000 silent sockets). Boxed, and
            // only once the client has sent something, a silent connection
            // costs about 2 KiB.
            let http1 = shared.settings.http1.is_some();
            let handshake = async move {
                stream.readable().await?;
                Box::pin(async move { read_start(tls.accept(stream).await?, http1).await }).await
            };
            after_handshake(&shared, id, handshake, stop_requested).await
        }
        None => {
            let handshake = read_start(stream, shared.settings.http1.is_some());
            after_handshake(&shared, id, handshake, stop_requested).await
        }
    }
}

async fn after_handshake<S, B, IO>(
    shared: &Arc<Shared<S>>,
    id: u64,
    handshake: impl Future<Output = io::Result<IO>>,
    stop_requested: watch::Receiver<bool>,
) where
    S: Service<Request<tonic::body::Body>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<crate::BoxError>,
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let result = tokio::time::timeout(shared.settings.handshake_timeout, handshake).await;
    shared.in_handshake.done(id);
    let reason = match result {
        // Boxed: the serving state is large, and a connection still in its
        // handshake should not carry it (silent sockets cost little then).
        Ok(Ok(io)) => Box::pin(serve_connection(shared, io, stop_requested)).await,
        Ok(Err(_)) => CloseReason::HandshakeFailed,
        Err(_) => CloseReason::HandshakeTimeout,
    };
    shared.metrics.connection_closed(reason);
}

/// Serves one connection until it ends; says why it did.
async fn serve_connection<S, B, IO>(
    shared: &Arc<Shared<S>>,
    io: IO,
    stop_requested: watch::Receiver<bool>,
) -> CloseReason
where
    S: Service<Request<tonic::body::Body>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<crate::BoxError>,
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let state = shared.in_flight.connection();
    let service = {
        let shared = shared.clone();
        let state = state.clone();
        hyper::service::service_fn(move |request: Request<Incoming>| {
            let mut request = request.map(|body| {
                tonic::body::Body::new(RequestBody::new(
                    body,
                    shared.in_flight.clone(),
                    state.clone(),
                    shared.settings.request_timeout,
                ))
            });
            request.extensions_mut().insert(state.clone());
            // Boxed: hyper runs each stream as a task sized for the largest
            // state of this future (a clone of the whole service stack and
            // the request, then the stack's future), and keeps it for as
            // long as the answer streams. A subscription streams for hours:
            // unboxed, each held that size long after the call was done.
            Box::pin(shared.service.clone().oneshot(request))
        })
    };
    match &shared.settings.http1 {
        Some(settings) => {
            // One request at a time: nothing to pace.
            let connection = http1::builder(settings).serve_connection(TokioIo::new(io), service);
            let ended = (None, http1::close_reason as CloseReasonOf);
            drive(shared, connection, ended, &state, stop_requested).await
        }
        None => {
            // Paced: a burst of new streams does not leave h2's
            // per-connection slabs sized for it for the connection's
            // life (`paced`).
            let (io, turns) = Paced::new(io);
            let builder = http2::builder(&shared.settings.http2);
            let connection = builder.serve_connection(TokioIo::new(io), service);
            let ended = (Some(&turns), http2::close_reason as CloseReasonOf);
            drive(shared, connection, ended, &state, stop_requested).await
        }
    }
}

/// Why a served connection ended, from hyper's answer.
type CloseReasonOf = fn(&Result<(), hyper::Error>) -> CloseReason;

/// Runs a served connection until it ends, asking it to finish at
/// shutdown and closing it on a stalled answer or for the in-flight
/// budget; says why it ended.
async fn drive<S, C>(
    shared: &Arc<Shared<S>>,
    connection: C,
    (turns, close_reason): (Option<&paced::Turns>, CloseReasonOf),
    state: &ConnectionState,
    mut stop_requested: watch::Receiver<bool>,
) -> CloseReason
where
    C: GracefulConnection<Error = hyper::Error>,
{
    tokio::pin!(connection);
    let send_timeout = shared.settings.send_timeout;
    // What stops or closes the connection, polled only when one of them has
    // woken (a set of futures polls only those), not each time the
    // connection's task runs, which is several times a call: the stop
    // channel, the close notice and the watchdog's timer cost a lock or a
    // timer check each at every one of those polls.
    let mut signals: FuturesUnordered<Pin<Box<dyn Future<Output = Signal> + Send + '_>>> =
        FuturesUnordered::new();
    // Borrowed, not moved in: the receiver must live as long as the
    // connection, since the listener's shutdown waits for every receiver to
    // be dropped, and a finished future would drop it.
    let stop_requested = &mut stop_requested;
    signals.push(Box::pin(async {
        let _ = stop_requested.changed().await;
        Signal::Stop
    }));
    signals.push(Box::pin(async {
        state.close.notified().await;
        Signal::Close
    }));
    signals.push(Box::pin(async move {
        let mut watchdog = tokio::time::interval(send_timeout / 2);
        watchdog.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            watchdog.tick().await;
            if state.is_stalled(send_timeout) {
                return Signal::Stalled;
            }
        }
    }));
    let mut shutting_down = false;
    loop {
        tokio::select! {
            result = async {
                match turns {
                    Some(turns) => turns.polled(connection.as_mut()).await,
                    None => connection.as_mut().await,
                }
            } => {
                if shutting_down {
                    return CloseReason::Shutdown;
                }
                return close_reason(&result);
            }
            Some(signal) = signals.next() => match signal {
                Signal::Stop => {
                    shutting_down = true;
                    connection.as_mut().graceful_shutdown();
                }
                Signal::Close => return CloseReason::InFlightLimit,
                Signal::Stalled => return CloseReason::SendTimeout,
            },
        }
    }
}

/// What, apart from the connection itself, ends a served connection.
enum Signal {
    /// The server is stopping: the connection finishes what it has.
    Stop,
    /// The in-flight budget closes it to make room.
    Close,
    /// An answer made no progress for `--send-timeout`.
    Stalled,
}
