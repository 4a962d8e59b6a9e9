//! The dictionary calls of the Redis store: each one script
//! (`lua/dictionary_*.lua`) on a Redis hash, so the type check, the element
//! limit, the change and the TTL are one atomic step.
//!
//! Scripts answer 2 for a missing dictionary; the increment answers its
//! total as text (Lua's numbers are doubles), 2 for a value that is not an
//! integer and 3 on overflow.

use std::sync::Arc;

use bytes::Bytes;
use redis::Value;

use super::replies::{too_large, MISSING};
use super::{millis, scripts, unexpected, RedisCache, RedisStore};
use crate::backend::{CollectionTtl, DictionaryDelete, DictionaryStorage};
use crate::error::Error;

const NOT_AN_INTEGER: i64 = 2;
const OVERFLOW: i64 = 3;

impl DictionaryStorage for Arc<RedisStore> {
    async fn dictionary_set(
        &self,
        cache: &RedisCache,
        key: &[u8],
        items: Vec<(Bytes, Bytes)>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> Result<(), Error> {
        let (max, ttl_ms) = (max_len.to_string(), millis(ttl.ttl));
        let mut args: Vec<&[u8]> = vec![max.as_bytes(), ttl_ms.as_bytes(), flag(ttl.refresh)];
        for (field, value) in &items {
            args.push(field);
            args.push(value);
        }
        let reply = self
            .run_item(&scripts::DICTIONARY_SET, cache, key, &args)
            .await?;
        too_large(&reply, max_len)?;
        match reply {
            Value::Array(ref parts) if matches!(parts.as_slice(), [Value::Int(_)]) => Ok(()),
            other => Err(unexpected("dictionary_set", &other)),
        }
    }

    async fn dictionary_increment(
        &self,
        cache: &RedisCache,
        key: &[u8],
        field: &[u8],
        amount: i64,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> Result<i64, Error> {
        let (amount, max, ttl_ms) = (amount.to_string(), max_len.to_string(), millis(ttl.ttl));
        let args = [
            field,
            amount.as_bytes(),
            max.as_bytes(),
            ttl_ms.as_bytes(),
            flag(ttl.refresh),
        ];
        let reply = self
            .run_item(&scripts::DICTIONARY_INCREMENT, cache, key, &args)
            .await?;
        too_large(&reply, max_len)?;
        match reply {
            Value::BulkString(total) => std::str::from_utf8(&total)
                .ok()
                .and_then(|text| text.parse().ok())
                .ok_or_else(|| unexpected("dictionary_increment", &Value::BulkString(total))),
            Value::Int(NOT_AN_INTEGER) => Err(Error::NotAnInteger),
            Value::Int(OVERFLOW) => Err(Error::IncrementOverflow),
            other => Err(unexpected("dictionary_increment", &other)),
        }
    }

    async fn dictionary_get(
        &self,
        cache: &RedisCache,
        key: &[u8],
        fields: &[Bytes],
        max_answer: usize,
    ) -> Result<Option<Vec<Option<Bytes>>>, Error> {
        // Each field once: a field named 10,000 times would otherwise be
        // read, held by the script and sent 10,000 times (a 30 KB request
        // asking Redis for gigabytes). The answer shares each value among
        // the places that name it.
        let (distinct, slots) = fold_repeats(fields);
        let args: Vec<&[u8]> = distinct.iter().map(|field| &field[..]).collect();
        let values: Vec<Option<Bytes>> = match self
            .run_read_within(&scripts::DICTIONARY_GET, cache, key, &args, max_answer)
            .await?
        {
            Value::Int(MISSING) => return Ok(None),
            Value::Array(values) if values.len() == distinct.len() => values
                .into_iter()
                .map(|value| match value {
                    Value::BulkString(value) => Ok(Some(Bytes::from(value))),
                    Value::Nil => Ok(None),
                    other => Err(unexpected("dictionary_get", &other)),
                })
                .collect::<Result<_, _>>()?,
            other => return Err(unexpected("dictionary_get", &other)),
        };
        Ok(Some(slots.into_iter().map(|i| values[i].clone()).collect()))
    }

    async fn dictionary_fetch(
        &self,
        cache: &RedisCache,
        key: &[u8],
        max_answer: usize,
    ) -> Result<Option<Vec<(Bytes, Bytes)>>, Error> {
        let flat = match self
            .run_read_within(&scripts::DICTIONARY_FETCH, cache, key, &[], max_answer)
            .await?
        {
            Value::Int(MISSING) => return Ok(None),
            Value::Array(flat) if flat.len() % 2 == 0 => flat,
            other => return Err(unexpected("dictionary_fetch", &other)),
        };
        let mut entries = Vec::with_capacity(flat.len() / 2);
        let mut parts = flat.into_iter();
        while let (Some(field), Some(value)) = (parts.next(), parts.next()) {
            match (field, value) {
                (Value::BulkString(field), Value::BulkString(value)) => {
                    entries.push((Bytes::from(field), Bytes::from(value)));
                }
                (field, _) => return Err(unexpected("dictionary_fetch", &field)),
            }
        }
        // In Redis's order (its hash table's): the answer is a map, and a
        // sort of a million fields would hold a runtime worker for 100s of ms.
        Ok(Some(entries))
    }

    async fn dictionary_delete(
        &self,
        cache: &RedisCache,
        key: &[u8],
        delete: &DictionaryDelete,
    ) -> Result<(), Error> {
        let args: Vec<&[u8]> = match delete {
            DictionaryDelete::All => vec![b"all"],
            DictionaryDelete::Fields(fields) => std::iter::once(&b"some"[..])
                .chain(fields.iter().map(|field| &field[..]))
                .collect(),
        };
        match self
            .run_item(&scripts::DICTIONARY_DELETE, cache, key, &args)
            .await?
        {
            Value::Int(MISSING) => Ok(()),
            Value::Array(ref parts) if matches!(parts.as_slice(), [Value::Int(_)]) => Ok(()),
            other => Err(unexpected("dictionary_delete", &other)),
        }
    }

    async fn dictionary_length(
        &self,
        cache: &RedisCache,
        key: &[u8],
    ) -> Result<Option<usize>, Error> {
        match self
            .run_item(&scripts::DICTIONARY_LENGTH, cache, key, &[])
            .await?
        {
            Value::Int(MISSING) => Ok(None),
            Value::Array(ref parts) => match parts.as_slice() {
                [Value::Int(len)] => Ok(Some(*len as usize)),
                _ => Err(unexpected(
                    "dictionary_length",
                    &Value::Array(parts.clone()),
                )),
            },
            other => Err(unexpected("dictionary_length", &other)),
        }
    }
}

fn flag(on: bool) -> &'static [u8] {
    if on {
        b"1"
    } else {
        b"0"
    }
}

/// The distinct `items`, in the order first named, and for each item the
/// index of its distinct one.
fn fold_repeats(items: &[Bytes]) -> (Vec<&Bytes>, Vec<usize>) {
    let mut index: hashbrown::HashMap<&Bytes, usize> = hashbrown::HashMap::new();
    let mut distinct = Vec::new();
    let slots = items
        .iter()
        .map(|item| {
            *index.entry(item).or_insert_with(|| {
                distinct.push(item);
                distinct.len() - 1
            })
        })
        .collect();
    (distinct, slots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_fields_are_asked_once() {
        let fields: Vec<Bytes> = ["a", "b", "a", "c", "b"]
            .iter()
            .map(|f| Bytes::from_static(f.as_bytes()))
            .collect();
        let (distinct, slots) = fold_repeats(&fields);
        assert_eq!(distinct, [&fields[0], &fields[1], &fields[3]]);
        assert_eq!(slots, [0, 1, 0, 2, 1]);
    }
}
