"""Loadgen driver on bare grpc.aio multicallables: the raw ceiling, no SDK.

Same flags and JSON as every loadgen (docs/LOADGEN.md), through jiffy's harness.
No cap, no retries, no deadline: one channel per --channels, multicallables
made once, metadata built once as a grpc.aio.Metadata (the fastest form).
Only the protobuf messages come from jiffy (jiffy._proto); they are
generated code, not SDK logic.

    python bench/python/bare_grpc_loadgen.py --endpoint 127.0.0.1:8080 --json
"""

from __future__ import annotations

import sys
from typing import Any

import grpc
import grpc.aio
from jiffy._proto import cacheclient_pb2 as cache_pb
from jiffy._proto import controlclient_pb2 as control_pb
from jiffy.loadgen import Options, main

TTL_MS = 60_000


class BareDriver:
    sdk = "bare-grpc-aio"
    sdk_version = grpc.__version__

    def __init__(self) -> None:
        self._channels: list[grpc.aio.Channel] = []

    async def start(self, options: Options) -> tuple[int, int]:
        count = options.channels or 1
        settings = [("grpc.use_local_subchannel_pool", 1)]
        self._channels = [
            grpc.aio.insecure_channel(options.endpoint, settings) for _ in range(count)
        ]
        gets: list[Any] = []
        sets: list[Any] = []
        for channel in self._channels:
            await channel.channel_ready()
            gets.append(channel.unary_unary(
                "/cache_client.Scs/Get",
                cache_pb._GetRequest.SerializeToString,
                cache_pb._GetResponse.FromString,
            ))  # fmt: skip
            sets.append(channel.unary_unary(
                "/cache_client.Scs/Set",
                cache_pb._SetRequest.SerializeToString,
                cache_pb._SetResponse.FromString,
            ))  # fmt: skip
        create = self._channels[0].unary_unary(
            "/control_client.ScsControl/CreateCache",
            control_pb._CreateCacheRequest.SerializeToString,
            control_pb._CreateCacheResponse.FromString,
        )
        try:
            await create(control_pb._CreateCacheRequest(cache_name=options.cache))
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.ALREADY_EXISTS:
                raise
        # Built once, as grpc.aio would otherwise convert a tuple per call.
        metadata = grpc.aio.Metadata(("cache", options.cache))
        get_request, set_request = cache_pb._GetRequest, cache_pb._SetRequest
        turn = [0]

        def pick(calls: list[Any]) -> Any:
            if count == 1:
                return calls[0]
            turn[0] = (turn[0] + 1) % count
            return calls[turn[0]]

        async def get(key: bytes) -> object:
            return await pick(gets)(get_request(cache_key=key), metadata=metadata)

        async def set_(key: bytes, value: bytes) -> object:
            request = set_request(cache_key=key, cache_body=value, ttl_milliseconds=TTL_MS)
            return await pick(sets)(request, metadata=metadata)

        self.get = get  # type: ignore[method-assign]
        self.set = set_  # type: ignore[method-assign]
        return count, 0

    async def get(self, key: bytes) -> object:
        raise RuntimeError("start() first")

    async def set(self, key: bytes, value: bytes) -> object:
        raise RuntimeError("start() first")

    def error_name(self, exc: BaseException) -> str:
        if isinstance(exc, grpc.aio.AioRpcError):
            return exc.code().name
        return type(exc).__name__

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close()


if __name__ == "__main__":
    sys.exit(main(BareDriver, description="Bare grpc.aio stubs (no SDK): the raw ceiling"))
