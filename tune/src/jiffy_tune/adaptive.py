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

from jiffy_tune import caps
from jiffy_tune.jsonfields import FieldError, Fields
from jiffy_tune.model import AutoRow, AutoSide, Point, RunResults, SummaryEntry
from jiffy_tune.recommend import eligible
from jiffy_tune.sweep import met_rate

GOAL_SHARE = 0.9

Group = tuple[str, str, int]


def _met(entry: SummaryEntry, target_ms: float, open_mode: bool) -> bool:
    if open_mode:
        return entry.rate is not None and met_rate(entry, target_ms)
    return eligible(entry, target_ms)


def _best(entries: Sequence[SummaryEntry], target_ms: float, open_mode: bool) -> AutoSide | None:
    """The side that met the target with the most throughput; on a tie the
    lighter load (fewer workers, lower rate)."""
    met = [e for e in entries if _met(e, target_ms, open_mode)]
    if not met:
        return None
    best = max(met, key=lambda e: (e.rps or 0.0, -e.concurrency, -(e.rate or 0.0)))
    return AutoSide(
        max_concurrent_requests=best.max_concurrent_requests,
        concurrency=best.concurrency,
        rate=best.rate,
        rps=best.rps or 0.0,
        client_p999_ms=best.client_p999 or 0.0,
        in_flight_limit_last=best.in_flight_limit_last,
    )


def _groups(summary: Sequence[SummaryEntry]) -> dict[Group, list[SummaryEntry]]:
    groups: dict[Group, list[SummaryEntry]] = {}
    for entry in summary:
        groups.setdefault((entry.sdk, entry.transport, entry.channels), []).append(entry)
    return groups


def compare(
    summary: Sequence[SummaryEntry], targets_ms: Sequence[float], mode: str
) -> list[AutoRow]:
    """Per (SDK, transport, channels) swept with `auto` and fixed caps, and per target:
    `auto` and `best_cap` (each None when no such point met the target), `share`
    (auto's throughput / the best cap's, None unless both met it) and
    `meets_goal` (share at least GOAL_SHARE; True when only auto met the
    target, None when neither did). Empty when the sweep lacks either kind."""
    open_mode = mode == "open"
    rows = []
    for (sdk, transport, channels), entries in _groups(summary).items():
        auto = [e for e in entries if caps.is_auto(e.max_concurrent_requests)]
        fixed = [e for e in entries if not caps.is_auto(e.max_concurrent_requests)]
        if not auto or not fixed:
            continue
        for target in targets_ms:
            best_auto = _best(auto, target, open_mode)
            best_cap = _best(fixed, target, open_mode)
            share = None
            if best_auto is not None and best_cap is not None and best_cap.rps > 0:
                share = round(best_auto.rps / best_cap.rps, 4)
            rows.append(
                AutoRow(
                    sdk=sdk,
                    transport=transport,
                    channels=channels,
                    target_ms=float(target),
                    auto=best_auto,
                    best_cap=best_cap,
                    share=share,
                    meets_goal=_meets_goal(best_auto, best_cap, share),
                )
            )
    return rows


def _meets_goal(
    best_auto: AutoSide | None, best_cap: AutoSide | None, share: float | None
) -> bool | None:
    if best_auto is None:
        return None if best_cap is None else False
    if best_cap is None:
        return True
    return share is not None and share >= GOAL_SHARE


def of_results(results: RunResults) -> list[AutoRow]:
    """The rows of a run: those it stored, else computed from its summary
    (results written before jiffy-tune compared them)."""
    if results.auto_comparison is not None:
        return list(results.auto_comparison)
    return compare(results.summary, results.targets_ms, results.mode)


def cap_name(cap: object) -> str:
    """A fixed cap in a sentence: `cap 50`, or `no cap` for 0."""
    return "no cap" if not cap else f"cap {cap}"


def _rps(value: float) -> str:
    return f"{value:,.0f}/s"


def sentence(row: AutoRow) -> str:
    """The row in words, e.g. `auto 10,950/s = 96% of cap 50's 11,366/s`."""
    auto, best = row.auto, row.best_cap
    if auto is not None and best is not None:
        share = row.share
        of = f"{share * 100:.0f}%" if share is not None else "a share"
        return (
            f"auto {_rps(auto.rps)} = {of} of "
            f"{cap_name(best.max_concurrent_requests)}'s {_rps(best.rps)}"
        )
    if auto is not None:
        return f"auto {_rps(auto.rps)}; no fixed cap met the target"
    if best is not None:
        return (
            f"auto met no point under the target; "
            f"{cap_name(best.max_concurrent_requests)} {_rps(best.rps)}"
        )
    return "neither auto nor a fixed cap met the target"


def verdict(row: AutoRow) -> str:
    """Whether the row meets the goal, in a word or two."""
    goal = f"{GOAL_SHARE * 100:.0f}%"
    meets = row.meets_goal
    if meets is None:
        return "-"
    return f"yes (>= {goal})" if meets else f"no (< {goal})"


def limit_history(results: RunResults, row: AutoRow) -> list[tuple[float, float]] | None:
    """The in-flight limit over the run of a row's best `auto` point (its first
    ok round), as (seconds, limit); None when it has no such point or history."""
    auto = row.auto
    if auto is None:
        return None
    for point in results.points:
        if (
            point.ok
            and point.sdk == row.sdk
            and point.transport == row.transport
            and point.channels == row.channels
            and caps.is_auto(point.max_concurrent_requests)
            and point.concurrency == auto.concurrency
            and point.rate == auto.rate
        ):
            history = point.in_flight_limit or _reported_history(point)
            if history:
                return [(float(at), float(limit)) for at, limit in history]
    return None


def _reported_history(point: Point) -> list[tuple[float, int]] | None:
    """The history in the point's loadgen report, for results that kept it only there."""
    if point.loadgen is None:
        return None
    try:
        return Fields(point.loadgen, "loadgen").pairs("in_flight_limit")
    except FieldError:
        return None
