//! The leaderboard calls of the Redis store: each one script
//! (`lua/leaderboard_*.lua`) on a Redis sorted set.
//!
//! A board lives in one hash slot, beside its cache bucket's generation:
//! `jlb:{<cache>/<bucket>}:<name>` marks it (with the generation, as an
//! item's marker does, so a flush or deletion of the cache drops it) and
//! `jls:{<cache>/<bucket>}:<name>` holds it, the bucket chosen by the name
//! as an item's is by its key. Names of their own, so a board and an item
//! of the same name never meet. Neither key has a TTL.
//!
//! Members are ids as 4 big-endian bytes: Redis orders tied scores by
//! member bytes, which is then the order of ids, as the embedded store's.
//! Scores travel as exact decimal text both ways (see `sorted_set.rs`).
//!
//! An answer is at most 8,192 elements of about 30 bytes in Redis's reply
//! (the handler bounds the ranks, the limit and the ids asked), so it is
//! read whole, as the embedded store builds its own whole.

use std::sync::Arc;

use redis::Value;

use super::replies::too_large;
use super::sorted_set::{parse_score, score_text};
use super::{check_cache, keys, scripts, unexpected, RedisCache, RedisStore};
use crate::backend::{
    ranked_answer_bytes, LeaderboardStorage, RankKind, RankedElement, ScoreSpan, SortOrder,
};
use crate::error::Error;
use crate::in_flight::{reserve_store_answer, SMALL_ANSWER};

/// The generation, marker and data keys of board `name` of `cache`, in
/// the order the item scripts take them.
fn board_keys(cache: &str, name: &[u8]) -> (String, Vec<u8>, Vec<u8>) {
    let bucket = keys::bucket_of(name);
    let named = |prefix: &str| {
        let mut key = format!("{prefix}:{{{cache}/{bucket}}}:").into_bytes();
        key.extend_from_slice(name);
        key
    };
    (
        keys::generation_key(cache, bucket),
        named("jlb"),
        named("jls"),
    )
}

fn member(id: u32) -> [u8; 4] {
    id.to_be_bytes()
}

fn order_flag(order: SortOrder) -> &'static [u8] {
    match order {
        SortOrder::Ascending => b"a",
        SortOrder::Descending => b"d",
    }
}

impl RedisStore {
    async fn run_board(
        &self,
        script: &'static redis::Script,
        cache: &RedisCache,
        name: &[u8],
        args: &[&[u8]],
    ) -> Result<Value, Error> {
        let (generation, marker, data) = board_keys(&cache.0, name);
        let mut invocation = script.prepare_invoke();
        invocation.key(generation).key(marker).key(data);
        for arg in args {
            invocation.arg(*arg);
        }
        check_cache(cache, self.run(invocation).await?)
    }
}

fn array(call: &str, reply: Value) -> Result<Vec<Value>, Error> {
    match reply {
        Value::Array(parts) => Ok(parts),
        other => Err(unexpected(call, &other)),
    }
}

/// [`array`] of an answer of `per_element` values an element, charged to
/// the call before it is turned into the answer, which waits to be encoded
/// (an answer of a few elements is paid by the call's own overhead). The
/// reply itself, at most 8,192 elements of about 30 bytes, is read first:
/// its size is not known before.
fn answer_array(call: &str, reply: Value, per_element: usize) -> Result<Vec<Value>, Error> {
    let parts = array(call, reply)?;
    let bytes = ranked_answer_bytes(parts.len() / per_element);
    if bytes > SMALL_ANSWER {
        reserve_store_answer(bytes)?;
    }
    Ok(parts)
}

fn id_of(call: &str, value: &Value) -> Result<u32, Error> {
    match value {
        Value::BulkString(bytes) => <[u8; 4]>::try_from(bytes.as_slice())
            .map(u32::from_be_bytes)
            .map_err(|_| unexpected(call, value)),
        _ => Err(unexpected(call, value)),
    }
}

fn int_of(call: &str, value: &Value) -> Result<u32, Error> {
    match value {
        Value::Int(n) => u32::try_from(*n).map_err(|_| unexpected(call, value)),
        _ => Err(unexpected(call, value)),
    }
}

/// A flat `member, score, ...` reply, ranked from `first` by one a step.
fn ranked_from(call: &str, first: u32, flat: &[Value]) -> Result<Vec<RankedElement>, Error> {
    flat.chunks(2)
        .zip(first..)
        .map(|(pair, rank)| match pair {
            [id, score] => Ok(RankedElement {
                id: id_of(call, id)?,
                rank,
                score: parse_score(call, score)?,
            }),
            _ => Err(Error::StoreFailed(format!("{call}: an odd reply"))),
        })
        .collect()
}

impl LeaderboardStorage for Arc<RedisStore> {
    async fn leaderboard_upsert(
        &self,
        cache: &RedisCache,
        name: &[u8],
        elements: Vec<(u32, f64)>,
        max_len: usize,
    ) -> Result<(), Error> {
        let max = max_len.to_string();
        let parts: Vec<([u8; 4], String)> = elements
            .iter()
            .map(|&(id, score)| (member(id), score_text(score)))
            .collect();
        let mut args: Vec<&[u8]> = vec![max.as_bytes()];
        for (id, score) in &parts {
            args.push(score.as_bytes());
            args.push(id);
        }
        let reply = self
            .run_board(&scripts::LEADERBOARD_UPSERT, cache, name, &args)
            .await?;
        too_large(&reply, max_len)
    }

    async fn leaderboard_remove(
        &self,
        cache: &RedisCache,
        name: &[u8],
        ids: &[u32],
    ) -> Result<(), Error> {
        let members: Vec<[u8; 4]> = ids.iter().map(|&id| member(id)).collect();
        let args: Vec<&[u8]> = members.iter().map(|m| &m[..]).collect();
        self.run_board(&scripts::LEADERBOARD_REMOVE, cache, name, &args)
            .await?;
        Ok(())
    }

    async fn leaderboard_delete(&self, cache: &RedisCache, name: &[u8]) -> Result<(), Error> {
        self.run_board(&scripts::LEADERBOARD_DELETE, cache, name, &[])
            .await?;
        Ok(())
    }

    async fn leaderboard_length(&self, cache: &RedisCache, name: &[u8]) -> Result<u32, Error> {
        const CALL: &str = "leaderboard_length";
        let reply = self
            .run_board(&scripts::LEADERBOARD_LENGTH, cache, name, &[])
            .await?;
        match array(CALL, reply)?.as_slice() {
            [length] => int_of(CALL, length),
            other => Err(unexpected(CALL, &Value::Array(other.to_vec()))),
        }
    }

    async fn leaderboard_by_rank(
        &self,
        cache: &RedisCache,
        name: &[u8],
        start: u32,
        end: u32,
        order: SortOrder,
    ) -> Result<Vec<RankedElement>, Error> {
        const CALL: &str = "leaderboard_by_rank";
        let (first, last) = (start.to_string(), (end - 1).to_string());
        let args: Vec<&[u8]> = vec![first.as_bytes(), last.as_bytes(), order_flag(order)];
        let reply = self
            .run_board(&scripts::LEADERBOARD_BY_RANK, cache, name, &args)
            .await?;
        ranked_from(CALL, start, &answer_array(CALL, reply, 2)?)
    }

    async fn leaderboard_by_score(
        &self,
        cache: &RedisCache,
        name: &[u8],
        span: ScoreSpan,
        offset: u32,
        limit: u32,
        order: SortOrder,
    ) -> Result<Vec<RankedElement>, Error> {
        const CALL: &str = "leaderboard_by_score";
        let min = span.min.map_or("-inf".to_owned(), score_text);
        let max = span
            .max
            .map_or("+inf".to_owned(), |max| format!("({}", score_text(max)));
        let (offset, limit) = (offset.to_string(), limit.to_string());
        let args: Vec<&[u8]> = vec![
            min.as_bytes(),
            max.as_bytes(),
            offset.as_bytes(),
            limit.as_bytes(),
            order_flag(order),
        ];
        let reply = self
            .run_board(&scripts::LEADERBOARD_BY_SCORE, cache, name, &args)
            .await?;
        match answer_array(CALL, reply, 2)?.split_first() {
            Some((first, flat)) => ranked_from(CALL, int_of(CALL, first)?, flat),
            None => Err(Error::StoreFailed(format!("{CALL}: an empty reply"))),
        }
    }

    async fn leaderboard_rank(
        &self,
        cache: &RedisCache,
        name: &[u8],
        ids: &[u32],
        order: SortOrder,
        kind: RankKind,
    ) -> Result<Vec<RankedElement>, Error> {
        const CALL: &str = "leaderboard_rank";
        let members: Vec<[u8; 4]> = ids.iter().map(|&id| member(id)).collect();
        let kind_flag: &[u8] = match kind {
            RankKind::Position => b"p",
            RankKind::Competition => b"c",
        };
        let mut args: Vec<&[u8]> = vec![order_flag(order), kind_flag];
        args.extend(members.iter().map(|m| &m[..]));
        let reply = self
            .run_board(&scripts::LEADERBOARD_RANK, cache, name, &args)
            .await?;
        answer_array(CALL, reply, 3)?
            .chunks(3)
            .map(|triple| match triple {
                [id, rank, score] => Ok(RankedElement {
                    id: id_of(CALL, id)?,
                    rank: int_of(CALL, rank)?,
                    score: parse_score(CALL, score)?,
                }),
                _ => Err(Error::StoreFailed(format!("{CALL}: an odd reply"))),
            })
            .collect()
    }
}
