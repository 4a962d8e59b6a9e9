# Generated from _async_route.py by scripts/generate_sync.py: do not edit.
"""SyncRoute: the one place a call's transport is chosen, below the client.

Every call of the client comes here as its RPC, its request and its cache:
a gRPC request, or for a call protosocket carries too, its arguments
(_route.Shapes says why). Such a call goes over protosocket when the
catalogue says protosocket carries it (_route.PROTOSOCKET_CALLS) and the
client has a protosocket port:
the config's protosocket_endpoint, or under "auto" the port the server names
when asked (one Ping, at connect or before the first data call; a lazy
client's first call still goes over gRPC). Every other call goes over gRPC.
Either way the executor sends it (cap, deadline, retries), a failure comes
up as one StatusError whatever carried it, and _exceptions.py maps it once.

"auto" must never fail what gRPC can do, so under it a value protosocket
cannot carry is stored, and read back, over gRPC. The protosocket connections
reopen themselves after they break (_protosocket_pool.py); the route owns
them and closes them with the client.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import grpc

from jiffy import _route as r
from jiffy._adaptive import AUTO
from jiffy._calls import PING, PING_REQUEST, Rpc
from jiffy._config import Config
from jiffy._endpoint import Endpoint, on_port
from jiffy._exceptions import CacheError, LimitExceededError, client_closed
from jiffy._io import metadata_sync, unary_headers_sync
from jiffy._protosocket import ANSWER_TOO_LARGE
from jiffy._protosocket_pool import REFUSED_GRACE, SyncProtosocketPool
from jiffy._sync_executor import SyncExecutor, make_executor_sync
from jiffy._sync_transport import PROBE_TIMEOUT


class SyncRoute:
    """Sends each call over the transport that carries it."""

    def __init__(self, endpoint: Endpoint, config: Config) -> None:
        self.executor: SyncExecutor = make_executor_sync(endpoint, config)
        self._endpoint = endpoint
        self._config = config
        self._auto = config.protosocket_endpoint == AUTO
        self.protosocket: SyncProtosocketPool | None = None
        """The protosocket connections, once they carry calls."""
        self._shapes = r.shapes_by_rpc()
        """Per RPC protosocket can carry, how to say it on each transport."""
        self._wires: list[dict[Rpc, Any]] = []
        """Per data channel i, the protosocket calls on connection i."""
        address = config.protosocket_endpoint
        if address is not None and not self._auto:
            self._carry(SyncProtosocketPool(endpoint, config, address))
        self._undecided = self._auto
        """protosocket_endpoint="auto" until a Ping's answer settled it."""
        # Held by the one caller asking, so concurrent first calls ask once.
        self._asking = threading.Lock()
        # Nothing to do before a call, unless the config asks to connect
        # eagerly or "auto" has yet to ask; closing clears it, so the hot
        # path's one check sends a call on a closed client to be refused.
        self._ready = config.eager_connect_timeout is None and not self._undecided
        auth = (("authorization", endpoint.api_key),) if endpoint.api_key else ()
        self._ping_metadata = metadata_sync(auth)

    @property
    def transport(self) -> Literal["grpc", "protosocket"]:
        """What carries the calls protosocket can carry: "protosocket" or "grpc"."""
        return "grpc" if self.protosocket is None else "protosocket"

    @property
    def closed(self) -> bool:
        return self.executor.closed

    def _carry(self, pool: SyncProtosocketPool) -> None:
        """Send the calls protosocket carries over `pool` from now on: data
        channel i's calls on its connection i, so one choice spreads both."""
        shapes = self._shapes
        self._wires = [{rpc: connection.call for rpc in shapes} for connection in pool.connections]
        self.protosocket = pool

    def call(self, rpc: Rpc, request: Any, cache: str) -> Any:
        """Send a data call on `cache`: its gRPC response (a list for a
        stream), or for a call given as its arguments what the client reads
        of the answer; or raise a CacheError.

        In the asyncio client this is no coroutine but hands back the one
        to await: on the hot path the executor's own, so the route adds no
        frame to the chain that every answer wakes (bench/sdk/call_cost.py
        counts what a call costs).
        """
        if not self._ready:
            return self._call_first(rpc, request, cache)
        executor = self.executor
        shapes = self._shapes.get(rpc)
        if shapes is None:
            return executor.call(rpc, request, executor.metadata(cache))
        if self.protosocket is not None:
            fits = shapes.fits
            if fits is None or not self._auto or fits(*request):
                command = shapes.command(cache, *request)
                if self._auto and shapes.answers_value:
                    return self._protosocket_or_grpc(rpc, command, request, cache)
                return executor.call(rpc, command, None, self._wires)
        return self._grpc(rpc, shapes, request, cache)

    def _call_first(self, rpc: Rpc, request: Any, cache: str) -> Any:
        """A call before the client is ready: connect or ask first. The call
        that connects, or asks, still goes over gRPC."""
        over_grpc = self.protosocket is None
        self._first_call(rpc.name)
        executor = self.executor
        shapes = self._shapes.get(rpc)
        if shapes is None:
            return executor.call(rpc, request, executor.metadata(cache))
        if over_grpc:
            return self._grpc(rpc, shapes, request, cache)
        # Connected (protosocket was there before, so no "auto" was asked).
        return self.call(rpc, request, cache)

    def _protosocket_or_grpc(self, rpc: Rpc, command: Any, request: Any, cache: str) -> Any:
        """Under "auto", a call whose answer carries a value: over gRPC after
        all when the value, stored over gRPC, is too large for a protosocket answer."""
        try:
            return self.executor.call(rpc, command, None, self._wires)
        except LimitExceededError as exc:
            if exc.reason != ANSWER_TOO_LARGE:
                raise
        return self._grpc(rpc, self._shapes[rpc], request, cache)

    def _grpc(self, rpc: Rpc, shapes: r.Shapes, request: Any, cache: str) -> Any:
        executor = self.executor
        sent = executor.call(rpc, shapes.grpc(*request), executor.metadata(cache))
        read = shapes.read_grpc
        return sent if read is None else self._read(sent, read)

    def _read(self, sent: Any, read: Callable[[Any], Any]) -> Any:
        return read(sent)

    def control(self, rpc: Rpc, request: Any) -> Any:
        return self.executor.control(rpc, request)

    def open_stream(self, rpc: Rpc, request: Any, cache: str) -> Any:
        """Start a server stream on `cache` (Subscribe): always gRPC."""
        if not self._ready:
            self._first_call(rpc.name)
        executor = self.executor
        return executor.open_stream(rpc, request, executor.metadata(cache))

    def connect(self) -> None:
        """Open every channel and protosocket connection now (under "auto",
        ask first), or raise ConnectionError naming the cause."""
        started = time.monotonic()
        self.executor.connect()
        give_up_at = started + (self._config.eager_connect_timeout or self._config.deadline)
        if self._undecided:
            self._decide(give_up_at)
        elif self.protosocket is not None:
            left = give_up_at - time.monotonic()
            self.protosocket.connect(max(left, REFUSED_GRACE))
        self._ready = True

    def _first_call(self, call: str) -> None:
        """Connect, when the config asks to; else under "auto" only ask for
        the protosocket port (the call that asks still goes over gRPC)."""
        if self.executor.closed:
            raise client_closed(call)
        if self._config.eager_connect_timeout is not None:
            self.connect()
            return
        self._decide(time.monotonic() + self._config.deadline)
        self._ready = not self._undecided

    def _decide(self, give_up_at: float) -> None:
        """protosocket_endpoint="auto": one Ping asks the server for its
        protosocket port; the calls protosocket carries move there once it
        opens. Nothing here fails a call or connect: a Ping that fails or
        names no port leaves every call on gRPC, and so, with one warning
        naming the cause, does a port that cannot be opened (a proxy or NAT
        in between, a firewall, a TLS mismatch). A Ping that did not reach
        the server (UNAVAILABLE) leaves the question open for the next caller."""
        if not self._asking.acquire(blocking=False):
            return  # another caller is asking; calls go over gRPC meanwhile
        try:
            if self._undecided:
                self._ask(give_up_at)
        finally:
            self._asking.release()

    def _ask(self, give_up_at: float) -> None:
        left = give_up_at - time.monotonic()
        try:
            headers = unary_headers_sync(
                self.executor.transport.data_calls[0][PING],
                PING_REQUEST,
                timeout=max(left, PROBE_TIMEOUT),
                metadata=self._ping_metadata,
            )
        except grpc.RpcError as exc:
            self._undecided = r.still_undecided(exc)
            return
        self._undecided = False
        port = r.advertised_port(headers)
        if port is None:
            return
        address = on_port(self._endpoint.data_target, port)
        pool = SyncProtosocketPool(self._endpoint, self._config, address)
        left = give_up_at - time.monotonic()
        try:
            timeout = min(max(left, PROBE_TIMEOUT), r.AUTO_CONNECT_TIMEOUT)
            # No grace for refusals: the server is up and says it listens there.
            pool.connect(timeout, refused_grace=0.0)
        except CacheError as exc:
            r.warn_unreachable(exc)
            pool.close()
            return
        self._carry(pool)

    def close(self) -> None:
        """Close the connections; calls in flight are cancelled."""
        self._ready = False
        if self.protosocket is not None:
            self.protosocket.close()
        self.executor.close()
