//! One protosocket connection: commands read in order, run concurrently,
//! answered as each finishes (the message id pairs them up).
//!
//! - Authenticate is answered in line, so the commands read after it run
//!   with its session. Every other command is run in line until it would
//!   wait (the embedded store never does), then in a task of its own.
//! - At most `max_in_flight` commands run at once; past it the connection
//!   is not read until one finishes, which holds back the client through
//!   TCP instead of buffering without bound.
//! - Answers go to the socket through a queue of `max_in_flight` frames; a
//!   write that makes no progress for `send_timeout` closes the connection
//!   (a client that never reads).
//! - Frames, commands and answers are charged to the server's in-flight
//!   budget ([`super::budget`]); when it closes this connection to make
//!   room for others, the connection ends (`in_flight_limit`).
//! - A frame over `--max-request-size` is skipped as it arrives and refused
//!   RESOURCE_EXHAUSTED under its message id; the connection goes on.
//! - Once its first frame is in, a connection with no command read or
//!   running for `--idle-timeout` is closed (`idle_timeout`): idle clients
//!   cannot hold the port's connection cap.
//! - A cancel (control code 1) aborts the command in flight under its id,
//!   and nothing is answered; a cancel for no such command is ignored.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use std::future::Future;
use std::pin::Pin;

use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::FutureExt;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, watch};
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;
use tonic::Code;

use super::answers::{charged_answer, write_answers, Answer};
use super::auth::{authenticate, Session};
use super::budget::{Budget, CALL_OVERHEAD};
use super::dispatch::{self, Context};
use super::framing::{encode, Frame, FrameError, FrameReader, CANCEL, NORMAL};
use crate::backend::Storage;
use crate::close::CloseReason;
use crate::in_flight::CallCharges;
use crate::metrics::{InFlightGuard, Metrics, RpcId, Transport};
use crate::proto::protosocket::cache::cache_command::RpcKind;
use crate::proto::protosocket::cache::cache_response::Kind;
use crate::proto::protosocket::cache::unary::Command;
use crate::proto::protosocket::cache::{AuthenticateResponse, CacheResponse};
use crate::rpcs::{self, Rpc};

/// What a connection may use and how long it may take.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The largest frame read (`--max-request-size`).
    pub max_frame: usize,
    /// Commands run at once (`--max-concurrent-streams`).
    pub max_in_flight: usize,
    /// From accepting to the first frame (`--handshake-timeout`).
    pub first_frame_timeout: Duration,
    /// From a frame's first byte to its last (`--request-timeout`).
    pub frame_timeout: Duration,
    /// A write of answers without progress (`--send-timeout`).
    pub send_timeout: Duration,
    /// No command read or running (`--idle-timeout`), after the first frame.
    pub idle_timeout: Duration,
}

/// Serves one connection until it ends; says why it did. `handshaken` is
/// called once its first frame has arrived.
pub async fn serve<S, IO>(
    context: Arc<Context<S>>,
    limits: Limits,
    io: IO,
    mut stop: watch::Receiver<bool>,
    handshaken: impl FnOnce(),
) -> CloseReason
where
    S: Storage,
    IO: AsyncRead + AsyncWrite + Send + 'static,
{
    let (read_half, write_half) = tokio::io::split(io);
    let budget = Budget::open(&context.in_flight);
    let state = budget.connection().clone();
    let mut reader =
        FrameReader::new(read_half, limits.max_frame, limits.frame_timeout).counted(budget.clone());
    let (answers, outbox) = mpsc::channel(limits.max_in_flight);
    let writer = write_answers(write_half, outbox, limits.send_timeout);
    tokio::pin!(writer);
    let mut connection = Connection {
        context,
        budget,
        session: Session::Unauthenticated,
        in_flight: HashMap::new(),
        tasks: JoinSet::new(),
        answers,
    };
    let mut handshaken = Some(handshaken);
    let stop_seen = stop.clone();
    // What ends or checks the connection now and then, apart from its
    // frames: polled only when one of them has woken (a set of futures
    // polls only those), not at every turn of the loop, where the close
    // notice and the stop channel took a lock each, about 700 instructions
    // a command between them.
    let mut signals: Signals<'_> = FuturesUnordered::new();
    signals.push(Box::pin(async {
        state.close.notified().await;
        Signal::Close
    }));
    signals.push(Box::pin(async {
        let _ = stop.changed().await;
        Signal::Stop
    }));
    signals.push(Box::pin(after(
        limits.first_frame_timeout,
        Signal::FirstFrame,
    )));
    // Idle connections would hold their place under --max-connections for
    // nothing: past --idle-timeout without a command, they are closed. The
    // timer is armed anew from the last activity when it fires, not moved
    // at each frame (the timer wheel's lock, twice a command).
    signals.push(Box::pin(after(limits.idle_timeout, Signal::Idle)));
    let mut last_activity = Instant::now();
    loop {
        let room = connection.tasks.len() < limits.max_in_flight;
        let frame = tokio::select! {
            result = &mut writer => return result.err().unwrap_or(CloseReason::ClientClosed),
            Some(signal) = signals.next() => {
                match signal {
                    Signal::Close => return CloseReason::InFlightLimit,
                    Signal::Stop => break,
                    Signal::FirstFrame if handshaken.is_some() => {
                        return CloseReason::HandshakeTimeout;
                    }
                    Signal::FirstFrame => {}
                    Signal::Idle => {
                        let idle = handshaken.is_none() && connection.tasks.is_empty();
                        let due = last_activity + limits.idle_timeout;
                        let now = Instant::now();
                        if idle && now >= due {
                            return CloseReason::IdleTimeout;
                        }
                        let wait = if idle { due - now } else { limits.idle_timeout };
                        signals.push(Box::pin(after(wait, Signal::Idle)));
                    }
                }
                continue;
            }
            Some(done) = connection.tasks.join_next_with_id(), if !connection.tasks.is_empty() => {
                if let Ok((task, id)) = done {
                    connection.finished(id, task);
                }
                last_activity = Instant::now();
                continue;
            }
            frame = reader.next(), if room => frame,
        };
        if let Some(handshaken) = handshaken.take() {
            handshaken();
        }
        last_activity = Instant::now();
        let frame = match frame {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(error @ FrameError::TooLarge { message_id, .. }) => {
                // Skipped whole: refused under its id, and the client's
                // other commands go on.
                let refused = connection.refuse(None, Code::ResourceExhausted, &error.to_string());
                let answer = (reply(message_id, refused), None);
                let sent = tokio::select! {
                    sent = connection.answers.send(answer) => sent,
                    result = &mut writer => return result.err().unwrap_or(CloseReason::ClientClosed),
                };
                if sent.is_err() {
                    return CloseReason::ClientClosed;
                }
                continue;
            }
            Err(FrameError::InFlightFull) => return CloseReason::InFlightLimit,
            Err(error) => {
                tracing::debug!(%error, "protosocket: closing a connection");
                return CloseReason::BadFrame;
            }
        };
        if let Some(answer) = connection.take(frame) {
            let sent = tokio::select! {
                sent = connection.answers.send(answer) => sent,
                result = &mut writer => return result.err().unwrap_or(CloseReason::ClientClosed),
            };
            if sent.is_err() {
                return CloseReason::ClientClosed;
            }
        }
    }
    // The client has finished sending, or the server is stopping: the
    // commands in flight finish and their answers are sent, then it closes.
    let stopping = *stop_seen.borrow();
    let Connection { answers, tasks, .. } = connection;
    drop(answers);
    let mut tasks = tasks;
    loop {
        tokio::select! {
            done = tasks.join_next() => if done.is_none() { break },
            result = &mut writer => return result.err().unwrap_or(CloseReason::ClientClosed),
            Some(signal) = signals.next() => if signal == Signal::Close {
                return CloseReason::InFlightLimit;
            },
        }
    }
    match writer.await {
        Err(reason) => reason,
        Ok(()) if stopping => CloseReason::Shutdown,
        Ok(()) => CloseReason::ClientClosed,
    }
}

struct Connection<S> {
    context: Arc<Context<S>>,
    budget: Budget,
    session: Session,
    /// The commands running, by message id, with their task's id so that a
    /// finished task cannot remove a later command that reused its id.
    in_flight: HashMap<u64, (tokio::task::Id, AbortHandle)>,
    tasks: JoinSet<u64>,
    answers: mpsc::Sender<Answer>,
}

impl<S: Storage> Connection<S> {
    /// Starts or cancels one command; the frame to answer at once, if any.
    fn take(&mut self, frame: Frame) -> Option<Answer> {
        let Frame {
            message: command,
            size,
            charge,
        } = frame;
        let id = command.message_id;
        let reply = |kind| Some((reply(id, kind), None));
        let unary = match (command.control_code, command.rpc_kind) {
            (CANCEL, _) => {
                if let Some((_, task)) = self.in_flight.remove(&id) {
                    task.abort();
                }
                return None;
            }
            (NORMAL, Some(RpcKind::Unary(unary))) => unary,
            (NORMAL, None) => {
                return reply(self.refuse(None, Code::Unimplemented, &unknown_command()));
            }
            (code, _) => {
                let message = format!(
                    "unknown control code {code}: this server knows 0 (a command) and 1 (cancel)"
                );
                return reply(self.refuse(None, Code::InvalidArgument, &message));
            }
        };
        let (name, command) = match unary.command {
            Some(Command::Auth(auth)) => {
                let verifier = self.context.verifier.as_deref();
                return match authenticate(verifier, &auth.token) {
                    Ok(session) => {
                        self.session = session;
                        reply(Kind::Auth(AuthenticateResponse {}))
                    }
                    Err(status) => {
                        self.session = Session::Unauthenticated;
                        reply(dispatch::error(status.code(), status.message()))
                    }
                };
            }
            Some(command @ Command::Get(_)) => ("get", command),
            Some(command @ Command::Set(_)) => ("set", command),
            Some(command @ Command::Delete(_)) => ("delete", command),
            None => return reply(self.refuse(None, Code::Unimplemented, &unknown_command())),
        };
        let rpc = rpcs::protosocket_call(name).expect("every data command is catalogued");
        if self.in_flight.contains_key(&id) {
            let message = format!(
                "message id {id} is already in flight on this connection; ids must be unique among the commands in flight"
            );
            return reply(self.refuse(Some(rpc), Code::InvalidArgument, &message));
        }
        // Charged as a gRPC call is, its overhead and its body.
        let need = CALL_OVERHEAD + size;
        let charge = match charge {
            Some(charge) => charge.top_up(need),
            None => self.budget.charge(need),
        };
        let Some(charge) = charge else {
            let status = self.budget.full_status();
            return reply(self.refuse(Some(rpc), Code::ResourceExhausted, status.message()));
        };
        let call = Call::start(&self.context.metrics, rpc);
        let (context, session) = (self.context.clone(), self.session.clone());
        let budget = self.budget.clone();
        let mut work = Box::pin(async move {
            let mut call = call;
            // What the store charges for an answer it reads into new
            // memory (the Redis store), until the answer is charged.
            let store = CallCharges::new(
                budget.in_flight().clone(),
                Some(budget.connection().clone()),
            );
            let outcome = store
                .within(dispatch::data(&context, &session, rpc, command))
                .await;
            drop(charge);
            let (code, answer) = charged_answer(&budget, id, outcome).await;
            drop(store);
            call.finish(code);
            answer
        });
        // Run in line first: on the embedded store a command finishes
        // without waiting, and a task per command (spawn, scheduling, the
        // abort handle, the map of ids) cost more than the command itself
        // (server CPU per request 6.9-7.3 µs with a task each, 4.0-4.7 µs
        // in line). One that must wait (the Redis store, an answer waiting
        // for room in --max-in-flight-bytes, or for room in the queue to
        // the socket) goes on in a task of its own: it stays in flight,
        // where a cancel or a duplicate id meets it, and reading goes on.
        let answers = self.answers.clone();
        let task = match (&mut work).now_or_never() {
            Some(answer) => match answers.try_send(answer) {
                Ok(()) | Err(TrySendError::Closed(_)) => return None,
                Err(TrySendError::Full(answer)) => self.tasks.spawn(async move {
                    let _ = answers.send(answer).await;
                    id
                }),
            },
            None => self.tasks.spawn(async move {
                let _ = answers.send(work.await).await;
                id
            }),
        };
        self.in_flight.insert(id, (task.id(), task));
        None
    }

    /// A command answered with an error before it ran, counted.
    fn refuse(&self, rpc: Option<&Rpc>, code: Code, message: &str) -> Kind {
        let metrics = &self.context.metrics;
        let id = metrics.rpc_id(rpc.map_or("", |rpc| rpc.path));
        metrics.observe_on(Transport::Protosocket, id, code as usize, Duration::ZERO);
        dispatch::error(code, message)
    }

    fn finished(&mut self, id: u64, task: tokio::task::Id) {
        if self
            .in_flight
            .get(&id)
            .is_some_and(|(running, _)| *running == task)
        {
            self.in_flight.remove(&id);
        }
    }
}

/// What, apart from a frame, can end or check a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signal {
    /// The in-flight budget closes this connection to make room.
    Close,
    /// The server is stopping.
    Stop,
    /// `--handshake-timeout` since the accept: the end, if no frame came.
    FirstFrame,
    /// Time to check for `--idle-timeout`.
    Idle,
}

type Signals<'a> = FuturesUnordered<Pin<Box<dyn Future<Output = Signal> + Send + 'a>>>;

async fn after(wait: Duration, signal: Signal) -> Signal {
    tokio::time::sleep(wait).await;
    signal
}

/// The frame of an answer to the command `id`.
fn reply(id: u64, kind: Kind) -> bytes::Bytes {
    encode(&CacheResponse {
        message_id: id,
        control_code: NORMAL,
        kind: Some(kind),
    })
}

fn unknown_command() -> String {
    "unknown command: this server serves auth, get, set and delete over protosocket".to_owned()
}

/// One command's metrics: counted when answered, or as CANCELLED when its
/// task is aborted first.
struct Call {
    metrics: Arc<Metrics>,
    rpc: RpcId,
    started: Instant,
    answered: bool,
    _in_flight: InFlightGuard,
}

impl Call {
    fn start(metrics: &Arc<Metrics>, rpc: &'static Rpc) -> Call {
        Call {
            metrics: metrics.clone(),
            rpc: metrics.rpc_id_of(rpc),
            started: Instant::now(),
            answered: false,
            _in_flight: metrics.start_call(),
        }
    }

    fn finish(&mut self, code: Code) {
        self.answered = true;
        let elapsed = self.started.elapsed();
        let transport = Transport::Protosocket;
        self.metrics
            .observe_on(transport, self.rpc, code as usize, elapsed);
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.answered {
            self.finish(Code::Cancelled);
        }
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::config::Config;
    use crate::proto::protosocket::cache::{CacheCommand, GetCommand};
    use crate::service::DataPlane;
    use crate::store::{Store, StoreConfig};

    fn connection() -> (Connection<Arc<Store>>, mpsc::Receiver<Answer>) {
        connection_within(1 << 30)
    }

    /// A connection of a server whose in-flight budget is `in_flight` bytes.
    fn connection_within(in_flight: usize) -> (Connection<Arc<Store>>, mpsc::Receiver<Answer>) {
        let config = Config::defaults();
        let store = Store::new(StoreConfig {
            max_memory: config.max_memory,
            max_caches: config.max_caches,
        });
        let metrics = Metrics::new(None, config.max_memory);
        let gauge = prometheus::IntGauge::new("in_flight", "test").unwrap();
        let context = Context {
            plane: DataPlane::new(store, config.limits, metrics.lookups()),
            verifier: None,
            metrics,
            in_flight: crate::in_flight::InFlight::new(in_flight, gauge),
            max_value: 1 << 20,
        };
        let (answers, outbox) = mpsc::channel(8);
        let budget = Budget::open(&context.in_flight);
        let connection = Connection {
            context: Arc::new(context),
            budget,
            session: Session::Open,
            in_flight: HashMap::new(),
            tasks: JoinSet::new(),
            answers,
        };
        (connection, outbox)
    }

    fn read(command: CacheCommand) -> Frame {
        Frame {
            size: command.encoded_len() + 1,
            message: command,
            charge: None,
        }
    }

    fn get(id: u64) -> Frame {
        read(CacheCommand {
            message_id: id,
            control_code: NORMAL,
            rpc_kind: Some(RpcKind::Unary(crate::proto::protosocket::cache::Unary {
                command: Some(Command::Get(GetCommand {
                    namespace: "c".into(),
                    key: "k".into(),
                })),
            })),
        })
    }

    /// On one thread the first command cannot run before the second is
    /// taken, so the second meets it in flight.
    /// Fills the queue of answers to the socket (8 in `connection()`) as a
    /// client that does not read would: the next command's answer has no
    /// room, so the command stays in flight, in a task, until it has.
    fn fill_the_queue(connection: &mut Connection<Arc<Store>>) {
        for id in 100..108 {
            assert!(connection.take(get(id)).is_none());
        }
        assert!(connection.in_flight.is_empty(), "answered in line");
    }

    async fn drain(outbox: &mut mpsc::Receiver<Answer>, answers: usize) {
        for _ in 0..answers {
            outbox.recv().await.unwrap();
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_duplicate_id_in_flight_is_refused_and_the_first_runs() {
        let (mut connection, mut outbox) = connection();
        fill_the_queue(&mut connection);
        assert!(connection.take(get(5)).is_none());
        let refused = connection.take(get(5)).expect("answered at once");
        let refused = CacheResponse::decode_length_delimited(refused.0).unwrap();
        assert_eq!(refused.message_id, 5);
        let Some(Kind::Error(error)) = refused.kind else {
            panic!("{refused:?}")
        };
        assert_eq!(error.code, Code::InvalidArgument as i32);
        assert!(error.message.contains("already in flight"));
        drain(&mut outbox, 8).await;
        while let Some(done) = connection.tasks.join_next_with_id().await {
            let (task, id) = done.unwrap();
            connection.finished(id, task);
        }
        assert!(connection.in_flight.is_empty());
        let (first, charge) = outbox.recv().await.unwrap();
        assert!(charge.is_some(), "an answer is charged until written");
        let first = CacheResponse::decode_length_delimited(first).unwrap();
        assert_eq!(first.message_id, 5);
        // The cache does not exist: the first command ran and said so.
        let Some(Kind::Error(error)) = first.kind else {
            panic!("{first:?}")
        };
        assert_eq!(error.code, Code::NotFound as i32);
        // Once it finished, the id is free again.
        assert!(connection.take(get(5)).is_none());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_cancel_aborts_the_command_and_answers_nothing() {
        let (mut connection, mut outbox) = connection();
        fill_the_queue(&mut connection);
        assert!(connection.take(get(3)).is_none());
        let cancel = read(CacheCommand {
            message_id: 3,
            control_code: CANCEL,
            rpc_kind: None,
        });
        assert!(connection.take(cancel).is_none());
        assert!(connection.in_flight.is_empty());
        let done = connection.tasks.join_next().await.unwrap();
        assert!(done.unwrap_err().is_cancelled());
        drop(connection);
        drain(&mut outbox, 8).await;
        assert!(
            outbox.recv().await.is_none(),
            "no answer to a cancelled command"
        );
    }

    /// A command whose charge would pass the bound, from the connection
    /// holding the most of it (the only one here): refused, not run.
    #[tokio::test(flavor = "current_thread")]
    async fn a_command_past_the_in_flight_bound_is_resource_exhausted() {
        let (mut connection, _outbox) = connection_within(CALL_OVERHEAD);
        let (refused, charge) = connection.take(get(7)).expect("answered at once");
        assert!(charge.is_none());
        let refused = CacheResponse::decode_length_delimited(refused).unwrap();
        let Some(Kind::Error(error)) = refused.kind else {
            panic!("{refused:?}")
        };
        assert_eq!(error.code, Code::ResourceExhausted as i32);
        assert!(error.message.contains("--max-in-flight-bytes"));
        assert!(connection.in_flight.is_empty());
        assert_eq!(connection.context.in_flight.used(), 0);
    }
}
