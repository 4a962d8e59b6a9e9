# Generated from _async_executor.py by scripts/generate_sync.py: do not edit.
"""Sends one call: in-flight cap, deadline, retries, error translation.

The success path is kept cheap because it runs for every call: one clock
read, the limiter's fast path (a comparison and an increment), a prebuilt
metadata tuple, and the multicallable made at start-up.
"""

from __future__ import annotations

import time
from typing import Any

import grpc

from jiffy._calls import Rpc
from jiffy._config import Config
from jiffy._endpoint import Endpoint
from jiffy._exceptions import error_from_rpc, queue_timeout
from jiffy._io import sleep_sync
from jiffy._limiter import SyncLimiter
from jiffy._retry import backoff_delay, may_retry
from jiffy._sync_transport import SyncTransport

Metadata = tuple[tuple[str, str], ...]


class SyncExecutor:
    def __init__(self, endpoint: Endpoint, config: Config) -> None:
        self.config = config
        self.transport = SyncTransport(endpoint, config)
        self.limiter = SyncLimiter(config.max_concurrent_requests)
        self._deadline = config.deadline
        self._connected = config.eager_connect_timeout is None
        auth = (("authorization", endpoint.api_key),) if endpoint.api_key else ()
        self._control_metadata: Metadata = auth
        self._auth = auth
        self._metadata_by_cache: dict[str, Metadata] = {}

    def metadata(self, cache: str) -> Metadata:
        """The headers of a data call on `cache`, built once per cache name."""
        found = self._metadata_by_cache.get(cache)
        if found is None:
            found = self._metadata_by_cache[cache] = (("cache", cache), *self._auth)
        return found

    def connect(self) -> None:
        timeout = self.config.eager_connect_timeout or self._deadline
        self.transport.connect(timeout)
        self._connected = True

    def call(self, rpc: Rpc, request: Any, metadata: Metadata) -> Any:
        """Send `request`; the response (a list of them for streams) or a CacheError."""
        if not self._connected:
            self.connect()
        started = time.monotonic()
        limiter = self.limiter
        if not limiter.try_acquire() and not limiter.acquire(self._deadline):
            raise queue_timeout(rpc.name, self._deadline, limiter.cap)
        try:
            return self._attempts(rpc, request, metadata, started)
        finally:
            limiter.release()

    def control(self, rpc: Rpc, request: Any) -> Any:
        """Control calls skip the cap: they are rare and must not queue behind data."""
        return self._attempts(rpc, request, self._control_metadata, time.monotonic())

    def _attempts(self, rpc: Rpc, request: Any, metadata: Metadata, started: float) -> Any:
        transport = self.transport
        give_up_at = started + self._deadline
        timeout = give_up_at - time.monotonic()
        attempt = 1
        while True:
            multicallable = transport.control_call(rpc) if rpc.control else transport.data_call(rpc)
            try:
                if rpc.streaming:
                    return [
                        response
                        for response in multicallable(request, timeout=timeout, metadata=metadata)
                    ]
                return multicallable(request, timeout=timeout, metadata=metadata)
            except grpc.RpcError as exc:
                delay = backoff_delay(self.config.retry, attempt)
                timeout = give_up_at - time.monotonic() - delay
                status = exc.code().name if hasattr(exc, "code") else "UNKNOWN"
                if timeout <= 0 or not may_retry(rpc, status, attempt, self.config.retry):
                    raise error_from_rpc(
                        exc,
                        call=rpc.name,
                        deadline=self._deadline,
                        target=transport.endpoint.data_target,
                        cache_call=rpc.names_cache,
                    ) from exc
            sleep_sync(delay)
            attempt += 1

    def close(self) -> None:
        self.transport.close()
