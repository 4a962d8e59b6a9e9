"""`auto` against the best fixed cap, on a recorded run with auto twins of its points."""

from __future__ import annotations

import copy
import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import as_entry, parsed, recorded
from conftest import points as points_of
from rich.console import Console
from test_report import Page

from jiffy_tune import adaptive, results
from jiffy_tune import recommend as rule
from jiffy_tune.loadgen_report import Percentiles
from jiffy_tune.model import AutoRow, Point, RunResults
from jiffy_tune.plan import LadderSettings, PointSpec
from jiffy_tune.printout import print_results
from jiffy_tune.report import write_report
from jiffy_tune.runner import empty_point
from jiffy_tune.summary import summarize
from jiffy_tune.sweep import OpenLoopPlan, open_loop_results, run_open

LIMITS = [[0.0, 4], [0.1, 8], [0.2, 16], [1.5, 12]]


def with_auto(
    run: dict[str, Any], factors: dict[str, float], p999: float | None = None
) -> dict[str, Any]:
    """The recorded closed run (c=1,10, ch=1,2, 2 rounds, cap = concurrency) with an
    auto twin of each point of the SDKs in `factors`: its rps times the factor, the
    same latency (or client p99.9 `p999`), and a limit history."""
    twins = []
    for point in run["points"]:
        if point["sdk"] not in factors:
            continue
        twin = copy.deepcopy(point)
        twin.update(max_concurrent_requests="auto", in_flight_limit=LIMITS)
        if twin["status"] == "ok":
            twin["rps"] = round(point["rps"] * factors[point["sdk"]], 3)
            if p999 is not None:
                twin["client_ms"]["p999"] = p999
        twins.append(twin)
    points = [{**p, "id": i} for i, p in enumerate(run["points"] + twins)]
    summary = [e.as_json() for e in summarize(points_of({"points": points}))]
    settings = {**run["settings"], "max_concurrent_requests": ["auto", 1, 10]}
    return {**run, "points": points, "summary": summary, "settings": settings}


def rows_by(rows: list[AutoRow]) -> dict[tuple[str, int, float], AutoRow]:
    return {(r.sdk, r.channels, r.target_ms): r for r in rows}


def compare(summary: list[dict[str, Any]], targets_ms: list[float], mode: str) -> list[AutoRow]:
    """adaptive.compare over a summary as results.json keeps it."""
    return adaptive.compare([as_entry(e) for e in summary], targets_ms, mode)


def recommend(sdk: str, summary: list[dict[str, Any]], target_ms: float) -> dict[str, Any]:
    return rule.recommend(sdk, [as_entry(e) for e in summary], target_ms).as_json()


def test_auto_s_share_of_the_best_fixed_cap_per_sdk_channels_and_target() -> None:
    run = with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 0.95, "jiffy-js": 0.8})

    rows = compare(run["summary"], [20.0, 5.0], "closed")

    # The official SDKs were swept without auto: no rows for them.
    assert {r.sdk for r in rows} == {"jiffy-python", "jiffy-js"}
    assert len(rows) == 2 * 2 * 2  # SDKs x channel counts x targets
    found = rows_by(rows)
    python = found[("jiffy-python", 1, 20.0)]
    # Under 20 ms the best fixed cap is c=10's (cap 10, 7,606 rps at p99.9 9.4 ms).
    assert python.best_cap.max_concurrent_requests == 10
    assert python.best_cap.rps == pytest.approx(7605.85)
    assert python.auto.max_concurrent_requests == "auto"
    assert python.auto.rps == pytest.approx(7605.85 * 0.95, rel=1e-4)
    assert python.auto.in_flight_limit_last == 12
    assert python.share == pytest.approx(0.95, abs=1e-3)
    assert python.meets_goal is True
    assert adaptive.sentence(python) == "auto 7,226/s = 95% of cap 10's 7,606/s"
    js = found[("jiffy-js", 1, 20.0)]
    assert js.share == pytest.approx(0.8, abs=1e-3)
    assert js.meets_goal is False
    assert adaptive.verdict(js) == "no (< 90%)"
    # Nothing of jiffy-python's had p99.9 under 5 ms on one channel, auto or fixed.
    neither = found[("jiffy-python", 1, 5.0)]
    assert (neither.auto, neither.best_cap, neither.share) == (None, None, None)
    assert neither.meets_goal is None
    assert adaptive.sentence(neither) == "neither auto nor a fixed cap met the target"


def test_auto_over_the_target_loses_and_auto_alone_under_it_wins() -> None:
    slow = with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 1.0}, p999=30.0)
    [row, *_] = compare(slow["summary"], [20.0], "closed")
    assert row.auto is None
    assert row.best_cap.max_concurrent_requests == 10
    assert row.meets_goal is False
    assert adaptive.sentence(row) == ("auto met no point under the target; cap 10 7,606/s")
    fast = with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 1.0}, p999=1.0)
    found = rows_by(compare(fast["summary"], [5.0], "closed"))
    alone = found[("jiffy-python", 1, 5.0)]
    assert alone.best_cap is None
    assert alone.meets_goal is True
    assert adaptive.sentence(alone).endswith("; no fixed cap met the target")


def test_no_rows_without_both_auto_and_fixed_caps() -> None:
    run = recorded("closed_4sdk.json")
    assert compare(run["summary"], [20.0], "closed") == []
    only_auto = with_auto(run, {"jiffy-python": 1.0})
    auto_summary = [e for e in only_auto["summary"] if e["max_concurrent_requests"] == "auto"]
    assert compare(auto_summary, [20.0], "closed") == []


def test_the_recommendation_takes_auto_when_it_is_the_best() -> None:
    run = with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 1.2})
    # The 3 rounds a recommendation takes (the recorded run has 2).
    rec = recommend("jiffy-python", [{**e, "rounds_ok": 3} for e in run["summary"]], 20.0)
    assert rec["point"]["max_concurrent_requests"] == "auto"
    assert "cap auto, concurrency 10" in rec["statement"]
    assert 'max_concurrent_requests="auto"' in rec["preset"]["code"]
    # Without auto points the rule picks what it always did.
    plain = recorded("closed_4sdk.json")
    before = rule.recommend("jiffy-python", summarize(points_of(plain)), 20.0).as_json()
    assert before["point"]["max_concurrent_requests"] == 10


def _assembled(run: dict[str, Any]) -> RunResults:
    recorded_run = parsed(run)
    return results.assemble(
        command="jiffy-tune --max-concurrent-requests auto,1,10",
        started=recorded_run.started,
        interrupted=False,
        mode="closed",
        targets_ms=recorded_run.targets_ms,
        settings=recorded_run.settings,
        server=recorded_run.server,
        client_cpus=None,
        environment=recorded_run.environment,
        points=recorded_run.points,
    )


def test_results_console_and_report_show_the_comparison(tmp_path: Path) -> None:
    assembled = _assembled(with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 0.95}))
    data = assembled.as_json()
    jsonschema.validate(data, results.schema())
    assert data["auto_comparison"] == [
        row.as_json() for row in compare(data["summary"], [20.0, 5.0], "closed")
    ]
    auto = [e for e in data["summary"] if e["max_concurrent_requests"] == "auto"]
    assert {e["in_flight_limit_last"] for e in auto} == {12}

    out = io.StringIO()
    print_results(Console(file=out, width=200, force_terminal=False), assembled)
    text = out.getvalue()
    assert "auto against the best fixed cap (goal: 90% of its throughput)" in text
    assert "jiffy-python grpc ch=1 p99.9 < 20 ms: auto 7,226/s = 95% of cap 10's 7,606/s" in text

    files = write_report(tmp_path, assembled)
    markdown = files.markdown.read_text()
    assert "## auto against the best fixed cap" in markdown
    assert "| jiffy-python | grpc | 1 | p99.9 < 20 ms | 7,226 rps |" in markdown
    assert "In-flight cap:** auto, 1, 10 (auto: the SDK's adaptive limit, for the SDKs" in markdown
    page = Page(files.html.read_text())
    [first, *_] = page.rows["auto"]
    assert first[:5] == ["jiffy-python", "grpc", "1", "p99.9 < 20 ms", "7,226 rps"]
    assert first[-2:] == ["95%", "yes (>= 90%)"]
    assert (tmp_path / "charts" / "auto-limit.png").exists()
    assert "auto: the in-flight limit over the run" in markdown


def test_older_results_without_the_comparison_get_it_computed() -> None:
    run = with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 0.95})
    assert "auto_comparison" not in run
    assert adaptive.of_results(parsed(run)) == compare(run["summary"], [20.0, 5.0], "closed")


def test_the_best_auto_point_s_limit_history_is_found() -> None:
    run = with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 0.95})
    row = rows_by(compare(run["summary"], [20.0], "closed"))[("jiffy-python", 1, 20.0)]
    assert adaptive.limit_history(parsed(run), row) == [
        (0.0, 4.0),
        (0.1, 8.0),
        (0.2, 16.0),
        (1.5, 12.0),
    ]


def test_open_loop_runs_a_ladder_per_cap_and_compares_auto_by_throughput_achieved() -> None:
    ladder = LadderSettings(1000.0, 2.0, 8000.0, None, 20.0)
    plan = OpenLoopPlan(["jiffy-python", "momento-python"], [1], 1000, ["auto", 50], 1, ladder)

    def run(spec: PointSpec) -> Point:
        assert spec.rate is not None
        # auto holds up to 4,000/s, cap 50 to 8,000/s; above that the tail passes 20 ms.
        ceiling = 4000.0 if spec.max_concurrent_requests == "auto" else 8000.0
        p999 = 2.0 if spec.rate <= ceiling else 50.0
        client = Percentiles(p50=1.0, p90=1.5, p99=1.8, p999=p999, max=p999)
        return replace(empty_point(spec), status="ok", rps=spec.rate, requests=1, client_ms=client)

    sweep = run_open(plan, run)

    # momento-python has no auto: it runs the cap 50 ladder only.
    assert [(p.sdk, p.max_concurrent_requests, p.rate) for p in sweep.points][:3] == [
        ("jiffy-python", "auto", 1000.0),
        ("jiffy-python", 50, 1000.0),
        ("momento-python", 50, 1000.0),
    ]
    assert not [
        p for p in sweep.points if p.sdk == "momento-python" and p.max_concurrent_requests == "auto"
    ]
    summary = summarize(sweep.points)
    rows = open_loop_results(summary, ["jiffy-python"], [1], [20.0])
    assert [(r.max_concurrent_requests, r.max_rate_met) for r in rows] == [
        ("auto", 4000.0),
        (50, 8000.0),
    ]
    [row] = adaptive.compare(summary, [20.0], "open")
    assert (row.auto.rate, row.best_cap.rate, row.share) == (4000.0, 8000.0, 0.5)
    assert adaptive.sentence(row) == "auto 4,000/s = 50% of cap 50's 8,000/s"


def test_an_auto_only_sweep_writes_presets_that_keep_auto(tmp_path: Path) -> None:
    run = with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 1.0, "jiffy-js": 1.0})
    # What the user chose: auto alone, for our two SDKs, over the 3 rounds a
    # recommendation takes (the recorded run's 2, and its first again).
    ours = [p for p in run["points"] if p["max_concurrent_requests"] == "auto"]
    again = [{**copy.deepcopy(p), "round": 2} for p in ours if p["round"] == 0]
    run["points"] = [{**p, "id": i} for i, p in enumerate(ours + again)]
    run["settings"] = {
        **run["settings"],
        "sdks": ["jiffy-python", "jiffy-js"],
        "max_concurrent_requests": ["auto"],
        "rounds": 3,
    }
    assembled = _assembled(run)
    data = assembled.as_json()
    jsonschema.validate(data, results.schema())

    recommended = [rec for rec in data["recommendations"] if rec["preset"] is not None]
    assert {rec["sdk"] for rec in recommended} == {"jiffy-python", "jiffy-js"}
    markdown = write_report(tmp_path, assembled).markdown.read_text()
    for rec in recommended:
        assert rec["point"]["max_concurrent_requests"] == "auto"
        assert rec["point"]["rounds_ok"] == 3
        code = rec["preset"]["code"]
        kept = {
            "jiffy-python": 'max_concurrent_requests="auto"',
            "jiffy-js": "maxConcurrentRequests: 'auto'",
        }[rec["sdk"]]
        assert kept in code
        # The preset as written in results.json, and as the report shows it.
        assert code.rstrip() in markdown
    # Read back from results.json, the presets are the same.
    again_read = results.parse(data).as_json()
    assert again_read["recommendations"] == data["recommendations"]
