"""What max_concurrent_requests="auto" adds per call in the Python SDK, without I/O.

A call's path through the cap, as the executors take it: a fixed cap's is
try_acquire() and release(); auto's adds a clock read after the slot is
held and one at the answer, and release() hands the time to the
AdaptiveLimit (a window closes every ~IN_FLIGHT calls and sorts them).
IN_FLIGHT calls are held at once, so the limit has room to move. Run through
bench/adaptive/run.sh overhead (or directly); prints ns per call, best of
ROUNDS.
"""

from __future__ import annotations

import time
from collections import deque

from jiffy._adaptive import AdaptiveLimit
from jiffy._limiter import AsyncAdaptiveLimiter, AsyncLimiter, SyncAdaptiveLimiter, SyncLimiter

CALLS = 1_000_000
ROUNDS = 5
IN_FLIGHT = 25


def fixed(limiter: AsyncLimiter | SyncLimiter) -> float:
    held: deque[None] = deque()
    started = time.perf_counter_ns()
    for _ in range(CALLS):
        if len(held) == IN_FLIGHT:
            held.popleft()
            limiter.release()
        limiter.try_acquire()
        held.append(None)
    return (time.perf_counter_ns() - started) / CALLS


def adaptive(limiter: AsyncAdaptiveLimiter | SyncAdaptiveLimiter) -> float:
    clock = time.monotonic
    held: deque[float] = deque()
    started = time.perf_counter_ns()
    for _ in range(CALLS):
        while len(held) >= min(IN_FLIGHT, limiter.cap):
            limiter.release(clock() - held.popleft())
        if limiter.try_acquire():
            held.append(clock())
    return (time.perf_counter_ns() - started) / CALLS


def main() -> None:
    cases = {
        "async, fixed cap": lambda: fixed(AsyncLimiter(IN_FLIGHT, 5.0)),
        "async, auto": lambda: adaptive(AsyncAdaptiveLimiter(AdaptiveLimit(100), 5.0)),
        "sync, fixed cap": lambda: fixed(SyncLimiter(IN_FLIGHT, 5.0)),
        "sync, auto": lambda: adaptive(SyncAdaptiveLimiter(AdaptiveLimit(100), 5.0)),
    }
    best = {name: min(case() for _ in range(ROUNDS)) for name, case in cases.items()}
    print(f"Python, ns per call through the cap (best of {ROUNDS} x {CALLS:,} calls)")
    for name, ns in best.items():
        print(f"  {name:<18} {ns:8.0f}")
    for kind in ("async", "sync"):
        added = best[f"{kind}, auto"] - best[f"{kind}, fixed cap"]
        print(f"  {kind}: auto adds {added:.0f} ns a call")


if __name__ == "__main__":
    main()
