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
def test_a_two_point_sweep_writes_valid_results_with_server_latency(tmp_path: Path) -> None:
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
    assert data["server"]["kind"] == "embedded"
    assert data["server"]["version"]
    points = data["points"]
    assert [(p["concurrency"], p["max_concurrent_requests"]) for p in points] == [(1, 1), (2, 2)]
    for point in points:
        assert point["status"] == "ok", point["error"]
        assert point["rps"] > 0
        assert point["loadgen"]["config"]["concurrency"] == point["concurrency"]
        assert point["effective"] == {
            "channels": 1,
            "max_concurrent_requests": point["concurrency"],
        }
        server = point["server_ms"]
        assert server is not None
        # Every request the loadgen counted (and its warmup's) reached the server.
        assert server["count"] >= point["requests"]
        assert 0 < server["p50"] <= server["p999"]
    assert {r["target_ms"] for r in data["recommendations"]} == {1000.0, 5.0}
    assert "Recommendation" in done.stdout
    assert not (out / "report.html").exists()
    assert data["stopped"] is None
    # One round: labelled noisy on the console and in what is recommended.
    assert "Noisy: 1 round per point." in done.stdout
    met = [r for r in data["recommendations"] if r["met"]]
    assert 1000.0 in [r["target_ms"] for r in met]
    for rec in met:
        assert rec["noisy"] is True
        assert "Noisy: 1 round" in rec["statement"]
        # The preset connects where the sweep did, to the cache it used.
        code = rec["preset"]["code"]
        assert f'Endpoint.parse("{data["server"]["endpoint"]}")' in code
        assert 'default_cache="loadgen"' in code
    assert data["settings"]["cache"] == "loadgen"
    assert all(p["loadgen"]["config"].get("cache", "loadgen") == "loadgen" for p in points)


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
