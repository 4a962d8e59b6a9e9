//! The server-side scripts. Each call that reads and then writes runs as one
//! Lua script, which Redis executes atomically; the sources are in `lua/`.

use std::sync::LazyLock;

use redis::Script;

macro_rules! item_script {
    ($file:literal) => {
        LazyLock::new(|| {
            Script::new(concat!(
                include_str!("lua/item_prelude.lua"),
                include_str!(concat!("lua/", $file))
            ))
        })
    };
}

/// A collection script: the item prelude, the collection prelude, the call.
/// The collection types' scripts are declared with it (`collection_script!`).
macro_rules! collection_script {
    ($file:literal) => {
        LazyLock::new(|| {
            Script::new(concat!(
                include_str!("lua/item_prelude.lua"),
                include_str!("lua/collection_prelude.lua"),
                include_str!(concat!("lua/", $file))
            ))
        })
    };
}

/// A list script that takes a slice: `list_slice.lua` before the call.
macro_rules! list_slice_script {
    ($file:literal) => {
        LazyLock::new(|| {
            Script::new(concat!(
                include_str!("lua/item_prelude.lua"),
                include_str!("lua/collection_prelude.lua"),
                include_str!("lua/list_slice.lua"),
                include_str!(concat!("lua/", $file))
            ))
        })
    };
}

/// A script of the given sources of `lua/`, in order: for the read scripts,
/// whose answers can be large, `read_prelude.lua` first. Their callers go
/// through `RedisStore::run_read`, which passes the cap it expects.
macro_rules! script {
    ($($file:literal),+) => {
        LazyLock::new(|| Script::new(concat!($(include_str!(concat!("lua/", $file))),+)))
    };
}

pub static GET: LazyLock<Script> = script!("read_prelude.lua", "item_prelude.lua", "get.lua");
pub static SET: LazyLock<Script> = item_script!("set.lua");
pub static SET_IF: LazyLock<Script> = item_script!("set_if.lua");
pub static DELETE: LazyLock<Script> = item_script!("delete.lua");
pub static EXISTS: LazyLock<Script> = item_script!("exists.lua");
pub static INCREMENT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        include_str!("lua/item_prelude.lua"),
        include_str!("lua/integer.lua"),
        include_str!("lua/increment.lua")
    ))
});
pub static UPDATE_TTL: LazyLock<Script> = item_script!("update_ttl.lua");
pub static REMAINING_TTL: LazyLock<Script> = item_script!("remaining_ttl.lua");
pub static ITEM_TYPE: LazyLock<Script> = item_script!("item_type.lua");

pub static LIST_CONCATENATE: LazyLock<Script> = collection_script!("list_concatenate.lua");
pub static LIST_POP: LazyLock<Script> = collection_script!("list_pop.lua");
pub static LIST_FETCH: LazyLock<Script> = script!(
    "read_prelude.lua",
    "item_prelude.lua",
    "collection_prelude.lua",
    "list_slice.lua",
    "list_fetch.lua"
);
pub static LIST_LENGTH: LazyLock<Script> = collection_script!("list_length.lua");
pub static LIST_RETAIN: LazyLock<Script> = list_slice_script!("list_retain.lua");
pub static LIST_REMOVE: LazyLock<Script> = collection_script!("list_remove.lua");
pub static LIST_ERASE: LazyLock<Script> = collection_script!("list_erase.lua");

pub static SET_UNION: LazyLock<Script> = collection_script!("set_collection_union.lua");
pub static SET_DIFFERENCE: LazyLock<Script> = collection_script!("set_collection_difference.lua");
pub static SET_FETCH: LazyLock<Script> = script!(
    "read_prelude.lua",
    "item_prelude.lua",
    "collection_prelude.lua",
    "set_collection_fetch.lua"
);
pub static SET_CONTAINS: LazyLock<Script> = collection_script!("set_collection_contains.lua");
pub static SET_LENGTH: LazyLock<Script> = collection_script!("set_collection_length.lua");
pub static SET_POP: LazyLock<Script> = script!(
    "read_prelude.lua",
    "item_prelude.lua",
    "collection_prelude.lua",
    "set_collection_pop.lua"
);
pub static SET_SAMPLE: LazyLock<Script> = script!(
    "read_prelude.lua",
    "item_prelude.lua",
    "collection_prelude.lua",
    "set_collection_sample.lua"
);
pub static DICTIONARY_SET: LazyLock<Script> = collection_script!("dictionary_set.lua");
pub static DICTIONARY_INCREMENT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        include_str!("lua/item_prelude.lua"),
        include_str!("lua/collection_prelude.lua"),
        include_str!("lua/integer.lua"),
        include_str!("lua/dictionary_increment.lua")
    ))
});
pub static DICTIONARY_GET: LazyLock<Script> = script!(
    "read_prelude.lua",
    "item_prelude.lua",
    "collection_prelude.lua",
    "dictionary_get.lua"
);
pub static DICTIONARY_FETCH: LazyLock<Script> = script!(
    "read_prelude.lua",
    "item_prelude.lua",
    "collection_prelude.lua",
    "dictionary_fetch.lua"
);
pub static DICTIONARY_DELETE: LazyLock<Script> = collection_script!("dictionary_delete.lua");
pub static DICTIONARY_LENGTH: LazyLock<Script> = collection_script!("dictionary_length.lua");
pub static SORTED_SET_PUT: LazyLock<Script> = collection_script!("sorted_set_put.lua");
pub static SORTED_SET_FETCH: LazyLock<Script> = script!(
    "read_prelude.lua",
    "item_prelude.lua",
    "collection_prelude.lua",
    "list_slice.lua",
    "sorted_set_fetch.lua"
);
pub static SORTED_SET_GET_SCORES: LazyLock<Script> =
    collection_script!("sorted_set_get_scores.lua");
pub static SORTED_SET_GET_RANK: LazyLock<Script> = collection_script!("sorted_set_get_rank.lua");
pub static SORTED_SET_INCREMENT: LazyLock<Script> = collection_script!("sorted_set_increment.lua");
pub static SORTED_SET_REMOVE: LazyLock<Script> = collection_script!("sorted_set_remove.lua");
pub static SORTED_SET_LENGTH: LazyLock<Script> = collection_script!("sorted_set_length.lua");
pub static SORTED_SET_LENGTH_BY_SCORE: LazyLock<Script> =
    collection_script!("sorted_set_length_by_score.lua");
pub static SORTED_SET_UNION_STORE: LazyLock<Script> =
    collection_script!("sorted_set_union_store.lua");

pub static LEADERBOARD_UPSERT: LazyLock<Script> = script!(
    "item_prelude.lua",
    "collection_prelude.lua",
    "leaderboard_prelude.lua",
    "leaderboard_upsert.lua"
);
pub static LEADERBOARD_REMOVE: LazyLock<Script> = script!(
    "item_prelude.lua",
    "collection_prelude.lua",
    "leaderboard_prelude.lua",
    "leaderboard_remove.lua"
);
pub static LEADERBOARD_DELETE: LazyLock<Script> = script!(
    "item_prelude.lua",
    "collection_prelude.lua",
    "leaderboard_prelude.lua",
    "leaderboard_delete.lua"
);
pub static LEADERBOARD_LENGTH: LazyLock<Script> = script!(
    "item_prelude.lua",
    "collection_prelude.lua",
    "leaderboard_prelude.lua",
    "leaderboard_length.lua"
);
pub static LEADERBOARD_BY_RANK: LazyLock<Script> = script!(
    "item_prelude.lua",
    "collection_prelude.lua",
    "leaderboard_prelude.lua",
    "leaderboard_by_rank.lua"
);
pub static LEADERBOARD_BY_SCORE: LazyLock<Script> = script!(
    "item_prelude.lua",
    "collection_prelude.lua",
    "leaderboard_prelude.lua",
    "leaderboard_by_score.lua"
);
pub static LEADERBOARD_RANK: LazyLock<Script> = script!(
    "item_prelude.lua",
    "collection_prelude.lua",
    "leaderboard_prelude.lua",
    "leaderboard_rank.lua"
);

pub static REGISTRY_CHANGE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/registry_change.lua")));
pub static BUCKET_UPDATE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/bucket_update.lua")));

/// What the item scripts return when the cache does not exist.
pub const NO_CACHE: i64 = 0;

/// The code of the error reply an item script gives for a call on an item
/// of another type: `JIFFYTYPE <expected> <found>`.
pub const WRONG_TYPE: &str = "JIFFYTYPE";
