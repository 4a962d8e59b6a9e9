"""Scalar items through the Python SDK: set, get, delete, TTL, increment."""

import time
from datetime import timedelta

from momento import CacheClient
from momento.errors import MomentoErrorCode
from momento.responses import (
    CacheDelete,
    CacheGet,
    CacheIncrement,
    CacheSet,
    CacheSetIfNotExists,
)

# Every byte value, so a server that mangles non-UTF-8 data fails.
ALL_BYTES = bytes(range(256))


def get_string(client: CacheClient, cache_name: str, key: str) -> str:
    got = client.get(cache_name, key)
    assert isinstance(got, CacheGet.Hit), got
    return got.value_string


def test_set_then_get_hits_with_the_same_string(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.set(cache_name, "greeting", "héllo wörld"), CacheSet.Success)
    assert get_string(client, cache_name, "greeting") == "héllo wörld"


def test_set_then_get_hits_with_the_same_bytes(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.set(cache_name, b"\x00\xffkey", ALL_BYTES), CacheSet.Success)

    got = client.get(cache_name, b"\x00\xffkey")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_bytes == ALL_BYTES


def test_set_overwrites(client: CacheClient, cache_name: str) -> None:
    client.set(cache_name, "k", "first")
    client.set(cache_name, "k", "second")
    assert get_string(client, cache_name, "k") == "second"


def test_empty_value_is_a_hit(client: CacheClient, cache_name: str) -> None:
    client.set(cache_name, "k", b"")
    got = client.get(cache_name, "k")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_bytes == b""


def test_get_of_unknown_key_misses(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.get(cache_name, "never-set"), CacheGet.Miss)


def test_delete_then_get_misses(client: CacheClient, cache_name: str) -> None:
    client.set(cache_name, "k", "v")
    assert isinstance(client.delete(cache_name, "k"), CacheDelete.Success)
    assert isinstance(client.get(cache_name, "k"), CacheGet.Miss)


def test_delete_of_unknown_key_succeeds(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.delete(cache_name, "never-set"), CacheDelete.Success)


def test_item_expires_after_its_ttl(client: CacheClient, cache_name: str) -> None:
    client.set(cache_name, "short", "v", ttl=timedelta(seconds=1))
    client.set(cache_name, "long", "v", ttl=timedelta(seconds=60))
    assert isinstance(client.get(cache_name, "short"), CacheGet.Hit)

    time.sleep(1.5)

    assert isinstance(client.get(cache_name, "short"), CacheGet.Miss)
    assert isinstance(client.get(cache_name, "long"), CacheGet.Hit)


def test_set_if_not_exists_stores_only_when_absent(client: CacheClient, cache_name: str) -> None:
    first = client.set_if_not_exists(cache_name, "k", "first")
    assert isinstance(first, CacheSetIfNotExists.Stored), first

    second = client.set_if_not_exists(cache_name, "k", "second")
    assert isinstance(second, CacheSetIfNotExists.NotStored), second

    assert get_string(client, cache_name, "k") == "first"


def test_increment_of_missing_key_creates_it_with_the_amount(
    client: CacheClient, cache_name: str
) -> None:
    created = client.increment(cache_name, "counter", 5)
    assert isinstance(created, CacheIncrement.Success), created
    assert created.value == 5

    added = client.increment(cache_name, "counter", 37)
    assert isinstance(added, CacheIncrement.Success), added
    assert added.value == 42
    assert get_string(client, cache_name, "counter") == "42"


def test_increment_accepts_negative_amounts(client: CacheClient, cache_name: str) -> None:
    client.set(cache_name, "counter", "10")
    decremented = client.increment(cache_name, "counter", -15)
    assert isinstance(decremented, CacheIncrement.Success), decremented
    assert decremented.value == -5


def test_increment_of_non_integer_value_fails_precondition(
    client: CacheClient, cache_name: str
) -> None:
    client.set(cache_name, "text", "not a number")

    incremented = client.increment(cache_name, "text", 1)

    assert isinstance(incremented, CacheIncrement.Error), incremented
    assert incremented.error_code == MomentoErrorCode.FAILED_PRECONDITION_ERROR
    assert get_string(client, cache_name, "text") == "not a number"
