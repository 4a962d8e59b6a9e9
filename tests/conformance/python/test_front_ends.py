"""Two front-ends over one shared store: each sees the other's writes, and
the suite's clients really alternate between them.

Runs only over a shared store (JIFFY_CONFORMANCE_STORE=redis-cluster). Were
the fixtures to talk to one front-end only, every other case would still
pass; these would not.
"""

from __future__ import annotations

import urllib.request
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Protocol

import grpc
import pytest
from momento import CacheClient, CacheClientAsync, Configurations, CredentialProvider
from momento.errors import MomentoErrorCode
from momento.responses import CacheDelete, CacheGet, CacheSet, CreateCache, DeleteCache
from momento_wire_types import cacheclient_pb2 as pb
from shared_store import store_mode

pytestmark = pytest.mark.skipif(
    store_mode() == "embedded", reason="one front-end: the embedded store is not shared"
)

# Enough calls that each front-end must get several of them.
CALLS = 6


class FrontEnd(Protocol):
    """What these tests need of the conftest's JiffyServer."""

    host: str
    port: int
    metrics_port: int | None


def connect(front_end: FrontEnd) -> CacheClient:
    return CacheClient.create(
        Configurations.Laptop.latest(),
        CredentialProvider.for_momento_local(front_end.host, front_end.port),
        timedelta(seconds=60),
    )


def requests_total(front_end: FrontEnd) -> int:
    """The front-end's jiffy_requests_total, summed over RPCs and codes."""
    url = f"http://{front_end.host}:{front_end.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    return sum(
        int(float(line.rsplit(" ", 1)[1]))
        for line in text.splitlines()
        if line.startswith("jiffy_requests_total{")
    )


def assert_each_served_its_share(front_ends: list[FrontEnd], before: list[int]) -> None:
    grown = [requests_total(each) - count for each, count in zip(front_ends, before, strict=True)]
    share = CALLS // len(front_ends)
    assert all(growth >= share for growth in grown), (
        f"{CALLS} calls spread as {grown} over {len(front_ends)} front-ends"
    )


def test_a_write_through_one_front_end_is_read_through_the_other(
    front_ends: list[FrontEnd],
) -> None:
    first, second = front_ends
    name = f"py-front-ends-{uuid.uuid4().hex[:12]}"
    with connect(first) as one, connect(second) as other:
        assert isinstance(one.create_cache(name), CreateCache.Success)
        assert isinstance(other.create_cache(name), CreateCache.CacheAlreadyExists)

        assert isinstance(one.set(name, "k", "from-one"), CacheSet.Success)
        got = other.get(name, "k")
        assert isinstance(got, CacheGet.Hit), got
        assert got.value_string == "from-one"

        assert isinstance(other.set(name, "k", "from-other"), CacheSet.Success)
        got = one.get(name, "k")
        assert isinstance(got, CacheGet.Hit), got
        assert got.value_string == "from-other"

        assert isinstance(one.delete(name, "k"), CacheDelete.Success)
        assert isinstance(other.get(name, "k"), CacheGet.Miss)

        assert isinstance(other.delete_cache(name), DeleteCache.Success)
        gone = one.get(name, "k")
        assert isinstance(gone, CacheGet.Error), gone
        assert gone.error_code == MomentoErrorCode.NOT_FOUND_ERROR


@pytest.mark.parametrize(
    ("client_fixture", "front_ends_fixture"),
    [("client", "front_ends"), ("small_limit_client", "small_limit_front_ends")],
)
def test_the_sdk_client_alternates(
    request: pytest.FixtureRequest, client_fixture: str, front_ends_fixture: str
) -> None:
    client: CacheClient = request.getfixturevalue(client_fixture)
    front_ends: list[FrontEnd] = request.getfixturevalue(front_ends_fixture)
    before = [requests_total(each) for each in front_ends]

    for _ in range(CALLS):
        assert client.list_caches() is not None

    assert_each_served_its_share(front_ends, before)


def test_the_wire_stub_alternates(
    front_ends: list[FrontEnd], scs: Any, cache_metadata: list[tuple[str, str]]
) -> None:
    before = [requests_total(each) for each in front_ends]

    for _ in range(CALLS):
        scs.Get(pb._GetRequest(cache_key=b"k"), metadata=cache_metadata)

    assert_each_served_its_share(front_ends, before)


def test_the_wire_channel_alternates(front_ends: list[FrontEnd], channel: grpc.Channel) -> None:
    before = [requests_total(each) for each in front_ends]

    for _ in range(CALLS):
        ping: Callable[[bytes], bytes] = channel.unary_unary(
            "/cache_client.Ping/Ping",
            request_serializer=lambda body: body,
            response_deserializer=lambda body: body,
        )
        assert ping(b"") == b""

    assert_each_served_its_share(front_ends, before)


@pytest.mark.asyncio
async def test_the_async_client_alternates(
    front_ends: list[FrontEnd], async_client: CacheClientAsync
) -> None:
    before = [requests_total(each) for each in front_ends]

    for _ in range(CALLS):
        assert await async_client.list_caches() is not None

    assert_each_served_its_share(front_ends, before)
