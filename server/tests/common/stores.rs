//! The two stores a collection test runs on: the embedded store, and a real
//! `redis-server` started for the test. `on_both_stores!` runs each test
//! once on each, since the two must answer every call alike.

use std::net::TcpListener as StdListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::TestServer;

/// Runs each `async fn test(store: Store)` named once on the embedded store
/// and once over a real redis-server, as `embedded::test` and
/// `over_redis::test`.
#[allow(unused_macros)] // only the collection tests use it
macro_rules! on_both_stores {
    ($($test:ident),* $(,)?) => {
        mod embedded {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $test() {
                    super::$test(crate::common::stores::Store::Embedded).await
                }
            )*
        }
        mod over_redis {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $test() {
                    super::$test(crate::common::stores::Store::Redis).await
                }
            )*
        }
    };
}
#[allow(unused_imports)] // only the collection tests use it
pub(crate) use on_both_stores;

/// The small limits the collection types' bad-input tests run under, each
/// low enough for a test to pass it with a few elements.
pub const SMALL_LIMITS: &[&str] = &[
    "--max-key-size",
    "16B",
    "--max-value-size",
    "1KiB",
    "--max-ttl",
    "1h",
    "--max-collection-elements",
    "5",
    "--max-request-items",
    "4",
];

/// A `redis-server` on a free loopback port, killed when dropped.
pub struct RedisNode {
    child: Child,
}

impl RedisNode {
    /// A `redis-server` on `port`, once it accepts connections (started
    /// again on the same port, it brings a store back).
    pub async fn start(port: u16) -> RedisNode {
        RedisNode::start_with(port, &["--port", &port.to_string()]).await
    }

    /// A `redis-server` on a free port, and its `redis://` URL.
    pub async fn on_free_port() -> (RedisNode, String) {
        let port = StdListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let redis = RedisNode::start(port).await;
        (redis, format!("redis://127.0.0.1:{port}"))
    }

    /// A `redis-server` with `args` (which make it listen on `port`, in
    /// the clear or with TLS), once `port` accepts connections.
    pub async fn start_with(port: u16, args: &[&str]) -> RedisNode {
        let child = Command::new("redis-server")
            .args(args)
            .args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is needed (apt-get install redis-server)");
        let redis = RedisNode { child };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        redis
    }
}

impl Drop for RedisNode {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The store a test's server runs on.
#[derive(Clone, Copy)]
pub enum Store {
    Embedded,
    Redis,
}

impl Store {
    /// A server with `args` on this store, and the Redis it uses, if any.
    pub async fn start(self, args: &[&str]) -> (TestServer, Option<RedisNode>) {
        match self {
            Store::Embedded => (TestServer::with_args(args).await, None),
            Store::Redis => {
                let (redis, url) = RedisNode::on_free_port().await;
                let args: Vec<&str> = ["--store", &url]
                    .into_iter()
                    .chain(args.iter().copied())
                    .collect();
                (TestServer::with_args(&args).await, Some(redis))
            }
        }
    }
}
