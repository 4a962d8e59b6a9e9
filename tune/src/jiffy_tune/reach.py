"""Where the server is, and whether anything still listens there.

A loadgen that cannot connect fails only after its SDK's connect timeout;
one TCP connect tells at once that the server is gone, so jiffy-tune checks
an external endpoint before the sweep and the endpoint after each failed
point, and stops rather than fail every point left the same slow way.
"""

from __future__ import annotations

import re
import socket

# jiffy-server's default --listen port: a bare host means it (as in the SDKs).
DEFAULT_PORT = 8080
TLS_PORT = 443
PROBE_TIMEOUT_S = 3.0

_ADDRESS = re.compile(r"(?:(https?)://)?(?:\[([^\]\s]+)\]|([^:/\[\]\s@]+))(?::(\d{1,5}))?/?")


def host_port(endpoint: str) -> tuple[str, int]:
    """Host and port of an endpoint in the loadgens' forms: `host:port`,
    `[ipv6]:port`, a bare `host`, `http://host[:port]`, `https://host[:port]`."""
    match = _ADDRESS.fullmatch(endpoint.strip())
    if match is None:
        raise ValueError(f"not an endpoint: {endpoint!r}")
    scheme, ipv6, host, port = match.groups()
    default = TLS_PORT if scheme == "https" else DEFAULT_PORT
    return ipv6 or host, int(port) if port else default


def unreachable(endpoint: str, timeout: float = PROBE_TIMEOUT_S) -> str | None:
    """Why nothing accepts a connection at `endpoint` (e.g. "connection refused"),
    or None when something does, or when the endpoint cannot be read (the
    loadgens will say what is wrong with it)."""
    try:
        address = host_port(endpoint)
    except ValueError:
        return None
    try:
        with socket.create_connection(address, timeout=timeout):
            return None
    except socket.gaierror as exc:
        return f"unknown host {address[0]} ({exc.strerror})"
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except OSError as exc:
        return (exc.strerror or str(exc)).lower()
