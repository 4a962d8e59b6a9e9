"""Clients whose executor records what would be sent instead of sending it.

Each call answers the empty message of its RPC (what the proto reads as
"missing" or zero), so every call of the client runs without a server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jiffy
from jiffy._calls import Rpc

SPEC_FILE = Path(__file__).resolve().parents[2] / "spec.json"


def load_spec() -> dict[str, Any]:
    """sdk/spec.json: the calls both SDKs offer, with their RPC and retry class."""
    spec: dict[str, Any] = json.loads(SPEC_FILE.read_text())
    return spec


class Recorder:
    """The part of the executor the client uses: `metadata`, `call`, `control`."""

    def __init__(self) -> None:
        self.sent: list[tuple[Rpc, Any]] = []

    def metadata(self, cache: str) -> Any:
        return (("cache", cache),)

    def answer(self, rpc: Rpc, request: Any) -> Any:
        assert type(request).__name__ == f"_{rpc.name}Request", (rpc.name, request)
        self.sent.append((rpc, request))
        return [] if rpc.streaming else rpc.deserialize(b"")


class AsyncRecorder(Recorder):
    async def call(self, rpc: Rpc, request: Any, metadata: Any) -> Any:
        return self.answer(rpc, request)

    async def control(self, rpc: Rpc, request: Any) -> Any:
        return self.answer(rpc, request)


class SyncRecorder(Recorder):
    def call(self, rpc: Rpc, request: Any, metadata: Any) -> Any:
        return self.answer(rpc, request)

    def control(self, rpc: Rpc, request: Any) -> Any:
        return self.answer(rpc, request)


async def recording_async_client() -> tuple[jiffy.AsyncCacheClient, AsyncRecorder]:
    client = jiffy.AsyncCacheClient(jiffy.Endpoint.local("127.0.0.1", 9), default_cache="c")
    await client.aclose()  # its channels never opened; the recorder takes over
    recorder = AsyncRecorder()
    client._executor = recorder  # type: ignore[assignment]
    return client, recorder


def recording_sync_client() -> tuple[jiffy.CacheClient, SyncRecorder]:
    client = jiffy.CacheClient(jiffy.Endpoint.local("127.0.0.1", 9), default_cache="c")
    client.close()
    recorder = SyncRecorder()
    client._executor = recorder  # type: ignore[assignment]
    return client, recorder
