"""Client configuration: immutable, keyword-only, defaults as named constants.

Durations are seconds (float). `Config()` holds the defaults, which are also
what a client given no config uses; they are defined in `sdk/spec.json`
(`config`), shared with the TypeScript SDK, and a test checks them against
it. A preset (jiffy.presets) is the usual start for a known situation;
`config.replace(knob=value)` changes one knob of it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal

from jiffy._adaptive import AUTO
from jiffy._endpoint import parse_address
from jiffy._exceptions import InvalidArgumentError

# Retry: three attempts of an idempotent call, backoff 10 ms doubling up to
# 500 ms. Enough to ride out a connection reset, short enough that a dead
# server fails inside a second.
DEFAULT_RETRY_MAX_ATTEMPTS = 3
DEFAULT_RETRY_INITIAL_BACKOFF = 0.010
DEFAULT_RETRY_MAX_BACKOFF = 0.500
# Each delay is cut by up to this share at random, so clients that failed
# together do not come back together.
DEFAULT_RETRY_JITTER = 0.5

# One channel: grpcio (C core) gained nothing from more channels in the 2022
# study, and 1 vs 2 channels was within 1% in bench/python (README there).
DEFAULT_CHANNELS = 1
# In-flight cap, the same in both SDKs (sdk/spec.json). It used to be 50 here
# while a client given no config got in_region.latest()'s 25, and 10 in the
# TypeScript SDK. 25 is the one cap at which both SDKs met p99.9 < 20 ms in
# docs/tuning/2026-11-21-localhost-2core with (nearly) their best throughput:
# Python 13,249 rps at p99.9 3.3 ms (its best), JS 18,444 rps at 10.2 ms
# (0.8% under its best, at 10). At 10 Python lost 10%; at 50 JS lost 11% and
# its tail grew to 13.8 ms. Off localhost the higher of the two good caps is
# the safer one: a client can do at most cap / latency calls per second, so
# at 1 ms a call 10 in flight stop a client at 10,000 rps and 25 at 25,000.
DEFAULT_MAX_CONCURRENT_REQUESTS = 25
DEFAULT_DEADLINE = 5.0
# Pings on an idle connection find a dead peer (a NAT or load balancer that
# dropped it) before a call does.
DEFAULT_KEEPALIVE_TIME = 30.0
DEFAULT_KEEPALIVE_TIMEOUT = 10.0
DEFAULT_EAGER_CONNECT_TIMEOUT = 10.0
DEFAULT_TTL = 60.0
# Protosocket carried get/set/delete at ~3-4x gRPC's rps at concurrency 50
# (bench/python), so a client uses it wherever the server offers it: "auto"
# asks jiffy-server's Ping for its port. The Momento service offers none, and
# stays on gRPC.
DEFAULT_PROTOSOCKET_ENDPOINT = AUTO
# Config.protosocket_endpoint: a host or [ipv6], then the port, no scheme.
_HOST_AND_PORT = re.compile(r"(?:\[[^\]\s]+\]|[^:/\[\]\s@]+):\d{1,5}")


def seconds(value: float | timedelta) -> float:
    """Accept seconds or a timedelta wherever a duration is taken."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise InvalidArgumentError(
        f"a duration is seconds (int or float) or a timedelta, not {value!r}"
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class RetryPolicy:
    """Retries of idempotent calls on UNAVAILABLE / INTERNAL, within the deadline."""

    max_attempts: int = DEFAULT_RETRY_MAX_ATTEMPTS
    """Attempts in all, the first included; 1 turns retries off."""
    initial_backoff: float = DEFAULT_RETRY_INITIAL_BACKOFF
    """Seconds before the second attempt; doubles per attempt."""
    max_backoff: float = DEFAULT_RETRY_MAX_BACKOFF
    """Cap on any one delay, seconds."""
    jitter: float = DEFAULT_RETRY_JITTER
    """Share (0..1) of each delay removed at random."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise InvalidArgumentError("RetryPolicy.max_attempts must be at least 1")
        if not 0.0 <= self.jitter <= 1.0:
            raise InvalidArgumentError("RetryPolicy.jitter must be between 0 and 1")
        if self.initial_backoff < 0 or self.max_backoff < self.initial_backoff:
            raise InvalidArgumentError("RetryPolicy needs 0 <= initial_backoff <= max_backoff")


@dataclass(frozen=True, kw_only=True, slots=True)
class Config:
    """How a client talks to the server. Build one from a preset, then `replace`."""

    channels: int = DEFAULT_CHANNELS
    """gRPC channels, each its own TCP connection; a call goes to the one with
    the fewest calls in flight."""
    max_concurrent_requests: int | Literal["auto"] = DEFAULT_MAX_CONCURRENT_REQUESTS
    """Calls on the wire at once; the rest wait in a FIFO queue. 0 = no cap;
    "auto" = a cap that follows measured latency (jiffy._adaptive)."""
    deadline: float = DEFAULT_DEADLINE
    """Seconds a call may take in all: queue, attempts and backoff."""
    keepalive_time: float | None = DEFAULT_KEEPALIVE_TIME
    """Seconds between pings on a connection; None turns pings off."""
    keepalive_timeout: float = DEFAULT_KEEPALIVE_TIMEOUT
    """Seconds to wait for a ping's answer before dropping the connection."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    """Retries of idempotent calls."""
    eager_connect_timeout: float | None = DEFAULT_EAGER_CONNECT_TIMEOUT
    """Seconds to wait for the channels to connect before the first call; None = lazy."""
    default_ttl: float = DEFAULT_TTL
    """TTL in seconds of writes that do not pass their own."""
    target_p999: float | None = None
    """With max_concurrent_requests="auto": seconds the p99.9 of calls' time
    on the wire should stay under; None = only avoid queueing."""
    protosocket_endpoint: str | None = DEFAULT_PROTOSOCKET_ENDPOINT
    """Where get, get_str, set and delete go; every other call is gRPC.
    "auto": when the client connects, one gRPC Ping asks the server for its
    protosocket port (jiffy-server's --protosocket-listen); if it names one,
    those calls go over protosocket to the endpoint's host and that port,
    else (the Momento service, a server without the port) over gRPC, and if
    the port cannot be opened a warning names why and they stay on gRPC.
    host:port: that protosocket port, its failures raised. None: all gRPC.
    The endpoint's TLS and API key apply to both."""

    def __post_init__(self) -> None:
        if self.channels < 1:
            raise InvalidArgumentError("Config.channels must be at least 1")
        cap = self.max_concurrent_requests
        if cap != AUTO and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 0):
            raise InvalidArgumentError(
                f'Config.max_concurrent_requests must be 0 (no cap), more, or "auto"; got {cap!r}'
            )
        if self.target_p999 is not None and (cap != AUTO or not self.target_p999 > 0):
            raise InvalidArgumentError(
                'Config.target_p999 must be positive, with max_concurrent_requests="auto"'
            )
        if self.protosocket_endpoint not in (None, AUTO):
            _check_protosocket_endpoint(self.protosocket_endpoint)
        if self.deadline <= 0 or self.default_ttl <= 0:
            raise InvalidArgumentError("Config.deadline and Config.default_ttl must be positive")

    def replace(self, **changes: Any) -> Config:
        """A copy with the given knobs changed."""
        return dataclasses.replace(self, **changes)


def _check_protosocket_endpoint(address: object) -> None:
    """host:port or [ipv6]:port, the port given: TLS is the endpoint's, so no scheme."""
    source = "Config.protosocket_endpoint"
    if not isinstance(address, str) or not _HOST_AND_PORT.fullmatch(address.strip()):
        raise InvalidArgumentError(
            f'{source} is "auto", None or host:port (e.g. 127.0.0.1:9001, jiffy-server\'s'
            f" --protosocket-listen; TLS and the API key are the endpoint's); got {address!r}"
        )
    parse_address(address, source)  # the port's range
