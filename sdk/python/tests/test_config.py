"""Config, presets (v1 frozen), endpoints and credentials."""

from __future__ import annotations

import base64
import dataclasses
import json
from datetime import timedelta

import pytest

import jiffy
from jiffy import Config, Endpoint, RetryPolicy, presets
from jiffy._config import seconds


def test_config_is_immutable_keyword_only_with_repr() -> None:
    config = Config(channels=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.channels = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        Config(2)  # type: ignore[misc]
    assert "channels=2" in repr(config)
    assert "RetryPolicy(max_attempts=3" in repr(config)


def test_replace_changes_one_knob() -> None:
    base = presets.in_region.latest()
    changed = base.replace(max_concurrent_requests=7)
    assert changed.max_concurrent_requests == 7
    assert changed.replace(max_concurrent_requests=base.max_concurrent_requests) == base


@pytest.mark.parametrize(
    "bad",
    [
        {"channels": 0},
        {"max_concurrent_requests": -1},
        {"deadline": 0},
        {"default_ttl": -1},
    ],
)
def test_config_rejects_bad_values(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="Config"):
        Config(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad", [{"max_attempts": 0}, {"jitter": 1.5}, {"initial_backoff": 2.0, "max_backoff": 1.0}]
)
def test_retry_policy_rejects_bad_values(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="RetryPolicy"):
        RetryPolicy(**bad)  # type: ignore[arg-type]


# The v1 presets are frozen forever: a change here is a breaking change.
V1 = {
    "laptop": Config(
        channels=1, max_concurrent_requests=100, deadline=15.0, keepalive_time=30.0,
        keepalive_timeout=10.0,
        retry=RetryPolicy(max_attempts=3, initial_backoff=0.05, max_backoff=1.0, jitter=0.5),
        eager_connect_timeout=30.0, default_ttl=60.0,
    ),
    "in_region": Config(
        channels=1, max_concurrent_requests=50, deadline=5.0, keepalive_time=30.0,
        keepalive_timeout=10.0,
        retry=RetryPolicy(max_attempts=3, initial_backoff=0.01, max_backoff=0.5, jitter=0.5),
        eager_connect_timeout=10.0, default_ttl=60.0,
    ),
    "low_latency": Config(
        channels=1, max_concurrent_requests=5, deadline=1.0, keepalive_time=30.0,
        keepalive_timeout=5.0,
        retry=RetryPolicy(max_attempts=2, initial_backoff=0.005, max_backoff=0.05, jitter=0.5),
        eager_connect_timeout=5.0, default_ttl=60.0,
    ),
    "lambda": Config(
        channels=1, max_concurrent_requests=20, deadline=5.0, keepalive_time=None,
        keepalive_timeout=10.0,
        retry=RetryPolicy(max_attempts=3, initial_backoff=0.01, max_backoff=0.5, jitter=0.5),
        eager_connect_timeout=3.0, default_ttl=60.0,
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(V1))
def test_v1_presets_are_frozen(name: str) -> None:
    assert presets.by_name(name).v1() == V1[name]
    assert presets.by_name(name).latest().max_concurrent_requests > 0  # the cap is on


def test_presets_by_attribute_and_name() -> None:
    assert presets.in_region is presets.by_name("in_region")
    assert presets.lambda_ is presets.by_name("lambda")
    assert presets.low_latency is presets.by_name("low-latency")
    with pytest.raises(ValueError, match="known presets"):
        presets.by_name("fast")


def test_durations_take_seconds_or_timedelta() -> None:
    assert seconds(timedelta(milliseconds=250)) == 0.25
    assert seconds(3) == 3.0


def test_local_and_parsed_endpoints() -> None:
    local = Endpoint.local("10.0.0.1", 9000)
    assert local.data_target == local.control_target == "10.0.0.1:9000"
    assert not local.tls
    assert local.api_key is None
    assert Endpoint.parse("[::1]:8080").data_target == "[::1]:8080"
    assert Endpoint.local("::1", 8080).data_target == "[::1]:8080"
    assert Endpoint.parse("no-port").data_target == "no-port:8080"
    assert Endpoint.parse("https://cache.example.com").tls
    with pytest.raises(ValueError, match="host:port"):
        Endpoint.parse("host:no-port")


def test_tls_endpoint_keeps_ca_file() -> None:
    endpoint = Endpoint.with_tls("cache.example.com", ca_file="/etc/ca.pem", api_key="k")
    assert endpoint.tls
    assert endpoint.ca_file == "/etc/ca.pem"
    assert endpoint.data_target == "cache.example.com:443"
    assert "k" not in repr(endpoint).replace("api_key", "")


def test_momento_v1_key_carries_its_endpoint() -> None:
    key = base64.b64encode(json.dumps({"api_key": "tok", "endpoint": "m.example.com"}).encode())
    endpoint = Endpoint.momento(key.decode())
    assert endpoint.data_target == "cache.m.example.com:443"
    assert endpoint.control_target == "control.m.example.com:443"
    assert endpoint.tls
    assert endpoint.api_key == "tok"


def test_momento_v2_key_needs_an_endpoint() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
    with pytest.raises(ValueError, match="MOMENTO_ENDPOINT"):
        Endpoint.momento(jwt)
    endpoint = Endpoint.momento(jwt, "cell-1.example.com")
    assert endpoint.api_key == jwt
    assert endpoint.data_target == "cache.cell-1.example.com:443"


def test_endpoint_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("JIFFY_ENDPOINT", "JIFFY_API_KEY", "MOMENTO_API_KEY", "MOMENTO_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="JIFFY_ENDPOINT"):
        Endpoint.from_env()
    monkeypatch.setenv("MOMENTO_API_KEY", "a.b.c")
    monkeypatch.setenv("MOMENTO_ENDPOINT", "cell.example.com")
    assert Endpoint.from_env().data_target == "cache.cell.example.com:443"
    monkeypatch.setenv("JIFFY_ENDPOINT", "127.0.0.1:7000")
    monkeypatch.setenv("JIFFY_API_KEY", "secret")
    from_env = Endpoint.from_env()
    assert from_env.data_target == "127.0.0.1:7000"
    assert from_env.api_key == "secret"
    assert not from_env.tls


def test_client_defaults_to_environment_and_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIFFY_ENDPOINT", "127.0.0.1:1")
    client = jiffy.CacheClient()
    try:
        assert client.endpoint.data_target == "127.0.0.1:1"
        assert client.config == Config()
    finally:
        client.close()
