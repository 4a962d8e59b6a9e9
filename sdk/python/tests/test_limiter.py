"""The in-flight cap: bound, FIFO order, timeouts, cancellation."""

from __future__ import annotations

import asyncio
import threading
import time

from jiffy._limiter import AsyncLimiter, SyncLimiter


async def test_async_limiter_bounds_and_serves_in_arrival_order() -> None:
    limiter = AsyncLimiter(2, 5.0)
    order: list[int] = []
    in_flight = 0
    peak = 0

    async def holder(number: int) -> None:
        nonlocal in_flight, peak
        assert await limiter.acquire()
        order.append(number)
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.001)
        in_flight -= 1
        limiter.release()

    await asyncio.gather(*(holder(n) for n in range(50)))
    assert order == list(range(50))
    assert peak == 2
    assert limiter.high_water == 2
    assert limiter.in_flight == 0
    assert limiter.waiting == 0


async def test_async_newcomer_does_not_overtake_the_queue() -> None:
    limiter = AsyncLimiter(1, 5.0)
    assert limiter.try_acquire()
    waiter = asyncio.ensure_future(limiter.acquire())
    await asyncio.sleep(0)
    limiter.release()  # handed to the waiter, not freed
    assert not limiter.try_acquire()
    assert await waiter
    limiter.release()
    assert limiter.in_flight == 0


async def test_async_acquire_times_out_and_leaves_the_queue() -> None:
    limiter = AsyncLimiter(1, 0.01)
    assert limiter.try_acquire()
    assert not await limiter.acquire()
    assert limiter.waiting == 0
    limiter.release()
    assert limiter.in_flight == 0


async def test_async_cancelled_waiter_gives_up_its_turn() -> None:
    limiter = AsyncLimiter(1, 5.0)
    assert limiter.try_acquire()
    cancelled = asyncio.ensure_future(limiter.acquire())
    second = asyncio.ensure_future(limiter.acquire())
    await asyncio.sleep(0)
    cancelled.cancel()
    await asyncio.sleep(0)
    limiter.release()
    assert await second
    limiter.release()
    assert limiter.in_flight == 0
    assert limiter.waiting == 0


async def test_zero_cap_means_no_limit() -> None:
    limiter = AsyncLimiter(0, 5.0)
    assert all(limiter.try_acquire() for _ in range(10_000))
    assert SyncLimiter(0, 10.0).try_acquire()


def test_sync_limiter_bounds_threads_in_fifo_order() -> None:
    limiter = SyncLimiter(3, 10.0)
    lock = threading.Lock()
    in_flight = 0
    peak = 0

    def holder() -> None:
        nonlocal in_flight, peak
        assert limiter.acquire()
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.002)
        with lock:
            in_flight -= 1
        limiter.release()

    threads = [threading.Thread(target=holder) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak <= 3
    assert limiter.high_water == 3
    assert limiter.in_flight == 0


def test_sync_waiters_are_served_in_arrival_order() -> None:
    limiter = SyncLimiter(1, 10.0)
    assert limiter.try_acquire()
    served: list[int] = []

    def waiter(number: int) -> None:
        assert limiter.acquire()
        served.append(number)
        limiter.release()

    threads = []
    for number in range(5):
        threads.append(threading.Thread(target=waiter, args=(number,)))
        threads[-1].start()
        while limiter.waiting < number + 1:  # queued before the next one starts
            time.sleep(0.001)
    limiter.release()
    for thread in threads:
        thread.join()
    assert served == [0, 1, 2, 3, 4]


def test_sync_acquire_times_out() -> None:
    limiter = SyncLimiter(1, 0.01)
    assert limiter.try_acquire()
    assert not limiter.acquire()
    assert limiter.waiting == 0


async def test_async_waiters_expire_in_order_with_one_timer() -> None:
    limiter = AsyncLimiter(1, 0.05)
    assert limiter.try_acquire()
    first = asyncio.ensure_future(limiter.acquire())
    await asyncio.sleep(0.02)
    second = asyncio.ensure_future(limiter.acquire())
    await asyncio.sleep(0)
    assert limiter.waiting == 2
    assert await first is False
    assert not second.done()  # its own time is not up yet when the first expires
    assert await second is False
    assert limiter.waiting == 0
    limiter.release()
    assert limiter.try_acquire()  # nothing stale left in the way
