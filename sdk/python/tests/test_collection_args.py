"""Argument checks of the collection and hash calls: each bad call raises
InvalidArgumentError naming the problem, and sends nothing."""

from __future__ import annotations

import math
from typing import Any

import pytest

import jiffy
from jiffy import SetIfHash
from tests.recording import recording_async_client, recording_sync_client

BIG = 2**40

# (call, positional arguments, keyword arguments, what the message says)
BAD_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any], str]] = [
    # A single str where a list is taken would split into characters.
    ("dictionary_get_fields", ("d", "field"), {}, "not one str"),
    ("dictionary_remove_fields", ("d", b"field"), {}, "not one bytes"),
    ("set_add_elements", ("s", "abc"), {}, "not one str"),
    ("set_contains_elements", ("s", "abc"), {}, "not one str"),
    ("list_concatenate_back", ("l", "abc"), {}, "not one str"),
    ("sorted_set_get_scores", ("z", "abc"), {}, "not one str"),
    ("sorted_set_remove_elements", ("z", "abc"), {}, "not one str"),
    # Empty where the server needs at least one.
    ("dictionary_get_fields", ("d", []), {}, "fields is empty"),
    ("dictionary_set_fields", ("d", {}), {}, "items is empty"),
    ("dictionary_remove_fields", ("d", []), {}, "fields is empty"),
    ("list_concatenate_front", ("l", []), {}, "values is empty"),
    ("sorted_set_put_elements", ("z", []), {}, "elements is empty"),
    ("sorted_set_union_store", ("z", {}), {}, "sources is empty"),
    # Types.
    ("dictionary_set_field", ("d", "f", 3), {}, "value is str or bytes"),
    ("dictionary_get_field", (7, "f"), {}, "str or bytes"),
    ("dictionary_set_fields", ("d", [("f",)]), {}, "each item is a pair"),
    ("dictionary_set_fields", ("d", 5), {}, "mapping or an iterable of pairs"),
    ("dictionary_increment", ("d", "f", 1.5), {}, "amount is an int"),
    ("dictionary_increment", ("d", "f", True), {}, "amount is an int"),
    ("dictionary_increment", ("d", "f", 2**63), {}, "amount must be between"),
    ("dictionary_set_field", ("d", "f", "v"), {"refresh_ttl": "no"}, "refresh_ttl is True or"),
    ("set_add_elements", ("s", ["a"]), {"ttl": 0}, "at least 1 ms"),
    ("list_push_back", ("l", "v"), {"ttl": "30"}, "a duration is seconds"),
    # List positions and sizes.
    ("list_fetch", ("l", 1.0), {}, "start is an int"),
    ("list_fetch", ("l", 0, BIG), {}, "end must be between"),
    ("list_retain", ("l", None, "2"), {}, "end is an int"),
    ("list_push_front", ("l", "v"), {"truncate_back_to_size": 0}, "must be between 1"),
    ("list_concatenate_back", ("l", ["v"]), {"truncate_front_to_size": -1}, "between 1"),
    ("list_erase", ("l", -2), {}, "start and end >= 0"),
    ("list_erase", ("l", 0, -1), {}, "start and end >= 0"),
    # Sets.
    ("set_pop", ("s", 0), {}, "count must be between 1"),
    ("set_sample", ("s", -1), {}, "limit must be between 0"),
    # Sorted sets.
    ("sorted_set_put_element", ("z", "v", math.nan), {}, "finite"),
    ("sorted_set_put_element", ("z", "v", math.inf), {}, "finite"),
    ("sorted_set_put_element", ("z", "v", "1"), {}, "score is a number"),
    ("sorted_set_put_elements", ("z", {"v": None}), {}, "score is a number"),
    ("sorted_set_increment_score", ("z", "v", -math.inf), {}, "finite"),
    ("sorted_set_fetch_by_rank", ("z",), {"order": "up"}, "order is one of"),
    ("sorted_set_fetch_by_rank", ("z", 0.5), {}, "start is an int"),
    ("sorted_set_get_rank", ("z", "v"), {"order": "DESC"}, "order is one of"),
    ("sorted_set_fetch_by_score", ("z", 5, 1), {}, "above max_score"),
    ("sorted_set_fetch_by_score", ("z", math.nan), {}, "finite"),
    ("sorted_set_fetch_by_score", ("z",), {"count": 0}, "count must be between 1"),
    ("sorted_set_fetch_by_score", ("z",), {"offset": -1}, "offset must be between 0"),
    ("sorted_set_fetch_by_score", ("z", 1), {"exclusive_min": 1}, "exclusive_min is True"),
    ("sorted_set_length_by_score", ("z", 2, 1), {}, "above max_score"),
    ("sorted_set_union_store", ("z", {"a": math.nan}), {}, "finite"),
    ("sorted_set_union_store", ("z", {"a": 1e39}), {}, "32-bit float"),
    ("sorted_set_union_store", ("z", {"a": 1}), {"aggregate": "avg"}, "aggregate is one of"),
    ("sorted_set_union_store", ("z", ["a"]), {}, "each item is a pair"),
    # Hash calls.
    ("set_if_hash", ("k", "v", "abc"), {}, "condition is a SetIfHash"),
    ("set_if_hash", ("k", "v", jiffy.SetIf.present()), {}, "condition is a SetIfHash"),
]


@pytest.mark.parametrize(
    ("call", "args", "kwargs", "message"),
    BAD_CALLS,
    ids=[f"{call}-{message}" for call, _, _, message in BAD_CALLS],
)
async def test_bad_arguments_raise_before_sending(
    call: str, args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    async_client, async_recorder = await recording_async_client()
    with pytest.raises(jiffy.InvalidArgumentError, match=message):
        await getattr(async_client, call)(*args, **kwargs)
    sync_client, sync_recorder = recording_sync_client()
    with pytest.raises(jiffy.InvalidArgumentError, match=message):
        getattr(sync_client, call)(*args, **kwargs)
    assert async_recorder.sent == sync_recorder.sent == []


def test_a_hash_condition_takes_str_or_bytes() -> None:
    assert SetIfHash.absent_or_hash_equal("ab").hash == b"ab"
    with pytest.raises(jiffy.InvalidArgumentError, match="hash is str or bytes"):
        SetIfHash.present_and_hash_equal(None)  # type: ignore[arg-type]


async def test_an_empty_slice_sends_nothing() -> None:
    client, recorder = await recording_async_client()
    assert await client.sorted_set_fetch_by_rank("z", 3, 3) == []
    assert await client.sorted_set_fetch_by_rank("z", -1, -2) == []
    assert recorder.sent == []


async def test_an_empty_erase_reads_the_length_instead() -> None:
    # list_erase returns the length left, so an empty slice, which sends no
    # ListErase (the protocol refuses a range of 0 values), asks ListLength.
    client, recorder = await recording_async_client()
    assert await client.list_erase("l", 4, 2) == 0
    assert await client.list_erase("l", 3, 3) == 0
    assert [rpc.name for rpc, _ in recorder.sent] == ["ListLength", "ListLength"]


async def test_list_erase_sends_ranges_from_the_front() -> None:
    client, recorder = await recording_async_client()
    await client.list_erase("l")
    await client.list_erase("l", 2, 5)
    await client.list_erase("l", None, 3)
    await client.list_erase("l", 4)
    requests = [request for _, request in recorder.sent]
    assert requests[0].WhichOneof("erase") == "all"
    ranges = [[(r.begin_index, r.count) for r in q.some.ranges] for q in requests[1:]]
    assert ranges == [[(2, 3)], [(0, 3)], [(4, 2**32 - 1)]]


async def test_collection_writes_carry_ttl_and_refresh() -> None:
    client, recorder = await recording_async_client()
    await client.dictionary_set_field("d", "f", "v")
    await client.set_add_elements("s", ["e"], ttl=2.5, refresh_ttl=False)
    await client.sorted_set_union_store("z", [("a", 2)], ttl=9)
    default_ms = round(client.config.default_ttl * 1000)
    dictionary, union_set, union_store = (request for _, request in recorder.sent)
    assert (dictionary.ttl_milliseconds, dictionary.refresh_ttl) == (default_ms, True)
    assert (union_set.ttl_milliseconds, union_set.refresh_ttl) == (2500, False)
    assert union_store.ttl_milliseconds == 9000
    assert union_store.sources[0].weight == 2.0
