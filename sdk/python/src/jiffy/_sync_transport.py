# Generated from _async_transport.py by scripts/generate_sync.py: do not edit.
"""Channels: a pool for the data plane, least in flight first, and the control channel.

Every channel gets `grpc.use_local_subchannel_pool`: without it grpcio shares
one TCP connection between channels whose arguments are equal, and N
channels would still be one connection. Multicallables are made once per
channel and RPC (no per-call lookup by path), with no interceptors: grpc.aio
takes a slower path for every call once any interceptor is installed.
"""

from __future__ import annotations

import time
from typing import Any

import grpc

from jiffy._calls import ALL_RPCS, Rpc
from jiffy._channel_choice import SyncLeastLoaded
from jiffy._config import Config
from jiffy._connect_diagnosis import diagnose
from jiffy._endpoint import Endpoint
from jiffy._exceptions import ConnectionError
from jiffy._io import FAILING, READY, run_blocking_sync, wait_ready_sync
from jiffy._version import __version__

# Values up to the server's 5 MiB item limit, plus batches, must come back.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# Reconnect soon after a server restart; grpcio's default first wait is 1 s
# and grows to 120 s, far too slow for a cache a few hops away.
INITIAL_RECONNECT_BACKOFF_MS = 100
MAX_RECONNECT_BACKOFF_MS = 5_000
# A refused connection is waited through this long before connect() says so:
# a server started together with its client (a compose file, a test) gets
# that long to listen, and a wrong port still fails within about a second.
# The TypeScript SDK waits as long (REFUSED_GRACE_MS, eager-connect.ts).
REFUSED_GRACE = 1.0
# The most the look for a cause may take once grpc reports a failure, and the
# least a Ping asking for the protosocket port is given (_sync_route.py).
PROBE_TIMEOUT = 1.0


def channel_options(config: Config) -> list[tuple[str, Any]]:
    options: list[tuple[str, Any]] = [
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.initial_reconnect_backoff_ms", INITIAL_RECONNECT_BACKOFF_MS),
        ("grpc.min_reconnect_backoff_ms", INITIAL_RECONNECT_BACKOFF_MS),
        ("grpc.max_reconnect_backoff_ms", MAX_RECONNECT_BACKOFF_MS),
        ("grpc.primary_user_agent", f"jiffy-python/{__version__}"),
    ]
    if config.keepalive_time is not None:
        options += [
            ("grpc.keepalive_time_ms", round(config.keepalive_time * 1000)),
            ("grpc.keepalive_timeout_ms", round(config.keepalive_timeout * 1000)),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.max_pings_without_data", 0),
        ]
    return options


def _credentials(endpoint: Endpoint) -> grpc.ChannelCredentials:
    roots = None
    if endpoint.ca_file:
        with open(endpoint.ca_file, "rb") as ca:
            roots = ca.read()
    return grpc.ssl_channel_credentials(root_certificates=roots)


def _collect_sync(stream: Any) -> Any:
    def collect(request: Any, *, timeout: float, metadata: Any) -> list[Any]:
        return [response for response in stream(request, timeout=timeout, metadata=metadata)]

    return collect


class SyncTransport:
    """The open channels and, per channel, one multicallable per RPC."""

    def __init__(self, endpoint: Endpoint, config: Config) -> None:
        self.endpoint = endpoint
        self._config = config
        self._options = channel_options(config)
        self.data_channels = [self._open(endpoint.data_target) for _ in range(config.channels)]
        self.data_calls = [self._bind(channel) for channel in self.data_channels]
        """Per data channel, the multicallables by RPC; index with take_channel()."""
        # One channel needs no choosing: the hot path then skips the counts.
        self._chooser = SyncLeastLoaded(config.channels) if config.channels > 1 else None
        # Local servers serve both planes on one port: reuse the first data
        # channel rather than open a connection for rare control calls.
        self._control_calls: dict[Rpc, Any] | None = None
        self._control_channel: grpc.Channel | None = None
        if endpoint.control_target == endpoint.data_target:
            self._control_calls = self.data_calls[0]

    def _open(self, target: str) -> grpc.Channel:
        if self.endpoint.tls:
            return grpc.secure_channel(target, _credentials(self.endpoint), self._options)
        return grpc.insecure_channel(target, self._options)

    @staticmethod
    def _bind(channel: grpc.Channel) -> dict[Rpc, Any]:
        """Per RPC, a callable taking (request, timeout=, metadata=); a stream's
        answers come back as one list, so the executor treats both alike."""
        calls: dict[Rpc, Any] = {}
        for rpc in ALL_RPCS:
            # grpc's `_registered_method=True` (what generated stubs pass) was
            # measured slower per call here, so plain multicallables are made.
            if rpc.streaming:
                stream = channel.unary_stream(rpc.path, rpc.serialize, rpc.deserialize)
                calls[rpc] = _collect_sync(stream)
            else:
                calls[rpc] = channel.unary_unary(rpc.path, rpc.serialize, rpc.deserialize)
        return calls

    def take_channel(self) -> int:
        """The data channel for the next call: the one with the fewest calls in
        flight (_channel_choice.py says why); give it back when the call ends."""
        chooser = self._chooser
        return 0 if chooser is None else chooser.take()

    def give_back_channel(self, index: int) -> None:
        chooser = self._chooser
        if chooser is not None:
            chooser.give_back(index)

    @property
    def channel_loads(self) -> list[int]:
        """Calls in flight per data channel now (all 0 with one channel)."""
        chooser = self._chooser
        return [0] * len(self.data_calls) if chooser is None else list(chooser.in_flight)

    def control_call(self, rpc: Rpc) -> Any:
        if self._control_calls is None:
            self._control_channel = self._open(self.endpoint.control_target)
            self._control_calls = self._bind(self._control_channel)
        return self._control_calls[rpc]

    def connect(self, timeout: float) -> None:
        """Wait until every data channel is READY, else raise ConnectionError
        naming the cause: at once for one that waiting cannot cure (an
        unknown host, TLS spoken to a plaintext server or the reverse, an
        untrusted certificate), after REFUSED_GRACE for a refused
        connection, after `timeout` when the server never answers."""
        started = time.monotonic()
        channels = self.data_channels
        outcome = wait_ready_sync(channels, timeout, stop_on_failure=True)
        if outcome == READY:
            return
        endpoint = self.endpoint
        target = endpoint.data_target
        finding = None
        if outcome == FAILING:
            finding = run_blocking_sync(
                diagnose,
                target,
                tls=endpoint.tls,
                ca_file=endpoint.ca_file,
                timeout=min(PROBE_TIMEOUT, max(started + timeout - time.monotonic(), 0.1)),
            )
            if finding is None or not finding.final:
                # Refused (a starting server may yet listen), or nothing wrong
                # seen (it answers now): grpc keeps reconnecting meanwhile.
                wait = timeout if finding is None else min(timeout, REFUSED_GRACE)
                left = max(started + wait - time.monotonic(), 0.0)
                if wait_ready_sync(channels, left, stop_on_failure=False) == READY:
                    return
        if finding is not None:
            raise ConnectionError(f"cannot connect to {target}: {finding.cause}; {finding.advice}")
        raise ConnectionError(
            f"could not connect to {target} within {timeout:g} s;"
            " check that the server is up and the endpoint is right, or raise"
            " `eager_connect_timeout` in the config"
        )

    def close(self) -> None:
        for channel in self.data_channels:
            channel.close()
        if self._control_channel is not None:
            self._control_channel.close()
