"""Server-side latency from jiffy-server's /metrics.

jiffy-server exports `jiffy_request_duration_seconds` (a Prometheus histogram,
label `rpc`, 24 round buckets from 25 us to 10 s: 1, 1.5, 2, 3, 5, 7.5 per
decade). A point's server latency is the difference of two scrapes, before and
after the loadgen ran, summed over the data RPCs, and its quantiles are
interpolated linearly inside a bucket the way Prometheus' histogram_quantile()
does, so they are only as fine as a bucket (up to +-25%). The parsing is
prometheus_client's; the diff and the quantile are written here because that
library only exposes metrics, it does not query them.
"""

from __future__ import annotations

import math
import urllib.request
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

from jiffy_tune.model import ServerLatency

DURATION_METRIC = "jiffy_request_duration_seconds"
# Control and health RPCs are not the load: the loadgen creates its cache once.
NON_DATA_RPCS = frozenset({"CreateCache", "DeleteCache", "FlushCache", "ListCaches", "Ping"})
RESOLUTION = "histogram buckets 1-1.5-2-3-5-7.5 per decade, up to +-25%"
SCRAPE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Histogram:
    """Cumulative bucket counts by upper bound (seconds), +Inf included."""

    buckets: tuple[tuple[float, float], ...]

    @property
    def count(self) -> float:
        return self.buckets[-1][1] if self.buckets else 0.0


def parse_histogram(text: str, metric: str = DURATION_METRIC) -> Histogram:
    """The data RPCs' buckets of `metric` in one /metrics text, summed over RPCs."""
    totals: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        if family.name != metric:
            continue
        for sample in family.samples:
            if not sample.name.endswith("_bucket"):
                continue
            if sample.labels.get("rpc") in NON_DATA_RPCS:
                continue
            bound = float(sample.labels["le"])
            totals[bound] = totals.get(bound, 0.0) + sample.value
    return Histogram(tuple(sorted(totals.items())))


def diff(after: Histogram, before: Histogram) -> Histogram:
    """The requests that ended between two scrapes of the same server."""
    earlier = dict(before.buckets)
    return Histogram(
        tuple((bound, count - earlier.get(bound, 0.0)) for bound, count in after.buckets)
    )


def quantile(histogram: Histogram, q: float) -> float | None:
    """The q-quantile in seconds, or None for an empty window.

    A rank in the +Inf bucket answers the highest finite bound, as Prometheus does.
    """
    total = histogram.count
    if total <= 0:
        return None
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in histogram.buckets:
        if count >= rank and count > lower_count:
            if math.isinf(bound):
                return lower_bound
            share = (rank - lower_count) / (count - lower_count)
            return lower_bound + (bound - lower_bound) * share
        lower_bound, lower_count = bound, count
    return lower_bound


def latency_ms(window: Histogram) -> ServerLatency:
    """The point's `server_ms` for a window of requests."""

    def ms(q: float) -> float | None:
        seconds = quantile(window, q)
        return None if seconds is None else round(seconds * 1000, 4)

    return ServerLatency(
        p50=ms(0.5),
        p99=ms(0.99),
        p999=ms(0.999),
        count=int(window.count),
        resolution=RESOLUTION,
        window="loadgen process lifetime (warmup included)",
    )


def scrape(url: str) -> Histogram:
    with urllib.request.urlopen(url, timeout=SCRAPE_TIMEOUT_S) as response:  # noqa: S310
        body: bytes = response.read()
    return parse_histogram(body.decode())


def metrics_url(host_port: str) -> str:
    return f"http://{host_port}/metrics"
