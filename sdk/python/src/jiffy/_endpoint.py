"""Where the server is and how to authenticate: local, TLS, Momento API keys.

Environment, read by `Endpoint.from_env()`, the same rules as the TypeScript
SDK's (sdk/spec.json `endpoint_env` holds them and the cases both SDKs'
tests run). A variable set to "" counts as unset. In this order:

1. `JIFFY_ENDPOINT`: a jiffy server; `JIFFY_API_KEY`, when set, is sent as
   `authorization` as it is. The MOMENTO_* variables are then ignored: a
   Momento key is a secret for another service and is never sent here.
2. `MOMENTO_API_KEY`: the Momento service. A v1 key carries its endpoint;
   any other key is a v2 key and takes `MOMENTO_ENDPOINT`.
3. Neither: InvalidArgumentError naming JIFFY_ENDPOINT. No guess such as
   127.0.0.1:8080: 8080 is a common port, and a deployed client that forgot
   its variable would reach whatever listens there instead of saying so.

`JIFFY_ENDPOINT` (and `Endpoint.parse`) take `host:port` and `[ipv6]:port`
(plaintext), a bare `host` (plaintext on jiffy-server's default port, 8080),
`http://host[:port]` (plaintext) and `https://host[:port]` (TLS with the
system's roots, port 443 unless given): the scheme is the one place an
address can say "TLS" without code. A host, `localhost` included, is passed
to grpc as written and resolved when connecting; grpc tries every address
it resolves to, so `localhost` reaches a server on 127.0.0.1 or ::1.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from jiffy._exceptions import InvalidArgumentError

DEFAULT_LOCAL_HOST = "127.0.0.1"
# jiffy-server's default --listen port.
DEFAULT_LOCAL_PORT = 8080
TLS_PORT = 443

# host or [ipv6], then an optional :port; no path, no user info.
_HOST_PORT = re.compile(r"(?:\[([^\]\s]+)\]|([^:/\[\]\s@]+))(?::(\d{1,5}))?")
_SCHEMES = {"http": False, "https": True}


def _target(host: str, port: int) -> str:
    """host:port as grpc takes it: an IPv6 address goes in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def on_port(target: str, port: int) -> str:
    """`target`'s host on another port (where jiffy-server's Ping says its
    protosocket port is)."""
    host, _, _ = parse_address(target, "the endpoint")
    return _target(host, port)


def parse_address(text: str, source: str) -> tuple[str, int, bool]:
    """(host, port, tls) of an address in JIFFY_ENDPOINT's forms; `source`
    names where it came from, for the error."""
    value = text.strip()
    scheme, sep, rest = value.partition("://")
    tls = _SCHEMES.get(scheme.lower()) if sep else False
    match = _HOST_PORT.fullmatch(rest if sep else value)
    port = int(match[3]) if match and match[3] else (TLS_PORT if tls else DEFAULT_LOCAL_PORT)
    if tls is None or match is None or not 1 <= port <= 65535:
        raise InvalidArgumentError(
            f"{source} must be host:port, host, http://host[:port] or https://host[:port]"
            f" (e.g. 127.0.0.1:8080); got {text!r}"
        )
    return match[1] or match[2], port, tls


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
        target = _target(host, port)
        return cls(data_target=target, control_target=target, api_key=api_key)

    @classmethod
    def parse(cls, address: str, *, api_key: str | None = None) -> Endpoint:
        """A server given as JIFFY_ENDPOINT gives it: `host:port` (plaintext), a
        bare `host` (port 8080), `http://host[:port]` or `https://host[:port]` (TLS)."""
        host, port, tls = parse_address(address, "the endpoint")
        if tls:
            return cls.with_tls(host, port, api_key=api_key)
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
        target = _target(host, port)
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
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Endpoint:
        """JIFFY_ENDPOINT (+ JIFFY_API_KEY), else MOMENTO_API_KEY (+ MOMENTO_ENDPOINT),
        else InvalidArgumentError; the module's docstring has the rules.
        `environ` defaults to os.environ."""
        env = os.environ if environ is None else environ

        def variable(name: str) -> str | None:
            return env.get(name) or None  # "" counts as unset, as in a shell's `VAR=`

        jiffy_endpoint = variable("JIFFY_ENDPOINT")
        if jiffy_endpoint is not None:
            host, port, tls = parse_address(jiffy_endpoint, "JIFFY_ENDPOINT")
            api_key = variable("JIFFY_API_KEY")
            if tls:
                return cls.with_tls(host, port, api_key=api_key)
            return cls.local(host, port, api_key=api_key)
        momento_key = variable("MOMENTO_API_KEY")
        if momento_key is not None:
            return cls.momento(momento_key, variable("MOMENTO_ENDPOINT"))
        raise InvalidArgumentError(
            "no endpoint: set JIFFY_ENDPOINT=host:port for a jiffy server"
            " (or MOMENTO_API_KEY for Momento)"
        )


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
