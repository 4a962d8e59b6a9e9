//! Webhooks against a receiver in the test (a small hyper server): every
//! message once, in order, signed as Momento signs (checked as the official
//! SDKs' `validateWebhookRequest` does: HMAC SHA3-256 of the raw body, in
//! hex, keyed with the secret); through a restart of the receiver; the
//! management calls, their limits and who may make them; and the
//! destinations `--webhook-allow` refuses.

use crate::common;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use common::redis_cluster::RedisCluster;
use common::topics::{publish, Pubsub};
use common::{
    assert_status, create_cache, process_metric, sample, with_token, ServerProcess, TestServer,
};
use hmac::{Hmac, Mac};
use http_body_util::BodyExt;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use jiffy_server::auth::{CacheScope, Role, Secret};
use jiffy_server::proto::cache_client::pubsub::pubsub_client::PubsubClient;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::DeleteCacheRequest;
use jiffy_server::proto::webhook::webhook_client::WebhookClient;
use jiffy_server::proto::webhook::webhook_destination::Kind;
use jiffy_server::proto::webhook::{
    DeleteWebhookRequest, GetWebhookSecretRequest, ListWebhookRequest, PutWebhookRequest,
    RotateWebhookSecretRequest, Webhook, WebhookDestination, WebhookId,
};
use sha3::Sha3_256;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tonic::transport::{Channel, Endpoint};
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

const CACHE: &str = "hooks";

/// One POST the receiver got.
#[derive(Debug)]
struct Received {
    signature: String,
    body: Bytes,
}

impl Received {
    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// What the official helper checks.
    fn signed_with(&self, secret: &str) -> bool {
        let mut mac = Hmac::<Sha3_256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(&self.body);
        let expected: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        expected == self.signature
    }
}

/// A receiver on a port of its own, answering 200 to every POST; stopped
/// (every connection closed) and started again on the same port.
struct Receiver {
    addr: SocketAddr,
    tasks: JoinSet<()>,
    sender: mpsc::UnboundedSender<Received>,
}

impl Receiver {
    async fn start() -> (Receiver, mpsc::UnboundedReceiver<Received>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (sender, received) = mpsc::unbounded_channel();
        let mut receiver = Receiver {
            addr: listener.local_addr().unwrap(),
            tasks: JoinSet::new(),
            sender,
        };
        receiver.serve(listener);
        (receiver, received)
    }

    fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    fn serve(&mut self, listener: TcpListener) {
        let sender = self.sender.clone();
        self.tasks.spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                let sender = sender.clone();
                connections.spawn(async move {
                    let service =
                        service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                            let sender = sender.clone();
                            async move {
                                let signature = request
                                    .headers()
                                    .get("momento-signature")
                                    .map(|v| v.to_str().unwrap().to_owned())
                                    .unwrap_or_default();
                                let body = request.into_body().collect().await.unwrap().to_bytes();
                                let _ = sender.send(Received { signature, body });
                                Ok::<_, Infallible>(hyper::Response::new(String::new()))
                            }
                        });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(socket), service)
                        .await;
                });
            }
        });
    }

    /// Closes the port and every connection.
    fn stop(&mut self) {
        self.tasks.abort_all();
    }

    async fn restart(&mut self) {
        while self.tasks.join_next().await.is_some() {}
        let listener = TcpListener::bind(self.addr).await.unwrap();
        self.serve(listener);
    }
}

async fn next(received: &mut mpsc::UnboundedReceiver<Received>) -> Received {
    tokio::time::timeout(Duration::from_secs(20), received.recv())
        .await
        .expect("a delivery within 20 s")
        .unwrap()
}

/// Nothing more arrives for a while.
async fn quiet(received: &mut mpsc::UnboundedReceiver<Received>) {
    let more = tokio::time::timeout(Duration::from_millis(500), received.recv()).await;
    assert!(more.is_err(), "an extra delivery: {more:?}");
}

fn hook(name: &str, topic: &str, url: &str) -> PutWebhookRequest {
    PutWebhookRequest {
        webhook: Some(Webhook {
            webhook_id: Some(id(name)),
            topic_name: topic.to_owned(),
            destination: Some(WebhookDestination {
                kind: Some(Kind::PostUrl(url.to_owned())),
            }),
        }),
    }
}

/// Rotates the secret of webhook `name` and answers the new one.
async fn rotate(hooks: &mut WebhookClient<Channel>, name: &str) -> String {
    let request = RotateWebhookSecretRequest {
        webhook_id: Some(id(name)),
    };
    let answer = hooks.rotate_webhook_secret(request).await.unwrap();
    answer.into_inner().secret_string
}

/// The webhooks of the cache.
async fn list(hooks: &mut WebhookClient<Channel>) -> Vec<Webhook> {
    let request = ListWebhookRequest {
        cache_name: CACHE.to_owned(),
    };
    hooks
        .list_webhooks(request)
        .await
        .unwrap()
        .into_inner()
        .webhook
}

/// Puts webhook `name` and answers its secret.
async fn put(hooks: &mut WebhookClient<Channel>, name: &str, topic: &str, url: &str) -> String {
    hooks
        .put_webhook(hook(name, topic, url))
        .await
        .unwrap()
        .into_inner()
        .secret_string
}

fn id(name: &str) -> WebhookId {
    WebhookId {
        cache_name: CACHE.to_owned(),
        webhook_name: name.to_owned(),
    }
}

async fn start(args: &[&str]) -> (TestServer, WebhookClient<Channel>, Pubsub) {
    let server = TestServer::with_args(args).await;
    create_cache(&mut server.control().await, CACHE).await;
    let channel = server.channel().await;
    (
        server,
        WebhookClient::new(channel.clone()),
        PubsubClient::new(channel),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn every_message_arrives_once_in_order_signed() {
    let (server, mut hooks, mut topics) = start(&[]).await;
    let (receiver, mut received) = Receiver::start().await;
    let secret = put(&mut hooks, "orders", "orders", &receiver.url()).await;
    for n in 1..=20 {
        publish(&mut topics, CACHE, "orders", &format!("m{n}"))
            .await
            .unwrap();
    }
    publish(&mut topics, CACHE, "elsewhere", "not for this webhook")
        .await
        .unwrap();
    let mut first = None;
    for n in 1..=20u64 {
        let got = next(&mut received).await;
        assert!(got.signed_with(&secret), "message {n} signed");
        let event = got.json();
        assert_eq!(event["text"], format!("m{n}"));
        assert_eq!(event["cache"], CACHE);
        assert_eq!(event["topic"], "orders");
        let seq = event["topic_sequence_number"].as_u64().unwrap();
        assert_eq!(seq, *first.get_or_insert(seq) + n - 1, "in order");
        assert!(event["publish_timestamp"].as_u64().unwrap() > 0);
    }
    quiet(&mut received).await;

    // A rotated secret signs what comes after it; the old one no longer does.
    let rotated = rotate(&mut hooks, "orders").await;
    assert_ne!(rotated, secret);
    publish(&mut topics, CACHE, "orders", "after")
        .await
        .unwrap();
    let got = next(&mut received).await;
    assert!(got.signed_with(&rotated) && !got.signed_with(&secret));
    // Counted once the receiver's answer is in, a moment after it got the POST.
    let delivered = "jiffy_webhook_deliveries_total{result=\"delivered\"}";
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while sample(&server.metrics().await, delivered) != Some(21.0) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{}",
            server.metrics().await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let metrics = server.metrics().await;
    assert_eq!(sample(&metrics, "jiffy_webhooks"), Some(1.0));
    assert_eq!(
        sample(
            &metrics,
            "jiffy_webhook_deliveries_total{result=\"failed\"}"
        ),
        Some(0.0)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn messages_published_while_the_receiver_is_down_arrive_after() {
    let (_server, mut hooks, topics) = start(&[]).await;
    receiver_down_and_back(&mut hooks, &mut [topics]).await;
}

/// Message `n` is published through `topics[n % topics.len()]`.
async fn publish_numbered(
    topics: &mut [Pubsub],
    topic: &str,
    numbers: std::ops::RangeInclusive<u64>,
) {
    for n in numbers {
        let client = &mut topics[n as usize % topics.len()];
        publish(client, CACHE, topic, &format!("m{n}"))
            .await
            .unwrap();
    }
}

/// A webhook's receiver stops while messages are published, and gets them,
/// in order, once it is back.
async fn receiver_down_and_back(hooks: &mut WebhookClient<Channel>, topics: &mut [Pubsub]) {
    let (mut receiver, mut received) = Receiver::start().await;
    hooks
        .put_webhook(hook("h", "t", &receiver.url()))
        .await
        .unwrap();
    publish_numbered(topics, "t", 1..=5).await;
    for n in 1..=5 {
        assert_eq!(next(&mut received).await.json()["text"], format!("m{n}"));
    }
    receiver.stop();
    publish_numbered(topics, "t", 6..=10).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    receiver.restart().await;
    for n in 6..=10 {
        assert_eq!(next(&mut received).await.json()["text"], format!("m{n}"));
    }
    quiet(&mut received).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn destinations_outside_the_allow_list_are_refused() {
    let (_server, mut hooks, _) = start(&[]).await;
    for url in [
        "http://10.0.0.1:8080/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[fd00::1]/hook",
    ] {
        let refused = hooks.put_webhook(hook("h", "t", url)).await;
        assert_status(refused, Code::PermissionDenied, None);
    }
    for url in ["ftp://127.0.0.1/x", "not a url", "http:///path"] {
        let refused = hooks.put_webhook(hook("h", "t", url)).await;
        assert_status(refused, Code::InvalidArgument, None);
    }
    let listed = hooks
        .list_webhooks(ListWebhookRequest {
            cache_name: CACHE.to_owned(),
        })
        .await
        .unwrap();
    assert!(listed.into_inner().webhook.is_empty(), "nothing was put");

    let (_server, mut hooks, _) = start(&["--webhook-allow", "10.0.0.0/8"]).await;
    hooks
        .put_webhook(hook("h", "t", "http://10.0.0.1:8080/hook"))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn put_list_describe_delete_and_their_limits() {
    let (_server, mut hooks, _) = start(&[]).await;
    let url = "http://127.0.0.1:9/hook";
    let secret = hooks
        .put_webhook(hook("a", "t1", url))
        .await
        .unwrap()
        .into_inner()
        .secret_string;
    // Put again: the same webhook, the same secret; changed, still the secret.
    let again = hooks.put_webhook(hook("a", "t1", url)).await.unwrap();
    assert_eq!(again.into_inner().secret_string, secret);
    let changed = hooks.put_webhook(hook("a", "t2", url)).await.unwrap();
    assert_eq!(changed.into_inner().secret_string, secret);
    hooks.put_webhook(hook("b", "t1", url)).await.unwrap();
    let list = |hooks: &mut WebhookClient<Channel>| {
        let mut hooks = hooks.clone();
        async move {
            hooks
                .list_webhooks(ListWebhookRequest {
                    cache_name: CACHE.to_owned(),
                })
                .await
                .unwrap()
                .into_inner()
                .webhook
        }
    };
    let listed = list(&mut hooks).await;
    let names: Vec<_> = listed
        .iter()
        .map(|w| {
            (
                w.webhook_id.as_ref().unwrap().webhook_name.as_str(),
                w.topic_name.as_str(),
            )
        })
        .collect();
    assert_eq!(names, [("a", "t2"), ("b", "t1")]);
    assert_eq!(
        listed[0].destination.as_ref().unwrap().kind,
        Some(Kind::PostUrl(url.to_owned()))
    );
    let described = hooks
        .get_webhook_secret(GetWebhookSecretRequest {
            cache_name: CACHE.to_owned(),
            webhook_name: "a".to_owned(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (described.webhook_name.as_str(), described.secret_string),
        ("a", secret)
    );

    // Delete, twice: the second finds it gone, which is success.
    for _ in 0..2 {
        hooks
            .delete_webhook(DeleteWebhookRequest {
                webhook_id: Some(id("a")),
            })
            .await
            .unwrap();
    }
    assert_eq!(list(&mut hooks).await.len(), 1);
    let gone = hooks
        .get_webhook_secret(GetWebhookSecretRequest {
            cache_name: CACHE.to_owned(),
            webhook_name: "a".to_owned(),
        })
        .await;
    assert_status(gone, Code::NotFound, None);

    // Limits: webhooks per cache, name and URL length; a cache must exist.
    for n in 0..9 {
        hooks
            .put_webhook(hook(&format!("n{n}"), "t", url))
            .await
            .unwrap();
    }
    let full = hooks.put_webhook(hook("one-too-many", "t", url)).await;
    assert_status(full, Code::ResourceExhausted, None);
    let long_name = hooks.put_webhook(hook(&"n".repeat(129), "t", url)).await;
    assert_status(long_name, Code::InvalidArgument, None);
    let long_url = format!("http://127.0.0.1/{}", "p".repeat(2048));
    let long_url = hooks.put_webhook(hook("b", "t", &long_url)).await;
    assert_status(long_url, Code::InvalidArgument, None);
    let mut nowhere = hook("x", "t", url);
    nowhere
        .webhook
        .as_mut()
        .unwrap()
        .webhook_id
        .as_mut()
        .unwrap()
        .cache_name = "nope".into();
    assert_status(hooks.put_webhook(nowhere).await, Code::NotFound, None);
}

const SECRET: &[u8] = b"a-test-secret-that-is-long-enough-for-hs256";

fn signed(caches: CacheScope, role: Role) -> String {
    common::signed_token(SECRET, caches, role, None)
}

#[tokio::test(flavor = "multi_thread")]
async fn only_admin_tokens_of_the_cache_manage_its_webhooks() {
    let mut config = common::config(&[]);
    config.auth = Some(Secret::from_bytes(SECRET).unwrap());
    let server = TestServer::with_config(config).await;
    let admin = signed(CacheScope::All, Role::Admin);
    let mut control = server.control().await;
    let create = jiffy_server::proto::control_client::CreateCacheRequest {
        cache_name: CACHE.to_owned(),
    };
    control
        .create_cache(with_token(create, &admin))
        .await
        .unwrap();
    let mut hooks = WebhookClient::new(server.channel().await);
    let put = || hook("h", "t", "http://127.0.0.1:9/hook");
    for refused in [
        signed(CacheScope::All, Role::Write),
        signed(CacheScope::All, Role::Read),
        signed(CacheScope::Names(vec!["other".into()]), Role::Admin),
    ] {
        let answer = hooks.put_webhook(with_token(put(), &refused)).await;
        assert_status(answer, Code::PermissionDenied, None);
    }
    assert_status(hooks.put_webhook(put()).await, Code::Unauthenticated, None);
    let scoped = signed(CacheScope::Names(vec![CACHE.into()]), Role::Admin);
    hooks.put_webhook(with_token(put(), &scoped)).await.unwrap();
    hooks.put_webhook(with_token(put(), &admin)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn past_the_topics_buffer_the_oldest_waiting_messages_are_dropped_and_counted() {
    let (server, mut hooks, mut topics) = start(&["--topic-buffer-messages", "5"]).await;
    let (mut receiver, mut received) = Receiver::start().await;
    hooks
        .put_webhook(hook("h", "t", &receiver.url()))
        .await
        .unwrap();
    receiver.stop();
    // m1 is taken and retried; m2..m12 wait in the buffer, which keeps 5.
    for n in 1..=12 {
        publish(&mut topics, CACHE, "t", &format!("m{n}"))
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    receiver.restart().await;
    for n in [1, 8, 9, 10, 11, 12] {
        assert_eq!(next(&mut received).await.json()["text"], format!("m{n}"));
    }
    quiet(&mut received).await;
    let dropped = "jiffy_webhook_deliveries_total{result=\"dropped\"}";
    assert_eq!(sample(&server.metrics().await, dropped), Some(6.0));
}

// Over a Redis Cluster: the webhooks kept in the store, delivered by the
// one front-end holding each webhook's lease (docs/WEBHOOKS.md).

async fn connect(server: &ServerProcess) -> Channel {
    let endpoint = Endpoint::from_shared(server.url()).unwrap();
    endpoint.connect().await.unwrap()
}

/// Two front-ends over a fresh cluster, the cache made through the first;
/// a webhook client and a topic client on each.
async fn over_redis() -> (
    RedisCluster,
    [ServerProcess; 2],
    [WebhookClient<Channel>; 2],
    [Pubsub; 2],
) {
    let cluster = RedisCluster::start().await;
    // Room for a loaded test machine: the default 1 s is for production.
    let args = ["--store-timeout", "5s"];
    let servers = [cluster.front_end(&args), cluster.front_end(&args)];
    let channels = [connect(&servers[0]).await, connect(&servers[1]).await];
    create_cache(&mut ScsControlClient::new(channels[0].clone()), CACHE).await;
    let hooks = [
        WebhookClient::new(channels[0].clone()),
        WebhookClient::new(channels[1].clone()),
    ];
    let topics = [
        PubsubClient::new(channels[0].clone()),
        PubsubClient::new(channels[1].clone()),
    ];
    (cluster, servers, hooks, topics)
}

/// Nothing more arrives for longer than a lease's renewal and a sync.
async fn quiet_for_a_while(received: &mut mpsc::UnboundedReceiver<Received>) {
    let more = tokio::time::timeout(Duration::from_secs(3), received.recv()).await;
    assert!(more.is_err(), "an extra delivery: {more:?}");
}

/// What each front-end's metrics say of `series`.
async fn on_each(servers: &[ServerProcess], series: &str) -> Vec<f64> {
    let mut values = Vec::new();
    for server in servers {
        values.push(process_metric(server, series).await);
    }
    values
}

/// The text of each delivery until `count` have come, checked signed with `secret`.
async fn texts(
    received: &mut mpsc::UnboundedReceiver<Received>,
    count: usize,
    secret: &str,
) -> Vec<String> {
    let mut texts = Vec::new();
    for _ in 0..count {
        let got = next(received).await;
        assert!(got.signed_with(secret), "signed with the webhook's secret");
        texts.push(got.json()["text"].as_str().unwrap().to_owned());
    }
    texts
}

fn numbered(numbers: std::ops::RangeInclusive<u64>) -> Vec<String> {
    numbers.map(|n| format!("m{n}")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn over_redis_two_front_ends_deliver_each_message_once_in_order_signed() {
    let (_cluster, servers, mut hooks, mut topics) = over_redis().await;
    let (receiver, mut received) = Receiver::start().await;
    let secret = put(&mut hooks[0], "orders", "orders", &receiver.url()).await;
    // The other front-end knows it: the store keeps it.
    let listed = list(&mut hooks[1]).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].topic_name, "orders");
    let described = hooks[1]
        .get_webhook_secret(GetWebhookSecretRequest {
            cache_name: CACHE.to_owned(),
            webhook_name: "orders".to_owned(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(described.secret_string, secret);

    // Published through both front-ends, delivered once, by one of them.
    publish_numbered(&mut topics, "orders", 1..=30).await;
    assert_eq!(texts(&mut received, 30, &secret).await, numbered(1..=30));
    quiet_for_a_while(&mut received).await;
    let leases = on_each(&servers, "jiffy_webhook_leases").await;
    assert_eq!(leases.iter().sum::<f64>(), 1.0, "one holder: {leases:?}");
    let delivered = "jiffy_webhook_deliveries_total{result=\"delivered\"}";
    assert_eq!(on_each(&servers, delivered).await.iter().sum::<f64>(), 30.0);
    for server in &servers {
        let health = HealthClient::new(connect(server).await)
            .check(HealthCheckRequest {
                service: "webhook.Webhook".to_owned(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(health.status(), ServingStatus::Serving);
    }

    // A secret rotated through either front-end signs what the holder
    // sends once it has read it (within a second).
    let rotated = rotate(&mut hooks[1], "orders").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    publish_numbered(&mut topics, "orders", 31..=31).await;
    assert_eq!(texts(&mut received, 1, &rotated).await, numbered(31..=31));

    // Deleted through one, it is gone from both, and nothing is delivered.
    hooks[1]
        .delete_webhook(DeleteWebhookRequest {
            webhook_id: Some(id("orders")),
        })
        .await
        .unwrap();
    let listed = list(&mut hooks[0]).await;
    assert!(listed.is_empty());
    tokio::time::sleep(Duration::from_millis(1500)).await;
    publish_numbered(&mut topics, "orders", 32..=33).await;
    quiet_for_a_while(&mut received).await;
}

/// Two front-ends, a webhook delivering m1..m10; answers the receiver, the
/// secret, the holder and the other front-end, with a topic client on it.
async fn over_redis_delivering() -> (
    RedisCluster,
    Receiver,
    mpsc::UnboundedReceiver<Received>,
    String,
    ServerProcess,
    (ServerProcess, Pubsub),
) {
    let (cluster, servers, mut hooks, mut topics) = over_redis().await;
    let (receiver, mut received) = Receiver::start().await;
    let secret = put(&mut hooks[0], "h", "t", &receiver.url()).await;
    publish_numbered(&mut topics, "t", 1..=10).await;
    assert_eq!(texts(&mut received, 10, &secret).await, numbered(1..=10));
    let leases = on_each(&servers, "jiffy_webhook_leases").await;
    let holder = leases.iter().position(|&held| held == 1.0).unwrap();
    let [first, second] = servers;
    let [on_first, on_second] = topics;
    let (holder, other) = if holder == 0 {
        (first, (second, on_second))
    } else {
        (second, (first, on_first))
    };
    (cluster, receiver, received, secret, holder, other)
}

#[tokio::test(flavor = "multi_thread")]
async fn over_redis_a_holder_that_stops_hands_over_where_it_stopped() {
    let (_cluster, _receiver, mut received, secret, holder, (other, topics)) =
        over_redis_delivering().await;
    // SIGTERM: the lease is released with its exact position.
    assert!(holder.terminate().success());
    publish_numbered(&mut [topics], "t", 11..=20).await;
    assert_eq!(texts(&mut received, 10, &secret).await, numbered(11..=20));
    quiet_for_a_while(&mut received).await;
    holds_the_lease(other, 0.0).await;
}

/// `server` delivers the webhook now, having taken its lease over from a
/// holder that did not hand it over `takeovers` times.
async fn holds_the_lease(server: ServerProcess, takeovers: f64) {
    let server = [server];
    assert_eq!(on_each(&server, "jiffy_webhook_leases").await, [1.0]);
    let counted = on_each(&server, "jiffy_webhook_lease_takeovers_total").await;
    assert_eq!(counted, [takeovers]);
}

#[tokio::test(flavor = "multi_thread")]
async fn over_redis_the_other_front_end_takes_over_when_the_holder_dies() {
    let (_cluster, _receiver, mut received, secret, holder, (survivor, topics)) =
        over_redis_delivering().await;
    drop(holder); // SIGKILL: the lease is not handed over, it lapses.
    publish_numbered(&mut [topics], "t", 11..=20).await;
    // The new holder resumes from the last position the dead one recorded:
    // what it delivered after that comes again (a tail of m1..m10), then
    // every new message once, in order.
    let mut got = Vec::new();
    while got.last().map(String::as_str) != Some("m20") {
        got.extend(texts(&mut received, 1, &secret).await);
    }
    let again = got.len() - 10;
    assert_eq!(
        got[..again],
        numbered(11 - again as u64..=10)[..],
        "{got:?}"
    );
    assert_eq!(got[again..], numbered(11..=20)[..]);
    quiet_for_a_while(&mut received).await;
    holds_the_lease(survivor, 1.0).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn over_redis_messages_published_while_the_receiver_is_down_arrive_after() {
    let (_cluster, servers, mut hooks, mut topics) = over_redis().await;
    receiver_down_and_back(&mut hooks[1], &mut topics).await;

    // Deleting the cache deletes its webhooks: a cache made again with its
    // name has none.
    let mut control = ScsControlClient::new(connect(&servers[1]).await);
    let delete = DeleteCacheRequest {
        cache_name: CACHE.to_owned(),
    };
    control.delete_cache(delete).await.unwrap();
    create_cache(&mut control, CACHE).await;
    assert!(list(&mut hooks[0]).await.is_empty());
}
