"""Medians over rounds, one entry per configuration."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import replace

from jiffy_tune import caps
from jiffy_tune.caps import Cap
from jiffy_tune.model import Medians, Point, Spread, SummaryEntry
from jiffy_tune.runner import client_share

Key = tuple[str, str, int, int, Cap, float | None]


def key_of(point: Point | SummaryEntry) -> Key:
    return (
        point.sdk,
        point.transport,
        point.channels,
        point.concurrency,
        point.max_concurrent_requests,
        point.rate,
    )


def _median(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return round(statistics.median(present), 4) if present else None


def _spread(values: Iterable[float | None]) -> Spread | None:
    present = [value for value in values if value is not None]
    return Spread(min=round(min(present), 4), max=round(max(present), 4)) if present else None


def summarize(points: Sequence[Point]) -> list[SummaryEntry]:
    """One entry per (sdk, transport, channels, concurrency, cap, rate), in first-measured order.

    Numbers are medians over the ok rounds, with the spread (lowest and
    highest) of throughput and client p99.9 beside them; errors_total sums them, so an
    error in any round shows. An `auto` entry also has `in_flight_limit_last`:
    the median over its ok rounds of the last limit the client chose.
    """
    groups: dict[Key, list[Point]] = {}
    for point in points:
        groups.setdefault(key_of(point), []).append(point)
    return [_entry(key, group) for key, group in groups.items()]


def _entry(key: Key, group: list[Point]) -> SummaryEntry:
    sdk, transport, channels, concurrency, cap, rate = key
    ok = [point for point in group if point.ok]
    clients = [point.client_ms for point in ok if point.client_ms is not None]
    client = None
    if clients:
        client = Medians(
            p50=_median(c.p50 for c in clients),
            p99=_median(c.p99 for c in clients),
            p999=_median(c.p999 for c in clients),
        )
    servers = [point.server_ms for point in ok if point.server_ms is not None]
    server = None
    if servers:
        server = Medians(
            p50=_median(s.p50 for s in servers),
            p99=_median(s.p99 for s in servers),
            p999=_median(s.p999 for s in servers),
        )
    return SummaryEntry(
        sdk=sdk,
        transport=transport,
        channels=channels,
        concurrency=concurrency,
        max_concurrent_requests=cap,
        rate=rate,
        rounds_ok=len(ok),
        rounds_failed=len(group) - len(ok),
        rps=_median(point.rps for point in ok),
        client_ms=client,
        server_ms=server,
        client_share_p999=client_share(
            client.p999 if client else None, server.p999 if server else None
        ),
        errors_total=sum(point.errors_total for point in ok),
        in_flight_limit_last=_median(_last_limit(point) for point in ok)
        if caps.is_auto(cap)
        else None,
        rps_spread=_spread(point.rps for point in ok),
        client_p999_spread=_spread(c.p999 for c in clients),
    )


def _last_limit(point: Point) -> float | None:
    history = point.in_flight_limit
    return float(history[-1][1]) if history else None


def with_spread(entry: SummaryEntry, points: Sequence[Point]) -> SummaryEntry:
    """`entry` with the spread of its rounds taken from `points` when it has none:
    results written before jiffy-tune kept the spread still have their rounds."""
    if entry.rps_spread is not None or entry.rounds_ok == 0:
        return entry
    key = key_of(entry)
    ok = [point for point in points if point.ok and key_of(point) == key]
    return replace(
        entry,
        rps_spread=_spread(point.rps for point in ok),
        client_p999_spread=_spread(p.client_ms.p999 for p in ok if p.client_ms is not None),
    )
