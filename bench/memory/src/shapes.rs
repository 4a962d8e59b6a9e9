//! The shapes of items filled into both servers, and how each is written:
//! to jiffy-server over gRPC, many calls in flight on one HTTP/2
//! connection; to redis-server as pipelined RESP.
//!
//! Every item is numbered `0..items`: scalars are `key:N`; collection
//! elements are `member:N` (a list's values, a set's and a sorted set's
//! members, scored N) or the field `field:N` holding a 10-byte value (a
//! dictionary). A big shape is one collection `key:0` of every element; a
//! small one is `items / 10` collections `key:C` of ten elements each.
//! `list-big-hashed` is `list-big` with values that share no prefix with
//! their neighbours (14 hex digits of a hash of N), where jiffy's front
//! coding of list chunks saves nothing.

use bytes::Bytes;
use futures_util::{stream, StreamExt, TryStreamExt};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::*;
use redis::aio::MultiplexedConnection;
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;
use tonic::Request;

/// The TTL of every jiffy item (the protocol has no item without one), and
/// of the Redis items of the shapes that have one.
pub const TTL_SECONDS: u64 = 3_600;
/// Elements of each collection of a small shape.
pub const SMALL: usize = 10;
/// Bytes of a dictionary field's value.
const FIELD_VALUE: &[u8] = b"0123456789";
/// Bytes of requests (or of RESP pipelines) one write carries at most,
/// well under jiffy's message limit.
const WRITE_BYTES: usize = 256 << 10;
/// Elements per write of a big collection, and commands per Redis pipeline.
const WRITE_ELEMENTS: usize = 1_000;
/// Calls in flight on jiffy's connection, pipelines on Redis's.
const IN_FLIGHT: usize = 32;
const REDIS_IN_FLIGHT: usize = 4;
/// The cache jiffy's items are written to.
pub const CACHE: &str = "memory";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collection {
    Dictionary,
    List,
    Set,
    SortedSet,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `key:N` holding `value_size` bytes; `ttl` says whether Redis's has
    /// one too (jiffy's always has).
    Scalar { value_size: usize, ttl: bool },
    /// One collection of every element (`big`), or many of [`SMALL`];
    /// its elements numbered `member:N` or, if `hashed`, hashed.
    Collection {
        kind: Collection,
        big: bool,
        hashed: bool,
    },
}

/// Every shape, by name, in the order a full run measures them.
pub const SHAPES: [(&str, Shape); 15] = [
    ("scalar-10", scalar(10, false)),
    ("scalar-10-ttl", scalar(10, true)),
    ("scalar-100", scalar(100, false)),
    ("scalar-100-ttl", scalar(100, true)),
    ("scalar-1000", scalar(1_000, false)),
    ("scalar-1000-ttl", scalar(1_000, true)),
    ("dictionary-big", collection(Collection::Dictionary, true)),
    (
        "dictionary-small",
        collection(Collection::Dictionary, false),
    ),
    ("list-big", collection(Collection::List, true)),
    ("list-small", collection(Collection::List, false)),
    (
        "list-big-hashed",
        Shape::Collection {
            kind: Collection::List,
            big: true,
            hashed: true,
        },
    ),
    ("set-big", collection(Collection::Set, true)),
    ("set-small", collection(Collection::Set, false)),
    ("sorted-set-big", collection(Collection::SortedSet, true)),
    ("sorted-set-small", collection(Collection::SortedSet, false)),
];

const fn scalar(value_size: usize, ttl: bool) -> Shape {
    Shape::Scalar { value_size, ttl }
}

const fn collection(kind: Collection, big: bool) -> Shape {
    Shape::Collection {
        kind,
        big,
        hashed: false,
    }
}

pub fn by_name(name: &str) -> Option<Shape> {
    SHAPES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// One write: a range of items `0..items` that goes in one call or one
/// Redis command (a collection's, or one scalar batch).
#[derive(Clone, Copy, Debug)]
struct Write {
    /// The collection written (its `key:C`); unused for scalars.
    collection: usize,
    first: usize,
    end: usize,
}

impl Shape {
    /// The writes that fill `items` items of this shape.
    fn writes(self, items: usize) -> Vec<Write> {
        let (per_collection, per_write) = match self {
            Shape::Scalar { value_size, .. } => {
                let per_write = (WRITE_BYTES / (value_size + 16)).clamp(1, WRITE_ELEMENTS);
                (items, per_write)
            }
            Shape::Collection { big: true, .. } => (items, WRITE_ELEMENTS),
            Shape::Collection { big: false, .. } => (SMALL, SMALL),
        };
        let mut writes = Vec::new();
        for start in (0..items).step_by(per_collection) {
            let end = (start + per_collection).min(items);
            for first in (start..end).step_by(per_write) {
                let collection = start / per_collection;
                let end = (first + per_write).min(end);
                writes.push(Write {
                    collection,
                    first,
                    end,
                });
            }
        }
        writes
    }

    /// Collections the shape holds for `items` items (0 for scalars).
    pub fn collections(self, items: usize) -> usize {
        match self {
            Shape::Scalar { .. } => 0,
            Shape::Collection { big: true, .. } => 1,
            Shape::Collection { big: false, .. } => items.div_ceil(SMALL),
        }
    }

    /// Writes `items` items of this shape into jiffy-server's cache [`CACHE`].
    pub async fn fill_jiffy(self, channel: Channel, items: usize) -> Result<(), tonic::Status> {
        let value = match self {
            Shape::Scalar { value_size, .. } => Bytes::from(vec![b'v'; value_size]),
            Shape::Collection { .. } => Bytes::from_static(FIELD_VALUE),
        };
        let ttl_milliseconds = TTL_SECONDS * 1_000;
        stream::iter(self.writes(items))
            .map(|write| {
                let mut client = ScsClient::new(channel.clone());
                let value = value.clone();
                async move {
                    let name = Bytes::from(format!("key:{}", write.collection));
                    let members = || (write.first..write.end).map(|n| self.member(n).into());
                    match self {
                        Shape::Scalar { .. } => {
                            let items = (write.first..write.end)
                                .map(|n| SetRequest {
                                    cache_key: format!("key:{n}").into(),
                                    cache_body: value.clone(),
                                    ttl_milliseconds,
                                })
                                .collect();
                            let answers = client.set_batch(in_cache(SetBatchRequest { items }));
                            let answers = answers.await?.into_inner();
                            answers.try_for_each(|_| async { Ok(()) }).await
                        }
                        Shape::Collection { kind, .. } => {
                            let refresh_ttl = true;
                            match kind {
                                Collection::Dictionary => {
                                    let items = (write.first..write.end)
                                        .map(|n| DictionaryFieldValuePair {
                                            field: format!("field:{n}").into(),
                                            value: value.clone(),
                                        })
                                        .collect();
                                    let request = DictionarySetRequest {
                                        dictionary_name: name,
                                        items,
                                        ttl_milliseconds,
                                        refresh_ttl,
                                    };
                                    client.dictionary_set(in_cache(request)).await.map(drop)
                                }
                                Collection::List => {
                                    let request = ListConcatenateBackRequest {
                                        list_name: name,
                                        values: members().collect(),
                                        ttl_milliseconds,
                                        refresh_ttl,
                                        truncate_front_to_size: 0,
                                    };
                                    let answer = client.list_concatenate_back(in_cache(request));
                                    answer.await.map(drop)
                                }
                                Collection::Set => {
                                    let request = SetUnionRequest {
                                        set_name: name,
                                        elements: members().collect(),
                                        ttl_milliseconds,
                                        refresh_ttl,
                                    };
                                    client.set_union(in_cache(request)).await.map(drop)
                                }
                                Collection::SortedSet => {
                                    let elements = (write.first..write.end)
                                        .map(|n| SortedSetElement {
                                            value: member(n).into(),
                                            score: n as f64,
                                        })
                                        .collect();
                                    let request = SortedSetPutRequest {
                                        set_name: name,
                                        elements,
                                        ttl_milliseconds,
                                        refresh_ttl,
                                    };
                                    client.sorted_set_put(in_cache(request)).await.map(drop)
                                }
                            }
                        }
                    }
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .try_collect()
            .await
    }

    /// Writes `items` items of this shape into redis-server: the same
    /// writes as jiffy's, each one command, in pipelines of up to
    /// [`WRITE_ELEMENTS`] commands; then an EXPIRE on every collection.
    pub async fn fill_redis(
        self,
        connection: MultiplexedConnection,
        items: usize,
    ) -> redis::RedisResult<()> {
        let value = match self {
            Shape::Scalar { value_size, .. } => vec![b'v'; value_size],
            Shape::Collection { .. } => FIELD_VALUE.to_vec(),
        };
        let writes = self.writes(items);
        // About WRITE_ELEMENTS items per pipeline, as jiffy's batches.
        let per_pipeline = (WRITE_ELEMENTS / writes[0].len()).max(1);
        let pipelines: Vec<redis::Pipeline> = writes
            .chunks(per_pipeline)
            .map(|writes| {
                let mut pipe = redis::pipe();
                for write in writes {
                    self.redis_write(&mut pipe, *write, &value);
                }
                pipe
            })
            .collect();
        stream::iter(pipelines)
            .map(|pipe| {
                let mut connection = connection.clone();
                async move { pipe.query_async::<()>(&mut connection).await }
            })
            .buffer_unordered(REDIS_IN_FLIGHT)
            .try_collect::<()>()
            .await?;
        let mut expire = redis::pipe();
        for collection in 0..self.collections(items) {
            expire
                .cmd("EXPIRE")
                .arg(format!("key:{collection}"))
                .arg(TTL_SECONDS)
                .ignore();
        }
        if self.collections(items) > 0 {
            expire.query_async::<()>(&mut connection.clone()).await?;
        }
        Ok(())
    }

    /// Adds one write's commands to `pipe`.
    fn redis_write(self, pipe: &mut redis::Pipeline, write: Write, value: &[u8]) {
        let key = format!("key:{}", write.collection);
        let range = write.first..write.end;
        match self {
            Shape::Scalar { ttl, .. } => {
                for n in range {
                    let set = pipe.cmd("SET").arg(format!("key:{n}")).arg(value);
                    if ttl {
                        set.arg("EX").arg(TTL_SECONDS);
                    }
                    set.ignore();
                }
            }
            Shape::Collection { kind, .. } => {
                let command = match kind {
                    Collection::Dictionary => "HSET",
                    Collection::List => "RPUSH",
                    Collection::Set => "SADD",
                    Collection::SortedSet => "ZADD",
                };
                let cmd = pipe.cmd(command).arg(key);
                for n in range {
                    match kind {
                        Collection::Dictionary => cmd.arg(format!("field:{n}")).arg(value),
                        Collection::List | Collection::Set => cmd.arg(self.member(n)),
                        Collection::SortedSet => cmd.arg(n as f64).arg(member(n)),
                    };
                }
                cmd.ignore();
            }
        }
    }
}

impl Shape {
    /// Element `n` of a collection: `member:N`, or for a hashed shape 14
    /// hex digits of a hash of N, which share no prefix with their
    /// neighbours but by chance.
    fn member(self, n: usize) -> String {
        match self {
            Shape::Collection { hashed: true, .. } => format!("{:014x}", mix(n as u64) >> 8),
            _ => member(n),
        }
    }
}

/// SplitMix64's finalizer: a fixed, well-spread hash of `n`, the same on
/// both servers' sides.
fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Write {
    fn len(&self) -> usize {
        self.end - self.first
    }
}

fn member(n: usize) -> String {
    format!("member:{n}")
}

/// `message` addressed to the cache [`CACHE`].
fn in_cache<T>(message: T) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("cache", MetadataValue::from_static(CACHE));
    request
}
