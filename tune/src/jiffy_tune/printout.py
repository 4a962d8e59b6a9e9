"""The end of a run on the terminal: failures, presets, the recommendation table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from jiffy_tune import adaptive, caps
from jiffy_tune.model import AutoRow, AutoSide, OpenLoopRow, Point, Recommendation, RunResults
from jiffy_tune.progress import point_line
from jiffy_tune.recommend import TransportPick, by_transport, configuration
from jiffy_tune.wording import NOT_ENOUGH_ROUNDS, higher, lower, noise_notice, noisy

# Headers carry which way is better on a line of their own, so that the
# columns stay as narrow as their numbers.
UNDER = "\n"
# Failed points listed one by one; the rest are counted (results.json has them all).
FAILURES_SHOWN = 10


def recommendation_table(recommendations: Sequence[Recommendation]) -> Table:
    table = Table(title="Recommendation: most throughput with p99.9 under the target")
    for column, justify in (
        ("SDK", "left"),
        ("target p99.9", "right"),
        (higher("rps", UNDER), "right"),
        (lower("p99.9 client", UNDER), "right"),
        (lower("p99.9 server", UNDER), "right"),
        ("transport", "left"),
        ("configuration", "left"),
        ("rounds", "right"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for rec in recommendations:
        target = f"< {rec.target_ms:g} ms"
        entry = rec.point
        if entry is None:
            table.add_row(rec.sdk, target, "-", "-", "-", "-", "[yellow]no point met it[/]", "-")
            continue
        server = entry.server_p999
        table.add_row(
            rec.sdk,
            target,
            f"{entry.rps or 0.0:,.0f}",
            f"{entry.client_p999:g} ms",
            f"{server:g} ms" if server is not None else "-",
            entry.transport,
            configuration(entry),
            _rounds_cell(entry.rounds_ok),
        )
    return table


def transport_table(rows: Sequence[TransportPick]) -> Table:
    """recommend.by_transport's rows: what each transport gives under each target."""
    table = Table(title="Each transport: most throughput with p99.9 under the target")
    for column in (
        "SDK",
        "target p99.9",
        "transport",
        higher("rps", UNDER),
        lower("p99.9 client", UNDER),
        "configuration",
    ):
        table.add_column(column)
    for row in rows:
        head = (row.sdk, f"< {row.target_ms:g} ms", row.transport)
        entry = row.point
        if entry is None:
            table.add_row(*head, "-", "-", "[yellow]no point met it[/]")
            continue
        table.add_row(
            *head,
            f"{entry.rps or 0.0:,.0f}",
            f"{entry.client_p999:g} ms",
            configuration(entry),
        )
    return table


def _rounds_cell(rounds_ok: int) -> str:
    if noisy(rounds_ok):
        return f"[yellow]{rounds_ok}: {NOT_ENOUGH_ROUNDS}[/]"
    return str(rounds_ok)


def open_loop_table(rows: Sequence[OpenLoopRow]) -> Table:
    table = Table(title="Open loop: highest offered rate with p99.9 under the target")
    # A cap column only when the sweep ran a ladder per cap.
    with_cap = len({caps.label(row.max_concurrent_requests) for row in rows}) > 1
    for column in (
        "SDK",
        "transport",
        "channels",
        *(["cap"] if with_cap else []),
        "target p99.9",
        higher("max rate met", UNDER),
        higher("achieved rps", UNDER),
        lower("p99.9", UNDER),
    ):
        table.add_column(column)
    for row in rows:
        met = row.max_rate_met
        table.add_row(
            row.sdk,
            row.transport,
            str(row.channels),
            *([caps.label(row.max_concurrent_requests)] if with_cap else []),
            f"< {row.target_ms:g} ms",
            f"{met:,.0f}/s" if met is not None else "none",
            f"{row.achieved_rps:,.0f}" if row.achieved_rps is not None else "-",
            f"{row.client_p999_ms:g} ms" if row.client_p999_ms is not None else "-",
        )
    return table


def auto_table(rows: Sequence[AutoRow], open_mode: bool) -> Table:
    """adaptive.compare's rows: auto against the best fixed cap, under each target."""
    goal = f"{adaptive.GOAL_SHARE * 100:.0f}%"
    table = Table(title=f"auto against the best fixed cap (goal: {goal} of its throughput)")
    load = "rate" if open_mode else "c"
    for column in (
        "SDK",
        "transport",
        "channels",
        "target p99.9",
        higher("auto rps", UNDER),
        "best fixed cap",
        higher("its rps", UNDER),
        higher("auto / cap", UNDER),
        "goal met",
    ):
        table.add_column(column)
    for row in rows:
        auto, best = row.auto, row.best_cap
        table.add_row(
            row.sdk,
            row.transport,
            str(row.channels),
            f"< {row.target_ms:g} ms",
            _side_rps(auto, load) if auto else "[yellow]none met it[/]",
            caps.label(best.max_concurrent_requests) if best else "-",
            _side_rps(best, load) if best else "[yellow]none met it[/]",
            f"{row.share * 100:.0f}%" if row.share is not None else "-",
            adaptive.verdict(row),
        )
    return table


def _side_rps(side: AutoSide, load: str) -> str:
    where = f"rate={side.rate or 0.0:,.0f}" if load == "rate" else f"c={side.concurrency}"
    return f"{side.rps:,.0f} ({where})"


def print_failures(console: Console, points: Sequence[Point]) -> None:
    """Each failed point's error, and under it the first and last lines of its
    loadgen's stderr (once: later points with the same stderr refer back)."""
    failed = [point for point in points if not point.ok]
    if not failed:
        return
    console.print(f"[red]{len(failed)} of {len(points)} points failed[/]:")
    shown: dict[str, int] = {}
    for point in failed[:FAILURES_SHOWN]:
        line = f"  point {point.id}: {point_line(point)}"
        console.print(line, highlight=False, markup=False, soft_wrap=True)
        excerpt = point.stderr_excerpt
        if not excerpt:
            continue
        if excerpt in shown:
            console.print(f"    (stderr as point {shown[excerpt]})", style="dim", highlight=False)
            continue
        shown[excerpt] = point.id
        for line in excerpt.splitlines():
            console.print(
                f"    | {line}", style="dim", highlight=False, markup=False, soft_wrap=True
            )
    if len(failed) > FAILURES_SHOWN:
        console.print(
            f"  ... and {len(failed) - FAILURES_SHOWN} more (results.json has every error)"
        )


def print_results(console: Console, results: RunResults) -> None:
    """Presets first, tables last: the table is what a terminal should end on."""
    print_failures(console, results.points)
    for rec in results.recommendations:
        console.print(rec.statement, highlight=False, soft_wrap=True)
        if rec.preset is not None:
            console.print(Syntax(rec.preset.code, rec.preset.language, theme="ansi_dark"))
    rounds = results.settings.rounds
    if noisy(rounds) and results.points:
        console.print(f"[yellow]{noise_notice(rounds)}[/]", highlight=False, soft_wrap=True)
    if results.open_loop is not None:
        console.print(open_loop_table(results.open_loop))
    compared_auto = adaptive.of_results(results)
    if compared_auto:
        for row in compared_auto:
            line = f"{row.sdk} {row.transport} ch={row.channels} "
            line += f"p99.9 < {row.target_ms:g} ms: {adaptive.sentence(row)}"
            console.print(line, highlight=False, markup=False, soft_wrap=True)
        console.print(auto_table(compared_auto, results.open_mode))
    if results.recommendations:
        compared = by_transport(results.settings.sdks, results.summary, results.targets_ms)
        if compared:
            console.print(transport_table(compared))
        console.print(recommendation_table(results.recommendations))
