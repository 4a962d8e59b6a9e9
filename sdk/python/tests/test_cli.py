"""The `jiffy` command end to end, as a separate process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import jiffy
from jiffy import cli
from tests.conftest import Server
from tests.test_auth import AuthServer, auth_server  # noqa: F401 (the fixture)

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


def run_ok(*args: str, endpoint: str) -> str:
    done = jiffy_cmd(*args, endpoint=endpoint)
    assert done.returncode == 0, done.stderr
    return done.stdout


class InProcess:
    """`jiffy` as main() in this process: the same code without a Python start
    per command, for the tests that run dozens of them."""

    def __init__(self, capture: pytest.CaptureFixture[bytes], endpoint: str) -> None:
        self.capture = capture
        self.endpoint = endpoint

    def code(self, *args: str) -> int:
        self.capture.readouterr()
        return cli.main(["--endpoint", self.endpoint, *args])

    def __call__(self, *args: str) -> str:
        code = self.code(*args)
        out, err = self.capture.readouterr()
        assert code == 0, err
        return out.decode()


@pytest.fixture
def run(server: Server, capsysbinary: pytest.CaptureFixture[bytes]) -> InProcess:
    return InProcess(capsysbinary, server.address)


def test_keys_pages_through_every_key_with_the_prefix(
    server: Server, run: InProcess, cache_name: str
) -> None:
    with jiffy.CacheClient(
        jiffy.Endpoint.parse(server.address), default_cache=cache_name
    ) as client:
        client.create_cache(cache_name)
        client.set_many({f"user:{i}": "v" for i in range(1_500)})
        client.set("order:1", "v")
    c = ("--cache", cache_name)
    users = run("keys", *c, "user:").split()
    assert len(users) == 1_500
    assert set(users) == {f"user:{i}" for i in range(1_500)}
    assert len(run("keys", *c).split()) == 1_501
    assert len(run("keys", *c, "user:", "--limit", "10").split()) == 10
    assert run("keys", *c, "none:") == ""
    assert run.code("keys", "--cache", "no-such-cache") == 2
    assert "NOT_FOUND" in run.capture.readouterr().err.decode()


def test_keys_needs_an_admin_token(
    auth_server: AuthServer,  # noqa: F811 (the fixture imported above)
    capsysbinary: pytest.CaptureFixture[bytes],
    cache_name: str,
) -> None:
    admin = auth_server.token("all", "admin")
    writer = auth_server.token("all", "write")
    at = f"127.0.0.1:{auth_server.server.port}"
    with jiffy.CacheClient(auth_server.endpoint(admin), default_cache=cache_name) as client:
        client.create_cache(cache_name)
        client.set("k", "v")
    as_admin = InProcess(capsysbinary, at)
    assert as_admin("--api-key", admin, "keys", "--cache", cache_name) == "k\n"
    assert as_admin.code("--api-key", writer, "keys", "--cache", cache_name) == 2
    assert "PERMISSION_DENIED" in capsysbinary.readouterr().err.decode()


def test_incr_and_the_collection_commands(run: InProcess, cache_name: str) -> None:
    c = ("--cache", cache_name)
    run("cache", "create", cache_name)
    assert run("incr", *c, "hits") == "1\n"
    assert run("incr", *c, "hits", "41") == "42\n"

    run("dict", "set", *c, "user", "name", "ada")
    run("dict", "set", *c, "user", "lang", "en")
    assert run("dict", "get", *c, "user", "name") == "ada\n"
    assert run("dict", "fetch", *c, "user") == "lang\ten\nname\tada\n"
    assert run("dict", "incr", *c, "user", "visits", "3") == "3\n"
    run("dict", "remove", *c, "user", "lang", "visits")
    assert run("dict", "length", *c, "user") == "1\n"
    assert run.code("dict", "get", *c, "user", "lang") == 1

    run("list", "push", *c, "queue", "b")
    run("list", "push", *c, "queue", "c")
    run("list", "push", *c, "queue", "a", "--front")
    assert run("list", "fetch", *c, "queue") == "a\nb\nc\n"
    assert run("list", "pop", *c, "queue") == "a\n"
    assert run("list", "pop", *c, "queue", "--back") == "c\n"
    assert run("list", "length", *c, "queue") == "1\n"

    run("members", "add", *c, "tags", "x", "y", "z")
    run("members", "remove", *c, "tags", "y")
    assert run("members", "fetch", *c, "tags") == "x\nz\n"
    assert run.code("members", "contains", *c, "tags", "x") == 0
    assert run.code("members", "contains", *c, "tags", "y") == 1
    assert run("members", "length", *c, "tags") == "2\n"

    run("sorted", "put", *c, "board", "ann", "10")
    run("sorted", "put", *c, "board", "bob", "2.5")
    assert run("sorted", "fetch", *c, "board") == "bob\t2.5\nann\t10\n"
    assert run("sorted", "score", *c, "board", "ann") == "10\n"
    assert run("sorted", "rank", *c, "board", "ann") == "1\n"
    assert run("sorted", "incr", *c, "board", "bob", "10") == "12.5\n"
    run("sorted", "remove", *c, "board", "ann")
    assert run("sorted", "length", *c, "board") == "1\n"
    assert run.code("sorted", "score", *c, "board", "ann") == 1


def test_publish_reaches_a_subscribe_command(server: Server, cache_name: str) -> None:
    at = server.address
    run_ok("cache", "create", cache_name, endpoint=at)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JIFFY_", "MOMENTO_"))}
    env["JIFFY_ENDPOINT"] = at
    command = [JIFFY] if JIFFY else [sys.executable, "-m", "jiffy.cli"]
    with subprocess.Popen(
        [*command, "subscribe", "--cache", cache_name, "news", "--count", "2"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as subscriber:
        try:
            # Publish until the subscription, opened meanwhile, has both.
            for attempt in range(100):
                run_ok("publish", "--cache", cache_name, "news", f"m{attempt}", endpoint=at)
                if subscriber.poll() is not None:
                    break
                time.sleep(0.1)
            out, _ = subscriber.communicate(timeout=30)
        finally:
            subscriber.kill()
    assert subscriber.returncode == 0
    lines = out.split()
    assert len(lines) == 2
    assert all(line.startswith("m") for line in lines)


def test_ping_and_stats(server: Server) -> None:
    at = server.address
    assert float(run_ok("ping", endpoint=at)) > 0
    metrics = f"127.0.0.1:{server.metrics_port}"
    stats = run_ok("stats", "--metrics", metrics, endpoint=at).splitlines()
    names = {line.split("{")[0].split(" ")[0] for line in stats}
    assert {"build_info", "requests_total", "memory_limit_bytes"} <= names
    unreachable = jiffy_cmd("stats", "--metrics", "127.0.0.1:1", endpoint=at)
    assert unreachable.returncode == 2
    assert "--metrics" in unreachable.stderr


@pytest.mark.parametrize("shell", ["bash", "zsh", "tcsh"])
def test_completion_scripts_name_every_command(shell: str) -> None:
    done = jiffy_cmd("completion", shell)
    assert done.returncode == 0, done.stderr
    for command in ["keys", "incr", "dict", "list", "members", "sorted", "publish",
                    "subscribe", "ping", "stats", "cache"]:  # fmt: skip
        assert command in done.stdout, command
