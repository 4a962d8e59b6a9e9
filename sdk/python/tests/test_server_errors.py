"""Each error type the real server can produce, through both clients."""

from __future__ import annotations

from typing import Any

import pytest

import jiffy

MAX_VALUE_SIZE = 5 * 1024 * 1024  # jiffy-server's default --max-value-size


async def test_unknown_cache_is_cache_not_found(client: Any) -> None:
    with pytest.raises(jiffy.CacheNotFoundError) as caught:
        await client.get("k", cache="no-such-cache")
    assert caught.value.status == "NOT_FOUND"
    with pytest.raises(jiffy.CacheNotFoundError):
        await client.delete_cache("no-such-cache")


async def test_existing_cache_is_already_exists(client: Any, cache_name: str) -> None:
    with pytest.raises(jiffy.AlreadyExistsError):
        await client.create_cache(cache_name)


async def test_value_over_the_size_limit_is_limit_exceeded(client: Any) -> None:
    # The request limit leaves room for the largest value and key, so a value
    # one byte over --max-value-size is read and told its size.
    with pytest.raises(jiffy.LimitExceededError) as caught:
        await client.set("big", b"x" * (MAX_VALUE_SIZE + 1))
    assert caught.value.reason == "item_size_limit_exceeded"
    assert "--max-value-size" in str(caught.value)


async def test_bad_ttl_and_empty_key_are_invalid_argument(client: Any) -> None:
    with pytest.raises(jiffy.InvalidArgumentError):
        await client.set("k", "v", ttl=8 * 24 * 3600)  # over the 7-day max
    with pytest.raises(jiffy.InvalidArgumentError):
        await client.get("")


async def test_increment_of_text_is_wrong_type(client: Any) -> None:
    await client.set("word", "hello")
    with pytest.raises(jiffy.WrongTypeError) as caught:
        await client.increment("word")
    assert caught.value.status == "FAILED_PRECONDITION"
