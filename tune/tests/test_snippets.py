"""The printed presets are real code for each SDK's real API, aimed at the sweep's server."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jiffy
import pytest
from conftest import REPO
from prometheus_client.parser import text_string_to_metric_families

from jiffy_tune import caps, snippets, transports
from jiffy_tune.model import Medians, SummaryEntry
from jiffy_tune.server import EmbeddedServer, ServerInfo
from jiffy_tune.snippets import SNIPPETS, Where, base_preset

ENTRIES = [
    {"rps": 12345.0, "client_ms": {"p999": 3.2}, "channels": 1, "concurrency": 1,
     "max_concurrent_requests": 1, "rounds_ok": 1},
    {"rps": 23456.0, "client_ms": {"p999": 12.5}, "channels": 3, "concurrency": 50,
     "max_concurrent_requests": 0, "rounds_ok": 3},
]  # fmt: skip
TARGETS = [5.0, 20.0]
# Every SDK over every transport it has (our SDKs: gRPC, protosocket, and in
# TypeScript grpc-js too), for every entry and target.
CASES = [
    (sdk, {**entry, "transport": transport}, target)
    for sdk in SNIPPETS
    for transport in transports.of(sdk)
    for entry in ENTRIES
    for target in TARGETS
]
# The adaptive cap: our SDKs only, over each of their transports.
AUTO_ENTRY = {"rps": 10950.0, "client_ms": {"p999": 4.2}, "channels": 2, "concurrency": 50,
              "max_concurrent_requests": "auto", "rounds_ok": 3}  # fmt: skip
CASES += [
    (sdk, {**AUTO_ENTRY, "transport": transport}, target)
    for sdk in caps.JIFFY_SDKS
    for transport in transports.of(sdk)
    for target in TARGETS
]
# Where presets are aimed when no server runs them.
SOMEWHERE = Where("127.0.0.1:8080", "loadgen", protosocket_endpoint="127.0.0.1:9004")


def summary_entry(sdk: str, entry: dict[str, Any]) -> SummaryEntry:
    """A summary entry with what a preset reads (the rest as for a clean run)."""
    p999 = entry["client_ms"]["p999"]
    return SummaryEntry(
        sdk=sdk,
        transport=transports.given_or_default(sdk, entry.get("transport")),
        channels=entry["channels"],
        concurrency=entry["concurrency"],
        max_concurrent_requests=entry["max_concurrent_requests"],
        rate=None,
        rounds_ok=entry["rounds_ok"],
        rounds_failed=0,
        rps=entry["rps"],
        client_ms=Medians(p50=None, p99=None, p999=p999),
        server_ms=None,
        client_share_p999=None,
        errors_total=0,
    )


def preset_for(
    sdk: str,
    entry: dict[str, Any],
    target_ms: float,
    runtime_flags: tuple[str, ...] = (),
    where: Where | None = None,
) -> dict[str, str] | None:
    """The preset as results.json keeps it."""
    preset = snippets.preset_for(sdk, summary_entry(sdk, entry), target_ms, runtime_flags, where)
    return None if preset is None else preset.as_json()


def case_id(case: tuple[str, dict[str, Any], float]) -> str:
    sdk, entry, target = case
    return f"{sdk}-{entry['transport']}-ch{entry['channels']}-{target:g}ms"


def test_the_base_preset_follows_the_target() -> None:
    assert base_preset(20.0) == "in_region"
    assert base_preset(10.0) == "in_region"
    assert base_preset(5.0) == "low_latency"


def test_an_unknown_sdk_gets_no_preset() -> None:
    assert preset_for("some-other-loadgen", ENTRIES[0], 20.0) is None


@pytest.mark.parametrize(("sdk", "entry", "target"), CASES, ids=[case_id(c) for c in CASES])
def test_python_presets_compile(sdk: str, entry: dict[str, Any], target: float) -> None:
    preset = preset_for(sdk, entry, target, where=SOMEWHERE)
    assert preset is not None
    if preset["language"] != "python":
        return
    compile(preset["code"], f"<{sdk} preset>", "exec")
    assert f"{entry['rps']:,.0f} rps" in preset["code"]


@pytest.mark.parametrize("transport", transports.of("jiffy-python"))
@pytest.mark.parametrize("entry", ENTRIES)
def test_the_jiffy_python_preset_builds_the_measured_config(
    entry: dict[str, Any], transport: str
) -> None:
    preset = preset_for("jiffy-python", {**entry, "transport": transport}, 5.0, where=SOMEWHERE)
    assert preset is not None
    namespace: dict[str, Any] = {}
    exec(compile(preset["code"], "<jiffy-python preset>", "exec"), namespace)
    config = namespace["config"]
    assert config.channels == entry["channels"]
    assert config.max_concurrent_requests == entry["max_concurrent_requests"]
    assert config.deadline == namespace["low_latency"].latest().deadline
    over = transport == "protosocket"
    assert config.protosocket_endpoint == ("127.0.0.1:9004" if over else None)
    assert f"# Transport: {transport}" in preset["code"]
    if over:
        assert "# The server's --protosocket-listen port" in preset["code"]


@pytest.mark.parametrize("transport", transports.of("jiffy-python"))
def test_an_auto_preset_sets_the_adaptive_cap(transport: str) -> None:
    entry = {**AUTO_ENTRY, "transport": transport}
    preset = preset_for("jiffy-python", entry, 20.0, where=SOMEWHERE)
    assert preset is not None
    assert 'max_concurrent_requests="auto"' in preset["code"]
    assert "# auto: the SDK's adaptive in-flight limit" in preset["code"]
    namespace: dict[str, Any] = {}
    exec(compile(preset["code"], "<jiffy-python preset>", "exec"), namespace)
    assert namespace["config"].max_concurrent_requests == "auto"
    assert namespace["config"].channels == 2
    js = preset_for("jiffy-js", {**AUTO_ENTRY, "transport": "http2"}, 20.0, where=SOMEWHERE)
    assert js is not None
    assert "  maxConcurrentRequests: 'auto',\n" in js["code"]
    assert "  // auto: the SDK's adaptive in-flight limit" in js["code"]


def test_a_protosocket_preset_needs_the_server_s_protosocket_port() -> None:
    entry = {**ENTRIES[0], "transport": "protosocket"}
    with pytest.raises(ValueError, match="protosocket port"):
        preset_for("jiffy-js", entry, 5.0, where=Where("127.0.0.1:8080"))


def _link(node_modules: Path, name: str, target: Path) -> None:
    (node_modules / name).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, node_modules / name)


TSC = REPO / "sdk/js/node_modules/.bin/tsc"
MOMENTO_JS = REPO / "bench/node_modules/@gomomento/sdk"


@pytest.mark.skipif(
    not (TSC.exists() and MOMENTO_JS.exists() and (REPO / "sdk/js/dist/index.d.ts").exists()),
    reason="needs sdk/js built with its node_modules, and bench/node_modules",
)
def test_typescript_presets_type_check_against_the_real_packages(tmp_path: Path) -> None:
    node_modules = tmp_path / "node_modules"
    _link(node_modules, "@jiffy/sdk", REPO / "sdk/js")
    _link(node_modules, "@gomomento/sdk", MOMENTO_JS)
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    files = []
    for index, (sdk, entry, target) in enumerate(CASES):
        preset = preset_for(sdk, entry, target, where=SOMEWHERE)
        assert preset is not None
        if preset["language"] == "typescript":
            path = tmp_path / f"preset_{index}.mts"
            path.write_text(preset["code"])
            files.append(str(path))
    # jiffy-js over three transports, momento-js over one.
    assert len(files) == len(ENTRIES) * len(TARGETS) * (3 + 1) + len(TARGETS) * 3
    done = subprocess.run(
        [str(TSC), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution",
         "nodenext", "--target", "es2022", "--skipLibCheck", *files],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    node = shutil.which("node")
    assert node is not None
    for file in files:
        mjs = Path(file).with_suffix(".mjs")
        mjs.write_text(Path(file).read_text())
        subprocess.run([node, "--check", str(mjs)], check=True, timeout=30)


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_momento_python_preset_uses_names_the_sdk_has(
    entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from momento import CacheClientAsync

    # The snippet sets a class attribute when channels != 1; undone after the test.
    monkeypatch.setattr(CacheClientAsync, "_NUM_CLIENTS", CacheClientAsync._NUM_CLIENTS)
    preset = preset_for("momento-python", entry, 5.0)
    assert preset is not None
    namespace: dict[str, Any] = {}
    exec(compile(preset["code"], "<momento-python preset>", "exec"), namespace)
    assert callable(namespace["make_client"])
    channels = CacheClientAsync._NUM_CLIENTS
    assert channels == entry["channels"]
    assert namespace["Configurations"].InRegion.LowLatency.latest() is not None


ELSEWHERE = Where(endpoint="10.1.2.3:7000", cache="orders", embedded=False)


@pytest.mark.parametrize("sdk", SNIPPETS)
def test_every_preset_names_the_endpoint_and_cache_of_the_sweep(sdk: str) -> None:
    preset = preset_for(sdk, ENTRIES[0], 20.0, where=ELSEWHERE)
    assert preset is not None
    code = preset["code"]
    comment = "#" if preset["language"] == "python" else "//"
    assert f'{comment} Measured against 10.1.2.3:7000, cache "orders".' in code
    body = "\n".join(line for line in code.splitlines() if not line.startswith(comment))
    assert "10.1.2.3" in body
    assert "7000" in body
    assert "orders" in body
    assert "JIFFY_ENDPOINT" not in code
    assert "8080" not in code


def test_a_preset_says_when_the_server_was_jiffy_tune_s_own() -> None:
    where = Where("127.0.0.1:41234", "loadgen", embedded=True)
    preset = preset_for("jiffy-python", ENTRIES[0], 20.0, where=where)
    assert preset is not None
    assert (
        '# Measured against 127.0.0.1:41234 (the jiffy-server jiffy-tune started), cache "loadgen".'
    ) in preset["code"]


def test_a_preset_from_fewer_than_3_rounds_says_it_is_noisy() -> None:
    one, three = (preset_for("jiffy-js", entry, 20.0) for entry in ENTRIES)
    assert one is not None
    assert three is not None
    assert ("// Noisy: 1 round, not a measurement; --rounds 3 or more takes medians.\n") in one[
        "code"
    ]
    assert "Noisy" not in three["code"]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerInfo]:
    """A real jiffy-server, protosocket port included, with the cache a sweep
    would have left: `loadgen`."""
    binary = Path(os.environ.get("JIFFY_SERVER_BIN", REPO / "target/release/jiffy-server"))
    if not binary.exists():
        pytest.skip(f"needs {binary} (cargo build --release)")
    with EmbeddedServer(str(binary), None, [], protosocket=True) as info:
        with jiffy.CacheClient(jiffy.Endpoint.parse(info.endpoint)) as client:
            client.create_cache("loadgen")
        yield info


def measured_at(server: ServerInfo, sdk: str, entry: dict[str, Any]) -> dict[str, str]:
    where = Where(server.endpoint, "loadgen", True, server.protosocket_endpoint)
    preset = preset_for(sdk, entry, 5.0, where=where)
    assert preset is not None
    return preset


def calls_over(server: ServerInfo, transport: str) -> float:
    """Gets and sets the server has answered over `transport` (its gRPC or protosocket port)."""
    assert server.metrics_url is not None
    with urllib.request.urlopen(server.metrics_url, timeout=5) as response:
        text = response.read().decode()
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "jiffy_requests"
        for sample in family.samples
        if sample.labels.get("transport") == transport
        and sample.labels.get("rpc") in ("Get", "Set")
    )


def server_transport(sdk: str, entry: dict[str, Any]) -> str:
    """The server port a preset's gets and sets should reach: protosocket, or gRPC."""
    return (
        "protosocket"
        if transports.given_or_default(sdk, entry.get("transport")) == "protosocket"
        else "grpc"
    )


@pytest.mark.parametrize("transport", transports.of("jiffy-python"))
@pytest.mark.parametrize("entry", ENTRIES)
def test_the_jiffy_python_preset_runs_as_pasted_against_the_server(
    server: ServerInfo, entry: dict[str, Any], transport: str
) -> None:
    entry = {**entry, "transport": transport}
    namespace: dict[str, Any] = {}
    exec(measured_at(server, "jiffy-python", entry)["code"], namespace)
    before = calls_over(server, server_transport("jiffy-python", entry))

    async def round_trip() -> str | None:
        async with namespace["make_client"]() as client:
            await client.set("pasted", "jiffy-python")  # no cache named: the default
            value: str | None = await client.get_str("pasted")
            return value

    assert asyncio.run(round_trip()) == "jiffy-python"
    # The set and the get went where the preset says.
    assert calls_over(server, server_transport("jiffy-python", entry)) == before + 2


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_momento_python_preset_runs_as_pasted_against_the_server(
    server: ServerInfo, entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from momento import CacheClientAsync
    from momento.responses import CacheGet

    monkeypatch.setattr(CacheClientAsync, "_NUM_CLIENTS", CacheClientAsync._NUM_CLIENTS)
    namespace: dict[str, Any] = {}
    exec(measured_at(server, "momento-python", entry)["code"], namespace)

    async def round_trip() -> Any:
        async with await namespace["make_client"]() as client:
            await client.set(namespace["CACHE_NAME"], "pasted", "momento-python")
            return await client.get(namespace["CACHE_NAME"], "pasted")

    got = asyncio.run(round_trip())
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_string == "momento-python"


# What a user's code would do next with the pasted client; it prints the value read back.
JS_USE = {
    "jiffy-js": (
        "await client.set(cache, 'pasted', 'jiffy-js');\n"
        "console.log(await client.getString(cache, 'pasted'));\n"
        "client.close();\n"
    ),
    "momento-js": (
        "await client.set(cacheName, 'pasted', 'momento-js');\n"
        "console.log((await client.get(cacheName, 'pasted')).value());\n"
        "client.close();\n"
    ),
}


@pytest.mark.skipif(
    not (MOMENTO_JS.exists() and (REPO / "sdk/js/dist/index.js").exists() and shutil.which("node")),
    reason="needs sdk/js built, bench/node_modules and node",
)
@pytest.mark.parametrize("sdk", JS_USE)
def test_the_typescript_presets_run_as_pasted_against_the_server(
    server: ServerInfo, sdk: str, tmp_path: Path
) -> None:
    node_modules = tmp_path / "node_modules"
    _link(node_modules, "@jiffy/sdk", REPO / "sdk/js")
    _link(node_modules, "@gomomento/sdk", MOMENTO_JS)
    for transport in transports.of(sdk):
        for entry in ENTRIES:
            entry = {**entry, "transport": transport}
            script = tmp_path / f"{sdk}-{transport}-{entry['channels']}.mjs"
            script.write_text(measured_at(server, sdk, entry)["code"] + JS_USE[sdk])
            before = calls_over(server, server_transport(sdk, entry))
            done = subprocess.run(
                ["node", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=60
            )
            assert done.returncode == 0, done.stderr
            assert done.stdout.strip().splitlines()[-1] == sdk
            # The set and the get went where the preset says.
            assert calls_over(server, server_transport(sdk, entry)) == before + 2
