"""max_concurrent_requests="auto" against a real jiffy-server, slowed with the
fault-injection headers (`delay-ms`, as in test_faults_headers.py): the
limit learns that the server turned slow (a slower path, not a queue: every
call is held 20 ms whatever the limit) and rises to keep it busy, an open
loop under it does not queue, and calls are fast again when the server
recovers. Backing off from a queue is the unit tests' (test_adaptive_limit.py).
What the limit is asserted on here is the limit itself: how many calls it
lets through a second depends on how busy the machine is, and is measured
in bench/adaptive, not here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import jiffy
from jiffy._adaptive import INITIAL_LIMIT, MIN_LIMIT, STREAMS_PER_CONNECTION, AdaptiveLimit
from jiffy._io import metadata_async
from tests.conftest import Server

CACHE = "adaptive"
AUTO = jiffy.Config(max_concurrent_requests="auto")


@pytest.fixture
def server(start_server: Callable[..., Server]) -> Server:
    return start_server("--enable-fault-injection")


def delay_calls(client: jiffy.AsyncCacheClient, delay_ms: int) -> None:
    """Every data call of `client` on CACHE from now on is held `delay_ms` by the server."""
    headers = (("cache", CACHE),) + ((("delay-ms", str(delay_ms)),) if delay_ms else ())
    client._executor._metadata_by_cache[CACHE] = metadata_async(headers)


class Watch:
    """Samples the client's limit and its queue every 5 ms."""

    def __init__(self, client: jiffy.AsyncCacheClient) -> None:
        self.client = client
        self.limits: list[int] = []
        self.queued: list[int] = []
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            self.limits.append(self.client.in_flight_limit())
            self.queued.append(self.client._executor.limiter.waiting)
            await asyncio.sleep(0.005)

    def stop(self) -> None:
        self._task.cancel()


async def closed_loop(client: jiffy.AsyncCacheClient, workers: int, seconds: float) -> int:
    ends = time.monotonic() + seconds
    done = 0

    async def worker(number: int) -> None:
        nonlocal done
        while time.monotonic() < ends:
            await client.get(f"k{number}")
            done += 1

    await asyncio.gather(*(worker(n) for n in range(workers)))
    return done


async def open_loop(client: jiffy.AsyncCacheClient, rate: float, seconds: float) -> None:
    """`rate` gets a second for `seconds`, each sent when due whatever the others do."""
    calls = []
    began = time.monotonic()
    for number in range(int(rate * seconds)):
        due = began + number / rate
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        calls.append(asyncio.ensure_future(client.get(f"k{number % 100}")))
    await asyncio.gather(*calls)  # every one answered: none timed out in the queue


async def test_the_limit_learns_a_slower_server_and_keeps_it_busy(
    server: Server,
) -> None:
    client = jiffy.AsyncCacheClient(server.endpoint, AUTO, default_cache=CACHE)
    await client.connect()
    await client.create_cache(CACHE)
    try:
        assert client.in_flight_limit() == INITIAL_LIMIT
        # 200 callers: more than the ceiling, so the limit is full.
        fast = Watch(client)
        await closed_loop(client, workers=200, seconds=1.0)
        fast.stop()
        settled = fast.limits[-1]
        assert settled > MIN_LIMIT  # it rose from its start

        delay_calls(client, 20)  # 0 -> 20 ms a call, whatever the limit
        # The slower path is learnt (cuts that do not lower the latency, or a
        # probe of the floor, tell it from queueing), and the limit rises to
        # keep it busy: 200 callers at 20 ms would fill 200.
        slow = Watch(client)
        done = await closed_loop(client, workers=200, seconds=1.5)
        slow.stop()
        assert slow.limits[-1] >= STREAMS_PER_CONNECTION // 2
        assert done > 0

        # An open loop the limit does not hold back: nothing queues in the client.
        steady = Watch(client)
        await open_loop(client, rate=400, seconds=1.0)
        steady.stop()
        assert max(steady.queued) <= 10
        assert min(steady.limits) >= slow.limits[-1] // 2

        delay_calls(client, 0)
        recovered = Watch(client)
        fast_again = await closed_loop(client, workers=200, seconds=1.0)
        recovered.stop()
        assert fast_again > 0
        history = client.in_flight_limit_history()
        assert history[0] == (0.0, INITIAL_LIMIT)
        assert min(limit for _, limit in history) >= MIN_LIMIT
        assert max(limit for _, limit in history) <= STREAMS_PER_CONNECTION
    finally:
        await client.aclose()


async def test_a_fixed_cap_reports_itself(server: Server) -> None:
    config = jiffy.Config(max_concurrent_requests=7)
    async with jiffy.AsyncCacheClient(server.endpoint, config) as client:
        assert client.in_flight_limit() == 7
        assert client.in_flight_limit_history() == [(0.0, 7)]


def test_the_sync_client_adapts_too(server: Server) -> None:
    config = AUTO.replace(channels=2, target_p999=0.050)
    with jiffy.CacheClient(server.endpoint, config, default_cache=CACHE) as client:
        client.create_cache(CACHE)
        for number in range(300):
            client.set(f"k{number}", "v")
        assert client.get("k1") == b"v"
        assert MIN_LIMIT <= client.in_flight_limit() <= 2 * STREAMS_PER_CONNECTION
        assert client.in_flight_limit_history()[0] == (0.0, INITIAL_LIMIT)
        assert client._executor.limiter.in_flight == 0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"max_concurrent_requests": "fast"}, "max_concurrent_requests"),
        ({"max_concurrent_requests": -1}, "max_concurrent_requests"),
        ({"target_p999": 0.02}, "target_p999"),
        ({"max_concurrent_requests": "auto", "target_p999": 0.0}, "target_p999"),
    ],
)
def test_bad_auto_settings_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(jiffy.InvalidArgumentError, match=message):
        jiffy.Config(**changes)  # type: ignore[arg-type]


def counting_drops(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """Every loss any AdaptiveLimit is told of, from now on."""
    drops: list[None] = []
    drop = AdaptiveLimit.drop

    def counted(limit: AdaptiveLimit) -> None:
        drops.append(None)
        drop(limit)

    monkeypatch.setattr(AdaptiveLimit, "drop", counted)
    return drops


def one_throttled_cache(start_server: Callable[..., Server], tmp_path: Path) -> Server:
    """A server whose cache `throttled` takes 5 calls a second."""
    config = tmp_path / "limits.toml"
    config.write_text("[caches.throttled]\nmax-calls-per-second = 5\n")
    return start_server("--enable-fault-injection", "--config", str(config))


async def test_a_cache_over_its_own_limit_does_not_cut_the_limit(
    start_server: Callable[..., Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A throttled cache's refusals are its own: cutting the client's limit
    # for them would queue the calls to every other cache behind it.
    server = one_throttled_cache(start_server, tmp_path)
    drops = counting_drops(monkeypatch)
    async with jiffy.AsyncCacheClient(server.endpoint, AUTO) as client:
        await client.create_cache("throttled")
        outcomes = await asyncio.gather(
            *(client.get("k", cache="throttled") for _ in range(60)), return_exceptions=True
        )
        throttled = [o for o in outcomes if isinstance(o, jiffy.LimitExceededError)]
        assert len(throttled) >= 30, outcomes
        assert {error.reason for error in throttled} == {"operations_rate_limit_exceeded"}
        assert drops == []

        # A RESOURCE_EXHAUSTED that names no limit of the call (a server
        # shedding load) is a loss.
        await client.create_cache(CACHE)
        headers = (("cache", CACHE), ("return-error", "resource-exhausted"))
        client._executor._metadata_by_cache[CACHE] = metadata_async(headers)
        with pytest.raises(jiffy.LimitExceededError):
            await client.get("k", cache=CACHE)
        assert len(drops) == 1


def test_the_sync_client_does_not_cut_its_limit_for_a_throttled_cache(
    start_server: Callable[..., Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = one_throttled_cache(start_server, tmp_path)
    drops = counting_drops(monkeypatch)
    with jiffy.CacheClient(server.endpoint, AUTO) as client:
        client.create_cache("throttled")
        reasons = []
        for _ in range(30):
            try:
                client.get("k", cache="throttled")
            except jiffy.LimitExceededError as error:
                reasons.append(error.reason)
        assert len(reasons) >= 15
        assert set(reasons) == {"operations_rate_limit_exceeded"}
        assert drops == []
