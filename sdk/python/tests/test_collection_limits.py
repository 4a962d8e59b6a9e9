"""Collection limits on a server of its own with small ones: an element over
--max-value-size, and a collection past --max-collection-elements, give
LimitExceededError and change nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import jiffy
from tests.conftest import Server

MAX_VALUE = 1024
MAX_ELEMENTS = 4
BIG = b"x" * (MAX_VALUE + 1)


@pytest.fixture
async def small_client(
    start_server: Callable[..., Server], cache_name: str
) -> AsyncIterator[jiffy.AsyncCacheClient]:
    server = start_server(
        "--max-value-size", "1KiB", "--max-collection-elements", str(MAX_ELEMENTS)
    )
    async with jiffy.AsyncCacheClient(server.endpoint, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        yield client


async def test_an_element_over_the_value_limit(small_client: jiffy.AsyncCacheClient) -> None:
    client = small_client
    await client.list_push_back("l", "kept")
    writes: list[Any] = [
        lambda: client.dictionary_set_field("d", "f", BIG),
        lambda: client.dictionary_set_fields("d", {"ok": "v", "big": BIG}),
        lambda: client.list_push_back("l", BIG),
        lambda: client.list_concatenate_front("l", ["ok", BIG]),
        lambda: client.set_add_elements("s", ["ok", BIG]),
        lambda: client.sorted_set_put_element("z", BIG, 1.0),
    ]
    for write in writes:
        with pytest.raises(jiffy.LimitExceededError) as caught:
            await write()
        assert caught.value.reason == "element_size_limit_exceeded"
        assert "larger than the server's limit" in str(caught.value)
    assert await client.dictionary_length("d") == 0
    assert await client.list_fetch("l") == [b"kept"]
    assert await client.set_length("s") == 0
    assert await client.sorted_set_length("z") == 0


async def test_a_collection_past_the_element_limit(small_client: jiffy.AsyncCacheClient) -> None:
    client = small_client
    await client.list_concatenate_back("l", ["a", "b", "c", "d"])
    with pytest.raises(jiffy.LimitExceededError):
        await client.list_push_back("l", "e")
    # Truncating in the same step keeps the list within the limit.
    assert await client.list_push_back("l", "e", truncate_front_to_size=MAX_ELEMENTS) == 4
    assert await client.list_fetch("l") == [b"b", b"c", b"d", b"e"]
    await client.set_add_elements("s", ["a", "b", "c", "d"])
    with pytest.raises(jiffy.LimitExceededError):
        await client.set_add_elements("s", ["e"])
    assert await client.set_length("s") == MAX_ELEMENTS
