//! The connection to the cluster (or the single node): opened on first use
//! and re-opened by the client library after failures.

use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, RedisError, RedisFuture, RedisResult, Value};
use tokio::sync::OnceCell;

/// Where the data lives, as `--store` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `redis-cluster://host:port,host:port,...` (or `rediss-cluster://`,
    /// TLS to every node): any of the nodes, as `redis://` (`rediss://`)
    /// URLs; the client learns the rest of the cluster from them.
    Cluster(Vec<String>),
    /// `redis://host:port` (or `rediss://`): one node, no cluster.
    Single(String),
}

impl Target {
    /// Parses a `--store` value other than `embedded`.
    pub fn parse(url: &str) -> Result<Target, String> {
        let cluster = [
            ("redis-cluster://", "redis"),
            ("rediss-cluster://", "rediss"),
        ]
        .into_iter()
        .find_map(|(prefix, scheme)| Some((url.strip_prefix(prefix)?, scheme)));
        if let Some((rest, scheme)) = cluster {
            // `user:password@` before the first node applies to every node.
            let (credentials, nodes) = match rest.rsplit_once('@') {
                Some((credentials, nodes)) => (format!("{credentials}@"), nodes),
                None => (String::new(), rest),
            };
            let nodes: Vec<String> = nodes
                .split(',')
                .map(str::trim)
                .filter(|node| !node.is_empty())
                .map(|node| format!("{scheme}://{credentials}{node}"))
                .collect();
            if nodes.is_empty() {
                return Err("redis-cluster:// needs at least one host:port".into());
            }
            for node in &nodes {
                check_url(node)?;
            }
            return Ok(Target::Cluster(nodes));
        }
        if url.starts_with("redis://") || url.starts_with("rediss://") {
            check_url(url)?;
            return Ok(Target::Single(url.to_owned()));
        }
        Err(format!(
            "unknown store `{}`: use `embedded`, `redis-cluster://host:port,...` or `redis://host:port` (`rediss` for TLS)",
            redact(url)
        ))
    }
}

fn check_url(url: &str) -> Result<(), String> {
    redis::Client::open(url)
        .map(drop)
        .map_err(|error| format!("invalid store address `{}`: {error}", redact(url)))
}

/// The URL without its password, for messages and logs.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://***{}", &url[..scheme], &url[at..])
        }
        _ => url.to_owned(),
    }
}

/// A handle every call clones; both kinds multiplex calls over one socket
/// per node, so concurrent calls are pipelined.
#[derive(Clone)]
pub enum Connection {
    Cluster(ClusterConnection),
    Single(ConnectionManager),
}

impl Connection {
    /// Opens a connection; `timeout` bounds each connect and each reply.
    pub async fn open(target: &Target, timeout: Duration) -> RedisResult<Connection> {
        match target {
            Target::Cluster(nodes) => {
                let client = ClusterClient::builder(nodes.iter().map(String::as_str))
                    .connection_timeout(timeout)
                    .response_timeout(timeout)
                    // A few quick retries ride through MOVED after a failover
                    // and a node's restart; the caller's own timeout caps them,
                    // and a cluster that stays down is reported at once.
                    .retries(3)
                    .min_retry_wait(5)
                    .max_retry_wait(100)
                    .retry_wait_formula(10, 2)
                    .build()?;
                Ok(Connection::Cluster(client.get_async_connection().await?))
            }
            Target::Single(url) => {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(timeout))
                    .set_response_timeout(Some(timeout))
                    .set_number_of_retries(2)
                    .set_min_delay(Duration::from_millis(5))
                    .set_max_delay(Duration::from_millis(100));
                let client = redis::Client::open(url.as_str())?;
                Ok(Connection::Single(
                    ConnectionManager::new_with_config(client, config).await?,
                ))
            }
        }
    }
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Connection::Cluster(connection) => connection.req_packed_command(cmd),
            Connection::Single(connection) => connection.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Connection::Cluster(connection) => {
                connection.req_packed_commands(pipeline, offset, count)
            }
            Connection::Single(connection) => {
                connection.req_packed_commands(pipeline, offset, count)
            }
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Connection::Cluster(connection) => connection.get_db(),
            Connection::Single(connection) => connection.get_db(),
        }
    }
}

/// The connection, opened by the first call that needs it. A front-end can
/// so start before its cluster, and answers UNAVAILABLE until it is up.
pub struct LazyConnection {
    target: Target,
    timeout: Duration,
    cell: OnceCell<Connection>,
}

impl LazyConnection {
    pub fn new(target: Target, timeout: Duration) -> Self {
        LazyConnection {
            target,
            timeout,
            cell: OnceCell::new(),
        }
    }

    pub async fn get(&self) -> Result<Connection, RedisError> {
        self.cell
            .get_or_try_init(|| Connection::open(&self.target, self.timeout))
            .await
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_urls_list_their_nodes() {
        let target = Target::parse("redis-cluster://127.0.0.1:7000, 127.0.0.1:7001").unwrap();
        assert_eq!(
            target,
            Target::Cluster(vec![
                "redis://127.0.0.1:7000".into(),
                "redis://127.0.0.1:7001".into()
            ])
        );
        assert_eq!(
            Target::parse("redis-cluster://:secret@a:1,b:2").unwrap(),
            Target::Cluster(vec![
                "redis://:secret@a:1".into(),
                "redis://:secret@b:2".into()
            ])
        );
        assert_eq!(
            Target::parse("rediss-cluster://:secret@a:1,b:2").unwrap(),
            Target::Cluster(vec![
                "rediss://:secret@a:1".into(),
                "rediss://:secret@b:2".into()
            ])
        );
        assert_eq!(
            Target::parse("redis://h:6379/0").unwrap(),
            Target::Single("redis://h:6379/0".into())
        );
    }

    #[test]
    fn bad_urls_are_refused_without_their_password() {
        assert!(Target::parse("redis-cluster://").is_err());
        let error = Target::parse("memcached://user:hunter2@h:1").unwrap_err();
        assert!(!error.contains("hunter2"), "{error}");
        assert!(error.contains("redis-cluster://"), "{error}");
    }
}
