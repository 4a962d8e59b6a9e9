"""The live display on stderr: current point, points done, elapsed, ETA, last result."""

from __future__ import annotations

from collections.abc import Iterable
from types import TracebackType
from typing import Any

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from jiffy_tune.plan import PointSpec


def point_line(point: dict[str, Any]) -> str:
    where = f"{point['sdk']} ch={point['channels']} c={point['concurrency']}"
    if point["rate"] is not None:
        where += f" rate={point['rate']:,.0f}/s"
    if point["status"] != "ok":
        return f"{where}: failed: {(point['error'] or '').splitlines()[0][:100]}"
    line = f"{where}: {point['rps']:,.0f} rps, p99.9 {point['client_ms']['p999']:g} ms"
    if point["server_ms"] and point["server_ms"]["p999"] is not None:
        line += f" (server {point['server_ms']['p999']:g} ms)"
    if point["errors_total"]:
        line += f", {point['errors_total']} errors"
    return line


class _ProgressWithLastPoint(Progress):
    """A Progress whose bar is followed by a line with the last point's numbers."""

    last = ""

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        if self.last:
            yield Text(f"  last: {self.last}", style="dim")


class SweepProgress:
    """Observer of a sweep (jiffy_tune.sweep.Observer) drawing with rich."""

    def __init__(self, console: Console | None = None) -> None:
        self._progress = _ProgressWithLastPoint(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
        )
        self._task = self._progress.add_task("starting", total=None)

    def __enter__(self) -> SweepProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def total(self, points: int) -> None:
        self._progress.update(self._task, total=points)

    def started(self, spec: PointSpec) -> None:
        self._progress.update(self._task, description=spec.label())

    def finished(self, point: dict[str, Any]) -> None:
        self._progress.last = point_line(point)
        self._progress.advance(self._task)
