"""Clients whose route records what would be sent instead of sending it.

Each call answers the empty message of its RPC (what the proto reads as
"missing" or zero), read as the route reads it, so every call of the client
runs without a server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jiffy
from jiffy._calls import Rpc
from jiffy._route import SHAPES

SPEC_FILE = Path(__file__).resolve().parents[2] / "spec.json"


def load_spec() -> dict[str, Any]:
    """sdk/spec.json: the catalogue of calls, and the calls both SDKs offer."""
    spec: dict[str, Any] = json.loads(SPEC_FILE.read_text())
    return spec


# Requests not named after their RPC.
_REQUEST_NAMES = {"Subscribe": "_SubscriptionRequest", "ListWebhooks": "_ListWebhookRequest"}


class Recorder:
    """The part of the route the client uses: `call`, `control`, and for
    subscriptions `open_stream` and `closed`. What is recorded is each call's
    gRPC request, whatever would carry it."""

    closed = False

    def __init__(self) -> None:
        self.sent: list[tuple[Rpc, Any]] = []

    def answer(self, rpc: Rpc, request: Any) -> Any:
        shapes = SHAPES.get(rpc.name)
        if shapes is not None:  # given as its arguments: record its gRPC request
            request = shapes.grpc(*request)
        expected = _REQUEST_NAMES.get(rpc.name, f"_{rpc.name}Request")
        assert type(request).__name__ == expected, (rpc.name, request)
        self.sent.append((rpc, request))
        response = [] if rpc.streaming else rpc.deserialize(b"")
        if shapes is not None and shapes.read_grpc is not None:
            return shapes.read_grpc(response)  # what the route hands back
        return response


class OpenedStream:
    """A Subscribe stream that says it is open (one heartbeat), then waits."""

    def __init__(self, rpc: Rpc) -> None:
        self._first: Any = rpc.deserialize(_HEARTBEAT)

    def _take(self) -> Any:
        first, self._first = self._first, None
        if first is None:
            raise AssertionError("only the opening is recorded")
        return first

    async def read(self) -> Any:
        return self._take()

    def __next__(self) -> Any:
        return self._take()

    def cancel(self) -> bool:
        return True


# A _SubscriptionItem holding an empty heartbeat (field 3).
_HEARTBEAT = bytes([3 << 3 | 2, 0])


class AsyncRecorder(Recorder):
    async def call(self, rpc: Rpc, request: Any, cache: str) -> Any:
        return self.answer(rpc, request)

    async def control(self, rpc: Rpc, request: Any) -> Any:
        return self.answer(rpc, request)

    async def open_stream(self, rpc: Rpc, request: Any, cache: str) -> Any:
        self.answer(rpc, request)
        return OpenedStream(rpc)


class SyncRecorder(Recorder):
    def call(self, rpc: Rpc, request: Any, cache: str) -> Any:
        return self.answer(rpc, request)

    def control(self, rpc: Rpc, request: Any) -> Any:
        return self.answer(rpc, request)

    def open_stream(self, rpc: Rpc, request: Any, cache: str) -> Any:
        self.answer(rpc, request)
        return OpenedStream(rpc)


async def recording_async_client() -> tuple[jiffy.AsyncCacheClient, AsyncRecorder]:
    client = jiffy.AsyncCacheClient(jiffy.Endpoint.local("127.0.0.1", 9), default_cache="c")
    await client.aclose()  # its channels never opened; the recorder takes over
    recorder = AsyncRecorder()
    client._route = recorder  # type: ignore[assignment]
    return client, recorder


def recording_sync_client() -> tuple[jiffy.CacheClient, SyncRecorder]:
    client = jiffy.CacheClient(jiffy.Endpoint.local("127.0.0.1", 9), default_cache="c")
    client.close()
    recorder = SyncRecorder()
    client._route = recorder  # type: ignore[assignment]
    return client, recorder
