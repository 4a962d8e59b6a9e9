"""The end of a run on the terminal: failures with their stderr, noise, table directions."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

from conftest import parsed, recorded
from rich.console import Console

from jiffy_tune.model import OpenLoopRow, Point
from jiffy_tune.plan import PointSpec
from jiffy_tune.printout import (
    open_loop_table,
    print_failures,
    print_results,
    recommendation_table,
)
from jiffy_tune.runner import empty_point

REFUSED = (
    "Traceback (most recent call last):\n[... 20 lines ...]\n"
    '  File "/repo/jiffy/_async_transport.py", line 132, in connect\n'
    "jiffy.ConnectionError: could not connect to 127.0.0.1:9 [refused]"
)


def open_loop_of(run: dict[str, Any]) -> list[OpenLoopRow]:
    return parsed(run).open_loop or []


def printed(call: Any, *args: Any) -> str:
    out = io.StringIO()
    call(Console(file=out, width=200, force_terminal=False), *args)
    return out.getvalue()


def failed(point_id: int, concurrency: int, excerpt: str | None) -> Point:
    point = empty_point(PointSpec("jiffy-python", 1, concurrency, concurrency, None, 0))
    headline = excerpt.splitlines()[-1] if excerpt else "no output"
    return replace(point, id=point_id, error=f"exit status 1: {headline}", stderr_excerpt=excerpt)


def test_each_failure_shows_its_error_and_its_stderr_once() -> None:
    points = [failed(0, 1, REFUSED), failed(1, 2, REFUSED), failed(2, 5, None)]

    lines = printed(print_failures, points).splitlines()

    assert lines[0] == "3 of 3 points failed:"
    assert lines[1] == (
        "  point 0: jiffy-python ch=1 c=1: failed: exit status 1: "
        "jiffy.ConnectionError: could not connect to 127.0.0.1:9 [refused]"
    )
    # Brackets in stderr are text, not console markup.
    assert lines[2:6] == [f"    | {line}" for line in REFUSED.splitlines()]
    assert lines[6].startswith("  point 1: jiffy-python ch=1 c=2: failed: exit status 1: ")
    assert lines[7] == "    (stderr as point 0)"
    assert lines[8] == "  point 2: jiffy-python ch=1 c=5: failed: exit status 1: no output"
    assert len(lines) == 9


def test_a_one_round_sweep_is_called_noisy_before_its_tables() -> None:
    run = recorded("closed_4sdk.json")
    run["settings"]["rounds"] = 1

    text = printed(print_results, parsed(run))

    notice = "Noisy: 1 round per point. Every figure comes from a single run of its point"
    assert notice in text
    assert "--rounds 3 or more" in text
    assert text.index(notice) < text.index("Recommendation: most throughput")


def test_a_3_round_sweep_has_no_noise_notice() -> None:
    run = recorded("closed_4sdk.json")
    run["settings"]["rounds"] = 3
    assert "Noisy: " not in printed(print_results, parsed(run))


def test_the_console_tables_say_which_direction_is_better() -> None:
    run = recorded("closed_4sdk.json")
    headers = [
        column.header for column in recommendation_table(parsed(run).recommendations).columns
    ]
    assert headers[2:5] == [
        "rps\n(higher is better)",
        "p99.9 client\n(lower is better)",
        "p99.9 server\n(lower is better)",
    ]
    open_run = recorded("open_2sdk.json")
    headers = [column.header for column in open_loop_table(open_loop_of(open_run)).columns]
    assert headers[4:] == [
        "max rate met\n(higher is better)",
        "achieved rps\n(higher is better)",
        "p99.9\n(lower is better)",
    ]
    text = printed(print_results, parsed(run))
    assert "(higher is better)" in text
    assert "(lower is better)" in text


def test_a_sweep_over_transports_names_them_and_compares_them() -> None:
    run = recorded("closed_transports.json")

    text = printed(print_results, parsed(run))

    assert "Each transport: most throughput with p99.9 under the target" in text
    assert text.index("Each transport") < text.index("Recommendation: most throughput")
    headers = [
        column.header for column in recommendation_table(parsed(run).recommendations).columns
    ]
    assert headers[5] == "transport"
    for rec in run["recommendations"]:
        if rec["met"]:
            assert f" over {rec['transport']} with " in rec["statement"]
            assert rec["statement"] in text


def test_an_open_loop_sweep_of_caps_shows_each_cap_and_auto_against_the_best() -> None:
    run = recorded("open_2sdk.json")
    caps = ["auto", 50]
    rows = [{**row, "max_concurrent_requests": cap} for row in run["open_loop"] for cap in caps]
    headers = [
        column.header
        for column in open_loop_table(open_loop_of({**run, "open_loop": rows})).columns
    ]
    assert headers[:5] == ["SDK", "transport", "channels", "cap", "target p99.9"]
    # One cap, as before: no cap column.
    assert "cap" not in [column.header for column in open_loop_table(open_loop_of(run)).columns]

    summary = run["summary"] + [{**e, "max_concurrent_requests": "auto"} for e in run["summary"]]
    text = printed(print_results, parsed({**run, "summary": summary, "open_loop": rows}))
    assert "auto against the best fixed cap (goal: 90% of its throughput)" in text
    assert "= 100% of no cap's " in text


def test_a_point_of_fewer_than_3_rounds_is_not_recommended_on_the_console() -> None:
    run = recorded("closed_4sdk.json")  # 2 rounds
    table = recommendation_table(parsed(run).recommendations)
    rounds = [str(cell) for cell in table.columns[-1].cells]
    met = [rec for rec in run["recommendations"] if rec["met"]]
    assert met
    assert rounds.count("[yellow]2: not enough rounds to recommend[/]") == len(met)
