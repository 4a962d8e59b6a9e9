"""deploy/container/Containerfile and deploy/systemd/jiffy-server.service, checked here.

The image cannot be built on this project's machines (no container registry
to pull the base images from), so the Containerfile is read instead: every
COPY source exists, the build stage runs `make build`'s cargo command over
the whole workspace, the runtime stage runs the binary that stage built as a
user without privileges, and its HEALTHCHECK command, run here against a
real server, passes on a serving one and fails on a closed port. The build
context (.dockerignore) leaves out what .gitignore lists and keeps what the
Containerfile copies.

The unit passes `systemd-analyze verify` (which needs its ExecStart binary
to exist: the tested binary stands in for /usr/local/bin/jiffy-server, the
only edit) with no warning, scores as well hardened in `systemd-analyze
security`, passes no flag or variable that would shadow a key of its TOML
file, and its ExecStart, with that file, starts a real server.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_harness import check_serves, metrics_server, server_binary

REPO = Path(__file__).resolve().parents[2]
CONTAINERFILE = REPO / "deploy" / "container" / "Containerfile"
UNIT = REPO / "deploy" / "systemd" / "jiffy-server.service"
INSTALLED_BINARY = "/usr/local/bin/jiffy-server"
# systemd-analyze security's overall exposure, x10: 0 is fully confined, 100
# unconfined; systemd calls up to 20 "OK".
MAX_EXPOSURE = 20


# --- the Containerfile ---


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", CONTAINERFILE.read_text())
    found = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            keyword, _, rest = line.strip().partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def stages() -> list[list[tuple[str, str]]]:
    """The instructions of each build stage, each list starting with its FROM."""
    result: list[list[tuple[str, str]]] = []
    for keyword, rest in instructions():
        if keyword == "FROM":
            result.append([])
        if result:
            result[-1].append((keyword, rest))
    return result


def copies(stage: list[tuple[str, str]]) -> list[tuple[str | None, list[str], str]]:
    """(--from stage or None, sources, destination) of each COPY."""
    result = []
    for keyword, rest in stage:
        if keyword == "COPY":
            words = rest.split()
            options = [w for w in words if w.startswith("--")]
            paths = [w for w in words if not w.startswith("--")]
            source_stage = next(
                (o.split("=", 1)[1] for o in options if o.startswith("--from=")), None
            )
            result.append((source_stage, paths[:-1], paths[-1]))
    return result


def one(stage: list[tuple[str, str]], keyword: str) -> str:
    values = [rest for k, rest in stage if k == keyword]
    assert len(values) == 1, f"expected one {keyword}, found {values}"
    return values[0]


def test_two_stages_a_build_and_a_runtime() -> None:
    build, runtime = stages()
    assert one(build, "FROM").endswith(" AS build")
    assert "rust:" in one(build, "FROM")
    assert re.search(r"debian:\S+-slim$", one(runtime, "FROM"))


def test_every_copy_from_the_context_exists() -> None:
    sources = [
        s for stage in stages() for frm, srcs, _ in copies(stage) if frm is None for s in srcs
    ]
    assert sources
    for source in sources:
        assert (REPO / source).exists(), f"COPY {source}: not in the repository"


def test_build_stage_has_the_workspace_and_runs_make_builds_cargo_command() -> None:
    build = stages()[0]
    copied = {s.rstrip("/") for frm, srcs, _ in copies(build) if frm is None for s in srcs}
    members = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["members"]
    # server/build.rs reads proto/ and the catalogue.
    for needed in ["Cargo.toml", "Cargo.lock", "proto", "sdk/spec.json", *members]:
        assert needed in copied, f"the build stage does not COPY {needed}"
    makefile = (REPO / "Makefile").read_text()
    make_build = re.search(r"(?m)^build:\n\t(.+)$", makefile)
    assert make_build, "the Makefile's build target moved"
    runs = [shlex.split(rest) for k, rest in build if k == "RUN"]
    cargo = [words for words in runs if words[:2] == ["cargo", "build"]]
    assert len(cargo) == 1, runs
    # The same command (profile, package), plus --locked.
    assert set(shlex.split(make_build.group(1))) <= set(cargo[0])
    assert "--locked" in cargo[0]
    assert ["objcopy", "--strip-debug", "target/release/jiffy-server"] in runs


def test_runtime_stage_runs_the_built_binary_unprivileged() -> None:
    build, runtime = stages()
    workdir = one(build, "WORKDIR")
    (binary,) = [(srcs, dest) for frm, srcs, dest in copies(runtime) if frm == "build"]
    assert binary == ([f"{workdir}/target/release/jiffy-server"], INSTALLED_BINARY)
    assert json.loads(one(runtime, "ENTRYPOINT")) == [INSTALLED_BINARY]
    assert one(runtime, "USER") not in ("root", "0", "0:0")
    assert one(runtime, "EXPOSE").split() == ["8080", "9090"]
    env = dict(pair.split("=", 1) for pair in one(runtime, "ENV").split())
    assert env == {"JIFFY_LISTEN": "0.0.0.0:8080", "JIFFY_METRICS_LISTEN": "0.0.0.0:9090"}


def test_container_settings_refuse_anonymous_callers_until_told() -> None:
    """As the Containerfile's comment says: on every interface, no secret, no start."""
    env = {**os.environ, "JIFFY_LISTEN": "0.0.0.0:0", "JIFFY_METRICS_LISTEN": "127.0.0.1:0"}
    done = subprocess.run(
        [server_binary()], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 2
    assert "--insecure-allow-anonymous" in done.stderr


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A jiffy-server with metrics: (data address, metrics address)."""
    with metrics_server(tmp_path_factory.mktemp("server") / "server.log") as addresses:
        yield addresses


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_healthcheck_passes_on_a_serving_server_and_fails_on_a_closed_port(
    server: tuple[str, str],
) -> None:
    runtime = stages()[1]
    options, _, command = one(runtime, "HEALTHCHECK").partition(" CMD ")
    assert "--interval=" in options
    assert "--timeout=" in options
    argv = json.loads(command)
    assert "/healthz" in " ".join(argv)
    assert "127.0.0.1/9090" in " ".join(argv)

    def check(port: int) -> int:
        probe = [arg.replace("127.0.0.1/9090", f"127.0.0.1/{port}") for arg in argv]
        return subprocess.run(probe, capture_output=True, timeout=10, check=False).returncode

    metrics_port = int(server[1].rsplit(":", 1)[1])
    assert check(metrics_port) == 0
    assert check(closed_port()) != 0


# --- the build context (.dockerignore) ---

DOCKERIGNORE = REPO / ".dockerignore"


def ignore_patterns() -> list[str]:
    lines = [line.strip() for line in DOCKERIGNORE.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker reads it: Go's filepath.Match per path
    segment, `**` for any number of segments, and a match on a directory
    leaving out everything below it. Written here because no Python library
    implements Docker's flavour (gitignore's, in pathspec, anchors differently)."""
    parts = []
    for segment in pattern.strip("/").split("/"):
        if segment == "**":
            parts.append("(?:[^/]+/)*")
        else:
            body = re.escape(segment).replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
            parts.append(body + "/")
    return re.compile("".join(parts)[:-1] + "(?:/.*)?")


def left_out(path: str) -> bool:
    return any(pattern_regex(p).fullmatch(path) for p in ignore_patterns())


def test_dockerignore_patterns_have_no_exceptions() -> None:
    """An exception (`!path`) would need Docker's last-match-wins order here."""
    assert ignore_patterns()
    assert not [p for p in ignore_patterns() if p.startswith("!")]
    assert left_out("target/release/jiffy-server")
    assert left_out("sdk/js/node_modules/x/index.js")
    assert not left_out("server/src/lib.rs")


def gitignored_samples() -> list[str]:
    """For each entry of every .gitignore: paths it covers, at its own depth
    when anchored (`/target/`), at the top and two levels down otherwise."""
    samples = []
    for gitignore in sorted(REPO.rglob(".gitignore")):
        if left_out(gitignore.parent.relative_to(REPO).as_posix()):
            continue
        base = gitignore.parent.relative_to(REPO).as_posix()
        prefix = "" if base == "." else base + "/"
        for line in gitignore.read_text().splitlines():
            entry = line.strip()
            if not entry or entry.startswith(("#", "!")):
                continue
            name = entry.strip("/").replace("*", "x")
            if entry.startswith("/") or "/" in entry.strip("/"):
                samples.append(prefix + name)
            else:
                samples += [prefix + name, prefix + "a/b/" + name]
    return samples


def test_build_context_leaves_out_what_gitignore_lists() -> None:
    """target/, .venv, node_modules, out/, dist/ and the caches: gigabytes the image never reads."""
    samples = gitignored_samples()
    for name in ["target", ".venv", "sdk/js/node_modules", "out", "dist", "sdk/js/dist"]:
        assert name in samples, f"{name}: no longer in a .gitignore"
    assert [s for s in samples if not left_out(s)] == []


def test_build_context_leaves_out_every_ignored_directory_here() -> None:
    """What this checkout holds that git ignores, as `git status --ignored` sees it."""
    done = subprocess.run(
        ["git", "ls-files", "--others", "--ignored", "--exclude-standard", "--directory"],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    ignored = [line.rstrip("/") for line in done.stdout.splitlines()]
    assert [path for path in ignored if not left_out(path)] == []


def test_build_context_keeps_everything_the_containerfile_copies() -> None:
    sources = [
        s for stage in stages() for frm, srcs, _ in copies(stage) if frm is None for s in srcs
    ]
    done = subprocess.run(
        ["git", "ls-files", *sources], cwd=REPO, capture_output=True, text=True, timeout=60,
        check=True,
    )  # fmt: skip
    tracked = done.stdout.splitlines()
    assert len(tracked) > len(sources)
    assert [path for path in tracked if left_out(path)] == []


# --- the systemd unit ---


def systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    assert found, "systemd-analyze not found: `bash mk/system-packages.sh` installs systemd"
    return found


@pytest.fixture
def unit_here(tmp_path: Path) -> Path:
    """The unit with the tested binary in place of /usr/local/bin/jiffy-server."""
    text = UNIT.read_text()
    assert f"ExecStart={INSTALLED_BINARY}\n" in text
    unit = tmp_path / UNIT.name
    unit.write_text(text.replace(INSTALLED_BINARY, str(Path(server_binary()).resolve())))
    return unit


def test_unit_verifies_without_warnings(unit_here: Path) -> None:
    done = subprocess.run(
        [systemd_analyze(), "verify", str(unit_here)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr


def test_unit_is_hardened(unit_here: Path) -> None:
    done = subprocess.run(
        [systemd_analyze(), "security", "--offline=true", f"--threshold={MAX_EXPOSURE}",
         "--no-pager", str(unit_here)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    settings = unit_settings()
    for key, value in {
        "DynamicUser": "yes",
        "ProtectSystem": "strict",
        "NoNewPrivileges": "yes",
        "CapabilityBoundingSet": "",
    }.items():
        assert settings[key] == [value], key
    assert settings["EnvironmentFile"] == ["-/etc/jiffy/jiffy-server.env"]
    # Hidden (yes, tmpfs), /home would hide a virtualenv's binary from ExecStart.
    assert settings["ProtectHome"] == ["read-only"]


def unit_settings() -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def server_settings() -> list[str]:
    """The settings of `jiffy-server --help`, by flag name: each is also a TOML key."""
    done = subprocess.run(
        [server_binary(), "--help"], capture_output=True, text=True, timeout=30, check=True
    )
    names = re.findall(r"(?m)^\s+--([a-z][a-z0-9-]+)", done.stdout)
    assert "listen" in names
    assert "metrics-listen" in names
    return [name for name in names if name not in ("config", "help", "version")]


def test_unit_shadows_no_toml_key() -> None:
    """Flags win over the environment and the environment over the TOML file,
    silently: the unit may pass neither for a setting, or the file's key is ignored."""
    settings = unit_settings()
    (exec_start,) = settings["ExecStart"]
    flags = {word.removeprefix("--").split("=")[0] for word in shlex.split(exec_start)[1:]}
    environment = {
        pair.split("=", 1)[0] for line in settings["Environment"] for pair in shlex.split(line)
    }
    known = server_settings()
    assert flags & set(known) == set()
    variables = {"JIFFY_" + name.upper().replace("-", "_") for name in known}
    assert environment & variables == set()
    assert environment == {"JIFFY_CONFIG"}


def test_unit_exec_start_starts_a_server_on_the_toml_addresses(tmp_path: Path) -> None:
    """ExecStart with the unit's Environment=, the shipped TOML in place, ports made free."""
    settings = unit_settings()
    (line,) = settings["Environment"]
    ((name, config),) = (pair.split("=", 1) for pair in shlex.split(line))
    assert (name, config) == ("JIFFY_CONFIG", "/etc/jiffy/jiffy-server.toml")
    shipped = tomllib.loads(UNIT.with_suffix(".toml").read_text())
    assert shipped == {"listen": "127.0.0.1:8080", "metrics-listen": "127.0.0.1:9090"}
    toml = tmp_path / "jiffy-server.toml"
    toml.write_text(
        UNIT.with_suffix(".toml").read_text().replace(":8080", ":0").replace(":9090", ":0")
    )
    (exec_start,) = settings["ExecStart"]
    argv = shlex.split(exec_start)
    assert argv == [INSTALLED_BINARY]
    argv[0] = server_binary()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIFFY_")}
    env[name] = str(toml)
    check_serves(argv, env, tmp_path / "server.log")
