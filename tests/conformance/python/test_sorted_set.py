"""Sorted sets through the Python SDK, then the calls it does not expose over raw gRPC.

The SDK's calls: put one or many elements, fetch by rank and by score (both
orders, offset, count), get one or many scores, get a rank, increment a
score, remove one or many values. The raw-wire tests cover SortedSetLength,
SortedSetLengthByScore and SortedSetUnionStore, which the SDK lacks, and the
statuses of arguments the SDK does not check itself.
"""

import time
from datetime import timedelta

import grpc
import pytest
from momento import CacheClient
from momento.errors import MomentoErrorCode
from momento.requests import CollectionTtl, SortOrder
from momento.responses import (
    CacheDelete,
    CacheGet,
    CacheSet,
    CacheSortedSetFetch,
    CacheSortedSetGetRank,
    CacheSortedSetGetScore,
    CacheSortedSetGetScores,
    CacheSortedSetIncrementScore,
    CacheSortedSetPutElement,
    CacheSortedSetPutElements,
    CacheSortedSetRemoveElement,
    CacheSortedSetRemoveElements,
)
from momento.responses.mixins import ErrorResponseMixin
from momento_wire_types import cacheclient_pb2 as pb
from momento_wire_types import common_pb2 as common_pb

MINUTE_MS = 60_000

# The set of the official suites' examples.
MENU = {
    "bam": 1000.0,
    "foo": 1.0,
    "taco": 90210.0,
    "bar": 2.0,
    "burrito": 9000.0,
    "baz": 42.0,
    "habanero": 68.0,
    "jalapeno": 1_000_000.0,
}
ASCENDING = ["foo", "bar", "baz", "habanero", "bam", "burrito", "taco", "jalapeno"]


def error_code(answer: object) -> MomentoErrorCode:
    assert isinstance(answer, ErrorResponseMixin), answer
    return answer.error_code


def put_menu(client: CacheClient, cache_name: str) -> None:
    answer = client.sorted_set_put_elements(cache_name, "menu", MENU)
    assert isinstance(answer, CacheSortedSetPutElements.Success), answer


def values(answer: object) -> list[str]:
    assert isinstance(answer, CacheSortedSetFetch.Hit), answer
    return [value for value, _ in answer.value_list_string]


def test_put_and_fetch_by_rank_in_either_order(client: CacheClient, cache_name: str) -> None:
    put_menu(client, cache_name)
    whole = client.sorted_set_fetch_by_rank(cache_name, "menu")
    assert isinstance(whole, CacheSortedSetFetch.Hit), whole
    assert whole.value_list_string == [(v, MENU[v]) for v in ASCENDING]
    assert (
        values(client.sorted_set_fetch_by_rank(cache_name, "menu", start_rank=4)) == ASCENDING[4:]
    )
    assert values(client.sorted_set_fetch_by_rank(cache_name, "menu", -5, -2)) == ASCENDING[-5:-2]
    descending = client.sorted_set_fetch_by_rank(
        cache_name, "menu", start_rank=3, end_rank=5, sort_order=SortOrder.DESCENDING
    )
    assert values(descending) == ["bam", "habanero"]


def test_fetch_by_score_with_offset_and_count(client: CacheClient, cache_name: str) -> None:
    put_menu(client, cache_name)
    fetch = client.sorted_set_fetch_by_score
    assert values(fetch(cache_name, "menu", min_score=100.0)) == ASCENDING[4:]
    assert values(fetch(cache_name, "menu", 100.0, 10_000.0)) == ["bam", "burrito"]
    assert values(fetch(cache_name, "menu", min_score=10.0, offset=2, count=3)) == [
        "bam",
        "burrito",
        "taco",
    ]
    answer = fetch(
        cache_name,
        "menu",
        20.0,
        100_000.0,
        sort_order=SortOrder.DESCENDING,
        offset=2,
        count=2,
    )
    assert values(answer) == ["bam", "habanero"]


def test_an_empty_range_is_a_hit_with_nothing(client: CacheClient, cache_name: str) -> None:
    put_menu(client, cache_name)
    assert values(client.sorted_set_fetch_by_rank(cache_name, "menu", start_rank=10)) == []
    assert values(client.sorted_set_fetch_by_score(cache_name, "menu", min_score=2e6)) == []
    missing = client.sorted_set_fetch_by_rank(cache_name, "nope")
    assert isinstance(missing, CacheSortedSetFetch.Miss), missing
    missing = client.sorted_set_fetch_by_score(cache_name, "nope")
    assert isinstance(missing, CacheSortedSetFetch.Miss), missing


def test_scores_and_ranks(client: CacheClient, cache_name: str) -> None:
    client.sorted_set_put_elements(cache_name, "s", {"foo": 42.0, "bar": 84.0, "baz": 90210.0})
    score = client.sorted_set_get_score(cache_name, "s", "bar")
    assert isinstance(score, CacheSortedSetGetScore.Hit), score
    assert score.score == 84.0
    miss = client.sorted_set_get_score(cache_name, "s", "taco")
    assert isinstance(miss, CacheSortedSetGetScore.Miss), miss
    scores = client.sorted_set_get_scores(cache_name, "s", ["bar", "taco", "baz"])
    assert isinstance(scores, CacheSortedSetGetScores.Hit), scores
    assert scores.value_dictionary_string == {"bar": 84.0, "baz": 90210.0}
    assert isinstance(
        client.sorted_set_get_scores(cache_name, "nope", ["bar"]), CacheSortedSetGetScores.Miss
    )

    rank = client.sorted_set_get_rank(cache_name, "s", "baz")
    assert isinstance(rank, CacheSortedSetGetRank.Hit), rank
    assert rank.rank == 2
    rank = client.sorted_set_get_rank(cache_name, "s", "baz", sort_order=SortOrder.DESCENDING)
    assert isinstance(rank, CacheSortedSetGetRank.Hit), rank
    assert rank.rank == 0
    assert isinstance(
        client.sorted_set_get_rank(cache_name, "s", "taco"), CacheSortedSetGetRank.Miss
    )
    # A missing set is answered `missing`, as the Momento service answers it
    # (the Java SDK's own tests expect a miss there). This SDK reads only the
    # rank part, so it takes that answer for an unknown one, as it does from
    # the service; the JS and Java SDKs read a miss.
    missing = client.sorted_set_get_rank(cache_name, "nope", "taco")
    assert isinstance(missing, CacheSortedSetGetRank.Error), missing
    assert "Unknown field in response" in missing.message, missing


def test_ties_are_ordered_by_value_bytes(client: CacheClient, cache_name: str) -> None:
    client.sorted_set_put_elements(cache_name, "t", {"b": 1.0, "a": 1.0, "B": 1.0})
    assert values(client.sorted_set_fetch_by_rank(cache_name, "t")) == ["B", "a", "b"]


def test_scores_round_trip_exactly(client: CacheClient, cache_name: str) -> None:
    scores = [0.1, 1 / 3, -2.5e-300, 1.7976931348623157e308, 5e-324, 9007199254740993.0]
    elements = [(f"v{i}", score) for i, score in enumerate(scores)]
    client.sorted_set_put_elements(cache_name, "s", dict(elements))
    answer = client.sorted_set_get_scores(cache_name, "s", [v for v, _ in elements])
    assert isinstance(answer, CacheSortedSetGetScores.Hit), answer
    assert answer.value_dictionary_string == dict(elements)


def test_increment_counts_an_absent_value_as_zero(client: CacheClient, cache_name: str) -> None:
    first = client.sorted_set_increment_score(cache_name, "s", "foo")
    assert isinstance(first, CacheSortedSetIncrementScore.Success), first
    assert first.score == 1.0
    second = client.sorted_set_increment_score(cache_name, "s", "foo", -10.5)
    assert isinstance(second, CacheSortedSetIncrementScore.Success), second
    assert second.score == -9.5
    third = client.sorted_set_increment_score(cache_name, "s", "bar", 0.1)
    assert isinstance(third, CacheSortedSetIncrementScore.Success), third
    third = client.sorted_set_increment_score(cache_name, "s", "bar", 0.2)
    assert third.score == 0.1 + 0.2
    whole = client.sorted_set_fetch_by_rank(cache_name, "s")
    assert isinstance(whole, CacheSortedSetFetch.Hit), whole
    assert whole.value_list_string == [("foo", -9.5), ("bar", 0.1 + 0.2)]


def test_an_increment_past_the_finite_scores_fails_the_precondition(
    client: CacheClient, cache_name: str
) -> None:
    client.sorted_set_put_element(cache_name, "s", "big", 1.7976931348623157e308)
    answer = client.sorted_set_increment_score(cache_name, "s", "big", 1.7976931348623157e308)
    assert error_code(answer) == MomentoErrorCode.FAILED_PRECONDITION_ERROR
    score = client.sorted_set_get_score(cache_name, "s", "big")
    assert isinstance(score, CacheSortedSetGetScore.Hit), score
    assert score.score == 1.7976931348623157e308


def test_remove_and_the_emptied_set_is_gone(client: CacheClient, cache_name: str) -> None:
    put_menu(client, cache_name)
    removed = client.sorted_set_remove_element(cache_name, "menu", "foo")
    assert isinstance(removed, CacheSortedSetRemoveElement.Success), removed
    removed = client.sorted_set_remove_elements(cache_name, "menu", ["bar", "nope"])
    assert isinstance(removed, CacheSortedSetRemoveElements.Success), removed
    assert values(client.sorted_set_fetch_by_rank(cache_name, "menu")) == ASCENDING[2:]
    client.sorted_set_remove_elements(cache_name, "menu", ASCENDING[2:])
    gone = client.sorted_set_fetch_by_rank(cache_name, "menu")
    assert isinstance(gone, CacheSortedSetFetch.Miss), gone
    answer = client.sorted_set_remove_element(cache_name, "none", "x")
    assert isinstance(answer, CacheSortedSetRemoveElement.Success), answer


def test_a_sorted_set_expires_after_its_ttl(client: CacheClient, cache_name: str) -> None:
    ttl = CollectionTtl(ttl=timedelta(seconds=1), refresh_ttl=False)
    answer = client.sorted_set_put_element(cache_name, "s", "a", 1.0, ttl=ttl)
    assert isinstance(answer, CacheSortedSetPutElement.Success), answer
    client.sorted_set_put_element(
        cache_name, "s", "b", 2.0, ttl=CollectionTtl(ttl=timedelta(seconds=9), refresh_ttl=False)
    )
    time.sleep(1.5)
    assert isinstance(client.sorted_set_fetch_by_rank(cache_name, "s"), CacheSortedSetFetch.Miss)


def test_refresh_ttl_keeps_a_written_set_alive(client: CacheClient, cache_name: str) -> None:
    refreshed = CollectionTtl.of(timedelta(seconds=2))
    kept = CollectionTtl(ttl=timedelta(seconds=2), refresh_ttl=False)
    for value in ["one", "two", "three"]:
        client.sorted_set_increment_score(cache_name, "refreshed", value, ttl=refreshed)
        client.sorted_set_increment_score(cache_name, "kept", value, ttl=kept)
        time.sleep(0.8)
    assert values(client.sorted_set_fetch_by_rank(cache_name, "refreshed")) == [
        "one",
        "three",
        "two",
    ]
    assert isinstance(client.sorted_set_fetch_by_rank(cache_name, "kept"), CacheSortedSetFetch.Miss)


def test_sorted_set_calls_on_a_scalar_fail_the_precondition(
    client: CacheClient, cache_name: str
) -> None:
    assert isinstance(client.set(cache_name, "k", "v"), CacheSet.Success)
    for answer in [
        client.sorted_set_put_element(cache_name, "k", "x", 1.0),
        client.sorted_set_fetch_by_rank(cache_name, "k"),
        client.sorted_set_fetch_by_score(cache_name, "k"),
        client.sorted_set_get_score(cache_name, "k", "x"),
        client.sorted_set_get_rank(cache_name, "k", "x"),
        client.sorted_set_increment_score(cache_name, "k", "x"),
        client.sorted_set_remove_element(cache_name, "k", "x"),
    ]:
        assert error_code(answer) == MomentoErrorCode.FAILED_PRECONDITION_ERROR
    got = client.get(cache_name, "k")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_string == "v"


def test_delete_removes_a_sorted_set(client: CacheClient, cache_name: str) -> None:
    client.sorted_set_put_element(cache_name, "s", "v", 1.0)
    assert isinstance(client.delete(cache_name, "s"), CacheDelete.Success)
    assert isinstance(client.sorted_set_fetch_by_rank(cache_name, "s"), CacheSortedSetFetch.Miss)


def test_a_nan_score_is_refused(client: CacheClient, cache_name: str) -> None:
    answer = client.sorted_set_put_element(cache_name, "s", "v", float("nan"))
    assert error_code(answer) == MomentoErrorCode.INVALID_ARGUMENT_ERROR
    answer = client.sorted_set_increment_score(cache_name, "s", "v", float("inf"))
    assert error_code(answer) == MomentoErrorCode.INVALID_ARGUMENT_ERROR
    assert isinstance(client.sorted_set_fetch_by_rank(cache_name, "s"), CacheSortedSetFetch.Miss)


def test_ranges_the_sdk_sends_as_given_are_checked(client: CacheClient, cache_name: str) -> None:
    put_menu(client, cache_name)
    for answer in [
        client.sorted_set_fetch_by_rank(cache_name, "menu", 5, 3),
        client.sorted_set_fetch_by_rank(cache_name, "menu", -3, -5),
        client.sorted_set_fetch_by_score(cache_name, "menu", 1000.0, 100.0),
        client.sorted_set_fetch_by_score(cache_name, "menu", count=0),
    ]:
        assert error_code(answer) == MomentoErrorCode.INVALID_ARGUMENT_ERROR


def test_an_empty_name_and_a_missing_cache(client: CacheClient, cache_name: str) -> None:
    answer = client.sorted_set_put_element(cache_name, "", "v", 1.0)
    assert error_code(answer) == MomentoErrorCode.INVALID_ARGUMENT_ERROR
    answer = client.sorted_set_put_element("no-such-cache", "s", "v", 1.0)
    assert error_code(answer) == MomentoErrorCode.NOT_FOUND_ERROR


def test_a_value_over_the_limit_is_refused_whole(small_limit_client: CacheClient) -> None:
    client = small_limit_client
    cache_name = "py-sorted-set-limit"
    client.create_cache(cache_name)
    client.sorted_set_put_element(cache_name, "s", "kept", 1.0)
    too_large = b"x" * (1024 * 1024 + 1)

    answer = client.sorted_set_put_elements(cache_name, "s", {b"fits": 2.0, too_large: 3.0})

    assert error_code(answer) == MomentoErrorCode.LIMIT_EXCEEDED_ERROR
    assert values(client.sorted_set_fetch_by_rank(cache_name, "s")) == ["kept"]


# ---------------------------------------------------------------------------
# Over raw gRPC: the calls the Python SDK does not expose.

Metadata = list[tuple[str, str]]


def put(scs, metadata: Metadata, name: bytes, elements: dict[bytes, float]) -> None:
    request = pb._SortedSetPutRequest(
        set_name=name,
        elements=[pb._SortedSetElement(value=v, score=s) for v, s in elements.items()],
        ttl_milliseconds=MINUTE_MS,
    )
    scs.SortedSetPut(request, metadata=metadata)


def fetch_all(scs, metadata: Metadata, name: bytes) -> list[tuple[bytes, float]] | None:
    request = pb._SortedSetFetchRequest(
        set_name=name,
        with_scores=True,
        by_index=pb._SortedSetFetchRequest._ByIndex(
            unbounded_start=common_pb._Unbounded(), unbounded_end=common_pb._Unbounded()
        ),
    )
    answer = scs.SortedSetFetch(request, metadata=metadata)
    if answer.WhichOneof("sorted_set") == "missing":
        return None
    return [(e.value, e.score) for e in answer.found.values_with_scores.elements]


def test_lengths(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"s", {b"a": 1.0, b"b": 2.0, b"c": 3.0})
    length = scs.SortedSetLength(pb._SortedSetLengthRequest(set_name=b"s"), metadata=cache_metadata)
    assert length.found.length == 3
    missing = scs.SortedSetLength(
        pb._SortedSetLengthRequest(set_name=b"none"), metadata=cache_metadata
    )
    assert missing.WhichOneof("sorted_set") == "missing"
    request = pb._SortedSetLengthByScoreRequest(set_name=b"s", exclusive_min=1.0, inclusive_max=3.0)
    by_score = scs.SortedSetLengthByScore(request, metadata=cache_metadata)
    assert by_score.found.length == 2
    unbounded = pb._SortedSetLengthByScoreRequest(
        set_name=b"s", unbounded_min=common_pb._Unbounded(), unbounded_max=common_pb._Unbounded()
    )
    assert scs.SortedSetLengthByScore(unbounded, metadata=cache_metadata).found.length == 3


def union(scs, metadata: Metadata, sources: list[tuple[bytes, float]], aggregate: int) -> int:
    request = pb._SortedSetUnionStoreRequest(
        set_name=b"dest",
        sources=[
            pb._SortedSetUnionStoreRequest._Source(set_name=name, weight=weight)
            for name, weight in sources
        ],
        aggregate=aggregate,
        ttl_milliseconds=MINUTE_MS,
    )
    return scs.SortedSetUnionStore(request, metadata=metadata).length


def test_union_store_weighs_and_aggregates(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"a", {b"x": 1.0, b"y": 2.0})
    put(scs, cache_metadata, b"b", {b"y": 10.0, b"z": 3.0})
    agg = pb._SortedSetUnionStoreRequest
    sources = [(b"a", 1.0), (b"b", 2.0), (b"missing", 5.0)]
    assert union(scs, cache_metadata, sources, agg.SUM) == 3
    assert fetch_all(scs, cache_metadata, b"dest") == [(b"x", 1.0), (b"z", 6.0), (b"y", 22.0)]
    assert union(scs, cache_metadata, sources, agg.MIN) == 3
    assert fetch_all(scs, cache_metadata, b"dest")[1] == (b"y", 2.0)
    assert union(scs, cache_metadata, sources, agg.MAX) == 3
    assert fetch_all(scs, cache_metadata, b"dest")[2] == (b"y", 20.0)
    # An empty union removes the destination and answers 0.
    assert union(scs, cache_metadata, [(b"missing", 1.0)], agg.SUM) == 0
    assert fetch_all(scs, cache_metadata, b"dest") is None


def test_union_store_refuses_a_source_of_another_type(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"a", {b"x": 1.0})
    scs.Set(
        pb._SetRequest(cache_key=b"k", cache_body=b"v", ttl_milliseconds=MINUTE_MS),
        metadata=cache_metadata,
    )
    with pytest.raises(grpc.RpcError) as refused:
        union(scs, cache_metadata, [(b"a", 1.0), (b"k", 1.0)], 0)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert fetch_all(scs, cache_metadata, b"dest") is None


def test_item_queries_see_a_sorted_set(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"s", {b"v": 1.0})
    kind = scs.ItemGetType(pb._ItemGetTypeRequest(cache_key=b"s"), metadata=cache_metadata)
    assert kind.found.item_type == pb._ItemGetTypeResponse.SORTED_SET
    ttl = scs.ItemGetTtl(pb._ItemGetTtlRequest(cache_key=b"s"), metadata=cache_metadata)
    assert 50_000 < ttl.found.remaining_ttl_millis <= MINUTE_MS
