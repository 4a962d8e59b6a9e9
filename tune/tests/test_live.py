"""One tiny sweep against a real jiffy-server: the console script end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO

from jiffy_tune import results

SERVER = Path(os.environ.get("JIFFY_SERVER_BIN", REPO / "target/release/jiffy-server"))


@pytest.mark.skipif(not SERVER.exists(), reason=f"needs {SERVER} (cargo build --release)")
def test_a_two_point_sweep_writes_valid_results_with_server_latency(tmp_path: Path) -> None:
    out = tmp_path / "run"
    script = shutil.which("jiffy-tune", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "jiffy_tune"]
    argv = ["--sdk", "jiffy-python", "--concurrency", "1,2", "--channels", "1"]
    argv += ["--duration", "1", "--warmup", "0", "--no-report", "--quiet", "--out", str(out)]
    done = subprocess.run(
        [*command, *argv, "--server-bin", str(SERVER)],
        capture_output=True,
        text=True,
        timeout=120,
    )
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
    assert {r["target_ms"] for r in data["recommendations"]} == {20.0, 5.0}
    assert "Recommendation" in done.stdout
    assert not (out / "report.html").exists()
