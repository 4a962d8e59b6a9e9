"""The calls, without I/O: the RPC table, request builders, response readers.

Both clients (async and sync) build every request and read every response
here, or in the module of its kind (_hash, _dictionary, _list, _set,
_sorted_set), so the two differ only in how they wait. Every RPC is in the
one table below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from jiffy._config import seconds
from jiffy._exceptions import InvalidArgumentError
from jiffy._proto import cacheclient_pb2 as cache_pb
from jiffy._proto import cacheping_pb2 as ping_pb
from jiffy._proto import cachepubsub_pb2 as pubsub_pb
from jiffy._proto import common_pb2 as common_pb
from jiffy._proto import controlclient_pb2 as control_pb

Key = str | bytes
Value = str | bytes
Ttl = float | timedelta


# eq=False: hashed by identity, so a lookup by Rpc costs one pointer hash.
@dataclass(frozen=True, slots=True, eq=False)
class Rpc:
    """One RPC: its path, codecs, and whether a retry is safe."""

    name: str
    path: str
    serialize: Callable[[Any], bytes]
    deserialize: Callable[[bytes], Any]
    idempotent: bool
    """Safe to send twice: retried on UNAVAILABLE / INTERNAL."""
    streaming: bool = False
    """Server-streaming answer (GetBatch, SetBatch; Subscribe, read as it comes)."""
    control: bool = False
    """Goes to the control endpoint, without the `cache` header."""
    names_cache: bool = True
    """Names a cache, so NOT_FOUND without a reason means that cache."""


def _data(name: str, response: Any, idempotent: bool, streaming: bool = False) -> Rpc:
    request = getattr(cache_pb, f"_{name}Request")
    return Rpc(
        name,
        f"/cache_client.Scs/{name}",
        request.SerializeToString,
        response.FromString,
        idempotent,
        streaming,
    )


def _scs(name: str, idempotent: bool) -> Rpc:
    """A unary data call whose messages are named after it (_<name>Request / Response)."""
    return _data(name, getattr(cache_pb, f"_{name}Response"), idempotent)


def _control(name: str, idempotent: bool, names_cache: bool = True) -> Rpc:
    request = getattr(control_pb, f"_{name}Request")
    response = getattr(control_pb, f"_{name}Response")
    return Rpc(
        name,
        f"/control_client.ScsControl/{name}",
        request.SerializeToString,
        response.FromString,
        idempotent,
        control=True,
        names_cache=names_cache,
    )


# Control calls: ListCaches is retried (a read). CreateCache and DeleteCache
# are not: a retry after a lost answer would report ALREADY_EXISTS /
# NOT_FOUND for the client's own success, which is worse than surfacing the
# UNAVAILABLE. Nor is FlushCache: a second flush would also erase what other
# clients wrote after the first one (the TypeScript SDK draws the same line).
GET = _data("Get", cache_pb._GetResponse, True)
GET_BATCH = _data("GetBatch", cache_pb._GetResponse, True, streaming=True)
SET = _data("Set", cache_pb._SetResponse, True)
SET_BATCH = _data("SetBatch", cache_pb._SetResponse, True, streaming=True)
SET_IF = _data("SetIf", cache_pb._SetIfResponse, False)
SET_IF_NOT_EXISTS = _data("SetIfNotExists", cache_pb._SetIfNotExistsResponse, False)
DELETE = _data("Delete", cache_pb._DeleteResponse, True)
KEYS_EXIST = _data("KeysExist", cache_pb._KeysExistResponse, True)
INCREMENT = _data("Increment", cache_pb._IncrementResponse, False)
UPDATE_TTL = _data("UpdateTtl", cache_pb._UpdateTtlResponse, False)
ITEM_GET_TTL = _data("ItemGetTtl", cache_pb._ItemGetTtlResponse, True)
ITEM_GET_TYPE = _data("ItemGetType", cache_pb._ItemGetTypeResponse, True)
# The hash calls and the collections, retried as sdk/spec.json says (a test
# holds this table to it). Retried: reads, and writes whose second sending
# leaves the same state (a set, a removal, a put of fixed scores). Never:
# calls that add to what is there (pushes, increments), take from it (pops),
# cut by position (retain, erase: a second cut removes more), or check a
# condition (SetIfHash: a retry could report "not stored" for its own store).
GET_WITH_HASH = _scs("GetWithHash", True)
SET_IF_HASH = _scs("SetIfHash", False)
DICTIONARY_GET = _scs("DictionaryGet", True)
DICTIONARY_FETCH = _scs("DictionaryFetch", True)
DICTIONARY_SET = _scs("DictionarySet", True)
DICTIONARY_INCREMENT = _scs("DictionaryIncrement", False)
DICTIONARY_DELETE = _scs("DictionaryDelete", True)
DICTIONARY_LENGTH = _scs("DictionaryLength", True)
LIST_PUSH_FRONT = _scs("ListPushFront", False)
LIST_PUSH_BACK = _scs("ListPushBack", False)
LIST_CONCATENATE_FRONT = _scs("ListConcatenateFront", False)
LIST_CONCATENATE_BACK = _scs("ListConcatenateBack", False)
LIST_FETCH = _scs("ListFetch", True)
LIST_POP_FRONT = _scs("ListPopFront", False)
LIST_POP_BACK = _scs("ListPopBack", False)
LIST_REMOVE = _scs("ListRemove", True)
LIST_RETAIN = _scs("ListRetain", False)
LIST_ERASE = _scs("ListErase", False)
LIST_LENGTH = _scs("ListLength", True)
SET_UNION = _scs("SetUnion", True)
SET_DIFFERENCE = _scs("SetDifference", True)
SET_FETCH = _scs("SetFetch", True)
SET_CONTAINS = _scs("SetContains", True)
SET_LENGTH = _scs("SetLength", True)
SET_POP = _scs("SetPop", False)
SET_SAMPLE = _scs("SetSample", True)
SORTED_SET_PUT = _scs("SortedSetPut", True)
SORTED_SET_FETCH = _scs("SortedSetFetch", True)
SORTED_SET_GET_SCORE = _scs("SortedSetGetScore", True)
SORTED_SET_GET_RANK = _scs("SortedSetGetRank", True)
SORTED_SET_INCREMENT = _scs("SortedSetIncrement", False)
SORTED_SET_REMOVE = _scs("SortedSetRemove", True)
SORTED_SET_LENGTH = _scs("SortedSetLength", True)
SORTED_SET_LENGTH_BY_SCORE = _scs("SortedSetLengthByScore", True)
SORTED_SET_UNION_STORE = _scs("SortedSetUnionStore", False)
CREATE_CACHE = _control("CreateCache", False)
DELETE_CACHE = _control("DeleteCache", False)
LIST_CACHES = _control("ListCaches", True, names_cache=False)
FLUSH_CACHE = _control("FlushCache", False)
# Topics (_topics.py, _async_topics.py). A second Publish is a second
# message, so it is never resent. Subscribe opens a stream that changes
# nothing; a subscription opens it again, from where it was, when it breaks.
PUBLISH = Rpc(
    "Publish",
    "/cache_client.pubsub.Pubsub/Publish",
    pubsub_pb._PublishRequest.SerializeToString,
    common_pb._Empty.FromString,
    False,
)
SUBSCRIBE = Rpc(
    "Subscribe",
    "/cache_client.pubsub.Pubsub/Subscribe",
    pubsub_pb._SubscriptionRequest.SerializeToString,
    pubsub_pb._SubscriptionItem.FromString,
    True,
    streaming=True,
)
PING = Rpc(
    "Ping",
    "/cache_client.Ping/Ping",
    ping_pb._PingRequest.SerializeToString,
    ping_pb._PingResponse.FromString,
    True,
    names_cache=False,
)
ALL_RPCS = (
    GET, GET_BATCH, SET, SET_BATCH, SET_IF, SET_IF_NOT_EXISTS, DELETE, KEYS_EXIST,
    INCREMENT, UPDATE_TTL, ITEM_GET_TTL, ITEM_GET_TYPE, GET_WITH_HASH, SET_IF_HASH,
    DICTIONARY_GET, DICTIONARY_FETCH, DICTIONARY_SET, DICTIONARY_INCREMENT, DICTIONARY_DELETE,
    DICTIONARY_LENGTH,
    LIST_PUSH_FRONT, LIST_PUSH_BACK, LIST_CONCATENATE_FRONT, LIST_CONCATENATE_BACK, LIST_FETCH,
    LIST_POP_FRONT, LIST_POP_BACK, LIST_REMOVE, LIST_RETAIN, LIST_ERASE, LIST_LENGTH,
    SET_UNION, SET_DIFFERENCE, SET_FETCH, SET_CONTAINS, SET_LENGTH, SET_POP, SET_SAMPLE,
    SORTED_SET_PUT, SORTED_SET_FETCH, SORTED_SET_GET_SCORE, SORTED_SET_GET_RANK,
    SORTED_SET_INCREMENT, SORTED_SET_REMOVE, SORTED_SET_LENGTH, SORTED_SET_LENGTH_BY_SCORE,
    SORTED_SET_UNION_STORE, PUBLISH, SUBSCRIBE,
    CREATE_CACHE, DELETE_CACHE, LIST_CACHES, FLUSH_CACHE, PING,
)  # fmt: skip
RETRYABLE_STATUS_NAMES = frozenset({"UNAVAILABLE", "INTERNAL"})

_HIT = cache_pb.ECacheResult.Value("Hit")
_ITEM_TYPES = {0: "scalar", 1: "dictionary", 2: "set", 3: "list", 4: "sorted_set"}


def as_bytes(data: Key | Value) -> bytes:
    """Keys and values go on the wire as bytes; str is encoded as UTF-8."""
    if type(data) is bytes:
        return data
    if isinstance(data, str):
        return data.encode()
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    raise InvalidArgumentError(f"keys and values are str or bytes, not {type(data).__name__}")


def ttl_ms(ttl: Ttl | None, default_ms: int) -> int:
    if ttl is None:
        return default_ms
    ms = round(seconds(ttl) * 1000)
    if ms <= 0:
        raise InvalidArgumentError(f"ttl must be at least 1 ms, got {ttl!r}")
    return ms


@dataclass(frozen=True, slots=True)
class SetIf:
    """The condition of `set_if`: build one with the class methods."""

    field: str
    value: bytes = b""

    @classmethod
    def present(cls) -> SetIf:
        return cls("present")

    @classmethod
    def present_and_not_equal(cls, value: Value) -> SetIf:
        return cls("present_and_not_equal", as_bytes(value))

    @classmethod
    def absent(cls) -> SetIf:
        return cls("absent")

    @classmethod
    def equal(cls, value: Value) -> SetIf:
        return cls("equal", as_bytes(value))

    @classmethod
    def absent_or_equal(cls, value: Value) -> SetIf:
        return cls("absent_or_equal", as_bytes(value))

    @classmethod
    def not_equal(cls, value: Value) -> SetIf:
        return cls("not_equal", as_bytes(value))


_CONDITION_MESSAGES: dict[str, Any] = {
    "present": common_pb.Present,
    "present_and_not_equal": common_pb.PresentAndNotEqual,
    "absent": common_pb.Absent,
    "equal": common_pb.Equal,
    "absent_or_equal": common_pb.AbsentOrEqual,
    "not_equal": common_pb.NotEqual,
}
UPDATE_TTL_MODES = ("overwrite", "increase", "decrease")


def set_if_request(key: Key, value: Value, condition: SetIf, ttl: int) -> Any:
    if not isinstance(condition, SetIf):
        raise InvalidArgumentError(
            f"condition is a SetIf, e.g. SetIf.equal(b'old'), not {condition!r}"
        )
    message = _CONDITION_MESSAGES[condition.field]
    plain = condition.field in ("present", "absent")
    argument = message() if plain else message(value_to_check=condition.value)
    return cache_pb._SetIfRequest(
        cache_key=as_bytes(key),
        cache_body=as_bytes(value),
        ttl_milliseconds=ttl,
        **{condition.field: argument},
    )


def update_ttl_request(key: Key, ttl: int, mode: str) -> Any:
    if mode not in UPDATE_TTL_MODES:
        raise InvalidArgumentError(f"mode is one of {', '.join(UPDATE_TTL_MODES)}; got {mode!r}")
    return cache_pb._UpdateTtlRequest(cache_key=as_bytes(key), **{f"{mode}_to_milliseconds": ttl})


def set_batch_request(items: Mapping[Key, Value] | Iterable[tuple[Key, Value]], ttl: int) -> Any:
    pairs = items.items() if isinstance(items, Mapping) else items
    return cache_pb._SetBatchRequest(
        items=[
            cache_pb._SetRequest(
                cache_key=as_bytes(k), cache_body=as_bytes(v), ttl_milliseconds=ttl
            )
            for k, v in pairs
        ]
    )


def get_batch_request(keys: Sequence[Key]) -> Any:
    return cache_pb._GetBatchRequest(
        items=[cache_pb._GetRequest(cache_key=as_bytes(k)) for k in keys]
    )


def read_get(response: Any) -> bytes | None:
    return response.cache_body if response.result == _HIT else None


def read_stored(response: Any) -> bool:
    return bool(response.WhichOneof("result") == "stored")


def read_ttl(response: Any) -> float | None:
    if response.WhichOneof("result") != "found":
        return None
    return float(response.found.remaining_ttl_millis) / 1000.0


def read_type(response: Any) -> str | None:
    if response.WhichOneof("result") != "found":
        return None
    return _ITEM_TYPES.get(response.found.item_type, "unknown")


def read_ttl_updated(response: Any) -> bool:
    return bool(response.WhichOneof("result") == "set")


def found_part(response: Any, group: str) -> Any | None:
    """The `found` part of a collection answer, or None when it says `missing`.

    `group` is the answer's oneof (dictionary, list, set, sorted_set). An
    answer with neither part set also reads as missing.
    """
    return response.found if response.WhichOneof(group) == "found" else None


def read_length(response: Any, group: str) -> int:
    """The length of a collection answer; a missing collection has length 0."""
    found = found_part(response, group)
    return 0 if found is None else int(found.length)


# Built once: requests that carry no data.
PING_REQUEST = ping_pb._PingRequest()
LIST_CACHES_REQUEST = control_pb._ListCachesRequest()
GetRequest = cache_pb._GetRequest
SetRequest = cache_pb._SetRequest
DeleteRequest = cache_pb._DeleteRequest
SetIfNotExistsRequest = cache_pb._SetIfNotExistsRequest
KeysExistRequest = cache_pb._KeysExistRequest
IncrementRequest = cache_pb._IncrementRequest
ItemGetTtlRequest = cache_pb._ItemGetTtlRequest
ItemGetTypeRequest = cache_pb._ItemGetTypeRequest
CreateCacheRequest = control_pb._CreateCacheRequest
DeleteCacheRequest = control_pb._DeleteCacheRequest
FlushCacheRequest = control_pb._FlushCacheRequest
