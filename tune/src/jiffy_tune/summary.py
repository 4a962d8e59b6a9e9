"""Medians over rounds, one entry per configuration."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from jiffy_tune import caps, transports
from jiffy_tune.caps import Cap
from jiffy_tune.runner import client_share

Key = tuple[str, str, int, int, Cap, float | None]


def key_of(point: dict[str, Any]) -> Key:
    return (
        point["sdk"],
        transports.of_entry(point["sdk"], point),
        point["channels"],
        point["concurrency"],
        point["max_concurrent_requests"],
        point["rate"],
    )


def _median(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return round(statistics.median(present), 4) if present else None


def summarize(points: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (sdk, transport, channels, concurrency, cap, rate), in first-measured order.

    Numbers are medians over the ok rounds; errors_total sums them, so an
    error in any round shows. An `auto` entry also has `in_flight_limit_last`:
    the median over its ok rounds of the last limit the client chose.
    """
    groups: dict[Key, list[dict[str, Any]]] = {}
    for point in points:
        groups.setdefault(key_of(point), []).append(point)
    return [_entry(key, group) for key, group in groups.items()]


def _entry(key: Key, group: list[dict[str, Any]]) -> dict[str, Any]:
    sdk, transport, channels, concurrency, cap, rate = key
    ok = [point for point in group if point["status"] == "ok"]
    client = None
    if ok:
        client = {
            name: _median(point["client_ms"][name] for point in ok)
            for name in ("p50", "p99", "p999")
        }
    with_server = [point["server_ms"] for point in ok if point["server_ms"] is not None]
    server = None
    if with_server:
        server = {name: _median(s[name] for s in with_server) for name in ("p50", "p99", "p999")}
    entry: dict[str, Any] = {
        "sdk": sdk,
        "transport": transport,
        "channels": channels,
        "concurrency": concurrency,
        "max_concurrent_requests": cap,
        "rate": rate,
        "rounds_ok": len(ok),
        "rounds_failed": len(group) - len(ok),
        "rps": _median(point["rps"] for point in ok),
        "client_ms": client,
        "server_ms": server,
        "client_share_p999": client_share(
            client["p999"] if client else None, server["p999"] if server else None
        ),
        "errors_total": sum(point["errors_total"] for point in ok),
    }
    if caps.is_auto(cap):
        entry["in_flight_limit_last"] = _median(_last_limit(point) for point in ok)
    return entry


def _last_limit(point: dict[str, Any]) -> float | None:
    history = point.get("in_flight_limit")
    return float(history[-1][1]) if history else None
