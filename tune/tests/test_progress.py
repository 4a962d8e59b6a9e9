from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console
from rich.progress import Progress

from jiffy_tune.loadgen_report import Percentiles
from jiffy_tune.model import Point, ServerLatency
from jiffy_tune.plan import PointSpec, closed_grid
from jiffy_tune.progress import EtaColumn, SweepProgress, point_line
from jiffy_tune.runner import empty_point
from jiffy_tune.sweep import run_closed


def ok_point(spec: PointSpec) -> Point:
    return replace(
        empty_point(spec),
        status="ok",
        rps=12345.6,
        client_ms=Percentiles(p50=1.0, p90=1.0, p99=1.0, p999=2.5, max=3.0),
        server_ms=ServerLatency(p50=0.01, p99=0.02, p999=0.05, count=10, resolution="", window=""),
    )


def test_the_eta_starts_from_the_estimate_per_point() -> None:
    progress = Progress(EtaColumn())
    task_id = progress.add_task("x", total=4, point_s=30.0)
    [task] = progress.tasks
    assert task.id == task_id
    assert str(EtaColumn().render(task)) == "ETA 0:02:00"


def test_the_eta_is_unknown_without_a_total() -> None:
    progress = Progress(EtaColumn())
    progress.add_task("x", total=None, point_s=30.0)
    assert str(EtaColumn().render(progress.tasks[0])) == "ETA -:--:--"


def test_point_lines_say_what_was_measured() -> None:
    spec = PointSpec("jiffy-js", 2, 10, 10, None, 0)
    assert point_line(ok_point(spec)) == (
        "jiffy-js ch=2 c=10: 12,346 rps, p99.9 2.5 ms (server 0.05 ms)"
    )
    failed = replace(empty_point(spec), error="exit status 1: boom\nTraceback ...")
    assert point_line(failed) == "jiffy-js ch=2 c=10: failed: exit status 1: boom"
    failed = replace(failed, error=None)
    assert point_line(failed) == "jiffy-js ch=2 c=10: failed: no error recorded"


def test_the_display_follows_a_sweep() -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=False)
    plan = closed_grid(["a", "b"], [1], [1], None, rounds=1)
    with SweepProgress(1.0, console) as progress:
        sweep = run_closed(plan, ok_point, progress)
    assert len(sweep.points) == 2
    text = out.getvalue()
    assert "2/2" in text
    assert "last: b ch=1 c=1: 12,346 rps" in text


def test_into_a_pipe_each_point_gets_a_line() -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=False)
    plan = closed_grid(["a", "b"], [1], [1], None, rounds=1)
    with SweepProgress(1.0, console) as progress:
        run_closed(plan, ok_point, progress)
    lines = out.getvalue().splitlines()
    assert "[1/2] a ch=1 c=1: 12,346 rps, p99.9 2.5 ms (server 0.05 ms)" in lines
    assert "[2/2] b ch=1 c=1: 12,346 rps, p99.9 2.5 ms (server 0.05 ms)" in lines
