"""jiffy-tune: sweep SDK loadgens against jiffy-server and recommend a configuration."""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from rich.console import Console

from jiffy_tune import caps, cpus, environment, reach, results, transports
from jiffy_tune.model import Point, RunResults, Settings
from jiffy_tune.plan import LadderSettings, TransportPlan, closed_grid
from jiffy_tune.printout import print_results
from jiffy_tune.progress import SweepProgress
from jiffy_tune.runner import DEFAULT_CACHE, RunSettings, delay_ignored, run_point
from jiffy_tune.sdks import Loadgen, default_repo, resolve
from jiffy_tune.server import EmbeddedServer, ServerInfo, find_binary
from jiffy_tune.sweep import (
    Observer,
    OpenLoopPlan,
    PointRunner,
    StopCheck,
    Sweep,
    run_closed,
    run_open,
)

EXIT_INTERRUPTED = 130
# Open loop: workers for the loadgens that bound requests in flight by them
# (the Python harness); enough that the offered rate, not the workers, limits.
DEFAULT_OPEN_CONCURRENCY = 1000

T = TypeVar("T")


def _list_of(kind: Callable[[str], T]) -> Callable[[str], list[T]]:
    def parse(text: str) -> list[T]:
        try:
            return [kind(part) for part in text.split(",") if part.strip()]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"bad list {text!r}: {exc}") from exc

    return parse


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: 0 or more")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="jiffy-tune",
        description=__doc__,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add = p.add_argument
    add(
        "--sdk",
        type=_list_of(str),
        default="jiffy-python,jiffy-js",
        metavar="LIST",
        help="SDKs: jiffy-python, jiffy-js, momento-python, momento-js, or --loadgen names",
    )
    add(
        "--concurrency",
        type=_list_of(int),
        default="1,2,5,10,25,50,100,200,500",
        metavar="LIST",
        help="closed loop: workers, each with one request in flight",
    )
    add(
        "--channels",
        type=_list_of(int),
        default="1,2,5",
        metavar="LIST",
        help="channels: the connections the client opens (gRPC or protosocket)",
    )
    add(
        "--transports",
        type=_list_of(str),
        default=None,
        metavar="LIST",
        help="transports to sweep: grpc (each SDK's default gRPC one; TypeScript: http2), "
        "grpc-js, http2, protosocket; each SDK runs those it speaks, the official SDKs gRPC. "
        "Default: each SDK's default, and protosocket where the server has the port",
    )
    add(
        "--transport-channels",
        type=_list_of(int),
        default=None,
        metavar="LIST",
        help="the channel counts at which each SDK's transports after its first are swept "
        "(default: the first --channels value)",
    )
    add(
        "--max-concurrent-requests",
        type=_list_of(caps.parse),
        default=None,
        metavar="LIST",
        help="the SDK's in-flight caps to sweep: numbers (0 = no cap) and auto (the adaptive "
        "limit of jiffy-python and jiffy-js; the other SDKs skip it). Default: closed loop, "
        "each point's concurrency; open loop, 0. Open loop runs a rate ladder per cap",
    )
    add(
        "--delay-ms",
        type=_non_negative_int,
        default=0,
        metavar="MS",
        help="the server holds every call MS ms (a network MS ms away): the embedded server "
        "runs with --enable-fault-injection and each jiffy loadgen sends the fault-injection "
        "header; jiffy-python and jiffy-js only, over gRPC. With --endpoint, that server must "
        "run with --enable-fault-injection",
    )
    add(
        "--targets",
        type=_list_of(float),
        default="20,5",
        metavar="LIST",
        help="p99.9 targets in ms",
    )
    add("--duration", type=float, default=10.0, help="measured seconds per point")
    add("--warmup", type=float, default=2.0, help="discarded seconds per point")
    add("--rounds", type=int, default=1, help="repeat the grid; the summary takes medians")
    add("--value-size", type=int, default=100)
    add("--keyspace", type=int, default=10000)
    add("--get-ratio", type=float, default=0.5)
    add(
        "--workload",
        choices=["scalar", "dictionary", "list", "sorted-set"],
        default="scalar",
        help="what the loadgens' gets and sets are (docs/LOADGEN.md, Workloads)",
    )
    add(
        "--cache",
        default=DEFAULT_CACHE,
        help="the cache the loadgens use (created if missing) and the presets name",
    )
    add("--preset", default="in_region", help="the loadgens' base preset (deadlines, retries)")
    add("--mode", choices=["closed", "open"], default="closed")
    add(
        "--rates",
        type=_list_of(float),
        default=None,
        metavar="LIST",
        help="open loop: explicit offered rates",
    )
    add("--rate-start", type=float, default=1000.0, help="open loop: first offered rate")
    add("--rate-factor", type=float, default=1.5, help="open loop: step factor")
    add("--rate-max", type=float, default=200000.0, help="open loop: highest offered rate")
    add(
        "--open-concurrency",
        type=int,
        default=DEFAULT_OPEN_CONCURRENCY,
        help="open loop: --concurrency passed to the loadgens (workers that carry the rate)",
    )
    add(
        "--endpoint",
        help="use this server (HOST:PORT) instead of starting one; with --delay-ms it must "
        "run with --enable-fault-injection (else it ignores the delay)",
    )
    add(
        "--protosocket-endpoint",
        metavar="HOST:PORT",
        help="with --endpoint: its protosocket port (--protosocket-listen), to sweep protosocket",
    )
    add("--metrics-url", help="with --endpoint: its /metrics URL, for server-side latency")
    add(
        "--server-bin",
        help="jiffy-server to start (default: $JIFFY_SERVER_BIN, "
        "<repo>/target/release/jiffy-server, PATH)",
    )
    add(
        "--server-arg",
        action="append",
        default=[],
        help="extra argument for the embedded server (repeatable), e.g. "
        "--server-arg=--max-concurrent-streams=1000",
    )
    add(
        "--server-cpus",
        help="CPUs for the embedded server, e.g. 0 or 0-1, or none "
        "(default: the first CPU when there are two or more)",
    )
    add("--client-cpus", help="CPUs for the loadgens, or none (default: the other CPUs)")
    add("--repo", type=Path, default=None, help="repository with the loadgens")
    add(
        "--loadgen",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="add or replace a loadgen command (repeatable)",
    )
    add(
        "--node-option",
        action="append",
        default=[],
        help="a flag for node in the Node loadgens (repeatable), e.g. "
        "--node-option=--max-semi-space-size=1",
    )
    add("--python-uvloop", action="store_true", help="run the Python loadgens on uvloop")
    add(
        "--out",
        type=Path,
        default=None,
        help="output directory (default: out/tune/<UTC timestamp>)",
    )
    add("--no-report", action="store_true", help="write results.json only")
    add("--quiet", action="store_true", help="no progress display")
    return p


def check(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.sdk:
        p.error("--sdk needs at least one SDK")
    if not args.concurrency or min(args.concurrency) < 1:
        p.error("--concurrency needs values of 1 or more")
    if not args.channels or min(args.channels) < 1:
        p.error("--channels needs values of 1 or more")
    if args.max_concurrent_requests is not None:
        if not args.max_concurrent_requests:
            p.error("--max-concurrent-requests needs at least one cap")
        refused = caps.refused_auto(args.sdk, args.max_concurrent_requests)
        if refused:
            p.error(
                f"--max-concurrent-requests auto: {', '.join(refused)} "
                f"{'has' if len(refused) == 1 else 'have'} no adaptive cap (only "
                f"{', '.join(caps.JIFFY_SDKS)} do); add fixed caps to compare with "
                "(e.g. auto,25,50: the others then sweep those) or leave "
                f"{'it' if len(refused) == 1 else 'them'} out of --sdk"
            )
    if args.delay_ms:
        refused = [sdk for sdk in args.sdk if not caps.sends_delay(sdk)]
        if refused:
            p.error(
                f"--delay-ms: {', '.join(refused)} cannot send the fault-injection header "
                f"(only {', '.join(caps.JIFFY_SDKS)} can); leave "
                f"{'it' if len(refused) == 1 else 'them'} out of --sdk or drop --delay-ms"
            )
    if not args.targets or min(args.targets) <= 0:
        p.error("--targets needs positive milliseconds")
    if args.rounds < 1:
        p.error("--rounds must be 1 or more")
    if args.rate_factor <= 1 or args.rate_start <= 0:
        p.error("--rate-start must be positive and --rate-factor above 1")
    if args.metrics_url and not args.endpoint:
        p.error("--metrics-url goes with --endpoint")
    if args.protosocket_endpoint and not args.endpoint:
        p.error("--protosocket-endpoint goes with --endpoint (the embedded server opens its own)")
    if args.transport_channels is not None and not set(args.transport_channels) <= set(
        args.channels
    ):
        p.error("--transport-channels takes values of --channels")
    try:
        transport_plan(args)
    except ValueError as exc:
        p.error(str(exc))


def transport_plan(args: argparse.Namespace) -> TransportPlan:
    """Which transports each SDK runs, and at which channel counts (ValueError: which not)."""
    scalar = args.workload == "scalar"
    # The embedded server opens a protosocket port when asked; an external one must name it.
    has_port = not args.endpoint or bool(args.protosocket_endpoint)
    # The delay is a gRPC header: protosocket has none to carry it.
    delay = bool(args.delay_ms)
    chosen = transports.resolve(
        args.sdk, args.transports, protosocket=has_port and scalar and not delay
    )
    if transports.uses_protosocket(chosen):
        if delay:
            raise ValueError(
                "--transports protosocket with --delay-ms: the delay is a gRPC header, "
                "which protosocket cannot carry"
            )
        if not scalar:
            raise ValueError(
                f"--transports protosocket: the {args.workload} workload's calls go over gRPC "
                "(protosocket carries gets, sets and deletes only)"
            )
        if not has_port:
            raise ValueError(
                "--transports protosocket with --endpoint needs --protosocket-endpoint HOST:PORT"
            )
    other_channels = args.transport_channels or args.channels[:1]
    return TransportPlan({sdk: tuple(names) for sdk, names in chosen.items()}, other_channels)


def default_out_dir() -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return Path("out/tune") / stamp


def settings_of(
    args: argparse.Namespace, loadgen_commands: dict[str, list[str]] | None = None
) -> Settings:
    """The run's `settings`: the command line, resolved."""
    plan = transport_plan(args)
    return Settings(
        sdks=args.sdk,
        concurrency=args.concurrency if args.mode == "closed" else [args.open_concurrency],
        channels=args.channels,
        transports={sdk: list(names) for sdk, names in plan.by_sdk.items()},
        transport_channels=list(plan.other_channels or args.channels),
        max_concurrent_requests=args.max_concurrent_requests,
        delay_ms=args.delay_ms,
        rates=args.rates,
        rate_start=args.rate_start,
        rate_factor=args.rate_factor,
        rate_max=args.rate_max,
        rounds=args.rounds,
        duration_s=args.duration,
        warmup_s=args.warmup,
        value_size=args.value_size,
        keyspace=args.keyspace,
        get_ratio=args.get_ratio,
        workload=args.workload,
        cache=args.cache,
        node_options=args.node_option,
        python_uvloop=args.python_uvloop,
        preset=args.preset,
        server_args=server_args(args),
        loadgen_commands=loadgen_commands or {},
    )


def server_args(args: argparse.Namespace) -> list[str]:
    """The embedded server's extra flags: --server-arg, and what --delay-ms needs."""
    fault = ["--enable-fault-injection"] if args.delay_ms and not args.endpoint else []
    given: list[str] = args.server_arg
    return given + [flag for flag in fault if flag not in given]


def open_caps(args: argparse.Namespace) -> list[caps.Cap]:
    """Open loop: the caps to run a rate ladder at each (default none, 0)."""
    asked: list[caps.Cap] | None = args.max_concurrent_requests
    return asked or [0]


def pinning(args: argparse.Namespace) -> tuple[list[int] | None, list[int] | None]:
    server_default, client_default = cpus.default_split(cpus.available())
    if args.endpoint:
        server_default, client_default = None, None
    server = cpus.parse_cpu_list(args.server_cpus) if args.server_cpus else server_default
    client = cpus.parse_cpu_list(args.client_cpus) if args.client_cpus else client_default
    return server, client


def server_gone(endpoint: str, delay_ms: int = 0) -> StopCheck:
    """After a failed point: a reason to stop when nothing listens at
    `endpoint` any more, or when it ignored --delay-ms (every point would)."""

    def check(point: Point) -> str | None:
        if delay_ignored(point, delay_ms):
            return f"the server at {endpoint} ignored --delay-ms {delay_ms}"
        why = reach.unreachable(endpoint)
        return None if why is None else f"the server at {endpoint} went away ({why})"

    return check


def sweep(
    args: argparse.Namespace, run: PointRunner, quiet: bool, stop: StopCheck | None = None
) -> Sweep:
    def go(observer: Observer | None) -> Sweep:
        if args.mode == "open":
            return run_open(open_plan(args), run, observer, stop)
        grid = closed_grid(
            sdks=args.sdk,
            concurrency=args.concurrency,
            channels=args.channels,
            caps=args.max_concurrent_requests,
            rounds=args.rounds,
            transport_plan=transport_plan(args),
        )
        return run_closed(grid, run, observer, stop)

    if quiet:
        return go(None)
    # Per point: warmup + duration, plus about a second to start the process and connect.
    with SweepProgress(args.warmup + args.duration + 1.0) as progress:
        return go(progress)


def open_plan(args: argparse.Namespace) -> OpenLoopPlan:
    return OpenLoopPlan(
        sdks=args.sdk,
        channels=args.channels,
        concurrency=args.open_concurrency,
        caps=open_caps(args),
        rounds=args.rounds,
        ladder=LadderSettings(
            rate_start=args.rate_start,
            rate_factor=args.rate_factor,
            rate_max=args.rate_max,
            rates=tuple(args.rates) if args.rates else None,
            stop_p999_ms=max(args.targets),
        ),
        transport_plan=transport_plan(args),
    )


@dataclass(frozen=True)
class Invocation:
    """One command line, resolved: what every stage of a run needs to know."""

    args: argparse.Namespace
    argv: list[str]
    repo: Path
    out_dir: Path
    settings: Settings
    started: str


def measure_and_write(
    inv: Invocation,
    server: ServerInfo,
    client_cpus: list[int] | None,
    run: PointRunner,
    node_sdks: Sequence[str] = (),
    stop: StopCheck | None = None,
) -> RunResults:
    """Sweep with `run`, then write results.json, also after a Ctrl-C; the results."""
    measured = sweep(inv.args, run, inv.args.quiet, stop)
    data = results.assemble(
        command=shlex.join(["jiffy-tune", *inv.argv]),
        started=inv.started,
        interrupted=measured.interrupted,
        stopped=measured.stopped,
        mode=inv.args.mode,
        targets_ms=inv.args.targets,
        settings=inv.settings,
        server=server,
        client_cpus=client_cpus,
        environment=environment.describe(inv.repo, measured.points),
        points=measured.points,
        node_sdks=node_sdks,
    )
    results.write(inv.out_dir, data)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """The console script; exit status 0, 1 (nothing measured, no server, server gone), 2, 130."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        # Only before the sweep (server start-up) or after results.json is written.
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    p = parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = p.parse_args(argv)
    check(p, args)
    console = Console(stderr=True)
    try:
        inv, loadgens, server_cpus, client_cpus = _resolve(args, argv)
    except ValueError as exc:
        p.error(str(exc))
    with contextlib.ExitStack() as running:
        try:
            server = _serve(running, inv, server_cpus)
        except ServerError as exc:
            console.print(str(exc), style="red", markup=False, soft_wrap=True)
            return 1
        _announce(console, args, server, inv.out_dir)
        run_settings = _run_settings(args, server, client_cpus)
        data = measure_and_write(
            inv,
            server=server,
            client_cpus=client_cpus,
            run=lambda spec: run_point(loadgens[spec.sdk], spec, run_settings),
            node_sdks=[name for name, lg in loadgens.items() if lg.runtime == "node"],
            stop=server_gone(server.endpoint, args.delay_ms),
        )
    _show(console, inv, data)
    return _exit_status(data)


class ServerError(Exception):
    """No server to sweep: the one named is unreachable, or the embedded one did not start."""


def _resolve(
    args: argparse.Namespace, argv: list[str]
) -> tuple[Invocation, dict[str, Loadgen], list[int] | None, list[int] | None]:
    """The run, its loadgens by SDK and the CPUs of server and client (ValueError: why not)."""
    loadgens = {
        lg.name: lg for lg in resolve(args.sdk, args.repo, args.loadgen, args.python_uvloop)
    }
    server_cpus, client_cpus = pinning(args)
    settings = settings_of(args, {name: list(lg.command) for name, lg in loadgens.items()})
    inv = Invocation(
        args=args,
        argv=argv,
        repo=(args.repo or default_repo()).resolve(),
        out_dir=args.out or default_out_dir(),
        settings=settings,
        started=results.utc_now(),
    )
    return inv, loadgens, server_cpus, client_cpus


def _serve(running: contextlib.ExitStack, inv: Invocation, cpus: list[int] | None) -> ServerInfo:
    """The server of --endpoint once reached, else an embedded one that `running` stops."""
    args = inv.args
    protosocket = transports.uses_protosocket(inv.settings.transports)
    if args.endpoint:
        return _reach_external(args, protosocket)
    try:
        embedded = EmbeddedServer(
            binary=find_binary(inv.repo, args.server_bin),
            cpus=cpus,
            extra_args=server_args(args),
            protosocket=protosocket,
        )
        return running.enter_context(embedded)
    except (OSError, RuntimeError) as exc:
        raise ServerError(f"jiffy-tune: {exc}") from exc


def _reach_external(args: argparse.Namespace, protosocket: bool) -> ServerInfo:
    # One connect now, rather than every point failing after the SDKs' connect timeout.
    addresses = [args.endpoint] + ([args.protosocket_endpoint] if protosocket else [])
    for address in addresses:
        why = reach.unreachable(address)
        if why is not None:
            raise ServerError(f"jiffy-tune: cannot reach {address}: {why}")
    return ServerInfo(
        kind="external",
        endpoint=args.endpoint,
        metrics_url=args.metrics_url,
        binary=None,
        version=None,
        cpus=None,
        protosocket_endpoint=args.protosocket_endpoint if protosocket else None,
    )


def _run_settings(
    args: argparse.Namespace, server: ServerInfo, client_cpus: list[int] | None
) -> RunSettings:
    return RunSettings(
        endpoint=server.endpoint,
        metrics_url=server.metrics_url,
        duration_s=args.duration,
        warmup_s=args.warmup,
        value_size=args.value_size,
        keyspace=args.keyspace,
        get_ratio=args.get_ratio,
        preset=args.preset,
        node_options=tuple(args.node_option),
        client_cpus=client_cpus,
        workload=args.workload,
        cache=args.cache,
        protosocket_endpoint=server.protosocket_endpoint,
        delay_ms=args.delay_ms,
    )


def _announce(console: Console, args: argparse.Namespace, server: ServerInfo, out: Path) -> None:
    """Before the sweep: the auto points skipped, where the server is, where results go."""
    if args.quiet:
        return
    skipped = caps.skipped_auto(args.sdk, args.max_concurrent_requests or [])
    if skipped:
        console.print(
            f"jiffy-tune: {', '.join(skipped)}: no adaptive cap, the auto points are skipped",
            highlight=False,
            soft_wrap=True,
        )
    ports = f", protosocket {server.protosocket_endpoint}" if server.protosocket_endpoint else ""
    console.print(f"jiffy-tune: server {server.endpoint}{ports} ({server.kind}); out {out}")


def _show(console: Console, inv: Invocation, data: RunResults) -> None:
    """After the sweep: how it ended, the results on the terminal, and the report."""
    if data.interrupted:
        console.print(f"[yellow]interrupted: kept {len(data.points)} points[/]")
    if data.stopped:
        message = f"stopped: {data.stopped}"
        console.print(message, style="red", highlight=False, markup=False, soft_wrap=True)
    # A wide console when piped, so tables and presets stay one line per row.
    print_results(Console() if sys.stdout.isatty() else Console(width=160), data)
    console.print(f"results: {inv.out_dir / results.RESULTS_FILE}")
    if not inv.args.no_report:
        # Imported here: matplotlib costs a second that --no-report runs need not pay.
        from jiffy_tune.report import write_report

        report = write_report(inv.out_dir, data)
        console.print(f"report: {report.html} and {report.markdown}")


def _exit_status(data: RunResults) -> int:
    if data.interrupted:
        return EXIT_INTERRUPTED
    if data.stopped:
        return 1
    return 0 if any(point.ok for point in data.points) else 1


if __name__ == "__main__":
    sys.exit(main())
