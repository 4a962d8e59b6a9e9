//! Per-cache rate limits: calls, bytes and publishes a second, so that one
//! tenant's burst on a shared server is that tenant's problem alone.
//!
//! Each cache has the server-wide defaults (`--cache-calls-per-second`,
//! `--cache-bytes-per-second`, `--cache-publishes-per-second`; unlimited
//! unless given) or its own from the config file's `[caches.NAME]` table.
//! A call over a limit answers RESOURCE_EXHAUSTED (the SDKs'
//! LIMIT_EXCEEDED) with the `err` reason Momento sends:
//! `operations_rate_limit_exceeded` for calls and publishes,
//! `throughput_rate_limit_exceeded` for bytes. Each refusal is counted in
//! `jiffy_throttled_total{cache,limit}`.
//!
//! Every port asks the same [`CacheLimits`]: the gRPC and protosocket
//! data-plane calls when they resolve their cache
//! (`DataPlane::cache_named`), Publish and Subscribe when they name theirs.
//! A new port calls [`CacheLimits::admit_call`] with the cache and the
//! request's bytes before it serves a call, [`CacheLimits::charge_answer`]
//! with the bytes of the values it reads back, and
//! [`CacheLimits::admit_publish`] for a publish.
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

mod bucket;
mod lease;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use futures_util::future::BoxFuture;
use parking_lot::Mutex;
use prometheus::{IntCounterVec, Opts};
use serde::Deserialize;

use self::bucket::Bucket;
use self::lease::Lease;
use crate::error::Error;

/// The rates one cache may use; `None` is unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RateLimits {
    /// Data-plane calls a second (Publish and Subscribe included).
    pub max_calls_per_second: Option<u64>,
    /// Request plus read-back value bytes a second.
    #[serde(default, deserialize_with = "bytes_per_second")]
    pub max_bytes_per_second: Option<u64>,
    /// Publishes a second.
    pub max_publishes_per_second: Option<u64>,
}

/// A size with units (`1MiB`) or a plain number of bytes.
fn bytes_per_second<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Number(u64),
        Text(String),
    }
    Ok(Some(match Given::deserialize(deserializer)? {
        Given::Number(bytes) => bytes,
        Given::Text(text) => text
            .parse::<bytesize::ByteSize>()
            .map_err(serde::de::Error::custom)?
            .as_u64(),
    }))
}

impl RateLimits {
    fn is_unlimited(&self) -> bool {
        *self == RateLimits::default()
    }

    /// These limits, each one left unset taken from `defaults`.
    fn or(self, defaults: RateLimits) -> RateLimits {
        RateLimits {
            max_calls_per_second: self.max_calls_per_second.or(defaults.max_calls_per_second),
            max_bytes_per_second: self.max_bytes_per_second.or(defaults.max_bytes_per_second),
            max_publishes_per_second: self
                .max_publishes_per_second
                .or(defaults.max_publishes_per_second),
        }
    }
}

/// The limits of the configuration: the defaults, and each cache's own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheLimitSettings {
    pub defaults: RateLimits,
    /// From the config file's `[caches.NAME]` tables; a limit a cache
    /// leaves unset is the default's.
    pub per_cache: HashMap<String, RateLimits>,
}

impl CacheLimitSettings {
    /// The limits of the cache `name`.
    pub fn of(&self, name: &str) -> RateLimits {
        match self.per_cache.get(name) {
            Some(own) => own.or(self.defaults),
            None => self.defaults,
        }
    }

    /// A zero rate would refuse every call: a cache that must not be used
    /// is better deleted, or kept from tokens.
    pub fn check(&self) -> Result<(), String> {
        let zero = |limits: &RateLimits| {
            [
                limits.max_calls_per_second,
                limits.max_bytes_per_second,
                limits.max_publishes_per_second,
            ]
            .contains(&Some(0))
        };
        if zero(&self.defaults) {
            return Err("--cache-calls-per-second, --cache-bytes-per-second and --cache-publishes-per-second must be above zero".into());
        }
        match self.per_cache.iter().find(|(_, limits)| zero(limits)) {
            Some((name, _)) => Err(format!("[caches.{name}]: each limit must be above zero")),
            None => Ok(()),
        }
    }
}

/// Buckets kept where every front-end of a store reaches them (Redis).
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
}

/// One limit of one cache: a bucket here, or a lease on a shared one.
enum Tokens {
    Local(Bucket),
    Shared(Lease),
}

impl Tokens {
    fn try_take(&mut self, now: Instant, amount: f64, need: f64) -> bool {
        match self {
            Tokens::Local(bucket) => bucket.try_take(now, amount, need),
            Tokens::Shared(lease) => lease.try_take(now, amount, need),
        }
    }

    fn charge(&mut self, now: Instant, amount: f64) {
        match self {
            Tokens::Local(bucket) => bucket.charge(now, amount),
            Tokens::Shared(lease) => lease.charge(now, amount),
        }
    }
}

/// The `limit` label of `jiffy_throttled_total`.
const CALLS: &str = "calls";
const BYTES: &str = "bytes";
const PUBLISHES: &str = "publishes";

/// The buckets of one cache, made when it is first called.
struct Buckets {
    calls: Option<Tokens>,
    bytes: Option<Tokens>,
    publishes: Option<Tokens>,
}

impl Buckets {
    fn new(
        name: &str,
        limits: RateLimits,
        shared: Option<&Arc<dyn SharedBuckets>>,
        now: Instant,
    ) -> Buckets {
        let tokens = |limit: &'static str, rate: Option<u64>| {
            rate.map(|rate| match shared {
                Some(shared) => Tokens::Shared(Lease::new(shared.clone(), name, limit, rate)),
                None => Tokens::Local(Bucket::new(rate, now)),
            })
        };
        Buckets {
            calls: tokens(CALLS, limits.max_calls_per_second),
            bytes: tokens(BYTES, limits.max_bytes_per_second),
            publishes: tokens(PUBLISHES, limits.max_publishes_per_second),
        }
    }
}

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
                "Calls refused for passing a per-cache rate limit, by cache and limit (calls, bytes, publishes)",
            ),
            &["cache", "limit"],
        )
        .expect("valid metric");
        Arc::new(CacheLimits {
            settings,
            off,
            buckets: Mutex::new(HashMap::new()),
            max_caches,
            shared,
            throttled,
            labelled: Mutex::new(HashSet::new()),
        })
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

    /// Forgets the cache `name`, deleted: its buckets and its series.
    pub fn forget(&self, name: &str) {
        self.buckets.lock().remove(name);
        if self.labelled.lock().remove(name) {
            for limit in [CALLS, BYTES, PUBLISHES] {
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
        let Some(limit) = refused else {
            return Ok(());
        };
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
        Err(match limit {
            CALLS => Error::CallRateExceeded {
                cache,
                limit: limits.max_calls_per_second.unwrap_or_default(),
            },
            BYTES => Error::ByteRateExceeded {
                cache,
                limit: limits.max_bytes_per_second.unwrap_or_default(),
            },
            _ => Error::PublishRateExceeded {
                cache,
                limit: limits.max_publishes_per_second.unwrap_or_default(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(defaults: RateLimits, own: &[(&str, RateLimits)]) -> CacheLimitSettings {
        CacheLimitSettings {
            defaults,
            per_cache: own
                .iter()
                .map(|(name, limits)| (name.to_string(), *limits))
                .collect(),
        }
    }

    const TEN_CALLS: RateLimits = RateLimits {
        max_calls_per_second: Some(10),
        max_bytes_per_second: None,
        max_publishes_per_second: None,
    };

    #[test]
    fn a_cache_has_its_own_limits_over_the_defaults() {
        let own = RateLimits {
            max_calls_per_second: Some(2),
            max_bytes_per_second: Some(100),
            max_publishes_per_second: None,
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

    #[test]
    fn a_zero_rate_is_refused_and_sizes_take_units() {
        let own: RateLimits =
            toml::from_str("max-bytes-per-second = \"1KiB\"\nmax-calls-per-second = 5").unwrap();
        assert_eq!(own.max_bytes_per_second, Some(1024));
        assert!(settings(own, &[]).check().is_ok());
        let zero: RateLimits = toml::from_str("max-publishes-per-second = 0").unwrap();
        let err = settings(RateLimits::default(), &[("t", zero)])
            .check()
            .unwrap_err();
        assert!(err.contains("[caches.t]"), "{err}");
        assert!(toml::from_str::<RateLimits>("max-call-per-second = 1").is_err());
    }
}
