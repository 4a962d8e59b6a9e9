"""Sends one call: in-flight cap, deadline, retries, error translation.

The route (_async_route.py) says what carries a call: the gRPC channels'
multicallables, or with `wires` the protosocket connections'. Either fails
an attempt with its own error; each is read as one StatusError, retried on
its status, and mapped once by _exceptions.error_from_status.

The success path is kept cheap because it runs for every call: one clock
read, the limiter's fast path (a comparison and an increment), a prebuilt
metadata object, and the multicallable made at start-up. Under
max_concurrent_requests="auto" the AsyncAdaptiveExecutor below sends calls
instead: the same path plus one clock read per call, so the fixed cap costs
no more than it did.
"""

from __future__ import annotations

import time
from typing import Any

import grpc

from jiffy._adaptive import AUTO, STREAMS_PER_CONNECTION, AdaptiveLimit, is_loss
from jiffy._async_transport import AsyncTransport
from jiffy._calls import Rpc
from jiffy._config import Config
from jiffy._endpoint import Endpoint
from jiffy._exceptions import StatusError, client_closed, error_from_status, queue_timeout
from jiffy._io import metadata_async, sleep_async
from jiffy._limiter import AsyncAdaptiveLimiter, AsyncLimiter
from jiffy._retry import backoff_delay, may_retry
from jiffy._route import failure_of

# grpc.aio.Metadata for the async client, a tuple of pairs for the sync one.
Metadata = Any
# Per data channel, a callable per RPC taking (request, timeout=, metadata=).
Wires = list[dict[Rpc, Any]]
# What an attempt can fail with: a gRPC call's error, or a protosocket
# command's StatusError.
FAILED = (grpc.RpcError, StatusError)


def make_executor_async(endpoint: Endpoint, config: Config) -> AsyncExecutor:
    """The executor for `config`: fixed cap or "auto"."""
    if config.max_concurrent_requests == AUTO:
        return AsyncAdaptiveExecutor(endpoint, config)
    return AsyncExecutor(endpoint, config)


class AsyncExecutor:
    def __init__(self, endpoint: Endpoint, config: Config) -> None:
        self.config = config
        self.transport = AsyncTransport(endpoint, config)
        self.limiter = self._limiter(config)
        self._deadline = config.deadline
        # Lazy (no eager_connect_timeout): nothing to do before a call.
        self._connected = config.eager_connect_timeout is None
        # Closing clears `_connected`, so the hot path's one check sends a
        # call on a closed client to connect(), which refuses it.
        self._closed = False
        auth = (("authorization", endpoint.api_key),) if endpoint.api_key else ()
        self._control_metadata: Metadata = metadata_async(auth)
        self._auth = auth
        self._metadata_by_cache: dict[str, Metadata] = {}

    def _limiter(self, config: Config) -> AsyncLimiter:
        cap = config.max_concurrent_requests
        assert isinstance(cap, int)  # "auto" is for AsyncAdaptiveExecutor
        return AsyncLimiter(cap, config.deadline)

    def in_flight_limit(self) -> int:
        """The cap on calls in flight now; 0 = none."""
        return self.limiter.cap

    def metadata(self, cache: str) -> Metadata:
        """The headers of a data call on `cache`, built once per cache name."""
        found = self._metadata_by_cache.get(cache)
        if found is None:
            found = metadata_async((("cache", cache), *self._auth))
            self._metadata_by_cache[cache] = found
        return found

    async def connect(self) -> None:
        if self._closed:
            raise client_closed("connect")
        timeout = self.config.eager_connect_timeout or self._deadline
        await self.transport.connect(timeout)
        self._connected = True

    async def _before_first_call(self, call: str) -> None:
        if self._closed:
            raise client_closed(call)
        await self.connect()

    async def call(
        self, rpc: Rpc, request: Any, metadata: Metadata, wires: Wires | None = None
    ) -> Any:
        """Send a data call over gRPC, or over `wires`; its response (a list
        of them for a batch), or a CacheError.

        The hot path: no extra coroutine between the caller and grpc until a
        call fails.
        """
        if not self._connected:
            await self._before_first_call(rpc.name)
        started = time.monotonic()
        limiter = self.limiter
        timeout = self._deadline if limiter.try_acquire() else await self._queue(rpc, started)
        transport = self.transport
        try:
            channel = transport.take_channel()
            try:
                return await (transport.data_calls if wires is None else wires)[channel][rpc](
                    request, timeout=timeout, metadata=metadata
                )
            finally:
                transport.give_back_channel(channel)
        except FAILED as exc:
            return await self._retry(rpc, request, metadata, wires, started, exc)
        finally:
            limiter.release()

    async def control(self, rpc: Rpc, request: Any) -> Any:
        """Control calls skip the cap: they are rare and must not queue behind data."""
        if self._closed:
            raise client_closed(rpc.name)
        started = time.monotonic()
        try:
            return await self._send(rpc, request, self._control_metadata, None, self._deadline)
        except grpc.RpcError as exc:
            return await self._retry(rpc, request, self._control_metadata, None, started, exc)

    async def open_stream(self, rpc: Rpc, request: Any, metadata: Metadata) -> Any:
        """Start a server stream that lives as long as its reader wants (Subscribe):
        no deadline, no retry and no in-flight slot (it would hold one for
        hours); the caller reads the grpc call, cancels it, and maps its errors."""
        if not self._connected:
            await self._before_first_call(rpc.name)
        transport = self.transport
        channel = transport.take_channel()
        transport.give_back_channel(channel)  # counted as a call only while it opens
        stream = transport.data_channels[channel].unary_stream(
            rpc.path, rpc.serialize, rpc.deserialize
        )
        return stream(request, metadata=metadata)

    @property
    def closed(self) -> bool:
        return self._closed

    async def _queue(self, rpc: Rpc, started: float) -> float:
        """Wait in line under the cap; the time left of the deadline once through."""
        if not await self.limiter.acquire():
            raise queue_timeout(rpc.name, self._deadline, self.limiter.cap)
        return self._deadline - (time.monotonic() - started)

    async def _send(
        self, rpc: Rpc, request: Any, metadata: Metadata, wires: Wires | None, timeout: float
    ) -> Any:
        transport = self.transport
        if rpc.control:
            return await transport.control_call(rpc)(request, timeout=timeout, metadata=metadata)
        channel = transport.take_channel()
        try:
            return await (transport.data_calls if wires is None else wires)[channel][rpc](
                request, timeout=timeout, metadata=metadata
            )
        finally:
            transport.give_back_channel(channel)

    async def _retry(
        self,
        rpc: Rpc,
        request: Any,
        metadata: Metadata,
        wires: Wires | None,
        started: float,
        exc: BaseException,
    ) -> Any:
        """After a failed attempt: retry while allowed and time is left, else raise."""
        give_up_at = started + self._deadline
        attempt = 1
        while True:
            delay = backoff_delay(self.config.retry, attempt)
            timeout = give_up_at - time.monotonic() - delay
            failed = failure_of(exc)
            if timeout <= 0 or not may_retry(rpc, failed.code, attempt, self.config.retry):
                raise error_from_status(
                    failed,
                    call=rpc.name,
                    deadline=self._deadline,
                    target=self.transport.endpoint.data_target,
                    cache_call=rpc.names_cache,
                ) from exc
            await sleep_async(delay)
            attempt += 1
            try:
                return await self._send(rpc, request, metadata, wires, timeout)
            except FAILED as again:
                exc = again

    async def aclose(self) -> None:
        self._closed = True
        self._connected = False
        await self.transport.aclose()


class AsyncAdaptiveExecutor(AsyncExecutor):
    """max_concurrent_requests="auto": the cap follows each call's time on the wire."""

    limiter: AsyncAdaptiveLimiter

    def _limiter(self, config: Config) -> AsyncAdaptiveLimiter:
        ceiling = STREAMS_PER_CONNECTION * config.channels
        adaptive = AdaptiveLimit(ceiling, target_p999=config.target_p999)
        return AsyncAdaptiveLimiter(adaptive, config.deadline)

    def in_flight_limit(self) -> int:
        return self.limiter.adaptive.chosen

    async def call(
        self, rpc: Rpc, request: Any, metadata: Metadata, wires: Wires | None = None
    ) -> Any:
        """AsyncExecutor.call, timing the call from when it holds a slot: the
        queue in front of the cap is the cap's doing, not the server's."""
        if not self._connected:
            await self._before_first_call(rpc.name)
        started = time.monotonic()
        limiter = self.limiter
        if limiter.try_acquire():
            timeout, sent = self._deadline, started
        else:
            timeout = await self._queue(rpc, started)
            sent = time.monotonic()
        rtt = -1.0  # no sample unless an answer comes
        transport = self.transport
        try:
            channel = transport.take_channel()
            try:
                response = await (transport.data_calls if wires is None else wires)[channel][rpc](
                    request, timeout=timeout, metadata=metadata
                )
            finally:
                transport.give_back_channel(channel)
            rtt = time.monotonic() - sent
            return response
        except FAILED as exc:
            if is_loss((failure := failure_of(exc)).code, failure.reason):
                limiter.drop()
            return await self._retry(rpc, request, metadata, wires, started, exc)
        finally:
            limiter.release(rtt)
