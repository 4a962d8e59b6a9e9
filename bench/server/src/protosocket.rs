//! The protosocket side of the load (`--transport protosocket`): a TCP
//! connection to jiffy-server's `--protosocket-listen` port, Authenticate
//! first, then Gets and Sets pipelined. Every worker's command goes out as
//! soon as it is made, under a message id of its own from the connection's
//! one counter; the answers, which may come back in any order, find their
//! worker by that id.
//!
//! Answers are read with the server's own frame reader
//! (`jiffy_server::protosocket::framing`), which reads answers as it reads
//! commands.

use std::{
    cell::{Cell, RefCell},
    collections::HashMap,
    rc::Rc,
    time::Duration,
};

use bytes::{Bytes, BytesMut};
use jiffy_server::{
    proto::protosocket::cache::{
        cache_command::RpcKind, cache_response::Kind, unary::Command, AuthenticateCommand,
        CacheCommand, CacheResponse, GetCommand, SetCommand, Unary,
    },
    protosocket::{
        dispatch::MISS,
        framing::{FrameReader, MAX_ANSWER_FRAME},
    },
};
use prost::Message;
use tokio::{
    io::AsyncWriteExt,
    net::{
        tcp::{OwnedReadHalf, OwnedWriteHalf},
        TcpStream,
    },
    sync::{oneshot, Notify},
    task::JoinHandle,
};
use tonic::{Code, Status};

use crate::calls::Answer;

/// The token of every Authenticate. The benchmark's server runs without
/// auth, where any token opens the connection to every cache.
const TOKEN: &str = "jiffy-bench-server";

/// How long the rest of an answer may take once its first byte has come.
const FRAME_TIMEOUT: Duration = Duration::from_secs(10);

/// One connection, shared by the workers that send over it. Single-threaded
/// (a `LocalSet`), hence `Rc` and `Cell`.
pub struct Connection {
    /// The id of the next command. One counter per connection, so no two
    /// commands in flight on it share an id.
    next_id: Cell<u64>,
    state: Rc<State>,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

/// What the connection shares with its reader and writer tasks.
struct State {
    /// Frames made and not yet written. Workers append; the writer takes
    /// all at once, so the commands made during one write leave together in
    /// the next: one system call for many commands under load.
    outbox: RefCell<BytesMut>,
    /// Wakes the writer; a wake-up while it writes is kept for after.
    ready: Notify,
    /// The worker waiting on each message id in flight.
    waiting: RefCell<HashMap<u64, oneshot::Sender<CacheResponse>>>,
    /// Why the connection ended, once it has: later calls fail at once.
    closed: RefCell<Option<String>>,
}

impl State {
    /// Records the first reason and fails every call in flight.
    fn close(&self, reason: String) {
        self.closed.borrow_mut().get_or_insert(reason);
        // Dropping the senders wakes their workers with an error.
        let waiting = std::mem::take(&mut *self.waiting.borrow_mut());
        drop(waiting);
    }
}

impl Connection {
    /// Connects to `endpoint` (HOST:PORT) with Nagle off, so that a lone
    /// command is not held back, and authenticates; must be called inside a
    /// `LocalSet`.
    pub async fn open(endpoint: &str) -> Result<Rc<Connection>, String> {
        let stream = TcpStream::connect(endpoint)
            .await
            .map_err(|e| format!("connecting to --protosocket-endpoint {endpoint}: {e}"))?;
        stream
            .set_nodelay(true)
            .map_err(|e| format!("TCP_NODELAY on {endpoint}: {e}"))?;
        let (read_half, write_half) = stream.into_split();
        let state = Rc::new(State {
            outbox: RefCell::new(BytesMut::new()),
            ready: Notify::new(),
            waiting: RefCell::new(HashMap::new()),
            closed: RefCell::new(None),
        });
        let connection = Connection {
            next_id: Cell::new(1),
            reader: tokio::task::spawn_local(read_answers(read_half, Rc::clone(&state))),
            writer: tokio::task::spawn_local(write_frames(write_half, Rc::clone(&state))),
            state,
        };
        let auth = Command::Auth(AuthenticateCommand {
            token: TOKEN.to_string(),
        });
        match connection.call(auth).await {
            Ok(Kind::Auth(_)) => Ok(Rc::new(connection)),
            Ok(other) => Err(format!("Authenticate answered {}", name(&other))),
            Err(status) => Err(format!("Authenticate on {endpoint}: {status}")),
        }
    }

    /// Why the connection ended, if it has.
    pub fn closed(&self) -> Option<String> {
        self.state.closed.borrow().clone()
    }

    pub async fn get(&self, cache: &str, key: Bytes) -> Result<Answer, Status> {
        let command = Command::Get(GetCommand {
            namespace: cache.to_string(),
            key,
        });
        match self.call(command).await {
            Ok(Kind::Get(hit)) => Ok(Answer::Hit(hit.value.len())),
            Ok(other) => Ok(Answer::Unexpected("get", name(&other).to_string())),
            // A miss is NOT_FOUND with this text; any other NOT_FOUND (a
            // missing cache) is an error.
            Err(status) if status.code() == Code::NotFound && status.message() == MISS => {
                Ok(Answer::Miss)
            }
            Err(status) => Err(status),
        }
    }

    pub async fn set(
        &self,
        cache: &str,
        key: Bytes,
        value: Bytes,
        ttl_ms: u64,
    ) -> Result<Answer, Status> {
        let command = Command::Set(SetCommand {
            namespace: cache.to_string(),
            key,
            value,
            ttl_milliseconds: ttl_ms,
        });
        match self.call(command).await? {
            Kind::Set(_) => Ok(Answer::Stored),
            other => Ok(Answer::Unexpected("set", name(&other).to_string())),
        }
    }

    /// Sends one command and waits for its answer. An error answer comes
    /// back as a status of the same code (the protocol numbers its codes as
    /// gRPC does), so both transports count errors alike.
    async fn call(&self, command: Command) -> Result<Kind, Status> {
        if let Some(reason) = self.closed() {
            return Err(Status::unavailable(reason));
        }
        let message_id = self.next_id.get();
        self.next_id.set(message_id + 1);
        let (answer_to, answer) = oneshot::channel();
        self.state
            .waiting
            .borrow_mut()
            .insert(message_id, answer_to);
        let frame = CacheCommand {
            message_id,
            control_code: 0,
            rpc_kind: Some(RpcKind::Unary(Unary {
                command: Some(command),
            })),
        };
        frame
            .encode_length_delimited(&mut *self.state.outbox.borrow_mut())
            .expect("a BytesMut grows as needed");
        self.state.ready.notify_one();
        let answer = answer
            .await
            .map_err(|_| Status::unavailable(self.closed().unwrap_or_default()))?;
        match answer.kind {
            Some(Kind::Error(error)) => Err(Status::new(Code::from(error.code), error.message)),
            Some(kind) => Ok(kind),
            None => Err(Status::internal("an answer of no kind")),
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

/// Hands each answer to the worker waiting on its id, until the connection
/// ends. An answer nobody waits for is the server's bug: it ends the run.
async fn read_answers(socket: OwnedReadHalf, state: Rc<State>) {
    let mut frames: FrameReader<_, CacheResponse> =
        FrameReader::new(socket, MAX_ANSWER_FRAME, FRAME_TIMEOUT);
    let reason = loop {
        match frames.next().await {
            Ok(Some(frame)) => {
                let answer = frame.message;
                let id = answer.message_id;
                let Some(worker) = state.waiting.borrow_mut().remove(&id) else {
                    break format!("an answer under message id {id}, which no command had");
                };
                // A worker aborted at the end of the run no longer listens.
                let _ = worker.send(answer);
            }
            Ok(None) => break "the server closed the connection".to_string(),
            Err(error) => break format!("reading answers: {error}"),
        }
    };
    state.close(reason);
}

/// Writes whatever the outbox holds each time it is woken.
async fn write_frames(mut socket: OwnedWriteHalf, state: Rc<State>) {
    // Swapped with the outbox, so two buffers serve the whole run.
    let mut sending = BytesMut::new();
    loop {
        state.ready.notified().await;
        std::mem::swap(&mut sending, &mut *state.outbox.borrow_mut());
        if sending.is_empty() {
            continue;
        }
        if let Err(error) = socket.write_all(&sending).await {
            state.close(format!("writing commands: {error}"));
            return;
        }
        sending.clear();
    }
}

/// The kind of an answer, for a report of one that was not expected.
fn name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Error(_) => "an error",
        Kind::Auth(_) => "Authenticate",
        Kind::Get(_) => "Get",
        Kind::Set(_) => "Set",
        Kind::Delete(_) => "Delete",
    }
}
