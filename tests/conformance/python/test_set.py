"""Sets through the Python SDK, then the set calls it does not expose over raw gRPC.

The SDK's calls: add_element(s) (with the collection TTL), fetch and
remove_element(s). The raw-wire tests cover SetContains, SetLength, SetPop,
SetSample and SetDifference of the whole set, which the SDK lacks, and the
requests no SDK sends.
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
    CacheGet,
    CacheListPushBack,
    CacheSet,
    CacheSetAddElement,
    CacheSetAddElements,
    CacheSetFetch,
    CacheSetRemoveElement,
    CacheSetRemoveElements,
)
from momento.responses.mixins import ErrorResponseMixin
from momento_wire_types import cacheclient_pb2 as pb

ALL_BYTES = bytes(range(256))
MINUTE_MS = 60_000
FIVE = {"apples", "bananas", "carrots", "dates", "elderberries"}


def fetched(client: CacheClient, cache_name: str, set_name: str) -> set[str]:
    answer = client.set_fetch(cache_name, set_name)
    assert isinstance(answer, CacheSetFetch.Hit), answer
    return answer.value_set_string


def error_code(answer: object) -> MomentoErrorCode:
    assert isinstance(answer, ErrorResponseMixin), answer
    return answer.error_code


def test_add_elements_counts_each_once(client: CacheClient, cache_name: str) -> None:
    added = client.set_add_elements(cache_name, "s", ["a", "b", "a"])
    assert isinstance(added, CacheSetAddElements.Success), added
    one = client.set_add_element(cache_name, "s", "c")
    assert isinstance(one, CacheSetAddElement.Success), one
    again = client.set_add_elements(cache_name, "s", {"b", "c"})
    assert isinstance(again, CacheSetAddElements.Success), again

    assert fetched(client, cache_name, "s") == {"a", "b", "c"}


def test_elements_are_bytes_and_may_be_empty(client: CacheClient, cache_name: str) -> None:
    client.set_add_elements(cache_name, "s", [ALL_BYTES, b"", "text"])

    answer = client.set_fetch(cache_name, "s")
    assert isinstance(answer, CacheSetFetch.Hit), answer
    assert answer.value_set_bytes == {ALL_BYTES, b"", b"text"}


def test_fetch_of_a_missing_set_misses(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.set_fetch(cache_name, "none"), CacheSetFetch.Miss)


def test_remove_elements_ignores_absent_ones(client: CacheClient, cache_name: str) -> None:
    client.set_add_elements(cache_name, "s", FIVE)
    removed = client.set_remove_elements(cache_name, "s", ["bananas", "figs", b"dates"])
    assert isinstance(removed, CacheSetRemoveElements.Success), removed
    one = client.set_remove_element(cache_name, "s", "apples")
    assert isinstance(one, CacheSetRemoveElement.Success), one

    assert fetched(client, cache_name, "s") == {"carrots", "elderberries"}


def test_removing_every_element_removes_the_set(client: CacheClient, cache_name: str) -> None:
    client.set_add_elements(cache_name, "s", ["x", "y"])
    client.set_remove_elements(cache_name, "s", ["x", "y"])
    assert isinstance(client.set_fetch(cache_name, "s"), CacheSetFetch.Miss)
    # And on a set that does not exist: success, nothing created.
    answer = client.set_remove_element(cache_name, "none", "x")
    assert isinstance(answer, CacheSetRemoveElement.Success), answer
    assert isinstance(client.set_fetch(cache_name, "none"), CacheSetFetch.Miss)


def test_a_set_expires_after_its_ttl(client: CacheClient, cache_name: str) -> None:
    ttl = CollectionTtl(ttl=timedelta(seconds=1), refresh_ttl=False)
    for element in ["one", "two", "three"]:
        client.set_add_element(cache_name, "s", element, ttl=ttl)
    assert fetched(client, cache_name, "s") == {"one", "two", "three"}

    time.sleep(1.5)

    assert isinstance(client.set_fetch(cache_name, "s"), CacheSetFetch.Miss)


def test_refresh_ttl_keeps_a_written_set_alive(client: CacheClient, cache_name: str) -> None:
    refreshed = CollectionTtl.of(timedelta(seconds=2))
    kept = CollectionTtl(ttl=timedelta(seconds=2), refresh_ttl=False)
    for element in ["one", "two", "three"]:
        client.set_add_element(cache_name, "refreshed", element, ttl=refreshed)
        client.set_add_element(cache_name, "kept", element, ttl=kept)
        time.sleep(0.8)

    # 2.4 s after the first write: the refreshed set lives, the other expired.
    assert fetched(client, cache_name, "refreshed") == {"one", "two", "three"}
    assert isinstance(client.set_fetch(cache_name, "kept"), CacheSetFetch.Miss)


def test_set_calls_on_other_types_fail_the_precondition(
    client: CacheClient, cache_name: str
) -> None:
    assert isinstance(client.set(cache_name, "k", "v"), CacheSet.Success)
    assert isinstance(client.list_push_back(cache_name, "l", "v"), CacheListPushBack.Success)
    for key in ["k", "l"]:
        for answer in [
            client.set_add_element(cache_name, key, "x"),
            client.set_add_elements(cache_name, key, ["x", "y"]),
            client.set_fetch(cache_name, key),
            client.set_remove_element(cache_name, key, "v"),
            client.set_remove_elements(cache_name, key, ["v"]),
        ]:
            assert error_code(answer) == MomentoErrorCode.FAILED_PRECONDITION_ERROR
    # The scalar is untouched, and a scalar call on a set fails the same way.
    got = client.get(cache_name, "k")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_string == "v"
    client.set_add_element(cache_name, "s", "x")
    assert error_code(client.get(cache_name, "s")) == MomentoErrorCode.FAILED_PRECONDITION_ERROR


def test_delete_removes_a_set(client: CacheClient, cache_name: str) -> None:
    client.set_add_element(cache_name, "s", "v")
    assert isinstance(client.delete(cache_name, "s"), CacheDelete.Success)
    assert isinstance(client.set_fetch(cache_name, "s"), CacheSetFetch.Miss)


def test_an_empty_set_name_is_refused(client: CacheClient, cache_name: str) -> None:
    answer = client.set_add_element(cache_name, "", "v")
    assert error_code(answer) == MomentoErrorCode.INVALID_ARGUMENT_ERROR


def test_a_missing_cache_is_not_found(client: CacheClient) -> None:
    answer = client.set_add_element("no-such-cache", "s", "v")
    assert error_code(answer) == MomentoErrorCode.NOT_FOUND_ERROR
    assert error_code(client.set_fetch("no-such-cache", "s")) == MomentoErrorCode.NOT_FOUND_ERROR


def test_an_element_over_the_limit_is_refused_whole(small_limit_client: CacheClient) -> None:
    client = small_limit_client
    cache_name = "py-set-limit"
    client.create_cache(cache_name)
    client.set_add_element(cache_name, "s", "kept")
    too_large = b"x" * (1024 * 1024 + 1)

    answer = client.set_add_elements(cache_name, "s", ["fits", too_large])

    assert error_code(answer) == MomentoErrorCode.LIMIT_EXCEEDED_ERROR
    assert fetched(client, cache_name, "s") == {"kept"}


# ---------------------------------------------------------------------------
# Over raw gRPC: the calls and arguments the Python SDK does not expose.

Metadata = list[tuple[str, str]]


def add(scs, metadata: Metadata, elements: list[bytes]) -> None:
    request = pb._SetUnionRequest(set_name=b"s", elements=elements, ttl_milliseconds=MINUTE_MS)
    scs.SetUnion(request, metadata=metadata)


def elements_of(scs, metadata: Metadata) -> set[bytes] | None:
    answer = scs.SetFetch(pb._SetFetchRequest(set_name=b"s"), metadata=metadata)
    if answer.WhichOneof("set") == "missing":
        return None
    return set(answer.found.elements)


FIVE_BYTES = [element.encode() for element in sorted(FIVE)]


def test_contains_answers_each_element_in_order(scs, cache_metadata) -> None:
    request = pb._SetContainsRequest(set_name=b"s", elements=[b"a"])
    assert scs.SetContains(request, metadata=cache_metadata).WhichOneof("set") == "missing"
    add(scs, cache_metadata, [b"a", b"c"])
    request = pb._SetContainsRequest(set_name=b"s", elements=[b"c", b"b", b"a"])
    answer = scs.SetContains(request, metadata=cache_metadata)
    assert list(answer.found.contains) == [True, False, True]


def test_length_hits_and_misses(scs, cache_metadata) -> None:
    request = pb._SetLengthRequest(set_name=b"s")
    assert scs.SetLength(request, metadata=cache_metadata).WhichOneof("set") == "missing"
    add(scs, cache_metadata, FIVE_BYTES + FIVE_BYTES)
    assert scs.SetLength(request, metadata=cache_metadata).found.length == 5


def pop(scs, metadata: Metadata, count: int) -> list[bytes] | None:
    answer = scs.SetPop(pb._SetPopRequest(set_name=b"s", count=count), metadata=metadata)
    if answer.WhichOneof("set") == "missing":
        return None
    return list(answer.found.elements)


def test_pop_takes_random_elements_until_the_set_is_gone(scs, cache_metadata) -> None:
    assert pop(scs, cache_metadata, 1) is None
    add(scs, cache_metadata, FIVE_BYTES)
    taken: set[bytes] = set()
    for count, answered, left in [(3, 3, 2), (10, 2, 0)]:
        popped = pop(scs, cache_metadata, count)
        assert popped is not None
        assert len(popped) == answered
        rest = elements_of(scs, cache_metadata) or set()
        assert len(rest) == left
        assert not rest & set(popped)
        taken |= set(popped)
    assert taken == set(FIVE_BYTES)
    assert pop(scs, cache_metadata, 1) is None


def test_pop_of_nothing_is_invalid(scs, cache_metadata) -> None:
    # The JS SDK refuses count 0 itself with the same code.
    add(scs, cache_metadata, FIVE_BYTES)
    with pytest.raises(grpc.RpcError) as refused:
        pop(scs, cache_metadata, 0)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert elements_of(scs, cache_metadata) == set(FIVE_BYTES)


def sample(scs, metadata: Metadata, limit: int) -> list[bytes] | None:
    answer = scs.SetSample(pb._SetSampleRequest(set_name=b"s", limit=limit), metadata=metadata)
    if answer.WhichOneof("set") == "missing":
        return None
    return list(answer.found.elements)


@pytest.mark.parametrize(("limit", "answered"), [(0, 0), (1, 1), (3, 3), (5, 5), (10, 5)])
def test_sample_answers_distinct_elements_and_leaves_them(
    scs, cache_metadata, limit: int, answered: int
) -> None:
    assert sample(scs, cache_metadata, limit) is None
    add(scs, cache_metadata, FIVE_BYTES)
    sampled = sample(scs, cache_metadata, limit)
    assert sampled is not None
    assert len(sampled) == answered
    assert len(set(sampled)) == answered
    assert set(sampled) <= set(FIVE_BYTES)
    assert elements_of(scs, cache_metadata) == set(FIVE_BYTES)


def difference(scs, metadata: Metadata, **difference: object) -> str:
    request = pb._SetDifferenceRequest(set_name=b"s", **difference)
    return scs.SetDifference(request, metadata=metadata).WhichOneof("set")


def test_difference_of_identity_removes_the_set(scs, cache_metadata) -> None:
    whole = pb._SetDifferenceRequest._Subtrahend(
        identity=pb._SetDifferenceRequest._Subtrahend._Identity()
    )
    assert difference(scs, cache_metadata, subtrahend=whole) == "missing"
    add(scs, cache_metadata, FIVE_BYTES)
    assert difference(scs, cache_metadata, subtrahend=whole) == "found"
    assert elements_of(scs, cache_metadata) is None


def test_difference_without_a_subtrahend_is_invalid(scs, cache_metadata) -> None:
    add(scs, cache_metadata, FIVE_BYTES)
    minuend = pb._SetDifferenceRequest._Minuend(elements=[b"apples"])
    for fields in [{}, {"minuend": minuend}]:
        with pytest.raises(grpc.RpcError) as refused:
            difference(scs, cache_metadata, **fields)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert elements_of(scs, cache_metadata) == set(FIVE_BYTES)


def test_item_queries_see_a_set(scs, cache_metadata) -> None:
    add(scs, cache_metadata, [b"v"])
    kind = scs.ItemGetType(pb._ItemGetTypeRequest(cache_key=b"s"), metadata=cache_metadata)
    assert kind.found.item_type == pb._ItemGetTypeResponse.SET
    exists = scs.KeysExist(pb._KeysExistRequest(cache_keys=[b"s", b"t"]), metadata=cache_metadata)
    assert list(exists.exists) == [True, False]
    ttl = scs.ItemGetTtl(pb._ItemGetTtlRequest(cache_key=b"s"), metadata=cache_metadata)
    assert 50_000 < ttl.found.remaining_ttl_millis <= MINUTE_MS
