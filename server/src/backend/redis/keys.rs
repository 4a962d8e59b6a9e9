//! Where things live in the cluster.
//!
//! - `{jiffy}:caches`: hash of cache name -> generation (the cache list).
//! - `{jiffy}:generations`: the counter generations are drawn from.
//! - `{jiffy}:signing-keys`: hash of signing key id -> its public half and
//!   expiry (`crate::auth::signing_keys`).
//! - `jg:{<cache>/<bucket>}`: a bucket's current generation.
//! - `ji:{<cache>/<bucket>}:<key>`: an item: a scalar's value, or the
//!   marker of a collection.
//! - `jd:{<cache>/<bucket>}:<key>`: a collection's data (a Redis hash, set,
//!   list or sorted set), beside its marker.
//!
//! A cache is split into [`BUCKETS`] buckets by a hash of the key. The hash
//! tag `{<cache>/<bucket>}` puts a bucket's generation key and its items in
//! one slot, so one script can check the generation and touch the item
//! atomically, while the buckets of one cache spread over up to
//! [`BUCKETS`] slots, and so over every node of the cluster. Cache names
//! are ASCII letters, digits, `-`, `_` and `.`, so they never contain the
//! `{`, `}` or `/` that would make these names ambiguous.

pub const CACHES: &str = "{jiffy}:caches";
pub const GENERATIONS: &str = "{jiffy}:generations";
pub const SIGNING_KEYS: &str = "{jiffy}:signing-keys";

/// Enough buckets that a cache's load spreads evenly over a cluster of tens
/// of masters; few enough that a create, flush or delete (one small script
/// per bucket, all in flight at once) takes milliseconds.
pub const BUCKETS: u32 = 1024;

/// The bucket a key falls in. FNV-1a, written out here because every
/// front-end, of every version, must agree on it forever; the standard
/// library's hashers promise no such stability.
pub fn bucket_of(key: &[u8]) -> u32 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = key.iter().fold(OFFSET, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    });
    (hash % u64::from(BUCKETS)) as u32
}

pub fn generation_key(cache: &str, bucket: u32) -> String {
    format!("jg:{{{cache}/{bucket}}}")
}

/// The generation key, the item key and the collection data key of `key`,
/// in the order the item scripts take them.
pub fn item_keys(cache: &str, key: &[u8]) -> (String, Vec<u8>, Vec<u8>) {
    let bucket = bucket_of(key);
    let named = |prefix: &str| {
        let mut name = format!("{prefix}:{{{cache}/{bucket}}}:").into_bytes();
        name.extend_from_slice(key);
        name
    };
    (generation_key(cache, bucket), named("ji"), named("jd"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_and_its_generation_share_a_hash_tag() {
        let (generation, item, data) = item_keys("users", b"alice");
        let tag = |name: &[u8]| {
            let open = name.iter().position(|&b| b == b'{').unwrap();
            let close = name.iter().position(|&b| b == b'}').unwrap();
            name[open..=close].to_vec()
        };
        assert_eq!(tag(generation.as_bytes()), tag(&item));
        assert_eq!(tag(&item), tag(&data));
        assert!(item.ends_with(b":alice"));
    }

    #[test]
    fn the_bucket_of_a_key_never_changes() {
        // Fixed values: a change here would strand every stored item.
        assert_eq!(u64::from(bucket_of(b"")), 0xcbf2_9ce4_8422_2325_u64 % 1024);
        assert_eq!(u64::from(bucket_of(b"a")), 0xaf63_dc4c_8601_ec8c_u64 % 1024);
    }

    #[test]
    fn keys_spread_over_the_buckets() {
        let mut used = std::collections::HashSet::new();
        for n in 0..20_000 {
            used.insert(bucket_of(format!("key-{n}").as_bytes()));
        }
        assert_eq!(used.len(), BUCKETS as usize);
    }
}
