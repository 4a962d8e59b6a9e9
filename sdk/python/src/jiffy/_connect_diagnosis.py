"""Why a connection failed: a quick look of our own once grpc reports one.

grpcio tells a client only that a channel is in TRANSIENT_FAILURE; the reason
(a refused port, a name that does not resolve, a TLS server spoken to in
plaintext) goes to its log lines, not to any API. So when an eager connect
fails, `diagnose` looks again with the standard library: resolve the name,
open a TCP connection, then ask which protocol the server speaks, TLS (a
handshake) or plaintext HTTP/2 (the 24-byte connection preface and an empty
SETTINGS frame, RFC 9113 section 3.4, to which any HTTP/2 server answers with
a SETTINGS frame of its own). Those few bytes are written here by hand rather
than through an HTTP/2 library: the probe needs one frame header, and the
SDK's only dependency stays grpcio. The TypeScript SDK makes the same probe
(sdk/js/src/eager-connect.ts) and reports the same causes.

Every step is bounded by the probe's own timeout; it runs only after a
connect has failed, never on the path of a call.
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# The HTTP/2 client connection preface, then a SETTINGS frame with no
# settings: 3-byte length 0, type 0x4, flags 0, stream 0.
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_FRAME_HEADER_BYTES = 9
_SETTINGS_FRAME_TYPE = 0x4
# getaddrinfo's "no such name" answers; EAI_NODATA is not on every platform.
_NO_SUCH_NAME = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}

REFUSED = "connection refused"
"""The one cause that can pass by itself: a server still starting refuses."""


@dataclass(frozen=True, slots=True)
class Finding:
    """What is wrong, in a few words, and what to change."""

    cause: str
    advice: str

    @property
    def final(self) -> bool:
        """False for a refused connection, which a starting server may yet accept."""
        return self.cause != REFUSED


def split_target(target: str) -> tuple[str, int]:
    """(host, port) of a grpc target `host:port` or `[ipv6]:port`."""
    host, _, port = target.rpartition(":")
    return host.removeprefix("[").removesuffix("]"), int(port)


def diagnose(target: str, *, tls: bool, ca_file: str | None, timeout: float) -> Finding | None:
    """What stops a connection to `target` now, or None when nothing does
    (the server answers in the protocol the client speaks)."""
    host, port = split_target(target)
    give_up_at = time.monotonic() + timeout
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        if exc.errno in _NO_SUCH_NAME:
            return Finding(f"unknown host {host!r}", "check the host name in the endpoint")
        return Finding(f"cannot resolve {host!r} ({exc.strerror})", "check the host name and DNS")
    probe = _Probe(host, addresses, give_up_at)
    opened = probe.open()
    if isinstance(opened, Finding):
        return opened
    opened.close()
    if tls:
        return probe.check_tls(target, ca_file)
    return probe.check_plaintext(target)


_Address = tuple[socket.AddressFamily, socket.SocketKind, int, str, Any]


class _Probe:
    def __init__(self, host: str, addresses: Sequence[_Address], give_up_at: float):
        self.host = host
        self.addresses = addresses
        self.give_up_at = give_up_at

    def _left(self) -> float:
        return max(0.05, self.give_up_at - time.monotonic())

    def open(self) -> socket.socket | Finding:
        """A TCP connection to the first address that takes one, as grpc tries them."""
        errors: list[OSError] = []
        for family, kind, proto, _, address in self.addresses:
            sock = socket.socket(family, kind, proto)
            sock.settimeout(self._left())
            try:
                sock.connect(address)
            except OSError as exc:
                sock.close()
                errors.append(exc)
                continue
            return sock
        if errors and all(isinstance(exc, ConnectionRefusedError) for exc in errors):
            return Finding(REFUSED, "check that the server is running and listens on that port")
        first = errors[0] if errors else OSError("no address")
        what = "no answer" if isinstance(first, TimeoutError) else (first.strerror or str(first))
        return Finding(f"TCP connect failed ({what})", "check the host, the port and any firewall")

    def _answers_http2(self) -> bool | Finding:
        """Whether the server answers the plaintext HTTP/2 preface with SETTINGS."""
        opened = self.open()
        if isinstance(opened, Finding):
            return opened
        with opened:
            try:
                opened.sendall(_PREFACE)
                header = b""
                while len(header) < _FRAME_HEADER_BYTES:
                    # Half of what is left: a TLS server may sit silent on
                    # these bytes, and the handshake after this needs time too.
                    opened.settimeout(self._left() / 2)
                    chunk = opened.recv(_FRAME_HEADER_BYTES - len(header))
                    if not chunk:
                        break
                    header += chunk
            except OSError:
                return False
        return len(header) == _FRAME_HEADER_BYTES and header[3] == _SETTINGS_FRAME_TYPE

    def _handshake(self, context: ssl.SSLContext) -> ssl.SSLError | OSError | Finding | None:
        """A TLS handshake with `context`: None when it completes, else its error."""
        opened = self.open()
        if isinstance(opened, Finding):
            return opened
        try:
            with context.wrap_socket(opened, server_hostname=self.host):
                return None
        except OSError as exc:  # ssl.SSLError is an OSError
            return exc
        finally:
            opened.close()

    def check_plaintext(self, target: str) -> Finding | None:
        answers = self._answers_http2()
        if answers is True:
            return None
        if isinstance(answers, Finding):
            return answers
        anything = ssl.create_default_context()
        anything.check_hostname = False
        anything.verify_mode = ssl.CERT_NONE
        failed = self._handshake(anything)
        if isinstance(failed, Finding):
            return failed
        if failed is None:
            return Finding(
                "the server speaks TLS", f"use https://{target} (or Endpoint.with_tls; CLI: --tls)"
            )
        return Finding(
            "the server does not answer HTTP/2", "check that the endpoint is a jiffy-server"
        )

    def check_tls(self, target: str, ca_file: str | None) -> Finding | None:
        anything = ssl.create_default_context()
        anything.check_hostname = False
        anything.verify_mode = ssl.CERT_NONE
        anything.set_alpn_protocols(["h2"])
        failed = self._handshake(anything)
        if isinstance(failed, Finding):
            return failed
        if failed is not None:
            if self._answers_http2() is True:
                return Finding(
                    "the server speaks plaintext HTTP/2, not TLS",
                    f"use http://{target} (or Endpoint.local; CLI: no --tls / --ca-file)",
                )
            return Finding(f"TLS handshake failed ({_ssl_reason(failed)})", "check the endpoint")
        trusting = ssl.create_default_context(cafile=ca_file)
        trusting.set_alpn_protocols(["h2"])
        failed = self._handshake(trusting)
        if isinstance(failed, Finding):
            return failed
        if isinstance(failed, ssl.SSLCertVerificationError):
            return Finding(
                f"the server's TLS certificate is not trusted ({failed.verify_message})",
                "pass the CA that signed it as Endpoint.with_tls(..., ca_file=...)"
                " (CLI: --ca-file)",
            )
        if failed is not None:
            return Finding(f"TLS handshake failed ({_ssl_reason(failed)})", "check the endpoint")
        return None


def _ssl_reason(exc: OSError) -> str:
    reason = getattr(exc, "reason", None)
    return str(reason) if reason else (exc.strerror or str(exc))
