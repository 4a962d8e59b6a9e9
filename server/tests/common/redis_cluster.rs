//! A real Redis Cluster for the scale-out tests, and jiffy-server processes
//! over it. `tests/redis-cluster.sh` starts six redis-server processes
//! (three masters, three replicas) on free loopback ports; the guard here
//! stops them when dropped and causes failures with the real means an
//! operator would meet: SIGKILL, SIGSTOP, `CLUSTER FAILOVER TAKEOVER`.
//!
//! Redis is driven through `redis-cli`, not a client library: the tests then
//! depend on nothing the backend under test also uses.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};

use super::ServerProcess;

/// How long a node may take to change role or catch up before a test fails.
const NODE_WAIT: Duration = Duration::from_secs(10);

/// A running cluster; every node is killed when this is dropped.
pub struct RedisCluster {
    dir: tempfile::TempDir,
    nodes: Vec<Node>,
    /// Ports of the nodes this test killed: asking them anything would fail.
    killed: Mutex<Vec<u16>>,
}

/// One redis-server process, as the start script left it.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub port: u16,
    pub pid: u32,
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/redis-cluster.sh")
}

impl RedisCluster {
    /// Starts a cluster and waits until every node serves (a few seconds).
    pub async fn start() -> RedisCluster {
        tokio::task::spawn_blocking(RedisCluster::start_blocking)
            .await
            .unwrap()
    }

    fn start_blocking() -> RedisCluster {
        let dir = tempfile::Builder::new()
            .prefix("redis-cluster")
            .tempdir()
            .unwrap();
        let output = Command::new("bash")
            .arg(script())
            .arg("start")
            .arg(dir.path())
            .output()
            .expect("bash runs tests/redis-cluster.sh");
        assert!(
            output.status.success(),
            "tests/redis-cluster.sh start failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let listing = std::fs::read_to_string(dir.path().join("nodes.txt")).unwrap();
        let nodes = listing
            .lines()
            .map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                Node {
                    port: fields[0].parse().unwrap(),
                    pid: fields[1].parse().unwrap(),
                }
            })
            .collect();
        RedisCluster {
            dir,
            nodes,
            killed: Mutex::new(Vec::new()),
        }
    }

    /// The `--store` value that points jiffy-server at every node.
    pub fn store_url(&self) -> String {
        let addresses: Vec<String> = self
            .nodes
            .iter()
            .map(|node| format!("127.0.0.1:{}", node.port))
            .collect();
        format!("redis-cluster://{}", addresses.join(","))
    }

    /// A jiffy-server process (the release build under `make test`) over
    /// this cluster, with `extra` flags.
    pub fn front_end(&self, extra: &[&str]) -> ServerProcess {
        let store = self.store_url();
        let mut args = vec![
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--store",
            &store,
        ];
        args.extend_from_slice(extra);
        ServerProcess::spawn(&args, &[])
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    fn node(&self, port: u16) -> Node {
        *self
            .nodes
            .iter()
            .find(|node| node.port == port)
            .unwrap_or_else(|| panic!("no node on port {port}"))
    }

    fn alive(&self) -> Vec<u16> {
        let killed = self.killed.lock().unwrap();
        self.nodes
            .iter()
            .map(|node| node.port)
            .filter(|port| !killed.contains(port))
            .collect()
    }

    /// The nodes that are masters now, by port (not while any is paused:
    /// a stopped node never answers).
    pub async fn masters(&self) -> Vec<u16> {
        let mut masters = Vec::new();
        for port in self.alive() {
            if role(port).await == "master" {
                masters.push(port);
            }
        }
        masters
    }

    /// The port of the replica `master` feeds now.
    pub async fn replica_of(&self, master: u16) -> u16 {
        let info = redis_cli(master, &["INFO", "replication"]).await;
        let replica = info_field(&info, "slave0")
            .unwrap_or_else(|| panic!("master {master} has no replica:\n{info}"));
        replica
            .split(',')
            .find_map(|pair| pair.strip_prefix("port="))
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no port in slave0:{replica}"))
    }

    /// SIGKILL: the node dies at once, with whatever it has not replicated.
    pub fn kill(&self, port: u16) {
        let node = self.node(port);
        signal(node.pid, "KILL");
        wait_exited(node.pid);
        self.killed.lock().unwrap().push(port);
    }

    pub fn kill_all(&self) {
        for port in self.alive() {
            self.kill(port);
        }
    }

    /// SIGSTOP: the node keeps its sockets open and answers nothing, as a
    /// hung host would.
    pub fn pause(&self, port: u16) {
        signal(self.node(port).pid, "STOP");
    }

    /// SIGCONT: a paused node carries on.
    pub fn resume(&self, port: u16) {
        signal(self.node(port).pid, "CONT");
    }

    /// Makes `replica` a master without its master's agreement (`CLUSTER
    /// FAILOVER TAKEOVER`, what an operator does when the master is gone),
    /// and waits until it says it is one. A replica the cluster has already
    /// promoted by itself is left as it is.
    pub async fn promote(&self, replica: u16) {
        let answer = redis_cli(replica, &["CLUSTER", "FAILOVER", "TAKEOVER"]).await;
        let deadline = Instant::now() + NODE_WAIT;
        while role(replica).await != "master" {
            assert!(
                Instant::now() < deadline,
                "{replica} is not a master {NODE_WAIT:?} after TAKEOVER (answered {answer:?})"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until `replica` has applied everything `master` had taken in
    /// when this was called: a write `master` acknowledged before the call
    /// survives the loss of `master` once `replica` takes over. Returns the
    /// replication offset reached.
    pub async fn wait_synced(&self, master: u16, replica: u16) -> u64 {
        let info = redis_cli(master, &["INFO", "replication"]).await;
        let target = offset(&info, "master_repl_offset");
        let deadline = Instant::now() + NODE_WAIT;
        loop {
            let info = redis_cli(replica, &["INFO", "replication"]).await;
            if offset(&info, "slave_repl_offset") >= target {
                return target;
            }
            assert!(
                Instant::now() < deadline,
                "replica {replica} did not reach offset {target} of {master} in {NODE_WAIT:?}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Keys held by the node on `port`.
    pub async fn dbsize(&self, port: u16) -> u64 {
        let answer = redis_cli(port, &["DBSIZE"]).await;
        answer
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("DBSIZE answered {answer:?}"))
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .arg("stop")
            .arg(self.dir.path())
            .status();
    }
}

/// Data- and control-plane clients of one front-end, over one connection.
#[derive(Clone)]
pub struct FrontEndClient {
    pub data: ScsClient<Channel>,
    pub control: ScsControlClient<Channel>,
}

impl FrontEndClient {
    pub async fn connect(server: &ServerProcess) -> FrontEndClient {
        let channel = Endpoint::from_shared(server.url())
            .unwrap()
            .connect()
            .await
            .unwrap();
        FrontEndClient {
            data: ScsClient::new(channel.clone()),
            control: ScsControlClient::new(channel),
        }
    }
}

/// `request` with a gRPC deadline (the `grpc-timeout` header).
pub fn with_deadline<T>(mut request: Request<T>, deadline: Duration) -> Request<T> {
    request.set_timeout(deadline);
    request
}

/// How a call ended, as its caller saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    Answered,
    /// The front-end answered with this status.
    Failed(Code),
    /// The client stopped waiting at the deadline, the front-end silent:
    /// tonic reports its own timer as CANCELLED "Timeout expired".
    ClientGaveUp,
}

impl Ending {
    pub fn of<T>(result: &Result<T, Status>) -> Ending {
        match result {
            Ok(_) => Ending::Answered,
            Err(status)
                if status.code() == Code::Cancelled && status.message() == "Timeout expired" =>
            {
                Ending::ClientGaveUp
            }
            Err(status) => Ending::Failed(status.code()),
        }
    }
}

/// Runs `call`, returning its result and how long it took.
pub async fn timed<T>(call: impl std::future::Future<Output = T>) -> (T, Duration) {
    let start = Instant::now();
    let result = call.await;
    (result, start.elapsed())
}

/// What `redis-cli` prints for `args` sent to the node on `port`; panics if
/// it cannot reach the node. Error replies come back as text (`ERR ...`).
pub async fn redis_cli(port: u16, args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &port.to_string()])
            .args(&args)
            .output()
            .expect("redis-cli runs (apt-get install redis-server)")
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "redis-cli -p {port} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The value of `field` in an INFO answer (`field:value` lines).
pub fn info_field(info: &str, field: &str) -> Option<String> {
    info.lines().find_map(|line| {
        let value = line.trim_end().strip_prefix(field)?.strip_prefix(':')?;
        Some(value.to_owned())
    })
}

fn offset(info: &str, field: &str) -> u64 {
    info_field(info, field)
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in:\n{info}"))
}

/// `master` or `slave`: the first line of ROLE.
async fn role(port: u16) -> String {
    let answer = redis_cli(port, &["ROLE"]).await;
    answer.lines().next().unwrap_or_default().to_owned()
}

fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args(["-s", name, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -s {name} {pid} failed");
}

/// Waits until `pid` is gone or a zombie: the daemonized nodes are not our
/// children, so whoever adopted them reaps them, if anyone does.
fn wait_exited(pid: u32) {
    let deadline = Instant::now() + NODE_WAIT;
    loop {
        match std::fs::read_to_string(format!("/proc/{pid}/status")) {
            Err(_) => return,
            Ok(status) if status.lines().any(|l| l.starts_with("State:\tZ")) => return,
            Ok(_) => {}
        }
        assert!(Instant::now() < deadline, "{pid} outlived SIGKILL");
        std::thread::sleep(Duration::from_millis(5));
    }
}
