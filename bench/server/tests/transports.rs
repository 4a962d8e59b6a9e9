//! The load client end to end: the built `jiffy-bench-server` against a
//! real jiffy-server (run in this process, on free ports), over each
//! transport, reporting as `bench/server/run.sh` reads it.

use std::net::SocketAddr;
use std::process::{Command, Output};

use clap::Parser;
use jiffy_server::config::Settings;
use jiffy_server::server::{run_with, Listeners};
use serde_json::Value;
use tokio::net::TcpListener;

/// The gRPC and protosocket ports of a server that lives as long as the
/// test process, on a thread and runtime of its own.
struct Server {
    grpc: SocketAddr,
    protosocket: SocketAddr,
}

fn start_server() -> Server {
    let (started, addresses) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let flags = ["jiffy-server", "--protosocket-listen", "127.0.0.1:0"];
            let config = Settings::try_parse_from(flags).unwrap().resolve().unwrap();
            let grpc = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let protosocket = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let server = Server {
                grpc: grpc.local_addr().unwrap(),
                protosocket: protosocket.local_addr().unwrap(),
            };
            started.send(server).unwrap();
            let listeners = Listeners {
                grpc,
                metrics: None,
                protosocket: Some(protosocket),
                http: None,
                admin: None,
            };
            run_with(listeners, config, std::future::pending())
                .await
                .unwrap();
        });
    });
    addresses.recv().unwrap()
}

/// A short run of the client against `server`, with `flags` added.
fn load(server: &Server, flags: &[&str]) -> Output {
    // The server runs in this process.
    load_at(&server.grpc.to_string(), std::process::id(), flags)
}

/// A short run of the client against the gRPC `endpoint` of process `pid`.
fn load_at(endpoint: &str, pid: u32, flags: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jiffy-bench-server"))
        .args(["--endpoint", endpoint])
        .args(["--duration", "0.5", "--warmup", "0.3"])
        .args(["--concurrency", "8", "--keyspace", "50", "--json"])
        .args(["--server-pid", &pid.to_string()])
        .args(flags)
        .output()
        .unwrap()
}

fn report(output: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the client failed: {stderr}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Every call answered as Get and Set should be, and counted.
fn assert_clean(report: &Value, transport: &str) {
    assert_eq!(report["config"]["transport"], transport);
    let requests = report["requests"].as_u64().unwrap();
    assert!(requests > 0, "no requests in the window: {report}");
    assert_eq!(report["ok"].as_u64(), Some(requests), "{report}");
    assert_eq!(report["errors"], serde_json::json!({}));
    assert_eq!(report["unexpected_results"], serde_json::json!({}));
    assert_eq!(report["latency_ms"]["count"].as_u64(), Some(requests));
    // 50 keys, all set during the warmup: the gets hit, with the value set.
    assert!(report["gets"]["hits"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["gets"]["wrong_size_hits"], 0);
    assert!(report["server_cpu"]["us_per_request"].as_f64().unwrap() >= 0.0);
}

#[test]
fn grpc_load_is_answered_and_counted() {
    let server = start_server();
    assert_clean(&report(&load(&server, &[])), "grpc");
}

#[test]
fn protosocket_load_is_answered_and_counted() {
    let server = start_server();
    let endpoint = server.protosocket.to_string();
    let flags = [
        "--transport",
        "protosocket",
        "--protosocket-endpoint",
        &endpoint,
    ];
    let report = report(&load(&server, &flags));
    assert_clean(&report, "protosocket");
    assert_eq!(report["config"]["protosocket_endpoint"], endpoint);
}

#[test]
fn protosocket_to_a_port_that_is_not_fails_the_run() {
    let server = start_server();
    // The gRPC port answers Authenticate with HTTP/2 frames.
    let endpoint = server.grpc.to_string();
    let flags = [
        "--transport",
        "protosocket",
        "--protosocket-endpoint",
        &endpoint,
    ];
    let output = load(&server, &flags);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Authenticate"), "{stderr}");
}

/// The floor server does the Get and Set work the client checks (a Get
/// hits with the value a Set stored), so its CPU per call is a real call's.
#[test]
fn the_h2_floor_answers_get_and_set_as_jiffy_server_does() {
    use std::io::{BufRead, BufReader};
    let mut floor = Command::new(env!("CARGO_BIN_EXE_jiffy-bench-h2-floor"))
        .arg("127.0.0.1:0")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(floor.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let endpoint = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    let output = load_at(&endpoint, floor.id(), &[]);
    floor.kill().unwrap();
    floor.wait().unwrap();
    assert_clean(&report(&output), "grpc");
}
