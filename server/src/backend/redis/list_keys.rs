//! ListKeys on the Redis store (`backend/keys.rs` says what a listing
//! promises): SCAN with MATCH over each master in turn, the one place the
//! store scans. Items of a flushed or deleted generation, and expired ones,
//! still match until Redis frees them, so each key found is checked the way
//! ItemExists checks it before it is answered.
//!
//! The cursor is the master's place among the masters ordered by address
//! (4 bytes), that master's SCAN cursor (8) and how many names of the step
//! that cursor starts were already looked at (4), all big-endian. A
//! failover or a resharding during a listing may repeat or miss keys.

use std::sync::Arc;

use futures_util::future::try_join_all;
use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};
use redis::{RedisError, RedisResult, Value};

use super::connection::Connection;
use super::{RedisCache, RedisStore};
use crate::backend::{bad_cursor, Caches, ItemStorage, KeyStorage, KeysPage};
use crate::error::Error;

/// SCAN's COUNT: the slots of Redis's table one step looks at.
const SCAN_COUNT: usize = 1_000;
/// SCAN steps per call, so a call over a sparse cache stays short.
const SCANS_PER_CALL: usize = 16;

/// A master to scan: its address, or `None` on a single node.
type Node = Option<(String, u16)>;

impl KeyStorage for Arc<RedisStore> {
    async fn list_keys(
        &self,
        cache: &RedisCache,
        prefix: &[u8],
        cursor: &[u8],
        limit: usize,
    ) -> Result<KeysPage, Error> {
        self.check_exists(cache).await?;
        let (mut node, mut scan, mut seen) = decode(cursor)?;
        let pattern = pattern(&cache.0, prefix);
        let mut connection = self.bounded(self.connection.get()).await?;
        let nodes = self.bounded(masters(&mut connection)).await?;
        let mut keys = Vec::new();
        let mut steps = 0;
        while node < nodes.len() && keys.len() < limit && steps < SCANS_PER_CALL {
            steps += 1;
            let (next, names) = self
                .bounded(scan_step(&mut connection, &nodes[node], scan, &pattern))
                .await?;
            while seen < names.len() && keys.len() < limit {
                let batch = &names[seen..names.len().min(seen + limit - keys.len())];
                let found = batch.iter().filter_map(|name| key_of(name));
                let live = try_join_all(found.map(|key| async move {
                    Ok::<_, Error>(self.contains(cache, key).await?.then_some(key))
                }))
                .await?;
                keys.extend(
                    live.into_iter()
                        .flatten()
                        .map(bytes::Bytes::copy_from_slice),
                );
                seen += batch.len();
            }
            if seen < names.len() {
                break;
            }
            seen = 0;
            scan = next;
            if scan == 0 {
                node += 1;
            }
        }
        let next_cursor = if node < nodes.len() {
            encode(node, scan, seen)
        } else {
            Vec::new()
        };
        Ok(KeysPage { keys, next_cursor })
    }
}

/// The masters, ordered by address so every front-end numbers them alike.
async fn masters(connection: &mut Connection) -> RedisResult<Vec<Node>> {
    let Connection::Cluster(cluster) = connection else {
        return Ok(vec![None]);
    };
    let routing = RoutingInfo::SingleNode(SingleNodeRoutingInfo::Random);
    let nodes: String = redis::from_redis_value(
        cluster
            .route_command(redis::cmd("CLUSTER").arg("NODES").clone(), routing)
            .await?,
    )?;
    Ok(parse_masters(&nodes))
}

/// The serving masters of a CLUSTER NODES answer
/// (`<id> <ip:port@cport[,host]> <flags> ...`, one node a line).
fn parse_masters(nodes: &str) -> Vec<Node> {
    let mut masters: Vec<(String, u16)> = nodes
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let address = fields.nth(1)?;
            let flags: Vec<&str> = fields.next()?.split(',').collect();
            let serving = flags.contains(&"master") && !flags.iter().any(|f| f.starts_with("fail"));
            let (host, port) = address.split(['@', ',']).next()?.rsplit_once(':')?;
            (serving && !host.is_empty()).then(|| Some((host.to_owned(), port.parse().ok()?)))?
        })
        .collect();
    masters.sort();
    masters.dedup();
    masters.into_iter().map(Some).collect()
}

/// One SCAN step on `node` from `cursor`: the next cursor, and the names.
async fn scan_step(
    connection: &mut Connection,
    node: &Node,
    cursor: u64,
    pattern: &[u8],
) -> RedisResult<(u64, Vec<Vec<u8>>)> {
    let mut command = redis::cmd("SCAN");
    command
        .arg(cursor)
        .arg("MATCH")
        .arg(pattern)
        .arg("COUNT")
        .arg(SCAN_COUNT);
    let reply: Value = match (connection, node) {
        (Connection::Cluster(cluster), Some((host, port))) => {
            let routing = RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress {
                host: host.clone(),
                port: *port,
            });
            cluster.route_command(command, routing).await?
        }
        (Connection::Single(single), _) => command.query_async(single).await?,
        (Connection::Cluster(_), None) => {
            return Err(RedisError::from((
                redis::ErrorKind::Client,
                "a cluster node without an address",
            )))
        }
    };
    Ok(redis::from_redis_value(reply)?)
}

/// The MATCH pattern of the items of `cache` starting with `prefix`: every
/// bucket's hash tag, then the prefix with glob characters escaped.
fn pattern(cache: &str, prefix: &[u8]) -> Vec<u8> {
    let mut pattern = format!("ji:{{{cache}/*}}:").into_bytes();
    for &byte in prefix {
        if matches!(byte, b'*' | b'?' | b'[' | b']' | b'\\') {
            pattern.push(b'\\');
        }
        pattern.push(byte);
    }
    pattern.push(b'*');
    pattern
}

/// The item's key in its Redis name `ji:{<cache>/<bucket>}:<key>`.
fn key_of(name: &[u8]) -> Option<&[u8]> {
    let close = name.iter().position(|&byte| byte == b'}')?;
    name.get(close + 2..)
}

fn encode(node: usize, scan: u64, seen: usize) -> Vec<u8> {
    let mut cursor = (node as u32).to_be_bytes().to_vec();
    cursor.extend_from_slice(&scan.to_be_bytes());
    cursor.extend_from_slice(&(seen as u32).to_be_bytes());
    cursor
}

fn decode(cursor: &[u8]) -> Result<(usize, u64, usize), Error> {
    if cursor.is_empty() {
        return Ok((0, 0, 0));
    }
    let bytes: [u8; 16] = cursor.try_into().map_err(|_| bad_cursor())?;
    let node = u32::from_be_bytes(bytes[..4].try_into().expect("4 bytes"));
    let scan = u64::from_be_bytes(bytes[4..12].try_into().expect("8 bytes"));
    let seen = u32::from_be_bytes(bytes[12..].try_into().expect("4 bytes"));
    Ok((node as usize, scan, seen as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::redis::keys::item_keys;

    #[test]
    fn the_pattern_matches_every_bucket_and_escapes_the_prefix() {
        assert_eq!(pattern("c", b"a*b"), b"ji:{c/*}:a\\*b*".to_vec());
        let (_, item, _) = item_keys("c", b"user:1");
        assert_eq!(key_of(&item), Some(&b"user:1"[..]));
    }

    #[test]
    fn masters_are_the_serving_ones_by_address() {
        let nodes = "\
a 10.0.0.2:6379@16379 master - 0 0 1 connected 0-5460
b 10.0.0.1:6379@16379,host myself,master - 0 0 2 connected 5461-10922
c 10.0.0.3:6379@16379 slave a 0 0 3 connected
d 10.0.0.4:6379@16379 master,fail - 0 0 4 connected
";
        assert_eq!(
            parse_masters(nodes),
            vec![
                Some(("10.0.0.1".to_owned(), 6379)),
                Some(("10.0.0.2".to_owned(), 6379))
            ]
        );
    }

    #[test]
    fn a_cursor_comes_back_as_it_went() {
        assert_eq!(decode(&encode(2, 1 << 40, 7)).unwrap(), (2, 1 << 40, 7));
        assert_eq!(decode(&[]).unwrap(), (0, 0, 0));
        assert!(matches!(decode(b"short"), Err(Error::InvalidArgument(_))));
    }
}
