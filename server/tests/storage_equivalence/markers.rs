//! The size a collection's marker carries in Redis (see
//! `item_prelude.lua`): read, rewritten to play an older front-end, and
//! checked against what a walk of the collection counts.

use prost::Message;
use redis::aio::MultiplexedConnection;

use super::*;
use jiffy_server::backend::redis::keys::item_keys;

/// A collection type whose marker keeps its fetch's size.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Dictionary,
    Set,
    List,
    SortedSet,
}

impl Kind {
    /// Its name in the marker, "<generation>#<name>".
    fn name(self) -> &'static str {
        match self {
            Kind::Dictionary => "dictionary",
            Kind::Set => "set",
            Kind::List => "list",
            Kind::SortedSet => "sorted_set",
        }
    }

    /// The Redis command that reads all it holds (fields and values, or
    /// elements), and the arguments after the key.
    fn walk(self) -> (&'static str, &'static [i64]) {
        match self {
            Kind::Dictionary => ("HGETALL", &[]),
            Kind::Set => ("SMEMBERS", &[]),
            Kind::List => ("LRANGE", &[0, -1]),
            Kind::SortedSet => ("ZRANGE", &[0, -1]),
        }
    }

    /// What its marker counts of what the walk reads: the elements (a
    /// dictionary's entries, field and value) as a fetch's answer encodes
    /// them, as the embedded store counts them.
    fn counted(self, read: &[Vec<u8>]) -> usize {
        match self {
            Kind::Dictionary => read
                .chunks(2)
                .map(|entry| {
                    let pair = cc::DictionaryFieldValuePair {
                        field: Bytes::copy_from_slice(&entry[0]),
                        value: Bytes::copy_from_slice(&entry[1]),
                    };
                    repeated_len(pair.encoded_len())
                })
                .sum(),
            Kind::Set | Kind::List | Kind::SortedSet => {
                read.iter().map(|element| repeated_len(element.len())).sum()
            }
        }
    }
}

/// The bytes `len` bytes take as one element of a repeated field: a tag,
/// a length, the bytes.
fn repeated_len(len: usize) -> usize {
    1 + prost::encoding::encoded_len_varint(len as u64) + len
}

/// The marker of collection `key` of the cache, when it is a live one of
/// `kind`: what follows "<generation>#<kind>" (":<bytes>", or nothing for a
/// marker without a size).
pub async fn marker_size(
    redis: &mut MultiplexedConnection,
    kind: Kind,
    key: &[u8],
) -> Option<String> {
    let (generation, item, _) = item_keys(CACHE, key);
    let generation: Option<String> = redis::cmd("GET")
        .arg(&generation)
        .query_async(redis)
        .await
        .unwrap();
    let marker: Option<Vec<u8>> = redis::cmd("GET")
        .arg(&item)
        .query_async(redis)
        .await
        .unwrap();
    let prefix = format!("{}#{}", generation?, kind.name());
    let tail = marker?.strip_prefix(prefix.as_bytes())?.to_vec();
    // "set" is a prefix of no other type's name, nor is any other; a tail
    // that is not a size is another type's marker.
    (tail.is_empty() || tail.starts_with(b":")).then(|| String::from_utf8(tail).unwrap())
}

/// Rewrites what follows "<generation>#<kind>" in the marker of collection
/// `key` (its size) to `tail`, keeping its TTL: "" for a marker as an older
/// front-end wrote it, ":<n>" to claim a size.
pub async fn remark(redis: &mut MultiplexedConnection, kind: Kind, key: &[u8], tail: &str) {
    let old = marker_size(redis, kind, key).await.unwrap();
    let (_, item, _) = item_keys(CACHE, key);
    let marker: Vec<u8> = redis::cmd("GET")
        .arg(&item)
        .query_async(redis)
        .await
        .unwrap();
    let new = [&marker[..marker.len() - old.len()], tail.as_bytes()].concat();
    let () = redis::cmd("SET")
        .arg(&item)
        .arg(new)
        .arg("KEEPTTL")
        .query_async(redis)
        .await
        .unwrap();
}

/// The size of what Redis holds for collection `key`, as its marker counts
/// it (see [`Kind::counted`]).
pub async fn walked_size(redis: &mut MultiplexedConnection, kind: Kind, key: &[u8]) -> usize {
    let (_, _, data) = item_keys(CACHE, key);
    let (command, range) = kind.walk();
    let flat: Vec<Vec<u8>> = redis::cmd(command)
        .arg(&data)
        .arg(range)
        .query_async(redis)
        .await
        .unwrap();
    kind.counted(&flat)
}

/// After a call on collection `k`: when its marker carries a size, the size
/// is right.
pub async fn check_size_count(
    redis: &mut MultiplexedConnection,
    kind: Kind,
    k: usize,
) -> Result<(), TestCaseError> {
    if let Some(size) = marker_size(redis, kind, KEYS[k]).await {
        let walked = walked_size(redis, kind, KEYS[k]).await;
        prop_assert_eq!(size, format!(":{walked}"), "the size of {:?}", KEYS[k]);
    }
    Ok(())
}

/// A server over its own Redis, with a connection to that Redis to read
/// and rewrite markers: where a fetch's refusal by a kept size is tried,
/// and its Redis time measured.
pub struct OverRedis {
    pub clients: Clients,
    pub connection: MultiplexedConnection,
    // Held for their lifetime: dropping either stops it.
    _server: TestServer,
    _redis: RedisNode,
}

impl OverRedis {
    /// Answers of at most 1,100 bytes (values at most 1,000).
    pub async fn with_small_answers() -> OverRedis {
        OverRedis::with_args(&["--max-value-size", "1000", "--max-response-size", "1100"]).await
    }

    /// The default limits, and time enough for a walk of 8 MiB on a loaded
    /// machine.
    pub async fn with_time_to_walk() -> OverRedis {
        OverRedis::with_args(&["--store-timeout", "30s"]).await
    }

    async fn with_args(args: &[&str]) -> OverRedis {
        let redis = RedisNode::start();
        let url = format!("redis://127.0.0.1:{}", redis.port);
        let server = TestServer::with_args(&[&["--store", &url][..], args].concat()).await;
        let mut clients = Clients::of(&server).await;
        clients.reset().await;
        let connection = redis_connection(redis.port).await;
        OverRedis {
            clients,
            connection,
            _server: server,
            _redis: redis,
        }
    }
}

/// A connection to the `redis-server` on `port`, to read what it holds.
pub async fn redis_connection(port: u16) -> MultiplexedConnection {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}")).unwrap();
    client.get_multiplexed_async_connection().await.unwrap()
}

/// Prints the Redis time of each of 50 calls of `call` (each asserting its
/// answer), as Redis counts it: `INFO commandstats`, the scripts' usec.
pub async fn redis_time_per_call(
    connection: &mut MultiplexedConnection,
    what: &str,
    mut call: impl AsyncFnMut(),
) {
    const CALLS: usize = 50;
    let () = redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query_async(connection)
        .await
        .unwrap();
    for _ in 0..CALLS {
        call().await;
    }
    let stats: String = redis::cmd("INFO")
        .arg("commandstats")
        .query_async(connection)
        .await
        .unwrap();
    // The scripts run as EVALSHA (EVAL the first time): "cmdstat_evalsha:calls=50,usec=...,".
    let field = |line: &str, name: &str| -> f64 {
        let at = line.find(name).unwrap() + name.len();
        let end = line[at..].find(',').map_or(line.len(), |e| at + e);
        line[at..end].trim().parse().unwrap()
    };
    let (calls, usec) = stats
        .lines()
        .filter(|line| line.starts_with("cmdstat_eval"))
        .fold((0.0, 0.0), |(calls, usec), line| {
            (calls + field(line, "calls="), usec + field(line, "usec="))
        });
    println!(
        "{what}: {:.0} us of Redis time per call ({calls} scripts for {CALLS} calls)",
        usec / CALLS as f64
    );
}
