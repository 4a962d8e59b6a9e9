"""The load generators jiffy-tune can drive (docs/LOADGEN.md), by SDK name.

Each is a command line; the sweep adds the docs/LOADGEN.md flags. `--loadgen
NAME=COMMAND` replaces or adds one, so a loadgen outside this repository can
be swept too.

Where the built-in ones are found: in the checkout given with `--repo DIR`,
or the one jiffy-tune runs from (an editable install). An installed
jiffy-tune (`pip install ./tune`) has no checkout and finds installed
loadgens instead: `python -m jiffy.loadgen` when the jiffy SDK with its
`loadgen` extra is installed beside it, and @jiffy/sdk's `jiffy-js-loadgen`
in ./node_modules/.bin or on PATH. The official SDKs' adapters exist only
in a checkout's bench/.
"""

from __future__ import annotations

import importlib.util
import shlex
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Runtime = Literal["python", "node"]
Language = Literal["python", "typescript"]

# The runtime and preset language of each built-in loadgen.
BUILTIN: dict[str, tuple[Runtime, Language]] = {
    "jiffy-python": ("python", "python"),
    "jiffy-js": ("node", "typescript"),
    "momento-python": ("python", "python"),
    "momento-js": ("node", "typescript"),
}
JS_LOADGEN_BIN = "jiffy-js-loadgen"
# What `python -m jiffy.loadgen` imports beyond the SDK: its `loadgen` extra.
PYTHON_LOADGEN_MODULES = ("hdrh", "psutil", "rich")


@dataclass(frozen=True)
class Loadgen:
    name: str
    command: tuple[str, ...]
    runtime: Runtime
    # The language of the preset printed for it (a loadgen added with
    # --loadgen gets none unless it shares a known SDK's name).
    language: Language | None


def default_repo() -> Path:
    """The repository root of an editable install: tune/src/jiffy_tune/ -> repo.

    For an installed jiffy-tune it is a directory of the environment, not a
    checkout (`checkout()` tells them apart).
    """
    return Path(__file__).resolve().parents[3]


def checkout() -> Path | None:
    """The checkout jiffy-tune runs from (an editable install), or None when installed."""
    repo = default_repo()
    return repo if (repo / "tune" / "src" / "jiffy_tune" / "sdks.py").is_file() else None


def _python_loadgen_missing() -> str | None:
    """Why `python -m jiffy.loadgen` cannot run in this interpreter, or None if it can."""
    jiffy = importlib.util.find_spec("jiffy")
    places = [Path(p) for p in (jiffy.submodule_search_locations or [])] if jiffy else []
    if not any((place / "loadgen" / "__main__.py").is_file() for place in places):
        return f"this Python ({sys.executable}) has no jiffy SDK"
    absent = [name for name in PYTHON_LOADGEN_MODULES if importlib.util.find_spec(name) is None]
    if absent:
        return f"this Python ({sys.executable}) lacks the SDK's loadgen extra ({', '.join(absent)})"
    return None


def _installed_js_loadgen() -> tuple[str, ...] | None:
    """@jiffy/sdk's loadgen command from ./node_modules/.bin or PATH, run by node."""
    local = Path.cwd() / "node_modules" / ".bin" / JS_LOADGEN_BIN
    found = str(local) if local.exists() else shutil.which(JS_LOADGEN_BIN)
    if found is None:
        return None
    # npm's bin is a link to dist/loadgen.js: run the script with node itself,
    # so that --node-option flags go on node's command line.
    script = Path(found).resolve()
    return ("node", str(script)) if script.suffix in (".js", ".mjs", ".cjs") else (found,)


def _found(repo: Path | None, python_uvloop: bool) -> tuple[dict[str, Loadgen], dict[str, str]]:
    """The built-in loadgens found, and for the others why not."""
    python = sys.executable
    uvloop = ("--uvloop",) if python_uvloop else ()
    commands: dict[str, tuple[str, ...] | None] = {
        "jiffy-python": (python, "-m", "jiffy.loadgen", *uvloop),
    }
    missing: dict[str, str] = {}
    python_missing = _python_loadgen_missing()
    if python_missing is not None:
        commands["jiffy-python"] = None
        missing["jiffy-python"] = (
            f"jiffy-python: {python_missing}; install it beside jiffy-tune: "
            "pip install './sdk/python[loadgen]' (from a clone)"
        )
    if repo is not None:
        bench = repo / "bench"
        commands["jiffy-js"] = ("node", str(repo / "sdk/js/dist/loadgen.js"))
        commands["momento-python"] = (python, str(bench / "momento_python_loadgen.py"), *uvloop)
        commands["momento-js"] = ("node", str(bench / "momento_js_loadgen.mjs"))
    else:
        commands["jiffy-js"] = _installed_js_loadgen()
        if commands["jiffy-js"] is None:
            missing["jiffy-js"] = (
                f"jiffy-js: no {JS_LOADGEN_BIN} in ./node_modules/.bin or on PATH; run "
                "`npm install ./sdk/js hdr-histogram-js` (from a clone) in this directory, "
                "or pass --repo with a checkout"
            )
        for name, script in (
            ("momento-python", "momento_python_loadgen.py"),
            ("momento-js", "momento_js_loadgen.mjs"),
        ):
            missing[name] = (
                f"{name}: its adapter is bench/{script} in a jiffy checkout; pass --repo DIR "
                f"(a clone set up with `make`), or --loadgen {name}=COMMAND"
            )
    found = {
        name: Loadgen(name, command, *BUILTIN[name])
        for name, command in commands.items()
        if command is not None
    }
    return found, missing


def builtin(repo: Path | None, python_uvloop: bool = False) -> dict[str, Loadgen]:
    """The built-in loadgens found: in checkout `repo`, or (None) installed ones."""
    return _found(repo, python_uvloop)[0]


def parse_override(text: str) -> tuple[str, tuple[str, ...]]:
    """`NAME=COMMAND` (shell-quoted) from --loadgen."""
    name, sep, command = text.partition("=")
    argv = tuple(shlex.split(command))
    if not sep or not name or not argv:
        raise ValueError(f"--loadgen wants NAME=COMMAND, got {text!r}")
    return name.strip(), argv


def resolve(
    names: Iterable[str],
    repo: Path | None,
    overrides: Iterable[str] = (),
    python_uvloop: bool = False,
) -> list[Loadgen]:
    """The loadgens for the SDK names asked for, overrides applied.

    `repo` is the checkout holding the loadgens; None means the one jiffy-tune
    runs from, or the installed loadgens when it runs from no checkout.
    """
    known, missing = _found(repo.absolute() if repo is not None else checkout(), python_uvloop)
    for text in overrides:
        name, argv = parse_override(text)
        runtime: Runtime = "node" if Path(argv[0]).name.startswith("node") else "python"
        base_runtime, base_language = BUILTIN.get(name, (runtime, None))
        known[name] = Loadgen(name, argv, base_runtime, base_language)
        missing.pop(name, None)
    unknown = [name for name in names if name not in known and name not in missing]
    if unknown:
        everything = sorted({*known, *missing})
        raise ValueError(f"unknown SDK {', '.join(unknown)}; known: {', '.join(everything)}")
    absent = [missing[name] for name in names if name not in known]
    if absent:
        raise ValueError("; ".join(absent))
    return [known[name] for name in names]
