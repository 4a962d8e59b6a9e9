"""Versioned presets: `jiffy.presets.in_region.latest()`.

Each preset has `v1()`, frozen forever (a test asserts its values), and
`latest()`, which may move to newer measurements in a later release. The
names and knobs are the same in the TypeScript SDK.

Where the numbers come from: the 2022 Momento study of gRPC clients, then
`bench/python/run.sh` on this repository's 2-core benchmark machine (server
and client pinned to one core each; bench/python/README.md has the table):

* in_region: cap 50 in flight. The study's Python client met p99.9 < 20 ms
  with 50 in flight; our bench: our SDK's best throughput under 20 ms was at
  concurrency 25-50, and a cap of 50 keeps the wire there when callers send
  more.
* low_latency: cap 5, deadline 1 s. The study met p99.9 < 5 ms with 5 in
  flight; our bench met p99.9 < 5 ms up to concurrency 5-10.
* laptop: lenient deadline (15 s) and connect timeout for slow networks and
  sleeping laptops; cap 100 (= the server's streams per connection).
* lambda: one channel, no keepalive pings (a frozen function cannot answer
  them and the connection would be dropped on thaw), a short eager connect
  so cold starts fail fast, cap 20 (a function serves few callers).

All four use one channel: the study found no gain from more with grpcio,
and our 1-vs-2-channel run agreed (bench/python/README.md).
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
