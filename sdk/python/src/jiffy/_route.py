"""What the route decides, without I/O: which calls protosocket carries, how
they are said there, how each transport's failure is handed up.

The route (_async_route.py / _sync_route.py) sends every data call of the
client; this module holds what both forms share. A call only gRPC carries is
given as its gRPC request and answered with its gRPC response; a call
protosocket carries too is given as its arguments, which its `Shapes` say
on either transport, and answered with what the client reads of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from jiffy import _calls as c
from jiffy import _protosocket as ps
from jiffy._exceptions import StatusError

# The calls protosocket carries, by RPC name, as the catalogue's `transports`
# column says (sdk/spec.json, generated into _calls.py).
PROTOSOCKET_CALLS = frozenset(rpc.name for rpc in c.ALL_RPCS if rpc.over_protosocket)

GRPC = "grpc"


def status_of(exc: grpc.RpcError) -> StatusError:
    """A failed gRPC call in neutral terms: status name, details, `err` trailer.
    (grpc.RpcError itself declares none of code(), details(), trailers.)"""
    code = exc.code() if hasattr(exc, "code") else None
    name = code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"
    details = (exc.details() if hasattr(exc, "details") else None) or ""
    trailers: Any = exc.trailing_metadata() if hasattr(exc, "trailing_metadata") else None
    reason = None
    for key, value in trailers or ():
        if key == "err":
            reason = value if isinstance(value, str) else value.decode(errors="replace")
            break
    return StatusError(name, details, reason, GRPC)


def failure_of(exc: BaseException) -> StatusError:
    """What a transport raised for a failed attempt, as a StatusError."""
    if isinstance(exc, StatusError):
        return exc
    assert isinstance(exc, grpc.RpcError)
    return status_of(exc)


@dataclass(frozen=True, slots=True)
class Shapes:
    """How a call that more than one transport carries is said on each.

    Such a call reaches the route as its arguments (a tuple), not as a gRPC
    request, and the route hands back what the client reads of its answer:
    building a gRPC message only to read it back for protosocket, and the
    reverse for the answer, cost about 1 µs a call, a tenth of the client's
    whole cost of a Get (measured). Each function is called with the
    arguments spread, so no frame of our own sits between them.
    """

    grpc: Callable[..., Any]
    """(*arguments) -> the gRPC request."""
    command: Callable[..., Any]
    """(cache, *arguments) -> the protosocket CacheCommand."""
    read_grpc: Callable[[Any], Any] | None = None
    """The gRPC response -> what the client gets; None: nothing is read.
    (A protosocket answer is read as it arrives: _protosocket.outcome.)"""
    fits: Callable[..., bool] | None = None
    """(*arguments) -> whether protosocket can carry them at all ("auto"
    sends the rest over gRPC); None: always."""
    answers_value: bool = False
    """The answer carries a value (a Get's), which can be too large for a
    protosocket answer: "auto" then reads it over gRPC."""


def _fits_protosocket(key: bytes, value: bytes, ttl_ms: int) -> bool:
    return len(value) <= ps.MAX_VALUE


# Per call protosocket carries, its shapes; the arguments are
# Get and Delete: (key,); Set: (key, value, ttl_ms).
SHAPES: dict[str, Shapes] = {
    "Get": Shapes(
        lambda key: c.GetRequest(cache_key=key),
        ps.get_command,
        read_grpc=c.read_get,
        answers_value=True,
    ),
    "Set": Shapes(
        lambda key, value, ttl_ms: c.SetRequest(
            cache_key=key, cache_body=value, ttl_milliseconds=ttl_ms
        ),
        ps.set_command,
        fits=_fits_protosocket,
    ),
    "Delete": Shapes(lambda key: c.DeleteRequest(cache_key=key), ps.delete_command),
}
assert SHAPES.keys() == PROTOSOCKET_CALLS, "every call protosocket carries needs its shapes"


def shapes_by_rpc() -> dict[c.Rpc, Shapes]:
    """Per RPC of the table in _calls.py that protosocket carries, its shapes."""
    return {rpc: SHAPES[rpc.name] for rpc in c.ALL_RPCS if rpc.name in PROTOSOCKET_CALLS}


# "auto": what the route decides from its Ping, the same for the async and
# the blocking one (each does its own I/O around it).

# jiffy-server's Ping answer names its protosocket port in this header
# (server/src/service/ping.rs); the Momento service sends none.
PORT_HEADER = "jiffy-protosocket-port"
# The most connect waits for the port the Ping named. The server has just
# answered over gRPC, so a reachable port opens within a few round trips;
# one that a firewall silently drops must not hold connect for the whole
# eager_connect_timeout before gRPC is settled on.
AUTO_CONNECT_TIMEOUT = 2.0

_logger = logging.getLogger("jiffy")


def still_undecided(failed_ping: grpc.RpcError) -> bool:
    """Whether a failed Ping leaves the question for a later connect: only
    an unreachable server does. Any other failure is an answer (a server
    that refuses the Ping says nothing of protosocket)."""
    return status_of(failed_ping).code == "UNAVAILABLE"


def advertised_port(headers: dict[str, str]) -> int | None:
    """The port a Ping answer names; None without one (the Momento service,
    jiffy-server without the port) or with one that is no port (warned)."""
    advertised = headers.get(PORT_HEADER)
    if advertised is None:
        return None
    if not advertised.isdigit() or not 1 <= int(advertised) <= 65535:
        _logger.warning(
            "jiffy: the server's Ping named protosocket port %r, which is no port;"
            " get, set and delete stay on gRPC",
            advertised,
        )
        return None
    return int(advertised)


def warn_unreachable(error: Exception) -> None:
    """The advertised port could not be opened: say why, once; gRPC carries on."""
    _logger.warning(
        'jiffy: protosocket_endpoint="auto": %s; get, set and delete stay on gRPC'
        " (protosocket_endpoint=None skips the attempt)",
        error,
    )
