"""What to measure: the grid of closed-loop points and the open-loop rate ladders."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from jiffy_tune import caps as caps_
from jiffy_tune import transports
from jiffy_tune.caps import Cap
from jiffy_tune.model import Point


@dataclass(frozen=True)
class PointSpec:
    """One loadgen run."""

    sdk: str
    channels: int
    concurrency: int
    max_concurrent_requests: Cap  # 0 = no cap; "auto" = the SDK's adaptive limit
    rate: float | None  # offered requests/s in open loop, None in closed loop
    round: int
    transport: str | None = None  # None: the SDK's default (transports.default)

    @property
    def transport_name(self) -> str:
        return self.transport or transports.default(self.sdk)

    def label(self) -> str:
        rate = f" rate={self.rate:,.0f}/s" if self.rate is not None else ""
        cap = caps_.label(self.max_concurrent_requests)
        over = transports.named(self.sdk, self.transport_name)
        sdk = f"{self.sdk} {over}" if over else self.sdk
        return f"{sdk} ch={self.channels} c={self.concurrency} cap={cap}{rate} r{self.round}"


@dataclass(frozen=True)
class TransportPlan:
    """Which transports run at which channel count.

    Each SDK's first transport runs at every channel count; its others only
    at `other_channels` (None: at every one too). A sweep of two transports
    at every point costs twice the points; most of what a second transport
    says (its throughput and tail against load) shows at one channel count.
    """

    by_sdk: Mapping[str, Sequence[str]] = field(default_factory=dict)
    other_channels: Sequence[int] | None = None

    def at(self, sdk: str, channels: int) -> list[str]:
        first, *others = self.by_sdk.get(sdk) or [transports.default(sdk)]
        if self.other_channels is None or channels in self.other_channels:
            return [first, *others]
        return [first]


def closed_grid(
    sdks: Sequence[str],
    concurrency: Sequence[int],
    channels: Sequence[int],
    caps: Sequence[Cap] | None,
    rounds: int,
    transport_plan: TransportPlan | None = None,
) -> list[PointSpec]:
    """Every point, interleaved so that drift on the machine hits every SDK alike.

    Order: round, concurrency, channels, cap, SDK, transport (the SDK's
    transports vary fastest, then the SDK). `caps` None: each point's cap is
    its concurrency, so N workers put N requests on the wire; `auto` among
    them runs only for the SDKs that have it (caps.for_sdk). `transport_plan`
    None: every SDK on its default.
    """
    plan = transport_plan or TransportPlan()
    return [
        PointSpec(
            sdk=sdk,
            channels=ch,
            concurrency=c,
            max_concurrent_requests=c if caps is None else cap,
            rate=None,
            round=r,
            transport=transport,
        )
        for r in range(rounds)
        for c in concurrency
        for ch in channels
        for cap in (caps if caps is not None else [c])
        for sdk in sdks
        if caps_.for_sdk(sdk, [cap])
        for transport in plan.at(sdk, ch)
    ]


@dataclass(frozen=True)
class LadderSettings:
    rate_start: float
    rate_factor: float
    rate_max: float
    rates: tuple[float, ...] | None  # explicit list: every rate is run, no early stop
    stop_p999_ms: float  # the largest target
    min_achieved_share: float = 0.9


class RateLadder:
    """The offered rates for one (SDK, channels, round) in open loop.

    Steps up from rate_start by rate_factor until a point exceeds the largest
    target at p99.9, achieves under 90% of the offered rate, has errors or
    fails, or the next rate passes rate_max.
    """

    def __init__(self, settings: LadderSettings) -> None:
        self.settings = settings
        self._step = 0
        self.stopped_because: str | None = None

    @property
    def steps_done(self) -> int:
        return self._step

    @property
    def active(self) -> bool:
        return self.stopped_because is None

    def next_rate(self) -> float | None:
        if self.stopped_because is not None:
            return None
        s = self.settings
        if s.rates is not None:
            if self._step >= len(s.rates):
                self.stopped_because = "end of --rates"
                return None
            return s.rates[self._step]
        rate = s.rate_start * s.rate_factor**self._step
        if rate > s.rate_max * (1 + 1e-9):
            self.stopped_because = "rate_max"
            return None
        return round(rate, 3)

    def record(self, point: Point) -> None:
        """The result of the rate next_rate() gave; decides whether to go on."""
        self._step += 1
        if self.settings.rates is not None:
            return
        reason = stop_reason(point, self.settings)
        if reason is not None:
            self.stopped_because = reason

    @staticmethod
    def max_steps(settings: LadderSettings) -> int:
        if settings.rates is not None:
            return len(settings.rates)
        if settings.rate_max < settings.rate_start:
            return 0
        ratio = settings.rate_max / settings.rate_start
        return int(math.floor(math.log(ratio) / math.log(settings.rate_factor) + 1e-9)) + 1


def stop_reason(point: Point, settings: LadderSettings) -> str | None:
    """Why an open-loop ladder stops after `point`, or None to step on."""
    if not point.ok:
        return "failed"
    if point.errors_total > 0:
        return "errors"
    if point.client_ms is None or point.client_ms.p999 > settings.stop_p999_ms:
        return "p99.9 above the largest target"
    rate = point.rate
    if rate and (point.rps or 0.0) < settings.min_achieved_share * rate:
        return "achieved under 90% of the offered rate"
    return None
