"""The load generators jiffy-tune can drive (docs/LOADGEN.md), by SDK name.

Each is a command line; the sweep adds the docs/LOADGEN.md flags. `--loadgen
NAME=COMMAND` replaces or adds one, so a loadgen outside this repository can
be swept too.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Runtime = Literal["python", "node"]
Language = Literal["python", "typescript"]


@dataclass(frozen=True)
class Loadgen:
    name: str
    command: tuple[str, ...]
    runtime: Runtime
    # The language of the preset printed for it (a loadgen added with
    # --loadgen gets none unless it shares a known SDK's name).
    language: Language | None


def default_repo() -> Path:
    """The repository root of an editable install: tune/src/jiffy_tune/ -> repo."""
    return Path(__file__).resolve().parents[3]


def builtin(repo: Path, python_uvloop: bool = False) -> dict[str, Loadgen]:
    python = sys.executable
    uvloop = ("--uvloop",) if python_uvloop else ()
    return {
        "jiffy-python": Loadgen(
            "jiffy-python", (python, "-m", "jiffy.loadgen", *uvloop), "python", "python"
        ),
        "jiffy-js": Loadgen(
            "jiffy-js", ("node", str(repo / "sdk/js/dist/loadgen.js")), "node", "typescript"
        ),
        "momento-python": Loadgen(
            "momento-python",
            (python, str(repo / "bench/momento_python_loadgen.py"), *uvloop),
            "python",
            "python",
        ),
        "momento-js": Loadgen(
            "momento-js", ("node", str(repo / "bench/momento_js_loadgen.mjs")), "node", "typescript"
        ),
    }


def parse_override(text: str) -> tuple[str, tuple[str, ...]]:
    """`NAME=COMMAND` (shell-quoted) from --loadgen."""
    name, sep, command = text.partition("=")
    argv = tuple(shlex.split(command))
    if not sep or not name or not argv:
        raise ValueError(f"--loadgen wants NAME=COMMAND, got {text!r}")
    return name.strip(), argv


def resolve(
    names: Iterable[str],
    repo: Path,
    overrides: Iterable[str] = (),
    python_uvloop: bool = False,
) -> list[Loadgen]:
    """The loadgens for the SDK names asked for, overrides applied."""
    known = builtin(repo, python_uvloop)
    for text in overrides:
        name, argv = parse_override(text)
        base = known.get(name)
        runtime: Runtime = "node" if Path(argv[0]).name.startswith("node") else "python"
        known[name] = Loadgen(
            name,
            argv,
            base.runtime if base else runtime,
            base.language if base else None,
        )
    missing = [name for name in names if name not in known]
    if missing:
        raise ValueError(f"unknown SDK {', '.join(missing)}; known: {', '.join(sorted(known))}")
    return [known[name] for name in names]
