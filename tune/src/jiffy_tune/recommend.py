"""The recommendation rule: most throughput whose p99.9 meets the target.

Eligible: a configuration with at least one ok round, no errors, and a median
client p99.9 strictly below the target. The highest rps wins, but among the
eligible within 3% of the best, the SDK's default transport, then fewer
channels, then lower concurrency win: on a shared machine a 1-2% difference
is noise, and the simpler setting is the better bet (the default transport
needs no second server port and carries every call).

A recommendation (and its preset) needs the median of at least
wording.MEASURED_ROUNDS ok rounds: with fewer, the statement says there were
not enough rounds to recommend, and why, beside the best point's figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from jiffy_tune import caps, transports
from jiffy_tune.model import Recommendation, SummaryEntry
from jiffy_tune.snippets import Where, preset_for
from jiffy_tune.wording import noise_label, noisy, not_enough_rounds, workers

NEAR_BEST_SHARE = 0.03


def eligible(entry: SummaryEntry, target_ms: float) -> bool:
    p999 = entry.client_p999
    return (
        entry.rounds_ok >= 1
        and entry.errors_total == 0
        and p999 is not None
        and entry.rps is not None
        and p999 < target_ms
    )


def _rps(entry: SummaryEntry) -> float:
    return entry.rps or 0.0


def pick(entries: Sequence[SummaryEntry], target_ms: float) -> SummaryEntry | None:
    candidates = [entry for entry in entries if eligible(entry, target_ms)]
    if not candidates:
        return None
    best_rps = max(_rps(entry) for entry in candidates)
    near = [entry for entry in candidates if _rps(entry) >= best_rps * (1 - NEAR_BEST_SHARE)]
    return min(near, key=lambda e: (not _on_default(e), e.channels, e.concurrency, -_rps(e)))


def _on_default(entry: SummaryEntry) -> bool:
    return entry.transport == transports.default(entry.sdk)


def configuration(entry: SummaryEntry) -> str:
    """Channels, cap and concurrency: what a configuration sets besides its transport."""
    channels = entry.channels
    return (
        f"{channels} channel{'s' if channels != 1 else ''}, "
        f"cap {caps.label(entry.max_concurrent_requests)}, concurrency {entry.concurrency}"
    )


def _figures(entry: SummaryEntry, target_ms: float) -> str:
    return (
        f"{_rps(entry):,.0f} rps at p99.9 {entry.client_p999:g} ms "
        f"(target < {target_ms:g} ms) over {entry.transport} "
        f"with {configuration(entry)}"
    )


def too_few_rounds(sdk: str, best: SummaryEntry, target_ms: float) -> str:
    """The statement for a target met by a point with too few rounds to recommend it."""
    return (
        f"{sdk}: {not_enough_rounds(best.rounds_ok)}; "
        f"the best point was {_figures(best, target_ms)}"
    )


def recommend(
    sdk: str,
    entries: Sequence[SummaryEntry],
    target_ms: float,
    runtime_flags: Sequence[str] = (),
    where: Where | None = None,
) -> Recommendation:
    """The recommendation of one SDK for one target, from its summary entries.

    `runtime_flags`: the node flags the SDK was measured with; part of the
    configuration, so the statement and the preset name them. `where`: the
    sweep's endpoint and cache, for the preset. `noisy`: the figures stated
    come from fewer ok rounds than a measurement takes (wording.MEASURED_ROUNDS):
    then `point` is the best point measured, but there is no preset.
    """
    mine = [entry for entry in entries if entry.sdk == sdk]
    chosen = pick(mine, target_ms)
    if chosen is None:
        statement, noisy_figures = _unmet(sdk, mine, target_ms)
        return Recommendation(
            sdk=sdk,
            target_ms=target_ms,
            point=None,
            statement=statement,
            preset=None,
            noisy=noisy_figures,
        )
    best_rps = max(_rps(e) for e in mine if eligible(e, target_ms))
    if noisy(chosen.rounds_ok):
        # One slow moment of a shared machine can decide a single round: the
        # figures are shown, but neither a recommendation nor a preset is made.
        return Recommendation(
            sdk=sdk,
            target_ms=target_ms,
            point=chosen,
            statement=too_few_rounds(sdk, chosen, target_ms),
            preset=None,
            noisy=True,
        )
    statement = f"{sdk}: {_figures(chosen, target_ms)}; {workers(chosen.concurrency)}"
    if runtime_flags:
        statement += f"; measured with node {' '.join(runtime_flags)}"
    if _rps(chosen) < best_rps:
        statement += (
            f". Chosen over the best ({best_rps:,.0f} rps) because it is within 3% and "
            "simpler: the SDK's default transport, fewer channels or lower concurrency"
        )
    return Recommendation(
        sdk=sdk,
        target_ms=target_ms,
        point=chosen,
        statement=statement,
        preset=preset_for(sdk, chosen, target_ms, runtime_flags, where),
        noisy=False,
    )


def _unmet(sdk: str, entries: Sequence[SummaryEntry], target_ms: float) -> tuple[str, bool]:
    """The statement for a target nothing met, and whether its figure is noisy."""
    measured = [(e, e.client_p999) for e in entries if e.rounds_ok >= 1]
    measured_p999 = [(e, p999) for e, p999 in measured if p999 is not None]
    if not measured_p999:
        return f"{sdk}: no point met p99.9 < {target_ms:g} ms; no point completed", False
    lowest, lowest_p999 = min(measured_p999, key=lambda pair: pair[1])
    statement = (
        f"{sdk}: no point met p99.9 < {target_ms:g} ms; the lowest p99.9 was "
        f"{lowest_p999:g} ms ({lowest.transport}, "
        f"c={lowest.concurrency}, ch={lowest.channels})"
    )
    with_errors = [e for e, p999 in measured_p999 if e.errors_total > 0 and p999 < target_ms]
    if with_errors:
        statement += (
            f"; {len(with_errors)} point{'s' if len(with_errors) != 1 else ''} under the "
            "target had errors and did not count"
        )
    if noisy(lowest.rounds_ok):
        statement += f". {noise_label(lowest.rounds_ok)}"
        return statement, True
    return statement, False


def recommend_all(
    sdks: Sequence[str],
    entries: Sequence[SummaryEntry],
    targets_ms: Sequence[float],
    runtime_flags: Mapping[str, Sequence[str]] | None = None,
    where: Where | None = None,
) -> list[Recommendation]:
    flags = runtime_flags or {}
    return [
        recommend(sdk, entries, target, flags.get(sdk, ()), where)
        for sdk in sdks
        for target in targets_ms
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class TransportPick:
    """What the rule picks among one transport's configurations alone."""

    sdk: str
    transport: str
    target_ms: float
    point: SummaryEntry | None


def by_transport(
    sdks: Sequence[str], entries: Sequence[SummaryEntry], targets_ms: Sequence[float]
) -> list[TransportPick]:
    """Per SDK swept over more than one transport, transport and target: the
    configuration the rule picks among that transport's alone (`point`, None
    if none met the target). What each transport gives, beside the one chosen."""
    rows = []
    for sdk in sdks:
        mine = [entry for entry in entries if entry.sdk == sdk]
        names = list(dict.fromkeys(entry.transport for entry in mine))
        if len(names) < 2:
            continue
        for target in targets_ms:
            for name in names:
                over = [entry for entry in mine if entry.transport == name]
                rows.append(
                    TransportPick(
                        sdk=sdk, transport=name, target_ms=target, point=pick(over, target)
                    )
                )
    return rows
