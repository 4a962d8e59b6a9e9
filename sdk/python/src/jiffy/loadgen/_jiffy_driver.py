"""The loadgen driver for this SDK: AsyncCacheClient as users would build it."""

from __future__ import annotations

import contextlib
import os

from jiffy import presets
from jiffy._async_client import AsyncCacheClient
from jiffy._endpoint import Endpoint
from jiffy._exceptions import AlreadyExistsError, CacheError
from jiffy._io import metadata_async
from jiffy._version import __version__
from jiffy.loadgen._options import Options


class JiffyDriver:
    sdk = "jiffy-python"
    sdk_version = __version__
    adaptive_cap = True
    fault_delay = True
    protosocket = True

    def __init__(self) -> None:
        self._client: AsyncCacheClient | None = None
        self.transport: str | None = None
        self.protosocket_address: str | None = None

    async def start(self, options: Options) -> tuple[int, int | str]:
        config = presets.by_name(options.preset).latest()
        if options.channels is not None:
            config = config.replace(channels=options.channels)
        if options.max_concurrent_requests is not None:
            config = config.replace(max_concurrent_requests=options.max_concurrent_requests)
        if options.transport == "protosocket":
            config = config.replace(protosocket_endpoint=options.protosocket_endpoint)
        elif options.transport == "grpc" or options.delay_ms:
            # delay-ms is a gRPC header: protosocket commands cannot carry it.
            config = config.replace(protosocket_endpoint=None)
        # The token, when the server wants one, comes as for every client: JIFFY_API_KEY.
        endpoint = Endpoint.parse(options.endpoint, api_key=os.environ.get("JIFFY_API_KEY") or None)
        client = AsyncCacheClient(endpoint, config, default_cache=options.cache)
        self._client = client
        await client.connect()
        # What the client settled on, for the report and the connection count.
        self.transport = client.transport
        pool = client._route.protosocket
        self.protosocket_address = None if pool is None else pool.address
        with contextlib.suppress(AlreadyExistsError):
            await client.create_cache(options.cache)
        if options.delay_ms:
            # Every data call on the cache carries the header; the executor's
            # per-cache metadata is where the client keeps its headers.
            executor = client._executor
            headers = (("cache", options.cache), ("delay-ms", str(options.delay_ms)))
            executor._metadata_by_cache[options.cache] = metadata_async(headers + executor._auth)
        # Bound once: the workers call these for every request.
        self.get = client.get  # type: ignore[method-assign]
        self.set = client.set  # type: ignore[method-assign]
        return config.channels, config.max_concurrent_requests

    def in_flight_limit(self) -> int:
        """The client's cap now: the loadgen's report samples it over time."""
        return self._started().in_flight_limit()

    # The collection workloads (_workloads.py).
    async def dictionary_get(self, key: bytes, field: bytes) -> object:
        return await self._started().dictionary_get_field(key, field)

    async def dictionary_set(self, key: bytes, field: bytes, value: bytes) -> object:
        await self._started().dictionary_set_field(key, field, value)
        return None

    async def list_fetch(self, key: bytes) -> object:
        return await self._started().list_fetch(key)

    async def list_push_back(self, key: bytes, value: bytes, keep: int) -> object:
        return await self._started().list_push_back(key, value, truncate_front_to_size=keep)

    async def sorted_set_top(self, key: bytes, count: int) -> object:
        client = self._started()
        return await client.sorted_set_fetch_by_rank(key, 0, count, order="descending")

    async def sorted_set_put(self, key: bytes, member: bytes, score: float) -> object:
        await self._started().sorted_set_put_element(key, member, score)
        return None

    def _started(self) -> AsyncCacheClient:
        if self._client is None:
            raise RuntimeError("start() first")
        return self._client

    async def get(self, key: bytes) -> object:
        raise RuntimeError("start() first")

    async def set(self, key: bytes, value: bytes) -> object:
        raise RuntimeError("start() first")

    def error_name(self, exc: BaseException) -> str:
        if isinstance(exc, CacheError) and exc.status:
            return exc.status
        return type(exc).__name__

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
