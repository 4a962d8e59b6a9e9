//! The calls of `cache_client.Scs` that are declared but not served yet:
//! the collection calls (sets, sorted sets). Each answers UNIMPLEMENTED
//! naming itself, so a client sees which call is missing rather than a bare
//! status.
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

    sorted_set_put(SortedSetPutRequest) -> SortedSetPutResponse = "SortedSetPut";
    sorted_set_fetch(SortedSetFetchRequest) -> SortedSetFetchResponse = "SortedSetFetch";
    sorted_set_get_score(SortedSetGetScoreRequest) -> SortedSetGetScoreResponse = "SortedSetGetScore";
    sorted_set_remove(SortedSetRemoveRequest) -> SortedSetRemoveResponse = "SortedSetRemove";
    sorted_set_increment(SortedSetIncrementRequest) -> SortedSetIncrementResponse = "SortedSetIncrement";
    sorted_set_get_rank(SortedSetGetRankRequest) -> SortedSetGetRankResponse = "SortedSetGetRank";
    sorted_set_length(SortedSetLengthRequest) -> SortedSetLengthResponse = "SortedSetLength";
    sorted_set_length_by_score(SortedSetLengthByScoreRequest) -> SortedSetLengthByScoreResponse = "SortedSetLengthByScore";
    sorted_set_union_store(SortedSetUnionStoreRequest) -> SortedSetUnionStoreResponse = "SortedSetUnionStore";
}
