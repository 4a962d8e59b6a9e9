"""The loadgen's flags (docs/LOADGEN.md): the same for every driver."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Literal

from jiffy.loadgen._workloads import WORKLOADS

PRESET_NAMES = ("laptop", "in_region", "low_latency", "lambda")
TRANSPORTS = ("auto", "grpc", "protosocket")


@dataclass(frozen=True, kw_only=True)
class Options:
    endpoint: str = "127.0.0.1:8080"
    cache: str = "loadgen"
    concurrency: int = 50
    rate: float = 0.0
    channels: int | None = None
    """None: the preset's."""
    max_concurrent_requests: int | Literal["auto"] | None = None
    """None: the preset's (or, for a driver without a cap, none); "auto": the
    SDK's adaptive limit (drivers without one refuse it)."""
    preset: str = "in_region"
    duration: float = 10.0
    warmup: float = 2.0
    value_size: int = 100
    keyspace: int = 10_000
    get_ratio: float = 0.5
    workload: str = "scalar"
    delay_ms: int = 0
    """The server holds every call this long (its fault-injection header
    `delay-ms`); drivers that cannot send it refuse it."""
    json: bool = False
    uvloop: bool = False
    transport: str = "auto"
    """What carries get and set: "auto" = the client's default (protosocket
    when the server offers it, else gRPC; gRPC with --delay-ms, which only
    gRPC headers carry), "grpc" or "protosocket" = that one, forced."""
    protosocket_endpoint: str | None = None
    """HOST:PORT of the server's --protosocket-listen, for --transport protosocket."""


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _cap(text: str) -> int | Literal["auto"]:
    return "auto" if text == "auto" else _non_negative_int(text)


def _ratio(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value


def parse_options(argv: list[str] | None, description: str) -> Options:
    defaults = Options()
    parser = argparse.ArgumentParser(description=description)
    add = parser.add_argument
    add("--endpoint", default=defaults.endpoint, metavar="HOST:PORT", help="server")
    add("--cache", default=defaults.cache, help="cache to use; created if missing")
    add("--concurrency", type=_positive_int, default=defaults.concurrency, metavar="N",
        help="workers, each with one request in flight")  # fmt: skip
    add("--rate", type=float, default=defaults.rate, metavar="R",
        help="open loop: R requests/s in all, timed from intended send; 0 = closed")  # fmt: skip
    add("--channels", type=_positive_int, default=None, metavar="N",
        help="gRPC channels (default: the preset's)")  # fmt: skip
    add("--max-concurrent-requests", type=_cap, default=None, metavar="N|auto",
        help="in-flight cap; 0 = no cap; auto = adaptive (default: the preset's)")  # fmt: skip
    add("--preset", choices=PRESET_NAMES, default=defaults.preset)
    add("--duration", type=float, default=defaults.duration, metavar="S", help="measured seconds")
    add("--warmup", type=float, default=defaults.warmup, metavar="S", help="discarded seconds")
    add("--value-size", type=_positive_int, default=defaults.value_size, metavar="B")
    add("--keyspace", type=_positive_int, default=defaults.keyspace, metavar="N")
    add("--get-ratio", type=_ratio, default=defaults.get_ratio, metavar="F")
    add("--workload", choices=WORKLOADS, default=defaults.workload,
        help="what a get and a set are: see docs/LOADGEN.md, Workloads")  # fmt: skip
    add("--delay-ms", type=_non_negative_int, default=defaults.delay_ms, metavar="MS",
        help="the server holds each call MS ms (fault-injection header delay-ms)")  # fmt: skip
    add("--json", action="store_true", help="print one JSON object and nothing else on stdout")
    add("--uvloop", action="store_true", help="run on uvloop instead of asyncio's loop")
    add("--transport", choices=TRANSPORTS, default=defaults.transport,
        help="what carries get and set; auto = the client's default: protosocket"
             " where the server offers it, else grpc (default: auto)")  # fmt: skip
    add("--protosocket-endpoint", default=None, metavar="HOST:PORT",
        help="the server's protosocket port (its --protosocket-listen)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.rate < 0:
        parser.error("--rate must be 0 (closed loop) or more")
    if args.transport == "protosocket":
        if not args.protosocket_endpoint:
            parser.error(
                "--transport protosocket needs --protosocket-endpoint HOST:PORT"
                " (the server's --protosocket-listen)"
            )
        if args.delay_ms:
            parser.error("--delay-ms needs --transport grpc: protosocket carries no headers")
    elif args.protosocket_endpoint:
        parser.error("--protosocket-endpoint is for --transport protosocket")
    return Options(**{name.replace("-", "_"): value for name, value in vars(args).items()})
