"""A run's results as frozen records: what results.json holds, typed.

Each record is built in one place (a point by the runner, a summary entry by
`summary`, a recommendation by `recommend`, an open-loop row by `sweep`, an
auto row by `adaptive`, the whole by `results.assemble`) or read back from a
saved results.json by its `from_json`, which takes the older shapes too
(fields added since are given their defaults). `as_json` writes the shape of
results.schema.json, key for key, so results.json does not change.

The overrides of `as_json` name `JsonRecord.as_json(self)` rather than
`super()`: a dataclass with slots is a new class, which zero-argument
`super()` does not know before Python 3.14.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from jiffy_tune import caps, transports
from jiffy_tune.caps import Cap
from jiffy_tune.jsonfields import Fields, JsonRecord, to_json
from jiffy_tune.loadgen_report import Percentiles
from jiffy_tune.server import ServerInfo

Status = Literal["ok", "failed"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerLatency(JsonRecord):
    """The server's own latency over one point (metrics.latency_ms)."""

    p50: float | None
    p99: float | None
    p999: float | None
    count: int
    resolution: str
    window: str

    @classmethod
    def from_json(cls, f: Fields) -> ServerLatency:
        return cls(
            p50=f.number("p50"),
            p99=f.number("p99"),
            p999=f.number("p999"),
            count=f.integer("count") or 0,
            resolution=f.string("resolution") or "",
            window=f.string("window") or "",
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Effective(JsonRecord):
    """What the client used, as its loadgen reported it (None where it did not say)."""

    channels: int | None = None
    max_concurrent_requests: Cap | None = None
    transport: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Point(JsonRecord):
    """One loadgen run. A failed point has no numbers (None), only why it failed."""

    # Given by the sweep as it keeps the point: its place in the run.
    id: int = 0
    sdk: str
    transport: str
    channels: int
    concurrency: int
    max_concurrent_requests: Cap
    rate: float | None
    round: int
    status: Status = "failed"
    error: str | None = None
    stderr_excerpt: str | None = None
    rps: float | None = None
    requests: int | None = None
    # Non-zero counts only, by gRPC status name.
    errors: Mapping[str, int] = field(default_factory=dict)
    errors_total: int = 0
    client_ms: Percentiles | None = None
    server_ms: ServerLatency | None = None
    client_share_p999: float | None = None
    connections: int | None = None
    client_cpu_percent: float | None = None
    wall_s: float = 0.0
    effective: Effective | None = None
    # auto points: [seconds, limit] pairs over the run.
    in_flight_limit: tuple[tuple[float, int], ...] | None = None
    # The loadgen's report, verbatim.
    loadgen: Mapping[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @classmethod
    def from_json(cls, f: Fields) -> Point:
        sdk = f.required_string("sdk")
        client, server, effective = (
            f.object(name) for name in ("client_ms", "server_ms", "effective")
        )
        history = f.pairs("in_flight_limit")
        status = f.required_string("status")
        return cls(
            id=f.required_integer("id"),
            sdk=sdk,
            transport=transports.given_or_default(sdk, f.string("transport")),
            channels=f.required_integer("channels"),
            concurrency=f.required_integer("concurrency"),
            max_concurrent_requests=f.required_cap("max_concurrent_requests"),
            rate=f.number("rate"),
            round=f.required_integer("round"),
            status="ok" if status == "ok" else "failed",
            error=f.string("error"),
            stderr_excerpt=f.string("stderr_excerpt"),
            rps=f.number("rps"),
            requests=f.integer("requests"),
            errors=f.integer_map("errors"),
            errors_total=f.integer("errors_total") or 0,
            client_ms=None if client is None else Percentiles.from_json(client),
            server_ms=None if server is None else ServerLatency.from_json(server),
            client_share_p999=f.number("client_share_p999"),
            connections=f.integer("connections"),
            client_cpu_percent=f.number("client_cpu_percent"),
            wall_s=f.number("wall_s") or 0.0,
            effective=None
            if effective is None
            else Effective(
                channels=effective.integer("channels"),
                max_concurrent_requests=effective.cap("max_concurrent_requests"),
                transport=effective.string("transport"),
            ),
            in_flight_limit=None if history is None else tuple(history),
            loadgen=f.raw("loadgen"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Medians(JsonRecord):
    """Medians over a configuration's ok rounds, in ms (None where no round had one)."""

    p50: float | None
    p99: float | None
    p999: float | None

    @classmethod
    def from_json(cls, f: Fields | None) -> Medians | None:
        if f is None:
            return None
        return cls(p50=f.number("p50"), p99=f.number("p99"), p999=f.number("p999"))


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryEntry(JsonRecord):
    """One configuration (sdk, transport, channels, concurrency, cap, rate) over its rounds."""

    sdk: str
    transport: str
    channels: int
    concurrency: int
    max_concurrent_requests: Cap
    rate: float | None
    rounds_ok: int
    rounds_failed: int
    rps: float | None
    client_ms: Medians | None
    server_ms: Medians | None
    client_share_p999: float | None
    errors_total: int
    # auto only: the median of the last limit the client chose.
    in_flight_limit_last: float | None = None

    @property
    def client_p999(self) -> float | None:
        return None if self.client_ms is None else self.client_ms.p999

    @property
    def server_p999(self) -> float | None:
        return None if self.server_ms is None else self.server_ms.p999

    def as_json(self) -> dict[str, Any]:
        return _without_last_limit_unless_auto(JsonRecord.as_json(self))

    @classmethod
    def from_json(cls, f: Fields) -> SummaryEntry:
        sdk = f.required_string("sdk")
        return cls(
            sdk=sdk,
            transport=transports.given_or_default(sdk, f.string("transport")),
            channels=f.required_integer("channels"),
            concurrency=f.required_integer("concurrency"),
            max_concurrent_requests=f.required_cap("max_concurrent_requests"),
            rate=f.number("rate"),
            rounds_ok=f.required_integer("rounds_ok"),
            rounds_failed=f.integer("rounds_failed") or 0,
            rps=f.number("rps"),
            client_ms=Medians.from_json(f.object("client_ms")),
            server_ms=Medians.from_json(f.object("server_ms")),
            client_share_p999=f.number("client_share_p999"),
            errors_total=f.integer("errors_total") or 0,
            in_flight_limit_last=f.number("in_flight_limit_last"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PresetCode(JsonRecord):
    """The preset to paste for a recommendation: its language, base preset and code."""

    language: str
    base: str
    code: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Recommendation(JsonRecord):
    sdk: str
    target_ms: float
    # The configuration chosen; None when nothing met the target.
    point: SummaryEntry | None
    statement: str
    preset: PresetCode | None
    # The figures stated come from fewer ok rounds than a measurement takes.
    noisy: bool

    @property
    def met(self) -> bool:
        return self.point is not None

    def as_json(self) -> dict[str, Any]:
        return {
            "sdk": self.sdk,
            "target_ms": self.target_ms,
            "met": self.met,
            "transport": None if self.point is None else self.point.transport,
            "point": to_json(self.point),
            "statement": self.statement,
            "preset": to_json(self.preset),
            "noisy": self.noisy,
        }

    @classmethod
    def from_json(cls, f: Fields) -> Recommendation:
        point, preset = f.object("point"), f.object("preset")
        met = f.required_boolean("met")
        return cls(
            sdk=f.required_string("sdk"),
            target_ms=f.required_number("target_ms"),
            point=SummaryEntry.from_json(point) if met and point is not None else None,
            statement=f.required_string("statement"),
            preset=None
            if preset is None
            else PresetCode(
                language=preset.required_string("language"),
                base=preset.required_string("base"),
                code=preset.required_string("code"),
            ),
            noisy=f.boolean("noisy") or False,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenLoopRow(JsonRecord):
    """Open loop: the highest offered rate one configuration met under one target."""

    sdk: str
    transport: str
    channels: int
    max_concurrent_requests: Cap
    target_ms: float
    max_rate_met: float | None
    achieved_rps: float | None
    client_p999_ms: float | None

    @classmethod
    def from_json(cls, f: Fields) -> OpenLoopRow:
        sdk = f.required_string("sdk")
        return cls(
            sdk=sdk,
            transport=transports.given_or_default(sdk, f.string("transport")),
            channels=f.required_integer("channels"),
            max_concurrent_requests=f.cap("max_concurrent_requests") or 0,
            target_ms=f.required_number("target_ms"),
            max_rate_met=f.number("max_rate_met"),
            achieved_rps=f.number("achieved_rps"),
            client_p999_ms=f.number("client_p999_ms"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoSide(JsonRecord):
    """One side of an auto row: the configuration that reached the most, and what."""

    max_concurrent_requests: Cap
    concurrency: int
    rate: float | None
    rps: float
    client_p999_ms: float
    in_flight_limit_last: float | None = None

    def as_json(self) -> dict[str, Any]:
        return _without_last_limit_unless_auto(JsonRecord.as_json(self))

    @classmethod
    def from_json(cls, f: Fields | None) -> AutoSide | None:
        if f is None:
            return None
        return cls(
            max_concurrent_requests=f.required_cap("max_concurrent_requests"),
            concurrency=f.required_integer("concurrency"),
            rate=f.number("rate"),
            rps=f.required_number("rps"),
            client_p999_ms=f.required_number("client_p999_ms"),
            in_flight_limit_last=f.number("in_flight_limit_last"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoRow(JsonRecord):
    """auto against the best fixed cap, for one (SDK, transport, channels) and target."""

    sdk: str
    transport: str
    channels: int
    target_ms: float
    auto: AutoSide | None
    best_cap: AutoSide | None
    share: float | None
    meets_goal: bool | None

    @classmethod
    def from_json(cls, f: Fields) -> AutoRow:
        return cls(
            sdk=f.required_string("sdk"),
            transport=f.required_string("transport"),
            channels=f.required_integer("channels"),
            target_ms=f.required_number("target_ms"),
            auto=AutoSide.from_json(f.object("auto")),
            best_cap=AutoSide.from_json(f.object("best_cap")),
            share=f.number("share"),
            meets_goal=f.boolean("meets_goal"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings(JsonRecord):
    """The sweep as asked (`settings`): the command line, resolved."""

    sdks: list[str]
    concurrency: list[int]
    channels: list[int]
    transports: dict[str, list[str]]
    # The channel counts of each SDK's transports after its first.
    transport_channels: list[int] | None
    max_concurrent_requests: list[Cap] | None
    delay_ms: int
    rates: list[float] | None
    rate_start: float
    rate_factor: float
    rate_max: float
    rounds: int
    duration_s: float
    warmup_s: float
    value_size: int
    keyspace: int
    get_ratio: float
    workload: str
    cache: str
    node_options: list[str]
    python_uvloop: bool
    preset: str
    server_args: list[str]
    loadgen_commands: dict[str, list[str]]

    def as_json(self) -> dict[str, Any]:
        settings = JsonRecord.as_json(self)
        if self.transport_channels is None:
            # Results from before transports were swept have none (the schema wants a list).
            del settings["transport_channels"]
        return settings

    @classmethod
    def from_json(cls, f: Fields, default_cache: str) -> Settings:
        by_sdk = f.object("transports")
        commands = f.object("loadgen_commands")
        return cls(
            sdks=f.strings("sdks") or [],
            concurrency=f.integers("concurrency") or [],
            channels=f.integers("channels") or [],
            transports={}
            if by_sdk is None
            else {sdk: by_sdk.strings(sdk) or [] for sdk in by_sdk.names()},
            transport_channels=f.integers("transport_channels"),
            max_concurrent_requests=f.caps("max_concurrent_requests"),
            delay_ms=f.integer("delay_ms") or 0,
            rates=f.numbers("rates"),
            rate_start=f.required_number("rate_start"),
            rate_factor=f.required_number("rate_factor"),
            rate_max=f.required_number("rate_max"),
            rounds=f.required_integer("rounds"),
            duration_s=f.required_number("duration_s"),
            warmup_s=f.required_number("warmup_s"),
            value_size=f.required_integer("value_size"),
            keyspace=f.required_integer("keyspace"),
            get_ratio=f.required_number("get_ratio"),
            workload=f.string("workload") or "scalar",
            cache=f.string("cache") or default_cache,
            node_options=f.strings("node_options") or [],
            python_uvloop=f.boolean("python_uvloop") or False,
            preset=f.string("preset") or "",
            server_args=f.strings("server_args") or [],
            loadgen_commands={}
            if commands is None
            else {sdk: commands.strings(sdk) or [] for sdk in commands.names()},
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Environment(JsonRecord):
    """Where the sweep ran (environment.describe)."""

    hostname: str
    os: str
    kernel: str
    cpu_model: str | None
    cpus_online: int
    memory_gib: float | None
    python: str
    node: str | None
    git_commit: str | None
    sdk_versions: dict[str, str]
    runtimes: dict[str, str]

    @classmethod
    def from_json(cls, f: Fields) -> Environment:
        return cls(
            hostname=f.required_string("hostname"),
            os=f.required_string("os"),
            kernel=f.required_string("kernel"),
            cpu_model=f.string("cpu_model"),
            cpus_online=f.required_integer("cpus_online"),
            memory_gib=f.number("memory_gib"),
            python=f.required_string("python"),
            node=f.string("node"),
            git_commit=f.string("git_commit"),
            sdk_versions=f.string_map("sdk_versions"),
            runtimes=f.string_map("runtimes"),
        )


def _without_last_limit_unless_auto(entry: dict[str, Any]) -> dict[str, Any]:
    """An auto entry's last limit; the fixed caps' entries have no such key."""
    if not caps.is_auto(entry["max_concurrent_requests"]):
        del entry["in_flight_limit_last"]
    return entry


def server_from_json(f: Fields) -> ServerInfo:
    return ServerInfo(
        kind=f.required_string("kind"),
        endpoint=f.required_string("endpoint"),
        metrics_url=f.string("metrics_url"),
        binary=f.string("binary"),
        version=f.string("version"),
        cpus=f.integers("cpus"),
        protosocket_endpoint=f.string("protosocket_endpoint"),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResults(JsonRecord):
    """results.json, whole."""

    schema_version: int
    tool_name: str
    tool_version: str
    command: str
    started: str
    finished: str
    interrupted: bool
    # Why the sweep ended before its plan (the server went away), or None.
    stopped: str | None
    mode: str
    targets_ms: list[float]
    settings: Settings
    server: ServerInfo
    client_cpus: list[int] | None
    environment: Environment
    points: list[Point]
    summary: list[SummaryEntry]
    recommendations: list[Recommendation]
    # Open loop only, else None.
    open_loop: list[OpenLoopRow] | None
    # None in results written before jiffy-tune compared auto with the fixed caps.
    auto_comparison: list[AutoRow] | None

    @property
    def open_mode(self) -> bool:
        return self.mode == "open"

    def as_json(self) -> dict[str, Any]:
        results = JsonRecord.as_json(self)
        tool = {"name": results.pop("tool_name"), "version": results.pop("tool_version")}
        client = {"cpus": results.pop("client_cpus")}
        # results.json's order: the tool after the schema version, the client after the server.
        ordered = {"schema_version": results.pop("schema_version"), "tool": tool}
        for key, value in results.items():
            ordered[key] = value
            if key == "server":
                ordered["client"] = client
        return ordered

    @classmethod
    def from_json(cls, value: object, default_cache: str) -> RunResults:
        """A saved results.json (FieldError: which field is wrong)."""
        f = Fields(value, "", what="results")
        tool, client = f.required_object("tool"), f.object("client")
        open_loop = f.array("open_loop")
        auto = f.array("auto_comparison")
        return cls(
            schema_version=f.required_integer("schema_version"),
            tool_name=tool.required_string("name"),
            tool_version=tool.required_string("version"),
            command=f.required_string("command"),
            started=f.required_string("started"),
            finished=f.required_string("finished"),
            interrupted=f.required_boolean("interrupted"),
            stopped=f.string("stopped"),
            mode=f.required_string("mode"),
            targets_ms=f.numbers("targets_ms") or [],
            settings=Settings.from_json(f.required_object("settings"), default_cache),
            server=server_from_json(f.required_object("server")),
            client_cpus=None if client is None else client.integers("cpus"),
            environment=Environment.from_json(f.required_object("environment")),
            points=[Point.from_json(p) for p in f.objects("points")],
            summary=[SummaryEntry.from_json(e) for e in f.objects("summary")],
            recommendations=[Recommendation.from_json(r) for r in f.objects("recommendations")],
            open_loop=None
            if open_loop is None
            else [OpenLoopRow.from_json(r) for r in f.objects("open_loop")],
            auto_comparison=None
            if auto is None
            else [AutoRow.from_json(r) for r in f.objects("auto_comparison")],
        )
