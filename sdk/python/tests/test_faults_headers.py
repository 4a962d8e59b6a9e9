"""Retries and deadlines against injected faults (jiffy-server --enable-fault-injection).

The fault headers (`return-error`, `error-rpcs`, `error-count`, `delay-ms`,
`delay-rpcs`, `request-id`) are per request. The SDK has no public knob for
extra request headers, and these are for tests only, so `with_fault_headers`
puts them into the client's prebuilt per-cache metadata: every call then
takes the SDK's real path (cap, deadline, retries, error translation). The
server counts every attempt in `jiffy_request_duration_seconds_count{rpc}`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import pytest

import jiffy
from jiffy._io import metadata_async
from tests.conftest import Server

CACHE = "faults"
# Timer granularity between the client's clock and the deadline it sends.
CLOCK_SLACK = 0.01
# How far past its deadline a call may end on a busy machine and still count as not hanging.
HANG_MARGIN = 1.0
FAST_RETRY = jiffy.RetryPolicy(max_attempts=3, initial_backoff=0.01, max_backoff=0.05)
BASE = jiffy.presets.in_region.latest().replace(retry=FAST_RETRY)


@pytest.fixture
def server(start_server: Callable[..., Server]) -> Server:
    return start_server("--enable-fault-injection")


def with_fault_headers(client: jiffy.AsyncCacheClient, headers: dict[str, str]) -> None:
    """Send `headers` with every data call this client makes on CACHE, with
    their own `request-id` so that `error-count` counts this test's calls only."""
    pairs = (("cache", CACHE), ("request-id", uuid.uuid4().hex), *headers.items())
    client._executor._metadata_by_cache[CACHE] = metadata_async(pairs)


def attempts(server: Server, rpc: str) -> int:
    return int(
        server.metric(f'jiffy_request_duration_seconds_count{{rpc="{rpc}",transport="grpc"}}')
    )


async def connected(server: Server, config: jiffy.Config) -> jiffy.AsyncCacheClient:
    client = jiffy.AsyncCacheClient(server.endpoint, config, default_cache=CACHE)
    await client.connect()
    await client.create_cache(CACHE)
    return client


async def test_get_failing_twice_succeeds_on_the_third_attempt(server: Server) -> None:
    client = await connected(server, BASE)
    try:
        await client.set("k", "v")
        with_fault_headers(
            client, {"return-error": "unavailable", "error-rpcs": "get", "error-count": "2"}
        )
        assert await client.get("k") == b"v"
    finally:
        await client.aclose()
    assert attempts(server, "Get") == 3


async def test_increment_is_never_retried(server: Server) -> None:
    retry = jiffy.RetryPolicy(max_attempts=5, initial_backoff=0.01, max_backoff=0.05)
    config = BASE.replace(retry=retry)
    client = await connected(server, config)
    try:
        with_fault_headers(
            client, {"return-error": "unavailable", "error-rpcs": "increment", "error-count": "2"}
        )
        with pytest.raises(jiffy.ConnectionError):
            await client.increment("n")
        assert attempts(server, "Increment") == 1
        with pytest.raises(jiffy.ConnectionError):
            await client.increment("n")
        assert attempts(server, "Increment") == 2
        assert await client.increment("n") == 1  # neither failed call was applied
    finally:
        await client.aclose()
    assert attempts(server, "Increment") == 3


async def test_delay_past_the_deadline_is_a_timeout_at_the_deadline(server: Server) -> None:
    deadline = 1.0
    client = await connected(server, BASE.replace(deadline=deadline))
    try:
        with_fault_headers(client, {"delay-ms": "5000", "delay-rpcs": "get"})
        started = time.monotonic()
        with pytest.raises(jiffy.TimeoutError) as caught:
            await client.get("k")
        took = time.monotonic() - started
    finally:
        await client.aclose()
    assert caught.value.status == "DEADLINE_EXCEEDED"
    assert deadline - CLOCK_SLACK <= took < deadline + HANG_MARGIN


async def test_retries_with_backoff_stay_inside_the_deadline(server: Server) -> None:
    deadline = 1.0
    # Up to 20 attempts of 150 ms each plus backoff would take ~5 s: the
    # deadline must cut them short.
    retry = jiffy.RetryPolicy(max_attempts=20, initial_backoff=0.05, max_backoff=0.2, jitter=0.0)
    client = await connected(server, BASE.replace(deadline=deadline, retry=retry))
    try:
        with_fault_headers(
            client,
            {"return-error": "unavailable", "error-rpcs": "get", "delay-ms": "150",
             "delay-rpcs": "get"},
        )  # fmt: skip
        started = time.monotonic()
        with pytest.raises((jiffy.ConnectionError, jiffy.TimeoutError)):
            await client.get("k")
        took = time.monotonic() - started
    finally:
        await client.aclose()
    assert took < deadline + HANG_MARGIN
    assert 2 <= attempts(server, "Get") < 20
