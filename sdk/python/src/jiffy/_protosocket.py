"""The protosocket protocol without I/O: frames, commands, answers, errors.

jiffy-server's `--protosocket-listen` port speaks Momento's protosocket cache
protocol (proto/protosocket/cache.proto): each message is a frame, its length
as a protobuf varint and then a `CacheCommand` (client) or `CacheResponse`
(server). After an Authenticate command, Get, Set and Delete commands are
pipelined on one connection, each under its own `message_id`, and answered
in any order. The connections (_protosocket_pool.py) do the I/O; everything
they parse, build and decide is here, so the async and the sync pools share it.

A failed command becomes a `ProtosocketError`, a `grpc.RpcError` that answers
`code()`, `details()` and `trailing_metadata()` as a failed gRPC call does, so
the executor retries it and `_exceptions.error_from_rpc` translates it exactly
as it does a gRPC failure: one error tree, one place that maps it.
"""

from __future__ import annotations

import logging
from typing import Any

import grpc

from jiffy._calls import Rpc
from jiffy._exceptions import error_from_rpc
from jiffy._proto import protosocket_cache_pb2 as cache_pb
from jiffy._proto import protosocket_common_pb2 as common_pb

# The id of the Authenticate command, as Momento's own client sends it; data
# commands count up from 1 per connection and never reach it in practice
# (2**32 commands), and the Authenticate is answered before any is sent.
AUTH_MESSAGE_ID = 0xDEADBEEF
CANCEL = 1
# The official client reads no frame over 4 MiB (length prefix included), so
# jiffy-server sends none: a larger frame is a broken stream, not an answer.
MAX_FRAME = 4 << 20
# The largest value a Get answer can carry (jiffy-server's protosocket
# `max_value`): a Set of more is refused before it is sent. The server would
# refuse it too, and a frame over its --max-request-size (5 MiB by default)
# would close the connection under every other call on it.
MAX_VALUE = 4_194_279
# How jiffy-server's refusal of a Get whose value is over MAX_VALUE ends
# (server/src/error.rs): a value stored over gRPC that no answer here can carry.
READ_OVER_GRPC = "a protosocket answer can carry; read it over gRPC"
# A miss: NOT_FOUND with exactly this message. Any other NOT_FOUND is the cache.
MISS_MESSAGE = "Key not found"
# A varint takes at most ten bytes.
_MAX_VARINT = 10

# Protosocket status numbers are gRPC's (common.proto says so).
_STATUS_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}
_NOT_FOUND = common_pb.Status.Value("NOT_FOUND")
# The server's `err` reason rides only in gRPC trailers; here its message
# says it (server/src/error.rs), and the trailer is rebuilt from that.
_REASON_BY_PREFIX = (
    ("item size limit exceeded", "item_size_limit_exceeded"),
    ("request limit exceeded", "request_size_limit_exceeded"),
    ("element size limit exceeded", "element_size_limit_exceeded"),
)


# The calls protosocket carries: the same names, retry class and cache rule
# as their gRPC twins in _calls.py; the codecs are unused (the pool encodes).
def _twin(name: str) -> Rpc:
    return Rpc(name, f"protosocket:{name}", bytes, bytes, idempotent=True)


GET = _twin("Get")
SET = _twin("Set")
DELETE = _twin("Delete")
PROTOSOCKET_RPCS = (GET, SET, DELETE)


class ProtosocketError(grpc.RpcError):
    """A failed protosocket command, dressed as a failed gRPC call."""

    def __init__(self, code: grpc.StatusCode, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self._code = code
        self._message = message
        self._trailers = (("err", reason),) if reason else ()

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message

    def trailing_metadata(self) -> Any:  # pairs, as a gRPC call's trailers
        return self._trailers


def unavailable(message: str) -> ProtosocketError:
    """A connection that broke or could not be made: retried if idempotent."""
    return ProtosocketError(grpc.StatusCode.UNAVAILABLE, message)


def deadline_exceeded() -> ProtosocketError:
    return ProtosocketError(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer within the deadline")


def command_error(error: Any) -> ProtosocketError:
    """The ProtosocketError of a `common.CommandError` answer."""
    message: str = error.message
    reason = None
    for prefix, name in _REASON_BY_PREFIX:
        if message.startswith(prefix):
            reason = name
            break
    code = _STATUS_BY_NUMBER.get(error.code, grpc.StatusCode.UNKNOWN)
    return ProtosocketError(code, message, reason)


# Commands. Each call builds its command once; every attempt sets a fresh
# `message_id` on it and serializes it.


def get_command(cache: str, key: bytes) -> Any:
    # Fields set in place: building the nested messages with constructor
    # arguments copies each one into its parent, ~1.3 us more per call.
    command = _CacheCommand()
    get = command.unary.get
    get.namespace = cache
    get.key = key
    return command


def set_command(cache: str, key: bytes, value: bytes, ttl_ms: int) -> Any:
    if len(value) > MAX_VALUE:
        refused = ProtosocketError(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"value is {len(value)} bytes, over the {MAX_VALUE} bytes a protosocket Get"
            " answer can carry; store it with a client whose protosocket_endpoint is None"
            ' or "auto"',
            "item_size_limit_exceeded",
        )
        raise error_from_rpc(refused, call="Set", deadline=0.0, target="", cache_call=True)
    command = _CacheCommand()
    set_ = command.unary.set
    set_.namespace = cache
    set_.key = key
    set_.value = value
    set_.ttl_milliseconds = ttl_ms
    return command


def delete_command(cache: str, key: bytes) -> Any:
    command = _CacheCommand()
    delete = command.unary.delete
    delete.namespace = cache
    delete.key = key
    return command


_CacheCommand = cache_pb.CacheCommand


def auth_frame(token: str) -> bytes:
    command = cache_pb.CacheCommand(
        message_id=AUTH_MESSAGE_ID,
        unary=cache_pb.Unary(auth=cache_pb.AuthenticateCommand(token=token)),
    )
    return frame(command.SerializeToString())


def cancel_frame(message_id: int) -> bytes:
    return frame(
        cache_pb.CacheCommand(message_id=message_id, control_code=CANCEL).SerializeToString()
    )


def varint(value: int) -> bytes:
    if value < 0x80:
        return _SMALL[value]
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = [bytes((n,)) for n in range(0x80)]


def frame(message: bytes) -> bytes:
    return varint(len(message)) + message


# Answers.

parse_response = cache_pb.CacheResponse.FromString


def too_large_to_read(exc: BaseException) -> bool:
    """Whether a failed Get failed only because its value is over what a
    protosocket answer can carry (gRPC can read it)."""
    cause = exc.__cause__
    return isinstance(cause, ProtosocketError) and cause.details().endswith(READ_OVER_GRPC)


def outcome(response: Any) -> Any:
    """The answer of a data command: the response itself on success or a
    miss (read_get tells them apart), else raise its ProtosocketError."""
    if response.WhichOneof("kind") != "error":
        return response
    error = response.error
    if error.code == _NOT_FOUND and error.message == MISS_MESSAGE:
        return response
    raise command_error(error)


def read_get(response: Any) -> bytes | None:
    """A Get's value, or None on a miss (an `error` that `outcome` let through)."""
    return response.get.value if response.HasField("get") else None


# "auto": what a transport decides from its Ping, the same for the async and
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
    return bool(failed_ping.code() == grpc.StatusCode.UNAVAILABLE)


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


class FrameError(Exception):
    """The bytes from the server are no frame: the connection is unusable."""


class FrameDecoder:
    """Splits a byte stream into frames, whatever the reads' boundaries.

    `feed` takes what one read returned and gives the whole frames in it. Bytes
    of an unfinished frame are kept; while a frame is known to need more than
    has arrived, new reads are only appended (no parsing), so a large frame
    arriving in many reads costs one copy, not one parse per read.
    """

    __slots__ = ("_buffer", "_need", "limit")

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._need = 0
        """Bytes the buffer must hold before parsing is worth trying again."""
        self.limit = limit
        """The largest message accepted, length prefix included."""

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        buffer = self._buffer
        if not buffer:
            frames, position = self._split(data)
            if position < len(data):
                buffer += memoryview(data)[position:]
            return frames
        buffer += data
        if len(buffer) < self._need:
            return []
        frames, position = self._split(buffer)
        del buffer[:position]
        return frames

    def _split(self, data: bytes | bytearray) -> tuple[list[bytes], int]:
        """The whole frames at the start of `data`, and where the rest begins."""
        frames: list[bytes] = []
        end = len(data)
        position = 0
        limit = self.limit
        while position < end:
            length = data[position]
            start = position + 1
            if length >= 0x80:
                length, start = self._long_varint(data, position)
                if start < 0:  # the data ends inside the length prefix
                    self._need = end - position + 1
                    break
            stop = start + length
            if stop - position > limit:
                raise FrameError(f"a frame of {stop - position} bytes, over the limit of {limit}")
            if stop > end:
                self._need = stop - position
                break
            frames.append(data[start:stop])  # type: ignore[arg-type]
            position = stop
        return frames, position

    @staticmethod
    def _long_varint(data: bytes | bytearray, position: int) -> tuple[int, int]:
        """(value, index after it) of the varint at `position`; (0, -1) if the
        data ends inside it."""
        value = 0
        shift = 0
        end = len(data)
        for index in range(position, min(end, position + _MAX_VARINT)):
            byte = data[index]
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value, index + 1
            shift += 7
        if end - position >= _MAX_VARINT:
            raise FrameError("a length prefix longer than ten bytes: not a varint")
        return 0, -1
