"""The in-flight cap: a FIFO queue in front of the channels.

Below the cap, acquiring is one comparison and one increment: no Future, no
lock round trip (the asyncio version) or one uncontended lock (the thread
version). At the cap, callers queue in arrival order and each release hands
its slot to the oldest waiter directly, so a newcomer cannot overtake the
queue. `high_water` records the most slots ever held, for tests and the
loadgen.

Under `max_concurrent_requests="auto"` the Adaptive limiters below move the
cap: each release reports the call's time on the wire to an AdaptiveLimit
(_adaptive.py), and when the cap rises the oldest waiters take the new
slots at once. The fixed limiters never pay for that.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque

from jiffy._adaptive import AdaptiveLimit


class AsyncLimiter:
    """At most `cap` holders at once in one event loop; cap 0 = no limit.

    A waiter gives up after `timeout` seconds. Every waiter has the same
    timeout and the queue is FIFO, so waiters expire in queue order: one
    timer, armed for the oldest waiter, serves the whole queue, and a queued
    call costs one Future and a deque entry.
    """

    __slots__ = ("cap", "timeout", "in_flight", "high_water", "_waiters", "_timer")

    def __init__(self, cap: int, timeout: float) -> None:
        self.cap = cap
        self.timeout = timeout
        self.in_flight = 0
        self.high_water = 0
        self._waiters: deque[tuple[float, asyncio.Future[bool]]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def try_acquire(self) -> bool:
        """Take a slot if one is free and nobody queues before us."""
        if self.cap and (self.in_flight >= self.cap or self._waiters):
            return False
        self.in_flight += 1
        if self.in_flight > self.high_water:
            self.high_water = self.in_flight
        return True

    async def acquire(self) -> bool:
        """Wait in line for a slot; False when `timeout` passed first."""
        if self.try_acquire():
            return True
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        expires_at = loop.time() + self.timeout
        self._waiters.append((expires_at, waiter))
        if self._timer is None:
            self._timer = loop.call_at(expires_at, self._expire_due)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.result():
                self.release()  # the slot arrived as we were cancelled: pass it on
            else:
                self._remove(waiter)
            raise

    def _expire_due(self) -> None:
        """Time out the waiters at the head whose time is up; re-arm for the next."""
        waiters = self._waiters
        loop = asyncio.get_running_loop()
        now = loop.time()
        while waiters and (waiters[0][1].done() or waiters[0][0] <= now):
            _, waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(False)
        self._timer = loop.call_at(waiters[0][0], self._expire_due) if waiters else None

    def _remove(self, waiter: asyncio.Future[bool]) -> None:
        for entry in self._waiters:
            if entry[1] is waiter:
                self._waiters.remove(entry)
                return

    def release(self) -> None:
        """Give the slot to the oldest live waiter, or free it."""
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()[1]
            if not waiter.done():
                waiter.set_result(True)  # the slot moves; in_flight is unchanged
                return
        self.in_flight -= 1

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def history(self) -> list[tuple[float, int]]:
        """(seconds since start, cap) at each change of the cap."""
        return [(0.0, self.cap)]


class AsyncAdaptiveLimiter(AsyncLimiter):
    """An AsyncLimiter whose cap `adaptive` moves; release() takes the call's time."""

    __slots__ = ("adaptive",)

    def __init__(self, adaptive: AdaptiveLimit, timeout: float) -> None:
        super().__init__(adaptive.limit, timeout)
        self.adaptive = adaptive

    def release(self, rtt: float = -1.0) -> None:
        """Free the slot; `rtt` is the call's seconds on the wire, negative if it has none."""
        if rtt >= 0.0 and self.adaptive.sample(rtt, self.in_flight):
            self.cap = self.adaptive.limit
        self.in_flight -= 1
        waiters = self._waiters
        while waiters and self.in_flight < self.cap:
            waiter = waiters.popleft()[1]
            if not waiter.done():
                self.in_flight += 1
                if self.in_flight > self.high_water:
                    self.high_water = self.in_flight
                waiter.set_result(True)

    def drop(self) -> None:
        """A call ended in a loss: the limit will back off."""
        self.adaptive.drop()

    def history(self) -> list[tuple[float, int]]:
        return list(self.adaptive.history)


class SyncLimiter:
    """At most `cap` holders at once across threads; cap 0 = no limit."""

    def __init__(self, cap: int, timeout: float) -> None:
        self.cap = cap
        self.timeout = timeout
        self.in_flight = 0
        self.high_water = 0
        self._lock = threading.Lock()
        self._waiters: deque[threading.Event] = deque()

    def try_acquire(self) -> bool:
        with self._lock:
            return self._take_locked()

    def _take_locked(self) -> bool:
        if self.cap and (self.in_flight >= self.cap or self._waiters):
            return False
        self.in_flight += 1
        self.high_water = max(self.high_water, self.in_flight)
        return True

    def acquire(self) -> bool:
        """Wait in line for a slot; False when `timeout` passed first."""
        with self._lock:
            if self._take_locked():
                return True
            event = threading.Event()
            self._waiters.append(event)
        if event.wait(self.timeout):
            return True
        with self._lock:
            if event.is_set():  # handed over as we gave up: keep it
                return True
            self._waiters.remove(event)
            return False

    def release(self) -> None:
        with self._lock:
            if self._waiters:
                self._waiters.popleft().set()  # the slot moves to the oldest waiter
            else:
                self.in_flight -= 1

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def history(self) -> list[tuple[float, int]]:
        """(seconds since start, cap) at each change of the cap."""
        return [(0.0, self.cap)]


class SyncAdaptiveLimiter(SyncLimiter):
    """A SyncLimiter whose cap `adaptive` moves; release() takes the call's time."""

    def __init__(self, adaptive: AdaptiveLimit, timeout: float) -> None:
        super().__init__(adaptive.limit, timeout)
        self.adaptive = adaptive

    def release(self, rtt: float = -1.0) -> None:
        """Free the slot; `rtt` is the call's seconds on the wire, negative if it has none."""
        with self._lock:
            if rtt >= 0.0 and self.adaptive.sample(rtt, self.in_flight):
                self.cap = self.adaptive.limit
            self.in_flight -= 1
            waiters = self._waiters
            while waiters and self.in_flight < self.cap:
                self.in_flight += 1
                self.high_water = max(self.high_water, self.in_flight)
                waiters.popleft().set()

    def drop(self) -> None:
        """A call ended in a loss: the limit will back off."""
        with self._lock:
            self.adaptive.drop()

    def history(self) -> list[tuple[float, int]]:
        with self._lock:
            return list(self.adaptive.history)
