"""Ours beside the official SDK of the same language, compared two ways, each said.

* **At matched settings**: the same transport (gRPC: the official SDKs speak
  nothing else, so ours on its default gRPC transport), the same channels, cap
  and load (concurrency or offered rate), at the fewest channels both were
  measured with. A ratio there is one SDK against the other doing the same
  work, whatever the targets.
* **Best of each under the same target**: each SDK's recommended
  configuration, which may differ in transport, channels and load; the table
  shows both configurations beside the ratios, so a ratio between ours at 50
  in flight over protosocket and theirs at 1 over gRPC reads as what it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jiffy_tune import caps, transports
from jiffy_tune.model import RunResults, SummaryEntry
from jiffy_tune.report import columns as col
from jiffy_tune.report import formatting as fmt
from jiffy_tune.report.tables import Row, Table

# Ours beside the official SDK for the same language: the comparison the
# report exists to make.
SDK_PAIRS = (("jiffy-python", "momento-python"), ("jiffy-js", "momento-js"))

MATCHED_LEAD = (
    "Compared at matched settings: for each load both SDKs were measured at, the same "
    "transport (gRPC; ours over its default gRPC transport, since the official SDKs speak "
    "nothing else), the same channels (the fewest both were measured with) and the same limit "
    "on requests in flight (in closed loop a cap of at least the concurrency limits no more "
    "than none, which is all the official SDKs have). "
    "Each ratio is ours divided by the official SDK's, from the same work, whatever the targets."
)
BEST_LEAD = (
    "Compared as the best of each under the same target: each SDK's own recommended "
    "configuration, which may differ in transport, channels, cap and load (both are shown). "
    "These ratios say what each SDK gives at its best under the target, not how the two do "
    "the same work; the table above does that."
)


@dataclass(frozen=True)
class Side:
    """One SDK's figures in a comparison row."""

    entry: SummaryEntry

    @property
    def rps(self) -> float:
        return self.entry.rps or 0.0

    @property
    def p999(self) -> float:
        return self.entry.client_p999 or 0.0


@dataclass(frozen=True)
class Ratio:
    ours: str
    official: str
    target_ms: float
    mine: Side
    theirs: Side

    @property
    def pair(self) -> str:
        """The row's label: ours (over a transport other than its default) / official."""
        transport = self.mine.entry.transport
        over = transports.named(self.ours, transport or transports.default(self.ours))
        return f"{self.ours}{f' over {over}' if over else ''} / {self.official}"

    @property
    def rps_ratio(self) -> float:
        return self.mine.rps / self.theirs.rps

    @property
    def p999_ratio(self) -> float:
        return self.mine.p999 / self.theirs.p999


def pairs_swept(results: RunResults) -> list[tuple[str, str]]:
    sdks = set(results.settings.sdks)
    return [(ours, official) for ours, official in SDK_PAIRS if {ours, official} <= sdks]


def setting(entry: SummaryEntry, open_mode: bool) -> str:
    """A configuration in one cell: transport, channels, cap and load."""
    load = f"rate {fmt.rps(entry.rate)}" if open_mode else f"concurrency {entry.concurrency}"
    return (
        f"{entry.transport}, {fmt.plural(entry.channels, 'channel')}, "
        f"cap {caps.label(entry.max_concurrent_requests)}, {load}"
    )


def _comparable(entry: SummaryEntry) -> bool:
    return entry.rounds_ok > 0 and bool(entry.rps) and bool(entry.client_p999)


def _limit(entry: SummaryEntry, open_mode: bool) -> str:
    """The cap as it limits the load: in closed loop a cap of at least the concurrency
    (ours by default) limits nothing more than no cap (the official SDKs have none)."""
    cap = entry.max_concurrent_requests
    if not open_mode and isinstance(cap, int) and (cap == 0 or cap >= entry.concurrency):
        return "none"
    return caps.label(cap)


def matched(results: RunResults, ours: str, official: str) -> list[tuple[Side, Side]]:
    """Our and the official SDK's entries at the same transport kind (gRPC), channels,
    limit on requests in flight and load, at the fewest channels both were measured
    with, by load."""
    open_mode = results.open_mode

    def keyed(sdk: str, transport: str | None) -> dict[tuple[int, str, int, float], SummaryEntry]:
        return {
            (e.channels, _limit(e, open_mode), e.concurrency, e.rate or 0.0): e
            for e in results.summary
            if e.sdk == sdk and transport in (None, e.transport) and _comparable(e)
        }

    mine = keyed(ours, transports.default(ours))
    theirs = keyed(official, None)
    common = sorted(mine.keys() & theirs.keys())
    if not common:
        return []
    fewest = common[0][0]
    return [(Side(mine[k]), Side(theirs[k])) for k in common if k[0] == fewest]


def _matched_setting(mine: SummaryEntry, theirs: SummaryEntry, open_mode: bool) -> str:
    load = f"rate {fmt.rps(mine.rate)}" if open_mode else f"concurrency {mine.concurrency}"
    ours_cap, their_cap = (caps.label(e.max_concurrent_requests) for e in (mine, theirs))
    limit = f"cap {ours_cap}" if ours_cap == their_cap else f"cap {ours_cap} / {their_cap}"
    return (
        f"gRPC ({mine.transport} / {theirs.transport}), "
        f"{fmt.plural(mine.channels, 'channel')}, {limit}, {load}"
    )


def _ratio_cells(mine: Side, theirs: Side) -> list[str]:
    """A comparison row's figures, under columns.RATIO_COLUMNS."""
    return [
        f"{fmt.rps(mine.rps)} / {fmt.rps(theirs.rps)}",
        fmt.ratio(mine.rps / theirs.rps),
        f"{fmt.ms(mine.p999)} / {fmt.ms(theirs.p999)}",
        fmt.ratio(mine.p999 / theirs.p999),
        str(min(mine.entry.rounds_ok, theirs.entry.rounds_ok)),
    ]


def matched_table(results: RunResults) -> Table | None:
    pairs = pairs_swept(results)
    if not pairs:
        return None
    open_mode = results.open_mode
    columns = [
        col.PAIR,
        col.Column(
            "matched setting",
            "What both SDKs ran with: gRPC (each SDK's gRPC transport, ours / official), "
            "channels, cap (ours / official where they differ but limit alike) and load.",
        ),
        *col.RATIO_COLUMNS,
    ]
    rows = []
    for ours, official in pairs:
        found = matched(results, ours, official)
        if not found:
            rows.append(
                Row(
                    [f"{ours} / {official}"],
                    statement="No setting was measured for both over gRPC.",
                    css_class="unmet",
                )
            )
            continue
        for mine, theirs in found:
            shared = _matched_setting(mine.entry, theirs.entry, open_mode)
            rows.append(Row([f"{ours} / {official}", shared, *_ratio_cells(mine, theirs)]))
    return Table("matched", columns, rows, text_columns=(0, 1))


def ratios(results: RunResults) -> list[Ratio]:
    """Ours / official at each target where both have a point under it (the best of each)."""
    best = {(r.sdk, r.target_ms): r.point for r in results.recommendations if r.point is not None}
    found = []
    for ours, official in SDK_PAIRS:
        for target in results.targets_ms:
            mine, theirs = best.get((ours, target)), best.get((official, target))
            if mine is None or theirs is None:
                continue
            found.append(Ratio(ours, official, target, Side(mine), Side(theirs)))
    return found


def best_table(results: RunResults) -> Table | None:
    pairs = pairs_swept(results)
    if not pairs:
        return None
    open_mode = results.open_mode
    found = {(r.ours, r.target_ms): r for r in ratios(results)}
    met = {(r.sdk, r.target_ms) for r in results.recommendations if r.met}
    columns = [
        col.PAIR,
        col.TARGET,
        col.OURS,
        col.OFFICIAL,
        *col.RATIO_COLUMNS,
    ]
    rows = []
    for ours, official in pairs:
        for target in results.targets_ms:
            ratio = found.get((ours, target))
            head = [ratio.pair if ratio else f"{ours} / {official}", fmt.target(target)]
            if ratio is None:
                statement = _no_ratio(ours, official, target, met)
                rows.append(Row(head, statement=statement, css_class="unmet"))
                continue
            cells = [
                *head,
                setting(ratio.mine.entry, open_mode),
                setting(ratio.theirs.entry, open_mode),
                *_ratio_cells(ratio.mine, ratio.theirs),
            ]
            rows.append(Row(cells))
    return Table("best-of-each", columns, rows, text_columns=(0, 1, 2, 3))


def _no_ratio(ours: str, official: str, target: float, met: set[tuple[str, float]]) -> str:
    missing: Sequence[str] = [sdk for sdk in (ours, official) if (sdk, target) not in met]
    return f"No ratio: {' and '.join(missing)} met no configuration under {target:g} ms."
