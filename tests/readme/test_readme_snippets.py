"""The READMEs' Python and JavaScript programs run as pasted.

A program is a snippet that begins with its imports (the others are
fragments, like the SDK READMEs' collection tours, which their SDK's own
tests check line by line against a runnable example). READMEs: the top one
and each SDK's.

Each snippet runs against a fresh jiffy-server (the release build, or
$JIFFY_SERVER_BIN), with the README's port 8080 changed to the server's
free port: the only edit. A snippet that reads MOMENTO_API_KEY gets what
the README tells its reader to do first: a server with auth on, and in
that variable the key `jiffy-server token create --format momento-v1`
prints. Python snippets run in this virtualenv (our SDK
and the official `momento` package); JavaScript snippets run as ES modules
from the package that provides their import, `@jiffy/sdk` from sdk/js (a
package may import itself by name) and `@gomomento/sdk` from the
conformance suite's packages.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
READMES = [
    REPO / "README.md",
    REPO / "sdk" / "python" / "README.md",
    REPO / "sdk" / "js" / "README.md",
]
SERVER_BIN = Path(os.environ.get("JIFFY_SERVER_BIN", REPO / "target" / "release" / "jiffy-server"))
FENCE = re.compile(r"^```(python|js)\n(.*?)^```", re.S | re.M)
JS_HOMES = {
    "@jiffy/sdk": REPO / "sdk" / "js",
    "@gomomento/sdk": REPO / "tests" / "conformance" / "js",
}


def snippets() -> list[tuple[str, str, str]]:
    """(language, code, where) of every program in the READMEs."""
    found = []
    for readme in READMES:
        text = readme.read_text()
        for match in FENCE.finditer(text):
            code = match.group(2)
            if code.lstrip().startswith(("import ", "from ")):
                line = text[: match.start()].count("\n") + 1
                found.append((match.group(1), code, f"{readme.relative_to(REPO)}:{line}"))
    return found


@contextmanager
def serving(directory: Path, auth: bool) -> Iterator[tuple[int, dict[str, str]]]:
    """A fresh server on a free port, stopped after the snippet; its port,
    and the environment the snippet runs in (with auth on, the key)."""
    args = [str(SERVER_BIN), "--listen", "127.0.0.1:0"]
    env = dict(os.environ)
    if auth:
        secret = directory / "secret"
        secret.write_text("a readme test secret of at least thirty-two bytes")
        args += ["--auth-secret-file", str(secret)]
        key = subprocess.run(
            [str(SERVER_BIN), "token", "create", "--auth-secret-file", str(secret)]
            + ["--caches", "all", "--role", "admin", "--expires-in", "1h"]
            + ["--format", "momento-v1"],
            capture_output=True,
            text=True,
            check=True,
        )
        env["MOMENTO_API_KEY"] = key.stdout.strip()
    server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.match(r"listening on 127\.0\.0\.1:(\d+)", line)
    assert match, f"jiffy-server said {line!r}"
    try:
        yield int(match.group(1)), env
    finally:
        server.terminate()
        server.wait()


def test_every_readme_has_programs_in_its_languages() -> None:
    places = [where for _, _, where in snippets()]
    for readme in ("README.md", "sdk/python/README.md", "sdk/js/README.md"):
        assert any(where.startswith(f"{readme}:") for where in places), places


@pytest.mark.parametrize(
    ("language", "code", "where"), snippets(), ids=[where for _, _, where in snippets()]
)
def test_program_runs_as_pasted(language: str, code: str, where: str, tmp_path: Path) -> None:
    assert "8080" in code, f"{where}: the program names no server"
    with serving(tmp_path, auth="MOMENTO_API_KEY" in code) as (port, env):
        run(language, code.replace("8080", str(port)), where, env, tmp_path)


def run(language: str, code: str, where: str, env: dict[str, str], tmp_path: Path) -> None:
    """Runs one program as its reader would, and checks what it printed."""
    if language == "python":
        command = [sys.executable, "-c", code]
        cwd = tmp_path
    else:
        home = next(home for package, home in JS_HOMES.items() if f"'{package}'" in code)
        script = home / f".readme-program-{where.replace('/', '-').replace(':', '-')}.mjs"
        script.write_text(code)
        command, cwd = ["node", str(script)], home
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    finally:
        if language == "js":
            script.unlink()
    assert done.returncode == 0, f"{where} failed:\n{done.stderr}"
    if "print(" in code or "console.log(" in code:
        # The programs that print store "hello" and print it back.
        assert "hello" in done.stdout, f"{where} printed {done.stdout!r}"
