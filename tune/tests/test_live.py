"""One tiny sweep against a real jiffy-server: the console script end to end."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import markupsafe
import pytest
from conftest import REPO

from jiffy_tune import results

SERVER = Path(os.environ.get("JIFFY_SERVER_BIN", REPO / "target/release/jiffy-server"))
needs_server = pytest.mark.skipif(
    not SERVER.exists(), reason=f"needs {SERVER} (cargo build --release)"
)


def jiffy_tune(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    script = shutil.which("jiffy-tune", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "jiffy_tune"]
    return subprocess.run([*command, *argv], capture_output=True, text=True, timeout=timeout)


@needs_server
def test_a_sweep_over_grpc_and_protosocket_writes_valid_results_with_server_latency(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    argv = ["--sdk", "jiffy-python", "--concurrency", "1,2", "--channels", "1"]
    argv += ["--duration", "1", "--warmup", "0", "--no-report", "--quiet", "--out", str(out)]
    # A target any point meets, even on a busy machine, so that there is a preset to read.
    argv += ["--targets", "1000,5"]
    done = jiffy_tune(*argv, "--server-bin", str(SERVER))
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "results.json").read_text())
    jsonschema.validate(data, results.schema())
    assert data["interrupted"] is False
    server = data["server"]
    assert server["kind"] == "embedded"
    assert server["version"]
    # By default the embedded server opens a protosocket port and the sweep uses it.
    assert re.fullmatch(r"127\.0\.0\.1:\d+", server["protosocket_endpoint"])
    assert server["protosocket_endpoint"] != server["endpoint"]
    assert data["settings"]["transports"] == {"jiffy-python": ["grpc", "protosocket"]}
    points = data["points"]
    assert [(p["concurrency"], p["transport"]) for p in points] == [
        (1, "grpc"), (1, "protosocket"), (2, "grpc"), (2, "protosocket"),
    ]  # fmt: skip
    for point in points:
        assert point["status"] == "ok", point["error"]
        assert point["rps"] > 0
        assert point["loadgen"]["config"]["concurrency"] == point["concurrency"]
        # The loadgen says it ran over the transport it was told.
        assert point["effective"] == {
            "channels": 1,
            "max_concurrent_requests": point["concurrency"],
            "transport": point["transport"],
        }
        latency = point["server_ms"]
        assert latency is not None
        # Every request the loadgen counted (and its warmup's) reached the server, on either port.
        assert latency["count"] >= point["requests"]
        assert 0 < latency["p50"] <= latency["p999"]
    assert [(e["transport"], e["concurrency"]) for e in data["summary"]] == [
        (p["transport"], p["concurrency"]) for p in points
    ]
    assert {r["target_ms"] for r in data["recommendations"]} == {1000.0, 5.0}
    assert "Recommendation" in done.stdout
    assert "Each transport: most throughput" in done.stdout
    assert not (out / "report.html").exists()
    assert data["stopped"] is None
    # One round: labelled noisy on the console, and too few to recommend or write a preset.
    assert "Noisy: 1 round per point." in done.stdout
    met = [r for r in data["recommendations"] if r["met"]]
    assert 1000.0 in [r["target_ms"] for r in met]
    for rec in met:
        assert rec["noisy"] is True
        assert rec["statement"].startswith("jiffy-python: not enough rounds to recommend: ")
        assert rec["transport"] == rec["point"]["transport"]
        assert f" over {rec['transport']} with " in rec["statement"]
        assert rec["preset"] is None
    assert "jiffy-python: not enough rounds to recommend: " in done.stdout
    assert data["settings"]["cache"] == "loadgen"
    assert all(p["loadgen"]["config"].get("cache", "loadgen") == "loadgen" for p in points)


JS_LOADGEN = REPO / "sdk/js/dist/loadgen.js"


@needs_server
@pytest.mark.skipif(not JS_LOADGEN.exists(), reason="needs sdk/js built (make build-js)")
def test_the_typescript_sdk_s_other_transports_run_at_the_transport_channels(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    argv = ["--sdk", "jiffy-js", "--concurrency", "2", "--channels", "1,2"]
    argv += ["--transports", "http2,grpc-js,protosocket", "--transport-channels", "2"]
    argv += ["--duration", "1", "--warmup", "0", "--targets", "1000", "--quiet"]
    done = jiffy_tune(*argv, "--out", str(out), "--server-bin", str(SERVER))
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "results.json").read_text())
    jsonschema.validate(data, results.schema())
    assert [(p["channels"], p["transport"]) for p in data["points"]] == [
        (1, "http2"), (2, "http2"), (2, "grpc-js"), (2, "protosocket"),
    ]  # fmt: skip
    for point in data["points"]:
        assert point["status"] == "ok", point["error"]
        assert point["effective"]["transport"] == point["transport"]
        assert point["loadgen"]["runtime"].endswith(f" transport={point['transport']}")
    # The report has the transports side by side, and a chart per transport.
    markdown = (out / "report.md").read_text()
    assert "## Each transport" in markdown
    assert "| jiffy-js | p99.9 < 1000 ms | grpc-js |" in markdown
    assert "jiffy-js: http2, grpc-js, protosocket (each SDK's transports after its first" in (
        markdown
    )
    charts = {path.name for path in (out / "charts").glob("latency-*.png")}
    assert {f"latency-jiffy-js-over-{t}.png" for t in ("http2", "grpc-js", "protosocket")} <= (
        charts
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_endpoint_nothing_listens_on_is_refused_before_the_sweep(tmp_path: Path) -> None:
    endpoint = f"127.0.0.1:{free_port()}"
    started = time.monotonic()

    done = jiffy_tune("--endpoint", endpoint, "--sdk", "jiffy-python", "--out", str(tmp_path))

    assert done.returncode == 1
    assert f"jiffy-tune: cannot reach {endpoint}: connection refused" in done.stderr
    assert time.monotonic() - started < 10  # no loadgen waited out its connect timeout
    assert not (tmp_path / "results.json").exists()


@pytest.fixture
def server() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A jiffy-server of the test's own, which a test may kill."""
    process = subprocess.Popen(
        [str(SERVER), "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    try:
        for line in process.stdout:
            match = re.match(r"listening on (\S+)", line)
            if match:
                yield process, match.group(1)
                break
        else:
            pytest.fail("jiffy-server did not say where it listens")
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def protosocket_server() -> Iterator[tuple[str, str]]:
    """A jiffy-server of the test's own with a protosocket port: its two addresses."""
    process = subprocess.Popen(
        [str(SERVER), "--listen", "127.0.0.1:0", "--protosocket-listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    try:
        found: dict[str, str] = {}
        for line in process.stdout:
            match = re.match(r"(protosocket )?listening on (\S+)", line)
            if match:
                found["protosocket" if match.group(1) else "grpc"] = match.group(2)
            if len(found) == 2:
                yield found["grpc"], found["protosocket"]
                break
        else:
            pytest.fail("jiffy-server did not say where it listens")
    finally:
        process.kill()
        process.wait()


@needs_server
def test_an_external_server_s_protosocket_port_is_swept_when_named(
    tmp_path: Path, protosocket_server: tuple[str, str]
) -> None:
    endpoint, protosocket = protosocket_server
    out = tmp_path / "run"
    argv = ["--endpoint", endpoint, "--protosocket-endpoint", protosocket]
    argv += ["--sdk", "jiffy-python", "--transports", "protosocket", "--concurrency", "1"]
    argv += ["--channels", "1", "--duration", "0.5", "--warmup", "0", "--targets", "1000"]
    # The 3 rounds a recommendation, and so a preset, takes.
    argv += ["--rounds", "3", "--no-report", "--quiet", "--out", str(out)]

    done = jiffy_tune(*argv)

    assert done.returncode == 0, done.stderr
    data = json.loads((out / "results.json").read_text())
    jsonschema.validate(data, results.schema())
    assert data["server"]["kind"] == "external"
    assert data["server"]["protosocket_endpoint"] == protosocket
    assert len(data["points"]) == 3
    for point in data["points"]:
        assert (point["status"], point["transport"]) == ("ok", "protosocket"), point["error"]
    [rec] = data["recommendations"]
    assert rec["noisy"] is False
    # The preset connects where the sweep did, to the cache it used, over its transport.
    code = rec["preset"]["code"]
    assert f'Endpoint.parse("{endpoint}")' in code
    assert 'default_cache="loadgen"' in code
    assert f'protosocket_endpoint="{protosocket}",' in code


@needs_server
def test_a_protosocket_port_nothing_listens_on_is_refused_before_the_sweep(
    tmp_path: Path, protosocket_server: tuple[str, str]
) -> None:
    endpoint, _ = protosocket_server
    closed = f"127.0.0.1:{free_port()}"
    argv = ["--endpoint", endpoint, "--protosocket-endpoint", closed, "--sdk", "jiffy-python"]

    done = jiffy_tune(*argv, "--out", str(tmp_path))

    assert done.returncode == 1
    assert f"jiffy-tune: cannot reach {closed}: connection refused" in done.stderr
    assert not (tmp_path / "results.json").exists()


# Runs the real Python loadgen, after killing the server before the point at concurrency 2.
KILLING_LOADGEN = """\
import os, signal, sys
args = sys.argv[1:]
if args[args.index("--concurrency") + 1] == "2":
    os.kill({pid}, signal.SIGKILL)
os.execv(sys.executable, [sys.executable, "-m", "jiffy.loadgen", *args])
"""


@needs_server
def test_a_server_that_dies_mid_sweep_stops_it_with_the_loadgen_s_own_error(
    tmp_path: Path, server: tuple[subprocess.Popen[str], str]
) -> None:
    process, endpoint = server
    wrapper = tmp_path / "killing_loadgen.py"
    wrapper.write_text(KILLING_LOADGEN.format(pid=process.pid))
    out = tmp_path / "run"
    loadgen = "jiffy-python=" + shlex.join([sys.executable, str(wrapper)])
    argv = ["--endpoint", endpoint, "--sdk", "jiffy-python", "--loadgen", loadgen]
    argv += ["--concurrency", "1,2,3", "--channels", "1", "--duration", "1", "--warmup", "0"]

    done = jiffy_tune(*argv, "--out", str(out))

    assert done.returncode == 1, done.stderr
    data = json.loads((out / "results.json").read_text())
    jsonschema.validate(data, results.schema())
    ok, dead = data["points"]  # the third point was never run
    assert ok["status"] == "ok"
    assert dead["status"] == "failed"
    assert dead["error"].startswith("exit status 1: ")
    assert f"ConnectionError: cannot connect to {endpoint}: connection refused" in dead["error"]
    excerpt = dead["stderr_excerpt"].splitlines()
    assert excerpt[0] == "Traceback (most recent call last):"
    assert dead["error"].endswith(excerpt[-1])
    assert data["stopped"] == (
        f"the server at {endpoint} went away (connection refused); the sweep stopped after "
        "point 1, 1 planned point not run"
    )
    # The console: the progress line, the failure with its stderr, why the sweep stopped.
    console = done.stdout + done.stderr
    assert f"[2/3] jiffy-python ch=1 c=2: failed: {dead['error']}" in console
    assert f"  point 1: jiffy-python ch=1 c=2: failed: {dead['error']}" in console
    assert "    | Traceback (most recent call last):" in console
    assert f"    | {excerpt[-1]}" in console
    assert f"stopped: {data['stopped']}" in console
    # The report: the same error, the stderr excerpt, the reason it stopped.
    markdown = (out / "report.md").read_text()
    assert f"This run stopped early: {data['stopped']}." in markdown
    assert "### stderr of point 1\n\n```text\n" + dead["stderr_excerpt"] + "\n```" in markdown
    assert str(markupsafe.escape(dead["error"])) in (out / "report.html").read_text()


@needs_server
def test_auto_beside_a_fixed_cap_with_a_delay_is_compared(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["--sdk", "jiffy-python", "--concurrency", "10", "--channels", "1"]
    argv += ["--max-concurrent-requests", "auto,10", "--delay-ms", "1", "--targets", "60000"]
    argv += ["--duration", "1", "--warmup", "0.5", "--quiet", "--out", str(out)]
    done = jiffy_tune(*argv, "--server-bin", str(SERVER))
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "results.json").read_text())
    jsonschema.validate(data, results.schema())
    assert data["settings"]["delay_ms"] == 1
    assert data["settings"]["server_args"] == ["--enable-fault-injection"]
    auto, fixed = data["points"]
    for point in (auto, fixed):
        assert point["status"] == "ok", point["error"]
        assert point["transport"] == "grpc"  # the delay is a gRPC header
        assert point["loadgen"]["config"]["delay_ms"] == 1
        # The server held every call: no call came back sooner than the delay.
        assert point["client_ms"]["p50"] >= 1.0
    assert auto["effective"]["max_concurrent_requests"] == "auto"
    assert auto["in_flight_limit"]
    assert auto["in_flight_limit"] == auto["loadgen"]["in_flight_limit"]
    assert fixed["in_flight_limit"] is None
    [row] = data["auto_comparison"]
    assert row["best_cap"]["max_concurrent_requests"] == 10
    assert row["share"] == pytest.approx(auto["rps"] / fixed["rps"], abs=1e-3)
    assert "auto against the best fixed cap" in done.stdout
    assert "## auto against the best fixed cap" in (out / "report.md").read_text()
    assert (out / "charts" / "auto-limit.png").exists()
