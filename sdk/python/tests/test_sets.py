"""The set calls against a real jiffy-server: the async client in depth,
the sync one through the smoke test (the `client` fixture runs both)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import jiffy

ELEMENTS = {b"a", b"b", b"c", b"d", b"e"}


async def test_smoke_both_clients(client: Any) -> None:
    await client.set_add_elements("s", ["a", b"b", "c", "a"])
    assert await client.set_fetch("s") == {b"a", b"b", b"c"}
    assert await client.set_contains_element("s", "a") is True
    assert await client.set_contains_elements("s", ["c", "z", "b"]) == [True, False, True]
    assert await client.set_contains_elements("s", []) == []
    await client.set_remove_elements("s", ["a", "absent"])
    assert await client.set_length("s") == 2
    assert set(await client.set_sample("s", 5)) == {b"b", b"c"}
    popped = await client.set_pop("s")
    assert len(popped) == 1
    assert popped[0] in {b"b", b"c"}
    assert await client.set_fetch("s") == {b"b", b"c"} - set(popped)
    assert await client.get_type("s") == "set"


async def test_missing_set_reads_as_empty(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    assert await client.set_fetch("none") == set()
    assert await client.set_length("none") == 0
    assert await client.set_contains_element("none", "a") is False
    assert await client.set_contains_elements("none", ["a", "b"]) == [False, False]
    assert await client.set_pop("none", 3) == []
    assert await client.set_sample("none", 3) == []
    await client.set_remove_elements("none", ["a"])
    await client.set_add_elements("none", [])  # adds nothing, creates nothing
    assert await client.get_type("none") is None


async def test_pop_takes_at_most_what_is_there(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.set_add_elements("s", ELEMENTS)
    first = await client.set_pop("s", 2)
    assert len(first) == 2
    assert set(first) <= ELEMENTS
    rest = await client.set_pop("s", 10)
    assert set(first) | set(rest) == ELEMENTS
    assert len(rest) == 3
    assert await client.get_type("s") is None  # the last pop removed it


async def test_sample_leaves_the_set_alone(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.set_add_elements("s", ELEMENTS)
    sample = await client.set_sample("s", 3)
    assert len(sample) == len(set(sample)) == 3
    assert set(sample) <= ELEMENTS
    assert set(await client.set_sample("s", 50)) == ELEMENTS
    assert await client.set_sample("s", 0) == []
    assert await client.set_fetch("s") == ELEMENTS


async def test_removing_every_element_removes_the_set(
    async_client: jiffy.AsyncCacheClient,
) -> None:
    client = async_client
    await client.set_add_elements("s", ["a", "b"])
    await client.set_remove_elements("s", [])
    assert await client.set_length("s") == 2
    await client.set_remove_elements("s", ["a", "b"])
    assert await client.get_type("s") is None


async def test_ttl_with_and_without_refresh(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.set_add_elements("s", ["a"], ttl=100)
    await client.set_add_elements("s", ["b"], ttl=5, refresh_ttl=False)
    await client.set_remove_elements("s", ["a"])
    assert 90 < (await client.get_ttl("s") or 0) <= 100
    await client.set_add_elements("s", ["c"], ttl=5)
    assert 0 < (await client.get_ttl("s") or 0) <= 5
    await client.set_add_elements("brief", ["a"], ttl=0.2, refresh_ttl=False)
    await asyncio.sleep(0.4)
    assert await client.set_fetch("brief") == set()


async def test_other_types_are_wrong_type(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.set("scalar", "v")
    await client.dictionary_set_field("dict", "f", "v")
    for name in ("scalar", "dict"):
        with pytest.raises(jiffy.WrongTypeError):
            await client.set_fetch(name)
        with pytest.raises(jiffy.WrongTypeError):
            await client.set_add_elements(name, ["v"])
        with pytest.raises(jiffy.WrongTypeError):
            await client.set_contains_element(name, "v")
        with pytest.raises(jiffy.WrongTypeError):
            await client.set_pop(name)
