from __future__ import annotations

import argparse
from typing import Any

import pytest
from conftest import points as points_of

from jiffy_tune import caps, cli
from jiffy_tune.loadgen_report import Percentiles
from jiffy_tune.model import Point
from jiffy_tune.plan import (
    LadderSettings,
    PointSpec,
    RateLadder,
    TransportPlan,
    closed_grid,
    stop_reason,
)


def test_the_grid_interleaves_sdks_innermost_and_rounds_outermost() -> None:
    grid = closed_grid(["a", "b"], [1, 10], [1, 2], None, rounds=2)
    assert len(grid) == 2 * 2 * 2 * 2
    first_round = [(p.concurrency, p.channels, p.sdk) for p in grid[:8]]
    assert first_round == [
        (1, 1, "a"), (1, 1, "b"), (1, 2, "a"), (1, 2, "b"),
        (10, 1, "a"), (10, 1, "b"), (10, 2, "a"), (10, 2, "b"),
    ]  # fmt: skip
    assert {p.round for p in grid[:8]} == {0}
    assert {p.round for p in grid[8:]} == {1}
    assert [(p.sdk, p.channels, p.concurrency) for p in grid[8:]] == [
        (p.sdk, p.channels, p.concurrency) for p in grid[:8]
    ]


def test_the_cap_follows_concurrency_unless_caps_are_given() -> None:
    grid = closed_grid(["a"], [5, 50], [1], None, rounds=1)
    assert [(p.concurrency, p.max_concurrent_requests) for p in grid] == [(5, 5), (50, 50)]
    capped = closed_grid(["a"], [5, 50], [1], [0, 20], rounds=1)
    assert [(p.concurrency, p.max_concurrent_requests) for p in capped] == [
        (5, 0), (5, 20), (50, 0), (50, 20),
    ]  # fmt: skip
    assert all(p.rate is None for p in capped)


def _ladder(**overrides: Any) -> LadderSettings:
    values: dict[str, Any] = dict(
        rate_start=1000.0, rate_factor=2.0, rate_max=16000.0, rates=None, stop_p999_ms=20.0
    )
    values.update(overrides)
    return LadderSettings(**values)


def _walk(ladder: RateLadder, points: list[Point]) -> list[float]:
    """Feed recorded points to a ladder in the order it asks for their rates."""
    by_rate = {p.rate: p for p in points}
    offered = []
    while (rate := ladder.next_rate()) is not None:
        offered.append(rate)
        ladder.record(by_rate[rate])
    return offered


def _ladder_points(open_run: dict[str, Any], sdk: str) -> list[Point]:
    return [p for p in points_of(open_run) if p.sdk == sdk and p.round == 0]


def test_recorded_ladders_stop_where_a_stop_condition_first_holds(open_run: dict[str, Any]) -> None:
    settings = open_run["settings"]
    ladder_settings = _ladder(
        rate_start=settings["rate_start"],
        rate_factor=settings["rate_factor"],
        rate_max=settings["rate_max"],
        stop_p999_ms=max(open_run["targets_ms"]),
    )
    for sdk in settings["sdks"]:
        points = sorted(_ladder_points(open_run, sdk), key=lambda p: p.rate or 0.0)
        ladder = RateLadder(ladder_settings)
        offered = _walk(ladder, points)
        assert offered == [p.rate for p in points]  # the recorded run took these steps
        reasons = [stop_reason(p, ladder_settings) for p in points]
        assert all(reason is None for reason in reasons[:-1])
        assert ladder.stopped_because == (reasons[-1] or "rate_max")


def _point(rate: float, **fields: Any) -> Point:
    return Point(
        sdk="a", transport="grpc", channels=1, concurrency=1, max_concurrent_requests=0,
        rate=rate, round=0, **fields,
    )  # fmt: skip


def _ok(rate: float, rps: float, p999: float, errors: int = 0) -> Point:
    client = Percentiles(p50=p999, p90=p999, p99=p999, p999=p999, max=p999)
    return _point(rate, status="ok", rps=rps, errors_total=errors, client_ms=client)


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (_ok(4000, 3990, 25.0), "p99.9 above the largest target"),
        (_ok(4000, 3500, 2.0), "achieved under 90% of the offered rate"),
        (_ok(4000, 3990, 2.0, errors=1), "errors"),
        (_point(4000, status="failed"), "failed"),
    ],
)
def test_each_stop_condition_ends_the_ladder(bad: Point, reason: str) -> None:
    ladder = RateLadder(_ladder())
    points = [_ok(1000, 1000, 1.0), _ok(2000, 1999, 1.5), bad, _ok(8000, 8000, 1.0)]
    assert _walk(ladder, points) == [1000, 2000, 4000]
    assert ladder.stopped_because == reason


def test_the_ladder_stops_at_rate_max() -> None:
    ladder = RateLadder(_ladder(rate_max=5000.0))
    points = [_ok(r, r, 1.0) for r in (1000, 2000, 4000, 8000)]
    assert _walk(ladder, points) == [1000, 2000, 4000]
    assert ladder.stopped_because == "rate_max"
    assert RateLadder.max_steps(_ladder(rate_max=5000.0)) == 3
    assert RateLadder.max_steps(_ladder(rate_max=4000.0)) == 3


def test_explicit_rates_are_all_run() -> None:
    ladder = RateLadder(_ladder(rates=(500.0, 3000.0, 9000.0)))
    points = [_ok(500, 500, 1.0), _ok(3000, 1000, 50.0), _ok(9000, 1000, 90.0)]
    assert _walk(ladder, points) == [500, 3000, 9000]


def test_each_sdk_s_transports_vary_fastest_the_others_at_their_channels_only() -> None:
    plan = TransportPlan({"a": ("grpc", "protosocket")}, other_channels=[1])
    grid = closed_grid(["a", "b"], [1, 10], [1, 2], None, rounds=1, transport_plan=plan)
    assert [(p.concurrency, p.channels, p.sdk, p.transport_name) for p in grid] == [
        (1, 1, "a", "grpc"), (1, 1, "a", "protosocket"), (1, 1, "b", "grpc"),
        (1, 2, "a", "grpc"), (1, 2, "b", "grpc"),
        (10, 1, "a", "grpc"), (10, 1, "a", "protosocket"), (10, 1, "b", "grpc"),
        (10, 2, "a", "grpc"), (10, 2, "b", "grpc"),
    ]  # fmt: skip


def test_without_channels_for_them_the_other_transports_run_at_every_point() -> None:
    plan = TransportPlan({"jiffy-js": ("http2", "grpc-js", "protosocket")})
    grid = closed_grid(["jiffy-js"], [1], [1, 2], None, rounds=1, transport_plan=plan)
    assert [(p.channels, p.transport) for p in grid] == [
        (1, "http2"), (1, "grpc-js"), (1, "protosocket"),
        (2, "http2"), (2, "grpc-js"), (2, "protosocket"),
    ]  # fmt: skip


def test_a_point_names_its_transport_when_it_is_not_the_sdk_s_default() -> None:
    plain = PointSpec("jiffy-js", 1, 5, 5, None, 0)
    assert plain.transport_name == "http2"
    assert plain.label() == "jiffy-js ch=1 c=5 cap=5 r0"
    over = PointSpec("jiffy-js", 1, 5, 5, None, 0, "protosocket")
    assert over.label() == "jiffy-js protosocket ch=1 c=5 cap=5 r0"


def test_auto_runs_only_for_the_sdks_that_have_it_beside_every_fixed_cap() -> None:
    grid = closed_grid(["jiffy-python", "momento-js"], [10], [1], ["auto", 25], rounds=1)
    assert [(p.sdk, p.max_concurrent_requests) for p in grid] == [
        ("jiffy-python", "auto"), ("jiffy-python", 25), ("momento-js", 25),
    ]  # fmt: skip
    assert grid[0].label() == "jiffy-python ch=1 c=10 cap=auto r0"
    assert PointSpec("jiffy-js", 1, 5, 0, None, 0).label() == "jiffy-js ch=1 c=5 cap=none r0"


def _parse(*argv: str) -> argparse.Namespace:
    p = cli.parser()
    args = p.parse_args(list(argv))
    cli.check(p, args)
    return args


@pytest.mark.parametrize(
    ("text", "caps"),
    [("auto", ["auto"]), ("auto,25,50", ["auto", 25, 50]), ("0, auto", [0, "auto"])],
)
def test_max_concurrent_requests_takes_auto_among_its_numbers(text: str, caps: list[Any]) -> None:
    args = _parse("--sdk", "jiffy-python,jiffy-js", "--max-concurrent-requests", text)
    assert args.max_concurrent_requests == caps


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("-1", "'-1': -1 is negative: a cap is auto, 0 (no cap) or more"),
        ("aut", "'aut' is neither auto nor a whole number of 0 (no cap) or more"),
        ("2.5", "'2.5' is neither auto nor a whole number"),
        ("AUTO", "'AUTO' is neither auto"),
    ],
)
def test_a_bad_cap_is_a_usage_error_that_says_why(
    text: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        _parse("--max-concurrent-requests=" + text)
    assert exited.value.code == 2
    assert says in capsys.readouterr().err


def test_only_auto_for_an_sdk_without_it_is_refused_mixed_it_is_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        _parse("--sdk", "jiffy-js,momento-python", "--max-concurrent-requests", "auto")
    err = capsys.readouterr().err
    assert "--max-concurrent-requests auto: momento-python has no adaptive cap" in err
    assert "(only jiffy-python, jiffy-js do)" in err
    args = _parse("--sdk", "jiffy-js,momento-python", "--max-concurrent-requests", "auto,50")
    assert caps.skipped_auto(args.sdk, args.max_concurrent_requests) == ["momento-python"]


def test_the_delay_is_refused_for_the_official_sdks_and_protosocket(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _parse().delay_ms == 0
    args = _parse("--sdk", "jiffy-python,jiffy-js", "--delay-ms", "2")
    assert args.delay_ms == 2
    # The delay is a gRPC header: protosocket leaves the default transports.
    assert cli.transport_plan(args).by_sdk == {"jiffy-python": ("grpc",), "jiffy-js": ("http2",)}
    assert cli.server_args(args) == ["--enable-fault-injection"]
    external = _parse("--delay-ms", "2", "--endpoint", "10.0.0.1:8080")
    assert cli.server_args(external) == []  # that server's flags are its own
    for argv, says in [
        (["--sdk", "jiffy-python,momento-js", "--delay-ms", "1"], "--delay-ms: momento-js cannot"),
        (["--delay-ms", "1", "--transports", "grpc,protosocket"], "protosocket cannot carry"),
        (["--delay-ms", "-3"], "'-3': 0 or more"),
        (["--delay-ms", "1.5"], "not a whole number: '1.5'"),
    ]:
        with pytest.raises(SystemExit):
            _parse(*argv)
        assert says in capsys.readouterr().err
