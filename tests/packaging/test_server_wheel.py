"""The jiffy-server wheel (server/pyproject.toml), installed as a user would.

`make dist-server` builds it into dist/: maturin runs cargo with the release
profile, so after `make build` it packs the binary that is already built
instead of compiling one. The wheel then goes into a fresh virtualenv with
pip, `jiffy-server` is found on that virtualenv's bin/ as on an activated
PATH, started on a free port, and serves a set and a get from the jiffy SDK.
The wheel's own contents are checked too: the very binary of the release
build (its build ID) without its debug info, which lies beside the wheel in
dist/, LICENSE, metadata, a platform tag pip will honour.
"""

from __future__ import annotations

import email
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import jiffy
import pytest

REPO = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((REPO / "server" / "Cargo.toml").read_text())["package"]["version"]
DIST_INFO = f"jiffy_server-{VERSION}.dist-info"
SCRIPT = f"jiffy_server-{VERSION}.data/scripts/jiffy-server"
# A cold build compiles the whole server (minutes on two cores); a warm one
# packs the built binary (seconds).
BUILD_TIMEOUT_S = 3600
STEP_TIMEOUT_S = 120
# The release binary is 62 MB with its debug info and 14 MB without (the
# symbol table kept, for backtraces): a bound between the two.
MAX_BINARY_BYTES = 25_000_000
DEBUG_FILE = f"jiffy-server-{VERSION}.debug"


@pytest.fixture(scope="module")
def wheel() -> Path:
    """dist/'s jiffy-server wheel, built (or brought up to date) by `make dist-server`."""
    subprocess.run(
        ["make", "--no-print-directory", "dist-server"],
        cwd=REPO,
        check=True,
        timeout=BUILD_TIMEOUT_S,
    )
    (built,) = (REPO / "dist").glob(f"jiffy_server-{VERSION}-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel installed by pip (no index: only this file)."""
    home = tmp_path_factory.mktemp("server-wheel") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(home)], check=True, timeout=STEP_TIMEOUT_S)
    pip = [str(home / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index"]
    subprocess.run([*pip, str(wheel)], check=True, timeout=STEP_TIMEOUT_S)
    return home


def release_binary() -> Path:
    """target/release/jiffy-server wherever cargo puts it here (CARGO_TARGET_DIR too)."""
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=STEP_TIMEOUT_S,
    )
    return Path(json.loads(metadata.stdout)["target_directory"]) / "release" / "jiffy-server"


def elf(binary: Path, *options: str) -> str:
    """What `readelf` says of `binary` (binutils, as objcopy in `make dist-server`)."""
    done = subprocess.run(
        ["readelf", "--wide", *options, str(binary)],
        capture_output=True,
        # A section dump holds raw bytes too (.gnu_debuglink's checksum).
        encoding="utf-8",
        errors="replace",
        check=True,
        timeout=STEP_TIMEOUT_S,
    )
    return done.stdout


def build_id(binary: Path) -> str:
    found = re.search(r"Build ID: ([0-9a-f]+)", elf(binary, "--notes"))
    assert found, f"{binary}: no build ID"
    return found.group(1)


def sections(binary: Path) -> set[str]:
    return set(re.findall(r"\]\s+(\.[\w.]+)\s", elf(binary, "--section-headers")))


def test_wheel_binary_is_the_release_build_with_its_debug_info_beside_it(
    wheel: Path, tmp_path: Path
) -> None:
    with zipfile.ZipFile(wheel) as archive:
        script = tmp_path / "jiffy-server"
        script.write_bytes(archive.read(SCRIPT))
    release = release_binary()
    assert build_id(script) == build_id(release), "not `make build`'s binary"
    assert ".debug_info" in sections(release)
    # DWARF; .debug_gdb_scripts is loaded code (gdb's pretty-printers), not debug info.
    dwarf = {name for name in sections(release) if name.startswith(".debug_")}
    assert dwarf - {".debug_gdb_scripts"}
    assert sections(script) & dwarf <= {".debug_gdb_scripts"}
    assert ".symtab" in sections(script), "backtraces would name no function"
    assert script.stat().st_size < MAX_BINARY_BYTES < release.stat().st_size
    described = subprocess.run(
        ["file", str(script)], capture_output=True, text=True, check=True, timeout=STEP_TIMEOUT_S
    ).stdout
    assert "with debug_info" not in described, described
    debug = wheel.parent / DEBUG_FILE
    assert debug.is_file(), f"make dist-server left no {DEBUG_FILE} beside the wheel"
    assert build_id(debug) == build_id(release)
    assert ".debug_info" in sections(debug)
    assert DEBUG_FILE in elf(script, "--string-dump=.gnu_debuglink")


def test_wheel_carries_the_release_binary_license_and_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert archive.getinfo(SCRIPT).external_attr >> 16 & 0o111, "not executable"
        license_text = archive.read(f"{DIST_INFO}/licenses/LICENSE")
        metadata = email.message_from_bytes(archive.read(f"{DIST_INFO}/METADATA"))
        tags = email.message_from_bytes(archive.read(f"{DIST_INFO}/WHEEL")).get_all("Tag")
    # Nothing but the binary and the metadata: no Python code, no sources.
    assert {n for n in names if not n.startswith(DIST_INFO)} == {SCRIPT}
    assert license_text == (REPO / "LICENSE").read_bytes()
    assert metadata["Name"] == "jiffy-server"
    assert metadata["Version"] == VERSION
    assert "License :: OSI Approved :: Apache Software License" in metadata.get_all("Classifier")
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL"))
    assert {"Homepage", "Source", "Issues"} <= urls.keys()
    assert "pip install jiffy-server" in metadata.get_payload()  # the readme
    # Any Python 3; the glibc (or musl) the binary needs, read from it by maturin.
    assert tags
    assert all(re.fullmatch(r"py3-none-(many|musl)linux_\d+_\d+_\w+", t) for t in tags)


@pytest.fixture
def installed_server(venv: Path) -> Iterator[str]:
    """`jiffy-server` as the virtualenv's PATH finds it, started on a free port:
    its address."""
    path = f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    binary = shutil.which("jiffy-server", path=path)
    assert binary == str(venv / "bin" / "jiffy-server")
    process = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        match = re.fullmatch(r"listening on (127\.0\.0\.1:\d+)\n", line)
        assert match, f"jiffy-server said {line!r}"
        yield match.group(1)
    finally:
        process.terminate()
        process.wait(timeout=STEP_TIMEOUT_S)


def test_installed_server_reports_its_version(venv: Path) -> None:
    done = subprocess.run(
        [str(venv / "bin" / "jiffy-server"), "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=STEP_TIMEOUT_S,
    )
    assert done.stdout == f"jiffy-server {VERSION}\n"


def test_pytest_plugin_finds_the_server_in_its_environment(venv: Path, tmp_path: Path) -> None:
    """`pip install jiffy jiffy-server pytest`, then `.venv/bin/pytest` as it is, not
    activated: the jiffy_client fixture starts the wheel's server without being told where."""
    dev = tomllib.loads((REPO / "sdk/python/pyproject.toml").read_text())
    (pytest_pin,) = [p for p in dev["project"]["optional-dependencies"]["dev"] if "pytest==" in p]
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, str(REPO / "sdk/python"), pytest_pin], check=True, timeout=600)
    (tmp_path / "test_user.py").write_text(
        "def test_greeting(jiffy_client):\n"
        '    jiffy_client.set("greeting", "hello")\n'
        '    assert jiffy_client.get_str("greeting") == "hello"\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "JIFFY_SERVER_BIN"}
    env["PATH"] = "/usr/bin:/bin"  # nothing of the virtualenv's
    done = subprocess.run(
        [str(venv / "bin" / "pytest"), "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_installed_server_serves_the_sdk(installed_server: str) -> None:
    with jiffy.CacheClient(jiffy.Endpoint.parse(installed_server), default_cache="wheel") as client:
        client.create_cache("wheel")
        client.set("greeting", "hello")
        assert client.get_str("greeting") == "hello"
