"""Every Python and JavaScript snippet of the top README runs as pasted.

Each snippet runs against a fresh jiffy-server (the release build, or
$JIFFY_SERVER_BIN), with the README's port 8080 changed to the server's
free port: the only edit. Python snippets run in this virtualenv (our SDK
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
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SERVER_BIN = Path(os.environ.get("JIFFY_SERVER_BIN", REPO / "target" / "release" / "jiffy-server"))
FENCE = re.compile(r"^```(python|js)\n(.*?)^```", re.S | re.M)
JS_HOMES = {
    "@jiffy/sdk": REPO / "sdk" / "js",
    "@gomomento/sdk": REPO / "tests" / "conformance" / "js",
}


def snippets() -> list[tuple[str, str, int]]:
    text = README.read_text()
    return [
        (match.group(1), match.group(2), text[: match.start()].count("\n") + 1)
        for match in FENCE.finditer(text)
    ]


@pytest.fixture
def port() -> Iterator[int]:
    """A fresh server on a free port, stopped after the snippet."""
    server = subprocess.Popen(
        [str(SERVER_BIN), "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.match(r"listening on 127\.0\.0\.1:(\d+)", line)
    assert match, f"jiffy-server said {line!r}"
    try:
        yield int(match.group(1))
    finally:
        server.terminate()
        server.wait()


def test_the_readme_has_snippets_in_both_languages() -> None:
    languages = [language for language, _, _ in snippets()]
    assert languages.count("python") >= 2, languages
    assert languages.count("js") >= 2, languages


@pytest.mark.parametrize(
    ("language", "code", "line"),
    snippets(),
    ids=[f"{language}-line-{line}" for language, _, line in snippets()],
)
def test_snippet_runs_as_pasted(
    language: str, code: str, line: int, port: int, tmp_path: Path
) -> None:
    assert "8080" in code, f"README line {line}: the snippet names no server"
    code = code.replace("8080", str(port))
    if language == "python":
        command = [sys.executable, "-c", code]
        cwd = tmp_path
    else:
        home = next(home for package, home in JS_HOMES.items() if f"'{package}'" in code)
        script = home / f".readme-snippet-{line}.mjs"
        script.write_text(code)
        command, cwd = ["node", str(script)], home
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=60)
    finally:
        if language == "js":
            script.unlink()
    assert done.returncode == 0, f"README line {line} failed:\n{done.stderr}"
    # Every snippet stores "hello" and prints it back.
    assert "hello" in done.stdout, f"README line {line} printed {done.stdout!r}"
