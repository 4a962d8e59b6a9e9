"""Number formatting shared by report.md and report.html, so both say the same thing."""

from __future__ import annotations

from jiffy_tune.caps import Cap
from jiffy_tune.model import Spread, SummaryEntry

MISSING = "—"


def ms(value: float | None) -> str:
    """Milliseconds with two decimals below 100 ms, whole above: 0.73 ms, 14.20 ms, 212 ms."""
    if not isinstance(value, int | float):
        return MISSING
    return f"{value:.2f} ms" if value < 100 else f"{value:,.0f} ms"


def rps(value: float | None) -> str:
    if not isinstance(value, int | float):
        return MISSING
    return f"{value:,.0f} rps"


def share(value: float | None) -> str:
    """The client's share of p99.9, a fraction 0..1, as a percentage."""
    if not isinstance(value, int | float):
        return MISSING
    return f"{value * 100:.0f}%"


def percent(value: float | None) -> str:
    """A share, a fraction, as a whole percentage: 0.963 is 96%."""
    if not isinstance(value, int | float):
        return MISSING
    return f"{value * 100:.0f}%"


def ratio(value: float) -> str:
    return f"{value:.2f}x"


def target(value: float) -> str:
    return f"p99.9 < {value:g} ms"


def cap(value: Cap | None) -> str:
    """The SDK's in-flight cap; 0 means the SDK was run without one, auto its adaptive limit."""
    if value == "auto":
        return "auto"
    if not isinstance(value, int):
        return MISSING
    return "none" if value == 0 else f"{value:,}"


def count(value: float | None) -> str:
    if not isinstance(value, int | float):
        return MISSING
    return f"{value:,.0f}"


def cpus(value: list[int] | None) -> str:
    if not isinstance(value, list) or not value:
        return "not pinned"
    return "pinned to CPU " + ", ".join(str(cpu) for cpu in value)


def seconds(value: float | None) -> str:
    if not isinstance(value, int | float):
        return MISSING
    return f"{value:g} s"


def plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def ranged(median: str, low_to_high: str) -> str:
    """A median with the range of its rounds on a line of its own (report.html breaks
    the line; report.md puts it in parentheses)."""
    return median if low_to_high == MISSING else f"{median}\n{low_to_high}"


def rps_range(spread: Spread | None) -> str:
    """The lowest and highest round's throughput: 12,901-13,577 rps."""
    if spread is None:
        return MISSING
    return f"{spread.min:,.0f}-{spread.max:,.0f} rps"


def ms_range(spread: Spread | None) -> str:
    """The best and worst round's latency: 3.10-3.52 ms."""
    if spread is None:
        return MISSING
    return f"{ms(spread.min).removesuffix(' ms')}-{ms(spread.max)}"


def _relative(spread: Spread | None, median: float | None) -> str:
    if spread is None or not median:
        return MISSING
    return f"{(spread.max - spread.min) / median * 100:.0f}%"


def spread(entry: SummaryEntry) -> str:
    """How far apart an entry's ok rounds were, throughput / client p99.9, each as
    (highest - lowest) / median; blank for one round, which has no spread."""
    if entry.rounds_ok < 2:
        return ""
    return (
        f"{_relative(entry.rps_spread, entry.rps)} / "
        f"{_relative(entry.client_p999_spread, entry.client_p999)}"
    )
