"""Control plane through the Python SDK: create, list, flush, delete caches."""

import uuid

import pytest
from momento import CacheClient
from momento.errors import MomentoErrorCode
from momento.responses import (
    CacheFlush,
    CacheGet,
    CacheSet,
    CreateCache,
    DeleteCache,
    ListCaches,
)


@pytest.fixture
def fresh_name() -> str:
    return f"py-lifecycle-{uuid.uuid4().hex[:12]}"


def listed_names(client: CacheClient) -> list[str]:
    listed = client.list_caches()
    assert isinstance(listed, ListCaches.Success), listed
    return [cache.name for cache in listed.caches]


def test_create_list_delete_cache(client: CacheClient, fresh_name: str) -> None:
    assert isinstance(client.create_cache(fresh_name), CreateCache.Success)
    assert fresh_name in listed_names(client)

    assert isinstance(client.delete_cache(fresh_name), DeleteCache.Success)
    assert fresh_name not in listed_names(client)


def test_create_existing_cache_answers_already_exists(client: CacheClient, cache_name: str) -> None:
    assert isinstance(client.create_cache(cache_name), CreateCache.CacheAlreadyExists)


def test_delete_missing_cache_is_not_found(client: CacheClient, fresh_name: str) -> None:
    deleted = client.delete_cache(fresh_name)
    assert isinstance(deleted, DeleteCache.Error), deleted
    assert deleted.error_code == MomentoErrorCode.NOT_FOUND_ERROR


def test_flush_missing_cache_is_not_found(client: CacheClient, fresh_name: str) -> None:
    flushed = client.flush_cache(fresh_name)
    assert isinstance(flushed, CacheFlush.Error), flushed
    assert flushed.error_code == MomentoErrorCode.NOT_FOUND_ERROR


def test_flush_removes_items_but_keeps_cache(client: CacheClient, cache_name: str) -> None:
    for key in ("a", "b"):
        assert isinstance(client.set(cache_name, key, "v"), CacheSet.Success)

    assert isinstance(client.flush_cache(cache_name), CacheFlush.Success)

    for key in ("a", "b"):
        assert isinstance(client.get(cache_name, key), CacheGet.Miss)
    assert cache_name in listed_names(client)


def test_data_call_to_missing_cache_is_not_found(client: CacheClient, fresh_name: str) -> None:
    got = client.get(fresh_name, "k")
    assert isinstance(got, CacheGet.Error), got
    assert got.error_code == MomentoErrorCode.NOT_FOUND_ERROR

    stored = client.set(fresh_name, "k", "v")
    assert isinstance(stored, CacheSet.Error), stored
    assert stored.error_code == MomentoErrorCode.NOT_FOUND_ERROR


def test_deleted_cache_loses_its_items(client: CacheClient, fresh_name: str) -> None:
    client.create_cache(fresh_name)
    client.set(fresh_name, "k", "v")
    client.delete_cache(fresh_name)
    assert isinstance(client.create_cache(fresh_name), CreateCache.Success)

    assert isinstance(client.get(fresh_name, "k"), CacheGet.Miss)
    client.delete_cache(fresh_name)


def test_empty_cache_name_is_rejected_by_the_sdk(client: CacheClient) -> None:
    got = client.get("", "k")
    assert isinstance(got, CacheGet.Error), got
    assert got.error_code == MomentoErrorCode.INVALID_ARGUMENT_ERROR
