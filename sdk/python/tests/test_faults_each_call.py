"""Retries of every data call against injected faults: one UNAVAILABLE is
ridden out by a call whose RPC the spec marks `idempotent`, and surfaces from any other
after a single attempt (so a push, pop or increment is never applied
twice). Uses test_faults_headers' header plumbing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

import jiffy
from tests.conftest import Server
from tests.test_faults_headers import BASE, attempts, connected, with_fault_headers
from tests.test_spec import SPEC_CALLS, SPEC_RPCS, owner, required_arguments

# Control calls (webhook management among them: the cache is in the message;
# signing keys, which name none) carry no per-cache headers, so no fault
# reaches them here.
CONTROL_RPCS = {"CreateCache", "DeleteCache", "ListCaches", "FlushCache", "Ping"} | {
    "GenerateDisposableToken", "GenerateApiToken", "RefreshApiToken",
    "PutWebhook", "DeleteWebhook", "ListWebhooks", "GetWebhookSecret", "RotateWebhookSecret",
    "CreateSigningKey", "ListSigningKeys", "RevokeSigningKey",
}  # fmt: skip
CALLS = [call for call in SPEC_CALLS if call["rpc"] not in CONTROL_RPCS]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("faults"), ("--enable-fault-injection",))
    yield running
    running.stop()


def kebab(rpc: str) -> str:
    """The fault header's name of an RPC: ListPushBack -> list-push-back."""
    return re.sub(r"(?<!^)([A-Z])", r"-\1", rpc).lower()


def test_every_data_call_is_covered() -> None:
    assert len(CALLS) == len(SPEC_CALLS) - len(CONTROL_RPCS)
    assert {"ListPushBack", "SetPop", "SortedSetUnionStore", "SetIfHash"} <= {
        call["rpc"] for call in CALLS
    }


@pytest.mark.parametrize(
    "call", CALLS, ids=lambda call: ".".join(filter(None, (call.get("on"), call["python"])))
)
async def test_one_unavailable_is_retried_only_where_the_spec_allows(
    server: Server, call: dict[str, Any]
) -> None:
    client = await connected(server, BASE)
    rpc, name = call["rpc"], call["python"]
    try:
        method = getattr(owner(client, call), name)
        arguments = required_arguments(method, name)
        before = attempts_or_zero(server, rpc)
        with_fault_headers(
            client, {"return-error": "unavailable", "error-rpcs": kebab(rpc), "error-count": "1"}
        )
        if SPEC_RPCS[rpc]["idempotent"]:
            await method(*arguments)
            assert attempts_or_zero(server, rpc) - before == 2
        else:
            with pytest.raises(jiffy.ConnectionError):
                await method(*arguments)
            assert attempts_or_zero(server, rpc) - before == 1
    finally:
        await client.delete_cache("faults")
        await client.aclose()


def attempts_or_zero(server: Server, rpc: str) -> int:
    """The server's attempt count of `rpc`; 0 before its first call."""
    try:
        return attempts(server, rpc)
    except KeyError:
        return 0
