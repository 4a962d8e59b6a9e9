"""The loadgen's report, parsed once: the schema's fields, and errors that name the field."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import jsonschema
import pytest
from conftest import FIXTURES, REPO

from jiffy_tune.loadgen_report import (
    LoadgenConfig,
    LoadgenReport,
    Percentiles,
    ReportError,
    parse_report,
)

SCHEMA = json.loads((REPO / "docs/loadgen-report.schema.json").read_text())
# The example of docs/LOADGEN.md, every field present.
VALID: dict[str, Any] = {
    "sdk": "jiffy-python",
    "sdk_version": "0.1.0",
    "runtime": "cpython 3.11.7 uvloop",
    "config": {
        "concurrency": 50, "rate": 0.0, "channels": 1, "max_concurrent_requests": 25,
        "preset": "in_region", "duration_s": 10.0, "warmup_s": 2.0, "value_size": 100,
        "keyspace": 10000, "get_ratio": 0.5, "workload": "scalar", "transport": "grpc",
    },
    "requests": 132490,
    "rps": 13249.0,
    "errors": {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 3},
    "latency_ms": {"p50": 1.8, "p90": 2.3, "p99": 2.9, "p999": 3.3, "max": 9.1},
    "latency_ms_by_op": {
        "get": {"p50": 1.8, "p90": 2.3, "p99": 2.9, "p999": 3.2, "max": 8.7},
        "set": {"p50": 1.8, "p90": 2.3, "p99": 2.9, "p999": 3.4, "max": 9},
    },
    "connections": 1,
    "client_cpu_percent": 99.1,
    "in_flight_limit": [[0.0, 25], [0.1, 25], [0.2, 24]],
}  # fmt: skip


def valid() -> dict[str, Any]:
    return copy.deepcopy(VALID)


def test_the_example_keeps_the_schema() -> None:
    jsonschema.validate(VALID, SCHEMA)


def test_a_valid_report_is_read_whole() -> None:
    report = parse_report(valid())
    assert report.rps == 13249.0
    assert report.requests == 132490
    assert report.latency_ms == Percentiles(p50=1.8, p90=2.3, p99=2.9, p999=3.3, max=9.1)
    assert report.latency_ms_by_op["set"].max == 9.0
    assert (report.sdk, report.sdk_version) == ("jiffy-python", "0.1.0")
    assert report.config.channels == 1
    assert report.config.max_concurrent_requests == 25
    assert report.config.transport == "grpc"
    assert report.config.delay_ms is None  # only when --delay-ms was given
    assert report.errors == {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 3}
    assert (report.connections, report.client_cpu_percent) == (1, 99.1)
    assert report.in_flight_limit == ((0.0, 25), (0.1, 25), (0.2, 24))
    assert report.raw == VALID


def test_the_model_has_every_field_of_the_schema() -> None:
    def names(cls: type[Any]) -> set[str]:
        return {f.name for f in dataclasses.fields(cls)}

    assert set(SCHEMA["properties"]) == names(LoadgenReport) - {"raw"}
    assert set(SCHEMA["properties"]["config"]["properties"]) == names(LoadgenConfig)
    assert set(SCHEMA["$defs"]["percentiles"]["properties"]) == names(Percentiles)


def test_auto_is_a_cap() -> None:
    report = valid()
    report["config"]["max_concurrent_requests"] = "auto"
    assert parse_report(report).config.max_concurrent_requests == "auto"


def test_the_contract_needs_only_rps_requests_and_latency() -> None:
    minimal = {key: VALID[key] for key in ("rps", "requests", "latency_ms")}
    report = parse_report(minimal)
    assert report.config == LoadgenConfig()
    assert report.errors == {}
    assert report.connections is None
    assert report.in_flight_limit is None


@pytest.mark.parametrize("name", ["rps", "requests", "latency_ms"])
def test_a_missing_contract_field_is_named(name: str) -> None:
    report = valid()
    del report[name]
    with pytest.raises(ReportError, match=f"^{name} is missing$"):
        parse_report(report)


def test_a_missing_percentile_is_named_with_its_path() -> None:
    report = valid()
    del report["latency_ms_by_op"]["get"]["p999"]
    with pytest.raises(ReportError, match=r"^latency_ms_by_op\.get\.p999 is missing$"):
        parse_report(report)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("rps",), "fast", "rps: expected a number, got a string ('fast')"),
        (("requests",), 1.5, "requests: expected a whole number, got a number (1.5)"),
        (("latency_ms", "p50"), True, "latency_ms.p50: expected a number, got a boolean (true)"),
        (("latency_ms",), [1, 2], "latency_ms: expected an object, got an array"),
        (("config", "channels"), "2", "config.channels: expected a whole number, got a string"),
        (
            ("config", "max_concurrent_requests"),
            "none",
            'config.max_concurrent_requests: expected a whole number or "auto"',
        ),
        (("config", "transport"), 1, "config.transport: expected a string, got a number (1)"),
        (("errors", "UNAVAILABLE"), "3", "errors.UNAVAILABLE: expected a whole number"),
        (("connections",), 1.0, "connections: expected a whole number, got a number (1.0)"),
        (("in_flight_limit",), {}, "in_flight_limit: expected an array, got an object"),
        (("in_flight_limit", 1), [0.1], "in_flight_limit[1]: expected [seconds, limit]"),
        (("in_flight_limit", 2), [0.2, "24"], "in_flight_limit[2].limit: expected a whole number"),
    ],
)
def test_a_wrong_type_is_named_with_its_path(
    path: tuple[str | int, ...], value: object, message: str
) -> None:
    report = valid()
    inner: Any = report
    for step in path[:-1]:
        inner = inner[step]
    inner[path[-1]] = value
    with pytest.raises(ReportError) as raised:
        parse_report(report)
    assert str(raised.value).startswith(message)


def test_not_an_object_at_all() -> None:
    with pytest.raises(ReportError, match="^the report: expected an object, got an array$"):
        parse_report([VALID])


@pytest.mark.parametrize("name", ["closed_4sdk.json", "open_2sdk.json", "closed_transports.json"])
def test_every_recorded_report_parses(name: str) -> None:
    """The loadgens' reports kept in real runs (the report_* fixtures are trimmed by hand)."""
    points = json.loads((FIXTURES / name).read_text())["points"]
    reports = [point["loadgen"] for point in points if point["loadgen"]]
    assert reports
    for raw in reports:
        report = parse_report(raw)
        assert report.raw == raw
