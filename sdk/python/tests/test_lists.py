"""The list calls against a real jiffy-server: the async client in depth,
the sync one through the smoke test (the `client` fixture runs both)."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

import jiffy

VALUES = [b"a", b"b", b"c", b"d", b"e"]
# Every position from well before the start to well past the end, and open.
POSITIONS = [None, *range(-7, 8)]
# Fewer for the writes, each of which needs a fresh list: still both signs,
# both ends, past the ends, and open.
SOME_POSITIONS = [None, -6, -5, -2, -1, 0, 1, 3, 5, 6]


async def fresh(client: jiffy.AsyncCacheClient, name: str = "l") -> None:
    await client.delete(name)
    await client.list_concatenate_back(name, VALUES)


async def test_smoke_both_clients(client: Any) -> None:
    assert await client.list_push_back("l", "b") == 1
    assert await client.list_push_front("l", b"a") == 2
    assert await client.list_concatenate_back("l", ["c", "d"]) == 4
    assert await client.list_concatenate_front("l", ["y", "z"]) == 6
    assert await client.list_fetch("l") == [b"y", b"z", b"a", b"b", b"c", b"d"]
    assert await client.list_fetch("l", 1, -1) == [b"z", b"a", b"b", b"c"]
    assert await client.list_pop_front("l") == b"y"
    assert await client.list_pop_back("l") == b"d"
    assert await client.list_remove_value("l", "z") == 3
    assert await client.list_retain("l", 0, 2) == 2
    assert await client.list_fetch("l") == [b"a", b"b"]
    assert await client.list_erase("l", 0, 1) == 1
    assert await client.list_length("l") == 1
    assert await client.get_type("l") == "list"


async def test_missing_list_reads_as_empty(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    assert await client.list_fetch("none") == []
    assert await client.list_fetch("none", 1, 3) == []
    assert await client.list_length("none") == 0
    assert await client.list_pop_front("none") is None
    assert await client.list_pop_back("none") is None
    assert await client.list_remove_value("none", "v") == 0
    assert await client.list_retain("none", 0, 1) == 0
    assert await client.list_erase("none") == 0
    assert await client.list_erase("none", 3, 1) == 0  # an empty slice: the length read
    assert await client.get_type("none") is None


async def test_fetch_is_python_slicing(async_client: jiffy.AsyncCacheClient) -> None:
    await fresh(async_client)
    for start, end in itertools.product(POSITIONS, POSITIONS):
        got = await async_client.list_fetch("l", start, end)
        assert got == VALUES[start:end], (start, end)


async def test_retain_keeps_the_slice(async_client: jiffy.AsyncCacheClient) -> None:
    for start, end in itertools.product(SOME_POSITIONS, SOME_POSITIONS):
        await fresh(async_client)
        left = await async_client.list_retain("l", start, end)
        assert left == len(VALUES[start:end]), (start, end)
        assert await async_client.list_fetch("l") == VALUES[start:end], (start, end)


async def test_erase_is_del_of_the_slice(async_client: jiffy.AsyncCacheClient) -> None:
    positions = [None, *range(0, 7)]
    for start, end in itertools.product(positions, positions):
        await fresh(async_client)
        left = await async_client.list_erase("l", start, end)
        expected = list(VALUES)
        del expected[start:end]
        # An empty slice (start >= end) sends no erase; its length is read instead.
        assert left == len(expected), (start, end)
        assert await async_client.list_fetch("l") == expected, (start, end)


async def test_truncation_keeps_the_pushed_end(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await fresh(client)
    assert await client.list_push_back("l", "f", truncate_front_to_size=3) == 3
    assert await client.list_fetch("l") == [b"d", b"e", b"f"]
    assert await client.list_push_front("l", "c", truncate_back_to_size=2) == 2
    assert await client.list_fetch("l") == [b"c", b"d"]
    assert await client.list_concatenate_back("l", ["x", "y", "z"], truncate_front_to_size=4) == 4
    assert await client.list_fetch("l") == [b"d", b"x", b"y", b"z"]
    assert await client.list_concatenate_front("l", ["p", "q"], truncate_back_to_size=3) == 3
    assert await client.list_fetch("l") == [b"p", b"q", b"d"]
    # A size above the length truncates nothing.
    assert await client.list_push_back("l", "r", truncate_front_to_size=100) == 4


async def test_remove_value_removes_every_copy(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.list_concatenate_back("l", ["x", "a", "x", "b", "x"])
    assert await client.list_remove_value("l", "x") == 2
    assert await client.list_fetch("l") == [b"a", b"b"]
    assert await client.list_remove_value("l", "absent") == 2
    assert await client.list_length("l") == 2


async def test_emptying_a_list_removes_it(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.list_push_back("l", "only")
    assert await client.list_pop_back("l") == b"only"
    assert await client.get_type("l") is None
    await fresh(client)
    assert await client.list_retain("l", 2, 2) == 0
    assert await client.get_type("l") is None
    await fresh(client)
    assert await client.list_remove_value("l", "c") == 4
    assert await client.list_erase("l", 0) == 0
    assert await client.get_type("l") is None
    await fresh(client)
    assert await client.list_erase("l") == 0
    assert await client.list_length("l") == 0


async def test_ttl_with_and_without_refresh(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.list_push_back("l", "a", ttl=100)
    await client.list_push_front("l", "b", ttl=5, refresh_ttl=False)
    await client.list_concatenate_back("l", ["c"], ttl=5, refresh_ttl=False)
    await client.list_retain("l", 0, 3, ttl=5, refresh_ttl=False)
    assert 90 < (await client.get_ttl("l") or 0) <= 100
    await client.list_pop_front("l")
    await client.list_remove_value("l", "zzz")
    assert 90 < (await client.get_ttl("l") or 0) <= 100  # pops and removals keep it
    await client.list_concatenate_front("l", ["d"], ttl=30)
    assert 20 < (await client.get_ttl("l") or 0) <= 30
    await client.list_retain("l", 0, 5, ttl=5)
    assert 0 < (await client.get_ttl("l") or 0) <= 5
    await client.list_push_back("brief", "a", ttl=0.2, refresh_ttl=False)
    await asyncio.sleep(0.4)
    assert await client.list_fetch("brief") == []


async def test_other_types_are_wrong_type(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.set("scalar", "v")
    await client.set_add_elements("set", ["v"])
    for name in ("scalar", "set"):
        with pytest.raises(jiffy.WrongTypeError):
            await client.list_fetch(name)
        with pytest.raises(jiffy.WrongTypeError):
            await client.list_push_back(name, "v")
        with pytest.raises(jiffy.WrongTypeError):
            await client.list_pop_front(name)
        with pytest.raises(jiffy.WrongTypeError):
            await client.list_length(name)
