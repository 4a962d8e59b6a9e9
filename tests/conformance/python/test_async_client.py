"""The asyncio client (CacheClientAsync) against the same server."""

import uuid

import pytest
from momento import CacheClientAsync
from momento.errors import MomentoErrorCode
from momento.responses import (
    CacheDelete,
    CacheGet,
    CacheIncrement,
    CacheSet,
    CreateCache,
    DeleteCache,
)

pytestmark = pytest.mark.asyncio


async def test_async_round_trip(async_client: CacheClientAsync) -> None:
    client = async_client
    cache_name = f"py-async-{uuid.uuid4().hex[:12]}"
    assert isinstance(await client.create_cache(cache_name), CreateCache.Success)
    assert isinstance(await client.create_cache(cache_name), CreateCache.CacheAlreadyExists)

    assert isinstance(await client.set(cache_name, "k", "v"), CacheSet.Success)
    got = await client.get(cache_name, "k")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_string == "v"

    assert isinstance(await client.delete(cache_name, "k"), CacheDelete.Success)
    assert isinstance(await client.get(cache_name, "k"), CacheGet.Miss)

    assert isinstance(await client.delete_cache(cache_name), DeleteCache.Success)


async def test_async_increment_and_not_found(async_client: CacheClientAsync) -> None:
    client = async_client
    cache_name = f"py-async-{uuid.uuid4().hex[:12]}"
    await client.create_cache(cache_name)
    incremented = await client.increment(cache_name, "n", 3)
    assert isinstance(incremented, CacheIncrement.Success), incremented
    assert incremented.value == 3
    await client.delete_cache(cache_name)

    missing = await client.get(cache_name, "n")
    assert isinstance(missing, CacheGet.Error), missing
    assert missing.error_code == MomentoErrorCode.NOT_FOUND_ERROR
