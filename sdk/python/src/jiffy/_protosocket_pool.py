"""Protosocket connections: pipelined commands matched by message id.

One connection per `channels` (the meaning the knob has for gRPC: that many
TCP connections, each call on the one its index names). Each connection
writes a call's frame as soon as the call holds an in-flight slot, and a
reader resolves the call whose `message_id` an answer carries, in whatever
order answers come. A call past its deadline fails with DEADLINE_EXCEEDED
and a cancel frame tells the server to drop it.

A connection that breaks fails every call in flight on it with UNAVAILABLE
(the executor retries the idempotent ones, which Get, Set and Delete all
are); the next call opens it again (connect, TLS, Authenticate). The
protocol, frames and errors are in _protosocket.py; this module holds only
I/O, in two forms: asyncio (Protocol, Futures) and threads (blocking
sockets, one reader thread per connection), as _io.py and _limiter.py do.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

from jiffy import _protosocket as ps
from jiffy._config import Config
from jiffy._endpoint import Endpoint, parse_address
from jiffy._exceptions import ConnectionError, StatusError, error_from_status

# A refused connection is tried again for this long before connect() says so,
# as the gRPC channels do (_async_transport.REFUSED_GRACE).
REFUSED_GRACE = 1.0
_REFUSED_PAUSE = 0.05

T = TypeVar("T")


class _Target:
    """Where the connections go and what they present: host, port, TLS, token."""

    __slots__ = ("host", "port", "address", "ssl", "token", "deadline")

    def __init__(self, endpoint: Endpoint, config: Config, address: str) -> None:
        self.address = address
        self.host, self.port, _ = parse_address(address, "Config.protosocket_endpoint")
        self.ssl: ssl.SSLContext | None = None
        if endpoint.tls:
            self.ssl = ssl.create_default_context(cafile=endpoint.ca_file)
        # Any token opens a server without auth; the official client sends one too.
        self.token = endpoint.api_key or ""
        self.deadline = config.deadline

    def cause(self, exc: BaseException) -> str:
        """Why a connection could not be opened, in the words of the gRPC side's diagnosis."""
        if isinstance(exc, socket.gaierror):
            return f"unknown host {self.host!r}"
        if isinstance(exc, ConnectionRefusedError):
            return "connection refused"
        if isinstance(exc, ssl.SSLCertVerificationError):
            return (
                f"the server's TLS certificate is not trusted ({exc.verify_message});"
                " give its CA as the endpoint's ca_file"
            )
        if isinstance(exc, ssl.SSLError):
            return f"TLS failed ({exc.reason}): does the server's protosocket port speak TLS?"
        if isinstance(exc, StatusError):
            return exc.message
        return str(exc) or type(exc).__name__

    def connect_error(self, exc: BaseException) -> Exception:
        """The error connect() raises: the Authenticate's own answer mapped as
        any call's, else ConnectionError naming the cause."""
        if isinstance(exc, StatusError) and exc.code != "UNAVAILABLE":
            return error_from_status(
                exc, call="Authenticate", deadline=self.deadline, target=self.address,
                cache_call=False,
            )  # fmt: skip
        return ConnectionError(
            f"cannot connect to the protosocket port {self.address}: {self.cause(exc)}"
        )


def _final(exc: BaseException) -> bool:
    """Whether waiting cannot help: all but a refused connection."""
    return not isinstance(exc, ConnectionRefusedError)


class _AsyncWire(asyncio.Protocol):
    """One open connection: the calls in flight on it, by message id, each
    with the loop time its deadline passes."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.transport: asyncio.Transport | None = None
        self.pending: dict[int, tuple[asyncio.Future[Any], float]] = {}
        self.decoder = ps.FrameDecoder()
        self.broken = False
        self.loop = asyncio.get_running_loop()
        self.lost: asyncio.Future[None] = self.loop.create_future()
        # Frames sent in this turn of the event loop, written as one at its end.
        self.outbox: list[bytes] = []
        # One timer for all the deadlines, set for the earliest: a loop timer
        # per call (set, then cancelled by the answer) cost a sixth of the
        # client's CPU at 50 in flight. Calls share the configured deadline,
        # so a new call's is later than the one the timer waits for and
        # costs only a comparison; the timer rescans when it fires.
        self.alarm: asyncio.TimerHandle | None = None
        self.alarm_at = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            frames = self.decoder.feed(data)
            pending = self.pending
            for frame in frames:
                response = ps.parse_response(frame)
                entry = pending.pop(response.message_id, None)
                if entry is not None and not entry[0].done():
                    entry[0].set_result(response)
        except Exception as exc:  # a frame over the limit, or one that does not decode
            self.fail(ps.unavailable(f"the protosocket port {self.address} sent no frame: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        cause = f": {exc}" if exc else ""
        self.fail(ps.unavailable(f"the connection to {self.address} closed{cause}"))
        if not self.lost.done():
            self.lost.set_result(None)

    def fail(self, error: StatusError) -> None:
        """Fail every call in flight and close: the connection is not used again."""
        self.broken = True
        pending, self.pending = self.pending, {}
        for waiter, _ in pending.values():
            if not waiter.done():
                waiter.set_exception(error)
        if self.alarm is not None:
            self.alarm.cancel()
            self.alarm = None
        if self.transport is not None:
            self.transport.abort()

    def send(self, data: bytes) -> None:
        """Queue a frame; the turn's frames leave in one write (`flush`).

        One answer read wakes many callers at once, and each sends its next
        command in the same turn: one send() per command would cost a system
        call each, one per turn costs one for all of them.
        """
        outbox = self.outbox
        outbox.append(data)
        if len(outbox) == 1:
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        outbox = self.outbox
        if self.broken or self.transport is None:
            outbox.clear()
            return
        self.transport.write(outbox[0] if len(outbox) == 1 else b"".join(outbox))
        outbox.clear()

    def cancel(self, message_id: int) -> None:
        if not self.broken and self.transport is not None:
            self.send(ps.cancel_frame(message_id))

    def watch(self, deadline: float) -> None:
        """Ring the alarm at `deadline`: when none is set, or set for later
        (the caller checks, saving a call per command)."""
        if self.alarm is not None:
            self.alarm.cancel()
        self.alarm_at = deadline
        self.alarm = self.loop.call_at(deadline, self.expire)

    def expire(self) -> None:
        """Fail the calls whose deadline passed (DEADLINE_EXCEEDED, and a
        cancel frame so the server drops them); wait for the next one."""
        self.alarm = None
        now = self.loop.time()
        pending = self.pending
        expired = [message_id for message_id, (_, at) in pending.items() if at <= now]
        for message_id in expired:
            waiter, _ = pending.pop(message_id)
            if not waiter.done():
                waiter.set_exception(ps.deadline_exceeded())
            self.cancel(message_id)
        if pending:
            self.watch(min(at for _, at in pending.values()))


class AsyncProtosocketConnection:
    """One connection, opened again after it breaks."""

    def __init__(self, target: _Target) -> None:
        self._target = target
        self._wire: _AsyncWire | None = None
        self._opening: asyncio.Future[_AsyncWire] | None = None
        self._next_id = 1
        self._closed = False

    async def _open(self, timeout: float) -> _AsyncWire:
        """Connect, TLS, Authenticate; raise what failed (OSError, ssl.SSLError,
        asyncio.TimeoutError, StatusError)."""
        return await asyncio.wait_for(self._open_unbounded(), timeout)

    async def _open_unbounded(self) -> _AsyncWire:
        target = self._target
        loop = asyncio.get_running_loop()
        _, wire = await loop.create_connection(
            lambda: _AsyncWire(target.address),
            target.host,
            target.port,
            ssl=target.ssl,
            server_hostname=target.host if target.ssl else None,
        )
        try:
            answer: asyncio.Future[Any] = loop.create_future()
            # No deadline of its own: _open's wait_for bounds it.
            wire.pending[ps.AUTH_MESSAGE_ID] = (answer, float("inf"))
            wire.send(ps.auth_frame(target.token))
            response = await answer
            if response.WhichOneof("kind") == "error":
                raise ps.command_error(response.error)
        except BaseException:
            wire.fail(ps.unavailable("authentication did not finish"))
            raise
        return wire

    async def connect(self, timeout: float, refused_grace: float = REFUSED_GRACE) -> None:
        """Open the connection now, or raise the CacheError saying why: at
        once when waiting cannot help, after `refused_grace` of refusals,
        after `timeout` without an answer."""
        if self._wire is not None and not self._wire.broken:
            return
        started = time.monotonic()
        while True:
            left = started + timeout - time.monotonic()
            try:
                self._wire = await self._open(max(left, 0.001))
                return
            except asyncio.TimeoutError:
                raise ConnectionError(
                    f"could not connect to the protosocket port {self._target.address} within"
                    f" {timeout:g} s; check that the server runs with --protosocket-listen,"
                    " or raise `eager_connect_timeout` in the config"
                ) from None
            except (OSError, StatusError) as exc:
                waited = time.monotonic() - started
                if _final(exc) or waited >= min(timeout, refused_grace):
                    raise self._target.connect_error(exc) from exc
            await asyncio.sleep(_REFUSED_PAUSE)

    async def _reopen(self, timeout: float) -> _AsyncWire:
        """The open connection; one attempt to open it, shared by the calls
        that need it, which fail with UNAVAILABLE if it does."""
        if self._closed:
            raise ps.unavailable("the client is closed")
        opening = self._opening
        if opening is None:
            opening = asyncio.ensure_future(self._open(timeout))
            self._opening = opening
            opening.add_done_callback(self._opened)
        try:
            return await asyncio.shield(opening)
        except (OSError, asyncio.TimeoutError) as exc:
            raise ps.unavailable(
                f"cannot connect to the protosocket port {self._target.address}:"
                f" {self._target.cause(exc)}"
            ) from exc

    def _opened(self, opening: asyncio.Future[_AsyncWire]) -> None:
        self._opening = None
        if not opening.cancelled() and opening.exception() is None:
            self._wire = opening.result()

    async def call(self, command: Any, *, timeout: float, metadata: Any = None) -> Any:
        """Send `command` under a fresh message id and wait for its answer."""
        wire = self._wire
        if wire is None or wire.broken:
            wire = await self._reopen(timeout)
        message_id = self._next_id
        self._next_id = message_id + 1
        command.message_id = message_id
        payload = command.SerializeToString()
        loop = wire.loop
        answer: asyncio.Future[Any] = loop.create_future()
        deadline = loop.time() + timeout
        wire.pending[message_id] = (answer, deadline)
        wire.send(ps.varint(len(payload)) + payload)
        if wire.alarm is None or deadline < wire.alarm_at:
            wire.watch(deadline)
        try:
            response = await answer
        except asyncio.CancelledError:
            if wire.pending.pop(message_id, None) is not None:
                wire.cancel(message_id)
            raise
        return ps.outcome(response)

    async def aclose(self) -> None:
        self._closed = True
        if self._opening is not None:
            self._opening.cancel()
        wire, self._wire = self._wire, None
        if wire is not None and wire.transport is not None:
            wire.fail(ps.unavailable("the client is closed"))
            await asyncio.shield(wire.lost)


class AsyncProtosocketPool:
    """`channels` connections to the protosocket port at `address` (host:port)."""

    def __init__(self, endpoint: Endpoint, config: Config, address: str) -> None:
        target = _Target(endpoint, config, address)
        self.address = address
        self.connections = [AsyncProtosocketConnection(target) for _ in range(config.channels)]

    async def connect(self, timeout: float, refused_grace: float = REFUSED_GRACE) -> None:
        await asyncio.gather(
            *(connection.connect(timeout, refused_grace) for connection in self.connections)
        )

    async def aclose(self) -> None:
        await asyncio.gather(*(connection.aclose() for connection in self.connections))


class SyncProtosocketPool:
    """The blocking client's connections: the asyncio ones, run by an event
    loop on a thread of their own. A call hands its command to that loop and
    blocks on the answer, so both clients share one implementation (deadline,
    cancel frame, reconnect), and a TLS connection is only ever read and
    written by one thread, as the ssl module needs."""

    def __init__(self, endpoint: Endpoint, config: Config, address: str) -> None:
        self.address = address
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="jiffy-protosocket", daemon=True
        )
        self._thread.start()
        self._pool = AsyncProtosocketPool(endpoint, config, address)
        self.connections = [
            _SyncConnection(connection, self._loop) for connection in self._pool.connections
        ]

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def connect(self, timeout: float, refused_grace: float = REFUSED_GRACE) -> None:
        self._run(self._pool.connect(timeout, refused_grace))

    def close(self) -> None:
        if self._loop.is_closed():
            return
        try:
            self._run(self._pool.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


class _SyncConnection:
    """One of the loop's connections, called from any thread."""

    def __init__(self, connection: AsyncProtosocketConnection, loop: asyncio.AbstractEventLoop):
        self._connection = connection
        self._loop = loop

    def call(self, command: Any, *, timeout: float, metadata: Any = None) -> Any:
        if self._loop.is_closed():
            raise ps.unavailable("the client is closed")
        done = asyncio.run_coroutine_threadsafe(
            self._connection.call(command, timeout=timeout), self._loop
        )
        return done.result()
