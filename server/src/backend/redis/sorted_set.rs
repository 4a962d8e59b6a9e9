//! The sorted set calls of the Redis store: each one script
//! (`lua/sorted_set_*.lua`) on a Redis sorted set, so the type check, the
//! change and the TTL are one atomic step.
//!
//! Scores travel as exact decimal text both ways: the front-end writes
//! them with Rust's shortest round-trip form, the scripts with '%.17g',
//! and Redis answers its own round-trip form, so every score comes back
//! the very `f64` that went in, as the embedded store answers it.
//!
//! Scripts answer 2 for a missing set, else an array.
//!
//! SortedSetUnionStore reads every source's length first, each with its own
//! script (and type check), in the request's order, and refuses a union
//! that would read more than `--max-collection-elements` (a source named
//! twice counted twice); then the sources of other slots, once each; then
//! one script on the destination's slot re-reads the sources that live in
//! that slot, takes the others' elements as arguments, and writes the
//! union. So the call is atomic only when every source shares the
//! destination's slot.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use redis::Value;

use super::replies::{length, optional_length, too_large, MISSING};
use super::{keys, millis, scripts, unexpected, RedisCache, RedisStore};
use crate::backend::{
    Aggregate, CollectionTtl, ScoreBound, ScoreRange, ScoredValue, SortOrder, SortedSetRange,
    SortedSetRemove, SortedSetStorage, SortedSetUnion,
};
use crate::error::Error;

impl SortedSetStorage for Arc<RedisStore> {
    async fn sorted_set_put(
        &self,
        cache: &RedisCache,
        key: &[u8],
        elements: Vec<ScoredValue>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> Result<usize, Error> {
        let (max, ttl_ms) = (max_len.to_string(), millis(ttl.ttl));
        let scores: Vec<String> = elements.iter().map(|(_, s)| score_text(*s)).collect();
        let mut args: Vec<&[u8]> = vec![max.as_bytes(), ttl_ms.as_bytes(), flag(ttl.refresh)];
        for ((value, _), score) in elements.iter().zip(&scores) {
            args.push(value);
            args.push(score.as_bytes());
        }
        let reply = self
            .run_item(&scripts::SORTED_SET_PUT, cache, key, &args)
            .await?;
        too_large(&reply, max_len)?;
        length("sorted_set_put", reply)
    }

    async fn sorted_set_fetch(
        &self,
        cache: &RedisCache,
        key: &[u8],
        range: SortedSetRange,
        order: SortOrder,
        max_answer: usize,
    ) -> Result<Option<Vec<ScoredValue>>, Error> {
        let texts: Vec<String> = match range {
            SortedSetRange::ByIndex { start, end } => {
                let text = |index: Option<i32>| index.map(|i| i.to_string()).unwrap_or_default();
                vec!["index".into(), text(start), text(end)]
            }
            SortedSetRange::ByScore {
                scores,
                offset,
                count,
            } => {
                let (min, max) = bounds(scores);
                let count = count.map_or(-1, i64::from);
                vec![
                    "score".into(),
                    min,
                    max,
                    offset.to_string(),
                    count.to_string(),
                ]
            }
        };
        let mut args: Vec<&[u8]> = vec![order_name(order)];
        args.extend(texts.iter().map(|t| t.as_bytes()));
        match self
            .run_read_within(&scripts::SORTED_SET_FETCH, cache, key, &args, max_answer)
            .await?
        {
            Value::Int(MISSING) => Ok(None),
            Value::Array(flat) => pairs("sorted_set_fetch", flat).map(Some),
            other => Err(unexpected("sorted_set_fetch", &other)),
        }
    }

    async fn sorted_set_get_scores(
        &self,
        cache: &RedisCache,
        key: &[u8],
        values: &[Bytes],
    ) -> Result<Option<Vec<Option<f64>>>, Error> {
        let args: Vec<&[u8]> = values.iter().map(|v| &v[..]).collect();
        match self
            .run_item(&scripts::SORTED_SET_GET_SCORES, cache, key, &args)
            .await?
        {
            Value::Int(MISSING) => Ok(None),
            Value::Array(scores) => scores
                .iter()
                .map(|score| match score {
                    Value::Nil => Ok(None),
                    other => parse_score("sorted_set_get_scores", other).map(Some),
                })
                .collect::<Result<_, _>>()
                .map(Some),
            other => Err(unexpected("sorted_set_get_scores", &other)),
        }
    }

    async fn sorted_set_get_rank(
        &self,
        cache: &RedisCache,
        key: &[u8],
        value: &[u8],
        order: SortOrder,
    ) -> Result<Option<Option<u64>>, Error> {
        match self
            .run_item(
                &scripts::SORTED_SET_GET_RANK,
                cache,
                key,
                &[value, order_name(order)],
            )
            .await?
        {
            Value::Int(MISSING) => Ok(None),
            Value::Array(parts) => match parts.as_slice() {
                [] => Ok(Some(None)),
                [Value::Int(rank)] => Ok(Some(Some(*rank as u64))),
                _ => Err(unexpected("sorted_set_get_rank", &Value::Array(parts))),
            },
            other => Err(unexpected("sorted_set_get_rank", &other)),
        }
    }

    async fn sorted_set_increment(
        &self,
        cache: &RedisCache,
        key: &[u8],
        value: Bytes,
        amount: f64,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> Result<f64, Error> {
        let (amount, max, ttl_ms) = (score_text(amount), max_len.to_string(), millis(ttl.ttl));
        let args = [
            &value[..],
            amount.as_bytes(),
            max.as_bytes(),
            ttl_ms.as_bytes(),
            flag(ttl.refresh),
        ];
        let reply = self
            .run_item(&scripts::SORTED_SET_INCREMENT, cache, key, &args)
            .await?;
        too_large(&reply, max_len)?;
        match reply {
            Value::Array(parts) => match parts.as_slice() {
                [Value::BulkString(answer)] if answer == b"not_finite" => {
                    Err(Error::ScoreNotFinite)
                }
                [score] => parse_score("sorted_set_increment", score),
                _ => Err(unexpected("sorted_set_increment", &Value::Array(parts))),
            },
            other => Err(unexpected("sorted_set_increment", &other)),
        }
    }

    async fn sorted_set_remove(
        &self,
        cache: &RedisCache,
        key: &[u8],
        remove: &SortedSetRemove,
    ) -> Result<Option<usize>, Error> {
        let args: Vec<&[u8]> = match remove {
            SortedSetRemove::All => vec![b"all"],
            SortedSetRemove::Values(values) => std::iter::once(&b"some"[..])
                .chain(values.iter().map(|v| &v[..]))
                .collect(),
        };
        let reply = self
            .run_item(&scripts::SORTED_SET_REMOVE, cache, key, &args)
            .await?;
        optional_length("sorted_set_remove", reply)
    }

    async fn sorted_set_length(
        &self,
        cache: &RedisCache,
        key: &[u8],
    ) -> Result<Option<usize>, Error> {
        let reply = self
            .run_item(&scripts::SORTED_SET_LENGTH, cache, key, &[])
            .await?;
        optional_length("sorted_set_length", reply)
    }

    async fn sorted_set_length_by_score(
        &self,
        cache: &RedisCache,
        key: &[u8],
        range: ScoreRange,
    ) -> Result<Option<usize>, Error> {
        let (min, max) = bounds(range);
        let reply = self
            .run_item(
                &scripts::SORTED_SET_LENGTH_BY_SCORE,
                cache,
                key,
                &[min.as_bytes(), max.as_bytes()],
            )
            .await?;
        optional_length("sorted_set_length_by_score", reply)
    }

    async fn sorted_set_union_store(
        &self,
        cache: &RedisCache,
        key: &[u8],
        union: &SortedSetUnion,
        ttl: Duration,
        max_len: usize,
    ) -> Result<usize, Error> {
        // A source named more than once is read once and passed once; the
        // script adds its elements once per naming ('again'), so the union
        // is exactly the unfolded one's without copying the set N times.
        let (distinct, slots) = fold_repeats(union.sources.iter().map(|(name, _)| name));
        // Every source's length first, in order, so the first of another
        // type is the one the error names, as in the embedded store; and
        // the work counted, each naming counted, before anything is read.
        let mut work = 0usize;
        let mut lengths = Vec::with_capacity(distinct.len());
        for name in &distinct {
            lengths.push(
                self.sorted_set_length(cache, name)
                    .await?
                    .unwrap_or_default(),
            );
        }
        for &slot in &slots {
            work = work.saturating_add(lengths[slot]);
        }
        if work > max_len {
            return Err(Error::UnionTooLarge {
                elements: work,
                limit: max_len,
            });
        }

        let bucket = keys::bucket_of(key);
        // Sources of other slots are read here, once each: their elements
        // go to the script as arguments.
        let mut read: Vec<Option<Vec<ScoredValue>>> = Vec::with_capacity(distinct.len());
        for name in &distinct {
            if keys::bucket_of(name) == bucket {
                read.push(None);
            } else {
                read.push(Some(self.read_whole(cache, name).await?));
            }
        }
        let (generation, item, data) = keys::item_keys(&cache.0, key);
        let mut invocation = scripts::SORTED_SET_UNION_STORE.prepare_invoke();
        invocation.key(generation).key(item).key(data);
        let aggregate: &str = match union.aggregate {
            Aggregate::Sum => "sum",
            Aggregate::Min => "min",
            Aggregate::Max => "max",
        };
        invocation
            .arg(millis(ttl))
            .arg(max_len)
            .arg(aggregate)
            .arg(union.sources.len());
        let mut local = 0;
        // For each distinct source, the naming (1-based) that passed it.
        let mut first_naming = vec![0; distinct.len()];
        for (naming, ((name, weight), &slot)) in union.sources.iter().zip(&slots).enumerate() {
            invocation.arg(score_text(f64::from(*weight)));
            if first_naming[slot] != 0 {
                invocation.arg("again").arg(first_naming[slot]);
                continue;
            }
            first_naming[slot] = naming + 1;
            match &read[slot] {
                None => {
                    local += 1;
                    let (_, item, data) = keys::item_keys(&cache.0, name);
                    invocation.key(item).key(data);
                    invocation.arg("key").arg(local);
                }
                Some(elements) => {
                    invocation.arg("given").arg(elements.len());
                    for (value, score) in elements {
                        invocation.arg(&value[..]).arg(score_text(*score));
                    }
                }
            }
        }
        let reply = match self.run(invocation).await? {
            Value::Int(scripts::NO_CACHE) => return Err(Error::CacheNotFound(cache.0.clone())),
            reply => reply,
        };
        too_large(&reply, max_len)?;
        if let Value::Array(parts) = &reply {
            if let [Value::BulkString(answer)] = parts.as_slice() {
                if answer == b"not_finite" {
                    return Err(Error::ScoreNotFinite);
                }
            }
        }
        length("sorted_set_union_store", reply)
    }
}

impl RedisStore {
    /// Every element of the sorted set at `key` (none if it is missing),
    /// for a union: not bounded by `--max-response-size`, since it is not
    /// an answer; the union's work bound has counted it already.
    async fn read_whole(&self, cache: &RedisCache, key: &[u8]) -> Result<Vec<ScoredValue>, Error> {
        let args: [&[u8]; 4] = [order_name(SortOrder::Ascending), b"index", b"", b""];
        match self
            .run_read_within(&scripts::SORTED_SET_FETCH, cache, key, &args, usize::MAX)
            .await?
        {
            Value::Int(MISSING) => Ok(Vec::new()),
            Value::Array(flat) => pairs("sorted_set_union_store", flat),
            other => Err(unexpected("sorted_set_union_store", &other)),
        }
    }
}

/// The distinct names, in the order first named, and for each naming
/// the index of its distinct one.
fn fold_repeats<'a>(names: impl Iterator<Item = &'a Bytes>) -> (Vec<&'a Bytes>, Vec<usize>) {
    let mut index: hashbrown::HashMap<&Bytes, usize> = hashbrown::HashMap::new();
    let mut distinct = Vec::new();
    let slots = names
        .map(|name| {
            *index.entry(name).or_insert_with(|| {
                distinct.push(name);
                distinct.len() - 1
            })
        })
        .collect();
    (distinct, slots)
}

/// A score as exact decimal text (Rust's shortest form that parses back
/// to the same `f64`, which Redis's and Lua's `strtod` read exactly).
pub(super) fn score_text(score: f64) -> String {
    format!("{score:e}")
}

/// A score range's ends as ZRANGE BYSCORE and ZCOUNT take them.
fn bounds(range: ScoreRange) -> (String, String) {
    let text = |bound: ScoreBound, unbounded: &str| match bound {
        ScoreBound::Unbounded => unbounded.to_owned(),
        ScoreBound::Inclusive(score) => score_text(score),
        ScoreBound::Exclusive(score) => format!("({}", score_text(score)),
    };
    (text(range.min, "-inf"), text(range.max, "+inf"))
}

fn order_name(order: SortOrder) -> &'static [u8] {
    match order {
        SortOrder::Ascending => b"asc",
        SortOrder::Descending => b"desc",
    }
}

fn flag(on: bool) -> &'static [u8] {
    if on {
        b"1"
    } else {
        b"0"
    }
}

pub(super) fn parse_score(call: &str, value: &Value) -> Result<f64, Error> {
    let text = match value {
        Value::BulkString(text) => std::str::from_utf8(text).ok(),
        Value::SimpleString(text) => Some(text.as_str()),
        _ => None,
    };
    text.and_then(|t| t.parse::<f64>().ok())
        .ok_or_else(|| unexpected(call, value))
}

/// A flat `value, score, ...` reply as pairs.
fn pairs(call: &str, flat: Vec<Value>) -> Result<Vec<ScoredValue>, Error> {
    if !flat.len().is_multiple_of(2) {
        return Err(unexpected(call, &Value::Array(flat)));
    }
    let mut elements = Vec::with_capacity(flat.len() / 2);
    let mut items = flat.into_iter();
    while let (Some(value), Some(score)) = (items.next(), items.next()) {
        let score = parse_score(call, &score)?;
        match value {
            Value::BulkString(value) => elements.push((Bytes::from(value), score)),
            other => return Err(unexpected(call, &other)),
        }
    }
    Ok(elements)
}
