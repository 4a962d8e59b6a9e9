"""The pages' programs and shell commands run as pasted.

Pages: the top README, the `docs/` pages it links for users, and each SDK's
README. A program is a snippet that begins with its imports (the others are
fragments, like the SDK READMEs' collection tours, which their SDK's own
tests check line by line against a runnable example).

Shell blocks (```sh) of the top README and its `docs/` pages run in order,
page by page, as one user in one shell would paste them: `~` is a fresh
directory (HOME), `jiffy-server` on PATH and `target/release/jiffy-server`
are the build under test (the release build, or $JIFFY_SERVER_BIN), and
`jiffy` is the Python SDK's command line. A command that starts the server
runs in the background until it prints `listening on`, on free ports (the
page's 8080 and 9090 become 0); later commands and programs of the page get
the port it printed in place of 8080 (and its HTTP API's in place of
9005). Commands that cannot run here (they
build or install what these tests use, or need a cluster or a registry)
are listed in NOT_RUN_HERE with the test that runs them or why none can.

Each program runs against a fresh jiffy-server, with the page's port 8080
changed to the server's free port: the only edit. A program that reads
MOMENTO_API_KEY runs after its page's shell blocks, which start the server
with auth on and make the key and the cache it uses. Python programs run in
this virtualenv (our SDK and the official `momento` package); JavaScript
programs run as ES modules from the package that provides their import,
`@jiffy/sdk` from sdk/js (a package may import itself by name) and
`@gomomento/sdk` from the conformance suite's packages.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The pages a user is sent to from the top README, and whose shell blocks run here.
USER_PAGES = [
    REPO / "README.md",
    *(
        REPO / "docs" / f"{name}.md"
        for name in (
            "CONFIGURATION",
            "CALLS",
            "DATA-TYPES",
            "LIMITS",
            "OPERATIONS",
            "SECURITY",
            "SDKS",
            "HTTP",
        )
    ),
]
PAGES = [*USER_PAGES, REPO / "sdk" / "python" / "README.md", REPO / "sdk" / "js" / "README.md"]
SERVER_BIN = Path(os.environ.get("JIFFY_SERVER_BIN", REPO / "target" / "release" / "jiffy-server"))
FENCE = re.compile(r"^```(python|js)\n(.*?)^```", re.S | re.M)
SHELL_FENCE = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
JS_HOMES = {
    "@jiffy/sdk": REPO / "sdk" / "js",
    "@gomomento/sdk": REPO / "tests" / "conformance" / "js",
}
# Commands of the pages' shell blocks that do not run here, by how they begin: where
# they run, or why none can.
NOT_RUN_HERE = {
    "make build": "builds the server these tests run (make test-readme depends on it)",
    "pip install ./sdk/python": "tests/packaging/test_install_from_clone.py, from a fresh clone",
    "npm install ./sdk/js": "tests/packaging/test_install_from_clone.py, from a fresh clone",
    "make dist": "tests/packaging/test_server_wheel.py builds the wheel and serves from it",
    "python3 -m venv ~/jiffy && ~/jiffy/bin/pip install dist/jiffy_server-*.whl": (
        "tests/packaging/test_server_wheel.py, into a fresh virtualenv"
    ),
    "~/jiffy/bin/jiffy-server --listen 127.0.0.1:8080": (
        "tests/packaging/test_server_wheel.py runs the wheel's jiffy-server"
    ),
    "make tune ARGS=": (
        "a sweep of several minutes; make demo runs a short one, tune/tests a tiny one"
    ),
    ".venv/bin/jiffy-tune --endpoint cache.internal:8080": (
        "names a server of the reader's network; tune/tests sweep a server of their own"
    ),
    "jiffy-server --store redis-cluster://10.0.0.11:6379,10.0.0.12:6379,10.0.0.13:6379": (
        "names the reader's cluster; make test-conformance-redis serves over a real one"
    ),
    "jiffy-server --store redis://10.0.0.11:6379": (
        "names the reader's Redis; server/tests run the Redis store against a real one"
    ),
    "jiffy-server --store redis-cluster://:PASSWORD@10.0.0.11:6379,10.0.0.12:6379": (
        "names the reader's cluster; server/tests cover passwords in the store URL"
    ),
}


def programs() -> list[tuple[str, str, str]]:
    """(language, code, where) of every program in the pages."""
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in FENCE.finditer(text):
            code = match.group(2)
            if code.lstrip().startswith(("import ", "from ")):
                line = text[: match.start()].count("\n") + 1
                found.append((match.group(1), code, f"{page.relative_to(REPO)}:{line}"))
    return found


def shell_commands(page: Path) -> list[str]:
    """The commands of a page's shell blocks, in order: continued lines
    joined, comments and blank lines left out."""
    commands = []
    for block in SHELL_FENCE.findall(page.read_text()):
        for command in block.replace("\\\n", "").splitlines():
            command = command.strip()
            if command and not command.startswith("#"):
                commands.append(re.sub(r"\s+#.*$", "", command))
    return commands


def starts_server(command: str) -> bool:
    words = shlex.split(command)
    return words[0] in ("jiffy-server", "target/release/jiffy-server") and words[1:2] != ["token"]


@dataclass
class Shell:
    """One user's shell: its environment, its directory, the servers it started."""

    home: Path
    env: dict[str, str]
    servers: ExitStack = field(default_factory=ExitStack)
    port: int | None = None
    http_port: int | None = None
    outputs: list[tuple[str, str]] = field(default_factory=list)

    def run(self, command: str) -> None:
        """Runs one command as pasted (with the port of the server it started);
        the variables it exports stay for the next."""
        if self.port is not None:
            command = command.replace("8080", str(self.port))
        if self.http_port is not None:
            command = command.replace("9005", str(self.http_port))
        dump = self.home / ".environment"
        script = f"set -euo pipefail\n{command}\nenv -0 > {shlex.quote(str(dump))}\n"
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"`{command}` failed:\n{done.stderr}"
        self.env = dict(
            entry.split("=", 1) for entry in dump.read_text().split("\0") if "=" in entry
        )
        self.outputs.append((command, done.stdout))

    def start_server(self, command: str) -> None:
        """Starts the server a command starts, on free ports, until the page ends."""
        for port in (":8080", ":9090", ":9005"):
            command = command.replace(port, ":0")
        server = subprocess.Popen(
            ["bash", "-c", f"exec {command}"],
            cwd=self.home,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.servers.callback(server.wait)
        self.servers.callback(server.terminate)
        assert server.stdout is not None
        for line in server.stdout:
            if match := re.match(r"http listening on [\d.]+:(\d+)", line):
                self.http_port = int(match.group(1))
            if match := re.match(r"listening on [\d.]+:(\d+)", line):
                self.port = int(match.group(1))
                return
        raise AssertionError(f"`{command}` ended without `listening on`")


@contextmanager
def shell(tmp_path: Path) -> Iterator[Shell]:
    """A fresh shell whose `~` is tmp_path, with `jiffy-server` (on PATH and
    at target/release/) the build under test and `jiffy` the SDK's CLI."""
    home = tmp_path / "home"
    bin_dir = home / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "jiffy-server").symlink_to(SERVER_BIN.resolve())
    (bin_dir / "jiffy").symlink_to(Path(sys.executable).parent / "jiffy")
    (home / "target" / "release").mkdir(parents=True)
    (home / "target" / "release" / "jiffy-server").symlink_to(SERVER_BIN.resolve())
    env = {**os.environ, "HOME": str(home), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for variable in ("JIFFY_ENDPOINT", "JIFFY_API_KEY", "MOMENTO_API_KEY"):
        env.pop(variable, None)
    user = Shell(home, env)
    with user.servers:
        yield user


def paste(user: Shell, page: Path) -> None:
    """Every command of the page's shell blocks, in order, as its reader pastes them."""
    for command in shell_commands(page):
        if command.startswith(tuple(NOT_RUN_HERE)):
            continue
        if starts_server(command):
            user.start_server(command)
        else:
            user.run(command)


@contextmanager
def serving(directory: Path) -> Iterator[int]:
    """A fresh server on a free port, stopped after the program; its port."""
    args = [str(SERVER_BIN), "--listen", "127.0.0.1:0"]
    server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.match(r"listening on 127\.0\.0\.1:(\d+)", line)
    assert match, f"jiffy-server said {line!r}"
    try:
        yield int(match.group(1))
    finally:
        server.terminate()
        server.wait()


def test_every_page_has_programs_in_its_languages() -> None:
    places = [where for _, _, where in programs()]
    for page in ("README.md", "sdk/python/README.md", "sdk/js/README.md"):
        assert any(where.startswith(f"{page}:") for where in places), places


@pytest.mark.parametrize(
    ("language", "code", "where"), programs(), ids=[where for _, _, where in programs()]
)
def test_program_runs_as_pasted(language: str, code: str, where: str, tmp_path: Path) -> None:
    assert "8080" in code, f"{where}: the program names no server"
    if "MOMENTO_API_KEY" in code:
        page = REPO / where.split(":")[0]
        with shell(tmp_path) as user:
            paste(user, page)
            assert user.port is not None, f"{page}'s commands start no server"
            assert "MOMENTO_API_KEY" in user.env, f"{page}'s commands make no key"
            run(language, code.replace("8080", str(user.port)), where, user.env, tmp_path)
        return
    with serving(tmp_path) as port:
        run(language, code.replace("8080", str(port)), where, dict(os.environ), tmp_path)


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


PAGES_WITH_COMMANDS = [page for page in USER_PAGES if shell_commands(page)]


@pytest.mark.parametrize(
    "page", PAGES_WITH_COMMANDS, ids=[str(page.relative_to(REPO)) for page in PAGES_WITH_COMMANDS]
)
def test_shell_commands_run_as_pasted(page: Path, tmp_path: Path) -> None:
    with shell(tmp_path) as user:
        paste(user, page)
        for command, output in user.outputs:
            if "token create" in command and not command.startswith(("export", "JIFFY_API_KEY")):
                # A token: one line, a JWT (three base64url parts).
                assert re.fullmatch(r"[\w-]+\.[\w-]+\.[\w-]+\n", output), (command, output)


def test_security_commands_make_tokens_that_do_what_the_page_says(tmp_path: Path) -> None:
    """The tokens of docs/SECURITY.md's first block: the admin one creates
    any cache, the team-a write one writes only team-a- caches, the read one
    cannot write."""
    with shell(tmp_path) as user:
        paste(user, REPO / "docs" / "SECURITY.md")
        tokens = [
            output.strip()
            for command, output in user.outputs
            if command.startswith("jiffy-server token create")
        ]
        admin, team_a, reports = tokens
        jiffy = ["jiffy", "--endpoint", f"127.0.0.1:{user.port}"]

        def call(token: str, *args: str) -> int:
            env = {**user.env, "JIFFY_API_KEY": token}
            done = subprocess.run([*jiffy, *args], env=env, capture_output=True, timeout=60)
            return done.returncode

        assert call(admin, "cache", "create", "orders") == 0
        assert call(team_a, "set", "--cache", "team-a-orders", "k", "v") == 0
        assert call(team_a, "set", "--cache", "orders", "k", "v") == 2
        assert call(team_a, "cache", "create", "team-a-more") == 2
        assert call(reports, "get", "--cache", "orders", "k") == 1  # a miss: allowed
        assert call(reports, "set", "--cache", "orders", "k", "v") == 2


def test_every_command_runs_here_or_says_where() -> None:
    commands = [command for page in USER_PAGES for command in shell_commands(page)]
    stale = {start for start in NOT_RUN_HERE if not any(c.startswith(start) for c in commands)}
    assert not stale, f"NOT_RUN_HERE names commands no page has: {stale}"
    for command, where in NOT_RUN_HERE.items():
        if test := re.match(r"tests/\S+\.py", where):
            assert (REPO / test.group()).exists(), f"{command}: {where}"
