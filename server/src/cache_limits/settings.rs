//! What limits each cache has: the server-wide defaults, and each cache's
//! own from the config file's `[caches.NAME]` tables.

use std::collections::HashMap;

use serde::Deserialize;

/// The rates one cache may use, and the subscriptions it may hold open;
/// `None` is unlimited.
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
    /// Topic subscriptions open at once, on all front-ends of the store
    /// together.
    pub max_subscriptions: Option<u64>,
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
    pub(super) fn is_unlimited(&self) -> bool {
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
            max_subscriptions: self.max_subscriptions.or(defaults.max_subscriptions),
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
                limits.max_subscriptions,
            ]
            .contains(&Some(0))
        };
        if zero(&self.defaults) {
            return Err("--cache-calls-per-second, --cache-bytes-per-second, --cache-publishes-per-second and --cache-max-subscriptions must be above zero".into());
        }
        match self.per_cache.iter().find(|(_, limits)| zero(limits)) {
            Some((name, _)) => Err(format!("[caches.{name}]: each limit must be above zero")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
pub(super) fn settings(defaults: RateLimits, own: &[(&str, RateLimits)]) -> CacheLimitSettings {
    CacheLimitSettings {
        defaults,
        per_cache: own
            .iter()
            .map(|(name, limits)| (name.to_string(), *limits))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let own: RateLimits = toml::from_str("max-subscriptions = 0").unwrap();
        assert!(settings(RateLimits::default(), &[("s", own)])
            .check()
            .is_err());
    }
}
