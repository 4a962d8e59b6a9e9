//! Answers larger than a call's own in-flight charge (16 KiB): read whole,
//! and refused with RESOURCE_EXHAUSTED, changing nothing, when they do not
//! fit the in-flight bound. Over Redis such an answer is announced by its
//! size and charged before it leaves Redis (`RedisStore::run_read`); the
//! embedded store shares the item's memory and charges it as it encodes.
//! Every test runs on both stores.

use bytes::Bytes;
use common::stores::{on_both_stores, Store};
use common::{assert_status, TestServer};
use jiffy_server::proto::cache_client::*;
use tonic::Code;

use crate::common;

on_both_stores!(
    large_answers_are_read_whole,
    an_answer_over_the_in_flight_bound_is_refused_and_changes_nothing,
);

const CACHE: &str = "large";

/// Distinct elements of `size` bytes each.
fn elements(count: usize, size: usize) -> Vec<Bytes> {
    (0..count)
        .map(|i| {
            let mut element = format!("{i:08}").into_bytes();
            element.resize(size, b'a' + (i % 26) as u8);
            Bytes::from(element)
        })
        .collect()
}

async fn cache_client(server: &TestServer) -> common::Data {
    server.cache(CACHE).await
}

async fn push_back(data: &mut common::Data, list: &str, values: Vec<Bytes>) {
    let push = ListConcatenateBackRequest {
        list_name: Bytes::copy_from_slice(list.as_bytes()),
        values,
        ttl_milliseconds: 60_000,
        refresh_ttl: true,
        truncate_front_to_size: 0,
    };
    data.client
        .list_concatenate_back(data.request(push))
        .await
        .unwrap();
}

async fn fetch_list(
    data: &mut common::Data,
    list: &str,
) -> Result<Option<Vec<Bytes>>, tonic::Status> {
    let fetch = ListFetchRequest {
        list_name: Bytes::copy_from_slice(list.as_bytes()),
        start_index: None,
        end_index: None,
    };
    let answer = data.client.list_fetch(data.request(fetch)).await?;
    Ok(match answer.into_inner().list {
        Some(list_fetch_response::List::Found(found)) => Some(found.values),
        _ => None,
    })
}

async fn large_answers_are_read_whole(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut data = cache_client(&server).await;

    let value = elements(1, 1 << 20).remove(0);
    data.put(b"scalar", &value).await;
    assert_eq!(data.value_of(b"scalar").await, value);

    let values = elements(40, 1 << 10);
    push_back(&mut data, "list", values.clone()).await;
    assert_eq!(
        fetch_list(&mut data, "list").await.unwrap(),
        Some(values.clone())
    );

    let items: Vec<DictionaryFieldValuePair> = values
        .iter()
        .map(|v| DictionaryFieldValuePair {
            field: v.slice(..8),
            value: v.clone(),
        })
        .collect();
    let set = DictionarySetRequest {
        dictionary_name: Bytes::from_static(b"dictionary"),
        items: items.clone(),
        ttl_milliseconds: 60_000,
        refresh_ttl: true,
    };
    data.client.dictionary_set(data.request(set)).await.unwrap();
    let fetch = DictionaryFetchRequest {
        dictionary_name: Bytes::from_static(b"dictionary"),
    };
    let answer = data.client.dictionary_fetch(data.request(fetch)).await;
    let Some(dictionary_fetch_response::Dictionary::Found(found)) =
        answer.unwrap().into_inner().dictionary
    else {
        panic!("the dictionary was not found");
    };
    let mut fetched = found.items;
    fetched.sort_by(|a, b| a.field.cmp(&b.field));
    assert_eq!(fetched, items);

    let union = SetUnionRequest {
        set_name: Bytes::from_static(b"set"),
        elements: values.clone(),
        ttl_milliseconds: 60_000,
        refresh_ttl: true,
    };
    data.client.set_union(data.request(union)).await.unwrap();
    let fetch = SetFetchRequest {
        set_name: Bytes::from_static(b"set"),
    };
    let answer = data.client.set_fetch(data.request(fetch)).await;
    let Some(set_fetch_response::Set::Found(found)) = answer.unwrap().into_inner().set else {
        panic!("the set was not found");
    };
    let mut fetched = found.elements;
    fetched.sort();
    assert_eq!(fetched, values);
}

/// A list of 3 x 900 KiB under a 2 MiB in-flight bound: fetching it whole
/// is refused; the list is intact, and a slice that fits is answered.
async fn an_answer_over_the_in_flight_bound_is_refused_and_changes_nothing(store: Store) {
    let args = [
        "--max-in-flight-bytes",
        "2MiB",
        "--max-request-size",
        "1MiB",
        "--max-value-size",
        "1MiB",
    ];
    let (server, _redis) = store.start(&args).await;
    let mut data = cache_client(&server).await;
    let values = elements(3, 900 << 10);
    for value in &values {
        push_back(&mut data, "list", vec![value.clone()]).await;
    }

    let refused = fetch_list(&mut data, "list").await;
    let status = assert_status(refused, Code::ResourceExhausted, None);
    assert!(
        status.message().contains("--max-in-flight-bytes"),
        "{status:?}"
    );

    let length = ListLengthRequest {
        list_name: Bytes::from_static(b"list"),
    };
    let answer = data.client.list_length(data.request(length)).await;
    assert!(matches!(
        answer.unwrap().into_inner().list,
        Some(list_length_response::List::Found(
            list_length_response::Found { length: 3 }
        ))
    ));
    let one = ListFetchRequest {
        list_name: Bytes::from_static(b"list"),
        start_index: Some(list_fetch_request::StartIndex::InclusiveStart(1)),
        end_index: Some(list_fetch_request::EndIndex::ExclusiveEnd(2)),
    };
    let answer = data.client.list_fetch(data.request(one)).await.unwrap();
    let Some(list_fetch_response::List::Found(found)) = answer.into_inner().list else {
        panic!("the list was not found");
    };
    assert_eq!(found.values, vec![values[1].clone()]);
    // The refused answer's charge was released: the bound is free again.
    let again = fetch_list(&mut data, "list").await;
    assert_status(again, Code::ResourceExhausted, None);
    let answer = data.client.list_fetch(data.request(ListFetchRequest {
        list_name: Bytes::from_static(b"list"),
        start_index: Some(list_fetch_request::StartIndex::InclusiveStart(0)),
        end_index: Some(list_fetch_request::EndIndex::ExclusiveEnd(2)),
    }));
    let Some(list_fetch_response::List::Found(found)) = answer.await.unwrap().into_inner().list
    else {
        panic!("the list was not found");
    };
    assert_eq!(found.values, values[..2].to_vec());
}
