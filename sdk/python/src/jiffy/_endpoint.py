"""Where the server is and how to authenticate: local, TLS, Momento API keys.

Environment, read by `Endpoint.from_env()` in this order:

| variable | meaning |
|---|---|
| `JIFFY_ENDPOINT` | `host:port` of a jiffy-server, plaintext |
| `JIFFY_API_KEY` | sent as `authorization` with JIFFY_ENDPOINT, when set |
| `MOMENTO_API_KEY` | a Momento v1 key, or a v2 key with MOMENTO_ENDPOINT |
| `MOMENTO_ENDPOINT` | the Momento endpoint of a v2 key, e.g. `cell-1.example.com` |
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass

from jiffy._exceptions import InvalidArgumentError

DEFAULT_LOCAL_HOST = "127.0.0.1"
DEFAULT_LOCAL_PORT = 8080
TLS_PORT = 443


def _parse_host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InvalidArgumentError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


@dataclass(frozen=True, kw_only=True, slots=True)
class Endpoint:
    """The data and control targets, TLS settings and the API key to send."""

    data_target: str
    """host:port of the data plane (Get, Set, ...)."""
    control_target: str
    """host:port of the control plane (CreateCache, ...); often the same."""
    tls: bool = False
    ca_file: str | None = None
    """PEM roots to trust instead of the system's; TLS only."""
    api_key: str | None = None
    """Sent as the `authorization` header when set."""

    def __repr__(self) -> str:
        key = "<set>" if self.api_key else None
        return (
            f"Endpoint(data_target={self.data_target!r}, control_target="
            f"{self.control_target!r}, tls={self.tls}, ca_file={self.ca_file!r}, api_key={key})"
        )

    @classmethod
    def local(
        cls,
        host: str = DEFAULT_LOCAL_HOST,
        port: int = DEFAULT_LOCAL_PORT,
        *,
        api_key: str | None = None,
    ) -> Endpoint:
        """A plaintext server such as jiffy-server or momento-local."""
        target = f"{host}:{port}"
        return cls(data_target=target, control_target=target, api_key=api_key)

    @classmethod
    def parse(cls, host_port: str, *, api_key: str | None = None) -> Endpoint:
        """A plaintext server given as `host:port`."""
        host, port = _parse_host_port(host_port)
        return cls.local(host, port, api_key=api_key)

    @classmethod
    def with_tls(
        cls,
        host: str,
        port: int = TLS_PORT,
        *,
        ca_file: str | None = None,
        api_key: str | None = None,
    ) -> Endpoint:
        """A server behind TLS; `ca_file` replaces the system roots."""
        target = f"{host}:{port}"
        return cls(
            data_target=target, control_target=target, tls=True, ca_file=ca_file, api_key=api_key
        )

    @classmethod
    def momento(cls, api_key: str, endpoint: str | None = None) -> Endpoint:
        """The Momento service: a v1 key (endpoint inside) or a v2 key with its endpoint."""
        decoded = _decode_v1_key(api_key)
        if decoded is not None:
            token, endpoint = decoded
        elif endpoint:
            token = api_key
        else:
            raise InvalidArgumentError(
                "this Momento API key carries no endpoint (a v2 key): pass `endpoint`"
                " or set MOMENTO_ENDPOINT"
            )
        return cls(
            data_target=f"cache.{endpoint}:{TLS_PORT}",
            control_target=f"control.{endpoint}:{TLS_PORT}",
            tls=True,
            api_key=token,
        )

    @classmethod
    def from_env(cls) -> Endpoint:
        """JIFFY_ENDPOINT (+ JIFFY_API_KEY), else MOMENTO_API_KEY (+ MOMENTO_ENDPOINT)."""
        jiffy_endpoint = os.environ.get("JIFFY_ENDPOINT")
        if jiffy_endpoint:
            return cls.parse(jiffy_endpoint, api_key=os.environ.get("JIFFY_API_KEY") or None)
        momento_key = os.environ.get("MOMENTO_API_KEY")
        if momento_key:
            return cls.momento(momento_key, os.environ.get("MOMENTO_ENDPOINT") or None)
        raise InvalidArgumentError("no endpoint: set JIFFY_ENDPOINT=host:port (or MOMENTO_API_KEY)")


def _decode_v1_key(api_key: str) -> tuple[str, str] | None:
    """(token, endpoint) of a v1 key: base64 of JSON {api_key, endpoint}; else None."""
    try:
        padded = api_key + "=" * (-len(api_key) % 4)
        payload = json.loads(base64.b64decode(padded, validate=True))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(payload, dict):
        return None
    token, endpoint = payload.get("api_key"), payload.get("endpoint")
    if isinstance(token, str) and isinstance(endpoint, str):
        return token, endpoint
    return None
