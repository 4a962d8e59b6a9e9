"""The `jiffy` command end to end, as a separate process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import jiffy
from tests.conftest import Server

# The console script when installed; `python -m jiffy.cli` is the same code.
JIFFY = shutil.which("jiffy", path=str(Path(sys.executable).parent))


def jiffy_cmd(
    *args: str, endpoint: str | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JIFFY_", "MOMENTO_"))}
    if endpoint:
        env["JIFFY_ENDPOINT"] = endpoint
    command = [JIFFY] if JIFFY else [sys.executable, "-m", "jiffy.cli"]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, env=env, timeout=60, input=stdin
    )


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
    # Exit status as grep's: a miss is 1 and prints nothing.
    assert (missing.returncode, missing.stdout) == (1, "")
    from_stdin = jiffy_cmd("set", "--cache", cache_name, "doc", "-", endpoint=at, stdin="line 1\n")
    assert from_stdin.returncode == 0
    got = jiffy_cmd("get", "--cache", cache_name, "doc", endpoint=at)
    assert got.stdout == "line 1\n\n"  # the value, then the newline `get` adds
    assert jiffy_cmd("cache", "flush", cache_name, endpoint=at).returncode == 0
    assert jiffy_cmd("--endpoint", at, "cache", "delete", cache_name).returncode == 0


def test_errors_are_one_line_and_non_zero(server: Server, cache_name: str) -> None:
    failed = jiffy_cmd("get", "--cache", "no-such-cache", "k", endpoint=server.address)
    assert failed.returncode == 2
    assert failed.stderr.count("\n") == 1
    assert failed.stderr.startswith("jiffy: Get failed: NOT_FOUND")
    no_cache = jiffy_cmd("get", "k", endpoint=server.address)
    assert no_cache.returncode == 2
    assert "--cache" in no_cache.stderr
    usage = jiffy_cmd("get")
    assert usage.returncode == 2
    assert "usage:" in usage.stderr


def test_without_an_endpoint_the_local_server_is_meant(server: Server) -> None:
    """No --endpoint and no environment: 127.0.0.1:8080, named when it fails."""
    done = jiffy_cmd("cache", "list")
    if done.returncode == 0:
        pytest.skip("a server answers on 127.0.0.1:8080 here")
    assert done.returncode == 2
    assert "127.0.0.1:8080" in done.stderr


def test_version_and_tls_flags(server: Server) -> None:
    version = jiffy_cmd("--version")
    assert (version.returncode, version.stdout.strip()) == (0, f"jiffy {jiffy.__version__}")
    # --tls against a plaintext server: a clear failure, not a hang.
    tls = jiffy_cmd("--endpoint", server.address, "--tls", "cache", "list")
    assert tls.returncode == 2
    assert tls.stderr.startswith("jiffy: ")
