"""jiffy.testing: the pytest plugin as a user's pytest run meets it, and server().

The plugin is tested the way users get it: a tiny test file run by a fresh
pytest process, which loads the plugin through jiffy's `pytest11` entry point
(no conftest, no -p). Each run starts real servers from $JIFFY_SERVER_BIN, or
from `jiffy-server` on PATH where that is the point.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import jiffy
import jiffy.testing
from tests.conftest import DEFAULT_SERVER_BIN

SERVER_BIN = Path(os.environ.get("JIFFY_SERVER_BIN", DEFAULT_SERVER_BIN)).resolve()
README = Path(__file__).resolve().parents[1] / "README.md"
SDKS_PAGE = Path(__file__).resolve().parents[3] / "docs" / "SDKS.md"


def run_pytest(test_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A fresh `pytest` over test_dir, as a user would run it there."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_dir)],
        cwd=test_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )


def user_env(**changes: str | None) -> dict[str, str]:
    """os.environ with JIFFY_SERVER_BIN pointing at the binary under test, then `changes`
    (None removes a variable)."""
    env = {**os.environ, "JIFFY_SERVER_BIN": str(SERVER_BIN)}
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def refuses_connections(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def python_blocks(readme: Path, heading: str) -> list[str]:
    """The Python blocks of a README's section under `heading`."""
    section = readme.read_text().split(f"{heading}\n", 1)[1]
    section = re.split(r"^#{2,3} ", section, maxsplit=1, flags=re.M)[0]
    return re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)


def test_fixtures_give_one_server_and_a_fresh_cache_per_test(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(
        textwrap.dedent(
            """
            from pathlib import Path

            def record(name, server, client):
                Path(name).write_text(server.data_target + " " + client.default_cache)

            def test_first(jiffy_server, jiffy_client):
                record("first", jiffy_server, jiffy_client)
                jiffy_client.set("greeting", "hello")
                assert jiffy_client.get_str("greeting") == "hello"

            def test_second(jiffy_server, jiffy_client):
                record("second", jiffy_server, jiffy_client)
                # A cache of its own: the first test's key is not here, and its
                # cache is gone.
                assert jiffy_client.get_str("greeting") is None
                assert jiffy_client.list_caches() == [jiffy_client.default_cache]
            """
        )
    )
    done = run_pytest(tmp_path, user_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    first_address, first_cache = (tmp_path / "first").read_text().split()
    second_address, second_cache = (tmp_path / "second").read_text().split()
    assert first_address == second_address  # session scope: one server
    assert first_cache != second_cache
    # The session is over: the server was stopped with it.
    assert refuses_connections(first_address)


def test_missing_server_says_how_to_build_it(tmp_path: Path) -> None:
    scripts = sysconfig.get_path("scripts")
    assert shutil.which("jiffy-server", path=scripts) is None, f"jiffy-server is in {scripts}"
    (tmp_path / "test_user.py").write_text("def test_it(jiffy_client):\n    pass\n")
    empty = tmp_path / "empty-path"
    empty.mkdir()
    done = run_pytest(tmp_path, user_env(JIFFY_SERVER_BIN=None, PATH=str(empty)))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 error" in done.stdout
    message = " ".join(done.stdout.split())  # pytest may wrap the long line
    assert (
        "jiffy-server not found: JIFFY_SERVER_BIN is unset, jiffy-server is not on PATH nor in"
        f" this Python environment, and there is no target/release/jiffy-server in {tmp_path}"
        " or above. Build it in a jiffy checkout with `cargo build --release -p jiffy-server`"
    ) in message, done.stdout
    assert "pip install jiffy-server" not in message  # on no index


def test_checkout_build_is_found_from_inside_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = tmp_path / "checkout" / "target" / "release" / "jiffy-server"
    build.parent.mkdir(parents=True)
    build.symlink_to(SERVER_BIN)
    inside = tmp_path / "checkout" / "sdk" / "python"
    inside.mkdir(parents=True)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.delenv("JIFFY_SERVER_BIN", raising=False)
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.chdir(inside)
    assert jiffy.testing.find_server_binary() == str(build)
    monkeypatch.chdir(empty)
    with pytest.raises(FileNotFoundError, match="jiffy-server not found"):
        jiffy.testing.find_server_binary()


def test_server_on_path_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "jiffy-server").symlink_to(SERVER_BIN)
    monkeypatch.delenv("JIFFY_SERVER_BIN", raising=False)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    assert jiffy.testing.find_server_binary() == str(bin_dir / "jiffy-server")
    with jiffy.testing.server() as endpoint, jiffy.CacheClient(endpoint) as client:
        client.ping()


def test_server_bin_that_is_not_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIFFY_SERVER_BIN", str(tmp_path / "nothing-here"))
    with pytest.raises(FileNotFoundError, match="JIFFY_SERVER_BIN is .*nothing-here"):
        jiffy.testing.find_server_binary()


def test_context_manager_starts_and_stops_a_server() -> None:
    with jiffy.testing.server(binary=str(SERVER_BIN)) as endpoint:
        with jiffy.CacheClient(endpoint, default_cache="c") as client:
            client.create_cache("c")
            client.set("k", "v")
            assert client.get_str("k") == "v"
        assert not refuses_connections(endpoint.data_target)
    assert refuses_connections(endpoint.data_target)


def test_a_server_that_cannot_start_says_why() -> None:
    starting = jiffy.testing.server("--max-memory", "lots", binary=str(SERVER_BIN))
    with pytest.raises(RuntimeError) as failed, starting:
        pass
    message = str(failed.value)
    assert message.startswith("jiffy-server did not start: exited with status 2"), message
    assert "--max-memory lots" in message  # the command
    assert "its log ends:\nerror: invalid value 'lots' for '--max-memory" in message


def test_readme_snippets_run_as_written(tmp_path: Path) -> None:
    test_file, program = python_blocks(README, "## Testing your code")
    (top_test_file,) = python_blocks(SDKS_PAGE, "## Throwaway servers in your tests")
    (tmp_path / "test_greeting.py").write_text(test_file)
    (tmp_path / "test_top_readme.py").write_text(top_test_file)
    done = run_pytest(tmp_path, user_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    done = subprocess.run(
        [sys.executable, "-c", program], env=user_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello\n"
