"""The live display on stderr: current point, points done, elapsed, ETA, last result."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from types import TracebackType

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from jiffy_tune import transports
from jiffy_tune.model import Point
from jiffy_tune.plan import PointSpec


def point_line(point: Point) -> str:
    over = transports.named(point.sdk, point.transport)
    where = f"{point.sdk}{f' {over}' if over else ''} ch={point.channels} c={point.concurrency}"
    if point.rate is not None:
        where += f" rate={point.rate:,.0f}/s"
    if not point.ok or point.client_ms is None:
        # One line: the reason and the loadgen's exception line (results before
        # schema 1's stderr_excerpt kept the whole stderr tail in `error`).
        error = next(iter((point.error or "").splitlines()), "") or "no error recorded"
        return f"{where}: failed: {error}"
    line = f"{where}: {point.rps or 0.0:,.0f} rps, p99.9 {point.client_ms.p999:g} ms"
    if point.server_ms and point.server_ms.p999 is not None:
        line += f" (server {point.server_ms.p999:g} ms)"
    if point.errors_total:
        line += f", {point.errors_total} errors"
    return line


class EtaColumn(ProgressColumn):
    """Time left: points left x the mean time per point so far.

    Before the first point ends, the caller's estimate per point stands in, so
    the ETA shows from the start (rich's own column waits for a measured speed).
    """

    def render(self, task: Task) -> Text:
        if task.total is None or task.elapsed is None:
            return Text("ETA -:--:--")
        left = task.total - task.completed
        if task.completed:
            seconds = task.elapsed / task.completed * left
        else:
            seconds = max(0.0, task.fields.get("point_s", 0.0) * left - task.elapsed)
        return Text(f"ETA {timedelta(seconds=round(seconds))}")


class _ProgressWithLastPoint(Progress):
    """A Progress whose bar is followed by a line with the last point's numbers."""

    last = ""

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        if self.last:
            yield Text(f"  last: {self.last}", style="dim")


class SweepProgress:
    """Observer of a sweep (jiffy_tune.sweep.Observer) drawing with rich."""

    def __init__(self, point_s: float, console: Console | None = None) -> None:
        """`point_s`: the expected seconds per point until one is measured."""
        self._progress = _ProgressWithLastPoint(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            EtaColumn(),
            console=console or Console(stderr=True),
        )
        self._task = self._progress.add_task("starting", total=None, point_s=point_s)

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

    def finished(self, point: Point) -> None:
        self._progress.last = point_line(point)
        self._progress.advance(self._task)
        console = self._progress.console
        if not console.is_terminal:
            # No live display into a pipe or a log file: one line per point instead.
            task = self._progress.tasks[0]
            total = int(task.total) if task.total is not None else "?"
            line = f"[{int(task.completed)}/{total}] {self._progress.last}"
            # Unwrapped: a log file or a test reads each point as one line.
            console.print(line, highlight=False, markup=False, soft_wrap=True)
