//! Wiring: the store, the gRPC services, the metrics endpoint and shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::{BoxFuture, OptionFuture};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;
use tonic::service::Routes;

use crate::admin_port::{self, BlockLayer, Blocker};
use crate::auth::signing_keys::{KeyRing, LocalKeyRing, SigningKeys};
use crate::auth::{AuthLayer, Verifier};
use crate::backend::redis::{redact, RedisStore, RedisTopics, Target};
use crate::backend::Storage;
use crate::cache_limits::{CacheLimits, SharedBuckets};
use crate::config::{Config, StoreChoice, TlsFiles};
use crate::fault::FaultLayer;
use crate::in_flight::InFlight;
use crate::listener;
use crate::metrics::Metrics;
use crate::proto::admin::admin_server::AdminServer;
use crate::proto::auth::auth_server::AuthServer;
use crate::proto::cache_client::ping_server::PingServer;
use crate::proto::cache_client::pubsub::pubsub_server::PubsubServer;
use crate::proto::cache_client::scs_server::ScsServer;
use crate::proto::control_client::scs_control_server::ScsControlServer;
use crate::proto::leaderboard::leaderboard_server::LeaderboardServer;
use crate::proto::token::token_server::TokenServer;
use crate::proto::webhook::webhook_server::WebhookServer;
use crate::protosocket;
use crate::routes::DirectRoutes;
use crate::rpc_layer::RpcLayer;
use crate::rpcs;
use crate::service::admin::AdminService;
use crate::service::control::ControlPlane;
use crate::service::ping::PingService;
use crate::service::pubsub::PubsubService;
use crate::service::subscribe_route::PubsubRoutes;
use crate::service::tokens::TokenVending;
use crate::service::DataPlane;
use crate::store::{Store, StoreConfig};
use crate::topics::{CacheEvents, Hub, LocalTopics, TopicStore};
use crate::webhooks::{SharedWebhooks, WebhookMetrics, WebhookService, Webhooks};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Whether the store answers, for `/readyz`: the error says why not.
type ReadyCheck = Arc<dyn Fn() -> BoxFuture<'static, Result<(), String>> + Send + Sync>;

/// The descriptors of `proto/`, encoded by build.rs, for the reflection service.
const DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jiffy_descriptors.bin"));

/// The sockets a server serves, bound by the caller (which prints them).
pub struct Listeners {
    pub grpc: TcpListener,
    pub metrics: Option<TcpListener>,
    /// The protosocket port (`crate::protosocket`), when on.
    pub protosocket: Option<TcpListener>,
    /// The HTTP API's port (`crate::http`), when on.
    pub http: Option<TcpListener>,
    /// The test admin port (`crate::admin_port`), when on.
    pub admin: Option<TcpListener>,
}

/// Serves on `listeners` until `shutdown` completes, then lets in-flight
/// requests finish for up to `config.shutdown_timeout`: assembles the
/// store the configuration names, then serves it.
pub async fn run_with(
    listeners: Listeners,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<(), BoxError> {
    match config.store.clone() {
        StoreChoice::Embedded => serve(assemble_embedded(config), listeners, shutdown).await,
        StoreChoice::Redis(target) => {
            serve(assemble_redis(config, target).await, listeners, shutdown).await
        }
    }
}

/// What a store brings to the server, assembled from the configuration.
struct Parts<S, T> {
    config: Config,
    store: S,
    topics: T,
    /// Told when a cache is flushed or deleted, for its topics.
    cache_events: Arc<dyn CacheEvents>,
    metrics: Arc<Metrics>,
    ready: ReadyCheck,
    /// Set when shutdown begins: the metrics probes and open subscriptions read it.
    stop: (watch::Sender<bool>, watch::Receiver<bool>),
    /// Where per-cache rate buckets are shared by front-ends (Redis).
    shared_limits: Option<Arc<dyn SharedBuckets>>,
    /// Where webhooks are kept for every front-end (Redis).
    shared_webhooks: Option<Arc<dyn SharedWebhooks>>,
    /// Where the signing keys of presigned URLs live, for every front-end.
    key_ring: Arc<dyn KeyRing>,
}

/// The embedded store, its stats in the metrics, and topics in this process.
fn assemble_embedded(config: Config) -> Parts<Arc<Store>, LocalTopics<Arc<Store>>> {
    let stop = watch::channel(false);
    let store = Store::new(StoreConfig {
        max_memory: config.max_memory,
        max_caches: config.max_caches,
    });
    crate::defrag::spawn(&store, config.defrag_above);
    let stats = store.clone();
    let metrics = Metrics::new(
        Some(Box::new(move || Store::stats(&stats))),
        config.max_memory,
    );
    let hub = Hub::new(config.topics, metrics.topics(), stop.1.clone(), None);
    Parts {
        topics: LocalTopics::new(hub.clone(), store.clone()),
        cache_events: hub,
        store,
        metrics,
        ready: Arc::new(|| Box::pin(async { Ok(()) })),
        stop,
        config,
        shared_limits: None,
        shared_webhooks: None,
        key_ring: Arc::new(LocalKeyRing::default()),
    }
}

/// A Redis store, connected now so that the first calls do not wait (a
/// cluster that is not up yet is retried by each call, answered
/// UNAVAILABLE till then); ready while Redis answers a PING.
async fn assemble_redis(config: Config, target: Target) -> Parts<Arc<RedisStore>, RedisTopics> {
    let stop = watch::channel(false);
    let store = RedisStore::new(
        target.clone(),
        config.store_timeout,
        config.max_caches,
        large_answers_in_transit(config.max_in_flight_bytes),
        config.limits.max_response_size,
    );
    if let Err(error) = store.connect().await {
        tracing::warn!(%error, "the store is not reachable yet");
    }
    let metrics = Metrics::new(None, config.max_memory);
    let (topics, cache_events) = RedisTopics::start(
        store.clone(),
        target,
        config.topics,
        metrics.topics(),
        stop.1.clone(),
    );
    let probe = store.clone();
    let shared_limits: Arc<dyn SharedBuckets> = store.clone();
    let shared_webhooks: Arc<dyn SharedWebhooks> = store.clone();
    Parts {
        shared_limits: Some(shared_limits),
        shared_webhooks: Some(shared_webhooks),
        key_ring: store.clone(),
        ready: Arc::new(move || {
            let probe = probe.clone();
            Box::pin(async move { probe.ping().await.map_err(|error| error.to_string()) })
        }),
        topics,
        cache_events,
        store,
        metrics,
        stop,
        config,
    }
}

/// Serves `parts` on `listeners` until `shutdown`, as [`run_with`] says.
async fn serve<S: Storage + Clone, T: TopicStore + Clone>(
    parts: Parts<S, T>,
    listeners: Listeners,
    shutdown: impl Future<Output = ()>,
) -> Result<(), BoxError> {
    let Parts {
        config,
        store,
        topics,
        cache_events,
        metrics,
        ready,
        stop: (stopping, stop_requested),
        shared_limits,
        shared_webhooks,
        key_ring,
    } = parts;
    let Listeners {
        grpc: listener,
        metrics: metrics_listener,
        protosocket,
        http,
        admin,
    } = listeners;
    let address = |listener: Option<&TcpListener>| match listener.map(TcpListener::local_addr) {
        Some(Ok(address)) => address.to_string(),
        Some(Err(_)) => "unknown".to_owned(),
        None => "off".to_owned(),
    };
    // In the log too, not only on stdout: what a log pipeline keeps.
    tracing::info!(
        grpc = %address(Some(&listener)),
        metrics = %address(metrics_listener.as_ref()),
        protosocket = %address(protosocket.as_ref()),
        http = %address(http.as_ref()),
        "listening"
    );
    if let Some(listener) = metrics_listener {
        tokio::spawn(serve_metrics(
            listener,
            side_port_settings(&config),
            metrics.clone(),
            ready.clone(),
            stop_requested.clone(),
        ));
    }

    let limits = config.limits;
    tracing::info!(
        store = %describe(&config.store),
        max_memory = config.max_memory,
        max_caches = config.max_caches,
        max_key_size = limits.max_key_size,
        max_value_size = limits.max_value_size,
        max_request_size = limits.max_request_size,
        max_ttl = %humantime::format_duration(limits.max_ttl),
        max_request_items = limits.max_request_items,
        max_collection_elements = limits.max_collection_elements,
        max_response_size = limits.max_response_size,
        max_topic_subscriptions = config.topics.max_subscriptions,
        max_topic_message_size = config.topics.max_message_size,
        max_topic_memory = config.topics.max_memory,
        max_concurrent_streams = config.max_concurrent_streams,
        max_connections = config.max_connections,
        max_in_flight_bytes = config.max_in_flight_bytes,
        tls = config.tls.is_some(),
        auth = config.auth.is_some(),
        fault_injection = config.fault_injection,
        "jiffy-server {} starting",
        env!("CARGO_PKG_VERSION")
    );
    if config.auth.is_none() && !config.listen.ip().to_canonical().is_loopback() {
        tracing::warn!(
            "serving without auth on a non-loopback address (--insecure-allow-anonymous)"
        );
    }
    if config.fault_injection {
        tracing::warn!("fault injection is on: request headers can fail and delay calls");
    }
    // grpc.health.v1: "" (the server) and each service SERVING while the
    // store answers, as `/readyz` says, and NOT_SERVING from shutdown on.
    let (health_reporter, health) = tonic_health::server::health_reporter();
    // "" is the whole server; then each service of `proto/`.
    let services: Vec<&'static str> = std::iter::once("").chain(rpcs::proto_services()).collect();
    set_health(&health_reporter, &services, true).await;
    let health_follows = tokio::spawn(health_follows_readiness(
        health_reporter,
        services,
        ready,
        stop_requested.clone(),
    ));
    let (reflection_v1, reflection_v1alpha) = reflection()?;
    // Metrics outermost, so refused and injected answers are counted too.
    let in_flight = InFlight::new(
        config.max_in_flight_bytes as usize,
        metrics.in_flight_bytes.clone(),
    );
    // Per-cache rates, one set for every port.
    let cache_limits = CacheLimits::new(
        config.cache_limits.clone(),
        config.max_caches,
        shared_limits,
    );
    metrics.register(vec![Box::new(cache_limits.metric())]);
    let signing_keys = Arc::new(SigningKeys::new(key_ring, config.max_signing_keys));
    metrics.register(vec![Box::new(signing_keys.metric())]);
    let data_plane = DataPlane::new(store.clone(), limits, metrics.lookups())
        .with_cache_limits(cache_limits.clone());
    let advertised_port = protosocket
        .as_ref()
        .map(TcpListener::local_addr)
        .transpose()?
        .map(|address| address.port());
    let protosocket = protosocket
        .map(|listener| {
            protosocket_port(
                listener,
                data_plane.clone(),
                &metrics,
                &in_flight,
                &config,
                stop_requested.clone(),
            )
        })
        .transpose()?;
    let pubsub = PubsubService::new(topics.clone(), config.topics, metrics.topics())
        .with_budget(in_flight.clone())
        .with_cache_limits(cache_limits.clone());
    let http = http
        .map(|listener| {
            http_port(
                listener,
                crate::http::Context {
                    plane: data_plane.clone(),
                    pubsub: pubsub.clone(),
                    verifier: verifier(&config),
                    signing_keys: signing_keys.clone(),
                    metrics: metrics.clone(),
                    in_flight: in_flight.clone(),
                },
                &config,
                stop_requested.clone(),
            )
        })
        .transpose()?;
    // The encoding limit is a backstop: every handler whose answer can be
    // larger than its request checks its size first (`Limits::check_answer`),
    // refusing it before it is built; tonic's check comes after encoding.
    let leaderboards = LeaderboardServer::new(data_plane.clone())
        .max_decoding_message_size(limits.max_request_size)
        .max_encoding_message_size(limits.max_response_size);
    let scs = ScsServer::new(data_plane)
        .max_decoding_message_size(limits.max_request_size)
        .max_encoding_message_size(limits.max_response_size);
    let vending = TokenVending::new(config.auth.clone(), config.public_endpoint.clone());
    // Webhooks: kept in this process with the embedded store, in the store
    // over Redis, where one front-end at a time delivers each
    // (docs/WEBHOOKS.md).
    let (webhooks, webhook_registry) = {
        let webhook_metrics = WebhookMetrics::new();
        metrics.register(webhook_metrics.collectors());
        let registry = Webhooks::new(
            topics.clone(),
            config.webhooks.clone(),
            webhook_metrics,
            stop_requested.clone(),
            shared_webhooks,
        );
        (
            WebhookServer::new(WebhookService::new(store.clone(), registry.clone()))
                .max_decoding_message_size(limits.max_request_size),
            registry,
        )
    };
    let pubsub_routes = {
        let generated =
            PubsubServer::new(pubsub.clone()).max_decoding_message_size(limits.max_request_size);
        PubsubRoutes::new(generated, pubsub, limits.max_request_size)
    };
    // Scs and Pubsub are routed before tonic's router (`routes.rs`).
    let routes = Routes::new(leaderboards)
        .add_service(
            AdminServer::new(AdminService::new(store.clone(), limits))
                .max_decoding_message_size(limits.max_request_size)
                .max_encoding_message_size(limits.max_response_size),
        )
        .add_service(
            ScsControlServer::new(
                ControlPlane::new(
                    store,
                    limits,
                    cache_events,
                    config.topics,
                    metrics.lookups(),
                )
                .with_cache_limits(cache_limits.clone())
                .with_signing_keys(signing_keys),
            )
            .max_decoding_message_size(limits.max_request_size),
        )
        .add_service(PingServer::new(PingService::new(advertised_port)))
        .add_service(TokenServer::new(vending.clone()))
        .add_service(AuthServer::new(vending))
        .add_service(health.clone())
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(webhooks)
        .prepare();
    let routes = DirectRoutes::new(scs, pubsub_routes, routes);
    let service = tower::ServiceBuilder::new()
        .layer({
            let layer = RpcLayer::new(metrics.clone(), limits.max_request_size, in_flight.clone());
            if config.request_size_derived {
                layer.with_value_limit(limits.max_value_size)
            } else {
                layer
            }
        })
        .option_layer(
            config
                .auth
                .as_ref()
                .map(|secret| AuthLayer::new(Arc::new(Verifier::new(secret)))),
        )
        .option_layer(config.fault_injection.then(FaultLayer::new))
        .option_layer({
            // The admin port's /block holds calls here, inside auth and faults.
            let blocker = admin.map(|listener| {
                let blocker = Blocker::new();
                tokio::spawn(admin_port::serve(
                    listener,
                    side_port_settings(&config),
                    blocker.clone(),
                    wait_for(stop_requested.clone()),
                ));
                blocker
            });
            blocker.map(BlockLayer::new)
        })
        .service(routes);
    let tls = config
        .tls
        .as_ref()
        .map(|files| tls_acceptor(files, vec![b"h2".to_vec()]))
        .transpose()?;
    let serving = listener::serve(
        listener,
        connection_settings(&config),
        tls,
        service,
        metrics,
        in_flight,
        async move {
            shutdown.await;
            tracing::info!("shutting down: refusing new requests, finishing in-flight ones");
            let _ = stopping.send(true);
            // Health turns NOT_SERVING before the listener stops accepting.
            let _ = health_follows.await;
        },
    );

    // The other ports, each if given, end with the gRPC port.
    let serving = async move {
        futures_util::future::join3(
            serving,
            OptionFuture::from(protosocket),
            OptionFuture::from(http),
        )
        .await;
    };
    let grace_over = async {
        wait_for(stop_requested).await;
        tokio::time::sleep(config.shutdown_timeout).await;
    };
    tokio::select! {
        () = serving => {}
        () = grace_over => tracing::warn!(
            timeout = ?config.shutdown_timeout,
            "in-flight requests did not finish in time; closing their connections"
        ),
    }
    // Over Redis, the webhooks this front-end delivered go to another
    // from where it stopped.
    webhook_registry.handed_over(config.store_timeout).await;
    tracing::info!("stopped");
    Ok(())
}

/// How often gRPC health asks the store whether it answers: a probe that
/// polls every few seconds sees a change within one more.
const HEALTH_PROBE_INTERVAL: Duration = Duration::from_secs(1);

/// Keeps gRPC health in step with readiness (`/readyz`): every service
/// SERVING while `ready` answers, NOT_SERVING while it fails (a Redis store
/// that is down), and NOT_SERVING for good once shutdown begins. Only
/// changes are written, so a Watch stream sees each change once.
async fn health_follows_readiness(
    reporter: tonic_health::server::HealthReporter,
    services: Vec<&'static str>,
    ready: ReadyCheck,
    mut stop_requested: watch::Receiver<bool>,
) {
    let mut serving = true;
    let mut ticks = tokio::time::interval(HEALTH_PROBE_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let now_ready = tokio::select! {
            _ = stop_requested.wait_for(|stop| *stop) => break,
            ready = async {
                ticks.tick().await;
                ready().await
            } => ready,
        };
        if now_ready.is_ok() != serving {
            serving = now_ready.is_ok();
            match &now_ready {
                Ok(()) => tracing::info!("the store answers again: gRPC health SERVING"),
                Err(why) => {
                    tracing::warn!(%why, "the store does not answer: gRPC health NOT_SERVING")
                }
            }
            set_health(&reporter, &services, serving).await;
        }
    }
    set_health(&reporter, &services, false).await;
}

async fn set_health(
    reporter: &tonic_health::server::HealthReporter,
    services: &[&'static str],
    serving: bool,
) {
    let status = if serving {
        tonic_health::ServingStatus::Serving
    } else {
        tonic_health::ServingStatus::NotServing
    };
    for service in services {
        reporter.set_service_status(service, status).await;
    }
}

/// The protosocket port, serving until shutdown begins; its TLS is the
/// gRPC port's certificate without ALPN (protosocket clients offer none).
fn protosocket_port<S: Storage + Clone>(
    listener: TcpListener,
    plane: DataPlane<S>,
    metrics: &Arc<Metrics>,
    in_flight: &Arc<InFlight>,
    config: &Config,
    stop_requested: watch::Receiver<bool>,
) -> Result<impl Future<Output = ()>, BoxError> {
    let tls = port_tls(config, Vec::new())?;
    let max_value = protosocket::framing::largest_readable_value().min(plane.limits.max_value_size);
    let limits = protosocket::Limits {
        max_frame: plane.limits.max_request_size,
        max_in_flight: config.max_concurrent_streams as usize,
        first_frame_timeout: config.handshake_timeout,
        frame_timeout: config.request_timeout,
        send_timeout: config.send_timeout,
        idle_timeout: config.idle_timeout,
    };
    let context = Arc::new(protosocket::Context {
        plane,
        verifier: verifier(config),
        metrics: metrics.clone(),
        in_flight: in_flight.clone(),
        max_value,
    });
    Ok(protosocket::serve(
        listener,
        context,
        limits,
        config.max_connections,
        config.handshake_timeout,
        tls,
        wait_for(stop_requested),
    ))
}

/// The HTTP API's port (`crate::http`), serving until shutdown begins:
/// the gRPC port's connection handling over HTTP/1.1, its TLS offering
/// `http/1.1` by ALPN.
fn http_port<S: Storage + Clone, T: TopicStore + Clone>(
    listener: TcpListener,
    context: crate::http::Context<S, T>,
    config: &Config,
    stop_requested: watch::Receiver<bool>,
) -> Result<impl Future<Output = ()>, BoxError> {
    let tls = port_tls(config, vec![b"http/1.1".to_vec()])?;
    let (metrics, in_flight) = (context.metrics.clone(), context.in_flight.clone());
    let context = Arc::new(context);
    let mut settings = connection_settings(config);
    settings.http1 = Some(listener::http1::Settings {
        max_header_size: config.max_header_list_size as usize,
        header_read_timeout: config.request_timeout,
    });
    Ok(listener::serve(
        listener,
        settings,
        tls,
        crate::http::router(context),
        metrics,
        in_flight,
        wait_for(stop_requested),
    ))
}

/// Server reflection over the descriptors of `proto/` and of the health
/// service, so that grpcurl and similar tools list and call every method:
/// `grpc.reflection.v1`, and `v1alpha`, which older grpcurl, Postman and
/// Evans ask for. Each lists both reflection services.
fn reflection() -> Result<
    (
        tonic_reflection::server::v1::ServerReflectionServer<
            impl tonic_reflection::server::v1::ServerReflection,
        >,
        tonic_reflection::server::v1alpha::ServerReflectionServer<
            impl tonic_reflection::server::v1alpha::ServerReflection,
        >,
    ),
    BoxError,
> {
    let builder = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(DESCRIPTORS)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(
                tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
            )
            .include_reflection_service(false)
    };
    Ok((builder().build_v1()?, builder().build_v1alpha()?))
}

/// The large answers a Redis front-end may have on their way out of Redis
/// at once, beside what `--max-in-flight-bytes` bounds: a quarter of it, at
/// most 16 MiB, which keeps the connection to Redis busy (a local link
/// moves 16 MiB in milliseconds) without doubling the memory bound.
fn large_answers_in_transit(max_in_flight_bytes: u64) -> usize {
    (max_in_flight_bytes / 4).min(16 << 20) as usize
}

fn connection_settings(config: &Config) -> listener::Settings {
    listener::Settings {
        max_connections: config.max_connections,
        handshake_timeout: config.handshake_timeout,
        send_timeout: config.send_timeout,
        request_timeout: config.request_timeout,
        http2: listener::http2::Settings {
            max_concurrent_streams: config.max_concurrent_streams,
            max_header_list_size: config.max_header_list_size as u32,
            keepalive_interval: config.keepalive_interval,
            keepalive_timeout: config.keepalive_timeout,
        },
        http1: None,
    }
}

/// The connection settings of the metrics and admin ports.
fn side_port_settings(config: &Config) -> listener::Settings {
    listener::side_port::settings(
        &connection_settings(config),
        config.max_side_port_connections,
        config.max_header_list_size as usize,
    )
}

/// The store, for the log: its kind and nodes, never a password.
fn describe(store: &StoreChoice) -> String {
    match store {
        StoreChoice::Embedded => "embedded".to_owned(),
        StoreChoice::Redis(Target::Cluster(nodes)) => format!(
            "redis-cluster {}",
            nodes
                .iter()
                .map(|node| redact(node))
                .collect::<Vec<_>>()
                .join(",")
        ),
        StoreChoice::Redis(Target::Single(url)) => format!("redis {}", redact(url)),
    }
}

/// The TLS side of a port, when `--tls-cert` and `--tls-key` are given.
fn port_tls(config: &Config, alpn: Vec<Vec<u8>>) -> Result<Option<TlsAcceptor>, BoxError> {
    config
        .tls
        .as_ref()
        .map(|files| tls_acceptor(files, alpn))
        .transpose()
}

/// The token verifier of a port that checks tokens itself (protosocket,
/// HTTP), when auth is on.
fn verifier(config: &Config) -> Option<Arc<Verifier>> {
    config
        .auth
        .as_ref()
        .map(|secret| Arc::new(Verifier::new(secret)))
}

/// The TLS side of a listener: rustls with ring (as tonic's own TLS),
/// offering the `alpn` protocols (HTTP/2 only on the gRPC port).
fn tls_acceptor(files: &TlsFiles, alpn: Vec<Vec<u8>>) -> Result<TlsAcceptor, BoxError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let unreadable = |path: &std::path::Path, e: &dyn std::fmt::Display| {
        format!("cannot read {}: {e}", path.display())
    };
    let certs = CertificateDer::pem_file_iter(&files.cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| unreadable(&files.cert, &e))?;
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| unreadable(&files.key, &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(certs, key)?;
    tls.alpn_protocols = alpn;
    Ok(TlsAcceptor::from(Arc::new(tls)))
}

async fn wait_for(mut stop_requested: watch::Receiver<bool>) {
    let _ = stop_requested.wait_for(|stop| *stop).await;
}

/// `GET /metrics` in the Prometheus text format, on its own listener so that
/// scraping never competes with the cache port's HTTP/2 settings.
///
/// `GET /healthz`: 200 while the process serves (liveness). `GET /readyz`:
/// 200 when the store answers (embedded: always; Redis: a PING within
/// `--store-timeout`), 503 with the reason otherwise and once shutdown has
/// begun (readiness: a load balancer stops sending new calls).
async fn serve_metrics(
    listener: TcpListener,
    settings: listener::Settings,
    metrics: Arc<Metrics>,
    ready: ReadyCheck,
    stop_requested: watch::Receiver<bool>,
) {
    use axum::http::StatusCode;
    let stopping = stop_requested.clone();
    let app = axum::Router::new()
        .route(
            "/metrics",
            axum::routing::get(move || {
                let metrics = metrics.clone();
                async move {
                    (
                        [(http::header::CONTENT_TYPE, "text/plain; version=0.0.4")],
                        metrics.render(),
                    )
                }
            }),
        )
        .route("/healthz", axum::routing::get(|| async { "ok\n" }))
        .route(
            "/readyz",
            axum::routing::get(move || {
                let (ready, stopping) = (ready.clone(), stopping.clone());
                async move {
                    if *stopping.borrow() {
                        return (
                            StatusCode::SERVICE_UNAVAILABLE,
                            "shutting down\n".to_owned(),
                        );
                    }
                    match ready().await {
                        Ok(()) => (StatusCode::OK, "ready\n".to_owned()),
                        Err(why) => (StatusCode::SERVICE_UNAVAILABLE, format!("{why}\n")),
                    }
                }
            }),
        );
    listener::side_port::serve(listener, settings, app, wait_for(stop_requested)).await;
}
