//! A connection's answers: each charged to the in-flight budget before it
//! is encoded and until it is written ([`super::budget`]), then written to
//! the socket in order of arrival, several to a write.

use std::time::Duration;

use bytes::Bytes;
use prost::Message;
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tonic::Code;

use super::budget::{Budget, Charge};
use super::dispatch::{self, Outcome};
use super::framing::{encode, NORMAL};
use crate::close::CloseReason;
use crate::proto::protosocket::cache::CacheResponse;

/// An answer's frame, and what it is charged until written.
pub type Answer = (Bytes, Option<Charge>);

/// The answer's frame, charged once the budget has room for it; if it
/// has none and this connection holds the most, RESOURCE_EXHAUSTED instead.
pub async fn charged_answer(budget: &Budget, id: u64, outcome: Outcome) -> (Code, Answer) {
    let response = |kind| CacheResponse {
        message_id: id,
        control_code: NORMAL,
        kind: Some(kind),
    };
    let answer = response(outcome.kind);
    let size = answer.encoded_len();
    if let Some(charge) = budget
        .charge_answer(prost::length_delimiter_len(size) + size)
        .await
    {
        return (outcome.code, (encode(&answer), Some(charge)));
    }
    drop(answer);
    let status = budget.full_status();
    let refused = response(dispatch::error(Code::ResourceExhausted, status.message()));
    (Code::ResourceExhausted, (encode(&refused), None))
}

/// Writes answers as they come, several to a write when they queue up;
/// ends when the queue closes, or with why the connection must close.
/// An answer's charge ends once it is written (to the buffer of 64 KiB,
/// or the socket).
pub async fn write_answers<W: AsyncWrite>(
    io: W,
    mut outbox: mpsc::Receiver<Answer>,
    send_timeout: Duration,
) -> Result<(), CloseReason> {
    let io = BufWriter::with_capacity(64 << 10, io);
    tokio::pin!(io);
    while let Some((frame, charge)) = outbox.recv().await {
        let batch = async {
            io.write_all(&frame).await?;
            drop(charge);
            while let Ok((more, charge)) = outbox.try_recv() {
                io.write_all(&more).await?;
                drop(charge);
            }
            io.flush().await
        };
        match tokio::time::timeout(send_timeout, batch).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Err(CloseReason::ClientClosed),
            Err(_) => return Err(CloseReason::SendTimeout),
        }
    }
    let _ = tokio::time::timeout(send_timeout, io.shutdown()).await;
    Ok(())
}
