"""Lists through the Python SDK, then the list calls it does not expose over raw gRPC.

The SDK's calls: push and concatenate at either end (with truncation and the
collection TTL), pop, fetch, length and remove_value. The raw-wire tests
cover ListFetch slices, ListRetain and ListErase, which the SDK lacks.
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
    CacheListConcatenateBack,
    CacheListConcatenateFront,
    CacheListFetch,
    CacheListLength,
    CacheListPopBack,
    CacheListPopFront,
    CacheListPushBack,
    CacheListPushFront,
    CacheListRemoveValue,
    CacheSet,
)
from momento.responses.mixins import ErrorResponseMixin
from momento_wire_types import cacheclient_pb2 as pb
from momento_wire_types import common_pb2 as common_pb

ALL_BYTES = bytes(range(256))
MINUTE_MS = 60_000


def fetched(client: CacheClient, cache_name: str, list_name: str) -> list[str]:
    answer = client.list_fetch(cache_name, list_name)
    assert isinstance(answer, CacheListFetch.Hit), answer
    return answer.value_list_string


def error_code(answer: object) -> MomentoErrorCode:
    assert isinstance(answer, ErrorResponseMixin), answer
    return answer.error_code


def test_pushes_answer_the_new_length_and_keep_order(client: CacheClient, cache_name: str) -> None:
    for length, value in enumerate(["b", "c"], start=1):
        pushed = client.list_push_back(cache_name, "l", value)
        assert isinstance(pushed, CacheListPushBack.Success), pushed
        assert pushed.list_length == length
    pushed_front = client.list_push_front(cache_name, "l", "a")
    assert isinstance(pushed_front, CacheListPushFront.Success), pushed_front
    assert pushed_front.list_length == 3

    assert fetched(client, cache_name, "l") == ["a", "b", "c"]


def test_values_are_bytes_and_may_be_empty(client: CacheClient, cache_name: str) -> None:
    # List names are strings in this SDK; values may be any bytes.
    client.list_push_back(cache_name, "l", ALL_BYTES)
    client.list_push_back(cache_name, "l", b"")

    answer = client.list_fetch(cache_name, "l")
    assert isinstance(answer, CacheListFetch.Hit), answer
    assert answer.value_list_bytes == [ALL_BYTES, b""]


def test_concatenation_keeps_the_order_of_its_values(client: CacheClient, cache_name: str) -> None:
    back = client.list_concatenate_back(cache_name, "l", ["1", "2", "3", "4"])
    assert isinstance(back, CacheListConcatenateBack.Success), back
    assert back.list_length == 4
    front = client.list_concatenate_front(cache_name, "l", iter(["this", "that"]))
    assert isinstance(front, CacheListConcatenateFront.Success), front
    assert front.list_length == 6

    assert fetched(client, cache_name, "l") == ["this", "that", "1", "2", "3", "4"]


def test_push_back_truncates_the_front(client: CacheClient, cache_name: str) -> None:
    for value in ["1", "2", "3"]:
        pushed = client.list_push_back(cache_name, "l", value, truncate_front_to_size=2)
        assert isinstance(pushed, CacheListPushBack.Success), pushed
        assert pushed.list_length <= 2
    assert fetched(client, cache_name, "l") == ["2", "3"]


def test_push_front_truncates_the_back(client: CacheClient, cache_name: str) -> None:
    for value in ["1", "2", "3"]:
        client.list_push_front(cache_name, "l", value, truncate_back_to_size=2)
    assert fetched(client, cache_name, "l") == ["3", "2"]


def test_concatenations_truncate_after_the_write(client: CacheClient, cache_name: str) -> None:
    client.list_concatenate_back(cache_name, "back", ["one", "two", "three"])
    answer = client.list_concatenate_back(
        cache_name, "back", ["four", "five", "six"], truncate_front_to_size=4
    )
    assert isinstance(answer, CacheListConcatenateBack.Success), answer
    assert answer.list_length == 4
    assert fetched(client, cache_name, "back") == ["three", "four", "five", "six"]

    client.list_concatenate_front(cache_name, "front", ["one", "two", "three"])
    client.list_concatenate_front(
        cache_name, "front", ["four", "five", "six"], truncate_back_to_size=4
    )
    assert fetched(client, cache_name, "front") == ["four", "five", "six", "one"]


def test_pops_take_from_each_end_and_miss_once_empty(client: CacheClient, cache_name: str) -> None:
    client.list_concatenate_back(cache_name, "l", ["one", "two", "three"])

    front = client.list_pop_front(cache_name, "l")
    assert isinstance(front, CacheListPopFront.Hit), front
    assert front.value_string == "one"
    back = client.list_pop_back(cache_name, "l")
    assert isinstance(back, CacheListPopBack.Hit), back
    assert back.value_bytes == b"three"
    assert isinstance(client.list_pop_back(cache_name, "l"), CacheListPopBack.Hit)

    # The last pop removed the list.
    assert isinstance(client.list_pop_front(cache_name, "l"), CacheListPopFront.Miss)
    assert isinstance(client.list_pop_back(cache_name, "l"), CacheListPopBack.Miss)
    assert isinstance(client.list_fetch(cache_name, "l"), CacheListFetch.Miss)


def test_length_hits_and_misses(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.list_length(cache_name, "l"), CacheListLength.Miss)
    client.list_concatenate_back(cache_name, "l", ["a", "b", "c"])
    length = client.list_length(cache_name, "l")
    assert isinstance(length, CacheListLength.Hit), length
    assert length.length == 3


@pytest.mark.parametrize(
    ("values", "removed", "left"),
    [
        (["up", "up", "down", "down", "left", "right"], "up", ["down", "down", "left", "right"]),
        ([b"number 9", b"that", b"number 9", b"this"], b"number 9", ["that", "this"]),
        (["a", "b", "c"], "z", ["a", "b", "c"]),
    ],
)
def test_remove_value_removes_every_occurrence(
    client: CacheClient,
    cache_name: str,
    values: list[str | bytes],
    removed: str | bytes,
    left: list[str],
) -> None:
    client.list_concatenate_front(cache_name, "l", values)
    answer = client.list_remove_value(cache_name, "l", removed)
    assert isinstance(answer, CacheListRemoveValue.Success), answer
    assert fetched(client, cache_name, "l") == left


def test_removing_every_value_removes_the_list(client: CacheClient, cache_name: str) -> None:
    client.list_concatenate_back(cache_name, "l", ["x", "x"])
    client.list_remove_value(cache_name, "l", "x")
    assert isinstance(client.list_length(cache_name, "l"), CacheListLength.Miss)
    # And on a list that does not exist: success, nothing created.
    answer = client.list_remove_value(cache_name, "none", "x")
    assert isinstance(answer, CacheListRemoveValue.Success), answer
    assert isinstance(client.list_fetch(cache_name, "none"), CacheListFetch.Miss)


def test_a_list_expires_after_its_ttl(client: CacheClient, cache_name: str) -> None:
    ttl = CollectionTtl(ttl=timedelta(seconds=1), refresh_ttl=False)
    for value in ["one", "two", "three"]:
        client.list_push_back(cache_name, "l", value, ttl=ttl)
    assert fetched(client, cache_name, "l") == ["one", "two", "three"]

    time.sleep(1.5)

    assert isinstance(client.list_fetch(cache_name, "l"), CacheListFetch.Miss)


def test_refresh_ttl_keeps_a_written_list_alive(client: CacheClient, cache_name: str) -> None:
    refreshed = CollectionTtl.of(timedelta(seconds=2))
    kept = CollectionTtl(ttl=timedelta(seconds=2), refresh_ttl=False)
    for value in ["one", "two", "three"]:
        client.list_push_back(cache_name, "refreshed", value, ttl=refreshed)
        client.list_push_back(cache_name, "kept", value, ttl=kept)
        time.sleep(0.8)

    # 2.4 s after the first write: the refreshed list lives, the other expired.
    assert fetched(client, cache_name, "refreshed") == ["one", "two", "three"]
    assert isinstance(client.list_fetch(cache_name, "kept"), CacheListFetch.Miss)


def test_list_calls_on_a_scalar_fail_the_precondition(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.set(cache_name, "k", "v"), CacheSet.Success)
    for answer in [
        client.list_push_back(cache_name, "k", "x"),
        client.list_concatenate_front(cache_name, "k", ["x"]),
        client.list_fetch(cache_name, "k"),
        client.list_length(cache_name, "k"),
        client.list_pop_front(cache_name, "k"),
        client.list_remove_value(cache_name, "k", "v"),
    ]:
        assert error_code(answer) == MomentoErrorCode.FAILED_PRECONDITION_ERROR
    # The scalar is untouched.
    got = client.get(cache_name, "k")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_string == "v"


def test_delete_removes_a_list(client: CacheClient, cache_name: str) -> None:
    client.list_push_back(cache_name, "l", "v")
    assert isinstance(client.delete(cache_name, "l"), CacheDelete.Success)
    assert isinstance(client.list_fetch(cache_name, "l"), CacheListFetch.Miss)


def test_an_empty_list_name_is_refused(client: CacheClient, cache_name: str) -> None:
    answer = client.list_push_back(cache_name, "", "v")
    assert error_code(answer) == MomentoErrorCode.INVALID_ARGUMENT_ERROR


def test_a_missing_cache_is_not_found(client: CacheClient) -> None:
    answer = client.list_push_back("no-such-cache", "l", "v")
    assert error_code(answer) == MomentoErrorCode.NOT_FOUND_ERROR


def test_a_value_over_the_limit_is_refused_whole(small_limit_client: CacheClient) -> None:
    client = small_limit_client
    cache_name = "py-list-limit"
    client.create_cache(cache_name)
    client.list_push_back(cache_name, "l", "kept")
    too_large = b"x" * (1024 * 1024 + 1)

    answer = client.list_concatenate_back(cache_name, "l", ["fits", too_large])

    assert error_code(answer) == MomentoErrorCode.LIMIT_EXCEEDED_ERROR
    assert fetched(client, cache_name, "l") == ["kept"]


# ---------------------------------------------------------------------------
# Over raw gRPC: the calls and arguments the Python SDK does not expose.

Metadata = list[tuple[str, str]]


def concatenate(scs, metadata: Metadata, values: list[bytes]) -> None:
    request = pb._ListConcatenateBackRequest(
        list_name=b"l", values=values, ttl_milliseconds=MINUTE_MS
    )
    assert scs.ListConcatenateBack(request, metadata=metadata).list_length == len(values)


def slice_fields(start: int | None, end: int | None) -> dict[str, object]:
    """The oneofs of a slice; `None` is the unbounded end."""
    unbounded = common_pb._Unbounded()
    return {
        **({"unbounded_start": unbounded} if start is None else {"inclusive_start": start}),
        **({"unbounded_end": unbounded} if end is None else {"exclusive_end": end}),
    }


def fetch(scs, metadata: Metadata, start: int | None, end: int | None) -> list[bytes] | None:
    request = pb._ListFetchRequest(list_name=b"l", **slice_fields(start, end))
    answer = scs.ListFetch(request, metadata=metadata)
    if answer.WhichOneof("list") == "missing":
        return None
    return list(answer.found.values)


TEN = [str(n).encode() for n in range(10)]


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        # The examples of the public cacheclient.proto.
        (None, None, TEN),
        (0, None, TEN),
        (5, None, TEN[5:]),
        (-5, None, TEN[-5:]),
        (None, 5, TEN[:5]),
        (0, -5, TEN[:-5]),
        (2, 6, TEN[2:6]),
        (2, -6, TEN[2:-6]),
        (-7, -2, TEN[-7:-2]),
        # Past either end: clipped.
        (-100, 2, TEN[:2]),
        (8, 100, TEN[8:]),
    ],
)
def test_fetch_slices_as_python_does(scs, cache_metadata, start, end, expected) -> None:
    concatenate(scs, cache_metadata, TEN)
    assert fetch(scs, cache_metadata, start, end) == expected


@pytest.mark.parametrize(("start", "end"), [(5, 0), (-5, 0), (-2, -6), (0, 0), (3, 3), (10, None)])
def test_a_slice_that_selects_nothing_misses(scs, cache_metadata, start, end) -> None:
    # As the official Go SDK's suite expects of the service.
    concatenate(scs, cache_metadata, TEN)
    assert fetch(scs, cache_metadata, start, end) is None


def test_fetch_with_no_range_fields_is_the_whole_list(scs, cache_metadata) -> None:
    # What the Python SDK sends: neither oneof set.
    concatenate(scs, cache_metadata, TEN)
    answer = scs.ListFetch(pb._ListFetchRequest(list_name=b"l"), metadata=cache_metadata)
    assert list(answer.found.values) == TEN


def retain(scs, metadata: Metadata, start: int | None, end: int | None) -> int | None:
    request = pb._ListRetainRequest(
        list_name=b"l", ttl_milliseconds=MINUTE_MS, **slice_fields(start, end)
    )
    answer = scs.ListRetain(request, metadata=metadata)
    if answer.WhichOneof("list") == "missing":
        return None
    return answer.found.list_length


def test_retain_keeps_the_slice(scs, cache_metadata) -> None:
    concatenate(scs, cache_metadata, TEN)
    assert retain(scs, cache_metadata, None, None) == 10
    assert retain(scs, cache_metadata, 1, 8) == 7
    assert retain(scs, cache_metadata, -3, None) == 3
    assert fetch(scs, cache_metadata, None, None) == [b"5", b"6", b"7"]


def test_retain_of_nothing_removes_the_list(scs, cache_metadata) -> None:
    concatenate(scs, cache_metadata, TEN)
    assert retain(scs, cache_metadata, 999, 1000) == 0
    assert fetch(scs, cache_metadata, None, None) is None
    # On a missing list: missing, and nothing is created.
    assert retain(scs, cache_metadata, None, None) is None
    assert fetch(scs, cache_metadata, None, None) is None


def erase(scs, metadata: Metadata, **erase: object) -> int | None:
    answer = scs.ListErase(pb._ListEraseRequest(list_name=b"l", **erase), metadata=metadata)
    if answer.WhichOneof("list") == "missing":
        return None
    return answer.found.list_length


def test_erase_removes_ranges_of_positions(scs, cache_metadata) -> None:
    concatenate(scs, cache_metadata, TEN)
    ranges = [pb._ListRange(begin_index=8, count=5), pb._ListRange(begin_index=1, count=3)]
    some = pb._ListEraseRequest._ListRanges(ranges=ranges)

    assert erase(scs, cache_metadata, some=some) == 5

    assert fetch(scs, cache_metadata, None, None) == [b"0", b"4", b"5", b"6", b"7"]
    assert erase(scs, cache_metadata, all=pb._ListEraseRequest._All()) == 0
    assert fetch(scs, cache_metadata, None, None) is None
    assert erase(scs, cache_metadata, all=pb._ListEraseRequest._All()) is None


def test_erase_without_ranges_is_invalid(scs, cache_metadata) -> None:
    concatenate(scs, cache_metadata, TEN)
    with pytest.raises(grpc.RpcError) as refused:
        erase(scs, cache_metadata)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fetch(scs, cache_metadata, None, None) == TEN


def test_item_queries_see_a_list(scs, cache_metadata) -> None:
    concatenate(scs, cache_metadata, [b"v"])
    kind = scs.ItemGetType(pb._ItemGetTypeRequest(cache_key=b"l"), metadata=cache_metadata)
    assert kind.found.item_type == pb._ItemGetTypeResponse.LIST
    exists = scs.KeysExist(pb._KeysExistRequest(cache_keys=[b"l", b"m"]), metadata=cache_metadata)
    assert list(exists.exists) == [True, False]
    ttl = scs.ItemGetTtl(pb._ItemGetTtlRequest(cache_key=b"l"), metadata=cache_metadata)
    assert 50_000 < ttl.found.remaining_ttl_millis <= MINUTE_MS
