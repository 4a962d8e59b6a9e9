"""Every call of both clients against a real jiffy-server."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

import jiffy
from jiffy import SetIf


async def test_set_then_get_returns_bytes_and_str(client: Any) -> None:
    await client.set("greeting", "hello")
    await client.set(b"raw", b"\x00\xff")
    assert await client.get("greeting") == b"hello"
    assert await client.get_str("greeting") == "hello"
    assert await client.get(b"raw") == b"\x00\xff"


async def test_miss_is_none(client: Any) -> None:
    assert await client.get("never-set") is None
    assert await client.get_str("never-set") is None


async def test_delete_removes_and_tolerates_missing(client: Any) -> None:
    await client.set("k", "v")
    await client.delete("k")
    await client.delete("k")
    assert await client.get("k") is None


async def test_short_ttl_expires(client: Any) -> None:
    await client.set("brief", "v", ttl=0.2)
    assert await client.get("brief") == b"v"
    await asyncio.sleep(0.4)
    assert await client.get("brief") is None


async def test_default_ttl_from_config_and_per_call_override(client: Any) -> None:
    await client.set("default", "v")
    await client.set("custom", "v", ttl=timedelta(seconds=5))
    default_left = await client.get_ttl("default")
    custom_left = await client.get_ttl("custom")
    assert 55 < default_left <= 60  # in_region's default_ttl is 60 s
    assert 3 < custom_left <= 5


@pytest.mark.parametrize(
    ("condition", "current", "stored"),
    [
        (SetIf.present(), b"old", True),
        (SetIf.present(), None, False),
        (SetIf.absent(), None, True),
        (SetIf.absent(), b"old", False),
        (SetIf.equal("old"), b"old", True),
        (SetIf.equal("old"), b"other", False),
        (SetIf.not_equal("old"), b"other", True),
        (SetIf.not_equal("old"), b"old", False),
        (SetIf.present_and_not_equal("old"), b"other", True),
        (SetIf.present_and_not_equal("old"), None, False),
        (SetIf.absent_or_equal("old"), None, True),
        (SetIf.absent_or_equal("old"), b"other", False),
    ],
)
async def test_set_if_each_condition(
    client: Any, condition: SetIf, current: bytes | None, stored: bool
) -> None:
    if current is not None:
        await client.set("k", current)
    assert await client.set_if("k", "new", condition) is stored
    assert await client.get("k") == (b"new" if stored else current)


async def test_set_if_absent(client: Any) -> None:
    assert await client.set_if_absent("k", "first") is True
    assert await client.set_if_absent("k", "second") is False
    assert await client.get("k") == b"first"


async def test_increment_creates_and_adds(client: Any) -> None:
    assert await client.increment("n") == 1
    assert await client.increment("n", 41) == 42
    assert await client.increment("n", -2) == 40
    assert await client.get("n") == b"40"


async def test_keys_exist_in_order(client: Any) -> None:
    await client.set("a", "1")
    await client.set("c", "3")
    assert await client.keys_exist(["a", "b", "c"]) == [True, False, True]


async def test_update_ttl_modes(client: Any) -> None:
    await client.set("k", "v", ttl=10)
    assert await client.update_ttl("k", 100, mode="increase") is True
    assert await client.update_ttl("k", 200, mode="decrease") is False
    assert 90 < await client.get_ttl("k") <= 100
    assert await client.update_ttl("k", 5) is True
    assert await client.get_ttl("k") <= 5
    assert await client.update_ttl("missing", 5) is False
    with pytest.raises(ValueError, match="mode"):
        await client.update_ttl("k", 5, mode="sideways")


async def test_get_ttl_and_type_of_missing_is_none(client: Any) -> None:
    assert await client.get_ttl("missing") is None
    assert await client.get_type("missing") is None
    await client.set("k", "v")
    assert await client.get_type("k") == "scalar"


async def test_set_many_and_get_many(client: Any) -> None:
    await client.set_many({"a": "1", b"b": b"2"})
    await client.set_many([("c", "3")], ttl=30)
    assert await client.get_many(["a", "b", "c", "missing"]) == [b"1", b"2", b"3", None]


async def test_cache_lifecycle_and_flush(client: Any, cache_name: str) -> None:
    other = cache_name + "-other"
    await client.create_cache(other)
    assert {cache_name, other} <= set(await client.list_caches())
    await client.set("k", "v", cache=other)
    await client.flush_cache(other)
    assert await client.get("k", cache=other) is None
    await client.delete_cache(other)
    assert other not in await client.list_caches()


async def test_ping(client: Any) -> None:
    await client.ping()


async def test_missing_cache_name_is_invalid_argument(server: Any) -> None:
    async with jiffy.AsyncCacheClient(server.endpoint) as no_default:
        with pytest.raises(jiffy.InvalidArgumentError, match="default_cache"):
            await no_default.get("k")


async def test_keys_and_values_must_be_str_or_bytes(client: Any) -> None:
    with pytest.raises(jiffy.InvalidArgumentError, match="str or bytes"):
        await client.set("k", 42)


async def test_misuse_raises_from_the_error_tree_and_changes_nothing(client: Any) -> None:
    await client.set("misuse", "kept")
    with pytest.raises(jiffy.InvalidArgumentError, match="SetIf.equal"):
        await client.set_if("misuse", "new", "equal")
    with pytest.raises(jiffy.InvalidArgumentError, match="at least 1 ms"):
        await client.set("misuse", "new", ttl=0)
    with pytest.raises(jiffy.InvalidArgumentError, match="a duration is seconds"):
        await client.set("misuse", "new", ttl="30")
    with pytest.raises(jiffy.InvalidArgumentError, match="str or bytes"):
        await client.set("misuse", None)
    with pytest.raises(jiffy.InvalidArgumentError, match="mode"):
        await client.update_ttl("misuse", 10, mode="longer")
    assert await client.get("misuse") == b"kept"


@pytest.mark.parametrize("kind", ["async", "sync"])
async def test_a_call_after_close_is_a_connection_error(server: Any, kind: str) -> None:
    if kind == "async":
        closed = jiffy.AsyncCacheClient(server.endpoint, default_cache="c")
        await closed.aclose()
        with pytest.raises(jiffy.ConnectionError, match="client is closed"):
            await closed.get("k")
        with pytest.raises(jiffy.ConnectionError, match="client is closed"):
            await closed.list_caches()
    else:
        closed_sync = jiffy.CacheClient(server.endpoint, default_cache="c")
        closed_sync.close()
        with pytest.raises(jiffy.ConnectionError, match="client is closed"):
            closed_sync.get("k")
