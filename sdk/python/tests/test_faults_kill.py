"""The server killed (SIGKILL) under load and restarted on the same port.

One client carries a steady load from 50 workers throughout. While the
server is down every call must fail fast with ConnectionError; once it is
back the same client object must succeed again; no call may outlive its
deadline; and no Increment made while the server was down may reach the new
server later (a hidden retry or replay of a non-idempotent call).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

import jiffy
from tests.conftest import Server

DEADLINE = 3.0
# Scheduling slack on a busy two-core machine; a hung call overshoots it by far.
HANG_MARGIN = 1.0
# "Fast" while the server is down: well under the deadline.
FAIL_FAST = DEADLINE / 2
WORKERS = 50
LOAD_BEFORE_KILL = 1.0
DOWN_FOR = 1.5
RECOVERY_LIMIT = 5.0
# Longer than the longest reconnect backoff of a channel that was idle-failing.
LOAD_AFTER_RECOVERY = 2.5
CACHE = "faults"
INCREMENTS_ANSWERED = 'jiffy_request_duration_seconds_count{rpc="Increment",transport="grpc"}'
# No in-flight cap: a call queued behind the cap while the server was down is
# sent for the first time after the restart. That is right, but it would blur
# the count of Increments below.
CONFIG = jiffy.presets.in_region.latest().replace(deadline=DEADLINE, max_concurrent_requests=0)


@dataclass(frozen=True)
class Outcome:
    op: str
    started: float
    ended: float
    error: jiffy.CacheError | None

    @property
    def took(self) -> float:
        return self.ended - self.started


async def one_call(client: jiffy.AsyncCacheClient, op: str, worker: int) -> None:
    if op == "set":
        await client.set(f"k{worker}", "v")
    elif op == "get":
        await client.get(f"k{worker}")
    else:
        await client.increment(f"n{worker}")


async def work(
    client: jiffy.AsyncCacheClient, worker: int, stop: asyncio.Event, outcomes: list[Outcome]
) -> None:
    ops = ("set", "get", "increment")
    sent = 0
    while not stop.is_set():
        op = ops[sent % len(ops)]
        sent += 1
        started = time.monotonic()
        error: jiffy.CacheError | None = None
        try:
            await one_call(client, op, worker)
        except jiffy.CacheError as exc:
            error = exc
        outcomes.append(Outcome(op, started, time.monotonic(), error))
        if error is not None:
            # Failures come back at once; a short pause keeps 50 workers from
            # spinning the CPU the restarting server needs.
            await asyncio.sleep(0.01)


async def recreate_cache(client: jiffy.AsyncCacheClient, within: float) -> None:
    """The restarted server is empty: create the cache as soon as it answers."""
    give_up_at = time.monotonic() + within
    while True:
        try:
            await client.create_cache(CACHE)
            return
        except jiffy.ConnectionError:
            if time.monotonic() > give_up_at:
                raise
            await asyncio.sleep(0.05)


async def test_sigkill_under_load_fails_fast_and_recovers_without_replaying_increments(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    outcomes: list[Outcome] = []
    stop = asyncio.Event()
    async with jiffy.AsyncCacheClient(server.endpoint, CONFIG, default_cache=CACHE) as client:
        await client.create_cache(CACHE)
        workers = [asyncio.create_task(work(client, i, stop, outcomes)) for i in range(WORKERS)]
        await asyncio.sleep(LOAD_BEFORE_KILL)
        await asyncio.to_thread(server.stop)  # SIGKILL, then reaped
        killed = time.monotonic()
        await asyncio.sleep(DOWN_FOR)
        restarting = time.monotonic()
        await asyncio.to_thread(server.restart)
        restarted = time.monotonic()
        await recreate_cache(client, RECOVERY_LIMIT)
        recovered = time.monotonic()
        await asyncio.sleep(LOAD_AFTER_RECOVERY)
        stop.set()
        await asyncio.gather(*workers)
    increments_on_new_server = server.metric(INCREMENTS_ANSWERED)

    slowest = max(outcomes, key=lambda o: o.took)
    assert slowest.took <= DEADLINE + HANG_MARGIN, f"a call hung past its deadline: {slowest}"

    unexpected = [
        o
        for o in outcomes
        if o.error is not None
        and not isinstance(o.error, (jiffy.ConnectionError, jiffy.CacheNotFoundError))
    ]
    assert not unexpected, f"errors other than ConnectionError: {unexpected[:3]}"

    while_down = [o for o in outcomes if killed <= o.started and o.ended <= restarting]
    assert len(while_down) >= WORKERS, "the load did not keep going while the server was down"
    assert all(isinstance(o.error, jiffy.ConnectionError) for o in while_down)
    assert max(o.took for o in while_down) < FAIL_FAST

    # Recovered: the last failure came soon after the restart, and the load
    # ran clean from then on.
    assert recovered - restarted < RECOVERY_LIMIT
    last_failure = max(o.ended for o in outcomes if o.error is not None)
    assert last_failure - restarted < RECOVERY_LIMIT
    assert len([o for o in outcomes if o.started > last_failure]) >= WORKERS

    # Every Increment the new server answered was sent after it started: no
    # call from the outage was retried or replayed into it.
    answered = [
        o
        for o in outcomes
        if o.op == "increment"
        and o.started >= restarting
        and not isinstance(o.error, jiffy.ConnectionError)
    ]
    assert increments_on_new_server == len(answered)
    assert not [
        o for o in outcomes if o.op == "increment" and killed <= o.started < restarting
        and o.error is None
    ]  # fmt: skip
