"""The report's tables, one builder per table, each cell already formatted as text.

`Row.statement` carries the sentence that stands in for the numbers when there
are none (a target nothing met, a ratio that cannot be taken), so neither
rendering can leave such a row blank.
"""

from __future__ import annotations

from dataclasses import dataclass

from jiffy_tune import adaptive
from jiffy_tune.model import AutoSide, Point, RunResults, SummaryEntry
from jiffy_tune.recommend import by_transport, configuration, too_few_rounds
from jiffy_tune.report import columns as col
from jiffy_tune.report import formatting as fmt
from jiffy_tune.report.columns import Column


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
    columns: list[Column]
    rows: list[Row]
    # Columns holding words rather than numbers: aligned left, the rest right.
    text_columns: tuple[int, ...] = (0,)


def server_measured(results: RunResults) -> bool:
    return any(entry.server_p999 is not None for entry in results.summary)


def _load_cell(entry: SummaryEntry | Point, open_mode: bool) -> str:
    return fmt.rps(entry.rate) if open_mode else str(entry.concurrency)


def recommendation_table(results: RunResults, open_mode: bool) -> Table:
    columns = [
        col.SDK,
        col.TARGET,
        col.TRANSPORT,
        col.CHANNELS,
        col.CAP,
        col.load(open_mode),
        col.THROUGHPUT_RANGED,
        col.CLIENT_P999_RANGED,
        col.SERVER_P999,
        col.CLIENT_SHARE,
        col.ROUNDS,
    ]
    rows = []
    for rec in results.recommendations:
        head = [rec.sdk, fmt.target(rec.target_ms)]
        point = rec.point
        if point is None:
            rows.append(Row(head, statement=rec.statement, css_class="unmet"))
            continue
        if not rec.recommended:
            # Too few rounds to recommend what met the target (said so even when
            # the results were written before a recommendation took 3 rounds).
            statement = too_few_rounds(rec.sdk, point, rec.target_ms)
            rows.append(Row(head, statement=statement, css_class="unmet"))
            continue
        rows.append(
            Row(
                [
                    *head,
                    point.transport,
                    str(point.channels),
                    fmt.cap(point.max_concurrent_requests),
                    _load_cell(point, open_mode),
                    fmt.ranged(fmt.rps(point.rps), fmt.rps_range(point.rps_spread)),
                    fmt.ranged(fmt.ms(point.client_p999), fmt.ms_range(point.client_p999_spread)),
                    fmt.ms(point.server_p999),
                    fmt.share(point.client_share_p999),
                    str(point.rounds_ok),
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
        col.SDK,
        col.TARGET,
        col.TRANSPORT,
        col.THROUGHPUT,
        col.CLIENT_P999,
        col.CONFIGURATION,
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


def open_loop_table(results: RunResults) -> Table | None:
    entries = results.open_loop
    if not entries:
        return None
    # A cap column only when the sweep ran a ladder per cap.
    with_cap = len({fmt.cap(entry.max_concurrent_requests) for entry in entries}) > 1
    columns = col.open_loop_columns(with_cap)
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
    columns = col.auto_columns(open_mode)
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
        col.SDK,
        col.TRANSPORT,
        col.CHANNELS,
        col.CAP,
        col.load(open_mode),
        col.ROUNDS_OK,
        col.THROUGHPUT,
        col.CLIENT_P50,
        col.CLIENT_P99,
        col.CLIENT_P999,
        col.SPREAD,
        col.SERVER_P50,
        col.SERVER_P999,
        col.CLIENT_SHARE,
        col.ERRORS,
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
                    fmt.spread(entry),
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


def _point_columns(open_mode: bool) -> list[Column]:
    """The columns of `_point_head`: which point, of which configuration and round."""
    return [col.POINT, col.SDK, col.TRANSPORT, col.CHANNELS, col.load(open_mode), col.ROUND]


def failed_table(results: RunResults, open_mode: bool) -> Table | None:
    failed = [p for p in results.points if not p.ok]
    if not failed:
        return None
    columns = [*_point_columns(open_mode), col.ERROR]
    rows = [
        Row([*_point_head(p, open_mode), p.error or "no error recorded"], css_class="failed")
        for p in failed
    ]
    return Table("failed-points", columns, rows, text_columns=(1, 2, 6))


def request_error_table(results: RunResults, open_mode: bool) -> Table | None:
    with_errors = [p for p in results.points if p.ok and p.errors_total]
    if not with_errors:
        return None
    columns = [*_point_columns(open_mode), col.ERRORS_BY_STATUS]
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
