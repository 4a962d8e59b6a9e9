"""The sweep loop: runs points in order, keeps every measured one on Ctrl-C.

The point runner is a parameter, so the loop is tested without processes.
So is the check after a failed point (`StopCheck`): when it gives a reason
(the server is gone), the sweep ends there rather than fail every point left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar

from jiffy_tune import caps as caps_
from jiffy_tune import transports
from jiffy_tune.caps import Cap
from jiffy_tune.model import OpenLoopRow, Point, SummaryEntry
from jiffy_tune.plan import LadderSettings, PointSpec, RateLadder, TransportPlan

PointRunner = Callable[[PointSpec], Point]
# Called with each failed point: why the sweep cannot go on, or None.
StopCheck = Callable[[Point], str | None]


class Observer(Protocol):
    def total(self, points: int) -> None: ...
    def started(self, spec: PointSpec) -> None: ...
    def finished(self, point: Point) -> None: ...


class Silent:
    def total(self, points: int) -> None:
        pass

    def started(self, spec: PointSpec) -> None:
        pass

    def finished(self, point: Point) -> None:
        pass


@dataclass
class Sweep:
    points: list[Point] = field(default_factory=list)
    interrupted: bool = False
    # Why the sweep ended before its plan did (other than Ctrl-C), or None.
    stopped: str | None = None

    def add(self, point: Point) -> Point:
        point = replace(point, id=len(self.points))
        self.points.append(point)
        return point

    def check(self, point: Point, stop: StopCheck | None, planned: int) -> bool:
        """After a point: whether the sweep must end here (sets `stopped`)."""
        if stop is None or point.ok:
            return False
        reason = stop(point)
        if reason is None:
            return False
        left = planned - len(self.points)
        self.stopped = f"{reason}; the sweep stopped after point {point.id}" + (
            f", {left} planned point{'s' if left != 1 else ''} not run" if left > 0 else ""
        )
        return True


def run_closed(
    plan: Sequence[PointSpec],
    run: PointRunner,
    observer: Observer | None = None,
    stop: StopCheck | None = None,
) -> Sweep:
    """Every point of `plan` in order; a Ctrl-C ends the sweep with what was measured."""
    observer = observer or Silent()
    sweep = Sweep()
    observer.total(len(plan))
    try:
        for spec in plan:
            observer.started(spec)
            point = sweep.add(run(spec))
            observer.finished(point)
            if sweep.check(point, stop, len(plan)):
                break
    except KeyboardInterrupt:
        sweep.interrupted = True
    return sweep


@dataclass(frozen=True)
class OpenLoopPlan:
    sdks: Sequence[str]
    channels: Sequence[int]
    concurrency: int  # workers for loadgens that bound in-flight requests by them
    caps: Sequence[Cap]  # a ladder for each (`auto` only for the SDKs that have it)
    rounds: int
    ladder: LadderSettings
    transport_plan: TransportPlan = field(default_factory=TransportPlan)


def run_open(
    plan: OpenLoopPlan,
    run: PointRunner,
    observer: Observer | None = None,
    stop: StopCheck | None = None,
) -> Sweep:
    """Rate ladders per (channels, cap, SDK, transport), stepped in lockstep so drift
    hits all alike."""
    observer = observer or Silent()
    sweep = Sweep()
    steps = RateLadder.max_steps(plan.ladder)
    try:
        for round_ in range(plan.rounds):
            ladders = [
                (sdk, ch, cap, transport, RateLadder(plan.ladder))
                for ch in plan.channels
                for cap in plan.caps
                for sdk in plan.sdks
                if caps_.for_sdk(sdk, [cap])
                for transport in plan.transport_plan.at(sdk, ch)
            ]
            later_rounds = (plan.rounds - round_ - 1) * len(ladders) * steps
            while True:
                stepped = False
                for sdk, ch, cap, transport, ladder in ladders:
                    rate = ladder.next_rate()
                    if rate is None:
                        continue
                    remaining = sum(steps - l_[-1].steps_done for l_ in ladders if l_[-1].active)
                    observer.total(len(sweep.points) + remaining + later_rounds)
                    spec = PointSpec(
                        sdk=sdk,
                        channels=ch,
                        concurrency=plan.concurrency,
                        max_concurrent_requests=cap,
                        rate=rate,
                        round=round_,
                        transport=transport,
                    )
                    observer.started(spec)
                    point = sweep.add(run(spec))
                    ladder.record(point)
                    observer.finished(point)
                    # A ladder's length is not known in advance: no count of points not run.
                    if sweep.check(point, stop, 0):
                        return sweep
                    stepped = True
                if not stepped:
                    break
        observer.total(len(sweep.points))
    except KeyboardInterrupt:
        sweep.interrupted = True
    return sweep


def open_loop_results(
    summary: Sequence[SummaryEntry],
    sdks: Sequence[str],
    channels: Sequence[int],
    targets_ms: Sequence[float],
    min_achieved_share: float = 0.9,
) -> list[OpenLoopRow]:
    """Per (SDK, transport, channels, cap, target): the highest offered rate that met the target.

    Met: ok, no errors, achieved at least 90% of the offered rate, median
    p99.9 strictly below the target. A transport appears at the channel
    counts it was swept at, a cap (`auto` included) where it was swept.
    """
    results = []
    for sdk in sdks:
        swept = [e for e in summary if e.sdk == sdk and e.rate is not None]
        main, *others = _in_order(e.transport for e in swept) or [transports.default(sdk)]
        caps: list[Cap] = _in_order(e.max_concurrent_requests for e in swept) or [0]
        for transport in [main, *others]:
            for ch in channels:
                for cap in caps:
                    entries = [
                        e
                        for e in swept
                        if e.channels == ch
                        and e.max_concurrent_requests == cap
                        and e.transport == transport
                    ]
                    if not entries and (transport != main or len(caps) > 1):
                        continue  # not swept at this channel count (or with this cap)
                    results += [
                        _open_loop_row(sdk, transport, ch, cap, target, entries, min_achieved_share)
                        for target in targets_ms
                    ]
    return results


T = TypeVar("T")


def _in_order(names: Iterable[T]) -> list[T]:
    return list(dict.fromkeys(names))


def _open_loop_row(
    sdk: str,
    transport: str,
    ch: int,
    cap: Cap,
    target: float,
    entries: Sequence[SummaryEntry],
    min_achieved_share: float,
) -> OpenLoopRow:
    met = [e for e in entries if met_rate(e, target, min_achieved_share)]
    best = max(met, key=lambda e: e.rate or 0.0) if met else None
    return OpenLoopRow(
        sdk=sdk,
        transport=transport,
        channels=ch,
        max_concurrent_requests=cap,
        target_ms=target,
        max_rate_met=best.rate if best else None,
        achieved_rps=best.rps if best else None,
        client_p999_ms=best.client_p999 if best else None,
    )


def met_rate(entry: SummaryEntry, target_ms: float, min_share: float = 0.9) -> bool:
    """Whether an open-loop summary entry met the target at its offered rate."""
    p999 = entry.client_p999
    return (
        entry.rounds_ok >= 1
        and entry.errors_total == 0
        and p999 is not None
        and p999 < target_ms
        and entry.rate is not None
        and (entry.rps or 0.0) >= min_share * entry.rate
    )
