"""Dictionaries through the Python SDK, then DictionaryLength over raw gRPC.

The SDK's calls: set one field or many (with the collection TTL), get one
field or many, fetch, increment, remove one field or many. The SDK has no
DictionaryLength, nor DictionaryDelete of `all`: the raw-wire tests cover
them.
"""

import time
from datetime import timedelta

import grpc
import pytest
from momento import CacheClient
from momento.errors import MomentoErrorCode
from momento.requests import CollectionTtl
from momento.responses import (
    CacheDelete,
    CacheDictionaryFetch,
    CacheDictionaryGetField,
    CacheDictionaryGetFields,
    CacheDictionaryIncrement,
    CacheDictionaryRemoveField,
    CacheDictionaryRemoveFields,
    CacheDictionarySetField,
    CacheDictionarySetFields,
    CacheGet,
    CacheSet,
)
from momento.responses.mixins import ErrorResponseMixin
from momento_wire_types import cacheclient_pb2 as pb

ALL_BYTES = bytes(range(256))
MINUTE_MS = 60_000


def fetched(client: CacheClient, cache_name: str, name: str) -> dict[str, str]:
    answer = client.dictionary_fetch(cache_name, name)
    assert isinstance(answer, CacheDictionaryFetch.Hit), answer
    return answer.value_dictionary_string_string


def error_code(answer: object) -> MomentoErrorCode:
    assert isinstance(answer, ErrorResponseMixin), answer
    return answer.error_code


def test_set_fields_then_get_and_fetch_them(client: CacheClient, cache_name: str) -> None:
    one = client.dictionary_set_field(cache_name, "d", "a", "1")
    assert isinstance(one, CacheDictionarySetField.Success), one
    many = client.dictionary_set_fields(cache_name, "d", {"b": "2", "c": "3"})
    assert isinstance(many, CacheDictionarySetFields.Success), many

    got = client.dictionary_get_field(cache_name, "d", "b")
    assert isinstance(got, CacheDictionaryGetField.Hit), got
    assert got.value_string == "2"
    assert got.field_string == "b"
    assert isinstance(
        client.dictionary_get_field(cache_name, "d", "x"), CacheDictionaryGetField.Miss
    )
    assert fetched(client, cache_name, "d") == {"a": "1", "b": "2", "c": "3"}

    # A later set replaces the value of a field it names.
    client.dictionary_set_fields(cache_name, "d", {"a": "one"})
    assert fetched(client, cache_name, "d") == {"a": "one", "b": "2", "c": "3"}


def test_get_fields_answers_each_field_in_order(client: CacheClient, cache_name: str) -> None:
    client.dictionary_set_fields(cache_name, "d", {"a": "1", "c": "3"})
    answer = client.dictionary_get_fields(cache_name, "d", ["c", "b", "a"])
    assert isinstance(answer, CacheDictionaryGetFields.Hit), answer
    kinds = [type(part) for part in answer.responses]
    assert kinds == [
        CacheDictionaryGetField.Hit,
        CacheDictionaryGetField.Miss,
        CacheDictionaryGetField.Hit,
    ]
    assert answer.value_dictionary_string_string == {"c": "3", "a": "1"}


def test_a_missing_dictionary_misses(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.dictionary_fetch(cache_name, "none"), CacheDictionaryFetch.Miss)
    assert isinstance(
        client.dictionary_get_field(cache_name, "none", "a"), CacheDictionaryGetField.Miss
    )
    answer = client.dictionary_get_fields(cache_name, "none", ["a", "b"])
    assert isinstance(answer, CacheDictionaryGetFields.Miss), answer


def test_fields_and_values_are_bytes(client: CacheClient, cache_name: str) -> None:
    client.dictionary_set_fields(cache_name, "d", {ALL_BYTES: b"", b"": ALL_BYTES})
    answer = client.dictionary_fetch(cache_name, "d")
    assert isinstance(answer, CacheDictionaryFetch.Hit), answer
    assert answer.value_dictionary_bytes_bytes == {ALL_BYTES: b"", b"": ALL_BYTES}


def test_increment_counts_a_missing_field_as_zero(client: CacheClient, cache_name: str) -> None:
    first = client.dictionary_increment(cache_name, "d", "n")
    assert isinstance(first, CacheDictionaryIncrement.Success), first
    assert first.value == 1
    answer = client.dictionary_increment(cache_name, "d", "n", amount=41)
    assert isinstance(answer, CacheDictionaryIncrement.Success), answer
    assert answer.value == 42
    answer = client.dictionary_increment(cache_name, "d", "n", amount=-50)
    assert isinstance(answer, CacheDictionaryIncrement.Success), answer
    assert answer.value == -8
    # Stored as base-10 text.
    assert fetched(client, cache_name, "d") == {"n": "-8"}
    # A value set as text that is an integer counts on from it.
    client.dictionary_set_field(cache_name, "d", "m", "10")
    answer = client.dictionary_increment(cache_name, "d", "m", amount=5)
    assert isinstance(answer, CacheDictionaryIncrement.Success), answer
    assert answer.value == 15


def test_increment_of_text_or_past_64_bits_fails_the_precondition(
    client: CacheClient, cache_name: str
) -> None:
    client.dictionary_set_fields(cache_name, "d", {"t": "abcxyz", "max": str(2**63 - 1)})
    assert error_code(client.dictionary_increment(cache_name, "d", "t")) == (
        MomentoErrorCode.FAILED_PRECONDITION_ERROR
    )
    assert error_code(client.dictionary_increment(cache_name, "d", "max")) == (
        MomentoErrorCode.FAILED_PRECONDITION_ERROR
    )
    assert fetched(client, cache_name, "d") == {"t": "abcxyz", "max": str(2**63 - 1)}


def test_remove_fields_and_the_last_removes_the_dictionary(
    client: CacheClient, cache_name: str
) -> None:
    client.dictionary_set_fields(cache_name, "d", {"a": "1", "b": "2", "c": "3"})
    one = client.dictionary_remove_field(cache_name, "d", "a")
    assert isinstance(one, CacheDictionaryRemoveField.Success), one
    assert fetched(client, cache_name, "d") == {"b": "2", "c": "3"}
    many = client.dictionary_remove_fields(cache_name, "d", ["b", "absent", "c"])
    assert isinstance(many, CacheDictionaryRemoveFields.Success), many
    assert isinstance(client.dictionary_fetch(cache_name, "d"), CacheDictionaryFetch.Miss)
    # On a dictionary that does not exist: success, nothing created.
    answer = client.dictionary_remove_field(cache_name, "none", "a")
    assert isinstance(answer, CacheDictionaryRemoveField.Success), answer
    assert isinstance(client.dictionary_fetch(cache_name, "none"), CacheDictionaryFetch.Miss)


def test_a_dictionary_expires_after_its_ttl(client: CacheClient, cache_name: str) -> None:
    ttl = CollectionTtl(ttl=timedelta(seconds=1), refresh_ttl=False)
    client.dictionary_set_fields(cache_name, "d", {"a": "1"}, ttl=ttl)
    client.dictionary_increment(cache_name, "d", "n", ttl=ttl)
    assert fetched(client, cache_name, "d") == {"a": "1", "n": "1"}

    time.sleep(1.5)

    assert isinstance(client.dictionary_fetch(cache_name, "d"), CacheDictionaryFetch.Miss)


def test_refresh_ttl_keeps_a_written_dictionary_alive(client: CacheClient, cache_name: str) -> None:
    refreshed = CollectionTtl.of(timedelta(seconds=2))
    kept = CollectionTtl(ttl=timedelta(seconds=2), refresh_ttl=False)
    for value in ["one", "two", "three"]:
        client.dictionary_set_field(cache_name, "refreshed", value, value, ttl=refreshed)
        client.dictionary_set_field(cache_name, "kept", value, value, ttl=kept)
        time.sleep(0.8)

    # 2.4 s after the first write: the refreshed dictionary lives, the other expired.
    assert fetched(client, cache_name, "refreshed") == {
        "one": "one",
        "two": "two",
        "three": "three",
    }
    assert isinstance(client.dictionary_fetch(cache_name, "kept"), CacheDictionaryFetch.Miss)


def test_dictionary_calls_on_a_scalar_fail_the_precondition(
    client: CacheClient, cache_name: str
) -> None:
    assert isinstance(client.set(cache_name, "k", "v"), CacheSet.Success)
    for answer in [
        client.dictionary_set_field(cache_name, "k", "f", "x"),
        client.dictionary_set_fields(cache_name, "k", {"f": "x"}),
        client.dictionary_get_field(cache_name, "k", "f"),
        client.dictionary_get_fields(cache_name, "k", ["f"]),
        client.dictionary_fetch(cache_name, "k"),
        client.dictionary_increment(cache_name, "k", "f"),
        client.dictionary_remove_field(cache_name, "k", "f"),
    ]:
        assert error_code(answer) == MomentoErrorCode.FAILED_PRECONDITION_ERROR
    got = client.get(cache_name, "k")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_string == "v"
    # And the other way: a scalar call on a dictionary.
    client.dictionary_set_field(cache_name, "d", "f", "x")
    assert error_code(client.get(cache_name, "d")) == MomentoErrorCode.FAILED_PRECONDITION_ERROR


def test_delete_removes_a_dictionary(client: CacheClient, cache_name: str) -> None:
    client.dictionary_set_field(cache_name, "d", "f", "v")
    assert isinstance(client.delete(cache_name, "d"), CacheDelete.Success)
    assert isinstance(client.dictionary_fetch(cache_name, "d"), CacheDictionaryFetch.Miss)


def test_an_empty_dictionary_name_is_refused(client: CacheClient, cache_name: str) -> None:
    answer = client.dictionary_set_field(cache_name, "", "f", "v")
    assert error_code(answer) == MomentoErrorCode.INVALID_ARGUMENT_ERROR


def test_a_missing_cache_is_not_found(client: CacheClient) -> None:
    answer = client.dictionary_set_field("no-such-cache", "d", "f", "v")
    assert error_code(answer) == MomentoErrorCode.NOT_FOUND_ERROR


def test_a_value_over_the_limit_is_refused_whole(small_limit_client: CacheClient) -> None:
    client = small_limit_client
    cache_name = "py-dictionary-limit"
    client.create_cache(cache_name)
    client.dictionary_set_field(cache_name, "d", "kept", "v")
    too_large = b"x" * (1024 * 1024 + 1)

    answer = client.dictionary_set_fields(cache_name, "d", {"fits": "v", "big": too_large})

    assert error_code(answer) == MomentoErrorCode.LIMIT_EXCEEDED_ERROR
    assert fetched(client, cache_name, "d") == {"kept": "v"}


# ---------------------------------------------------------------------------
# Over raw gRPC: the calls and arguments the Python SDK does not expose.

Metadata = list[tuple[str, str]]


def length(scs, metadata: Metadata) -> int | None:
    answer = scs.DictionaryLength(
        pb._DictionaryLengthRequest(dictionary_name=b"d"), metadata=metadata
    )
    if answer.WhichOneof("dictionary") == "missing":
        return None
    return answer.found.length


def set_items(scs, metadata: Metadata, items: dict[bytes, bytes]) -> None:
    pairs = [pb._DictionaryFieldValuePair(field=f, value=v) for f, v in items.items()]
    request = pb._DictionarySetRequest(
        dictionary_name=b"d", items=pairs, ttl_milliseconds=MINUTE_MS
    )
    scs.DictionarySet(request, metadata=metadata)


def test_length_counts_the_fields(scs, cache_metadata) -> None:
    assert length(scs, cache_metadata) is None
    set_items(scs, cache_metadata, {b"a": b"1", b"b": b"2"})
    assert length(scs, cache_metadata) == 2
    set_items(scs, cache_metadata, {b"b": b"two", b"c": b"3"})
    assert length(scs, cache_metadata) == 3


def test_delete_all_removes_the_dictionary(scs, cache_metadata) -> None:
    set_items(scs, cache_metadata, {b"a": b"1", b"b": b"2"})
    request = pb._DictionaryDeleteRequest(
        dictionary_name=b"d", all=pb._DictionaryDeleteRequest.All()
    )
    scs.DictionaryDelete(request, metadata=cache_metadata)
    assert length(scs, cache_metadata) is None
    # Again, on the missing dictionary: still a success.
    scs.DictionaryDelete(request, metadata=cache_metadata)


def test_fetch_answers_every_field_once(scs, cache_metadata) -> None:
    # In no promised order: each store answers in its hash table's order,
    # with no sort per call (README, "Dictionaries").
    set_items(scs, cache_metadata, {b"b": b"2", b"\xff": b"3", b"a": b"1", b"": b"0"})
    answer = scs.DictionaryFetch(
        pb._DictionaryFetchRequest(dictionary_name=b"d"), metadata=cache_metadata
    )
    pairs = [(item.field, item.value) for item in answer.found.items]
    assert sorted(pairs) == [(b"", b"0"), (b"a", b"1"), (b"b", b"2"), (b"\xff", b"3")]


def test_get_of_no_fields_is_invalid(scs, cache_metadata) -> None:
    set_items(scs, cache_metadata, {b"a": b"1"})
    with pytest.raises(grpc.RpcError) as refused:
        scs.DictionaryGet(pb._DictionaryGetRequest(dictionary_name=b"d"), metadata=cache_metadata)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_item_queries_see_a_dictionary(scs, cache_metadata) -> None:
    set_items(scs, cache_metadata, {b"a": b"1"})
    kind = scs.ItemGetType(pb._ItemGetTypeRequest(cache_key=b"d"), metadata=cache_metadata)
    assert kind.found.item_type == pb._ItemGetTypeResponse.DICTIONARY
    ttl = scs.ItemGetTtl(pb._ItemGetTtlRequest(cache_key=b"d"), metadata=cache_metadata)
    assert 50_000 < ttl.found.remaining_ttl_millis <= MINUTE_MS
