//! The commands: each checked like its gRPC twin, then handed to the same
//! code the gRPC handlers call (`service::scalar`), so both ports answer
//! alike from the same store.

use std::sync::Arc;

use prost::Message;
use tonic::{Code, Status};

use super::auth::{authorize, Session};
use crate::auth::Verifier;
use crate::backend::Storage;
use crate::error::Error;
use crate::in_flight::InFlight;
use crate::metrics::Metrics;
use crate::proto::protosocket::cache::cache_response::Kind;
use crate::proto::protosocket::cache::unary::Command;
use crate::proto::protosocket::cache::{
    DeleteCommand, DeleteResponse, GetCommand, GetResponse, SetCommand, SetResponse,
};
use crate::proto::protosocket::common::CommandError;
use crate::rpcs::Rpc;
use crate::service::scalar::{delete_item, get_item, set_item};
use crate::service::DataPlane;

/// The message of a miss. The official client knows a miss by NOT_FOUND
/// with exactly this text, so a missing cache must say anything else.
pub const MISS: &str = "Key not found";

/// What every command of every connection needs.
pub struct Context<S> {
    pub plane: DataPlane<S>,
    /// `None` without `--auth-secret-file`: any token is accepted.
    pub verifier: Option<Arc<Verifier>>,
    pub metrics: Arc<Metrics>,
    /// The server's `--max-in-flight-bytes` budget, shared with the gRPC
    /// port: commands and answers are charged to it (`budget`).
    pub in_flight: Arc<InFlight>,
    /// The largest value a Get answer can carry (`framing`), or
    /// `--max-value-size` if lower: what a Set may store over this port.
    pub max_value: usize,
}

/// A command's answer, and the status its metrics count. A miss answers
/// NOT_FOUND but counts as OK, as a gRPC miss does.
pub struct Outcome {
    pub kind: Kind,
    pub code: Code,
}

impl From<Status> for Outcome {
    fn from(status: Status) -> Self {
        // The reason a gRPC answer would carry in its `err` trailer.
        let reason = status
            .metadata()
            .get("err")
            .and_then(|value| value.to_str().ok());
        Outcome {
            code: status.code(),
            kind: refusal(status.code(), status.message(), reason),
        }
    }
}

impl From<Error> for Outcome {
    fn from(error: Error) -> Self {
        error.count_if_refused_answer();
        Outcome {
            code: error.code(),
            kind: refusal(error.code(), &error.to_string(), error.reason()),
        }
    }
}

/// An error answer without a reason.
pub fn error(code: Code, message: &str) -> Kind {
    refusal(code, message, None)
}

/// An error answer with the reason the gRPC port would send as `err`, so
/// clients read it from a field rather than from the message.
fn refusal(code: Code, message: &str, reason: Option<&str>) -> Kind {
    Kind::Error(CommandError {
        code: code as i32,
        message: message.to_owned(),
        reason: reason.unwrap_or_default().to_owned(),
    })
}

/// Runs a Get, Set or Delete for `session`.
pub async fn data<S: Storage>(
    context: &Context<S>,
    session: &Session,
    rpc: &Rpc,
    command: Command,
) -> Outcome {
    let result = match command {
        Command::Get(get) => self::get(context, session, rpc, get).await,
        Command::Set(set) => self::set(context, session, rpc, set).await,
        Command::Delete(delete) => self::delete(context, session, rpc, delete).await,
        Command::Auth(_) => unreachable!("the connection answers Authenticate itself"),
    };
    match result {
        Ok(kind) => Outcome {
            kind,
            code: Code::Ok,
        },
        Err(outcome) => outcome,
    }
}

async fn get<S: Storage>(
    context: &Context<S>,
    session: &Session,
    rpc: &Rpc,
    GetCommand { namespace, key }: GetCommand,
) -> Result<Kind, Outcome> {
    authorize(session, rpc, &namespace, &key)?;
    let cache = context
        .plane
        .cache_named(&namespace, namespace.len() + key.len())?;
    match get_item(&context.plane, &cache, &namespace, &key).await? {
        Some(value) if value.len() > context.max_value => {
            Err(Error::AnswerTooLargeForProtosocket {
                size: value.len(),
                limit: context.max_value,
            }
            .into())
        }
        Some(value) => Ok(Kind::Get(GetResponse { value })),
        None => Err(Outcome {
            kind: error(Code::NotFound, MISS),
            code: Code::Ok,
        }),
    }
}

async fn set<S: Storage>(
    context: &Context<S>,
    session: &Session,
    rpc: &Rpc,
    command: SetCommand,
) -> Result<Kind, Outcome> {
    authorize(session, rpc, &command.namespace, &command.key)?;
    let cache = context
        .plane
        .cache_named(&command.namespace, command.encoded_len())?;
    let value = &command.value;
    // Over --max-value-size, the same error as on the gRPC port.
    if value.len() > context.max_value && value.len() <= context.plane.limits.max_value_size {
        return Err(Error::ValueTooLargeForProtosocket {
            size: value.len(),
            limit: context.max_value,
        }
        .into());
    }
    set_item(
        &context.plane,
        &cache,
        &command.key,
        value,
        command.ttl_milliseconds,
    )
    .await?;
    Ok(Kind::Set(SetResponse {}))
}

async fn delete<S: Storage>(
    context: &Context<S>,
    session: &Session,
    rpc: &Rpc,
    DeleteCommand { namespace, key }: DeleteCommand,
) -> Result<Kind, Outcome> {
    authorize(session, rpc, &namespace, &key)?;
    let cache = context
        .plane
        .cache_named(&namespace, namespace.len() + key.len())?;
    delete_item(&context.plane, &cache, &key).await?;
    Ok(Kind::Delete(DeleteResponse {}))
}
