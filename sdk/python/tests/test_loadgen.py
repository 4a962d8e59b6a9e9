"""The loadgen's --json output follows docs/LOADGEN.md on a short real run.

The report is checked against docs/loadgen-report.schema.json, the contract
every loadgen and jiffy-tune share: a field renamed, dropped or added here
without the schema (and the doc) fails.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import jiffy
from jiffy._adaptive import INITIAL_LIMIT, MIN_LIMIT, STREAMS_PER_CONNECTION
from tests.conftest import REPO_ROOT, Server

SCHEMA_PATH = REPO_ROOT / "docs" / "loadgen-report.schema.json"

PERCENTILE_KEYS = {"p50", "p90", "p99", "p999", "max"}
CONFIG_KEYS = {"concurrency", "rate", "channels", "max_concurrent_requests", "preset",
               "duration_s", "warmup_s", "value_size", "keyspace", "get_ratio",
               "workload", "transport"}  # fmt: skip
TOP_KEYS = {"sdk", "sdk_version", "runtime", "config", "requests", "rps", "errors",
            "latency_ms", "latency_ms_by_op", "connections", "client_cpu_percent",
            "in_flight_limit"}  # fmt: skip


@cache
def report_validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_errors(report: dict[str, Any]) -> list[str]:
    return [
        f"{error.json_path}: {error.message}" for error in report_validator().iter_errors(report)
    ]


@pytest.mark.parametrize(
    "extra", [[], ["--rate", "500", "--channels", "2"]], ids=["closed", "open"]
)
def test_json_schema_on_a_one_second_run(server: Server, extra: list[str]) -> None:
    command = [sys.executable, "-m", "jiffy.loadgen", "--endpoint", server.address, "--json",
               "--duration", "1", "--warmup", "0.2", "--concurrency", "4", *extra]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout)  # one object and nothing else
    assert schema_errors(report) == []
    assert set(report) == TOP_KEYS
    assert set(report["config"]) == CONFIG_KEYS
    assert report["sdk"] == "jiffy-python"
    assert report["runtime"].startswith("cpython ")
    assert report["requests"] > 0
    assert report["rps"] > 0
    assert report["errors"] == {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 0}
    assert set(report["latency_ms"]) == PERCENTILE_KEYS
    assert (
        report["latency_ms"]["p50"] <= report["latency_ms"]["p999"] <= report["latency_ms"]["max"]
    )
    assert set(report["latency_ms_by_op"]) == {"get", "set"}
    assert all(set(row) == PERCENTILE_KEYS for row in report["latency_ms_by_op"].values())
    # The preset's cap, since --max-concurrent-requests was not given.
    in_region_cap = jiffy.presets.in_region.latest().max_concurrent_requests
    assert report["config"]["max_concurrent_requests"] == in_region_cap
    assert report["config"]["channels"] == (2 if extra else 1)
    # --transport auto (the default) on a server without a protosocket port.
    assert report["config"]["transport"] == "grpc"
    assert report["connections"] == report["config"]["channels"]
    assert report["client_cpu_percent"] > 0
    if extra:
        assert report["rps"] == pytest.approx(500, rel=0.2)
    # The fixed cap, sampled every 0.1 s from the start of the warm-up.
    limits = report["in_flight_limit"]
    assert {limit for _, limit in limits} == {in_region_cap}
    assert limits[0][0] == pytest.approx(0.0, abs=0.05)
    assert 1.0 <= limits[-1][0] <= 2.0


def test_max_concurrent_requests_auto(server: Server) -> None:
    command = [sys.executable, "-m", "jiffy.loadgen", "--endpoint", server.address, "--json",
               "--duration", "1", "--warmup", "0.2", "--concurrency", "32",
               "--max-concurrent-requests", "auto"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout)
    assert schema_errors(report) == []
    assert report["config"]["max_concurrent_requests"] == "auto"
    assert report["errors"] == {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 0}
    limits = [limit for _, limit in report["in_flight_limit"]]
    assert limits[0] == INITIAL_LIMIT
    assert all(MIN_LIMIT <= limit <= STREAMS_PER_CONNECTION for limit in limits)
    assert max(limits) > INITIAL_LIMIT  # 32 callers: it rose


def test_delay_ms_holds_every_call(start_server: Callable[..., Server]) -> None:
    slowed = start_server("--enable-fault-injection")
    command = [sys.executable, "-m", "jiffy.loadgen", "--endpoint", slowed.address, "--json",
               "--duration", "1", "--warmup", "0.2", "--concurrency", "4",
               "--delay-ms", "5"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout)
    assert schema_errors(report) == []
    assert report["config"]["delay_ms"] == 5
    assert report["latency_ms"]["p50"] >= 5.0
    assert report["errors"] == {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 0}


def test_auto_is_refused_by_a_driver_without_an_adaptive_cap(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    from jiffy.loadgen import main
    from jiffy.loadgen._jiffy_driver import JiffyDriver

    class FixedOnly(JiffyDriver):
        sdk = "fixed-only"
        adaptive_cap = False

    argv = ["--endpoint", server.address, "--json", "--max-concurrent-requests", "auto"]
    assert main(FixedOnly, argv) == 2
    assert "--max-concurrent-requests auto" in capsys.readouterr().err


def test_delay_ms_is_refused_by_a_driver_that_cannot_send_it(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    from jiffy.loadgen import main
    from jiffy.loadgen._jiffy_driver import JiffyDriver

    class Plain(JiffyDriver):
        sdk = "plain"
        fault_delay = False

    assert main(Plain, ["--endpoint", server.address, "--json", "--delay-ms", "1"]) == 2
    assert "--delay-ms" in capsys.readouterr().err


@pytest.mark.parametrize("workload", ["dictionary", "list", "sorted-set"])
def test_each_collection_workload_runs_clean(server: Server, workload: str) -> None:
    command = [sys.executable, "-m", "jiffy.loadgen", "--endpoint", server.address, "--json",
               "--duration", "1", "--warmup", "0.2", "--concurrency", "4", "--keyspace", "20",
               "--workload", workload]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout)
    assert schema_errors(report) == []
    assert report["config"]["workload"] == workload
    assert report["requests"] > 0
    # No call failed: not even a wrong type from a key another workload wrote.
    assert report["errors"] == {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 0}
    assert set(report["latency_ms_by_op"]) == {"get", "set"}


def test_a_workload_the_driver_lacks_is_refused(server: Server) -> None:
    """A driver without a workload's operations exits 2 before it runs."""
    from jiffy.loadgen import main
    from jiffy.loadgen._jiffy_driver import JiffyDriver

    class ScalarOnly(JiffyDriver):
        sdk = "scalar-only"
        dictionary_get = None  # type: ignore[assignment]

    argv = ["--endpoint", server.address, "--json", "--workload", "dictionary"]
    assert main(ScalarOnly, argv) == 2


@pytest.mark.parametrize(
    ("transport", "carried_by", "connections"),
    [("protosocket", "protosocket", 4), ("auto", "protosocket", 4), ("grpc", "grpc", 2)],
)
def test_transports_on_a_server_with_a_protosocket_port(
    start_server: Callable[..., Server], transport: str, carried_by: str, connections: int
) -> None:
    served = start_server("--protosocket-listen", "127.0.0.1:0")
    command = [sys.executable, "-m", "jiffy.loadgen", "--endpoint", served.address, "--json",
               "--duration", "1", "--warmup", "0.2", "--concurrency", "4",
               "--channels", "2"]  # fmt: skip
    if transport != "auto":  # auto is the default: not given
        command += ["--transport", transport]
    if transport == "protosocket":
        command += ["--protosocket-endpoint", served.protosocket_address]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout)
    assert schema_errors(report) == []
    # Forced, or what auto found: the server's Ping names its port.
    assert report["config"]["transport"] == carried_by
    # Two gRPC channels (creating the cache), and with protosocket two
    # protosocket connections: both ports count, as in the Node loadgen.
    assert report["config"]["channels"] == 2
    assert report["connections"] == connections
    assert report["requests"] > 0
    assert report["errors"] == {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 0}
    sets = f'jiffy_requests_total{{code="OK",rpc="Set",transport="{carried_by}"}}'
    assert served.metric(sets) > 0


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--transport", "protosocket"], "needs --protosocket-endpoint"),
        (["--protosocket-endpoint", "127.0.0.1:1"], "is for --transport protosocket"),
        (["--transport", "udp"], "invalid choice"),
    ],
)
def test_transport_flags_are_validated(flags: list[str], says: str) -> None:
    command = [sys.executable, "-m", "jiffy.loadgen", *flags, "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert says in done.stderr
    assert done.stdout == ""


def test_flags_are_validated(server: Server) -> None:
    for bad in (["--get-ratio", "2"], ["--workload", "hash"]):
        command = [sys.executable, "-m", "jiffy.loadgen", *bad, "--json"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, bad
        assert done.stdout == ""


def test_the_schema_refuses_renamed_missing_and_unknown_fields() -> None:
    """The schema is strict enough that the test above catches a renamed field."""
    percentiles = {"p50": 0.5, "p90": 0.8, "p99": 1.2, "p999": 2.0, "max": 3.1}
    report: dict[str, Any] = {
        "sdk": "jiffy-python", "sdk_version": jiffy.__version__, "runtime": "cpython 3.11.7",
        "config": {"concurrency": 4, "rate": 0.0, "channels": 1, "max_concurrent_requests": 25,
                   "preset": "in_region", "duration_s": 1.0, "warmup_s": 0.2,
                   "value_size": 100, "keyspace": 10000, "get_ratio": 0.5,
                   "workload": "scalar"},
        "requests": 1000, "rps": 1000.0, "errors": {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 0},
        "latency_ms": percentiles, "latency_ms_by_op": {"get": percentiles, "set": percentiles},
        "connections": 1, "client_cpu_percent": 50.0,
    }  # fmt: skip
    assert schema_errors(report) == []

    renamed = copy.deepcopy(report)
    renamed["requests_per_s"] = renamed.pop("rps")
    assert schema_errors(renamed), "a renamed top-level field passed"

    renamed_config = copy.deepcopy(report)
    renamed_config["config"]["duration"] = renamed_config["config"].pop("duration_s")
    assert schema_errors(renamed_config), "a renamed config field passed"

    auto = copy.deepcopy(report)
    auto["config"]["max_concurrent_requests"] = "auto"
    auto["in_flight_limit"] = [[0.0, 4], [0.1, 8.5]]
    assert schema_errors(auto), "a fractional limit passed"
    auto["in_flight_limit"] = [[0.0, 4], [0.1, 8]]
    assert schema_errors(auto) == []
    auto["config"]["max_concurrent_requests"] = "adaptive"
    assert schema_errors(auto), "a cap other than a count or auto passed"

    renamed_percentile = copy.deepcopy(report)
    renamed_percentile["latency_ms"] = dict(percentiles, p99_9=2.0)
    del renamed_percentile["latency_ms"]["p999"]
    assert schema_errors(renamed_percentile), "a renamed percentile passed"

    wrong_type = copy.deepcopy(report)
    wrong_type["errors"] = {"UNAVAILABLE": "3"}
    assert schema_errors(wrong_type), "an error count that is a string passed"
