"""Installing from a clone as a new user would, then using what was installed.

`pip install ./sdk/python` and `pip install ./tune` into fresh virtualenvs,
`npm install ./sdk/js` (a directory: npm runs its `prepare` build) and
`npm install` of its `npm pack` tarball (what the registry would serve) into
fresh npm projects; each then talks to a real jiffy-server
($JIFFY_SERVER_BIN, else the release build). Also what the packages carry:
LICENSE, metadata, and no source map pointing at a file they do not ship.

The clone is a copy of the files git knows here (tracked, or new and not
ignored) as they are in the working tree: no .venv, node_modules or dist/.
Dependencies come from the registries, through pip's and npm's caches.
"""

from __future__ import annotations

import email
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER_BIN = Path(os.environ.get("JIFFY_SERVER_BIN", REPO / "target/release/jiffy-server"))
LICENSE = (REPO / "LICENSE").read_bytes()
JS_PACKAGE = json.loads((REPO / "sdk/js/package.json").read_text())
OPTIONAL_JS = ("@grpc/grpc-js", "hdr-histogram-js")
# Long enough for a cold npm or pip cache on a slow link; a step that hangs still ends.
STEP_TIMEOUT_S = 600
PYTHON_PACKAGES = {"sdk/python": "jiffy", "tune": "jiffy_tune"}
# Time, not fidelity: pip skips byte-compiling (Python does it on import), npm
# uses its cache without asking the registry whether pinned versions changed
# (the setting reaches the npm ci that sdk/js's prepare script may run).
PIP_INSTALL = ("install", "--quiet", "--no-compile", "--disable-pip-version-check")
ENV = {**os.environ, "npm_config_prefer_offline": "true", "npm_config_update_notifier": "false"}

pytestmark = pytest.mark.skipif(
    not SERVER_BIN.exists(), reason=f"needs {SERVER_BIN} (make build, or set JIFFY_SERVER_BIN)"
)


def run(
    command: Sequence[str | Path], cwd: Path | None = None, ok: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
        env=ENV,
    )
    if ok:
        assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done


def copy_clone(dest: Path, *parts: str) -> Path:
    """The files git knows under `parts`, copied from the working tree to `dest`."""
    listed = run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard", "--", *parts], REPO)
    for name in filter(None, listed.stdout.split("\0")):
        source = REPO / name
        if source.is_file():  # not deleted in the working tree
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def new_venv(path: Path) -> Path:
    run([sys.executable, "-m", "venv", path])
    return path / "bin"


def npm_project(path: Path, *packages: str | Path) -> Path:
    """A fresh npm project (ESM) with `packages` installed."""
    path.mkdir()
    (path / "package.json").write_text('{ "name": "app", "private": true, "type": "module" }\n')
    run(["npm", "install", "--no-audit", "--no-fund", *packages], path)
    return path


def hatchling_pin() -> str:
    pyproject = tomllib.loads((REPO / "sdk/python/pyproject.toml").read_text())
    [pin] = [req for req in pyproject["build-system"]["requires"] if req.startswith("hatchling")]
    return str(pin)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_clone(tmp_path_factory.mktemp("clone"), "LICENSE", "sdk/python", "sdk/js", "tune")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    """One jiffy-server for the module; each test uses caches of its own."""
    server = subprocess.Popen(
        [SERVER_BIN, "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.match(r"listening on (127\.0\.0\.1:\d+)", line)
    assert match, f"jiffy-server said {line!r}"
    try:
        yield match.group(1)
    finally:
        server.terminate()
        server.wait()


@pytest.fixture(scope="module")
def sdk_bin(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv after `pip install ./sdk/python` (not editable, no extras)."""
    bin_dir = new_venv(tmp_path_factory.mktemp("sdk") / "venv")
    run([bin_dir / "pip", *PIP_INSTALL, "./sdk/python"], clone)
    return bin_dir


@pytest.fixture(scope="module")
def linked_app(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh npm project after `npm install <clone>/sdk/js`, a directory as cloned."""
    assert not (clone / "sdk/js/node_modules").exists()
    assert not (clone / "sdk/js/dist").exists()
    return npm_project(tmp_path_factory.mktemp("linked") / "app", clone / "sdk/js")


@pytest.fixture(scope="module")
def tarball(clone: Path, linked_app: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`npm pack` of the clone's sdk/js (its prepare script builds dist/ again first).

    After the directory install, whose prepare script installed the dev tools
    there: the one fresh-clone install is enough, and each costs ~20 s.
    """
    out = tmp_path_factory.mktemp("npm-pack")
    done = run(["npm", "pack", "--json", "--pack-destination", out], clone / "sdk/js")
    [packed] = json.loads(done.stdout[done.stdout.index("[") :])
    return out / packed["filename"]


def test_pip_install_of_the_python_sdk_gives_a_working_cli(sdk_bin: Path, endpoint: str) -> None:
    version = re.search(r'"(.+)"', (REPO / "sdk/python/src/jiffy/_version.py").read_text())
    assert version
    assert run([sdk_bin / "jiffy", "--version"]).stdout.strip() == f"jiffy {version.group(1)}"
    where = run([sdk_bin / "python", "-c", "import jiffy; print(jiffy.__file__)"]).stdout
    assert "site-packages" in where, f"jiffy imported from {where}, not the virtualenv"

    jiffy = [sdk_bin / "jiffy", "--endpoint", endpoint]
    run([*jiffy, "cache", "create", "pip-install"])
    run([*jiffy, "set", "--cache", "pip-install", "greeting", "hello"])
    got = run([*jiffy, "get", "--cache", "pip-install", "greeting"])
    assert got.stdout.strip() == "hello"
    miss = run([*jiffy, "get", "--cache", "pip-install", "absent"], ok=False)
    assert (miss.returncode, miss.stdout) == (1, "")


@pytest.mark.parametrize("project", list(PYTHON_PACKAGES))
def test_each_python_package_keeps_an_exact_copy_of_the_license(project: str) -> None:
    assert (REPO / project / "LICENSE").read_bytes() == LICENSE, (
        f"{project}/LICENSE differs from LICENSE: copy it (cp LICENSE {project}/)"
    )


def _check_metadata(text: str, where: str) -> None:
    metadata = email.message_from_string(text)
    assert metadata.get_all("License-File") == ["LICENSE"], where
    assert metadata["License-Expression"] == "Apache-2.0", where
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL") or [])
    assert {"Homepage", "Source", "Issues", "Changelog"} <= urls.keys(), where
    assert metadata.get_all("Classifier"), where


def _check_wheel(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        [dist_info] = {name.split("/")[0] for name in archive.namelist() if ".dist-info/" in name}
        assert archive.read(f"{dist_info}/licenses/LICENSE") == LICENSE, wheel.name
        _check_metadata(archive.read(f"{dist_info}/METADATA").decode(), wheel.name)
        # The license goes in .dist-info only, never loose into site-packages.
        assert "LICENSE" not in archive.namelist(), wheel.name


def test_sdists_and_wheels_carry_the_license_and_metadata(
    clone: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Wheels as `pip install ./X` builds them (from the tree) and from the sdist."""
    tmp = tmp_path_factory.mktemp("python-dists")
    builder = new_venv(tmp / "builder")
    run([builder / "pip", *PIP_INSTALL, hatchling_pin()])
    for project, package in PYTHON_PACKAGES.items():
        out = tmp / package
        hatchling = [builder / "python", "-m", "hatchling", "build", "-d", out]
        run(hatchling, clone / project)
        [sdist] = out.glob("*.tar.gz")
        [tree_wheel] = out.glob("*.whl")
        _check_wheel(tree_wheel)
        with tarfile.open(sdist) as archive:
            root = sdist.name.removesuffix(".tar.gz")
            member = archive.getmember(f"{root}/LICENSE")
            assert member.isfile(), f"{sdist.name}: LICENSE is not a regular file"
            license_file = archive.extractfile(member)
            assert license_file is not None
            assert license_file.read() == LICENSE
            pkg_info = archive.extractfile(f"{root}/PKG-INFO")
            assert pkg_info is not None
            _check_metadata(pkg_info.read().decode(), sdist.name)
            archive.extractall(tmp / "unpacked", filter="data")
        # A wheel built from the sdist (pip installing it from an index would).
        from_sdist = tmp / "from-sdist" / package
        run([builder / "python", "-m", "hatchling", "build", "-t", "wheel", "-d", from_sdist],
            tmp / "unpacked" / root)  # fmt: skip
        [wheel] = from_sdist.glob("*.whl")
        _check_wheel(wheel)


def test_npm_pack_ships_license_readme_and_metadata_without_dangling_maps(
    tarball: Path, clone: Path
) -> None:
    with tarfile.open(tarball) as archive:
        files = {m.name.removeprefix("package/"): m for m in archive.getmembers() if m.isfile()}

        def read(name: str) -> bytes:
            handle = archive.extractfile(files[name])
            assert handle is not None
            return handle.read()

        assert read("LICENSE") == LICENSE
        assert read("README.md") == (REPO / "sdk/js/README.md").read_bytes()
        manifest = json.loads(read("package.json"))
        assert {"repository", "homepage", "bugs", "keywords"} <= manifest.keys()
        assert manifest["repository"]["directory"] == "sdk/js"
        assert not set(OPTIONAL_JS) & set(manifest["dependencies"]), manifest["dependencies"]
        for name in OPTIONAL_JS:
            assert manifest["peerDependenciesMeta"][name] == {"optional": True}
        # Every source map, and every file naming one, points at files shipped.
        for name in files:
            if name.endswith(".map"):
                sources = json.loads(read(name))["sources"]
                base = Path(name).parent
                for source in sources:
                    shipped = os.path.normpath(base / source)
                    assert shipped in files, f"{name} points at {source}, not in the package"
            elif name.endswith((".js", ".cjs", ".mjs", ".d.ts")):
                for target in re.findall(rb"sourceMappingURL=(\S+)", read(name)):
                    shipped = os.path.normpath(Path(name).parent / target.decode())
                    assert shipped in files, f"{name} names {target!r}, not in the package"
    assert any(name.startswith("dist/cjs/") for name in files)
    assert "dist/loadgen.js" in files
    # The LICENSE copied for packing (prepack) is gone again (postpack).
    assert not (clone / "sdk/js/LICENSE").exists()


NODE_CLIENT = """
import { CacheClient, InvalidArgumentError } from '@jiffy/sdk';

const endpoint = process.argv[2];
const client = await CacheClient.create({ endpoint });
await client.createCache('npm-install');
await client.set('npm-install', 'greeting', 'hello');
console.log(`got ${await client.getString('npm-install', 'greeting')}`);
client.close();
try {
  (await CacheClient.create({ endpoint, transport: 'grpc-js' })).close();
  console.log('grpc-js transport: ok');
} catch (err) {
  if (!(err instanceof InvalidArgumentError)) throw err;
  console.log(`grpc-js transport: ${err.message}`);
}
"""
NODE_REQUIRE = """
const { CacheClient } = require('@jiffy/sdk');
CacheClient.create({ endpoint: process.argv[2] }).then(async (client) => {
  console.log(`got ${await client.getString('npm-install', 'greeting')}`);
  client.close();
});
"""


def test_npm_install_of_a_clone_directory_builds_and_works(
    linked_app: Path, clone: Path, endpoint: str
) -> None:
    """`npm install ./sdk/js` from a fresh clone: prepare built dist/, ESM and CommonJS."""
    assert (clone / "sdk/js/dist/index.js").exists()
    app = linked_app
    (app / "client.mjs").write_text(NODE_CLIENT)
    (app / "client.cjs").write_text(NODE_REQUIRE)
    printed = run(["node", "client.mjs", endpoint], app).stdout.splitlines()
    assert printed == ["got hello", "grpc-js transport: ok"]
    assert run(["node", "client.cjs", endpoint], app).stdout.strip() == "got hello"


def test_the_packed_sdk_needs_neither_optional_dependency(
    tarball: Path, tmp_path: Path, endpoint: str
) -> None:
    app = npm_project(tmp_path / "app", tarball)
    for name in OPTIONAL_JS:
        assert not (app / "node_modules" / name).exists(), f"npm installed {name}"
    (app / "client.mjs").write_text(NODE_CLIENT.replace("npm-install", "npm-pack"))
    got, grpc_js = run(["node", "client.mjs", endpoint], app).stdout.splitlines()
    assert got == "got hello"
    assert grpc_js.startswith("grpc-js transport: option `transport: 'grpc-js'` needs")
    assert "`npm install @grpc/grpc-js`" in grpc_js

    loadgen = [app / "node_modules/.bin/jiffy-js-loadgen", "--endpoint", endpoint]
    done = run([*loadgen, "--duration", "1", "--warmup", "0"], ok=False)
    assert done.returncode == 1, done.stderr
    assert "`npm install hdr-histogram-js`" in done.stderr


@pytest.fixture(scope="module")
def app_with_peers(tarball: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh npm project with the packed SDK and both optional peers, at our pins."""
    peers = [f"{name}@{JS_PACKAGE['devDependencies'][name]}" for name in OPTIONAL_JS]
    return npm_project(tmp_path_factory.mktemp("peers") / "app", tarball, *peers)


def test_the_packed_sdk_uses_the_optional_dependencies_once_installed(
    app_with_peers: Path, endpoint: str
) -> None:
    app = app_with_peers
    (app / "client.mjs").write_text(NODE_CLIENT.replace("npm-install", "npm-peers"))
    printed = run(["node", "client.mjs", endpoint], app).stdout.splitlines()
    assert printed == ["got hello", "grpc-js transport: ok"]
    loadgen = [app / "node_modules/.bin/jiffy-js-loadgen", "--endpoint", endpoint, "--json"]
    report = json.loads(run([*loadgen, "--duration", "1", "--warmup", "0"]).stdout)
    assert report["requests"] > 0


def test_installed_jiffy_tune_finds_the_installed_loadgens(
    clone: Path, app_with_peers: Path, tmp_path: Path
) -> None:
    """`pip install ./tune` beside the SDK, @jiffy/sdk from npm: a sweep with no checkout."""
    bin_dir = new_venv(tmp_path / "venv")
    run([bin_dir / "pip", *PIP_INSTALL, "./sdk/python[loadgen]", "./tune"], clone)
    app = app_with_peers
    tune = bin_dir / "jiffy-tune"
    assert "--sdk" in run([tune, "--help"], app).stdout

    # The official SDKs' adapters live in a checkout only, and it says so.
    refused = run([tune, "--sdk", "momento-js", "--quiet"], app, ok=False)
    assert refused.returncode == 2
    assert "--repo" in refused.stderr

    out = tmp_path / "sweep"
    argv = ["--sdk", "jiffy-python,jiffy-js", "--concurrency", "1", "--channels", "1"]
    argv += ["--duration", "1", "--warmup", "0", "--targets", "20", "--no-report", "--quiet"]
    run([tune, *argv, "--server-bin", SERVER_BIN, "--out", out], app)
    data = json.loads((out / "results.json").read_text())
    commands = data["settings"]["loadgen_commands"]
    python, *module = commands["jiffy-python"]
    assert (Path(python).parent, module) == (bin_dir, ["-m", "jiffy.loadgen"])
    script = (app / "node_modules/@jiffy/sdk/dist/loadgen.js").resolve()
    assert commands["jiffy-js"] == ["node", str(script)]
    for point in data["points"]:
        assert point["status"] == "ok", point.get("error")
        assert point["rps"] > 0
