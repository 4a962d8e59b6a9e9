"""What the route decides, without I/O: which calls protosocket carries, how
they are said there, how each transport's failure is handed up.

The route (_async_route.py / _sync_route.py) sends every data call of the
client; this module holds what both forms share. A call is given as its gRPC
request (the catalogue's message) and its cache; protosocket is another way
of saying the same request, so a call over it is encoded from that request
and its answer decoded back into the gRPC response the client reads.
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
from jiffy._proto import cacheclient_pb2 as cache_pb

# The calls protosocket carries, by RPC name: what the catalogue's
# `transports` column will say (sdk/spec.json), kept here until it does.
PROTOSOCKET_CALLS = frozenset({"Get", "Set", "Delete"})

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


def _always(request: Any) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class ProtosocketCodec:
    """How one call is said over protosocket."""

    command: Callable[[str, Any], Any]
    """(cache, gRPC request) -> the CacheCommand."""
    answer: Callable[[Any], Any]
    """The command's answer -> the gRPC response the client reads."""
    fits: Callable[[Any], bool] = _always
    """Whether protosocket can carry this request at all ("auto" sends the
    rest over gRPC)."""


class _GetHit:
    """A Get's hit, read as c.read_get reads a _GetResponse. Building that
    message here would cost more than all the rest of the command's
    encoding and decoding (measured); the client only reads two fields."""

    __slots__ = ("cache_body",)
    result = cache_pb.ECacheResult.Hit

    def __init__(self, value: bytes) -> None:
        self.cache_body = value


# Answers that carry nothing, shared: the client only reads them.
_GET_MISS = c.GET.deserialize(b"")
_SET_DONE = c.SET.deserialize(b"")
_DELETE_DONE = c.DELETE.deserialize(b"")


def _get_answer(answer: Any) -> Any:
    """ps.read_get's reading, answered in the gRPC response's shape."""
    return _GetHit(answer.get.value) if answer.HasField("get") else _GET_MISS


CODECS: dict[str, ProtosocketCodec] = {
    "Get": ProtosocketCodec(
        lambda cache, request: ps.get_command(cache, request.cache_key), _get_answer
    ),
    "Set": ProtosocketCodec(
        lambda cache, request: ps.set_command(
            cache, request.cache_key, request.cache_body, request.ttl_milliseconds
        ),
        lambda answer: _SET_DONE,
        lambda request: len(request.cache_body) <= ps.MAX_VALUE,
    ),
    "Delete": ProtosocketCodec(
        lambda cache, request: ps.delete_command(cache, request.cache_key),
        lambda answer: _DELETE_DONE,
    ),
}
assert CODECS.keys() == PROTOSOCKET_CALLS, "every call protosocket carries needs its codec"


def protosocket_codecs() -> dict[c.Rpc, ProtosocketCodec]:
    """Per RPC of the table in _calls.py, its codec, for the calls protosocket carries."""
    return {rpc: CODECS[rpc.name] for rpc in c.ALL_RPCS if rpc.name in PROTOSOCKET_CALLS}


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
