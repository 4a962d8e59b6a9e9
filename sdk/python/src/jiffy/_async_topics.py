"""The topic calls of AsyncCacheClient: publish, and subscribe with its subscription.

A topic is a named channel of a cache: `publish` hands a message to whoever
is subscribed to it, and a subscription is the stream of what is published
after it opens (or from where it resumes). Items, and why discontinuities
are items, are described in _topics.py.

Retries. Publish is never resent: a message that may have reached the
server and is sent again is a second message. Opening a subscription is
retried as any idempotent call (UNAVAILABLE / INTERNAL, within `deadline`
and `retry.max_attempts`), and `subscribe` returns once the server's first
message (jiffy-server: a heartbeat) says the stream is open, so that nothing
published after it returns is missed. Once open, a stream that breaks
(UNAVAILABLE, INTERNAL, an end without an error, or silence longer than
`idle_timeout`) is opened again with backoff (`retry.initial_backoff`
doubling to `retry.max_backoff`) for as long as the client and the
subscription are open, resuming just after the last message or
discontinuity seen: the server then replays what was missed, or sends a
discontinuity for what it no longer holds. Any other failure (the cache
deleted, a permission, a subscriber too slow for the topic) ends the
subscription with its CacheError.

A subscription holds a stream, not an in-flight slot, and ends cleanly
(iteration stops) on aclose(), at the end of an async with block that holds
it, and when the client closes; a cancelled reader cancels the stream.
"""

from __future__ import annotations

import time
from collections import deque
from types import TracebackType

import grpc

from jiffy import _calls as c
from jiffy import _topics as t
from jiffy._async_base import AsyncClientBase
from jiffy._async_route import AsyncRoute
from jiffy._config import Config
from jiffy._endpoint import Endpoint
from jiffy._exceptions import ServerError, TimeoutError, error_from_status
from jiffy._io import sleep_async
from jiffy._retry import backoff_delay, may_retry
from jiffy._route import status_of
from jiffy._topic_stream import AsyncTopicStream
from jiffy._topics import TopicItem, TopicPosition

IDLE_TIMEOUT = 30.0
"""Seconds without any message (items or heartbeats) after which a
subscription's stream counts as dead and is opened again. jiffy-server sends
a heartbeat after 5 s of silence (`--topic-heartbeat-interval`); the margin
leaves room for servers that send them more rarely."""

_RESUBSCRIBE_STATUSES = c.RETRYABLE_STATUS_NAMES


class AsyncTopicCalls(AsyncClientBase):
    config: Config
    endpoint: Endpoint

    async def publish(self, topic: str, value: str | bytes, *, cache: str | None = None) -> None:
        """Publish `value` to `topic`: a str arrives as a str, bytes as bytes.

        Returns once the server took the message; it does not wait for
        subscribers. Never retried (a second sending is a second message).
        """
        request = t.publish_request(self._cache_name(cache), topic, value)
        await self._route.call(c.PUBLISH, request, self._cache_name(cache))

    async def subscribe(
        self,
        topic: str,
        *,
        cache: str | None = None,
        resume_at: TopicPosition | int | None = None,
        idle_timeout: float | None = IDLE_TIMEOUT,
    ) -> AsyncSubscription:
        """Subscribe to `topic`; returns once the stream is open.

        Iterate the subscription for `TopicMessage` and `TopicDiscontinuity`
        items. Without `resume_at` it starts with the topic's newest message
        (if the server still holds one) and goes on with every later one;
        `resume_at=message.next_position` goes on after a message seen
        earlier. `idle_timeout`: seconds of silence after which the stream
        is taken for dead and opened again (None: never). End it with
        aclose(), or hold it in async with subscription: ...
        """
        subscription = AsyncSubscription(
            self._route,
            self.config,
            self.endpoint.data_target,
            self._cache_name(cache),
            t.check_topic_name(topic),
            t.TopicCursor(t.resume_position(resume_at)),
            idle_timeout,
        )
        await subscription._open()
        return subscription


class AsyncSubscription:
    """An open subscription: iterate it for TopicMessage / TopicDiscontinuity items."""

    def __init__(
        self,
        route: AsyncRoute,
        config: Config,
        target: str,
        cache: str,
        topic: str,
        cursor: t.TopicCursor,
        idle_timeout: float | None,
    ) -> None:
        self.cache = cache
        self.topic = topic
        self._route = route
        self._config = config
        self._target = target
        self._cursor = cursor
        self._idle_timeout = idle_timeout
        self._stream: AsyncTopicStream | None = None
        self._closed = False
        # Items that came with the first message of a stream, not yet taken.
        self._ready: deque[TopicItem] = deque()
        self.reconnects = 0
        """How many times the stream broke and was opened again."""

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"{type(self).__name__}(cache={self.cache!r}, topic={self.topic!r}, {state})"

    def __aiter__(self) -> AsyncSubscription:
        return self

    async def __anext__(self) -> TopicItem:
        while True:
            if self._ready:
                return self._ready.popleft()
            stream = self._stream
            if stream is None or self._stopped():
                raise StopAsyncIteration
            try:
                message = await stream.read()
            except grpc.RpcError as exc:
                if self._stopped():
                    raise StopAsyncIteration from None
                if status_of(exc).code not in _RESUBSCRIBE_STATUSES:
                    self._shut()
                    raise self._error(exc) from exc
                message = None
            if message is None:
                await self._reconnect()
                continue
            item = self._cursor.take(message)
            if item is not None:
                return item

    async def aclose(self) -> None:
        """End the subscription: iteration stops, the stream is cancelled."""
        self._shut()

    async def __aenter__(self) -> AsyncSubscription:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _shut(self) -> None:
        self._closed = True
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.cut()

    def _stopped(self) -> bool:
        if self._closed or self._route.closed:
            self._shut()
            return True
        return False

    def _error(self, exc: grpc.RpcError) -> Exception:
        return error_from_status(
            status_of(exc),
            call=c.SUBSCRIBE.name,
            deadline=self._config.deadline,
            target=self._target,
            cache_call=True,
        )

    async def _connect(self) -> bool:
        """Open a stream from the cursor's position and read its first message,
        within `deadline`; False when it ended or stayed silent first."""
        request = self._cursor.subscription_request(self.cache, self.topic)
        call = await self._route.open_stream(c.SUBSCRIBE, request, self.cache)
        stream = AsyncTopicStream(call, self._config.deadline, lambda: self._route.closed)
        self._stream = stream
        first = await stream.read()
        if first is None:
            return False
        stream.watch_for(self._idle_timeout)
        item = self._cursor.take(first)
        if item is not None:
            self._ready.append(item)
        return True

    async def _open(self) -> None:
        """The first opening: retried as an idempotent call, else its error raised."""
        started = time.monotonic()
        attempt = 1
        while True:
            try:
                if await self._connect():
                    return
                idle = self._stream is not None and self._stream.idle
                self._shut()
                raise self._no_first_message(idle)
            except grpc.RpcError as exc:
                stream, self._stream = self._stream, None
                if stream is not None:
                    stream.cut()
                delay = backoff_delay(self._config.retry, attempt)
                left = self._config.deadline - (time.monotonic() - started) - delay
                if left <= 0 or not may_retry(
                    c.SUBSCRIBE, status_of(exc).code, attempt, self._config.retry
                ):
                    self._shut()
                    raise self._error(exc) from exc
            await sleep_async(delay)
            attempt += 1

    def _no_first_message(self, idle: bool) -> Exception:
        deadline = self._config.deadline
        if idle:
            return TimeoutError(
                f"Subscribe failed: the server sent nothing within {deadline:g} s of opening"
                " the stream; check the server, or raise `deadline` in the config",
                status="DEADLINE_EXCEEDED",
            )
        return ServerError("Subscribe failed: the server ended the stream before its first message")

    async def _reconnect(self) -> None:
        """After a broken stream: open it again, with backoff, until it opens,
        the subscription or the client closes, or a failure says to stop."""
        attempt = 0
        while True:
            attempt += 1
            await sleep_async(backoff_delay(self._config.retry, attempt))
            if self._stopped():
                return
            try:
                if await self._connect():
                    self.reconnects += 1
                    return
            except grpc.RpcError as exc:
                if self._stopped():
                    return
                if status_of(exc).code not in _RESUBSCRIBE_STATUSES:
                    self._shut()
                    raise self._error(exc) from exc
            except Exception:
                # The client closed between the check above and the opening
                # (another thread, with the blocking client).
                if self._stopped():
                    return
                raise
