"""Loadgen driver for the official Momento Python SDK (PyPI `momento`).

Same flags and JSON as every loadgen (docs/LOADGEN.md), through jiffy's harness,
so the numbers compare with jiffy's own loadgen run for run.

- `--preset`: laptop -> Configurations.Laptop, in_region ->
  InRegion.Default, low_latency -> InRegion.LowLatency, lambda ->
  Configurations.Lambda; each `.latest()`.
- `--channels`: the SDK's data-client count (`CacheClientAsync._NUM_CLIENTS`,
  its only knob for it; each data client owns one channel). Default: its own (1).
- `--max-concurrent-requests`: the SDK has no cap; when given, the harness
  queues calls in front of it with jiffy's FIFO limiter. Default: no cap.
- `--workload`: every one; each operation is the SDK's own call for it
  (`dictionary_get_field`, `list_push_back`, `sorted_set_fetch_by_rank`...),
  its answer checked for the SDK's error response.

    python bench/momento_python_loadgen.py --endpoint 127.0.0.1:8080 --json
"""

from __future__ import annotations

import sys
from datetime import timedelta
from typing import Any

import momento
from jiffy._limiter import AsyncLimiter
from jiffy.loadgen import Options, main
from momento import CacheClientAsync, Configurations, CredentialProvider
from momento.errors import MomentoErrorCode
from momento.requests import SortOrder
from momento.responses import CacheGet, CacheSet, CreateCache
from momento.responses.mixins import ErrorResponseMixin

PRESETS: dict[str, Any] = {
    "laptop": Configurations.Laptop,
    "in_region": Configurations.InRegion.Default,
    "low_latency": Configurations.InRegion.LowLatency,
    "lambda": Configurations.Lambda,
}
# The SDK reports errors by its own codes; the contract counts gRPC status names.
STATUS_BY_CODE = {
    MomentoErrorCode.TIMEOUT_ERROR: "DEADLINE_EXCEEDED",
    MomentoErrorCode.SERVER_UNAVAILABLE: "UNAVAILABLE",
    MomentoErrorCode.INTERNAL_SERVER_ERROR: "INTERNAL",
    MomentoErrorCode.NOT_FOUND_ERROR: "NOT_FOUND",
    MomentoErrorCode.ALREADY_EXISTS_ERROR: "ALREADY_EXISTS",
    MomentoErrorCode.LIMIT_EXCEEDED_ERROR: "RESOURCE_EXHAUSTED",
    MomentoErrorCode.INVALID_ARGUMENT_ERROR: "INVALID_ARGUMENT",
    MomentoErrorCode.BAD_REQUEST_ERROR: "INVALID_ARGUMENT",
    MomentoErrorCode.AUTHENTICATION_ERROR: "UNAUTHENTICATED",
    MomentoErrorCode.PERMISSION_ERROR: "PERMISSION_DENIED",
    MomentoErrorCode.CANCELLED_ERROR: "CANCELLED",
    MomentoErrorCode.FAILED_PRECONDITION_ERROR: "FAILED_PRECONDITION",
}
DEFAULT_TTL = timedelta(seconds=60)
# Callers in front of the optional cap wait as long as a run lasts.
QUEUE_TIMEOUT_SECONDS = 3600.0


class MomentoCallFailed(Exception):
    def __init__(self, error_code: MomentoErrorCode) -> None:
        super().__init__(error_code.name)
        self.status = STATUS_BY_CODE.get(error_code, error_code.name)


class MomentoDriver:
    sdk = "momento-python"
    sdk_version = momento.__version__ if hasattr(momento, "__version__") else "1.29.1"

    def __init__(self) -> None:
        self._client: CacheClientAsync | None = None

    async def start(self, options: Options) -> tuple[int, int]:
        host, _, port = options.endpoint.rpartition(":")
        if options.channels is not None:
            CacheClientAsync._NUM_CLIENTS = options.channels
        channels = CacheClientAsync._NUM_CLIENTS
        client = await CacheClientAsync.create(
            PRESETS[options.preset].latest(),
            CredentialProvider.for_momento_local(host, int(port)),
            DEFAULT_TTL,
        )
        self._client = client
        created = await client.create_cache(options.cache)
        if isinstance(created, CreateCache.Error):
            raise MomentoCallFailed(created.error_code)
        cache = options.cache
        get_error, set_error = CacheGet.Error, CacheSet.Error

        async def get(key: bytes) -> object:
            response = await client.get(cache, key)
            if isinstance(response, get_error):
                raise MomentoCallFailed(response.error_code)
            return response

        async def set_(key: bytes, value: bytes) -> object:
            response = await client.set(cache, key, value)
            if isinstance(response, set_error):
                raise MomentoCallFailed(response.error_code)
            return response

        cap = options.max_concurrent_requests or 0
        if cap:
            get, set_ = _capped(get, cap), _capped(set_, cap)
        self.get = get  # type: ignore[method-assign]
        self.set = set_  # type: ignore[method-assign]
        self._collection_calls(client, cache, cap)
        return channels, cap

    def _collection_calls(self, client: CacheClientAsync, cache: str, cap: int) -> None:
        """The collection workloads' operations (jiffy's loadgen/_workloads.py)."""

        def checked(call: Any) -> Any:
            async def run(key: bytes, *args: Any, **kwargs: Any) -> object:
                # The SDK takes collection names as str only.
                response = await call(cache, key.decode(), *args, **kwargs)
                if isinstance(response, ErrorResponseMixin):
                    raise MomentoCallFailed(response.error_code)
                return response

            return _capped(run, cap) if cap else run

        get_field = checked(client.dictionary_get_field)
        set_field = checked(client.dictionary_set_field)
        fetch_list, push_back = checked(client.list_fetch), checked(client.list_push_back)
        fetch_by_rank = checked(client.sorted_set_fetch_by_rank)
        put_element = checked(client.sorted_set_put_element)
        descending = SortOrder.DESCENDING

        self.dictionary_get = get_field
        self.dictionary_set = set_field
        self.list_fetch = fetch_list
        self.list_push_back = lambda key, value, keep: push_back(
            key, value, truncate_front_to_size=keep
        )
        self.sorted_set_top = lambda key, count: fetch_by_rank(key, 0, count, sort_order=descending)
        self.sorted_set_put = put_element

    async def get(self, key: bytes) -> object:
        raise RuntimeError("start() first")

    # The collection workloads' operations, replaced by start().
    async def dictionary_get(self, key: bytes, field: bytes) -> object:
        raise RuntimeError("start() first")

    async def dictionary_set(self, key: bytes, field: bytes, value: bytes) -> object:
        raise RuntimeError("start() first")

    async def list_fetch(self, key: bytes) -> object:
        raise RuntimeError("start() first")

    async def list_push_back(self, key: bytes, value: bytes, keep: int) -> object:
        raise RuntimeError("start() first")

    async def sorted_set_top(self, key: bytes, count: int) -> object:
        raise RuntimeError("start() first")

    async def sorted_set_put(self, key: bytes, member: bytes, score: float) -> object:
        raise RuntimeError("start() first")

    async def set(self, key: bytes, value: bytes) -> object:
        raise RuntimeError("start() first")

    def error_name(self, exc: BaseException) -> str:
        return exc.status if isinstance(exc, MomentoCallFailed) else type(exc).__name__

    async def close(self) -> None:
        if self._client is not None:
            await self._client.__aexit__(None, None, None)  # its only way to close


def _capped(call: Any, cap: int) -> Any:
    """`call` behind a FIFO in-flight cap shared by every wrapped call."""
    limiter = _capped.__dict__.setdefault("limiter", AsyncLimiter(cap, QUEUE_TIMEOUT_SECONDS))

    async def capped(*args: Any, **kwargs: Any) -> object:
        if not limiter.try_acquire():
            await limiter.acquire()
        try:
            return await call(*args, **kwargs)
        finally:
            limiter.release()

    return capped


if __name__ == "__main__":
    sys.exit(main(MomentoDriver, description="Official momento SDK through jiffy's harness"))
