"""The few primitives where the async and the sync clients really differ.

scripts/generate_sync.py turns `<name>_async` into `<name>_sync` when it
writes the sync modules from the async ones; everything else is shared.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

import grpc
import grpc.aio

sleep_async = asyncio.sleep
sleep_sync = time.sleep
Headers = tuple[tuple[str, str], ...]


def metadata_async(headers: Headers) -> grpc.aio.Metadata:
    """Prebuilt once per cache: grpc.aio converts a plain tuple into this on
    every call (an ABC isinstance check and a new dict), ~2 µs measured."""
    return grpc.aio.Metadata(*headers)


def metadata_sync(headers: Headers) -> Headers:
    """The sync channel takes the tuple as is."""
    return headers


async def unary_headers_async(
    call: Any, request: Any, *, timeout: float, metadata: grpc.aio.Metadata
) -> dict[str, str]:
    """Make a unary call and return its response headers (initial metadata)."""
    answer = call(request, timeout=timeout, metadata=metadata)
    await answer
    return {key: value for key, value in await answer.initial_metadata() if isinstance(value, str)}


def unary_headers_sync(
    call: Any, request: Any, *, timeout: float, metadata: Headers
) -> dict[str, str]:
    """Make a unary call and return its response headers (initial metadata)."""
    _, answer = call.with_call(request, timeout=timeout, metadata=metadata)
    return {key: value for key, value in answer.initial_metadata() if isinstance(value, str)}


# What waiting for the channels came to.
READY = "ready"
FAILING = "failing"
"""A channel is in TRANSIENT_FAILURE: its last attempt to connect failed."""
TIMED_OUT = "timed out"

_READY = grpc.ChannelConnectivity.READY
# SHUTDOWN (a closed channel) ends the wait as a failure would: it never connects.
_FAILED = (grpc.ChannelConnectivity.TRANSIENT_FAILURE, grpc.ChannelConnectivity.SHUTDOWN)

P = ParamSpec("P")
T = TypeVar("T")


async def wait_ready_async(
    channels: Sequence[grpc.aio.Channel], timeout: float, *, stop_on_failure: bool
) -> str:
    """Connect every channel: READY once all are, FAILING as soon as one fails
    (with `stop_on_failure`; else failures are waited through, as grpc keeps
    reconnecting), TIMED_OUT after `timeout` seconds."""
    ends = (_READY, *_FAILED) if stop_on_failure else (_READY,)

    async def settle(channel: grpc.aio.Channel) -> grpc.ChannelConnectivity:
        state = channel.get_state(try_to_connect=True)
        while state not in ends:
            await channel.wait_for_state_change(state)
            state = channel.get_state(try_to_connect=True)
        return state

    tasks = [asyncio.ensure_future(settle(channel)) for channel in channels]
    try:
        pending: set[asyncio.Future[grpc.ChannelConnectivity]] = set(tasks)
        give_up_at = time.monotonic() + timeout
        while pending:
            done, pending = await asyncio.wait(
                pending,
                timeout=max(0.0, give_up_at - time.monotonic()),
                return_when=asyncio.FIRST_COMPLETED,
            )
            if not done:
                return TIMED_OUT
            if any(task.result() is not _READY for task in done):
                return FAILING
        return READY
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def wait_ready_sync(
    channels: Sequence[grpc.Channel], timeout: float, *, stop_on_failure: bool
) -> str:
    """Connect every channel: READY once all are, FAILING as soon as one fails
    (with `stop_on_failure`; else failures are waited through, as grpc keeps
    reconnecting), TIMED_OUT after `timeout` seconds."""
    states: list[grpc.ChannelConnectivity | None] = [None] * len(channels)
    changed = threading.Condition()

    def watch(index: int) -> Callable[[grpc.ChannelConnectivity], None]:
        def on_change(state: grpc.ChannelConnectivity) -> None:
            with changed:
                states[index] = state
                changed.notify_all()

        return on_change

    def outcome() -> str | None:
        if stop_on_failure and any(state in _FAILED for state in states):
            return FAILING
        return READY if all(state is _READY for state in states) else None

    watchers = [watch(index) for index in range(len(channels))]
    for channel, watcher in zip(channels, watchers, strict=True):
        channel.subscribe(watcher, try_to_connect=True)
    try:
        with changed:
            changed.wait_for(lambda: outcome() is not None, timeout)
            return outcome() or TIMED_OUT
    finally:
        for channel, watcher in zip(channels, watchers, strict=True):
            channel.unsubscribe(watcher)


async def run_blocking_async(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a blocking function (a probe of the network) off the event loop."""
    return await asyncio.to_thread(function, *args, **kwargs)


def run_blocking_sync(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a blocking function; the sync client blocks anyway."""
    return function(*args, **kwargs)
