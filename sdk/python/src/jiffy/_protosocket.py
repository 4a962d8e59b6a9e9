"""The protosocket protocol without I/O: frames, commands, answers, errors.

jiffy-server's `--protosocket-listen` port speaks Momento's protosocket cache
protocol (proto/protosocket/cache.proto): each message is a frame, its length
as a protobuf varint and then a `CacheCommand` (client) or `CacheResponse`
(server). After an Authenticate command, Get, Set and Delete commands are
pipelined on one connection, each under its own `message_id`, and answered
in any order. The connections (_protosocket_pool.py) do the I/O; everything
they parse, build and decide is here, so the async and the sync pools share it.

A failed command becomes a `StatusError` (_exceptions.py), the same neutral
failure a gRPC call is handed up as, so the executor retries both alike and
`_exceptions.error_from_status` maps both in one place. Which calls go over
this port, and when, is the route's choice (_route.py).
"""

from __future__ import annotations

from typing import Any

from jiffy._exceptions import StatusError, error_from_status
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
# The reason jiffy-server gives a Get whose value is over MAX_VALUE
# (server/src/error.rs): a value stored over gRPC that no answer here can carry.
ANSWER_TOO_LARGE = "answer_too_large_for_protosocket"
# A miss: NOT_FOUND with exactly this message. Any other NOT_FOUND is the cache.
MISS_MESSAGE = "Key not found"
# A varint takes at most ten bytes.
_MAX_VARINT = 10

TRANSPORT = "protosocket"
# Protosocket numbers its statuses as gRPC does, under gRPC's names
# (common.proto says so).
_STATUS_NAMES = {number: name for name, number in common_pb.Status.items()}
_NOT_FOUND = common_pb.Status.Value("NOT_FOUND")
# A server that predates CommandError.reason says the reason only in its
# message (server/src/error.rs); for such a server it is read from there.
_REASON_IN_MESSAGE = (
    ("item size limit exceeded", "item_size_limit_exceeded"),
    ("request limit exceeded", "request_size_limit_exceeded"),
    ("element size limit exceeded", "element_size_limit_exceeded"),
    ("a protosocket answer can carry; read it over gRPC", ANSWER_TOO_LARGE),
)


def failure(code: str, message: str, reason: str | None = None) -> StatusError:
    return StatusError(code, message, reason, TRANSPORT)


def unavailable(message: str) -> StatusError:
    """A connection that broke or could not be made: retried if idempotent."""
    return failure("UNAVAILABLE", message)


def deadline_exceeded() -> StatusError:
    return failure("DEADLINE_EXCEEDED", "no answer within the deadline")


def command_error(error: Any) -> StatusError:
    """The StatusError of a `common.CommandError` answer."""
    message: str = error.message
    reason: str | None = error.reason or next(
        (name for text, name in _REASON_IN_MESSAGE if text in message), None
    )
    return failure(_STATUS_NAMES.get(error.code, "UNKNOWN"), message, reason)


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
        refused = failure(
            "RESOURCE_EXHAUSTED",
            f"value is {len(value)} bytes, over the {MAX_VALUE} bytes a protosocket Get"
            " answer can carry; store it with a client whose protosocket_endpoint is None"
            ' or "auto"',
            "item_size_limit_exceeded",
        )
        raise error_from_status(refused, call="Set", deadline=0.0, target="", cache_call=True)
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


def outcome(response: Any) -> bytes | None:
    """What the client reads of a data command's answer: a Get's value, None
    for a miss or the answer of a Set or Delete; else raise its StatusError.
    Read here, as the answer arrives, so the route need not wait on it."""
    kind = response.WhichOneof("kind")
    if kind == "get":
        value: bytes = response.get.value
        return value
    if kind != "error":
        return None
    error = response.error
    if error.code == _NOT_FOUND and error.message == MISS_MESSAGE:
        return None
    raise command_error(error)


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
