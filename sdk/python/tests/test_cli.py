"""The `jiffy` command end to end, as a separate process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import Server

# The console script when installed; `python -m jiffy.cli` is the same code.
JIFFY = shutil.which("jiffy", path=str(Path(sys.executable).parent))


def jiffy_cmd(*args: str, endpoint: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JIFFY_", "MOMENTO_"))}
    if endpoint:
        env["JIFFY_ENDPOINT"] = endpoint
    command = [JIFFY] if JIFFY else [sys.executable, "-m", "jiffy.cli"]
    return subprocess.run([*command, *args], capture_output=True, text=True, env=env, timeout=60)


def test_cache_and_item_commands(server: Server, cache_name: str) -> None:
    at = server.address
    assert jiffy_cmd("cache", "create", cache_name, endpoint=at).returncode == 0
    assert cache_name in jiffy_cmd("cache", "list", endpoint=at).stdout.split()
    assert (
        jiffy_cmd(
            "set", "--cache", cache_name, "greeting", "hello", "--ttl", "30", endpoint=at
        ).returncode
        == 0
    )
    got = jiffy_cmd("get", "--cache", cache_name, "greeting", endpoint=at)
    assert (got.returncode, got.stdout) == (0, "hello\n")
    ttl = jiffy_cmd("ttl", "--cache", cache_name, "greeting", endpoint=at)
    assert 0 < float(ttl.stdout) <= 30
    assert jiffy_cmd("delete", "--cache", cache_name, "greeting", endpoint=at).returncode == 0
    missing = jiffy_cmd("get", "--cache", cache_name, "greeting", endpoint=at)
    assert (missing.returncode, missing.stdout) == (2, "")
    assert jiffy_cmd("cache", "flush", cache_name, endpoint=at).returncode == 0
    assert jiffy_cmd("--endpoint", at, "cache", "delete", cache_name).returncode == 0


def test_errors_are_one_line_and_non_zero(server: Server, cache_name: str) -> None:
    failed = jiffy_cmd("get", "--cache", "no-such-cache", "k", endpoint=server.address)
    assert failed.returncode == 1
    assert failed.stderr.count("\n") == 1
    assert failed.stderr.startswith("jiffy: Get failed: NOT_FOUND")
    no_endpoint = jiffy_cmd("cache", "list")
    assert no_endpoint.returncode == 1
    assert "JIFFY_ENDPOINT" in no_endpoint.stderr
    no_cache = jiffy_cmd("get", "k", endpoint=server.address)
    assert no_cache.returncode == 1
    assert "--cache" in no_cache.stderr
