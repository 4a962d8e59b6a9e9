//! Replies the collection scripts share (`lua/collection_prelude.lua`), read
//! in one place for every data type.

use redis::Value;

use super::unexpected;
use crate::error::Error;

/// What a collection script answers for a missing collection.
pub(super) const MISSING: i64 = 2;

/// A `{length}` reply.
pub(super) fn length(call: &str, reply: Value) -> Result<usize, Error> {
    match reply {
        Value::Array(ref parts) => match parts.as_slice() {
            [Value::Int(len)] => Ok(*len as usize),
            _ => Err(unexpected(call, &reply)),
        },
        other => Err(unexpected(call, &other)),
    }
}

/// A `{length}` reply, or MISSING.
pub(super) fn optional_length(call: &str, reply: Value) -> Result<Option<usize>, Error> {
    match reply {
        Value::Int(MISSING) => Ok(None),
        reply => length(call, reply).map(Some),
    }
}

/// [`Error::CollectionTooLarge`] for the `{'too_large', length}` reply of a
/// write past the element limit; anything else passes.
pub(super) fn too_large(reply: &Value, max_len: usize) -> Result<(), Error> {
    if let Value::Array(parts) = reply {
        if let [Value::BulkString(answer), Value::Int(elements)] = parts.as_slice() {
            if answer == b"too_large" {
                return Err(Error::CollectionTooLarge {
                    elements: *elements as usize,
                    limit: max_len,
                });
            }
        }
    }
    Ok(())
}
