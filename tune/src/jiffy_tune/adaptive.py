"""`auto` against the best fixed cap, for a sweep that has both.

The adaptive in-flight limit (`--max-concurrent-requests auto`) has to find
for itself the cap a sweep finds by trying them. Its goal: at least 90%
(GOAL_SHARE) of the throughput of the best fixed cap, both with p99.9 under
the target. Per SDK, transport and channel count, and per target, a row
gives the most throughput an `auto` point reached under the target, the
fixed cap (0, no cap, included) whose point reached the most, and auto's
share of it.

What counts as under the target is what the rest of jiffy-tune counts:
closed loop, the recommendation's rule (`recommend.eligible`: an ok round,
no errors, median p99.9 below the target); open loop, the open-loop
results' (`sweep.met_rate`: also at least 90% of the offered rate achieved),
with the throughput achieved. The console, the report and results.json's
`auto_comparison` all read the rows made here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jiffy_tune import caps, transports
from jiffy_tune.recommend import eligible
from jiffy_tune.sweep import met_rate

GOAL_SHARE = 0.9

Group = tuple[str, str, int]


def _met(entry: dict[str, Any], target_ms: float, open_mode: bool) -> bool:
    if open_mode:
        return entry["rate"] is not None and met_rate(entry, target_ms)
    return eligible(entry, target_ms)


def _best(
    entries: Sequence[dict[str, Any]], target_ms: float, open_mode: bool
) -> dict[str, Any] | None:
    met = [e for e in entries if _met(e, target_ms, open_mode)]
    if not met:
        return None
    # The most throughput; on a tie the lighter load (fewer workers, lower rate).
    return max(met, key=lambda e: (e["rps"], -e["concurrency"], -(e["rate"] or 0.0)))


def _brief(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """The figures of a row's side: what was reached and where."""
    if entry is None:
        return None
    brief = {
        "max_concurrent_requests": entry["max_concurrent_requests"],
        "concurrency": entry["concurrency"],
        "rate": entry["rate"],
        "rps": entry["rps"],
        "client_p999_ms": entry["client_ms"]["p999"],
    }
    if caps.is_auto(entry["max_concurrent_requests"]):
        brief["in_flight_limit_last"] = entry.get("in_flight_limit_last")
    return brief


def _groups(summary: Sequence[dict[str, Any]]) -> dict[Group, list[dict[str, Any]]]:
    groups: dict[Group, list[dict[str, Any]]] = {}
    for entry in summary:
        sdk = entry["sdk"]
        key = (sdk, transports.of_entry(sdk, entry), entry["channels"])
        groups.setdefault(key, []).append(entry)
    return groups


def compare(
    summary: Sequence[dict[str, Any]], targets_ms: Sequence[float], mode: str
) -> list[dict[str, Any]]:
    """Per (SDK, transport, channels) swept with `auto` and fixed caps, and per target:
    `auto` and `best_cap` (each None when no such point met the target), `share`
    (auto's throughput / the best cap's, None unless both met it) and
    `meets_goal` (share at least GOAL_SHARE; True when only auto met the
    target, None when neither did). Empty when the sweep lacks either kind."""
    open_mode = mode == "open"
    rows = []
    for (sdk, transport, channels), entries in _groups(summary).items():
        auto = [e for e in entries if caps.is_auto(e["max_concurrent_requests"])]
        fixed = [e for e in entries if not caps.is_auto(e["max_concurrent_requests"])]
        if not auto or not fixed:
            continue
        for target in targets_ms:
            best_auto = _best(auto, target, open_mode)
            best_cap = _best(fixed, target, open_mode)
            share = None
            if best_auto is not None and best_cap is not None and best_cap["rps"] > 0:
                share = round(best_auto["rps"] / best_cap["rps"], 4)
            rows.append(
                {
                    "sdk": sdk,
                    "transport": transport,
                    "channels": channels,
                    "target_ms": float(target),
                    "auto": _brief(best_auto),
                    "best_cap": _brief(best_cap),
                    "share": share,
                    "meets_goal": _meets_goal(best_auto, best_cap, share),
                }
            )
    return rows


def _meets_goal(
    best_auto: dict[str, Any] | None, best_cap: dict[str, Any] | None, share: float | None
) -> bool | None:
    if best_auto is None:
        return None if best_cap is None else False
    if best_cap is None:
        return True
    return share is not None and share >= GOAL_SHARE


def of_results(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of a results.json: those it stored, else computed from its summary
    (results written before jiffy-tune compared them)."""
    stored = results.get("auto_comparison")
    if stored is not None:
        return list(stored)
    return compare(results["summary"], results["targets_ms"], results["mode"])


def cap_name(cap: object) -> str:
    """A fixed cap in a sentence: `cap 50`, or `no cap` for 0."""
    return "no cap" if not cap else f"cap {cap}"


def _rps(value: float) -> str:
    return f"{value:,.0f}/s"


def sentence(row: dict[str, Any]) -> str:
    """The row in words, e.g. `auto 10,950/s = 96% of cap 50's 11,366/s`."""
    auto, best = row["auto"], row["best_cap"]
    if auto is not None and best is not None:
        share = row["share"]
        of = f"{share * 100:.0f}%" if share is not None else "a share"
        return (
            f"auto {_rps(auto['rps'])} = {of} of "
            f"{cap_name(best['max_concurrent_requests'])}'s {_rps(best['rps'])}"
        )
    if auto is not None:
        return f"auto {_rps(auto['rps'])}; no fixed cap met the target"
    if best is not None:
        return (
            f"auto met no point under the target; "
            f"{cap_name(best['max_concurrent_requests'])} {_rps(best['rps'])}"
        )
    return "neither auto nor a fixed cap met the target"


def verdict(row: dict[str, Any]) -> str:
    """Whether the row meets the goal, in a word or two."""
    goal = f"{GOAL_SHARE * 100:.0f}%"
    meets = row["meets_goal"]
    if meets is None:
        return "-"
    return f"yes (>= {goal})" if meets else f"no (< {goal})"


def limit_history(results: dict[str, Any], row: dict[str, Any]) -> list[tuple[float, float]] | None:
    """The in-flight limit over the run of a row's best `auto` point (its first
    ok round), as (seconds, limit); None when it has no such point or history."""
    auto = row["auto"]
    if auto is None:
        return None
    for point in results["points"]:
        if (
            point["status"] == "ok"
            and point["sdk"] == row["sdk"]
            and transports.of_entry(point["sdk"], point) == row["transport"]
            and point["channels"] == row["channels"]
            and caps.is_auto(point["max_concurrent_requests"])
            and point["concurrency"] == auto["concurrency"]
            and point["rate"] == auto["rate"]
        ):
            history = point.get("in_flight_limit")
            if not history:
                loadgen = point.get("loadgen") or {}
                history = loadgen.get("in_flight_limit")
            if history:
                return [(float(at), float(limit)) for at, limit in history]
    return None
