"""The SDK against sdk/spec.json: config defaults, presets, endpoints from the
environment, the error classes and their statuses, and how calls spread
over channels. The TypeScript SDK runs the same file through its own test
(test/unit/spec-config.test.ts), so a difference between the SDKs fails one.
"""

from __future__ import annotations

import asyncio
import builtins
import dataclasses
import importlib
import json
from pathlib import Path
from typing import Any

import grpc
import pytest

import jiffy
from jiffy import Config, Endpoint, RetryPolicy, _adaptive, presets
from jiffy._channel_choice import AsyncLeastLoaded, SyncLeastLoaded
from jiffy._exceptions import error_from_status
from jiffy._route import status_of
from tests.conftest import Server

SPEC = json.loads((Path(__file__).resolve().parents[2] / "spec.json").read_text())
KNOBS = SPEC["config"]["knobs"]
PYTHON_KNOBS = [knob for knob in KNOBS if knob["python"] is not None and knob["python"]["name"]]
# Divisors, not factors: 5 / 1000 is exactly the literal 0.005, 5 * 0.001 may not be.
PYTHON_DIVISOR = {("ms", "s"): 1000}


def to_python(knob: dict[str, Any], value: Any) -> Any:
    """A value in the spec's neutral unit as this SDK writes it."""
    python = knob["python"]
    if value is None:
        assert "off" in python, f"{knob['name']} has no off value"
        return python["off"]
    divisor = PYTHON_DIVISOR.get((knob["unit"], python["unit"]))
    return value if divisor is None else value / divisor


def knob_named(name: str) -> dict[str, Any]:
    [knob] = [knob for knob in KNOBS if knob["name"] == name]
    return knob


def read(config: Config, python_name: str) -> Any:
    value: Any = config
    for part in python_name.split("."):
        value = getattr(value, part)
    return value


def config_from(neutral: dict[str, Any]) -> Config:
    """A Config from knobs in the spec's names and units."""
    top: dict[str, Any] = {}
    retry: dict[str, Any] = {}
    for name, value in neutral.items():
        knob = knob_named(name)
        python_name = knob["python"]["name"]
        target = retry if python_name.startswith("retry.") else top
        target[python_name.removeprefix("retry.")] = to_python(knob, value)
    return Config(**top, retry=RetryPolicy(**retry))


# Config defaults.


@pytest.mark.parametrize("knob", PYTHON_KNOBS, ids=lambda knob: knob["name"])
def test_config_default_is_the_specs(knob: dict[str, Any]) -> None:
    assert read(Config(), knob["python"]["name"]) == to_python(knob, knob["default"])


def test_every_config_field_is_in_the_spec() -> None:
    fields = {f.name for f in dataclasses.fields(Config) if f.name != "retry"}
    fields |= {f"retry.{f.name}" for f in dataclasses.fields(RetryPolicy)}
    assert fields == {knob["python"]["name"] for knob in PYTHON_KNOBS}


@pytest.mark.parametrize(
    "knob",
    [knob for knob in KNOBS if knob["python"] is not None and not knob["python"]["name"]],
    ids=lambda knob: knob["name"],
)
def test_fixed_values_are_the_specs_defaults(knob: dict[str, Any]) -> None:
    module, _, constant = knob["python"]["constant"].rpartition(".")
    assert getattr(importlib.import_module(module), constant) == knob["default"]


def test_a_client_given_no_config_uses_the_defaults() -> None:
    client = jiffy.CacheClient(Endpoint.local("127.0.0.1", 1))
    try:
        assert client.config == Config()
        cap = knob_named("max_concurrent_requests")
        assert client._executor.limiter.cap == to_python(cap, cap["default"])
    finally:
        client.close()


# Presets.

PRESETS = SPEC["presets"]["list"]


@pytest.mark.parametrize("spec", PRESETS, ids=lambda spec: spec["name"])
def test_preset_names(spec: dict[str, Any]) -> None:
    preset = getattr(presets, spec["python"])
    assert preset is presets.by_name(spec["name"])
    assert preset.name == spec["name"]
    assert preset.measured_in == spec["measured_in"]
    transport = spec["measured_transport"]
    assert preset.measured_transport == (transport["python"] if transport else None)
    # A measured preset says over what; one not measured has no transport to name.
    assert (spec["measured_in"] is None) == (transport is None)


@pytest.mark.parametrize("version", ["v1", "latest"])
@pytest.mark.parametrize("spec", PRESETS, ids=lambda spec: spec["name"])
def test_preset_values(spec: dict[str, Any], version: str) -> None:
    preset = getattr(presets, spec["python"])
    expected = config_from({**spec["v1"], **spec["per_sdk"]["python"][version]})
    assert getattr(preset, version)() == expected


def test_the_spec_sets_every_knob_of_every_preset() -> None:
    preset_knobs = {knob["name"] for knob in PYTHON_KNOBS if knob.get("in_presets", True)}
    for spec in PRESETS:
        for version in ("v1", "latest"):
            named = set(spec["v1"]) | set(spec["per_sdk"]["python"][version])
            assert named == preset_knobs, spec["name"]


# The adaptive limit (max_concurrent_requests="auto").

ADAPTIVE = SPEC["adaptive"]


@pytest.mark.parametrize("name", sorted(ADAPTIVE["constants"]))
def test_adaptive_constants_are_the_specs(name: str) -> None:
    value = ADAPTIVE["constants"][name]
    if name.endswith("_ms"):
        assert getattr(_adaptive, name.removesuffix("_ms").upper()) == value / 1000
    else:
        assert getattr(_adaptive, name.upper()) == value


def test_adaptive_value_and_losses_are_the_specs() -> None:
    assert ADAPTIVE["value"] == _adaptive.AUTO
    assert Config(max_concurrent_requests=ADAPTIVE["value"]).max_concurrent_requests == "auto"
    assert set(ADAPTIVE["drop_statuses"]) == _adaptive.DROP_STATUSES
    assert set(ADAPTIVE["drop_exempt_reasons"]) == _adaptive.DROP_EXEMPT_REASONS


@pytest.mark.parametrize("method", ADAPTIVE["methods"], ids=lambda method: method["name"])
def test_adaptive_methods_are_on_both_clients(method: dict[str, Any]) -> None:
    for client in (jiffy.AsyncCacheClient, jiffy.CacheClient):
        assert callable(getattr(client, method["python"]))


@pytest.mark.parametrize("trace", ADAPTIVE["traces"], ids=lambda trace: trace["name"])
def test_adaptive_trace(trace: dict[str, Any]) -> None:
    """The spec's calls through AdaptiveLimit, in milliseconds as the TypeScript SDK's."""
    limit = _adaptive.AdaptiveLimit(
        trace["ceiling"],
        target_p999=trace["target_p999_ms"],
        queue_delay=ADAPTIVE["constants"]["queue_delay_ms"],
        clock=lambda: 0.0,
    )
    seen = []
    for segment in trace["segments"]:
        for number in range(1, segment["samples"] + 1):
            in_flight = limit.limit
            rtt = segment["base_ms"] + segment["per_call_ms"] * in_flight
            if segment["spike_every"] and number % segment["spike_every"] == 0:
                rtt = segment["spike_ms"]
            if segment["drop_every"] and number % segment["drop_every"] == 0:
                limit.drop()
            limit.sample(rtt, in_flight)
        assert limit.baseline is not None
        seen.append(
            {"limit": limit.limit, "chosen": limit.chosen, "baseline_ms": round(limit.baseline, 9)}
        )
    assert seen == trace["expected"]


# Endpoints from the environment.

CASES = SPEC["endpoint_env"]["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda case: json.dumps(case["env"]))
def test_endpoint_from_environment(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(jiffy.InvalidArgumentError, match=case["error"]):
            Endpoint.from_env(case["env"])
        return
    endpoint = Endpoint.from_env(case["env"])
    resolved = {
        "data": endpoint.data_target,
        "control": endpoint.control_target,
        "tls": endpoint.tls,
        "authorization": endpoint.api_key,
    }
    assert resolved == {key: case[key] for key in resolved}


def test_from_env_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SPEC["endpoint_env"]["variables"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JIFFY_ENDPOINT", "cache.internal")
    default_port = SPEC["endpoint_env"]["default_port"]
    assert Endpoint.from_env().data_target == f"cache.internal:{default_port}"


def test_localhost_reaches_a_server_on_127_0_0_1(server: Server) -> None:
    # The server listens on 127.0.0.1 only. Where `localhost` resolves to ::1
    # first, this also checks that the next address is tried; where it
    # resolves to 127.0.0.1 alone (the CI machine), that the name is resolved.
    endpoint = Endpoint.from_env({"JIFFY_ENDPOINT": f"localhost:{server.port}"})
    with jiffy.CacheClient(endpoint, Config(eager_connect_timeout=5.0)) as client:
        client.ping()


# Errors.

ERRORS = SPEC["errors"]["classes"]


class FakeRpcError(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, reason: str | None = None) -> None:
        self._code = code
        self._trailers = () if reason is None else (("err", reason),)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return "from the spec test"

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._trailers


def translate(status: str, reason: str | None = None, cache_call: bool = False) -> Exception:
    failed = FakeRpcError(grpc.StatusCode[status], reason)
    return error_from_status(
        status_of(failed), call="Get", deadline=5.0, target="t", cache_call=cache_call
    )


@pytest.mark.parametrize("spec", ERRORS, ids=lambda spec: spec["name"])
def test_error_class_and_parent(spec: dict[str, Any]) -> None:
    cls = getattr(jiffy, spec["python"])
    assert cls.__name__ == spec["python"]
    if spec["parent"] is None:
        assert cls.__bases__ == (Exception,)
    else:
        parent = getattr(jiffy, next(e["python"] for e in ERRORS if e["name"] == spec["parent"]))
        assert parent in cls.__bases__
    if "python_builtin" in spec:
        assert issubclass(cls, getattr(builtins, spec["python_builtin"]))


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (status, spec["python"])
        for spec in ERRORS
        for status in spec["statuses"]
        if status != "NOT_FOUND"
    ],
)
def test_status_maps_to_its_class(status: str, expected: str) -> None:
    for cache_call in (False, True):
        error = translate(status, cache_call=cache_call)
        assert type(error) is getattr(jiffy, expected)
        assert error.status == status


@pytest.mark.parametrize("case", SPEC["errors"]["not_found"], ids=str)
def test_not_found_maps_by_reason(case: dict[str, Any]) -> None:
    error = translate("NOT_FOUND", case["reason"], case["cache_call"])
    expected = next(e["python"] for e in ERRORS if e["name"] == case["class"])
    assert type(error) is getattr(jiffy, expected)


def test_every_status_and_every_exported_error_is_in_the_spec() -> None:
    listed = {status for spec in ERRORS for status in spec["statuses"]}
    assert listed == {code.name for code in grpc.StatusCode if code is not grpc.StatusCode.OK}
    exported = {
        name
        for name in jiffy.__all__
        if isinstance(getattr(jiffy, name), type) and issubclass(getattr(jiffy, name), Exception)
    }
    assert exported == {spec["python"] for spec in ERRORS}


# Channels: a call goes to the channel with the fewest calls in flight.


@pytest.mark.parametrize("chooser_type", [AsyncLeastLoaded, SyncLeastLoaded])
def test_least_loaded_channel_is_chosen_and_ties_rotate(chooser_type: type) -> None:
    chooser = chooser_type(3)
    assert [chooser.take() for _ in range(3)] == [0, 1, 2]  # even load: round robin
    chooser.give_back(1)
    assert chooser.take() == 1  # the only one with room, wherever the scan starts
    chooser.give_back(0)
    chooser.give_back(2)
    assert sorted(chooser.take() for _ in range(2)) == [0, 2]
    assert chooser.in_flight == [1, 1, 1]


async def test_calls_give_their_channel_back(server: Server, cache_name: str) -> None:
    """A call gives its channel back however it ends: an answer or an error."""
    config = Config(channels=3, max_concurrent_requests=0)
    async with jiffy.AsyncCacheClient(server.endpoint, config, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        try:
            await asyncio.gather(*(client.set(f"k{i}", "v") for i in range(60)))
            with pytest.raises(jiffy.CacheNotFoundError):
                await client.get("k", cache=f"{cache_name}-missing")
            await asyncio.gather(*(client.get(f"k{i}") for i in range(60)))
            assert client._executor.transport.channel_loads == [0, 0, 0]
        finally:
            await client.delete_cache(cache_name)
