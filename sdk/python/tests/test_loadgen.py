"""The loadgen's --json output follows LOADGEN.md on a short real run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import jiffy
from tests.conftest import Server

PERCENTILE_KEYS = {"p50", "p90", "p99", "p999", "max"}
CONFIG_KEYS = {"concurrency", "rate", "channels", "max_concurrent_requests", "preset",
               "duration_s", "warmup_s", "value_size", "keyspace", "get_ratio"}  # fmt: skip
TOP_KEYS = {"sdk", "sdk_version", "runtime", "config", "requests", "rps", "errors",
            "latency_ms", "latency_ms_by_op", "connections", "client_cpu_percent"}  # fmt: skip


@pytest.mark.parametrize(
    "extra", [[], ["--rate", "500", "--channels", "2"]], ids=["closed", "open"]
)
def test_json_schema_on_a_one_second_run(server: Server, extra: list[str]) -> None:
    command = [sys.executable, "-m", "jiffy.loadgen", "--endpoint", server.address, "--json",
               "--duration", "1", "--warmup", "0.2", "--concurrency", "4", *extra]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout)  # one object and nothing else
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
    assert report["connections"] == report["config"]["channels"]
    assert report["client_cpu_percent"] > 0
    if extra:
        assert report["rps"] == pytest.approx(500, rel=0.2)


def test_flags_are_validated(server: Server) -> None:
    command = [sys.executable, "-m", "jiffy.loadgen", "--get-ratio", "2", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
