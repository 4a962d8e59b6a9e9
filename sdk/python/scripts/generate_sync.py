"""Write the sync client modules from the async ones (the unasync approach).

Usage: python sdk/python/scripts/generate_sync.py [OUT_DIR]

The async modules are the only hand-written copy of the client; this turns
`_async_<name>.py` into `_sync_<name>.py` by rewriting tokens (`async def` to
`def`, `await x` to `x`, `grpc.aio.` to `grpc.`, `Async<Name>` to
`Sync<Name>`, `<name>_async` to `<name>_sync`). The few primitives that
really differ live in `_io.py` and `_limiter.py` in both forms. The test
suite runs this into a temporary directory and fails when the checked-in
sync modules differ.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "src" / "jiffy"
MODULES = (
    "_async_transport.py",
    "_async_executor.py",
    "_async_route.py",
    "_async_base.py",
    "_async_dictionaries.py",
    "_async_lists.py",
    "_async_sets.py",
    "_async_sorted_sets.py",
    "_async_leaderboard.py",
    "_async_topics.py",
    "_async_webhooks.py",
    "_async_signing_keys.py",
    "_async_client.py",
)

# Order matters: specific names before the general patterns.
REWRITES: tuple[tuple[str, str], ...] = (
    (r"\bAsyncCacheClient\b", "CacheClient"),
    (r"\bAsyncSubscription\b", "Subscription"),
    (r"\bAsyncLeaderboard\b", "Leaderboard"),
    (r"\bAsync(\w+)", r"Sync\1"),
    (r"\b_async_(\w+)", r"_sync_\1"),
    (r"\b(\w+)_async\b", r"\1_sync"),
    (r"\basync (def|with|for) ", r"\1 "),
    (r"\bawait ", ""),
    (r"__aenter__", "__enter__"),
    (r"__aexit__", "__exit__"),
    (r"__aiter__", "__iter__"),
    (r"__anext__", "__next__"),
    (r"\bStopAsyncIteration\b", "StopIteration"),
    (r"\baclose\b", "close"),
    (r"\bgrpc\.aio\.", "grpc."),
    (r"^import grpc\.aio\n", ""),
    (r"the asyncio client \(grpc\.aio\)", "the blocking client (grpc, thread-safe)"),
    # The async module's note on how the sync one is made; the header says it.
    (r"\n\nThe sync CacheClient .*?regenerate\.\n", "\n"),
)


def _ruff_format(source: str, name: str) -> str:
    """Sort imports and format as the linter would, so the output is lint-clean."""
    ruff = Path(sys.executable).with_name("ruff")
    command = [str(ruff)] if ruff.exists() else [sys.executable, "-m", "ruff"]
    for step in (["check", "--fix", "--select", "I", "--quiet"], ["format"]):
        source = subprocess.run(
            [*command, *step, "--stdin-filename", str(PACKAGE_DIR / name), "-"],
            input=source,
            capture_output=True,
            text=True,
            check=True,
            cwd=PACKAGE_DIR,
        ).stdout
    return source


def convert(source: str, origin: str) -> str:
    for pattern, replacement in REWRITES:
        source = re.sub(pattern, replacement, source, flags=re.MULTILINE | re.DOTALL)
    header = f"# Generated from {origin} by scripts/generate_sync.py: do not edit.\n"
    return _ruff_format(header + source, origin.replace("_async_", "_sync_"))


def generate(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in MODULES:
        target = out_dir / name.replace("_async_", "_sync_")
        target.write_text(convert((PACKAGE_DIR / name).read_text(), name))
        written.append(target)
    return written


if __name__ == "__main__":
    destination = Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE_DIR
    for path in generate(destination):
        print(path)
