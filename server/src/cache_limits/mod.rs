//! Per-cache limits: calls, bytes and publishes a second, and subscriptions
//! open at once, so that one tenant's burst on a shared server is that
//! tenant's problem alone.
//!
//! Each cache has the server-wide defaults (`--cache-calls-per-second`,
//! `--cache-bytes-per-second`, `--cache-publishes-per-second`,
//! `--cache-max-subscriptions`; unlimited unless given) or its own from the
//! config file's `[caches.NAME]` table (`settings.rs`).
//! A call over a limit answers RESOURCE_EXHAUSTED (the SDKs'
//! LIMIT_EXCEEDED) with the `err` reason Momento sends:
//! `operations_rate_limit_exceeded` for calls and publishes,
//! `throughput_rate_limit_exceeded` for bytes,
//! `topic_subscriptions_limit_exceeded` for subscriptions. Each refusal is
//! counted in `jiffy_throttled_total{cache,limit}`.
//!
//! Every port asks the same [`CacheLimits`]: the gRPC and protosocket
//! data-plane calls when they resolve their cache
//! (`DataPlane::cache_named`), Publish and Subscribe when they name theirs.
//! A new port calls [`CacheLimits::admit_call`] with the cache and the
//! request's bytes before it serves a call, [`CacheLimits::charge_answer`]
//! with the bytes of the values it reads back, and
//! [`CacheLimits::admit_publish`] for a publish; a subscription is held
//! open with the permit of [`CacheLimits::admit_subscription`].
//!
//! Bytes are the request message (as encoded) plus the item values a call
//! reads back (Get, GetBatch, GetWithHash and the protosocket Get); other
//! answers are not counted. A call is admitted while the cache's byte
//! bucket is not in debt; its request bytes are charged then, its answer's
//! when read, so one large value can leave the cache in debt and refused
//! until the rate has paid it back.
//!
//! Over a Redis store the buckets live in Redis, one per cache and limit
//! in the cache's hash slot, and each front-end leases tokens from them
//! ahead of need (`lease.rs` says within what tolerance, and what happens
//! when Redis fails); with the embedded store they live in this process.
//! Subscriptions are counted across front-ends alike (`subscriptions.rs`).

mod bucket;
mod lease;
mod settings;
mod subscriptions;
mod tokens;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use futures_util::future::BoxFuture;
use parking_lot::Mutex;
use prometheus::{IntCounterVec, Opts};

pub use self::settings::{CacheLimitSettings, RateLimits};
use self::subscriptions::OpenSubscriptions;
pub use self::subscriptions::{SubscriptionPermit, Tally, LEASE as SUBSCRIPTION_LEASE};
use self::tokens::Buckets;
use crate::error::Error;

/// Limits kept where every front-end of a store reaches them (Redis): the
/// rate buckets, and the counts of open subscriptions.
pub trait SharedBuckets: Send + Sync + 'static {
    /// Up to `want` tokens of the cache's `limit` bucket, which fills at
    /// `rate` a second and holds a second of it; answers those granted.
    fn lease(
        self: Arc<Self>,
        cache: String,
        limit: &'static str,
        rate: u64,
        want: u64,
    ) -> BoxFuture<'static, Result<u64, Error>>;

    /// Applies `tally` to the front-end `front_end`'s count of the cache's
    /// open subscriptions (`subscriptions.rs`); answers whether it was
    /// admitted (a [`Tally::Open`] under the limit; the others always are).
    fn tally(
        self: Arc<Self>,
        cache: String,
        front_end: Arc<str>,
        tally: Tally,
    ) -> BoxFuture<'static, Result<bool, Error>>;
}

/// The `limit` label of `jiffy_throttled_total`.
const CALLS: &str = "calls";
const BYTES: &str = "bytes";
const PUBLISHES: &str = "publishes";
const SUBSCRIPTIONS: &str = "subscriptions";

/// The rate limits of every cache, and what they refused.
pub struct CacheLimits {
    settings: CacheLimitSettings,
    /// Nothing is limited: every check returns at once, without a lock.
    off: bool,
    /// At most `max_caches` caches' buckets: over a Redis store any name
    /// resolves, so a client naming caches that do not exist would
    /// otherwise grow this without bound. When full it starts over, every
    /// cache with a full bucket.
    buckets: Mutex<HashMap<Box<str>, Buckets>>,
    max_caches: usize,
    /// Over a Redis store: where the buckets are, shared by front-ends.
    shared: Option<Arc<dyn SharedBuckets>>,
    /// The subscriptions open per cache; over a Redis store, shared too.
    subscriptions: OpenSubscriptions,
    throttled: IntCounterVec,
    /// The caches that have their own series; past `max_caches` the
    /// others are counted under `cache="other"`.
    labelled: Mutex<HashSet<Box<str>>>,
}

impl CacheLimits {
    /// The limits of `settings`, with buckets here, or in `shared` when
    /// given (a Redis store).
    pub fn new(
        settings: CacheLimitSettings,
        max_caches: usize,
        shared: Option<Arc<dyn SharedBuckets>>,
    ) -> Arc<CacheLimits> {
        let off = settings.defaults.is_unlimited()
            && settings.per_cache.values().all(RateLimits::is_unlimited);
        let throttled = IntCounterVec::new(
            Opts::new(
                "throttled_total",
                "Calls refused for passing a per-cache limit, by cache and limit (calls, bytes, publishes, subscriptions)",
            ),
            &["cache", "limit"],
        )
        .expect("valid metric");
        let counts_subscriptions = settings.defaults.max_subscriptions.is_some()
            || settings
                .per_cache
                .values()
                .any(|own| own.max_subscriptions.is_some());
        let limits = Arc::new(CacheLimits {
            settings,
            off,
            buckets: Mutex::new(HashMap::new()),
            max_caches,
            subscriptions: OpenSubscriptions::new(shared.clone()),
            shared,
            throttled,
            labelled: Mutex::new(HashSet::new()),
        });
        if counts_subscriptions && limits.subscriptions.is_shared() {
            tokio::spawn(subscriptions::keep_counts_alive(Arc::downgrade(&limits)));
        }
        limits
    }

    /// No limits at all: what a server started without them uses.
    pub fn unlimited() -> Arc<CacheLimits> {
        CacheLimits::new(CacheLimitSettings::default(), 1, None)
    }

    /// `jiffy_throttled_total`, for the server's registry.
    pub fn metric(&self) -> IntCounterVec {
        self.throttled.clone()
    }

    /// The limits of the cache `name`, as ListCaches reports them.
    pub fn of(&self, name: &str) -> RateLimits {
        self.settings.of(name)
    }

    /// Admits one call on the cache `name` carrying `request_bytes`, or
    /// refuses it if the cache is over its calls or bytes a second.
    pub fn admit_call(&self, name: &str, request_bytes: usize) -> Result<(), Error> {
        if self.off {
            return Ok(());
        }
        let refused = self.with_buckets(name, |buckets, now| {
            if let Some(bytes) = &mut buckets.bytes {
                if !bytes.try_take(now, request_bytes as f64, f64::MIN_POSITIVE) {
                    return Some(BYTES);
                }
            }
            let calls = buckets.calls.as_mut()?;
            (!calls.try_take(now, 1.0, 1.0)).then_some(CALLS)
        });
        self.answer(name, refused)
    }

    /// Charges `bytes` read back for a call already admitted.
    pub fn charge_answer(&self, name: &str, bytes: usize) {
        if self.off || bytes == 0 {
            return;
        }
        self.with_buckets(name, |buckets, now| {
            if let Some(bucket) = &mut buckets.bytes {
                bucket.charge(now, bytes as f64);
            }
        });
    }

    /// Admits one publish of `bytes` on the cache `name`: a call, and a
    /// publish.
    pub fn admit_publish(&self, name: &str, bytes: usize) -> Result<(), Error> {
        self.admit_call(name, bytes)?;
        if self.off {
            return Ok(());
        }
        let refused = self.with_buckets(name, |buckets, now| {
            let publishes = buckets.publishes.as_mut()?;
            (!publishes.try_take(now, 1.0, 1.0)).then_some(PUBLISHES)
        });
        self.answer(name, refused)
    }

    /// Admits one more subscription on the cache `name`, counted until
    /// the permit is dropped, or refuses it if the cache holds its
    /// `max_subscriptions` open already.
    pub async fn admit_subscription(
        self: &Arc<Self>,
        name: &str,
    ) -> Result<SubscriptionPermit, Error> {
        let limit = match self.of(name).max_subscriptions {
            Some(limit) if !self.off => limit,
            _ => return Ok(SubscriptionPermit::uncounted()),
        };
        if self.subscriptions.open(name, limit).await? {
            return Ok(SubscriptionPermit::counted(self.clone(), name));
        }
        Err(self.refuse(name, SUBSCRIPTIONS))
    }

    /// Forgets the cache `name`, deleted: its buckets and its series.
    pub fn forget(&self, name: &str) {
        self.buckets.lock().remove(name);
        if self.labelled.lock().remove(name) {
            for limit in [CALLS, BYTES, PUBLISHES, SUBSCRIPTIONS] {
                let _ = self.throttled.remove_label_values(&[name, limit]);
            }
        }
    }

    fn with_buckets<R>(&self, name: &str, use_them: impl FnOnce(&mut Buckets, Instant) -> R) -> R {
        let now = Instant::now();
        let mut buckets = self.buckets.lock();
        if !buckets.contains_key(name) && buckets.len() >= self.max_caches {
            buckets.clear();
        }
        let entry = buckets.entry(name.into()).or_insert_with(|| {
            Buckets::new(name, self.settings.of(name), self.shared.as_ref(), now)
        });
        use_them(entry, now)
    }

    /// `Ok`, or the refusal of a call over `limit`, counted.
    fn answer(&self, name: &str, refused: Option<&'static str>) -> Result<(), Error> {
        match refused {
            Some(limit) => Err(self.refuse(name, limit)),
            None => Ok(()),
        }
    }

    /// The refusal of a call over `limit`, counted.
    fn refuse(&self, name: &str, limit: &'static str) -> Error {
        let label = {
            let mut labelled = self.labelled.lock();
            if labelled.contains(name) || labelled.len() < self.max_caches {
                labelled.insert(name.into());
                name
            } else {
                "other"
            }
        };
        self.throttled.with_label_values(&[label, limit]).inc();
        let limits = self.of(name);
        let cache = name.to_owned();
        match limit {
            CALLS => Error::CallRateExceeded {
                cache,
                limit: limits.max_calls_per_second.unwrap_or_default(),
            },
            BYTES => Error::ByteRateExceeded {
                cache,
                limit: limits.max_bytes_per_second.unwrap_or_default(),
            },
            SUBSCRIPTIONS => Error::CacheSubscriptionsExceeded {
                cache,
                limit: limits.max_subscriptions.unwrap_or_default(),
            },
            _ => Error::PublishRateExceeded {
                cache,
                limit: limits.max_publishes_per_second.unwrap_or_default(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::settings::settings;

    const TEN_CALLS: RateLimits = RateLimits {
        max_calls_per_second: Some(10),
        max_bytes_per_second: None,
        max_publishes_per_second: None,
        max_subscriptions: None,
    };

    #[test]
    fn a_cache_has_its_own_limits_over_the_defaults() {
        let own = RateLimits {
            max_calls_per_second: Some(2),
            max_bytes_per_second: Some(100),
            max_publishes_per_second: None,
            max_subscriptions: None,
        };
        let limits = CacheLimits::new(settings(TEN_CALLS, &[("small", own)]), 10, None);
        let admitted = |name| {
            (0..20)
                .filter(|_| limits.admit_call(name, 1).is_ok())
                .count()
        };
        assert_eq!(admitted("small"), 2);
        assert_eq!(admitted("other"), 10);
        assert_eq!(limits.of("small"), own);
        assert_eq!(limits.of("other"), TEN_CALLS);
        let text = limits.metric().with_label_values(&["small", "calls"]).get();
        assert_eq!(text, 18);
    }

    #[test]
    fn refusals_carry_momentos_reasons() {
        let bytes = RateLimits {
            max_bytes_per_second: Some(100),
            max_publishes_per_second: Some(1),
            ..RateLimits::default()
        };
        let limits = CacheLimits::new(settings(bytes, &[]), 10, None);
        limits.admit_call("c", 10).unwrap();
        limits.charge_answer("c", 500);
        let refused = limits.admit_call("c", 10).unwrap_err();
        assert_eq!(refused.reason(), Some("throughput_rate_limit_exceeded"));
        assert!(refused.to_string().contains("throughput"), "{refused}");
        let limits = CacheLimits::new(settings(bytes, &[]), 10, None);
        limits.admit_publish("c", 1).unwrap();
        let refused = limits.admit_publish("c", 1).unwrap_err();
        assert_eq!(refused.reason(), Some("operations_rate_limit_exceeded"));
        assert!(refused.to_string().contains("operations"), "{refused}");
    }

    #[test]
    fn series_are_bounded_by_the_number_of_caches() {
        let limits = CacheLimits::new(
            settings(
                RateLimits {
                    max_calls_per_second: Some(1),
                    ..RateLimits::default()
                },
                &[],
            ),
            2,
            None,
        );
        for name in ["a", "b", "c", "d"] {
            limits.admit_call(name, 0).unwrap();
            limits.admit_call(name, 0).unwrap_err();
        }
        let metric = limits.metric();
        assert_eq!(metric.with_label_values(&["other", "calls"]).get(), 2);
        limits.forget("a");
        assert_eq!(
            prometheus::core::Collector::collect(&metric)[0]
                .get_metric()
                .len(),
            2
        );
    }

    #[tokio::test]
    async fn subscriptions_are_counted_until_their_permits_drop() {
        let one = RateLimits {
            max_subscriptions: Some(1),
            ..RateLimits::default()
        };
        let limits = CacheLimits::new(settings(one, &[]), 10, None);
        let held = limits.admit_subscription("c").await.unwrap();
        let refused = limits.admit_subscription("c").await.err().unwrap();
        assert_eq!(refused.reason(), Some("topic_subscriptions_limit_exceeded"));
        assert!(refused.to_string().contains("1 subscriptions"), "{refused}");
        let _other = limits.admit_subscription("d").await.unwrap();
        drop(held);
        limits.admit_subscription("c").await.unwrap();
        let refusals = limits
            .metric()
            .with_label_values(&["c", "subscriptions"])
            .get();
        assert_eq!(refusals, 1);
    }
}
