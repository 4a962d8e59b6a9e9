"""Summary medians and the recommendation rule on recorded runs and edited copies."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from conftest import FIXTURES, as_entry, recorded
from conftest import points as parsed_points

from jiffy_tune import recommend as rule
from jiffy_tune import results
from jiffy_tune.snippets import Where
from jiffy_tune.summary import summarize as summarize_points

# The rule's inputs and outputs as results.json keeps them, so that the tests
# can edit a recorded run's points and read what would be written.


def summarize(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e.as_json() for e in summarize_points(parsed_points({"points": points}))]


def recommend(
    sdk: str,
    entries: list[dict[str, Any]],
    target_ms: float,
    runtime_flags: list[str] | None = None,
    where: Where | None = None,
) -> dict[str, Any]:
    typed = [as_entry(e) for e in entries]
    return rule.recommend(sdk, typed, target_ms, runtime_flags or (), where).as_json()


def by_transport(
    sdks: list[str], entries: list[dict[str, Any]], targets_ms: list[float]
) -> list[dict[str, Any]]:
    return [
        {
            "sdk": row.sdk,
            "transport": row.transport,
            "target_ms": row.target_ms,
            "point": None if row.point is None else row.point.as_json(),
        }
        for row in rule.by_transport(sdks, [as_entry(e) for e in entries], targets_ms)
    ]


def points_of(
    run: dict[str, Any], sdk: str, channels: int, concurrency: int
) -> list[dict[str, Any]]:
    return [
        p
        for p in run["points"]
        if (p["sdk"], p["channels"], p["concurrency"]) == (sdk, channels, concurrency)
    ]


def entry_of(
    summary: list[dict[str, Any]], sdk: str, channels: int, concurrency: int
) -> dict[str, Any]:
    [entry] = [
        e
        for e in summary
        if (e["sdk"], e["channels"], e["concurrency"]) == (sdk, channels, concurrency)
    ]
    return entry


def three_rounds(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Summary entries as if each had the 3 ok rounds a recommendation takes (the
    recorded run has 2)."""
    return [{**entry, "rounds_ok": 3} for entry in entries]


def rec_for(run: dict[str, Any], sdk: str, target_ms: float) -> dict[str, Any]:
    """What the rule recommends for a run, each configuration counted as 3 rounds."""
    return recommend(sdk, three_rounds(summarize(run["points"])), target_ms)


@pytest.mark.parametrize("name", ["closed_4sdk.json", "open_2sdk.json", "closed_transports.json"])
def test_recorded_runs_match_the_schema(name: str) -> None:
    jsonschema.validate(recorded(name), results.schema())
    assert (FIXTURES / name).stat().st_size < 100_000


def test_the_summary_takes_medians_over_rounds(closed_run: dict[str, Any]) -> None:
    rounds = points_of(closed_run, "jiffy-python", 2, 10)
    assert [p["round"] for p in rounds] == [0, 1]
    entry = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)
    assert entry["rounds_ok"] == 2
    assert entry["rounds_failed"] == 0
    assert entry["rps"] == pytest.approx((rounds[0]["rps"] + rounds[1]["rps"]) / 2, abs=1e-3)
    p999s = [p["client_ms"]["p999"] for p in rounds]
    assert entry["client_ms"]["p999"] == pytest.approx(sum(p999s) / 2, abs=1e-3)
    server = [p["server_ms"]["p999"] for p in rounds]
    assert entry["server_ms"]["p999"] == pytest.approx(sum(server) / 2, abs=1e-3)
    expected_share = 1 - entry["server_ms"]["p999"] / entry["client_ms"]["p999"]
    assert entry["client_share_p999"] == pytest.approx(expected_share, abs=1e-3)


def test_the_summary_has_one_entry_per_configuration_in_measured_order(
    closed_run: dict[str, Any],
) -> None:
    summary = summarize(closed_run["points"])
    assert len(summary) == len(closed_run["points"]) // 2
    first_round = [p for p in closed_run["points"] if p["round"] == 0]
    assert [(e["sdk"], e["channels"], e["concurrency"]) for e in summary] == [
        (p["sdk"], p["channels"], p["concurrency"]) for p in first_round
    ]


def test_the_recorded_run_recommends_the_fastest_point_under_the_target(
    closed_run: dict[str, Any],
) -> None:
    summary = three_rounds(summarize(closed_run["points"]))
    rec = recommend("jiffy-python", summary, 20.0)
    assert rec["met"] is True
    chosen = rec["point"]
    assert (chosen["channels"], chosen["concurrency"], chosen["max_concurrent_requests"]) == (
        2,
        10,
        10,
    )
    mine = [e for e in summary if e["sdk"] == "jiffy-python"]
    assert all(e["client_ms"]["p999"] < 20.0 for e in mine)
    assert chosen["rps"] == max(e["rps"] for e in mine)
    assert rec["statement"].startswith("jiffy-python: 8,226 rps at p99.9 8.709 ms (target < 20 ms)")
    assert "2 channels, cap 10, concurrency 10" in rec["statement"]
    assert "run 10 requests concurrently (10 workers)" in rec["statement"]
    assert rec["preset"]["language"] == "python"
    assert rec["preset"]["base"] == "in_region"
    assert "replace(channels=2, max_concurrent_requests=10)" in rec["preset"]["code"]


def test_no_point_meeting_the_target_names_the_lowest_p999(closed_run: dict[str, Any]) -> None:
    rec = rec_for(closed_run, "jiffy-python", 5.0)
    assert rec["met"] is False
    assert rec["point"] is None
    assert rec["preset"] is None
    assert rec["statement"] == (
        "jiffy-python: no point met p99.9 < 5 ms; the lowest p99.9 was 5.053 ms (grpc, c=1, ch=2)"
    )
    assert rec["noisy"] is False


def test_the_target_is_strict(closed_run: dict[str, Any]) -> None:
    assert rec_for(closed_run, "jiffy-python", 5.053)["met"] is False
    rec = rec_for(closed_run, "jiffy-python", 5.054)
    assert rec["met"] is True
    assert (rec["point"]["channels"], rec["point"]["concurrency"]) == (2, 1)
    assert rec["preset"]["base"] == "low_latency"


def test_errors_disqualify_a_point(closed_run: dict[str, Any]) -> None:
    points_of(closed_run, "jiffy-python", 2, 10)[1]["errors"] = {"DEADLINE_EXCEEDED": 3}
    points_of(closed_run, "jiffy-python", 2, 10)[1]["errors_total"] = 3
    entry = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)
    assert entry["errors_total"] == 3
    rec = rec_for(closed_run, "jiffy-python", 20.0)
    assert (rec["point"]["channels"], rec["point"]["concurrency"]) == (1, 10)


def test_an_unmet_target_says_when_errors_disqualified_points(closed_run: dict[str, Any]) -> None:
    for point in points_of(closed_run, "jiffy-python", 2, 1):
        point["errors_total"] = 1
    rec = rec_for(closed_run, "jiffy-python", 5.06)
    assert rec["met"] is False
    assert rec["statement"].endswith("; 1 point under the target had errors and did not count")


def test_a_failed_round_leaves_the_median_of_the_others(closed_run: dict[str, Any]) -> None:
    ok, failed = points_of(closed_run, "jiffy-python", 2, 10)
    failed.update(status="failed", error="timed out after 62 s", rps=None, client_ms=None)
    entry = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)
    assert (entry["rounds_ok"], entry["rounds_failed"]) == (1, 1)
    assert entry["rps"] == pytest.approx(ok["rps"])
    assert entry["client_ms"]["p999"] == pytest.approx(ok["client_ms"]["p999"])


def test_a_configuration_with_every_round_failed_is_not_eligible(
    closed_run: dict[str, Any],
) -> None:
    for point in points_of(closed_run, "jiffy-python", 2, 10):
        point.update(
            status="failed", error="exit status 1", rps=None, client_ms=None, server_ms=None
        )
    entry = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)
    assert (entry["rounds_ok"], entry["rps"], entry["client_ms"]) == (0, None, None)
    rec = rec_for(closed_run, "jiffy-python", 20.0)
    assert (rec["point"]["channels"], rec["point"]["concurrency"]) == (1, 10)


def test_no_completed_point_at_all(closed_run: dict[str, Any]) -> None:
    for point in closed_run["points"]:
        if point["sdk"] == "momento-js":
            point.update(status="failed", error="exit status 1", rps=None, client_ms=None)
    rec = rec_for(closed_run, "momento-js", 20.0)
    assert rec["statement"] == "momento-js: no point met p99.9 < 20 ms; no point completed"


def _set_rps(run: dict[str, Any], channels: int, concurrency: int, rps: float) -> None:
    for point in points_of(run, "jiffy-python", channels, concurrency):
        point["rps"] = rps


def test_within_3_percent_fewer_channels_wins(closed_run: dict[str, Any]) -> None:
    best = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)["rps"]
    _set_rps(closed_run, 1, 10, best * 0.975)
    rec = rec_for(closed_run, "jiffy-python", 20.0)
    assert (rec["point"]["channels"], rec["point"]["concurrency"]) == (1, 10)
    assert "Chosen over the best (8,226 rps) because it is within 3%" in rec["statement"]


def test_within_3_percent_then_lower_concurrency_wins(closed_run: dict[str, Any]) -> None:
    best = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)["rps"]
    _set_rps(closed_run, 1, 10, best * 0.99)
    _set_rps(closed_run, 1, 1, best * 0.98)
    rec = rec_for(closed_run, "jiffy-python", 20.0)
    assert (rec["point"]["channels"], rec["point"]["concurrency"]) == (1, 1)
    assert "run 1 request at a time (1 worker)" in rec["statement"]


def test_beyond_3_percent_the_fastest_wins(closed_run: dict[str, Any]) -> None:
    best = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)["rps"]
    _set_rps(closed_run, 1, 10, best * 0.96)
    rec = rec_for(closed_run, "jiffy-python", 20.0)
    assert (rec["point"]["channels"], rec["point"]["concurrency"]) == (2, 10)
    assert "Chosen over" not in rec["statement"]


def test_node_flags_measured_with_are_part_of_the_recommendation(
    closed_run: dict[str, Any],
) -> None:
    flags = ["--max-semi-space-size=1"]
    rec = recommend("jiffy-js", three_rounds(summarize(closed_run["points"])), 20.0, flags)
    assert rec["statement"].endswith("; measured with node --max-semi-space-size=1")
    assert "// Measured with node --max-semi-space-size=1" in rec["preset"]["code"]
    plain = rec_for(closed_run, "jiffy-js", 20.0)
    assert "node" not in plain["statement"]


def test_fewer_than_3_rounds_are_not_enough_to_recommend(closed_run: dict[str, Any]) -> None:
    summary = summarize(closed_run["points"])
    two_rounds = recommend("jiffy-python", summary, 20.0)
    assert two_rounds["noisy"] is True
    assert two_rounds["statement"] == (
        "jiffy-python: not enough rounds to recommend: its figures come from 2 rounds, and a "
        "recommendation takes the median of at least 3 (--rounds 3 or more); the best point was "
        "8,226 rps at p99.9 8.709 ms (target < 20 ms) over grpc with 2 channels, cap 10, "
        "concurrency 10"
    )
    # The best point's figures are kept, but nothing is offered to paste.
    assert two_rounds["met"] is True
    assert two_rounds["point"]["concurrency"] == 10
    assert two_rounds["preset"] is None
    one_round = recommend("jiffy-python", [{**e, "rounds_ok": 1} for e in summary], 20.0)
    assert "its figures come from 1 round," in one_round["statement"]
    assert one_round["preset"] is None

    measured = recommend("jiffy-python", three_rounds(summary), 20.0)
    assert measured["noisy"] is False
    assert "rounds" not in measured["statement"]
    assert "oisy" not in measured["preset"]["code"]
    assert measured["point"] == {**two_rounds["point"], "rounds_ok": 3}
    unmet = recommend("jiffy-python", three_rounds(summary), 1.0)
    assert unmet["noisy"] is False
    assert "oisy" not in unmet["statement"]


def test_the_summary_keeps_the_spread_of_its_rounds(closed_run: dict[str, Any]) -> None:
    rounds = points_of(closed_run, "jiffy-python", 2, 10)
    entry = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)
    rps = sorted(p["rps"] for p in rounds)
    p999 = sorted(p["client_ms"]["p999"] for p in rounds)
    assert rps[0] < rps[1]
    assert entry["rps_spread"] == {"min": round(rps[0], 4), "max": round(rps[1], 4)}
    assert entry["client_p999_spread"] == {"min": round(p999[0], 4), "max": round(p999[1], 4)}


def test_nothing_completed_has_no_figures_to_call_noisy(closed_run: dict[str, Any]) -> None:
    rec = recommend("nobody", summarize(closed_run["points"]), 20.0)
    assert rec["statement"] == "nobody: no point met p99.9 < 20 ms; no point completed"
    assert rec["noisy"] is False


def over_transports(run: dict[str, Any]) -> list[dict[str, Any]]:
    """jiffy-python's points at 1 channel, again as if run over protosocket."""
    again = [
        {**p, "transport": "protosocket"}
        for p in run["points"]
        if p["sdk"] == "jiffy-python" and p["channels"] == 1
    ]
    return run["points"] + again


def _scale(points: list[dict[str, Any]], transport: str, share: float) -> None:
    for point in points:
        if point["sdk"] == "jiffy-python" and point.get("transport") == transport:
            point["rps"] *= share


def test_a_faster_transport_is_chosen_and_named(closed_run: dict[str, Any]) -> None:
    points = over_transports(closed_run)
    _scale(points, "protosocket", 1.5)
    where = Where("127.0.0.1:7000", "loadgen", True, "127.0.0.1:7001")
    rec = recommend("jiffy-python", three_rounds(summarize(points)), 20.0, where=where)
    assert rec["transport"] == "protosocket"
    assert rec["point"]["transport"] == "protosocket"
    assert " over protosocket with 1 channel, cap 10, concurrency 10;" in rec["statement"]
    assert 'protosocket_endpoint="127.0.0.1:7001",' in rec["preset"]["code"]


def test_within_3_percent_the_sdk_s_default_transport_wins(closed_run: dict[str, Any]) -> None:
    points = over_transports(closed_run)
    best = entry_of(summarize(closed_run["points"]), "jiffy-python", 2, 10)["rps"]
    for point in points:
        if point.get("transport") == "protosocket" and point["concurrency"] == 10:
            point["rps"] = best * 1.02
    rec = recommend("jiffy-python", three_rounds(summarize(points)), 20.0)
    assert rec["transport"] == "grpc"
    assert (rec["point"]["channels"], rec["point"]["concurrency"]) == (2, 10)
    assert "within 3% and simpler: the SDK's default transport" in rec["statement"]


def test_each_transport_s_best_is_kept_beside_the_recommendation(
    closed_run: dict[str, Any],
) -> None:
    points = over_transports(closed_run)
    _scale(points, "protosocket", 1.5)
    summary = summarize(points)
    rows = by_transport(closed_run["settings"]["sdks"], summary, [20.0, 5.0])
    assert [(r["sdk"], r["transport"], r["target_ms"]) for r in rows] == [
        ("jiffy-python", "grpc", 20.0), ("jiffy-python", "protosocket", 20.0),
        ("jiffy-python", "grpc", 5.0), ("jiffy-python", "protosocket", 5.0),
    ]  # fmt: skip
    grpc, protosocket = rows[0]["point"], rows[1]["point"]
    assert grpc == recommend("jiffy-python", summarize(closed_run["points"]), 20.0)["point"]
    assert protosocket["transport"] == "protosocket"
    assert protosocket["rps"] > grpc["rps"]
    assert rows[2]["point"] is None  # nothing met 5 ms on either
