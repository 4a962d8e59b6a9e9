"""The report's tables, one builder per table, each cell already formatted as text.

`Row.statement` carries the sentence that stands in for the numbers when there
are none (a target nothing met, a ratio that cannot be taken), so neither
rendering can leave such a row blank.
"""

from __future__ import annotations

from dataclasses import dataclass

from jiffy_tune import adaptive, transports
from jiffy_tune.model import AutoSide, Point, RunResults, SummaryEntry
from jiffy_tune.recommend import by_transport, configuration
from jiffy_tune.report import formatting as fmt
from jiffy_tune.wording import higher, lower, noisy

# Ours beside the official SDK for the same language: the comparison the
# report exists to make.
SDK_PAIRS = (("jiffy-python", "momento-python"), ("jiffy-js", "momento-js"))


@dataclass(frozen=True)
class Row:
    cells: list[str]
    # When set, the row shows its first `len(cells)` cells and then this sentence
    # across the remaining columns (an unmet target, a ratio that cannot be taken).
    statement: str | None = None
    css_class: str = ""


@dataclass(frozen=True)
class Table:
    id: str
    columns: list[str]
    rows: list[Row]
    # Columns holding words rather than numbers: aligned left, the rest right.
    text_columns: tuple[int, ...] = (0,)


@dataclass(frozen=True)
class Ratio:
    ours: str
    official: str
    target_ms: float
    ours_rps: float
    official_rps: float
    ours_p999_ms: float
    official_p999_ms: float
    # The transport of our recommended configuration (the official SDKs speak gRPC only).
    ours_transport: str = ""

    @property
    def pair(self) -> str:
        """The row's label: ours (over a transport other than its default) / official."""
        over = transports.named(self.ours, self.ours_transport or transports.default(self.ours))
        return f"{self.ours}{f' over {over}' if over else ''} / {self.official}"

    @property
    def rps_ratio(self) -> float:
        return self.ours_rps / self.official_rps

    @property
    def p999_ratio(self) -> float:
        return self.ours_p999_ms / self.official_p999_ms


def server_measured(results: RunResults) -> bool:
    return any(entry.server_p999 is not None for entry in results.summary)


def ratios(results: RunResults) -> list[Ratio]:
    """Ours / official at each target where both have a recommendation."""
    met = {(r.sdk, r.target_ms): r.point for r in results.recommendations if r.point is not None}
    found = []
    for ours, official in SDK_PAIRS:
        for target in results.targets_ms:
            mine, theirs = met.get((ours, target)), met.get((official, target))
            if mine is None or theirs is None:
                continue
            found.append(
                Ratio(
                    ours=ours,
                    official=official,
                    target_ms=target,
                    ours_rps=mine.rps or 0.0,
                    official_rps=theirs.rps or 0.0,
                    ours_p999_ms=mine.client_p999 or 0.0,
                    official_p999_ms=theirs.client_p999 or 0.0,
                    ours_transport=mine.transport,
                )
            )
    return found


def _load_column(open_mode: bool) -> str:
    return "offered rate" if open_mode else "concurrency"


def _load_cell(entry: SummaryEntry | Point, open_mode: bool) -> str:
    return fmt.rps(entry.rate) if open_mode else str(entry.concurrency)


def recommendation_table(results: RunResults, open_mode: bool) -> Table:
    columns = [
        "SDK",
        "target",
        "transport",
        "channels",
        "cap",
        _load_column(open_mode),
        higher("throughput"),
        lower("client p99.9"),
        lower("server p99.9"),
        lower("client share"),
        "rounds",
    ]
    rows = []
    for rec in results.recommendations:
        head = [rec.sdk, fmt.target(rec.target_ms)]
        point = rec.point
        if point is None:
            rows.append(Row(head, statement=rec.statement, css_class="unmet"))
            continue
        rows.append(
            Row(
                [
                    *head,
                    point.transport,
                    str(point.channels),
                    fmt.cap(point.max_concurrent_requests),
                    _load_cell(point, open_mode),
                    fmt.rps(point.rps),
                    fmt.ms(point.client_p999),
                    fmt.ms(point.server_p999),
                    fmt.share(point.client_share_p999),
                    rounds_cell(point.rounds_ok),
                ],
                css_class="met",
            )
        )
    return Table("recommendations", columns, rows, text_columns=(0, 1, 2))


def transport_table(results: RunResults) -> Table | None:
    """Per SDK swept over more than one transport: each transport's best under each target."""
    rows_found = by_transport(results.settings.sdks, results.summary, results.targets_ms)
    if not rows_found:
        return None
    columns = [
        "SDK",
        "target",
        "transport",
        higher("throughput"),
        lower("client p99.9"),
        "configuration",
    ]
    rows = []
    for found in rows_found:
        head = [found.sdk, fmt.target(found.target_ms), found.transport]
        point = found.point
        if point is None:
            rows.append(Row(head, statement="No configuration met the target.", css_class="unmet"))
            continue
        rows.append(
            Row(
                [
                    *head,
                    fmt.rps(point.rps),
                    fmt.ms(point.client_p999),
                    configuration(point),
                ],
                css_class="met",
            )
        )
    return Table("transports", columns, rows, text_columns=(0, 1, 2, 5))


def rounds_cell(rounds_ok: int) -> str:
    """The ok rounds behind a figure, marked when too few to count as a measurement."""
    return f"{rounds_ok} (noisy)" if noisy(rounds_ok) else str(rounds_ok)


def ratio_table(results: RunResults) -> Table | None:
    sdks = set(results.settings.sdks)
    pairs = [(ours, official) for ours, official in SDK_PAIRS if {ours, official} <= sdks]
    if not pairs:
        return None
    found = {(r.ours, r.target_ms): r for r in ratios(results)}
    met = {(r.sdk, r.target_ms) for r in results.recommendations if r.met}
    columns = [
        "ours / official",
        "target",
        "throughput, ours / official",
        "throughput ratio (above 1: ours is higher, better)",
        "client p99.9, ours / official",
        "p99.9 ratio (below 1: ours is lower, better)",
    ]
    rows = []
    for ours, official in pairs:
        for target in results.targets_ms:
            ratio = found.get((ours, target))
            head = [ratio.pair if ratio else f"{ours} / {official}", fmt.target(target)]
            if ratio is None:
                missing = [sdk for sdk in (ours, official) if (sdk, target) not in met]
                rows.append(
                    Row(
                        head,
                        statement=f"No ratio: {' and '.join(missing)} met no configuration "
                        f"under {target:g} ms.",
                        css_class="unmet",
                    )
                )
                continue
            rows.append(
                Row(
                    [
                        *head,
                        f"{fmt.rps(ratio.ours_rps)} / {fmt.rps(ratio.official_rps)}",
                        fmt.ratio(ratio.rps_ratio),
                        f"{fmt.ms(ratio.ours_p999_ms)} / {fmt.ms(ratio.official_p999_ms)}",
                        fmt.ratio(ratio.p999_ratio),
                    ]
                )
            )
    return Table("ratios", columns, rows, text_columns=(0, 1))


def open_loop_table(results: RunResults) -> Table | None:
    entries = results.open_loop
    if not entries:
        return None
    columns = [
        "SDK",
        "transport",
        "channels",
        "target",
        higher("highest offered rate met"),
        higher("throughput"),
        lower("client p99.9"),
    ]
    # A cap column only when the sweep ran a ladder per cap.
    with_cap = len({fmt.cap(entry.max_concurrent_requests) for entry in entries}) > 1
    if with_cap:
        columns.insert(3, "cap")
    rows = []
    for entry in entries:
        head = [
            entry.sdk,
            entry.transport,
            str(entry.channels),
            *([fmt.cap(entry.max_concurrent_requests)] if with_cap else []),
            fmt.target(entry.target_ms),
        ]
        if entry.max_rate_met is None:
            rows.append(Row(head, statement="No offered rate met the target.", css_class="unmet"))
            continue
        rows.append(
            Row(
                [
                    *head,
                    fmt.rps(entry.max_rate_met),
                    fmt.rps(entry.achieved_rps),
                    fmt.ms(entry.client_p999_ms),
                ],
                css_class="met",
            )
        )
    return Table("open-loop", columns, rows, text_columns=(0, 1, 4) if with_cap else (0, 1, 3))


def auto_table(results: RunResults) -> Table | None:
    """auto against the best fixed cap under each target (adaptive.compare's rows)."""
    found = adaptive.of_results(results)
    if not found:
        return None
    open_mode = results.open_mode
    load = _load_column(open_mode)
    columns = [
        "SDK",
        "transport",
        "channels",
        "target",
        higher("auto throughput"),
        lower("auto client p99.9"),
        f"auto {load}",
        "auto's last limit",
        "best fixed cap",
        higher("its throughput"),
        f"its {load}",
        higher("auto / best fixed cap"),
        f"goal: {fmt.percent(adaptive.GOAL_SHARE)} or more",
    ]
    rows = []
    for row in found:
        head = [row.sdk, row.transport, str(row.channels), fmt.target(row.target_ms)]
        auto, best = row.auto, row.best_cap
        if auto is None and best is None:
            rows.append(Row(head, statement=adaptive.sentence(row) + ".", css_class="unmet"))
            continue
        cells = [*head]
        if auto is None:
            cells += ["no point met it", fmt.MISSING, fmt.MISSING, fmt.MISSING]
        else:
            cells += [
                fmt.rps(auto.rps),
                fmt.ms(auto.client_p999_ms),
                _side_load(auto, open_mode),
                fmt.count(auto.in_flight_limit_last),
            ]
        if best is None:
            cells += ["no point met it", fmt.MISSING, fmt.MISSING]
        else:
            cells += [
                fmt.cap(best.max_concurrent_requests),
                fmt.rps(best.rps),
                _side_load(best, open_mode),
            ]
        cells += [fmt.percent(row.share), adaptive.verdict(row)]
        rows.append(Row(cells, css_class="met" if row.meets_goal else "unmet"))
    return Table("auto", columns, rows, text_columns=(0, 1, 3, 12))


def _side_load(side: AutoSide, open_mode: bool) -> str:
    return fmt.rps(side.rate) if open_mode else str(side.concurrency)


def summary_table(results: RunResults, open_mode: bool) -> Table:
    columns = [
        "SDK",
        "transport",
        "channels",
        "cap",
        _load_column(open_mode),
        "rounds ok",
        higher("throughput"),
        lower("client p50"),
        lower("client p99"),
        lower("client p99.9"),
        lower("server p50"),
        lower("server p99.9"),
        lower("client share"),
        lower("errors"),
    ]
    rows = []
    for entry in results.summary:
        client, server = entry.client_ms, entry.server_ms
        rows.append(
            Row(
                [
                    entry.sdk,
                    entry.transport,
                    str(entry.channels),
                    fmt.cap(entry.max_concurrent_requests),
                    _load_cell(entry, open_mode),
                    f"{entry.rounds_ok} of {entry.rounds_ok + entry.rounds_failed}",
                    fmt.rps(entry.rps),
                    fmt.ms(client.p50 if client else None),
                    fmt.ms(client.p99 if client else None),
                    fmt.ms(client.p999 if client else None),
                    fmt.ms(server.p50 if server else None),
                    fmt.ms(server.p999 if server else None),
                    fmt.share(entry.client_share_p999),
                    fmt.count(entry.errors_total),
                ],
                css_class="failed" if entry.rounds_ok == 0 else "",
            )
        )
    return Table("summary", columns, rows, text_columns=(0, 1))


def _point_head(point: Point, open_mode: bool) -> list[str]:
    return [
        str(point.id),
        point.sdk,
        point.transport,
        str(point.channels),
        _load_cell(point, open_mode),
        str(point.round),
    ]


def failed_table(results: RunResults, open_mode: bool) -> Table | None:
    failed = [p for p in results.points if not p.ok]
    if not failed:
        return None
    columns = ["point", "SDK", "transport", "channels", _load_column(open_mode), "round", "error"]
    rows = [
        Row([*_point_head(p, open_mode), p.error or "no error recorded"], css_class="failed")
        for p in failed
    ]
    return Table("failed-points", columns, rows, text_columns=(1, 2, 6))


def request_error_table(results: RunResults, open_mode: bool) -> Table | None:
    with_errors = [p for p in results.points if p.ok and p.errors_total]
    if not with_errors:
        return None
    columns = [
        "point",
        "SDK",
        "transport",
        "channels",
        _load_column(open_mode),
        "round",
        "errors by status",
    ]
    rows = [
        Row(
            [
                *_point_head(p, open_mode),
                ", ".join(f"{name} {n:,}" for name, n in sorted(p.errors.items()) if n),
            ]
        )
        for p in with_errors
    ]
    return Table("request-errors", columns, rows, text_columns=(1, 2, 6))
