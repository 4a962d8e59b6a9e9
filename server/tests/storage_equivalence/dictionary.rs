//! Random dictionary calls for the equivalence test: on dictionaries and on
//! the scalars' and lists' keys, with values that are and are not integers
//! for DictionaryIncrement, each answered alike by both stores. Only valid
//! arguments, as for lists: the handlers refuse bad ones before either
//! store sees them (`tests/dictionary.rs` checks that on both).
//!
//! Also the size a dictionary's marker carries in Redis (see
//! `item_prelude.lua`): after every call it is the size of the entries held
//! as a fetch's answer encodes them, a fetch too large is refused by it
//! without a walk, and a dictionary whose marker has none (an older
//! front-end's) is walked.

use super::markers::{marker_size, redis_time_per_call, remark, walked_size, Kind, OverRedis};
use super::*;

#[derive(Clone, Debug)]
pub enum DictionaryCall {
    /// Key, (field, value) pairs, TTL, refresh.
    Set(usize, Vec<(usize, usize)>, u64, bool),
    /// Key, field, amount, TTL, refresh.
    Increment(usize, usize, usize, u64, bool),
    Get(usize, Vec<usize>),
    Fetch(usize),
    /// Key, and the fields; none: delete all.
    Delete(usize, Option<Vec<usize>>),
    Length(usize),
}

impl DictionaryCall {
    pub fn key(&self) -> usize {
        match self {
            DictionaryCall::Set(k, ..)
            | DictionaryCall::Increment(k, ..)
            | DictionaryCall::Get(k, _)
            | DictionaryCall::Fetch(k)
            | DictionaryCall::Delete(k, _)
            | DictionaryCall::Length(k) => *k,
        }
    }
}

/// Few, so that writes meet fields already held.
const FIELDS: &[&[u8]] = &[b"", b"f", b"g", b"\x00\xff"];

pub fn dictionary_call() -> impl Strategy<Value = DictionaryCall> {
    let key = 0..KEYS.len();
    let field = 0..FIELDS.len();
    let fields = prop::collection::vec(field.clone(), 1..4);
    let ttl = (1..=3u64).prop_map(|n| n * TEN_MINUTES);
    prop_oneof![
        5 => (
            key.clone(),
            prop::collection::vec((field.clone(), 0..VALUES.len()), 1..4),
            ttl.clone(),
            any::<bool>(),
        )
            .prop_map(|(k, items, ttl, r)| DictionaryCall::Set(k, items, ttl, r)),
        4 => (key.clone(), field, 0..AMOUNTS.len(), ttl, any::<bool>())
            .prop_map(|(k, f, a, ttl, r)| DictionaryCall::Increment(k, f, a, ttl, r)),
        3 => (key.clone(), fields.clone()).prop_map(|(k, f)| DictionaryCall::Get(k, f)),
        2 => key.clone().prop_map(DictionaryCall::Fetch),
        2 => (key.clone(), prop::option::of(fields)).prop_map(|(k, f)| DictionaryCall::Delete(k, f)),
        1 => key.prop_map(DictionaryCall::Length),
    ]
}

pub async fn dictionary_answer(data: &mut ScsClient<Channel>, call: DictionaryCall) -> String {
    use cc::dictionary_delete_request::{All, Delete, Some as Fields};
    let name = |k: usize| Bytes::from_static(KEYS[k]);
    let field = |f: usize| Bytes::from_static(FIELDS[f]);
    match call {
        DictionaryCall::Set(k, items, ttl, refresh) => shown(
            data.dictionary_set(request(cc::DictionarySetRequest {
                dictionary_name: name(k),
                items: items
                    .into_iter()
                    .map(|(f, v)| cc::DictionaryFieldValuePair {
                        field: field(f),
                        value: Bytes::from_static(VALUES[v]),
                    })
                    .collect(),
                ttl_milliseconds: ttl,
                refresh_ttl: refresh,
            }))
            .await,
        ),
        DictionaryCall::Increment(k, f, a, ttl, refresh) => shown(
            data.dictionary_increment(request(cc::DictionaryIncrementRequest {
                dictionary_name: name(k),
                field: field(f),
                amount: AMOUNTS[a],
                ttl_milliseconds: ttl,
                refresh_ttl: refresh,
            }))
            .await,
        ),
        DictionaryCall::Get(k, fields) => shown(
            data.dictionary_get(request(cc::DictionaryGetRequest {
                dictionary_name: name(k),
                fields: fields.into_iter().map(field).collect(),
            }))
            .await,
        ),
        DictionaryCall::Fetch(k) => {
            let mut answer = data
                .dictionary_fetch(request(cc::DictionaryFetchRequest {
                    dictionary_name: name(k),
                }))
                .await;
            // A map, in each store's own order: compared by field.
            if let Ok(response) = &mut answer {
                use cc::dictionary_fetch_response::Dictionary;
                if let Some(Dictionary::Found(found)) = &mut response.get_mut().dictionary {
                    found.items.sort_by(|a, b| a.field.cmp(&b.field));
                }
            }
            shown(answer)
        }
        DictionaryCall::Delete(k, fields) => {
            let delete = match fields {
                None => Delete::All(All {}),
                Some(fields) => Delete::Some(Fields {
                    fields: fields.into_iter().map(field).collect(),
                }),
            };
            shown(
                data.dictionary_delete(request(cc::DictionaryDeleteRequest {
                    dictionary_name: name(k),
                    delete: Some(delete),
                }))
                .await,
            )
        }
        DictionaryCall::Length(k) => shown(
            data.dictionary_length(request(cc::DictionaryLengthRequest {
                dictionary_name: name(k),
            }))
            .await,
        ),
    }
}

/// A fetch is refused by the size the marker carries, without a walk (a
/// marker made to claim more than `--max-response-size` refuses a small
/// dictionary); without a size it is walked as before (and refused by the
/// walk), and writes keep it without one, so no count is trusted that was
/// not kept from the start.
#[tokio::test(flavor = "multi_thread")]
async fn a_fetch_is_refused_by_the_kept_size_and_walks_without_one() {
    let over_redis = OverRedis::with_small_answers().await;
    let (mut clients, mut connection) = (over_redis.clients, over_redis.connection);
    let key = KEYS[0];
    let set = DictionaryCall::Set(0, vec![(1, 1), (2, 3)], TEN_MINUTES, false);
    dictionary_answer(&mut clients.data, set.clone()).await;
    let fetched = dictionary_answer(&mut clients.data, DictionaryCall::Fetch(0)).await;
    assert!(fetched.contains("Found"), "{fetched}");
    // ("f", "x") and ("g", "12") as a fetch's answer encodes them: each a
    // pair of two fields (3 and 3, 3 and 4 bytes) behind a tag and length.
    assert_eq!(
        marker_size(&mut connection, Kind::Dictionary, key).await,
        Some(":17".into())
    );

    // A marker that claims 5,000 bytes: refused without a look at the hash.
    remark(&mut connection, Kind::Dictionary, key, ":5000").await;
    let refused = dictionary_answer(&mut clients.data, DictionaryCall::Fetch(0)).await;
    assert!(
        refused.contains("ResourceExhausted") && refused.contains("5000"),
        "{refused}"
    );

    // Without a size (an older front-end's marker): walked, and kept so.
    remark(&mut connection, Kind::Dictionary, key, "").await;
    assert_eq!(
        dictionary_answer(&mut clients.data, DictionaryCall::Fetch(0)).await,
        fetched
    );
    let more = DictionaryCall::Set(0, vec![(3, 2)], TEN_MINUTES, false);
    dictionary_answer(&mut clients.data, more).await;
    assert_eq!(
        marker_size(&mut connection, Kind::Dictionary, key).await,
        Some(String::new())
    );
    let big = cc::DictionarySetRequest {
        dictionary_name: Bytes::from_static(key),
        items: [&b"big"[..], b"bigger"]
            .map(|field| cc::DictionaryFieldValuePair {
                field: Bytes::from_static(field),
                value: Bytes::from(vec![b'v'; 1000]),
            })
            .into(),
        ttl_milliseconds: TEN_MINUTES,
        refresh_ttl: false,
    };
    clients.data.dictionary_set(request(big)).await.unwrap();
    assert_eq!(
        marker_size(&mut connection, Kind::Dictionary, key).await,
        Some(String::new())
    );
    let refused = dictionary_answer(&mut clients.data, DictionaryCall::Fetch(0)).await;
    let walked = walked_size(&mut connection, Kind::Dictionary, key).await;
    assert!(refused.contains(&format!("be {walked} bytes")), "{refused}");
}

/// The Redis time of a refused DictionaryFetch of an 8 MiB dictionary
/// (65,536 fields of 128 bytes, over the default `--max-response-size`),
/// as Redis counts it (`INFO commandstats`, the scripts' usec_per_call):
/// with the size in the marker, and with the marker stripped of it, as an
/// older front-end left it, which walks the hash as every fetch did before.
/// A figure to read, not a bound:
///
/// ```sh
/// cargo test -p jiffy-server --test integration refused_fetch_redis_time -- --ignored --nocapture
/// ```
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn refused_fetch_redis_time() {
    const FIELDS: usize = 65_536;
    const PER_REQUEST: usize = 8_192;
    let over_redis = OverRedis::with_time_to_walk().await;
    let (mut clients, mut connection) = (over_redis.clients, over_redis.connection);
    let key = KEYS[0];
    for start in (0..FIELDS).step_by(PER_REQUEST) {
        let set = cc::DictionarySetRequest {
            dictionary_name: Bytes::from_static(key),
            items: (start..start + PER_REQUEST)
                .map(|i| cc::DictionaryFieldValuePair {
                    field: Bytes::from(format!("field-{i:07}")),
                    value: Bytes::from(vec![b'v'; 128 - 13]),
                })
                .collect(),
            ttl_milliseconds: TEN_MINUTES,
            refresh_ttl: false,
        };
        clients.data.dictionary_set(request(set)).await.unwrap();
    }
    let size = marker_size(&mut connection, Kind::Dictionary, key)
        .await
        .unwrap();
    // Each entry a pair of a 13-byte field and a 115-byte value, each
    // behind a tag and a length, behind a tag and a two-byte length.
    assert_eq!(size, format!(":{}", FIELDS * (3 + 15 + 117)));
    let data = &mut clients.data;
    let mut fetch = async || {
        let answer = dictionary_answer(data, DictionaryCall::Fetch(0)).await;
        assert!(answer.contains("ResourceExhausted"), "{answer}");
    };
    let what = "refused 8 MiB DictionaryFetch, size in the marker";
    redis_time_per_call(&mut connection, what, &mut fetch).await;
    remark(&mut connection, Kind::Dictionary, key, "").await;
    let what = "refused 8 MiB DictionaryFetch, no size (walked, as before)";
    redis_time_per_call(&mut connection, what, &mut fetch).await;
}
