"""Checked-in generated code is what the generators write today."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SDK_ROOT = Path(__file__).resolve().parents[1]
PACKAGE = SDK_ROOT / "src" / "jiffy"


def load_script(name: str, directory: Path = SDK_ROOT / "scripts") -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, directory / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("script", "subdir", "regenerate"),
    [
        ("generate_proto", "_proto", "python sdk/python/scripts/generate_proto.py"),
        ("generate_sync", "", "python sdk/python/scripts/generate_sync.py"),
    ],
)
def test_checked_in_code_is_current(
    script: str, subdir: str, regenerate: str, tmp_path: Path
) -> None:
    written = load_script(script).generate(tmp_path)
    assert written
    stale = [
        path.name
        for path in written
        if path.read_bytes() != (PACKAGE / subdir / path.name).read_bytes()
    ]
    assert not stale, f"stale generated files {stale}; run: {regenerate}"


def test_code_generated_from_the_catalogue_is_current() -> None:
    # Python's RPC table, TypeScript's RPCS and the README's lists of calls,
    # as sdk/gen_calls.py writes them from sdk/spec.json today.
    outputs = load_script("gen_calls", SDK_ROOT.parent).outputs()
    assert outputs
    stale = [path.name for path, text in outputs.items() if path.read_text() != text]
    assert not stale, f"stale generated files {stale}; run: make generate"


def test_generated_messages_load_beside_the_official_sdk() -> None:
    from momento_wire_types import cacheclient_pb2 as theirs

    from jiffy._proto import cacheclient_pb2 as ours

    request = ours._SetRequest(cache_key=b"k", cache_body=b"v", ttl_milliseconds=5)
    assert theirs._SetRequest.FromString(request.SerializeToString()).ttl_milliseconds == 5
