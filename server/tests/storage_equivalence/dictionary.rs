//! Random dictionary calls for the equivalence test: on dictionaries and on
//! the scalars' and lists' keys, with values that are and are not integers
//! for DictionaryIncrement, each answered alike by both stores. Only valid
//! arguments, as for lists: the handlers refuse bad ones before either
//! store sees them (`tests/dictionary.rs` checks that on both).

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
