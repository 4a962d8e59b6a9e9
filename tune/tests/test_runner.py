"""One point with real (stand-in) loadgen processes: failures are recorded, not raised."""

from __future__ import annotations

import dataclasses
import shutil
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from jiffy_tune import runner
from jiffy_tune.plan import PointSpec
from jiffy_tune.runner import RunSettings, loadgen_argv, loadgen_env, run_point
from jiffy_tune.sdks import Loadgen, parse_override, resolve

SPEC = PointSpec(
    "stand-in", channels=2, concurrency=10, max_concurrent_requests=0, rate=None, round=0
)
SETTINGS = RunSettings(
    endpoint="127.0.0.1:9",
    metrics_url=None,
    duration_s=0.2,
    warmup_s=0.0,
    value_size=100,
    keyspace=10,
    get_ratio=0.5,
    preset="in_region",
    node_options=("--max-semi-space-size=1",),
    client_cpus=None,
)
REPORT = {
    "sdk": "stand-in", "sdk_version": "9.9", "runtime": "test",
    "config": {"concurrency": 10, "channels": 3, "max_concurrent_requests": 50},
    "requests": 1000, "rps": 5000.0, "errors": {"DEADLINE_EXCEEDED": 0, "UNAVAILABLE": 2},
    "latency_ms": {"p50": 0.5, "p90": 0.9, "p99": 2.0, "p999": 4.0, "max": 9.0},
    "connections": 3, "client_cpu_percent": 97.5,
}  # fmt: skip


def measured(loadgen: Loadgen, spec: PointSpec, settings: RunSettings) -> dict[str, Any]:
    """The point `run_point` measures, as results.json keeps it."""
    return run_point(loadgen, spec, settings).as_json()


def stand_in(script: str) -> Loadgen:
    return Loadgen("stand-in", (sys.executable, "-c", script), "python", None)


def test_the_loadgen_json_fills_the_point() -> None:
    script = f"import json, sys; print(json.dumps({REPORT!r}))"
    point = measured(stand_in(script), SPEC, SETTINGS)
    assert point["status"] == "ok"
    assert point["error"] is None
    assert (point["rps"], point["requests"]) == (5000.0, 1000)
    assert point["errors"] == {"UNAVAILABLE": 2}
    assert point["errors_total"] == 2
    assert point["client_ms"] == REPORT["latency_ms"]
    assert point["effective"] == {
        "channels": 3,
        "max_concurrent_requests": 50,
        "transport": None,  # the stand-in does not say
    }
    assert point["loadgen"] == REPORT
    assert point["server_ms"] is None  # no metrics URL
    assert point["client_share_p999"] is None
    assert point["wall_s"] > 0


def test_a_non_zero_exit_fails_the_point_with_its_exception_line() -> None:
    script = (
        "import sys\n"
        "sys.stderr.write('starting\\n' + '  noise\\n' * 50)\n"
        "raise RuntimeError('cannot connect')\n"
    )
    point = measured(stand_in(script), SPEC, SETTINGS)
    assert point["status"] == "failed"
    assert point["error"] == "exit status 1: RuntimeError: cannot connect"
    lines = point["stderr_excerpt"].splitlines()
    assert lines[0] == "starting"
    assert lines[1].startswith("[... ")
    assert lines[-1] == "RuntimeError: cannot connect"
    assert len(lines) == 6
    assert point["rps"] is None


def test_a_point_killed_by_a_signal_says_which() -> None:
    script = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    point = measured(stand_in(script), SPEC, SETTINGS)
    assert point["error"] == "killed by SIGKILL (nothing on stderr)"
    assert point["stderr_excerpt"] is None


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_python_loadgen_at_a_closed_port_fails_with_its_connection_error() -> None:
    """The real loadgen, not a stand-in: what a user sees when nothing listens."""
    [loadgen] = resolve(["jiffy-python"], REPO)
    endpoint = f"127.0.0.1:{closed_port()}"
    point = measured(loadgen, SPEC, dataclasses.replace(SETTINGS, endpoint=endpoint))
    assert point["status"] == "failed"
    assert point["error"].startswith("exit status 1: ")
    assert f"ConnectionError: cannot connect to {endpoint}: connection refused" in point["error"]
    assert "\n" not in point["error"]
    excerpt = point["stderr_excerpt"].splitlines()
    assert excerpt[0] == "Traceback (most recent call last):"
    assert point["error"].endswith(excerpt[-1])


NODE_LOADGEN = REPO / "sdk/js/dist/loadgen.js"


@pytest.mark.skipif(
    not NODE_LOADGEN.exists() or shutil.which("node") is None, reason="needs sdk/js built"
)
def test_the_node_loadgen_at_a_closed_port_fails_with_its_message() -> None:
    [loadgen] = resolve(["jiffy-js"], REPO)
    endpoint = f"127.0.0.1:{closed_port()}"
    point = measured(loadgen, SPEC, dataclasses.replace(SETTINGS, endpoint=endpoint))
    assert point["status"] == "failed"
    assert point["error"].startswith("exit status 1: loadgen: ")
    assert f"cannot connect to {endpoint}: connection refused" in point["error"]
    assert point["stderr_excerpt"].splitlines()[-1] in point["error"]


def test_unreadable_json_fails_the_point() -> None:
    point = measured(stand_in("print('not json')"), SPEC, SETTINGS)
    assert point["status"] == "failed"
    assert point["error"].startswith("unreadable JSON")


def test_json_without_the_contract_fields_fails_the_point() -> None:
    point = measured(stand_in("print('{\"rps\": 1}')"), SPEC, SETTINGS)
    assert point["status"] == "failed"
    assert "unreadable JSON" in point["error"]


def test_a_hung_loadgen_is_stopped_at_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "TIMEOUT_MARGIN_S", 0.3)
    started = time.monotonic()
    point = measured(stand_in("import time; time.sleep(60)"), SPEC, SETTINGS)
    assert time.monotonic() - started < runner.KILL_GRACE_S + 5
    assert point["status"] == "failed"
    assert point["error"] == "timed out after 0.5 s (nothing on stderr)"


def test_a_hung_loadgen_s_last_words_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "TIMEOUT_MARGIN_S", 1.8)
    script = "import sys, time; print('waiting for the server', file=sys.stderr, flush=True); "
    script += "time.sleep(60)"
    point = measured(stand_in(script), SPEC, SETTINGS)
    assert point["error"] == "timed out after 2 s: waiting for the server"
    assert point["stderr_excerpt"] == "waiting for the server"


def test_a_missing_program_fails_the_point() -> None:
    loadgen = Loadgen("stand-in", ("/nonexistent/loadgen",), "python", None)
    point = measured(loadgen, SPEC, SETTINGS)
    assert point["status"] == "failed"
    assert "could not start" in point["error"]


def test_the_argv_carries_the_loadgen_md_flags() -> None:
    argv = loadgen_argv(stand_in("pass"), SPEC, SETTINGS)
    assert argv[3:7] == ["--endpoint", "127.0.0.1:9", "--cache", "loadgen"]
    assert "--json" in argv
    assert "--rate" not in argv
    open_argv = loadgen_argv(stand_in("pass"), PointSpec("s", 1, 1000, 0, 2500.0, 0), SETTINGS)
    assert open_argv[-2:] == ["--rate", "2500"]
    assert _flags(argv) == {
        "--concurrency": "10",
        "--channels": "2",
        "--max-concurrent-requests": "0",
        "--preset": "in_region",
        "--duration": "0.2",
        "--warmup": "0",
        "--value-size": "100",
        "--keyspace": "10",
        "--get-ratio": "0.5",
    }


def _flags(argv: list[str]) -> dict[str, str]:
    args = argv[argv.index("--concurrency") :]
    return dict(zip(args[::2], args[1::2], strict=True))


def test_our_sdks_loadgens_are_told_their_transport_and_the_protosocket_port() -> None:
    settings = dataclasses.replace(SETTINGS, protosocket_endpoint="127.0.0.1:9004")
    python = Loadgen("jiffy-python", (sys.executable, "-m", "jiffy.loadgen"), "python", "python")
    over = PointSpec("jiffy-python", 1, 10, 10, None, 0, "protosocket")
    flags = _flags(loadgen_argv(python, over, settings))
    assert flags["--transport"] == "protosocket"
    assert flags["--protosocket-endpoint"] == "127.0.0.1:9004"
    js = Loadgen("jiffy-js", ("node", "loadgen.js"), "node", "typescript")
    plain = _flags(loadgen_argv(js, PointSpec("jiffy-js", 1, 10, 10, None, 0), settings))
    assert plain["--transport"] == "http2"  # the default, said all the same: the report echoes it
    assert "--protosocket-endpoint" not in plain
    official = Loadgen("momento-js", ("node", "m.mjs"), "node", "typescript")
    argv = loadgen_argv(official, PointSpec("momento-js", 1, 10, 10, None, 0), settings)
    assert "--transport" not in argv  # it has no choice to make


def test_a_protosocket_point_without_the_server_s_port_is_a_bug_not_a_point() -> None:
    python = Loadgen("jiffy-python", (sys.executable, "-m", "jiffy.loadgen"), "python", "python")
    over = PointSpec("jiffy-python", 1, 10, 10, None, 0, "protosocket")
    with pytest.raises(ValueError, match="protosocket endpoint"):
        loadgen_argv(python, over, SETTINGS)


def test_node_options_go_on_node_s_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NODE_OPTIONS", "--trace-warnings")
    node = Loadgen("n", ("/usr/bin/node", "x.js"), "node", "typescript")
    assert loadgen_argv(node, SPEC, SETTINGS)[:3] == [
        "/usr/bin/node",
        "--max-semi-space-size=1",
        "x.js",
    ]
    assert loadgen_env(node, SETTINGS)["NODE_OPTIONS"] == "--trace-warnings"


def test_node_options_reach_a_wrapped_node_loadgen_through_node_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NODE_OPTIONS", "--trace-warnings")
    wrapped = Loadgen("n", ("npx", "some-loadgen"), "node", None)
    assert loadgen_argv(wrapped, SPEC, SETTINGS)[:3] == ["npx", "some-loadgen", "--endpoint"]
    assert loadgen_env(wrapped, SETTINGS)["NODE_OPTIONS"] == (
        "--trace-warnings --max-semi-space-size=1"
    )
    assert loadgen_env(stand_in("pass"), SETTINGS)["NODE_OPTIONS"] == "--trace-warnings"


def test_the_registry_and_its_overrides(tmp_path: Path) -> None:
    loadgens = resolve(["jiffy-python", "momento-js"], tmp_path, python_uvloop=True)
    assert loadgens[0].command[1:] == ("-m", "jiffy.loadgen", "--uvloop")
    assert loadgens[1].command == ("node", str(tmp_path / "bench/momento_js_loadgen.mjs"))
    [custom] = resolve(["mine"], tmp_path, ["mine=node '/opt/my loadgen.js' --flag"])
    assert custom.command == ("node", "/opt/my loadgen.js", "--flag")
    assert (custom.runtime, custom.language) == ("node", None)
    [replaced] = resolve(["jiffy-js"], tmp_path, ["jiffy-js=/usr/bin/node other.js"])
    assert (replaced.runtime, replaced.language) == ("node", "typescript")
    with pytest.raises(ValueError, match="unknown SDK nope"):
        resolve(["nope"], tmp_path)
    with pytest.raises(ValueError, match="NAME=COMMAND"):
        parse_override("just-a-name")


def test_an_auto_point_with_a_delay_tells_the_loadgen_both() -> None:
    js = Loadgen("jiffy-js", ("node", "loadgen.js"), "node", "typescript")
    auto = PointSpec("jiffy-js", 1, 50, "auto", None, 0)
    delayed = dataclasses.replace(SETTINGS, delay_ms=2)
    flags = _flags(loadgen_argv(js, auto, delayed))
    assert flags["--max-concurrent-requests"] == "auto"
    assert flags["--delay-ms"] == "2"
    assert "--delay-ms" not in loadgen_argv(js, auto, SETTINGS)  # 0: not sent


def test_an_auto_point_keeps_the_limit_history_its_loadgen_reported() -> None:
    history = [[0.0, 4], [0.1, 8], [0.2, 11]]
    report = {**REPORT, "config": {**REPORT["config"], "max_concurrent_requests": "auto"}}
    script = f"import json; print(json.dumps({{**{report!r}, 'in_flight_limit': {history!r}}}))"
    auto = dataclasses.replace(SPEC, max_concurrent_requests="auto")
    point = measured(stand_in(script), auto, SETTINGS)
    assert point["status"] == "ok"
    assert point["effective"]["max_concurrent_requests"] == "auto"
    assert point["in_flight_limit"] == [[0.0, 4], [0.1, 8], [0.2, 11]]
    # A fixed cap's flat history stays in `loadgen` only.
    fixed = measured(stand_in(script), SPEC, SETTINGS)
    assert fixed["in_flight_limit"] is None
    assert fixed["loadgen"]["in_flight_limit"] == history


def test_a_point_answered_sooner_than_its_delay_fails_the_server_ignored_it() -> None:
    # REPORT's p50 is 0.5 ms: a server that held every call 2 ms cannot answer so.
    script = f"import json; print(json.dumps({REPORT!r}))"
    delayed = dataclasses.replace(SETTINGS, delay_ms=2)
    point = measured(stand_in(script), SPEC, delayed)
    assert point["status"] == "failed"
    assert point["error"] == (
        "--delay-ms 2: half the calls took under 0.5 ms, so the server ignored the delay "
        "header; start it with --enable-fault-injection"
    )
    assert point["client_ms"] == REPORT["latency_ms"]  # what it measured stays readable
    # A delay the calls did take is a point like any other.
    held = {**REPORT, "latency_ms": {**REPORT["latency_ms"], "p50": 2.3}}
    script = f"import json; print(json.dumps({held!r}))"
    assert measured(stand_in(script), SPEC, delayed)["status"] == "ok"
