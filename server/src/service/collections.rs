//! The calls of `cache_client.Scs` that are declared but not served yet:
//! the collection calls (dictionaries, sets, lists,
//! sorted sets). Each answers UNIMPLEMENTED naming itself, so a client sees
//! which call is missing rather than a bare status.
//!
//! As a data type is built, its rows leave this table for a file of real
//! handlers (`dictionary.rs`, `set.rs`, `list.rs`, `sorted_set.rs`,
//! `hash.rs`), `scs.rs` routes the calls there, and the catalogue
//! (`rpcs.rs`) marks them served.

use tonic::Request;

use super::{not_served, Answer};
use crate::proto::cache_client::*;

/// One stub per row: `handler(Request) -> Response = "CatalogueName";`.
macro_rules! not_served_yet {
    ($($handler:ident($request:ident) -> $response:ident = $name:literal;)*) => {$(
        pub(super) fn $handler(_request: Request<$request>) -> Answer<$response> {
            Err(not_served($name))
        }
    )*};
}

not_served_yet! {
    dictionary_get(DictionaryGetRequest) -> DictionaryGetResponse = "DictionaryGet";
    dictionary_fetch(DictionaryFetchRequest) -> DictionaryFetchResponse = "DictionaryFetch";
    dictionary_set(DictionarySetRequest) -> DictionarySetResponse = "DictionarySet";
    dictionary_increment(DictionaryIncrementRequest) -> DictionaryIncrementResponse = "DictionaryIncrement";
    dictionary_delete(DictionaryDeleteRequest) -> DictionaryDeleteResponse = "DictionaryDelete";
    dictionary_length(DictionaryLengthRequest) -> DictionaryLengthResponse = "DictionaryLength";

    set_fetch(SetFetchRequest) -> SetFetchResponse = "SetFetch";
    set_sample(SetSampleRequest) -> SetSampleResponse = "SetSample";
    set_union(SetUnionRequest) -> SetUnionResponse = "SetUnion";
    set_difference(SetDifferenceRequest) -> SetDifferenceResponse = "SetDifference";
    set_contains(SetContainsRequest) -> SetContainsResponse = "SetContains";
    set_length(SetLengthRequest) -> SetLengthResponse = "SetLength";
    set_pop(SetPopRequest) -> SetPopResponse = "SetPop";
}
