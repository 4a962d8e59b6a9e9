"""max_concurrent_requests="auto": the AdaptiveLimit against simulated servers
on a fake clock, and the adaptive limiters' slots.

The simulated server answers a call in `base` seconds while it has room;
past `capacity x base` calls in flight (Little's law: the most it can serve
without a queue) each extra call in flight adds 1 / capacity of waiting,
the way a saturated server, client CPU or link behaves. A jitter of a few
percent keeps the medians honest. The client can be paused (a GC, the
scheduler): nothing it does happens meanwhile, and the answers that came
are seen when it wakes, all at once. test/unit/adaptive-limit.test.ts runs
the same scenarios against the TypeScript SDK.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import random
import threading
from collections import deque
from dataclasses import dataclass, field

import pytest

from jiffy._adaptive import (
    HISTORY_INTERVAL,
    INITIAL_LIMIT,
    MIN_LIMIT,
    STREAMS_PER_CONNECTION,
    AdaptiveLimit,
)
from jiffy._limiter import AsyncAdaptiveLimiter, SyncAdaptiveLimiter

MS = 0.001


@dataclass
class Server:
    base: float
    """Seconds a call takes with room to spare (the network and the work)."""
    capacity: float
    """Calls per second it completes at most."""
    jitter: float = 0.05
    rand: random.Random = field(default_factory=lambda: random.Random(7))

    def rtt(self, in_flight: int) -> float:
        queued = max(0.0, in_flight - self.capacity * self.base)
        return (self.base + queued / self.capacity) * math.exp(self.rand.gauss(0.0, self.jitter))


@dataclass
class Done:
    at: float
    rtt: float
    total: float
    """From when the caller asked (queue included)."""


class Sim:
    """Callers under an AdaptiveLimit on a fake clock: `workers` closed-loop
    callers, or an open loop of `rate` calls per second."""

    def __init__(
        self,
        server: Server,
        *,
        workers: int = 0,
        rate: float = 0.0,
        ceiling: int = STREAMS_PER_CONNECTION,
        target_p999: float | None = None,
    ) -> None:
        self.server = server
        self.now = 0.0
        self.limit = AdaptiveLimit(ceiling, target_p999=target_p999, clock=lambda: self.now)
        self.in_flight = 0
        self.queue: deque[float] = deque()
        self.done: list[Done] = []
        self.limits: list[tuple[float, int]] = [(0.0, self.limit.chosen)]
        self.longest_queue = 0
        # (at, seq, rtt, asked): rtt < 0 is an open-loop call due at `asked`.
        self._events: list[tuple[float, int, float, float]] = []
        self._seq = 0
        self._paused_until = 0.0
        self.rate = rate
        for _ in range(workers):
            self._ask(0.0)
        if rate:
            self._push(0.0, -1.0, 0.0)

    def _push(self, at: float, rtt: float, asked: float) -> None:
        self._seq += 1
        heapq.heappush(self._events, (at, self._seq, rtt, asked))

    def _send(self, asked: float) -> None:
        self.in_flight += 1
        rtt = self.server.rtt(self.in_flight)
        self._push(self.now + rtt, rtt, asked)

    def _ask(self, asked: float) -> None:
        if self.in_flight < self.limit.limit and not self.queue:
            self._send(asked)
        else:
            self.queue.append(asked)
            self.longest_queue = max(self.longest_queue, len(self.queue))

    def pause(self, seconds: float) -> None:
        """The client stops for `seconds` from now: what happens meanwhile waits for it."""
        self._paused_until = self.now + seconds

    def run(self, seconds: float) -> list[Done]:
        """Run on for `seconds`; the calls that ended meanwhile."""
        until, first = self.now + seconds, len(self.done)
        events = self._events
        while events and events[0][0] <= until:
            at, seq, rtt, asked = heapq.heappop(events)
            if at < self._paused_until:  # seen when the client wakes, the pause on its clock
                woken = self._paused_until
                heapq.heappush(events, (woken, seq, rtt + woken - at if rtt >= 0 else rtt, asked))
                continue
            self.now = at
            if rtt < 0:  # open loop: a call is due
                self._ask(asked)
                self._push(asked + 1.0 / self.rate, -1.0, asked + 1.0 / self.rate)
                continue
            self.limit.sample(rtt, self.in_flight)
            self.in_flight -= 1
            self.done.append(Done(at, rtt, at - asked))
            if self.limits[-1][1] != self.limit.chosen:
                self.limits.append((at, self.limit.chosen))
            while self.queue and self.in_flight < self.limit.limit:
                self._send(self.queue.popleft())
            if not self.rate:
                self._ask(at)
        self.now = until
        return self.done[first:]

    def limits_between(self, start: float, end: float) -> list[int]:
        before = [limit for at, limit in self.limits if at <= start][-1:]
        return before + [limit for at, limit in self.limits if start < at <= end]


def rate(done: list[Done], seconds: float) -> float:
    return len(done) / seconds


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


# A server 1 ms away that completes 10,000 calls/s: 10 in flight fill it, and
# the 1 ms of queueing allowed (QUEUE_DELAY) puts the knee near 20.
NEAR = Server(base=1 * MS, capacity=10_000)
KNEE = 20


def test_starts_small_and_rises_quickly() -> None:
    sim = Sim(NEAR, workers=200)
    assert sim.limit.limit == INITIAL_LIMIT
    sim.run(0.02)  # 20 round trips
    assert sim.limit.chosen >= NEAR.capacity * NEAR.base  # the server is full


@pytest.mark.parametrize(("base_ms", "within"), [(0.3, 0.01), (1.3, 0.02), (10.3, 0.15)])
def test_slow_start_reaches_the_knee_in_a_few_round_trips(base_ms: float, within: float) -> None:
    """From 4 in flight to the knee of a client that completes 10,000 calls/s
    at most (its CPU), 0.3, 1.3 or 10.3 ms from its server: doubling per
    round trip, about ten of them at 10 ms (the ceiling of 3 connections,
    300, is out of the way)."""
    server = Server(base=base_ms * MS, capacity=10_000)
    sim = Sim(server, workers=1_000, ceiling=3 * STREAMS_PER_CONNECTION)
    sim.run(within)
    filling = server.capacity * server.base  # the calls in flight that keep it busy
    assert sim.limit.chosen >= filling
    done = sim.run(0.5)
    assert rate(done, 0.5) >= 0.97 * server.capacity
    knee = server.capacity * (server.base + max(MS, 0.25 * server.base))
    # Past it by one doubling at most, and back where queueing begins.
    assert max(sim.limits_between(within, within + 0.5)) <= 2 * knee
    assert filling <= sim.limit.chosen <= 1.3 * knee
    assert percentile([d.rtt for d in done], 0.5) <= 1.5 * server.base + 1 * MS


def test_settles_where_queueing_begins() -> None:
    sim = Sim(NEAR, workers=200)
    sim.run(1.0)
    done = sim.run(1.0)
    assert rate(done, 1.0) >= 0.97 * NEAR.capacity
    # About 1 ms of queueing over the 1 ms a call takes, not the 19 ms that
    # 200 callers would make of it with no cap.
    assert 1.5 * MS <= percentile([d.rtt for d in done], 0.5) <= 2.5 * MS
    limits = sim.limits_between(1.0, 2.0)
    # Steady, but for a brief overshoot after a probe of the floor.
    assert sum(0.7 * KNEE <= limit <= 1.3 * KNEE for limit in limits) >= 0.95 * len(limits)
    assert max(limits) <= 2 * KNEE


def test_backs_off_within_a_few_round_trips_when_the_server_slows() -> None:
    server = Server(base=1 * MS, capacity=10_000)
    sim = Sim(server, workers=200)
    sim.run(1.0)
    settled = sim.limit.chosen
    server.capacity = 2_000  # a fifth: the knee falls from ~20 to ~4
    sim.run(0.05)  # 5 round trips at the new pace (10 ms each at 20 in flight)
    assert sim.limit.chosen <= settled / 2
    done = sim.run(1.0)
    assert rate(done, 1.0) >= 0.95 * server.capacity  # backing off cost no throughput
    assert percentile([d.rtt for d in done], 0.5) <= 3.5 * MS


@pytest.mark.parametrize("pause", [0.005, 0.02, 0.1])
def test_a_pause_of_the_client_does_not_cut_the_limit(pause: float) -> None:
    """Every call on the wire comes back at once, late by the pause (a GC, the
    scheduler, another process on the core): one window of outliers, not a
    slower server, so the limit stays at the knee."""
    sim = Sim(NEAR, workers=200)
    sim.run(1.0)
    settled = sim.limit.chosen
    sim.pause(pause)
    sim.run(pause + 0.05)
    assert min(sim.limits_between(1.0, 1.05 + pause)) >= 0.8 * settled


def test_a_pause_does_not_queue_an_open_loop_behind_a_cut_limit() -> None:
    sim = Sim(NEAR, rate=5_000)
    sim.run(1.0)
    settled = sim.limit.chosen
    sim.pause(0.02)  # 100 calls fall due meanwhile, and go out together
    done = sim.run(0.2)
    assert min(sim.limits_between(1.0, 1.2)) >= settled
    # Late by the pause, and not by a queue that a cut limit would build after it.
    assert percentile([d.total for d in done], 0.999) <= 0.02 + 2 * MS


def test_a_sustained_slowdown_cuts_the_limit_within_a_few_round_trips() -> None:
    """1 -> 20 ms a call, from a closed loop at the knee: every window is over
    the target, so the limit falls within a few of the new round trips; the
    latency does not fall with it, as it would past a knee, so the path is
    slower: its latency becomes the baseline, and the limit rises to keep it
    busy."""
    server = Server(base=1 * MS, capacity=10_000)
    sim = Sim(server, workers=200)
    sim.run(1.0)
    settled = sim.limit.chosen
    server.base = 20 * MS
    sim.run(0.1)  # 5 round trips of 20 ms
    assert min(sim.limits_between(1.0, 1.1)) <= settled / 2
    sim.run(0.2)
    assert sim.limit.baseline is not None
    assert sim.limit.baseline >= 18 * MS  # 20 ms, give or take the jitter
    assert sim.limit.chosen == STREAMS_PER_CONNECTION  # 200 calls in flight would fill it
    done = sim.run(0.7)
    assert rate(done, 0.7) >= 0.97 * STREAMS_PER_CONNECTION / (20 * MS)


def test_an_open_loop_is_not_throttled_below_its_load() -> None:
    """A slower path under an open loop that does not fill the limit: latency
    over the target is not the limit's doing, so it is cut no lower than the
    calls in flight, and when it then fills and the cuts do not lower the
    latency, they are undone: the client's queue stays all but empty."""
    server = Server(base=1 * MS, capacity=100_000)
    sim = Sim(server, rate=4_000)
    sim.run(1.0)
    settled = sim.limit.chosen
    assert settled > 4_000 * 2.5 * MS  # room for the calls at 2.5 ms each
    server.base = 2.5 * MS  # over the target (2 ms), whatever the limit
    done = sim.run(1.0)
    assert min(sim.limits_between(1.0, 2.0)) >= 0.75 * 4_000 * 2.5 * MS
    assert sim.longest_queue <= 10
    assert percentile([d.total for d in done], 0.999) <= 1.5 * server.base
    assert sim.limit.baseline is not None
    assert sim.limit.baseline >= 2 * MS  # the slower path, learnt


def test_an_open_loop_far_away_keeps_its_tail() -> None:
    """1,000 calls/s, 10 ms away: about 10 in flight, and the limit well over
    them from the first tenth of a second. Nothing probes the floor under a
    limit the load does not fill, so no call waits behind one (a probe of
    two round trips at 4 in flight would queue ~15 calls: a 30 ms tail)."""
    far = Server(base=10 * MS, capacity=100_000)
    sim = Sim(far, rate=1_000)
    sim.run(0.1)
    assert sim.limit.chosen >= 20
    sim.run(0.9)
    done = sim.run(4.0)
    assert percentile([d.total for d in done], 0.999) <= 1.3 * far.base


def test_a_slower_path_is_relearnt_and_the_queue_stays_bounded() -> None:
    """0 -> 20 ms per call: the limit falls at once (it reads like queueing),
    then sees the latency did not fall with it: the path itself is slower,
    and the limit rises to keep it busy; the open loop's queue drains
    instead of growing."""
    server = Server(base=0.3 * MS, capacity=20_000)
    sim = Sim(server, rate=15_000)
    sim.run(1.0)
    before = sim.limit.chosen
    sim.rate = 1_000  # 20 in flight at 20 ms
    server.base = 20.3 * MS
    sim.run(0.25)
    assert min(sim.limits_between(1.0, 1.1)) <= before / 2
    done = sim.run(0.75)
    assert sim.longest_queue < 100  # a tenth of a second of calls at most
    assert len(sim.queue) <= 5
    assert sim.limit.chosen >= 20
    assert rate([d for d in done if d.at > 1.5], 0.5) >= 950


def test_recovers_when_the_server_does() -> None:
    server = Server(base=1 * MS, capacity=10_000)
    sim = Sim(server, workers=200)
    sim.run(1.0)
    server.base = 20 * MS
    sim.run(2.0)
    server.base = 1 * MS
    sim.run(3.0)  # the next probe of the full limit's floor finds the fast path again
    done = sim.run(1.0)
    assert 0.7 * KNEE <= sim.limit.chosen <= 1.3 * KNEE
    assert percentile([d.rtt for d in done], 0.5) <= 2.5 * MS
    assert rate(done, 1.0) >= 0.97 * server.capacity


def test_never_below_the_floor() -> None:
    server = Server(base=1 * MS, capacity=10_000)
    sim = Sim(server, workers=50)
    sim.run(1.0)
    server.capacity = 300  # less than one call in flight fills it
    sim.run(0.6)  # round trips of 70 ms and more
    limits = sim.limits_between(1.0, 1.6)
    assert min(limits) == MIN_LIMIT  # it went as low as it may, no lower
    # The floor's own latency becomes the baseline: queueing is judged from there.
    assert sim.limit.baseline is not None
    assert sim.limit.baseline > 10 * MS


@pytest.mark.parametrize("channels", [1, 3])
def test_never_above_streams_per_connection_times_connections(channels: int) -> None:
    far = Server(base=50 * MS, capacity=1_000_000)  # room for 50,000 in flight
    ceiling = STREAMS_PER_CONNECTION * channels
    sim = Sim(far, workers=1_000, ceiling=ceiling)
    sim.run(3.0)
    assert max(limit for _, limit in sim.limits) == ceiling == sim.limit.chosen


def test_rises_only_as_far_as_the_callers_use_it() -> None:
    sim = Sim(Server(base=10 * MS, capacity=100_000), workers=6)
    sim.run(2.0)
    assert sim.limit.chosen <= 2 * 6 / 0.5  # UTILISATION: at least half of it was used


def test_losses_halve_the_limit() -> None:
    sim = Sim(Server(base=10 * MS, capacity=100_000), workers=100)
    sim.run(1.0)
    before = sim.limit.chosen
    sim.limit.drop()
    sim.run(0.025)  # the window that saw the loss has closed
    halved = sim.limit.chosen
    assert halved <= before / 2 + 1
    sim.run(0.1)  # ~5 windows: past a loss the limit grows by one a window at most
    assert sim.limit.chosen <= halved + 5


def test_a_tail_target_keeps_p999_under_it() -> None:
    jittery = Server(base=0.3 * MS, capacity=13_000, jitter=0.35)
    free = Sim(jittery, workers=64)
    free.run(1.0)
    untargeted = percentile([d.rtt for d in free.run(2.0)], 0.999)
    target = 2 * MS
    assert untargeted > 1.5 * target
    jittery.rand = random.Random(7)
    held = Sim(jittery, workers=64, target_p999=target)
    held.run(1.0)
    done = held.run(2.0)
    assert percentile([d.rtt for d in done], 0.999) <= 1.1 * target
    assert rate(done, 2.0) >= 0.9 * jittery.capacity


def test_history_keeps_one_entry_per_interval() -> None:
    sim = Sim(NEAR, workers=200)
    sim.run(2.0)
    history = list(sim.limit.history)
    assert history[0] == (0.0, INITIAL_LIMIT)
    assert history[-1][1] == sim.limit.chosen
    times = [at for at, _ in history]
    assert all(b - a >= HISTORY_INTERVAL - 1e-9 for a, b in zip(times[1:], times[2:], strict=False))
    assert all(a[1] != b[1] for a, b in zip(history, history[1:], strict=False))


# The adaptive limiters: slots follow the limit.


def feed(limiter: AsyncAdaptiveLimiter | SyncAdaptiveLimiter, rtt: float) -> None:
    """Fill every slot with calls of `rtt` and end them, until the limit moves."""
    start = limiter.cap
    while limiter.cap == start:
        held = 0
        while limiter.try_acquire():
            held += 1
        for _ in range(held):
            limiter.release(rtt)


async def test_async_waiters_take_new_slots_when_the_limit_rises() -> None:
    limiter = AsyncAdaptiveLimiter(AdaptiveLimit(100), 5.0)
    feed(limiter, 1 * MS)  # fast answers, nothing held: the limit rises
    cap = limiter.cap
    assert cap > INITIAL_LIMIT
    for _ in range(cap):
        assert limiter.try_acquire()
    waiters = [asyncio.ensure_future(limiter.acquire()) for _ in range(3)]
    await asyncio.sleep(0)
    assert limiter.waiting == 3
    limiter.cap += 2  # as a window closing would
    limiter.release()  # a call without a sample: no window closes
    await asyncio.sleep(0)
    assert [w.done() for w in waiters] == [True, True, True]
    assert limiter.in_flight == cap + 2


async def test_async_no_slot_is_handed_on_above_a_lowered_limit() -> None:
    limiter = AsyncAdaptiveLimiter(AdaptiveLimit(100), 5.0)
    for _ in range(INITIAL_LIMIT):
        assert limiter.try_acquire()
    waiter = asyncio.ensure_future(limiter.acquire())
    await asyncio.sleep(0)
    limiter.cap = 2
    limiter.release()
    limiter.release()
    await asyncio.sleep(0)
    assert not waiter.done()
    assert limiter.in_flight == 2
    limiter.release()
    await asyncio.sleep(0)
    assert waiter.done()
    assert limiter.in_flight == 2
    for _ in range(2):
        limiter.release()
    assert limiter.in_flight == 0


def test_sync_waiters_take_new_slots_when_the_limit_rises() -> None:
    limiter = SyncAdaptiveLimiter(AdaptiveLimit(100), 5.0)
    for _ in range(INITIAL_LIMIT):
        assert limiter.try_acquire()
    results: list[bool] = []
    threads = [threading.Thread(target=lambda: results.append(limiter.acquire())) for _ in range(2)]
    for thread in threads:
        thread.start()
    while limiter.waiting < 2:
        pass
    limiter.cap = INITIAL_LIMIT + 1
    limiter.release()  # frees one slot, and the raised limit lets the second in
    for thread in threads:
        thread.join(5.0)
    assert results == [True, True]
    assert limiter.in_flight == INITIAL_LIMIT + 1


def test_sync_limit_moves_with_samples() -> None:
    limiter = SyncAdaptiveLimiter(AdaptiveLimit(100), 5.0)
    feed(limiter, 1 * MS)
    assert limiter.cap > INITIAL_LIMIT
    assert limiter.history()[-1][1] == limiter.adaptive.chosen
