"""Which data channel a call goes to: the one with the fewest calls in flight.

Both SDKs pick the same way (sdk/spec.json, `channels`). Round robin, which
this SDK used before, sends a call to a channel however far behind it is:
one connection slowed by a lost packet, a busy server thread or a full
HTTP/2 window keeps getting 1/N of the calls and they queue behind it.
Counting calls in flight steers new calls away from it at the cost of an
increment and a decrement per call, and when the load is even it is round
robin: the scan starts one further each call, so ties rotate.

`AsyncLeastLoaded` serves one event loop and needs no lock;
`SyncLeastLoaded` is shared by threads, and a lost update under threads
would skew the counts for good, so it takes a lock.
"""

from __future__ import annotations

import threading


class AsyncLeastLoaded:
    """In-flight counts of `count` channels; `take` picks one, `give_back` frees it."""

    __slots__ = ("in_flight", "_next")

    def __init__(self, count: int) -> None:
        self.in_flight = [0] * count
        self._next = 0

    def take(self) -> int:
        """The index of the least-loaded channel, counted as one call busier."""
        loads = self.in_flight
        count = len(loads)
        start = self._next
        self._next = 0 if start + 1 == count else start + 1
        best, best_load = start, loads[start]
        step = 1
        while step < count and best_load > 0:
            index = (start + step) % count
            if loads[index] < best_load:
                best, best_load = index, loads[index]
            step += 1
        loads[best] += 1
        return best

    def give_back(self, index: int) -> None:
        self.in_flight[index] -= 1


class SyncLeastLoaded(AsyncLeastLoaded):
    """The same choice, safe to share between threads."""

    __slots__ = ("_lock",)

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self._lock = threading.Lock()

    def take(self) -> int:
        with self._lock:
            return super().take()

    def give_back(self, index: int) -> None:
        with self._lock:
            self.in_flight[index] -= 1
