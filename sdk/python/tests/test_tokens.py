"""Token vending without a server: what each call puts in its message, and
misuse refused before anything is sent (test_auth.py mints against a server)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import jiffy
from jiffy import CachePermission, TopicPermission
from jiffy._proto import permissionmessages_pb2 as pm
from tests.recording import recording_async_client, recording_sync_client


async def sent_request(call: str, *args: Any, **kwargs: Any) -> Any:
    client, recorder = await recording_async_client()
    client.endpoint = jiffy.Endpoint.local("127.0.0.1", 9, api_key="my-token")
    await getattr(client, call)(*args, **kwargs)
    [(_, request)] = recorder.sent
    return request


async def test_a_disposable_token_request_carries_the_clients_token_and_the_permissions() -> None:
    request = await sent_request(
        "generate_disposable_token",
        [
            CachePermission("read_only", cache="pets", key_prefix="fish-"),
            CachePermission("write_only", key=b"\x00k"),
            TopicPermission("publish_only", cache="pets", topic="news"),
            TopicPermission("subscribe_only", topic_prefix="alerts-"),
        ],
        timedelta(minutes=5),
        token_id="app-7",
    )
    assert (request.auth_token, request.token_id) == ("my-token", "app-7")
    assert request.expires.valid_for_seconds == 300
    first, second, third, fourth = request.permissions.explicit.permissions
    assert first.cache_permissions.role == pm.CacheReadOnly
    assert first.cache_permissions.cache_selector.cache_name == "pets"
    assert first.cache_permissions.item_selector.key_prefix == b"fish-"
    assert second.cache_permissions.role == pm.CacheWriteOnly
    assert second.cache_permissions.HasField("all_caches")
    assert second.cache_permissions.item_selector.key == b"\x00k"
    assert third.topic_permissions.role == pm.TopicWriteOnly
    assert third.topic_permissions.topic_selector.topic_name == "news"
    assert fourth.topic_permissions.role == pm.TopicReadOnly
    assert fourth.topic_permissions.HasField("all_caches")
    assert fourth.topic_permissions.topic_selector.topic_name_prefix == "alerts-"


async def test_the_presets() -> None:
    request = await sent_request("generate_api_key", "super_user")
    assert request.permissions.WhichOneof("kind") == "super_user"
    assert request.WhichOneof("expiry") == "never"
    request = await sent_request("generate_api_key", "all_data_read_write", 86400)
    assert request.expires.valid_for_seconds == 86400
    cache, topic = request.permissions.explicit.permissions
    assert cache.cache_permissions.role == pm.CacheReadWrite
    assert cache.cache_permissions.HasField("all_caches")
    assert cache.cache_permissions.HasField("all_items")
    assert topic.topic_permissions.role == pm.TopicReadWrite
    assert topic.topic_permissions.HasField("all_topics")


async def test_a_refresh_sends_the_clients_key_and_the_refresh_token() -> None:
    request = await sent_request("refresh_api_key", "the-refresh-token")
    assert (request.api_key, request.refresh_token) == ("my-token", "the-refresh-token")


MISUSE = [
    ("generate_disposable_token", ([], 60), "empty"),
    ("generate_disposable_token", ("super_user", 0), "expires_in"),
    ("generate_disposable_token", ("super_user", 3601), "expires_in"),
    ("generate_disposable_token", ("super_user", 1.5), "expires_in"),
    ("generate_disposable_token", ("everything", 60), "super_user"),
    ("generate_disposable_token", ([CachePermission("publish_only")], 60), "role"),  # type: ignore[arg-type]
    ("generate_disposable_token", ([TopicPermission("read_write")], 60), "role"),  # type: ignore[arg-type]
    ("generate_disposable_token", ([CachePermission("read_only", key="a", key_prefix="b")], 60),
     "not both"),
    ("generate_disposable_token", ([CachePermission("read_only", cache="")], 60), "cache"),
    ("generate_api_key", ("super_user", -1), "expires_in"),
    ("refresh_api_key", ("",), "refresh_token"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "args", "message"), MISUSE)
async def test_misuse_is_refused_before_sending(
    call: str, args: tuple[Any, ...], message: str
) -> None:
    client, recorder = await recording_async_client()
    with pytest.raises(jiffy.InvalidArgumentError, match=message):
        await getattr(client, call)(*args)
    sync_client, sync_recorder = recording_sync_client()
    with pytest.raises(jiffy.InvalidArgumentError, match=message):
        getattr(sync_client, call)(*args)
    assert recorder.sent == sync_recorder.sent == []
