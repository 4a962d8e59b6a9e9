"""Versioned presets: `jiffy.presets.in_region.latest()`.

Each preset has `v1()`, frozen forever (a test asserts its values), and
`latest()`, which may move to newer measurements in a later release. The
names and knobs are the same in the TypeScript SDK.

Where the numbers come from: the 2022 Momento study of gRPC clients, then
`bench/python/run.sh` on this repository's 2-core machine (server and client
pinned to one core each, localhost, 2026-11-21; bench/python/README.md):

* in_region: cap 50. The study's Python client met p99.9 < 20 ms with 50 in
  flight. Here our best throughput under 20 ms was at concurrency 50
  (13,492 rps, p99.9 6.4 ms); past 50 even bare stubs lost throughput and
  tail (c=100: p99.9 ~15 ms, c=200: ~26 ms), so the cap holds the wire at 50.
* low_latency: cap 5, deadline 1 s. The study met p99.9 < 5 ms with 5 in
  flight over a real network. On localhost p99.9 < 5 ms held up to 25 in
  flight (13,201 rps, 3.5 ms); 5 keeps room for network jitter until the
  tuner measures in a region.
* laptop: lenient deadline (15 s) and connect timeout for slow networks and
  sleeping laptops; cap 100 (= the server's streams per connection).
* lambda: one channel, no keepalive pings (a frozen function cannot answer
  them and the connection would be dropped on thaw), a short eager connect
  so cold starts fail fast, cap 20 (a function serves few callers).

All four use one channel: the study found no gain from more with grpcio,
and 1 vs 2 channels here was within 1% (bench/python/README.md).
"""

from __future__ import annotations

from collections.abc import Callable

from jiffy._config import Config, RetryPolicy

__all__ = ["Preset", "laptop", "in_region", "low_latency", "lambda_", "by_name"]


class Preset:
    """A named configuration with frozen versions."""

    def __init__(self, name: str, v1: Callable[[], Config]) -> None:
        self.name = name
        self._v1 = v1

    def v1(self) -> Config:
        """The first version; never changes."""
        return self._v1()

    def latest(self) -> Config:
        """The newest version; may change in a later release."""
        return self._v1()

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
        raise ValueError(f"unknown preset {name!r}; known presets: {known}") from None
