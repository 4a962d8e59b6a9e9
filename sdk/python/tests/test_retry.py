"""Which calls are retried, on what, and how long the waits are."""

from __future__ import annotations

import pytest

from jiffy import RetryPolicy
from jiffy import _calls as c
from jiffy._retry import backoff_delay, may_retry
from tests.recording import load_spec

# sdk/spec.json's `rpcs` is the one source of which RPCs are retried (the RPC
# table is generated from it); here, that retries do what the table says.
RETRY_BY_RPC = {row["rpc"]: row["idempotent"] for row in load_spec()["rpcs"]}
RETRIED = {rpc for rpc in c.ALL_RPCS if RETRY_BY_RPC.get(rpc.name) is True}
NEVER_RETRIED = {rpc for rpc in c.ALL_RPCS if RETRY_BY_RPC.get(rpc.name) is False}
POLICY = RetryPolicy(max_attempts=4, initial_backoff=0.01, max_backoff=0.05, jitter=0.5)


def test_every_rpc_is_classified() -> None:
    assert set(c.ALL_RPCS) == RETRIED | NEVER_RETRIED
    assert not RETRIED & NEVER_RETRIED


@pytest.mark.parametrize("rpc", c.ALL_RPCS, ids=lambda rpc: rpc.name)
@pytest.mark.parametrize("status", ["UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED", "NOT_FOUND",
                                    "RESOURCE_EXHAUSTED", "CANCELLED"])  # fmt: skip
def test_retry_only_idempotent_calls_on_unavailable_or_internal(rpc: c.Rpc, status: str) -> None:
    expected = rpc in RETRIED and status in ("UNAVAILABLE", "INTERNAL")
    assert may_retry(rpc, status, 1, POLICY) is expected


def test_attempts_stop_at_max_attempts() -> None:
    assert may_retry(c.GET, "UNAVAILABLE", 3, POLICY)
    assert not may_retry(c.GET, "UNAVAILABLE", 4, POLICY)
    assert not may_retry(c.GET, "UNAVAILABLE", 1, RetryPolicy(max_attempts=1))


def test_backoff_doubles_and_is_capped() -> None:
    no_jitter = [backoff_delay(POLICY, attempt, rand=0.0) for attempt in range(1, 6)]
    assert no_jitter == pytest.approx([0.01, 0.02, 0.04, 0.05, 0.05])


def test_jitter_only_shortens_within_its_share() -> None:
    for attempt in range(1, 6):
        full = backoff_delay(POLICY, attempt, rand=0.0)
        assert backoff_delay(POLICY, attempt, rand=1.0) == pytest.approx(full * 0.5)
        assert full * 0.5 <= backoff_delay(POLICY, attempt) <= full
