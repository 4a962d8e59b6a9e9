"""When to retry, and how long to wait first (capped, jittered exponential)."""

from __future__ import annotations

import random

from jiffy._calls import RETRYABLE_STATUS_NAMES, Rpc
from jiffy._config import RetryPolicy


def may_retry(rpc: Rpc, status_name: str, attempt: int, policy: RetryPolicy) -> bool:
    """Whether attempt number `attempt` (1-based) that failed may be sent again."""
    return (
        rpc.idempotent and status_name in RETRYABLE_STATUS_NAMES and attempt < policy.max_attempts
    )


def backoff_delay(policy: RetryPolicy, attempt: int, rand: float | None = None) -> float:
    """Seconds to wait after failed attempt `attempt`: doubling, capped, minus jitter."""
    base = min(policy.max_backoff, policy.initial_backoff * 2.0 ** (attempt - 1))
    share = random.random() if rand is None else rand
    return base * (1.0 - policy.jitter * share)
