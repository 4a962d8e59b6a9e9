"""The few primitives where the async and the sync clients really differ.

scripts/generate_sync.py turns `<name>_async` into `<name>_sync` when it
writes the sync modules from the async ones; everything else is shared.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

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


async def wait_ready_async(channels: Sequence[grpc.aio.Channel], timeout: float) -> bool:
    """Connect every channel; False if they are not all READY within `timeout`."""
    try:
        await asyncio.wait_for(
            asyncio.gather(*(channel.channel_ready() for channel in channels)), timeout
        )
    except asyncio.TimeoutError:
        return False
    return True


def wait_ready_sync(channels: Sequence[grpc.Channel], timeout: float) -> bool:
    """Connect every channel; False if they are not all READY within `timeout`."""
    give_up_at = time.monotonic() + timeout
    for channel in channels:
        try:
            grpc.channel_ready_future(channel).result(max(0.0, give_up_at - time.monotonic()))
        except grpc.FutureTimeoutError:
            return False
    return True
