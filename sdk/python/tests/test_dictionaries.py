"""The dictionary calls against a real jiffy-server: the async client in
depth, the sync one through the smoke test (the `client` fixture runs both)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import jiffy


async def test_smoke_both_clients(client: Any) -> None:
    await client.dictionary_set_fields("d", {"a": "1", b"b": b"2"})
    await client.dictionary_set_field("d", "c", "3")
    assert await client.dictionary_get_field("d", "a") == b"1"
    assert await client.dictionary_get_fields("d", ["c", "zz", "b"]) == [b"3", None, b"2"]
    assert await client.dictionary_fetch("d") == {b"a": b"1", b"b": b"2", b"c": b"3"}
    assert await client.dictionary_fetch_str("d") == {"a": "1", "b": "2", "c": "3"}
    assert await client.dictionary_increment("d", "n", 5) == 5
    await client.dictionary_remove_fields("d", ["a", "missing"])
    assert await client.dictionary_length("d") == 3
    assert await client.get_type("d") == "dictionary"


async def test_missing_dictionary_reads_as_empty(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    assert await client.dictionary_get_field("none", "f") is None
    assert await client.dictionary_get_fields("none", ["f", "g"]) == [None, None]
    assert await client.dictionary_fetch("none") == {}
    assert await client.dictionary_fetch_str("none") == {}
    assert await client.dictionary_length("none") == 0
    await client.dictionary_remove_fields("none", ["f"])  # not an error
    assert await client.get_type("none") is None


async def test_set_overwrites_and_keeps_the_last_of_a_repeated_field(
    async_client: jiffy.AsyncCacheClient,
) -> None:
    client = async_client
    await client.dictionary_set_fields("d", [("f", "first"), ("f", "second"), ("g", b"")])
    assert await client.dictionary_fetch("d") == {b"f": b"second", b"g": b""}
    await client.dictionary_set_field("d", "f", "third")
    assert await client.dictionary_get_field("d", "f") == b"third"


async def test_removing_the_last_field_removes_the_dictionary(
    async_client: jiffy.AsyncCacheClient,
) -> None:
    client = async_client
    await client.dictionary_set_fields("d", {"a": "1", "b": "2"})
    await client.dictionary_remove_fields("d", ["a", "b"])
    assert await client.dictionary_length("d") == 0
    assert await client.get_type("d") is None


async def test_increment_counts_from_zero_and_refuses_text(
    async_client: jiffy.AsyncCacheClient,
) -> None:
    client = async_client
    assert await client.dictionary_increment("d", "n") == 1
    assert await client.dictionary_increment("d", "n", -11) == -10
    assert await client.dictionary_get_field("d", "n") == b"-10"
    await client.dictionary_set_field("d", "word", "hello")
    with pytest.raises(jiffy.WrongTypeError):
        await client.dictionary_increment("d", "word")
    await client.dictionary_set_field("d", "max", str(2**63 - 1))
    with pytest.raises(jiffy.WrongTypeError):
        await client.dictionary_increment("d", "max")


async def test_ttl_with_and_without_refresh(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.dictionary_set_field("d", "a", "1", ttl=100)
    await client.dictionary_set_field("d", "b", "2", ttl=5, refresh_ttl=False)
    assert 90 < (await client.get_ttl("d") or 0) <= 100  # kept: no refresh
    await client.dictionary_increment("d", "n", ttl=20, refresh_ttl=False)
    assert 90 < (await client.get_ttl("d") or 0) <= 100
    await client.dictionary_set_field("d", "c", "3", ttl=5)  # refresh: the new TTL
    assert 0 < (await client.get_ttl("d") or 0) <= 5
    await client.dictionary_increment("d", "n", ttl=50)
    assert 40 < (await client.get_ttl("d") or 0) <= 50
    # A new dictionary takes the TTL even without refresh, and it expires.
    await client.dictionary_set_field("brief", "a", "1", ttl=0.2, refresh_ttl=False)
    assert await client.dictionary_length("brief") == 1
    await asyncio.sleep(0.4)
    assert await client.dictionary_fetch("brief") == {}


async def test_default_ttl_is_the_configs(async_client: jiffy.AsyncCacheClient) -> None:
    await async_client.dictionary_set_field("d", "a", "1")
    assert 55 < (await async_client.get_ttl("d") or 0) <= 60  # in_region: 60 s


async def test_other_types_are_wrong_type(async_client: jiffy.AsyncCacheClient) -> None:
    client = async_client
    await client.set("scalar", "v")
    await client.list_push_back("list", "v")
    for name in ("scalar", "list"):
        for call in (
            client.dictionary_fetch(name),
            client.dictionary_get_field(name, "f"),
            client.dictionary_set_field(name, "f", "v"),
            client.dictionary_length(name),
        ):
            with pytest.raises(jiffy.WrongTypeError) as caught:
                await call
            assert caught.value.status == "FAILED_PRECONDITION"
    assert await client.get("scalar") == b"v"


async def test_empty_name_is_refused_by_the_server(async_client: jiffy.AsyncCacheClient) -> None:
    with pytest.raises(jiffy.InvalidArgumentError):
        await async_client.dictionary_set_field("", "f", "v")
