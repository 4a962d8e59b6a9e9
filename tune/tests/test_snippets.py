"""The printed presets are real code for each SDK's real API."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from jiffy_tune.snippets import SNIPPETS, base_preset, preset_for

ENTRIES = [
    {"rps": 12345.0, "client_ms": {"p999": 3.2}, "channels": 1, "concurrency": 1,
     "max_concurrent_requests": 1},
    {"rps": 23456.0, "client_ms": {"p999": 12.5}, "channels": 3, "concurrency": 50,
     "max_concurrent_requests": 0},
]  # fmt: skip
TARGETS = [5.0, 20.0]
CASES = [(sdk, entry, target) for sdk in SNIPPETS for entry in ENTRIES for target in TARGETS]


def test_the_base_preset_follows_the_target() -> None:
    assert base_preset(20.0) == "in_region"
    assert base_preset(10.0) == "in_region"
    assert base_preset(5.0) == "low_latency"


def test_an_unknown_sdk_gets_no_preset() -> None:
    assert preset_for("some-other-loadgen", ENTRIES[0], 20.0) is None


@pytest.mark.parametrize(("sdk", "entry", "target"), CASES)
def test_python_presets_compile(sdk: str, entry: dict[str, Any], target: float) -> None:
    preset = preset_for(sdk, entry, target)
    assert preset is not None
    if preset["language"] != "python":
        return
    compile(preset["code"], f"<{sdk} preset>", "exec")
    assert f"{entry['rps']:,.0f} rps" in preset["code"]


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_jiffy_python_preset_builds_the_measured_config(
    entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIFFY_ENDPOINT", "127.0.0.1:1")  # built, never connected
    preset = preset_for("jiffy-python", entry, 5.0)
    assert preset is not None
    namespace: dict[str, Any] = {}
    exec(compile(preset["code"], "<jiffy-python preset>", "exec"), namespace)
    config = namespace["client"].config
    assert config.channels == entry["channels"]
    assert config.max_concurrent_requests == entry["max_concurrent_requests"]
    assert config.deadline == namespace["low_latency"].latest().deadline


def _link(node_modules: Path, name: str, target: Path) -> None:
    (node_modules / name).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, node_modules / name)


TSC = REPO / "sdk/js/node_modules/.bin/tsc"
MOMENTO_JS = REPO / "bench/node_modules/@gomomento/sdk"


@pytest.mark.skipif(
    not (TSC.exists() and MOMENTO_JS.exists() and (REPO / "sdk/js/dist/index.d.ts").exists()),
    reason="needs sdk/js built with its node_modules, and bench/node_modules",
)
def test_typescript_presets_type_check_against_the_real_packages(tmp_path: Path) -> None:
    node_modules = tmp_path / "node_modules"
    _link(node_modules, "@jiffy/sdk", REPO / "sdk/js")
    _link(node_modules, "@gomomento/sdk", MOMENTO_JS)
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    files = []
    for index, (sdk, entry, target) in enumerate(CASES):
        preset = preset_for(sdk, entry, target)
        assert preset is not None
        if preset["language"] == "typescript":
            path = tmp_path / f"preset_{index}.mts"
            path.write_text(preset["code"])
            files.append(str(path))
    assert len(files) == len(ENTRIES) * len(TARGETS) * 2
    done = subprocess.run(
        [str(TSC), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution",
         "nodenext", "--target", "es2022", "--skipLibCheck", *files],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    node = shutil.which("node")
    assert node is not None
    for file in files:
        mjs = Path(file).with_suffix(".mjs")
        mjs.write_text(Path(file).read_text())
        subprocess.run([node, "--check", str(mjs)], check=True, timeout=30)


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_momento_python_preset_uses_names_the_sdk_has(
    entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from momento import CacheClientAsync

    # The snippet sets a class attribute when channels != 1; undone after the test.
    monkeypatch.setattr(CacheClientAsync, "_NUM_CLIENTS", CacheClientAsync._NUM_CLIENTS)
    preset = preset_for("momento-python", entry, 5.0)
    assert preset is not None
    namespace: dict[str, Any] = {}
    exec(compile(preset["code"], "<momento-python preset>", "exec"), namespace)
    assert callable(namespace["make_client"])
    channels = CacheClientAsync._NUM_CLIENTS
    assert channels == entry["channels"]
    assert namespace["Configurations"].InRegion.LowLatency.latest() is not None
