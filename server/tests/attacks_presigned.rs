//! Attacks on the HTTP API's presigned URLs (`/cache/get/{cache}/{key}`,
//! `/cache/set/{cache}/{key}`), with the harness's bounds
//! (common/attack.rs) and the HTTP port's flags (attacks_http.rs).
//!
//! - Forged signatures: a signing key's id travels in every URL it signs,
//!   so anyone who saw one can send URLs naming it, each with claims the
//!   server would honour and a signature of its own making. Each costs an
//!   ES256 check (~100 us of CPU, far more than a call); at most half the
//!   cores check signatures at once, a bounded queue waits, and the rest
//!   are shed unchecked (503), while the other clients are served.
//! - Junk tokens: huge ones (up to the header limit), malformed ones, and
//!   ones naming keys that do not exist or claims that could not be
//!   honoured: refused before the key is looked up or a signature checked.
//! - Huge bodies: a presigned set announcing or streaming far more than
//!   `--max-request-size` is refused as a plain PUT is.

use crate::attacks_http::{attackers, huge_bodies, ARGS};
use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use bytes::Bytes;
use common::attack::{self, Ctx, Outcome, Setup, Stats, Target, CACHE};
use common::redis_cluster::RedisCluster;
use http_body_util::{BodyExt, Full};
use hyper::StatusCode;
use hyper_util::rt::TokioIo;
use jiffy_server::auth::signature_gate::{SignatureGate, QUEUED_PER_CHECKER};
use jiffy_server::auth::signing_keys::sign_url_token;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::CreateSigningKeyRequest;
use serde_json::json;

/// The key the presigned URLs name (`common::attack::SMALL_KEY`).
const KEY: &str = "k";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A signing key of the target's: its JWK.
async fn signing_key(target: &Target) -> String {
    let mut control = ScsControlClient::new(target.channel().await);
    control
        .create_signing_key(CreateSigningKeyRequest { ttl_minutes: 30 })
        .await
        .unwrap()
        .into_inner()
        .key
}

/// The id of the signing key `jwk`: public, in every URL it signs.
fn key_id(jwk: &str) -> String {
    let jwk: serde_json::Value = serde_json::from_str(jwk).unwrap();
    jwk["kid"].as_str().unwrap().to_owned()
}

/// A genuine presigned get of `KEY`, valid for a minute.
fn genuine_get(jwk: &str) -> String {
    let claims = json!({"exp": now() + 60, "cache": CACHE, "key": KEY, "method": ["get"]});
    sign_url_token(jwk, &claims).unwrap()
}

/// Sends `tokens(n)` as presigned gets one after another on kept-alive
/// connections until the attack ends; counts each answer in `streams`,
/// each 503 in `shed`, and a connection the server ended in
/// `closed_by_server`.
async fn send_tokens<F>(ctx: Ctx, connections: usize, shed: Arc<AtomicU64>, tokens: F)
where
    F: Fn(u64) -> String + Clone + Send + Sync + 'static,
{
    attackers(ctx, connections, move |io, ctx| {
        let (shed, tokens) = (shed.clone(), tokens.clone());
        async move {
            let Ok((mut sender, connection)) =
                hyper::client::conn::http1::handshake::<_, Full<Bytes>>(TokioIo::new(io)).await
            else {
                return;
            };
            tokio::spawn(connection);
            while !ctx.over() {
                let n = ctx.stats.streams.load(Ordering::Relaxed);
                let uri = format!("/cache/get/{CACHE}/{KEY}?token={}", tokens(n));
                let request = hyper::Request::get(uri)
                    .header("host", "localhost")
                    .body(Full::default())
                    .unwrap();
                let Ok(response) = sender.send_request(request).await else {
                    Stats::count(&ctx.stats.closed_by_server, 1);
                    return;
                };
                if response.status() == StatusCode::SERVICE_UNAVAILABLE {
                    Stats::count(&shed, 1);
                }
                Stats::count(&ctx.stats.streams, 1);
                if response.into_body().collect().await.is_err() || sender.ready().await.is_err() {
                    Stats::count(&ctx.stats.closed_by_server, 1);
                    return;
                }
            }
        }
    })
    .await;
}

/// Requires a genuine presigned get to be answered after the attack.
async fn require_genuine_served(outcome: &mut Outcome, target: &Target, jwk: &str) {
    let addr = target.server.http_addr.unwrap();
    let uri = format!("/cache/get/{CACHE}/{KEY}?token={}", genuine_get(jwk));
    let answer = async {
        let stream = tokio::net::TcpStream::connect(addr).await.ok()?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .ok()?;
        tokio::spawn(connection);
        let request = hyper::Request::get(uri)
            .header("host", "localhost")
            .body(Full::<Bytes>::default())
            .ok()?;
        let response = sender.send_request(request).await.ok()?;
        let status = response.status();
        Some((
            status,
            response.into_body().collect().await.ok()?.to_bytes(),
        ))
    };
    let answer = tokio::time::timeout(Duration::from_secs(2), answer).await;
    let served =
        matches!(&answer, Ok(Some((StatusCode::OK, body))) if &body[..] == attack::SMALL_VALUE);
    outcome.require(
        served,
        format!("a genuine presigned get after the attack was answered {answer:?}"),
    );
}

/// `jiffy_signing_keys_total{result=...}` after the attack, or 0.
fn signing_keys_total(outcome: &Outcome, result: &str) -> f64 {
    let series = format!("jiffy_signing_keys_total{{result=\"{result}\"}}");
    common::sample(&outcome.metrics, &series).unwrap_or(0.0)
}

/// A token's header naming a key, and claims a URL of `KEY` would honour.
fn forgery_parts(kid: &str) -> (String, String) {
    let header = json!({"alg": "ES256", "typ": "JWT", "kid": kid});
    let claims = json!({"exp": now() + 600, "cache": CACHE, "key": KEY, "method": ["get"]});
    (
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string()),
    )
}

/// A signature of the right length and none of the right value: a
/// different one for each `n`.
fn forged_signature(n: u64) -> String {
    let mut signature = [0u8; 64];
    signature[..8].copy_from_slice(&n.to_le_bytes());
    URL_SAFE_NO_PAD.encode(signature)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_presigned_signatures() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(ARGS)).await;
    let jwk = signing_key(&target).await;
    // The attacker's tokens are made from what a genuine URL shows.
    let (header, claims) = forgery_parts(&key_id(&jwk));
    let addr = target.server.http_addr.unwrap();
    let shed = Arc::new(AtomicU64::new(0));
    let shed_seen = shed.clone();
    // More senders than the server lets check or wait (200 on two cores).
    let admitted = SignatureGate::checkers_on_this_machine() * (1 + QUEUED_PER_CHECKER);
    let senders = (admitted + 100).max(200);
    let name = format!("HTTP forged presigned signatures x{senders}");
    let mut outcome = attack::run(&mut target, &name, move |ctx| {
        let ctx = Ctx { addr, ..ctx };
        send_tokens(ctx, senders, shed_seen, move |n| {
            format!("{header}.{claims}.{}", forged_signature(n))
        })
    })
    .await;
    let sent = outcome.stats.streams.load(Ordering::Relaxed);
    let shed = shed.load(Ordering::Relaxed);
    let checked = signing_keys_total(&outcome, "url_signature_checked");
    eprintln!(
        "    {} answered, {shed} shed unchecked (503), {checked} signatures checked",
        sent
    );
    outcome.require(sent > 0, "no forged URL was answered");
    // More senders at once than half the cores' checks and their queue:
    // the excess is shed, not queued without end.
    outcome.require(
        signing_keys_total(&outcome, "url_shed") > 0.0 && shed > 0,
        "no forged URL was shed: every one waited for its signature to be checked",
    );
    require_genuine_served(&mut outcome, &target, &jwk).await;
    outcome.assert_bounded();
}

/// The `n`th junk token: each refused before the key is looked up or a
/// signature checked, though some name the real key `kid`.
fn junk_token(kid: &str, n: u64) -> String {
    let signature = forged_signature(n);
    let (header, claims) = forgery_parts(kid);
    let claims_of = |claims: serde_json::Value| URL_SAFE_NO_PAD.encode(claims.to_string());
    match n % 6 {
        // Expired.
        0 => {
            let expired = json!({"exp": 1, "cache": CACHE, "key": KEY, "method": ["get"]});
            format!("{header}.{}.{signature}", claims_of(expired))
        }
        // Signed, it says, for another key.
        1 => {
            let other =
                json!({"exp": now() + 600, "cache": CACHE, "key": "other", "method": ["get"]});
            format!("{header}.{}.{signature}", claims_of(other))
        }
        // Claims of 12 KiB that are not JSON, under the 16 KiB header limit.
        2 => format!("{header}.{}.{signature}", "A".repeat(12 << 10)),
        // A well-formed id of no key: over Redis, a lookup each.
        3 => {
            let (header, _) = forgery_parts(&format!("{n:032x}"));
            format!("{header}.{claims}.{signature}")
        }
        // A key id of 8 KiB.
        4 => {
            let (header, _) = forgery_parts(&"f".repeat(8 << 10));
            format!("{header}.{claims}.{signature}")
        }
        // Not a JWT.
        _ => "x.".repeat(1 << 10),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junk_presigned_tokens() {
    let _serial = attack::serialize().await;
    junk_presigned_tokens_on(None).await;
}

/// The same over a Redis Cluster, where the signing keys live in Redis: a
/// well-formed id of no key costs a lookup there, the price of a Get, and
/// the other junk none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junk_presigned_tokens_over_redis() {
    let _serial = attack::serialize().await;
    let cluster = RedisCluster::start().await;
    junk_presigned_tokens_on(Some(&cluster)).await;
}

async fn junk_presigned_tokens_on(redis: Option<&RedisCluster>) {
    let mut setup = Setup::new(ARGS);
    setup.redis = redis;
    let mut target = attack::start(setup).await;
    let jwk = signing_key(&target).await;
    let addr = target.server.http_addr.unwrap();
    let kid = key_id(&jwk);
    let store = if redis.is_some() { " over Redis" } else { "" };
    let name = format!("HTTP junk presigned tokens{store} x50");
    let mut outcome = attack::run(&mut target, &name, move |ctx| {
        let ctx = Ctx { addr, ..ctx };
        send_tokens(ctx, 50, Arc::default(), move |n| junk_token(&kid, n))
    })
    .await;
    let sent = outcome.stats.streams.load(Ordering::Relaxed);
    let checked = signing_keys_total(&outcome, "url_signature_checked");
    eprintln!("    {sent} answered, {checked} signatures checked");
    outcome.require(sent > 0, "no junk token was answered");
    outcome.require(
        outcome.metrics.contains("url_signature_checked") && checked == 0.0,
        format!(
            "{checked} junk tokens had their signatures checked; each should be refused before"
        ),
    );
    require_genuine_served(&mut outcome, &target, &jwk).await;
    outcome.assert_bounded();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_presigned_set_bodies() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(ARGS)).await;
    let jwk = signing_key(&target).await;
    let claims =
        json!({"exp": now() + 600, "cache": CACHE, "key": "huge", "method": ["set"], "ttl": 60});
    let token = sign_url_token(&jwk, &claims).unwrap();
    let target_uri: &'static str =
        Box::leak(format!("/cache/set/{CACHE}/huge?token={token}").into_boxed_str());
    huge_bodies(
        &mut target,
        "HTTP huge presigned set bodies x50",
        target_uri,
    )
    .await;
}
