//! Webhooks over Redis ([`SharedWebhooks`]): kept in their cache's slot
//! (the tag of its bucket 0, as the rate buckets are), so that every
//! front-end answers the same, and removed with the cache by the delete's
//! update of bucket 0 (`lua/bucket_update.lua`); a flush keeps them, as
//! with the embedded store.
//!
//! - `jw:{<cache>/0}`: hash of webhook name -> JSON `{topic, url, secret,
//!   id}`: at most 10 a cache, so reading them all is one small HGETALL.
//! - `jwp:{<cache>/0}`: hash of name -> `<id> <page> <seq> <holder>`: where
//!   delivery is (the next message), written once a second by the holder
//!   of the lease, and whether a holder has it (`-` once handed over).
//! - `jwl:{<cache>/0}:<name>`: the lease, a token with a time to live.
//!
//! The scripts are `lua/webhook_*.lua`.

use std::collections::HashMap;

use futures_util::future::{try_join_all, BoxFuture};
use redis::Value;
use serde::Deserialize;

use super::topics::{parse_read, TopicKeys};
use super::{keys, scripts, unexpected, RedisStore};
use crate::error::Error;
use crate::topics::Resume;
use crate::webhooks::{Definition, SharedWebhooks, Taken, LEASE_TTL};

fn hooks_key(cache: &str) -> String {
    format!("jw:{{{cache}/0}}")
}

fn positions_key(cache: &str) -> String {
    format!("jwp:{{{cache}/0}}")
}

fn lease_key(cache: &str, name: &str) -> Vec<u8> {
    let mut key = format!("jwl:{{{cache}/0}}:").into_bytes();
    key.extend_from_slice(name.as_bytes());
    key
}

/// What deleting `cache` removes from its bucket 0's slot (leases lapse on
/// their own).
pub fn kept_with_cache(cache: &str) -> [String; 2] {
    [hooks_key(cache), positions_key(cache)]
}

/// A webhook as `jw:` keeps it.
#[derive(Deserialize)]
struct Stored {
    topic: String,
    url: String,
    secret: String,
    id: String,
}

/// The invocation of a script on the keys of webhook `name` of `cache`:
/// its webhooks, their positions, its lease.
fn webhook_invocation(
    script: &'static redis::Script,
    cache: &str,
    name: &str,
) -> redis::ScriptInvocation<'static> {
    let mut invocation = script.prepare_invoke();
    invocation
        .key(hooks_key(cache))
        .key(positions_key(cache))
        .key(lease_key(cache, name));
    invocation
}

fn lease_invocation(
    op: &str,
    definition: &Definition,
    token: &str,
) -> redis::ScriptInvocation<'static> {
    let mut invocation =
        webhook_invocation(&scripts::WEBHOOK_LEASE, &definition.cache, &definition.name);
    invocation
        .arg(op)
        .arg(definition.name.as_str())
        .arg(definition.id.as_str())
        .arg(token)
        .arg(LEASE_TTL.as_millis() as u64);
    invocation
}

fn text(value: &Value) -> Option<&[u8]> {
    match value {
        Value::BulkString(bytes) => Some(bytes),
        Value::SimpleString(text) => Some(text.as_bytes()),
        _ => None,
    }
}

fn number(value: &Value) -> Option<u64> {
    std::str::from_utf8(text(value)?).ok()?.parse().ok()
}

/// What `webhook_lease.lua` answered.
fn parse_lease(reply: &Value) -> Result<Taken, Error> {
    let Value::Array(parts) = reply else {
        return Err(unexpected("webhook lease", reply));
    };
    match (parts.first().and_then(text), &parts[1..]) {
        (Some(b"held"), [page, seq, takeover]) => {
            let (Some(page), Some(seq)) = (number(page), number(seq)) else {
                return Err(unexpected("webhook lease", reply));
            };
            Ok(Taken::Held(
                Resume { seq, page },
                *takeover == Value::Int(1),
            ))
        }
        (Some(b"held"), []) => Ok(Taken::Held(Resume::default(), false)),
        (Some(b"busy" | b"lost"), []) => Ok(Taken::Busy),
        (Some(b"gone"), []) => Ok(Taken::Gone),
        _ => Err(unexpected("webhook lease", reply)),
    }
}

impl RedisStore {
    /// Where a webhook put now starts: the topic's next message.
    async fn topic_next(&self, cache: &str, topic: &str) -> Result<Resume, Error> {
        let keys = TopicKeys::new(cache, topic);
        let mut invocation = keys.invocation(&scripts::TOPIC_READ);
        // Past any number: only the page and the last number come back.
        invocation.arg(u64::MAX);
        match parse_read(self.run(invocation).await?)? {
            None => Err(Error::CacheNotFound(cache.to_owned())),
            // Not published to yet: its first message, on whatever page.
            Some(read) if read.page == 0 => Ok(Resume { seq: 1, page: 0 }),
            Some(read) => Ok(Resume {
                seq: read.last + 1,
                page: read.page,
            }),
        }
    }

    async fn lease(
        &self,
        op: &str,
        definition: &Definition,
        token: &str,
        position: Option<Resume>,
    ) -> Result<Taken, Error> {
        let mut invocation = lease_invocation(op, definition, token);
        if let Some(position) = position {
            invocation.arg(position.page).arg(position.seq);
        }
        parse_lease(&self.run(invocation).await?)
    }
}

impl SharedWebhooks for RedisStore {
    fn put<'a>(
        &'a self,
        definition: &'a Definition,
        max: usize,
    ) -> BoxFuture<'a, Result<(String, String), Error>> {
        Box::pin(async move {
            let cache = definition.cache.as_str();
            let start = self.topic_next(cache, &definition.topic).await?;
            let mut invocation = scripts::WEBHOOK_PUT.prepare_invoke();
            invocation
                .key(keys::generation_key(cache, 0))
                .key(hooks_key(cache))
                .key(positions_key(cache))
                .key(lease_key(cache, &definition.name))
                .arg(definition.name.as_str())
                .arg(definition.topic.as_str())
                .arg(definition.url.as_str())
                .arg(definition.secret.as_str())
                .arg(definition.id.as_str())
                .arg(max)
                .arg(start.page)
                .arg(start.seq);
            let reply = self.run(invocation).await?;
            match &reply {
                Value::Int(0) => Err(Error::CacheNotFound(cache.to_owned())),
                Value::Int(-1) => Err(Error::TooManyWebhooks {
                    cache: cache.to_owned(),
                    limit: max,
                }),
                Value::Array(parts) => match parts.as_slice() {
                    [secret, id] => match (text(secret), text(id)) {
                        (Some(secret), Some(id)) => Ok((
                            String::from_utf8_lossy(secret).into_owned(),
                            String::from_utf8_lossy(id).into_owned(),
                        )),
                        _ => Err(unexpected("webhook put", &reply)),
                    },
                    _ => Err(unexpected("webhook put", &reply)),
                },
                _ => Err(unexpected("webhook put", &reply)),
            }
        })
    }

    fn delete<'a>(&'a self, cache: &'a str, name: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            let mut invocation = webhook_invocation(&scripts::WEBHOOK_DELETE, cache, name);
            invocation.arg(name);
            self.run(invocation).await.map(drop)
        })
    }

    fn of_cache<'a>(&'a self, cache: &'a str) -> BoxFuture<'a, Result<Vec<Definition>, Error>> {
        Box::pin(async move {
            let stored: HashMap<String, String> = self
                .bounded(async {
                    let mut connection = self.connection.get().await?;
                    redis::cmd("HGETALL")
                        .arg(hooks_key(cache))
                        .query_async(&mut connection)
                        .await
                })
                .await?;
            stored
                .into_iter()
                .map(|(name, json)| {
                    let stored: Stored = serde_json::from_str(&json).map_err(|error| {
                        Error::StoreFailed(format!("webhook `{name}` of `{cache}`: {error}"))
                    })?;
                    Ok(Definition {
                        cache: cache.to_owned(),
                        name,
                        topic: stored.topic,
                        url: stored.url,
                        secret: stored.secret,
                        id: stored.id,
                    })
                })
                .collect()
        })
    }

    fn all(&self) -> BoxFuture<'_, Result<Vec<Definition>, Error>> {
        Box::pin(async move {
            let caches = self.cache_names().await?;
            let each = caches.iter().map(|cache| self.of_cache(cache));
            Ok(try_join_all(each).await?.into_iter().flatten().collect())
        })
    }

    fn rotate<'a>(
        &'a self,
        cache: &'a str,
        name: &'a str,
        secret: &'a str,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            let mut invocation = scripts::WEBHOOK_ROTATE.prepare_invoke();
            invocation.key(hooks_key(cache)).arg(name).arg(secret);
            match self.run(invocation).await? {
                Value::Int(1) => Ok(()),
                Value::Int(0) => Err(Error::WebhookNotFound {
                    cache: cache.to_owned(),
                    name: name.to_owned(),
                }),
                other => Err(unexpected("webhook rotate", &other)),
            }
        })
    }

    fn take<'a>(
        &'a self,
        definition: &'a Definition,
        token: &'a str,
    ) -> BoxFuture<'a, Result<Taken, Error>> {
        Box::pin(self.lease("take", definition, token, None))
    }

    fn renew<'a>(
        &'a self,
        definition: &'a Definition,
        token: &'a str,
        position: Resume,
    ) -> BoxFuture<'a, Result<bool, Error>> {
        Box::pin(async move {
            let taken = self.lease("renew", definition, token, Some(position));
            Ok(matches!(taken.await?, Taken::Held(..)))
        })
    }

    fn release<'a>(
        &'a self,
        definition: &'a Definition,
        token: &'a str,
        position: Resume,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            self.lease("release", definition, token, Some(position))
                .await
                .map(drop)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_s_webhooks_live_in_its_bucket_0_slot() {
        let tag = |name: &[u8]| {
            let open = name.iter().position(|&b| b == b'{').unwrap();
            let close = name.iter().position(|&b| b == b'}').unwrap();
            name[open..=close].to_vec()
        };
        let bucket = tag(keys::generation_key("c", 0).as_bytes());
        assert_eq!(tag(hooks_key("c").as_bytes()), bucket);
        assert_eq!(tag(positions_key("c").as_bytes()), bucket);
        assert_eq!(tag(&lease_key("c", "a {b}")), bucket);
    }

    #[test]
    fn lease_replies_parse() {
        let bulk = |text: &str| Value::BulkString(text.as_bytes().to_vec());
        let held = Value::Array(vec![bulk("held"), bulk("7"), bulk("12"), Value::Int(1)]);
        assert_eq!(
            parse_lease(&held).unwrap(),
            Taken::Held(Resume { seq: 12, page: 7 }, true)
        );
        assert_eq!(
            parse_lease(&Value::Array(vec![bulk("busy")])).unwrap(),
            Taken::Busy
        );
        assert_eq!(
            parse_lease(&Value::Array(vec![bulk("gone")])).unwrap(),
            Taken::Gone
        );
        assert!(parse_lease(&Value::Int(3)).is_err());
    }
}
