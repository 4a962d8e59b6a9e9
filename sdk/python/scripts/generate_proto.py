"""Regenerate the protobuf modules in src/jiffy/_proto from <repo>/proto.

Usage: python sdk/python/scripts/generate_proto.py [OUT_DIR]

The gRPC protos give `<name>_pb2`; the protosocket ones
(`proto/protosocket/<name>.proto`) give `protosocket_<name>_pb2`, flat beside
them: their `common.proto` would otherwise clash with the gRPC one's file
name. Their packages (`common`, `cache`) hold no name the gRPC protos use,
so both sets share the one private pool.

Two rewrites make the generated code safe to ship:

* The .proto files are compiled as `jiffy/_proto/<name>.proto`, so the
  generated imports are absolute within the package
  (`from jiffy._proto import common_pb2`).
* The descriptors go into a private pool (`jiffy._proto._pool.POOL`), not
  protobuf's default one. The official `momento` SDK registers the same
  message names (`cache_client._GetRequest`, ...) in the default pool, and
  two registrations of one name in one process are an error; with a private
  pool both SDKs load side by side (the benchmarks and the tuner need that).

The test suite runs this into a temporary directory and fails when the
checked-in files differ.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

SDK_ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = SDK_ROOT.parents[1]
PROTO_DIR = REPO_ROOT / "proto"
PACKAGE_DIR = SDK_ROOT / "src" / "jiffy" / "_proto"
PACKAGE_PATH = "jiffy/_proto"
PROTO_NAMES = (
    "common",
    "cacheclient",
    "controlclient",
    "cacheping",
    "cachepubsub",
    "leaderboard",
    "admin",
    "permissionmessages",
    "token",
    "auth",
    "webhook",
)
# proto/protosocket/<name>.proto, compiled as protosocket_<name>.proto.
PROTOSOCKET_NAMES = ("common", "cache")
PROTOSOCKET_PREFIX = "protosocket_"
DEFAULT_POOL = "_descriptor_pool.Default()"
PRIVATE_POOL_IMPORT = "from jiffy._proto._pool import POOL as _JIFFY_POOL\n"


def _stage_sources(staging: Path) -> None:
    """Copy the .proto files under jiffy/_proto/ with package-relative imports."""
    target = staging / PACKAGE_PATH
    target.mkdir(parents=True)
    for name in PROTO_NAMES:
        text = (PROTO_DIR / f"{name}.proto").read_text()
        text = re.sub(r'import "(\w+\.proto)";', rf'import "{PACKAGE_PATH}/\1";', text)
        (target / f"{name}.proto").write_text(text)
    for name in PROTOSOCKET_NAMES:
        text = (PROTO_DIR / "protosocket" / f"{name}.proto").read_text()
        text = re.sub(
            r'import "protosocket/(\w+\.proto)";',
            rf'import "{PACKAGE_PATH}/{PROTOSOCKET_PREFIX}\1";',
            text,
        )
        (target / f"{PROTOSOCKET_PREFIX}{name}.proto").write_text(text)


def _use_private_pool(path: Path) -> None:
    text = path.read_text()
    if DEFAULT_POOL not in text:
        raise RuntimeError(f"{path.name}: generated code no longer uses {DEFAULT_POOL}")
    text = text.replace(DEFAULT_POOL, "_JIFFY_POOL")
    marker = "# @@protoc_insertion_point(imports)\n"
    text = text.replace(marker, PRIVATE_POOL_IMPORT + marker, 1)
    path.write_text(text)


def generate(out_dir: Path) -> list[Path]:
    """Write <name>_pb2.py and .pyi for every proto into out_dir; return them."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        staging, generated = Path(tmp) / "src", Path(tmp) / "out"
        _stage_sources(staging)
        generated.mkdir()
        names = [*PROTO_NAMES, *(PROTOSOCKET_PREFIX + name for name in PROTOSOCKET_NAMES)]
        sources = [f"{PACKAGE_PATH}/{name}.proto" for name in names]
        status = protoc.main(
            ["protoc", f"-I{staging}", f"--python_out={generated}", f"--pyi_out={generated}"]
            + sources
        )
        if status != 0:
            raise RuntimeError(f"protoc failed with status {status}")
        written = []
        for produced in sorted((generated / PACKAGE_PATH).iterdir()):
            if produced.suffix == ".py":
                _use_private_pool(produced)
            destination = out_dir / produced.name
            destination.write_bytes(produced.read_bytes())
            written.append(destination)
    return written


if __name__ == "__main__":
    destination = Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE_DIR
    for path in generate(destination):
        print(path)
