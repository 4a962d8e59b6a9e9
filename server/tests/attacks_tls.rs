//! Attacks of attacks.rs over TLS (`--tls-cert`/`--tls-key`, a certificate
//! made by rcgen): the same protection must hold on the TLS listener, where
//! each connection also costs a handshake. The raw frames go through
//! tokio-rustls; the normal client is tonic's, over TLS too.

use crate::common;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use common::attack::{self, attack_time, BoxIo, IoFuture, Outcome, ServerReset, Setup, Transport};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};
use tokio_rustls::TlsConnector;

fn tls() -> Transport {
    Transport::tls(|addr: SocketAddr, cert_der: Vec<u8>| -> IoFuture {
        Box::pin(async move {
            let mut roots = RootCertStore::empty();
            roots
                .add(CertificateDer::from(cert_der))
                .map_err(std::io::Error::other)?;
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let mut config = ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(std::io::Error::other)?
                .with_root_certificates(roots)
                .with_no_client_auth();
            config.alpn_protocols = vec![b"h2".to_vec()];
            let tcp = TcpStream::connect(addr).await?;
            tcp.set_nodelay(true)?;
            let name = ServerName::try_from("localhost").unwrap();
            let stream = TlsConnector::from(Arc::new(config))
                .connect(name, tcp)
                .await?;
            Ok(Box::new(stream) as BoxIo)
        })
    })
}

fn setup(extra_args: &'static [&'static str]) -> Setup<'static> {
    let mut setup = Setup::new(extra_args);
    setup.transport = tls();
    setup
}

fn closed(outcome: &Outcome) -> u64 {
    outcome.stats.closed_by_server.load(Ordering::Relaxed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rapid_reset_over_tls() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(setup(&[])).await;
    let outcome = attack::run(&mut target, "rapid reset, 1 connection", |ctx| {
        attack::rapid_reset(ctx, 1)
    })
    .await;
    outcome.assert_bounded();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_resets_by_self_priority_over_tls_client_not_reading() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(setup(&[])).await;
    let outcome = attack::run(
        &mut target,
        "MadeYouReset PRIORITY self, not reading",
        |ctx| attack::made_you_reset(ctx, ServerReset::SelfPriority, false, 1),
    )
    .await;
    outcome.assert_bounded();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_resets_by_self_priority_over_tls_client_reading() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(setup(&[])).await;
    let mut outcome = attack::run(&mut target, "MadeYouReset PRIORITY self, reading", |ctx| {
        attack::made_you_reset(ctx, ServerReset::SelfPriority, true, 1)
    })
    .await;
    let closed = closed(&outcome);
    outcome.require(
        closed > 0,
        "the server never closed a connection that kept making it reset streams",
    );
    outcome.require_closes_counted(&["calm", "protocol"]);
    outcome.assert_bounded();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_window_clients_over_tls() {
    let _serial = attack::serialize().await;
    let mut setup = setup(&["--send-timeout", "3s"]);
    setup.big_value = true;
    let mut target = attack::start(setup).await;
    let mut outcome = attack::run(&mut target, "zero window, 4x100 Gets of 4 MiB", |ctx| {
        attack::zero_window(ctx, 4, 100, 0)
    })
    .await;
    // Closed after the send timeout, or sooner by the in-flight bound.
    let closed = closed(&outcome);
    outcome.require(
        closed > 0,
        "no connection whose client never reads its answers was closed",
    );
    outcome.require_closes_counted(&["send", "in_flight"]);
    outcome.assert_bounded();
}

/// TCP connections that start a TLS handshake and never finish it (a
/// ClientHello cut short): the handshake deadline closes them, and new
/// clients keep connecting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_tls_handshakes() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(setup(&["--handshake-timeout", "2s"])).await;
    // The raw connector of this attack: TCP, then half a ClientHello.
    let connect: attack::RawConnector = Arc::new(|addr| {
        Box::pin(async move {
            use tokio::io::AsyncWriteExt;
            let mut tcp = TcpStream::connect(addr).await?;
            tcp.write_all(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
                .await?;
            Ok(Box::new(tcp) as BoxIo)
        })
    });
    let mut outcome = attack::run(
        &mut target,
        "2,000 stalled TLS handshakes",
        move |mut ctx| {
            ctx.connect = connect;
            attack::silent_connections(ctx, 2_000, Some(Duration::from_millis(3_500)))
        },
    )
    .await;
    let outlived = outcome.stats.outlived.load(Ordering::Relaxed);
    outcome.require(
        outlived == 0,
        format!("{outlived} stalled TLS handshakes were still open 3.5 s after they began"),
    );
    if attack_time() >= Duration::from_secs_f64(3.5) {
        outcome.require(
            closed(&outcome) > 0,
            "the server closed no stalled TLS handshake",
        );
        outcome.require_closes_counted(&["handshake_timeout"]);
    }
    outcome.assert_bounded();
}
