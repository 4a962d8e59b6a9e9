"""What the report says, computed once from results.json and rendered twice.

report.md and report.html are two renderings of the same `ReportView`, so the
numbers, sentences and tables cannot drift apart between them. Everything is
formatted to text here; the renderers only lay it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from jiffy_tune import adaptive, transports
from jiffy_tune.model import Environment, Point, RunResults, Settings
from jiffy_tune.report import comparison, tables
from jiffy_tune.report import formatting as fmt
from jiffy_tune.report.tables import Table
from jiffy_tune.server import ServerInfo
from jiffy_tune.wording import MEASURED_ROUNDS, noise_notice, noisy, not_enough_rounds

# The sentences under the section headings, the same in both renderings.
RECOMMENDATIONS_LEAD = (
    "For each SDK and target, the configuration (transport, channels, cap, concurrency) with "
    "the most throughput whose client p99.9 met the target, from medians over rounds with "
    "the lowest and highest round beside them. "
    f"A recommendation takes at least {MEASURED_ROUNDS} ok rounds: with fewer, the row says "
    "there were not enough rounds to recommend, and gives the best point's figures instead."
)
TRANSPORTS_LEAD = (
    "For each SDK swept over more than one transport: the configuration the same rule picks "
    "among each transport's points alone, so the transports can be compared at each target. "
    "Within 3% of the best, the recommendation above keeps the SDK's default transport, "
    "which needs no second server port and carries every call."
)
AUTO_LEAD = (
    "The adaptive in-flight limit (cap auto) against the fixed caps the sweep tried, per SDK, "
    "transport and channel count: the most throughput auto reached with client p99.9 under "
    "the target, the fixed cap that reached the most, and auto's share of it. The goal: "
    f"auto reaches at least {adaptive.GOAL_SHARE * 100:.0f}% of the best fixed cap's "
    "throughput. Auto's last limit: the limit it had chosen when its run ended (median over "
    "rounds)."
)
SUMMARY_LEAD = (
    "Medians over the rounds that succeeded, with how far apart those rounds were; errors are "
    "summed over all rounds."
)
# Points named in a stderr heading; the failed-points table lists them all.
STDERR_IDS_LISTED = 10
FAILURES_LEAD = (
    "Each failed point with why it failed: how its loadgen ended and the exception line it "
    "printed. Below the table, the first and last lines of each different stderr."
)


@dataclass(frozen=True)
class Fact:
    label: str
    value: str


@dataclass(frozen=True)
class Preset:
    sdk: str
    target_ms: float
    language: str
    base: str
    code: str
    transport: str = ""

    @property
    def heading(self) -> str:
        over = transports.named(self.sdk, self.transport or transports.default(self.sdk))
        sdk = f"{self.sdk} over {over}" if over else self.sdk
        return f"{sdk}, {fmt.target(self.target_ms)} (from the {self.base} preset)"


@dataclass(frozen=True)
class Stderr:
    """One loadgen stderr excerpt and the failed points that printed it."""

    point_ids: list[int]
    text: str

    @property
    def heading(self) -> str:
        first, *others = self.point_ids
        if not others:
            return f"stderr of point {first}"
        listed = ", ".join(str(i) for i in others[:STDERR_IDS_LISTED])
        if len(others) > STDERR_IDS_LISTED:
            listed += f" and {len(others) - STDERR_IDS_LISTED} more"
        return f"stderr of point {first} (also point{'s' if len(others) > 1 else ''} {listed})"


@dataclass(frozen=True)
class ReportView:
    title: str
    notices: list[str]
    facts: list[Fact]
    recommendations: Table
    transports: Table | None
    matched: Table | None
    best_of_each: Table | None
    presets: list[Preset]
    # Why there is no preset for targets a point met: too few rounds.
    no_presets: str | None
    open_loop: Table | None
    auto: Table | None
    summary: Table
    failed_points: Table | None
    stderr: list[Stderr]
    request_errors: Table | None


def build_view(results: RunResults) -> ReportView:
    open_mode = results.open_mode
    return ReportView(
        title=_title(results),
        notices=_notices(results),
        facts=_facts(results),
        recommendations=tables.recommendation_table(results, open_mode),
        transports=tables.transport_table(results),
        matched=comparison.matched_table(results),
        best_of_each=comparison.best_table(results),
        presets=_presets(results),
        no_presets=_no_presets(results),
        open_loop=tables.open_loop_table(results),
        auto=tables.auto_table(results),
        summary=tables.summary_table(results, open_mode),
        failed_points=tables.failed_table(results, open_mode),
        stderr=_stderr(results.points),
        request_errors=tables.request_error_table(results, open_mode),
    )


def _parse_time(text: str) -> datetime:
    # Python 3.10's fromisoformat does not take the "Z" suffix.
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def _title(results: RunResults) -> str:
    started = _parse_time(results.started).strftime("%Y-%m-%d %H:%M UTC")
    return f"jiffy-tune report: {started} on {results.environment.hostname}"


def _notices(results: RunResults) -> list[str]:
    notices = []
    points = results.points
    if results.interrupted:
        notices.append(
            f"This run was interrupted before it finished: the report shows the {len(points)} "
            "points measured until then, and configurations it did not reach are missing."
        )
    if results.stopped:
        notices.append(f"This run stopped early: {results.stopped}.")
    rounds = results.settings.rounds
    if points and noisy(rounds):
        notices.append(noise_notice(rounds))
    failed = [p for p in points if not p.ok]
    if failed:
        notices.append(
            f"{len(failed)} of {len(points)} points failed; they are listed under Failed points, "
            "and the medians in the summary use only the rounds that succeeded."
        )
    if not tables.server_measured(results):
        notices.append(_server_not_measured_sentence(results.server))
    return notices


def _server_not_measured_sentence(server: ServerInfo) -> str:
    if server.kind == "external" and server.metrics_url is None:
        return (
            "Server latency not measured: the server is external and no metrics address "
            "was given, so only client latency is shown."
        )
    return "Server latency not measured: no point has a server-side latency."


def _facts(results: RunResults) -> list[Fact]:
    settings, env = results.settings, results.environment
    started, finished = _parse_time(results.started), _parse_time(results.finished)
    elapsed = int((finished - started).total_seconds())
    points = results.points
    failed = sum(1 for p in points if not p.ok)
    facts = [
        Fact("Command", results.command),
        Fact("Mode", _mode_sentence(results.mode)),
        Fact(
            "Time",
            f"{started:%Y-%m-%d %H:%M:%S} to {finished:%H:%M:%S} UTC "
            f"({elapsed // 60} min {elapsed % 60} s)",
        ),
        Fact("Points", f"{len(points)} measured, {failed} failed"),
        Fact(
            "Each point",
            f"{fmt.seconds(settings.duration_s)} measured after "
            f"{fmt.seconds(settings.warmup_s)} of warm-up; "
            f"{fmt.plural(settings.rounds, 'round')}; "
            f"{settings.value_size}-byte values, {settings.keyspace:,} keys, "
            f"{settings.get_ratio * 100:.0f}% gets",
        ),
        Fact("SDKs", ", ".join(settings.sdks)),
    ]
    if results.open_mode:
        rates = settings.rates or []
        facts.append(Fact("Offered rates", ", ".join(fmt.rps(r) for r in rates)))
    else:
        facts.append(Fact("Concurrency", ", ".join(str(c) for c in settings.concurrency)))
    facts.append(Fact("Channels", ", ".join(str(c) for c in settings.channels)))
    facts.append(Fact("Transports", _transports_sentence(results)))
    caps = settings.max_concurrent_requests
    if caps is None:
        caps_sentence = "equal to each point's concurrency" if not results.open_mode else "none"
    else:
        caps_sentence = ", ".join(map(fmt.cap, caps))
        if "auto" in caps:
            caps_sentence += " (auto: the SDK's adaptive limit, for the SDKs that have it)"
    facts.append(Fact("In-flight cap", caps_sentence))
    delay = settings.delay_ms
    if delay:
        facts.append(
            Fact(
                "Added latency",
                f"the server held every call {delay:g} ms (--delay-ms, fault injection)",
            )
        )
    facts.append(Fact("Server", _server_sentence(results.server)))
    facts.append(Fact("Client", fmt.cpus(results.client_cpus)))
    facts.append(Fact("Machine", _machine_sentence(env)))
    facts.append(Fact("OS", f"{env.os}, kernel {env.kernel}"))
    facts.append(Fact("Runtimes", _runtimes_sentence(settings, env)))
    versions = env.sdk_versions
    if versions:
        facts.append(
            Fact("SDK versions", ", ".join(f"{sdk} {v}" for sdk, v in sorted(versions.items())))
        )
    facts.append(Fact("Git commit", env.git_commit or fmt.MISSING))
    facts.append(Fact("Tool", f"{results.tool_name} {results.tool_version}"))
    return facts


def _mode_sentence(mode: str) -> str:
    if mode == "open":
        return (
            "open loop: requests are sent at a fixed offered rate and timed from their "
            "intended send time"
        )
    return "closed loop: each of N workers keeps one request in flight"


def _server_sentence(server: ServerInfo) -> str:
    if server.kind == "embedded":
        name = "jiffy-server" + (f" {server.version}" if server.version else "")
        where = f"started by jiffy-tune at {server.endpoint}"
    else:
        name = "external server"
        where = f"at {server.endpoint}"
    if server.protosocket_endpoint:
        where += f" (protosocket port {server.protosocket_endpoint})"
    latency = (
        "latency read from its metrics" if server.metrics_url else "server latency not measured"
    )
    return f"{name}, {where}, {fmt.cpus(server.cpus)}; {latency}"


def _transports_sentence(results: RunResults) -> str:
    """Each SDK's transports as measured; the channel counts of those after its first."""
    measured: dict[str, list[str]] = {}
    for entry in results.summary:
        names = measured.setdefault(entry.sdk, [])
        if entry.transport not in names:
            names.append(entry.transport)
    sentence = "; ".join(f"{sdk}: {', '.join(names)}" for sdk, names in measured.items())
    other_channels = results.settings.transport_channels
    if other_channels and any(len(names) > 1 for names in measured.values()):
        counts = ", ".join(str(c) for c in other_channels)
        noun = "channel" if other_channels == [1] else "channels"
        sentence += f" (each SDK's transports after its first at {counts} {noun} only)"
    return sentence or fmt.MISSING


def _machine_sentence(env: Environment) -> str:
    parts = [env.hostname, env.cpu_model or "CPU model unknown"]
    parts.append(f"{env.cpus_online} cores online")
    if env.memory_gib is not None:
        parts.append(f"{env.memory_gib:.1f} GiB memory")
    return ", ".join(parts)


def _runtimes_sentence(settings: Settings, env: Environment) -> str:
    python = f"Python {env.python}" + (" with uvloop" if settings.python_uvloop else "")
    node = f"Node {env.node}" if env.node else "Node not found"
    if env.node and settings.node_options:
        node += f" with {' '.join(settings.node_options)}"
    return f"{python}; {node}"


def _presets(results: RunResults) -> list[Preset]:
    return [
        Preset(
            sdk=rec.sdk,
            target_ms=rec.target_ms,
            language=rec.preset.language,
            base=rec.preset.base,
            code=rec.preset.code,
            transport=rec.point.transport,
        )
        for rec in results.recommendations
        # Results written before a recommendation took 3 rounds kept noisy presets.
        if rec.point is not None and rec.preset is not None and rec.recommended
    ]


def _no_presets(results: RunResults) -> str | None:
    unrecommended = [rec for rec in results.recommendations if rec.met and not rec.recommended]
    if not unrecommended:
        return None
    rounds_ok = min(rec.point.rounds_ok for rec in unrecommended if rec.point is not None)
    return (
        f"No preset for {fmt.plural(len(unrecommended), 'target')} a point met: "
        f"{not_enough_rounds(rounds_ok)}."
    )


def _stderr(points: list[Point]) -> list[Stderr]:
    """The failed points' stderr excerpts, each different one once, in point order."""
    found: dict[str, Stderr] = {}
    for point in points:
        text = point.stderr_excerpt
        if not point.ok and text:
            found.setdefault(text, Stderr([], text)).point_ids.append(point.id)
    return list(found.values())
