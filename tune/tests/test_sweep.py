"""The sweep loop and the CLI's results with an injected point runner (no processes)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from jiffy_tune import cli, results
from jiffy_tune.loadgen_report import Percentiles
from jiffy_tune.model import Point
from jiffy_tune.plan import LadderSettings, PointSpec, TransportPlan, closed_grid
from jiffy_tune.runner import empty_point
from jiffy_tune.server import ServerInfo
from jiffy_tune.summary import summarize
from jiffy_tune.sweep import OpenLoopPlan, open_loop_results, run_closed, run_open


def fake_point(spec: PointSpec, rps: float = 1000.0, p999: float = 2.0) -> Point:
    return replace(
        empty_point(spec),
        status="ok",
        rps=rps,
        requests=int(rps),
        client_ms=Percentiles(p50=0.5, p90=1.0, p99=1.5, p999=p999, max=p999 * 2),
        wall_s=1.0,
    )


def failed_point(spec: PointSpec, error: str) -> Point:
    return replace(empty_point(spec), error=error)


class Observer:
    """Records what a sweep tells its progress display."""

    def __init__(self) -> None:
        self.totals: list[int] = []
        self.specs: list[PointSpec] = []
        self.finished_ids: list[int] = []

    def total(self, points: int) -> None:
        self.totals.append(points)

    def started(self, spec: PointSpec) -> None:
        self.specs.append(spec)

    def finished(self, point: Point) -> None:
        self.finished_ids.append(point.id)


def test_points_run_in_plan_order_with_ids() -> None:
    plan = closed_grid(["a", "b"], [1, 2], [1], None, rounds=1)
    ran: list[PointSpec] = []

    def run(spec: PointSpec) -> Point:
        ran.append(spec)
        return fake_point(spec)

    observer = Observer()
    sweep = run_closed(plan, run, observer)
    assert ran == plan
    assert [p.id for p in sweep.points] == [0, 1, 2, 3]
    assert [(p.sdk, p.concurrency) for p in sweep.points] == [
        ("a", 1), ("b", 1), ("a", 2), ("b", 2),
    ]  # fmt: skip
    assert observer.totals == [4]
    assert observer.finished_ids == [0, 1, 2, 3]
    assert observer.specs == plan
    assert not sweep.interrupted


def test_a_failed_point_is_kept_and_the_sweep_goes_on() -> None:
    plan = closed_grid(["a"], [1, 2, 3], [1], None, rounds=1)

    def run(spec: PointSpec) -> Point:
        if spec.concurrency == 2:
            return failed_point(spec, "exit status 1: boom")
        return fake_point(spec)

    sweep = run_closed(plan, run)
    assert [p.status for p in sweep.points] == ["ok", "failed", "ok"]
    assert sweep.points[1].error == "exit status 1: boom"


def failing_from(concurrency: int) -> Any:
    def run(spec: PointSpec) -> Point:
        if spec.concurrency >= concurrency:
            return failed_point(spec, "exit status 1: jiffy.ConnectionError: could not connect")
        return fake_point(spec)

    return run


def test_a_failed_point_with_the_server_gone_stops_the_sweep() -> None:
    plan = closed_grid(["a", "b"], [1, 2, 3], [1], None, rounds=1)
    checked: list[int] = []

    def server_gone(point: Point) -> str | None:
        checked.append(point.id)
        return "the server at 127.0.0.1:1 went away (connection refused)"

    sweep = run_closed(plan, failing_from(2), stop=server_gone)
    assert [p.status for p in sweep.points] == ["ok", "ok", "failed"]
    assert checked == [2]  # asked after failed points only
    assert sweep.stopped == (
        "the server at 127.0.0.1:1 went away (connection refused); the sweep stopped after "
        "point 2, 3 planned points not run"
    )
    assert not sweep.interrupted


def test_a_failed_point_with_the_server_still_there_goes_on() -> None:
    plan = closed_grid(["a"], [1, 2, 3], [1], None, rounds=1)
    sweep = run_closed(plan, failing_from(2), stop=lambda point: None)
    assert [p.status for p in sweep.points] == ["ok", "failed", "failed"]
    assert sweep.stopped is None


def test_a_server_that_ignored_the_delay_stops_the_sweep_at_its_first_point() -> None:
    check = cli.server_gone("127.0.0.1:1", delay_ms=10)
    spec = PointSpec("a", channels=1, concurrency=1, max_concurrent_requests=0, rate=None, round=0)
    client = Percentiles(p50=0.4, p90=0.4, p99=0.4, p999=0.4, max=0.4)
    ignored = replace(empty_point(spec), client_ms=client)
    assert check(ignored) == "the server at 127.0.0.1:1 ignored --delay-ms 10"
    # Without a delay asked, the same point is judged by the server's presence.
    assert cli.server_gone("127.0.0.1:1")(ignored) == (
        "the server at 127.0.0.1:1 went away (connection refused)"
    )


def test_open_loop_stops_too_when_the_server_is_gone() -> None:
    ladder = LadderSettings(1000.0, 2.0, 8000.0, None, 20.0)
    plan = OpenLoopPlan(["a", "b"], [1], 1000, [0], rounds=2, ladder=ladder)

    def run(spec: PointSpec) -> Point:
        assert spec.rate is not None
        if spec.rate > 1000:
            return empty_point(spec)
        return fake_point(spec, rps=spec.rate)

    sweep = run_open(plan, run, stop=lambda point: "gone")
    assert [(p.sdk, p.rate, p.status) for p in sweep.points] == [
        ("a", 1000.0, "ok"), ("b", 1000.0, "ok"), ("a", 2000.0, "failed"),
    ]  # fmt: skip
    assert sweep.stopped == "gone; the sweep stopped after point 2"


def test_ctrl_c_keeps_the_points_measured_so_far() -> None:
    plan = closed_grid(["a"], [1, 2, 3, 4], [1], None, rounds=1)

    def run(spec: PointSpec) -> Point:
        if spec.concurrency == 3:
            raise KeyboardInterrupt
        return fake_point(spec)

    sweep = run_closed(plan, run)
    assert sweep.interrupted
    assert [p.concurrency for p in sweep.points] == [1, 2]


def test_open_loop_steps_ladders_in_lockstep_until_each_stops() -> None:
    plan = OpenLoopPlan(
        sdks=["fast", "slow"],
        channels=[1],
        concurrency=1000,
        caps=[0],
        rounds=1,
        ladder=LadderSettings(1000.0, 2.0, 8000.0, None, 20.0),
    )

    def run(spec: PointSpec) -> Point:
        assert spec.rate is not None
        ceiling = 8000.0 if spec.sdk == "fast" else 2000.0
        return fake_point(spec, rps=min(spec.rate, ceiling))

    observer = Observer()
    sweep = run_open(plan, run, observer)
    assert [(p.sdk, p.rate) for p in sweep.points] == [
        ("fast", 1000.0), ("slow", 1000.0),
        ("fast", 2000.0), ("slow", 2000.0),
        ("fast", 4000.0), ("slow", 4000.0),  # slow achieves 50%: its ladder stops
        ("fast", 8000.0),
    ]  # fmt: skip
    assert all(p.concurrency == 1000 for p in sweep.points)
    assert observer.totals[0] == 8  # 2 ladders x 4 steps at most
    assert observer.totals[-1] == 7


def _invocation(tmp_path: Path, argv: list[str]) -> cli.Invocation:
    args = cli.parser().parse_args(argv)
    settings = cli.settings_of(args)
    return cli.Invocation(args, argv, tmp_path, tmp_path / "out", settings, results.utc_now())


SERVER = ServerInfo("external", "127.0.0.1:1", None, None, None, None)


def test_ctrl_c_still_writes_valid_results_marked_interrupted(tmp_path: Path) -> None:
    argv = ["--sdk", "a,b", "--concurrency", "1,2", "--channels", "1", "--quiet", "--targets", "5"]
    inv = _invocation(tmp_path, argv)
    calls = 0

    def run(spec: PointSpec) -> Point:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        return fake_point(spec)

    data = cli.measure_and_write(inv, SERVER, None, run).as_json()
    written = json.loads((inv.out_dir / "results.json").read_text())
    assert written == data
    # Read back, the results write the same file again, key for key.
    assert results.parse(written).as_json() == written
    jsonschema.validate(written, results.schema())
    assert written["interrupted"] is True
    assert [p["id"] for p in written["points"]] == [0, 1]
    assert [r["sdk"] for r in written["recommendations"]] == ["a", "b"]
    assert written["command"] == "jiffy-tune " + " ".join(argv)


def test_a_stopped_sweep_writes_valid_results_that_say_why(tmp_path: Path) -> None:
    inv = _invocation(
        tmp_path, ["--sdk", "a", "--concurrency", "1,2,3", "--channels", "1", "--quiet"]
    )

    data = cli.measure_and_write(
        inv, SERVER, None, failing_from(2), stop=lambda p: "gone"
    ).as_json()
    jsonschema.validate(data, results.schema())
    assert data["stopped"] == "gone; the sweep stopped after point 1, 1 planned point not run"
    assert data["interrupted"] is False
    assert len(data["points"]) == 2


def test_results_name_the_cache_and_the_presets_use_it(tmp_path: Path) -> None:
    argv = ["--sdk", "jiffy-python", "--concurrency", "1", "--quiet", "--cache", "tuning"]
    inv = _invocation(tmp_path, [*argv, "--rounds", "3"])
    server = ServerInfo("external", "cache.internal:7000", None, None, None, None)

    data = cli.measure_and_write(inv, server, None, fake_point).as_json()
    jsonschema.validate(data, results.schema())
    assert data["settings"]["cache"] == "tuning"
    assert data["stopped"] is None
    for rec in data["recommendations"]:
        code = rec["preset"]["code"]
        assert 'Endpoint.parse("cache.internal:7000")' in code
        assert 'default_cache="tuning"' in code
        assert rec["noisy"] is False


def test_open_mode_results_carry_open_loop_rows(tmp_path: Path) -> None:
    argv = ["--mode", "open", "--sdk", "a", "--channels", "1,2", "--quiet"]
    argv += ["--rates", "1000,2000", "--targets", "20,5"]
    inv = _invocation(tmp_path, argv)

    def run(spec: PointSpec) -> Point:
        assert spec.rate is not None
        return fake_point(spec, rps=spec.rate, p999=3.0 if spec.rate < 1500 else 10.0)

    data = cli.measure_and_write(inv, SERVER, None, run).as_json()
    jsonschema.validate(data, results.schema())
    assert data["mode"] == "open"
    rows = {(r["channels"], r["target_ms"]): r["max_rate_met"] for r in data["open_loop"]}
    assert rows == {(1, 20.0): 2000.0, (1, 5.0): 1000.0, (2, 20.0): 2000.0, (2, 5.0): 1000.0}


def test_open_loop_runs_a_ladder_per_transport_where_it_is_swept() -> None:
    ladder = LadderSettings(1000.0, 2.0, 2000.0, None, 20.0)
    transports = TransportPlan({"jiffy-python": ("grpc", "protosocket")}, other_channels=[1])
    plan = OpenLoopPlan(["jiffy-python"], [1, 2], 1000, [0], 1, ladder, transports)

    sweep = run_open(plan, lambda spec: fake_point(spec, rps=spec.rate or 0.0))

    assert [(p.channels, p.transport, p.rate) for p in sweep.points] == [
        (1, "grpc", 1000.0), (1, "protosocket", 1000.0), (2, "grpc", 1000.0),
        (1, "grpc", 2000.0), (1, "protosocket", 2000.0), (2, "grpc", 2000.0),
    ]  # fmt: skip
    summary = summarize(sweep.points)
    rows = open_loop_results(summary, ["jiffy-python"], [1, 2], [20.0])
    assert [(r.transport, r.channels, r.max_rate_met) for r in rows] == [
        ("grpc", 1, 2000.0), ("grpc", 2, 2000.0), ("protosocket", 1, 2000.0),
    ]  # fmt: skip


def test_the_settings_record_each_sdk_s_transports_and_where_the_others_ran(
    tmp_path: Path,
) -> None:
    argv = ["--sdk", "jiffy-python,jiffy-js,momento-js", "--channels", "2,5", "--quiet"]
    settings = _invocation(tmp_path, argv).settings
    assert settings.transports == {
        "jiffy-python": ["grpc", "protosocket"],
        "jiffy-js": ["http2", "protosocket"],
        "momento-js": ["grpc"],
    }
    assert settings.transport_channels == [2]  # the first --channels value
    asked = ["--sdk", "jiffy-js", "--channels", "2,5", "--quiet"]
    asked += ["--transports", "grpc-js,http2", "--transport-channels", "2,5"]
    settings = _invocation(tmp_path, asked).settings
    assert settings.transports == {"jiffy-js": ["grpc-js", "http2"]}
    assert settings.transport_channels == [2, 5]


def test_an_external_server_is_swept_over_protosocket_only_when_its_port_is_named(
    tmp_path: Path,
) -> None:
    argv = ["--sdk", "jiffy-python", "--endpoint", "10.0.0.1:8080", "--quiet"]
    assert _invocation(tmp_path, argv).settings.transports == {"jiffy-python": ["grpc"]}
    named = argv + ["--protosocket-endpoint", "10.0.0.1:9004"]
    assert _invocation(tmp_path, named).settings.transports == {
        "jiffy-python": ["grpc", "protosocket"]
    }


def test_a_faster_transport_is_recommended_with_its_preset_naming_the_port(
    tmp_path: Path,
) -> None:
    argv = ["--sdk", "jiffy-python", "--concurrency", "1,2", "--channels", "1,2", "--quiet"]
    inv = _invocation(tmp_path, argv + ["--targets", "20", "--rounds", "3"])
    server = ServerInfo("embedded", "127.0.0.1:7000", None, None, None, None, "127.0.0.1:7001")

    def run(spec: PointSpec) -> Point:
        faster = 2.0 if spec.transport == "protosocket" else 1.0
        return fake_point(spec, rps=1000.0 * spec.concurrency * faster)

    data = cli.measure_and_write(inv, server, None, run).as_json()

    jsonschema.validate(data, results.schema())
    assert data["server"]["protosocket_endpoint"] == "127.0.0.1:7001"
    assert [(p["transport"], p["channels"]) for p in data["points"][:3]] == [
        ("grpc", 1), ("protosocket", 1), ("grpc", 2),
    ]  # fmt: skip
    assert {(e["transport"], e["channels"]) for e in data["summary"]} == {
        ("grpc", 1), ("protosocket", 1), ("grpc", 2),
    }  # fmt: skip
    [rec] = data["recommendations"]
    assert rec["transport"] == "protosocket"
    assert rec["point"]["transport"] == "protosocket"
    assert " over protosocket with 1 channel, cap 2, concurrency 2;" in rec["statement"]
    assert 'protosocket_endpoint="127.0.0.1:7001",' in rec["preset"]["code"]
    assert "# Transport: protosocket." in rec["preset"]["code"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--concurrency", "0"], "--concurrency"),
        (["--targets", "0"], "--targets"),
        (["--metrics-url", "http://x/metrics"], "--metrics-url goes with --endpoint"),
        (["--protosocket-endpoint", "127.0.0.1:9004"], "goes with --endpoint"),
        (["--transports", "quic"], "unknown transport quic"),
        (["--channels", "1,2", "--transport-channels", "5"], "takes values of --channels"),
        (
            ["--endpoint", "127.0.0.1:8080", "--transports", "grpc,protosocket"],
            "needs --protosocket-endpoint",
        ),
        (
            ["--workload", "dictionary", "--transports", "protosocket"],
            "the dictionary workload's calls go over gRPC",
        ),
    ],
)
def test_bad_arguments_are_refused(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli.check(cli.parser(), cli.parser().parse_args(["--sdk", "jiffy-python", *argv]))
    assert says in capsys.readouterr().err


def test_a_collection_workload_leaves_protosocket_out_by_default(tmp_path: Path) -> None:
    argv = ["--sdk", "jiffy-python", "--workload", "list", "--quiet"]
    assert _invocation(tmp_path, argv).settings.transports == {"jiffy-python": ["grpc"]}


def test_the_settings_record_the_caps_with_auto_and_the_delay(tmp_path: Path) -> None:
    argv = ["--sdk", "jiffy-python,jiffy-js", "--max-concurrent-requests", "auto,25"]
    argv += ["--delay-ms", "1", "--concurrency", "1", "--channels", "1", "--quiet"]
    argv += ["--targets", "5"]
    inv = _invocation(tmp_path, argv)
    assert inv.settings.max_concurrent_requests == ["auto", 25]
    assert inv.settings.delay_ms == 1
    assert inv.settings.server_args == ["--enable-fault-injection"]
    assert inv.settings.transports == {"jiffy-python": ["grpc"], "jiffy-js": ["http2"]}

    data = cli.measure_and_write(inv, SERVER, None, fake_point).as_json()
    jsonschema.validate(data, results.schema())
    assert [(p["sdk"], p["max_concurrent_requests"]) for p in data["points"]] == [
        ("jiffy-python", "auto"), ("jiffy-js", "auto"), ("jiffy-python", 25), ("jiffy-js", 25),
    ]  # fmt: skip
    assert [(r["sdk"], r["share"]) for r in data["auto_comparison"]] == [
        ("jiffy-python", 1.0), ("jiffy-js", 1.0),
    ]  # fmt: skip


def test_open_loop_runs_a_ladder_per_cap_given(tmp_path: Path) -> None:
    argv = ["--mode", "open", "--sdk", "jiffy-js", "--channels", "1", "--quiet"]
    argv += ["--rates", "1000", "--max-concurrent-requests", "auto,10,25", "--transports", "grpc"]
    inv = _invocation(tmp_path, argv)
    data = cli.measure_and_write(
        inv, SERVER, None, lambda spec: fake_point(spec, rps=999.0)
    ).as_json()
    jsonschema.validate(data, results.schema())
    assert [p["max_concurrent_requests"] for p in data["points"]] == ["auto", 10, 25]
    rows = [(r["max_concurrent_requests"], r["target_ms"]) for r in data["open_loop"]]
    assert rows == [(cap, target) for cap in ("auto", 10, 25) for target in (20.0, 5.0)]
