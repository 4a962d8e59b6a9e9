"""Versioned presets: `jiffy.presets.in_region.latest()`.

Each preset has `v1()`, frozen forever (a test asserts its values), and
`latest()`: v1 with the knobs a jiffy-tune report measured, named by the
preset's `measured_in` (a test checks that the values match that report),
over the transport its `measured_transport` names. The names and knobs are
the same in the TypeScript SDK.

`latest()`, from docs/tuning/2026-11-21-localhost-2core (jiffy-tune, this
repository's 2-core machine, server and client pinned to one core each,
localhost, 4 SDKs x concurrency 1-500 x 1/2/5 channels, medians of 3 rounds,
every call over gRPC: the sweep had no protosocket then):

* in_region (p99.9 < 20 ms): 1 channel, cap 25: 13,249 rps at p99.9 3.3 ms.
  More in flight bought at most 2.5% (c=50 on 2 channels: 13,578 rps, p99.9
  6.6 ms) while the tail doubled, and past 50 it grew further (c=100: p99.9
  15-17 ms, c=200: 23-25 ms), so the rule's tie-break (within 3%, the lower
  concurrency) chose 25.
* low_latency (p99.9 < 5 ms): the same point, 1 channel, cap 25.
* More channels: 2 or 5 gained at most 4% at any concurrency, and under 1%
  at the chosen point.
* laptop and lambda: not measured (they are about a slow or frozen network,
  which localhost is not); latest() is v1.

Localhost is the best network there is. On a real network, run jiffy-tune
(`tune/README.md`) from where your code runs; it prints the preset to paste.

v1 came from the 2022 Momento study of gRPC clients and bench/python/run.sh:

* in_region: cap 50 (the study's Python client met p99.9 < 20 ms with 50 in
  flight). low_latency: cap 5, deadline 1 s (the study met p99.9 < 5 ms with
  5 in flight over a real network).
* laptop: lenient deadline (15 s) and connect timeout for slow networks and
  sleeping laptops; cap 100 (= the server's streams per connection).
* lambda: one channel, no keepalive pings (a frozen function cannot answer
  them and the connection would be dropped on thaw), a short eager connect
  so cold starts fail fast, cap 20 (a function serves few callers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from jiffy._config import Config, RetryPolicy
from jiffy._exceptions import InvalidArgumentError

__all__ = ["Preset", "laptop", "in_region", "low_latency", "lambda_", "by_name"]


# The jiffy-tune report behind the latest() values below, and the transport
# it measured them over (jiffy-tune's name for it).
TUNING_REPORT = "docs/tuning/2026-11-21-localhost-2core"
TUNING_TRANSPORT = "grpc"


class Preset:
    """A named configuration with frozen versions."""

    def __init__(
        self,
        name: str,
        v1: Callable[[], Config],
        *,
        measured: Mapping[str, Any] | None = None,
        measured_in: str | None = None,
        measured_transport: str | None = None,
    ) -> None:
        self.name = name
        self._v1 = v1
        self._measured = dict(measured or {})
        self.measured_in = measured_in
        """The jiffy-tune report latest()'s knobs came from; None if not measured."""
        self.measured_transport = measured_transport
        """What carried the calls they were measured with: "grpc", or "protosocket"
        (a client with `protosocket_endpoint`); None if not measured. A cap
        measured over one transport need not suit the other."""

    def v1(self) -> Config:
        """The first version; never changes."""
        return self._v1()

    def latest(self) -> Config:
        """The newest version: v1 with the measured knobs; may change in a later release."""
        return self._v1().replace(**self._measured)

    def __repr__(self) -> str:
        return f"Preset({self.name!r})"


laptop = Preset(
    "laptop",
    lambda: Config(
        channels=1,
        max_concurrent_requests=100,
        deadline=15.0,
        keepalive_time=30.0,
        keepalive_timeout=10.0,
        retry=RetryPolicy(max_attempts=3, initial_backoff=0.05, max_backoff=1.0, jitter=0.5),
        eager_connect_timeout=30.0,
        default_ttl=60.0,
    ),
)

in_region = Preset(
    "in_region",
    lambda: Config(
        channels=1,
        max_concurrent_requests=50,
        deadline=5.0,
        keepalive_time=30.0,
        keepalive_timeout=10.0,
        retry=RetryPolicy(max_attempts=3, initial_backoff=0.01, max_backoff=0.5, jitter=0.5),
        eager_connect_timeout=10.0,
        default_ttl=60.0,
    ),
    measured={"channels": 1, "max_concurrent_requests": 25},
    measured_in=TUNING_REPORT,
    measured_transport=TUNING_TRANSPORT,
)

low_latency = Preset(
    "low_latency",
    lambda: Config(
        channels=1,
        max_concurrent_requests=5,
        deadline=1.0,
        keepalive_time=30.0,
        keepalive_timeout=5.0,
        retry=RetryPolicy(max_attempts=2, initial_backoff=0.005, max_backoff=0.05, jitter=0.5),
        eager_connect_timeout=5.0,
        default_ttl=60.0,
    ),
    measured={"channels": 1, "max_concurrent_requests": 25},
    measured_in=TUNING_REPORT,
    measured_transport=TUNING_TRANSPORT,
)

# `lambda` is a keyword; `jiffy.presets.by_name("lambda")` also finds it.
lambda_ = Preset(
    "lambda",
    lambda: Config(
        channels=1,
        max_concurrent_requests=20,
        deadline=5.0,
        keepalive_time=None,
        keepalive_timeout=10.0,
        retry=RetryPolicy(max_attempts=3, initial_backoff=0.01, max_backoff=0.5, jitter=0.5),
        eager_connect_timeout=3.0,
        default_ttl=60.0,
    ),
)

_BY_NAME = {preset.name: preset for preset in (laptop, in_region, low_latency, lambda_)}


def by_name(name: str) -> Preset:
    """The preset called laptop, in_region, low_latency or lambda."""
    try:
        return _BY_NAME[name.replace("-", "_")]
    except KeyError:
        known = ", ".join(_BY_NAME)
        raise InvalidArgumentError(f"unknown preset {name!r}; known presets: {known}") from None
