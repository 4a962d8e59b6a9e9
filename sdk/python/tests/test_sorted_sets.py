"""The sorted set calls against a real jiffy-server: the async client in
depth, the sync one through the smoke test (the `client` fixture runs both)."""

from __future__ import annotations

import asyncio
import itertools
import math
from typing import Any

import pytest

import jiffy

# Ties on 2.0 sort by value bytes: b"b" < b"c" < b"cc".
ELEMENTS = {"a": 1.0, "cc": 2.0, "b": 2.0, "c": 2.0, "d": -0.5, "e": 10.25}
ASCENDING = [(b"d", -0.5), (b"a", 1.0), (b"b", 2.0), (b"c", 2.0), (b"cc", 2.0), (b"e", 10.25)]
POSITIONS = [None, *range(-8, 9)]


async def test_smoke_both_clients(client: Any) -> None:
    await client.sorted_set_put_elements("z", {"a": 1, "b": 2.5})
    await client.sorted_set_put_element("z", "c", -1)
    assert await client.sorted_set_fetch_by_rank("z") == [(b"c", -1.0), (b"a", 1.0), (b"b", 2.5)]
    assert await client.sorted_set_fetch_by_score("z", 0, order="descending") == [
        (b"b", 2.5),
        (b"a", 1.0),
    ]
    assert await client.sorted_set_get_score("z", "b") == 2.5
    assert await client.sorted_set_get_scores("z", ["a", "x"]) == [1.0, None]
    assert await client.sorted_set_get_scores("z", []) == []
    assert await client.sorted_set_get_rank("z", "a") == 1
    assert await client.sorted_set_increment_score("z", "a", 0.5) == 1.5
    await client.sorted_set_remove_elements("z", ["c"])
    assert await client.sorted_set_length("z") == 2
    assert await client.sorted_set_length_by_score("z", 2) == 1
    assert await client.sorted_set_union_store("u", {"z": 2}) == 2
    assert await client.sorted_set_fetch_by_rank("u") == [(b"a", 3.0), (b"b", 5.0)]
    assert await client.get_type("z") == "sorted_set"


async def test_missing_sorted_set_reads_as_empty(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    assert await client.sorted_set_fetch_by_rank("none") == []
    assert await client.sorted_set_fetch_by_score("none", 0, 1) == []
    assert await client.sorted_set_get_score("none", "a") is None
    assert await client.sorted_set_get_scores("none", ["a", "b"]) == [None, None]
    assert await client.sorted_set_get_rank("none", "a") is None
    assert await client.sorted_set_length("none") == 0
    assert await client.sorted_set_length_by_score("none") == 0
    await client.sorted_set_remove_elements("none", ["a"])
    assert await client.get_type("none") is None


async def test_order_is_by_score_then_value_bytes(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.sorted_set_put_elements("z", ELEMENTS)
    assert await client.sorted_set_fetch_by_rank("z") == ASCENDING
    assert await client.sorted_set_fetch_by_rank("z", order="descending") == ASCENDING[::-1]
    assert await client.sorted_set_fetch_by_score("z") == ASCENDING
    for rank, (value, score) in enumerate(ASCENDING):
        assert await client.sorted_set_get_rank("z", value) == rank
        assert await client.sorted_set_get_rank("z", value, order="descending") == 5 - rank
        assert await client.sorted_set_get_score("z", value) == score
    assert await client.sorted_set_get_rank("z", "absent") is None


async def test_fetch_by_rank_is_python_slicing(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.sorted_set_put_elements("z", ELEMENTS)
    for order, elements in (("ascending", ASCENDING), ("descending", ASCENDING[::-1])):
        for start, end in itertools.product(POSITIONS, POSITIONS):
            got = await client.sorted_set_fetch_by_rank("z", start, end, order=order)
            assert got == elements[start:end], (order, start, end)


async def test_fetch_by_score_bounds_offset_and_count(
    async_client: jiffy.AsyncCacheClient,
) -> None:
    client = async_client
    await client.sorted_set_put_elements("z", ELEMENTS)
    by_score = client.sorted_set_fetch_by_score
    assert await by_score("z", 1, 2) == ASCENDING[1:5]
    assert await by_score("z", 1, 2, exclusive_min=True) == ASCENDING[2:5]
    assert await by_score("z", 1, 2, exclusive_max=True) == ASCENDING[1:2]
    assert await by_score("z", 1, 2, exclusive_min=True, exclusive_max=True) == []
    assert await by_score("z", max_score=1) == ASCENDING[:2]
    assert await by_score("z", -math.inf, math.inf) == ASCENDING
    assert await by_score("z", 2, 2, order="descending") == ASCENDING[4:1:-1]
    assert await by_score("z", offset=1, count=2) == ASCENDING[1:3]
    assert await by_score("z", order="descending", offset=4) == ASCENDING[1::-1]
    assert await by_score("z", offset=99) == []
    assert await by_score("z", 100, 200) == []
    length = client.sorted_set_length_by_score
    assert await length("z") == 6
    assert await length("z", 1, 2) == 4
    assert await length("z", 1, 2, exclusive_min=True) == 3
    assert await length("z", 1, 2, exclusive_max=True) == 1
    assert await length("z", min_score=2.0) == 4
    assert await length("z", 11) == 0


async def test_put_updates_scores_and_the_last_repeat_wins(
    async_client: jiffy.AsyncCacheClient,
) -> None:
    client = async_client
    await client.sorted_set_put_elements("z", [("a", 1), ("a", 7), ("b", 3)])
    assert await client.sorted_set_fetch_by_rank("z") == [(b"b", 3.0), (b"a", 7.0)]
    await client.sorted_set_put_element("z", "a", 0.1)
    assert await client.sorted_set_get_score("z", "a") == 0.1  # exactly as sent
    assert await client.sorted_set_get_rank("z", "a") == 0


async def test_increment_creates_and_refuses_overflow(
    async_client: jiffy.AsyncCacheClient,
) -> None:
    client = async_client
    assert await client.sorted_set_increment_score("z", "a") == 1.0
    assert await client.sorted_set_increment_score("z", "a", -3.5) == -2.5
    await client.sorted_set_put_element("z", "big", 1.7e308)
    with pytest.raises(jiffy.WrongTypeError):
        await client.sorted_set_increment_score("z", "big", 1.7e308)
    assert await client.sorted_set_get_score("z", "big") == 1.7e308


async def test_removing_every_element_removes_the_set(
    async_client: jiffy.AsyncCacheClient,
) -> None:
    client = async_client
    await client.sorted_set_put_elements("z", {"a": 1, "b": 2})
    await client.sorted_set_remove_elements("z", [])
    assert await client.sorted_set_length("z") == 2
    await client.sorted_set_remove_elements("z", ["a", "b", "absent"])
    assert await client.get_type("z") is None


@pytest.mark.parametrize(
    ("aggregate", "expected"),
    [
        ("sum", [(b"x", 2.0), (b"z", 2.5), (b"y", 9.0)]),
        ("min", [(b"x", 2.0), (b"z", 2.5), (b"y", 4.0)]),
        ("max", [(b"x", 2.0), (b"z", 2.5), (b"y", 5.0)]),
    ],
)
async def test_union_store_with_weights(
    async_client: jiffy.AsyncCacheClient, aggregate: str, expected: list[tuple[bytes, float]]
) -> None:
    client = async_client
    await client.sorted_set_put_elements("a", {"x": 1, "y": 2})
    await client.sorted_set_put_elements("b", {"y": 10, "z": 5})
    await client.sorted_set_put_element("dest", "old", 1)
    length = await client.sorted_set_union_store(
        "dest", {"a": 2, "b": 0.5, "missing": 3}, aggregate=aggregate
    )
    assert length == 3
    assert await client.sorted_set_fetch_by_rank("dest") == expected  # "old" replaced
    assert await client.sorted_set_fetch_by_rank("a") == [(b"x", 1.0), (b"y", 2.0)]


async def test_union_store_ttl_and_empty_union(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.sorted_set_put_element("a", "x", 1)
    assert await client.sorted_set_union_store("dest", [("a", 1)], ttl=5) == 1
    assert 0 < (await client.get_ttl("dest") or 0) <= 5
    assert await client.sorted_set_union_store("dest", {"missing": 1}) == 0
    assert await client.get_type("dest") is None
    await client.set("scalar", "v")
    with pytest.raises(jiffy.WrongTypeError):
        await client.sorted_set_union_store("dest", {"scalar": 1})
    with pytest.raises(jiffy.WrongTypeError):
        await client.sorted_set_union_store("scalar", {"a": 1})


async def test_ttl_with_and_without_refresh(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.sorted_set_put_element("z", "a", 1, ttl=100)
    await client.sorted_set_put_elements("z", {"b": 2}, ttl=5, refresh_ttl=False)
    await client.sorted_set_increment_score("z", "a", ttl=5, refresh_ttl=False)
    await client.sorted_set_remove_elements("z", ["b"])
    assert 90 < (await client.get_ttl("z") or 0) <= 100
    await client.sorted_set_increment_score("z", "a", ttl=30)
    assert 20 < (await client.get_ttl("z") or 0) <= 30
    await client.sorted_set_put_element("brief", "a", 1, ttl=0.2, refresh_ttl=False)
    await asyncio.sleep(0.4)
    assert await client.sorted_set_fetch_by_rank("brief") == []


async def test_other_types_are_wrong_type(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.set("scalar", "v")
    await client.set_add_elements("set", ["v"])
    for name in ("scalar", "set"):
        with pytest.raises(jiffy.WrongTypeError):
            await client.sorted_set_fetch_by_rank(name)
        with pytest.raises(jiffy.WrongTypeError):
            await client.sorted_set_put_element(name, "v", 1)
        with pytest.raises(jiffy.WrongTypeError):
            await client.sorted_set_get_score(name, "v")
        with pytest.raises(jiffy.WrongTypeError):
            await client.sorted_set_length(name)
