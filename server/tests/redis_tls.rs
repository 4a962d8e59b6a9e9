//! TLS to a Redis store: one node (`rediss://`) and a cluster
//! (`rediss-cluster://`), each Debian's redis-server with TLS only, its
//! certificate signed by a private CA the front-end is told to trust
//! (rustls-native-certs reads `SSL_CERT_FILE`), or not.

use crate::common;

use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use common::stores::RedisNode;
use common::{free_port, in_cache, wait_until, ServerProcess};
use jiffy_server::proto::cache_client::{GetRequest, SetRequest};

/// A private CA in `dir` (`{name}.pem`), and when `server` is true a
/// certificate for 127.0.0.1 and localhost it signed (`cert.pem`, `key.pem`).
fn make_ca(dir: &Path, name: &str, server: bool) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, KeyUsagePurpose};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    std::fs::write(dir.join(format!("{name}.pem")), ca_cert.pem()).unwrap();
    if server {
        let key = KeyPair::generate().unwrap();
        let names = vec!["127.0.0.1".to_owned(), "localhost".to_owned()];
        let cert = CertificateParams::new(names)
            .unwrap()
            .signed_by(&key, &Issuer::from_params(&ca, &ca_key))
            .unwrap();
        std::fs::write(dir.join("cert.pem"), cert.pem()).unwrap();
        std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
    }
}

/// A redis-server in `dir` serving TLS only on `port`, with the
/// certificate `make_ca` left there, and `extra` arguments.
async fn tls_node(dir: &Path, port: u16, extra: &[&str]) -> RedisNode {
    let file = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let tls_port = port.to_string();
    let mut args = vec![
        "--port".to_owned(),
        "0".to_owned(),
        "--tls-port".to_owned(),
        tls_port,
        "--tls-cert-file".to_owned(),
        file("cert.pem"),
        "--tls-key-file".to_owned(),
        file("key.pem"),
        "--tls-ca-cert-file".to_owned(),
        file("ca.pem"),
        "--tls-auth-clients".to_owned(),
        "no".to_owned(),
        "--dir".to_owned(),
        file(""),
    ];
    args.extend(extra.iter().map(|arg| arg.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    RedisNode::start_with(port, &args).await
}

/// A front-end over `store` whose certificate chain leads to the CA it
/// trusts serves (a set and a get); one trusting another CA only is not
/// ready, and never reaches the store in the clear.
async fn served_only_with_its_certificate_verified(dir: &Path, store: &str) {
    let file = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--metrics-listen",
        "127.0.0.1:0",
        "--store",
        store,
        "--store-timeout",
        "500ms",
    ];
    let trusted = ServerProcess::spawn(&args, &[("SSL_CERT_FILE", &file("ca.pem"))]);
    let metrics = trusted.metrics_addr.unwrap();
    wait_until("ready over TLS", || async {
        common::http_get(metrics, "/readyz").await.0 == 200
    })
    .await;
    let mut client = common::redis_cluster::FrontEndClient::connect(&trusted).await;
    common::create_cache(&mut client.control, "c").await;
    let mut client = client.data;
    let set = SetRequest {
        cache_key: Bytes::from_static(b"k"),
        cache_body: Bytes::from_static(b"vvv"),
        ttl_milliseconds: 60_000,
    };
    client.set(in_cache("c", set)).await.unwrap();
    let get = GetRequest {
        cache_key: Bytes::from_static(b"k"),
    };
    let got = client.get(in_cache("c", get)).await.unwrap().into_inner();
    assert_eq!(got.cache_body, Bytes::from_static(b"vvv"));

    let untrusted = ServerProcess::spawn(&args, &[("SSL_CERT_FILE", &file("other-ca.pem"))]);
    let metrics = untrusted.metrics_addr.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (status, why) = common::http_get(metrics, "/readyz").await;
    assert_eq!(status, 503, "{why}");
}

fn certificates() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    make_ca(dir.path(), "ca", true);
    make_ca(dir.path(), "other-ca", false);
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rediss_store_is_reached_over_tls_with_its_certificate_verified() {
    let dir = certificates();
    let port = free_port();
    let _redis = tls_node(dir.path(), port, &[]).await;
    served_only_with_its_certificate_verified(dir.path(), &format!("rediss://127.0.0.1:{port}"))
        .await;
}

/// A one-node cluster holding every slot, its cluster bus and the slot
/// map it hands out on TLS too (`tls-cluster`): the front-end learns the
/// node from that map and reaches it over TLS.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rediss_cluster_store_is_reached_over_tls_with_its_certificate_verified() {
    let dir = certificates();
    let port = free_port();
    let _redis = tls_node(
        dir.path(),
        port,
        &["--cluster-enabled", "yes", "--tls-cluster", "yes"],
    )
    .await;
    // The setup's own client skips verification (OpenSSL's stricter checks
    // refuse rcgen's test CA); the front-end's verification is under test.
    let cli = |args: &[&str]| {
        let output = std::process::Command::new("redis-cli")
            .args(["--tls", "--insecure"])
            .args(["-p", &port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli runs");
        let text = [output.stdout, output.stderr].concat();
        String::from_utf8_lossy(&text).into_owned()
    };
    assert_eq!(
        cli(&["cluster", "addslotsrange", "0", "16383"]).trim(),
        "OK"
    );
    wait_until("the cluster's state is ok", || async {
        cli(&["cluster", "info"]).contains("cluster_state:ok")
    })
    .await;
    let store = format!("rediss-cluster://127.0.0.1:{port}");
    served_only_with_its_certificate_verified(dir.path(), &store).await;
}
