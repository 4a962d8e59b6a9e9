"""One open Subscribe stream, in both forms: read a message with an idle limit, or cut it.

This is where the async and the sync subscriptions really differ (how a read
waits, how silence is timed), so both forms are written here by hand and
_async_topics.py names `AsyncTopicStream`, which scripts/generate_sync.py
turns into `SyncTopicStream`.

`read()` gives the next message; None when the stream is over without an
error: the server ended it with OK, it was quiet for longer than
`idle_timeout` (a dead connection or a stuck server: the server sends
heartbeats when the topic is quiet), or `cut()` ended it. A failure raises
the grpc.RpcError, except after the client closed (`closed()` is true):
closing the client cancels its calls, and the stream is then simply over.
Only the caller's own cancellation of the async read propagates as
CancelledError.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc


class AsyncTopicStream:
    __slots__ = ("_call", "_closed", "idle_timeout", "idle", "_cut", "_last", "_timer")

    def __init__(self, call: Any, idle_timeout: float | None, closed: Callable[[], bool]) -> None:
        self._call = call
        self._closed = closed
        self.idle_timeout = idle_timeout
        """Seconds of silence after which the stream counts as dead; None: never."""
        self.idle = False
        """Whether the stream was ended for its silence."""
        self._cut = False
        loop = asyncio.get_running_loop()
        self._last = loop.time()
        # One timer per stream, re-armed when it fires early: a message costs
        # one clock read, not a timer.
        self._timer: asyncio.TimerHandle | None = None
        if idle_timeout is not None:
            self._timer = loop.call_at(self._last + idle_timeout, self._check_idle)

    def watch_for(self, idle_timeout: float | None) -> None:
        """Change the idle limit (the first message may take longer than later ones)."""
        self.idle_timeout = idle_timeout
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if idle_timeout is not None and not self._cut:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_at(self._last + idle_timeout, self._check_idle)

    def _check_idle(self) -> None:
        timeout = self.idle_timeout
        if timeout is None or self._cut:
            self._timer = None
            return
        loop = asyncio.get_running_loop()
        quiet_until = self._last + timeout
        if loop.time() >= quiet_until:
            self.idle = True
            self.cut()
        else:
            self._timer = loop.call_at(quiet_until, self._check_idle)

    async def read(self) -> Any | None:
        try:
            message = await self._call.read()
        except asyncio.CancelledError:
            if self._cut or self._closed():
                return None
            self.cut()  # the reader itself was cancelled
            raise
        except grpc.RpcError:
            self.cut()  # over: stop its idle timer
            raise
        if message is grpc.aio.EOF:
            self.cut()
            return None
        self._last = asyncio.get_running_loop().time()
        return message

    def cut(self) -> None:
        """End the stream now (cancel the call); a read waiting returns None."""
        self._cut = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._call.cancel()


class SyncTopicStream:
    """The blocking form: grpc's iterator cannot time out a read, so a watcher
    thread per open stream cancels the call after `idle_timeout` of silence."""

    def __init__(self, call: Any, idle_timeout: float | None, closed: Callable[[], bool]) -> None:
        self._call = call
        self._closed = closed
        self.idle_timeout = idle_timeout
        self.idle = False
        self._cut = threading.Event()
        self._last = time.monotonic()
        if idle_timeout is not None:
            threading.Thread(
                target=self._watch, name="jiffy-subscription-watch", daemon=True
            ).start()

    def _watch(self) -> None:
        while True:
            timeout = self.idle_timeout
            if timeout is None:
                return
            quiet_for = time.monotonic() - self._last
            if quiet_for >= timeout:
                self.idle = True
                self.cut()
                return
            if self._cut.wait(timeout - quiet_for):
                return

    def watch_for(self, idle_timeout: float | None) -> None:
        """Change the idle limit; the watcher sees it when it next wakes."""
        if idle_timeout is not None and self.idle_timeout is None and not self._cut.is_set():
            self.idle_timeout = idle_timeout
            threading.Thread(
                target=self._watch, name="jiffy-subscription-watch", daemon=True
            ).start()
        self.idle_timeout = idle_timeout

    def read(self) -> Any | None:
        try:
            message = next(self._call)
        except StopIteration:
            self.cut()
            return None
        except grpc.RpcError:
            if self._cut.is_set() or self._closed():
                return None
            self.cut()  # over: let its watcher go
            raise
        self._last = time.monotonic()
        return message

    def cut(self) -> None:
        self._cut.set()
        self._call.cancel()
