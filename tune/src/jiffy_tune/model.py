"""A run's results as frozen records: what results.json holds, typed.

Each record is built in one place (a point by the runner, a summary entry by
`summary`, a recommendation by `recommend`, an open-loop row by `sweep`, an
auto row by `adaptive`, the whole by `results.assemble`) or read back from a
saved results.json by `jsonfields.read`, by its type hints, which takes the
older shapes too (fields added since are given their defaults; the few
fields whose JSON is not their type one to one name their reader). `as_json` writes the shape of
results.schema.json, key for key, so results.json does not change.

The overrides of `as_json` name `JsonRecord.as_json(self)` rather than
`super()`: a dataclass with slots is a new class, which zero-argument
`super()` does not know before Python 3.14.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from jiffy_tune import caps, transports
from jiffy_tune.caps import Cap
from jiffy_tune.jsonfields import Fields, JsonRecord, absent, read, reader, record, to_json
from jiffy_tune.loadgen_report import Percentiles, history
from jiffy_tune.server import ServerInfo
from jiffy_tune.wording import noisy

Status = Literal["ok", "failed"]


def _transport(f: Fields, name: str) -> str:
    """The transport given, else the SDK's first (results from before transports were swept)."""
    return transports.given_or_default(f.required_string("sdk"), f.string(name))


def _status(f: Fields, name: str) -> Status:
    return "ok" if f.required_string(name) == "ok" else "failed"


def _chosen_point(f: Fields, name: str) -> SummaryEntry | None:
    """A recommendation's configuration: None unless it `met` its target."""
    point = f.object(name)
    if f.required_boolean("met") and point is not None:
        return record(SummaryEntry, point)
    return None


def _client_cpus(f: Fields, _: str) -> list[int] | None:
    client = f.object("client")
    return None if client is None else client.integers("cpus")


class _LastLimitIfAuto(JsonRecord):
    """A record written with its `in_flight_limit_last` only for auto: the fixed
    caps' entries have no such key."""

    __slots__ = ()

    def as_json(self) -> dict[str, Any]:
        entry = JsonRecord.as_json(self)
        if not caps.is_auto(entry["max_concurrent_requests"]):
            del entry["in_flight_limit_last"]
        return entry


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerLatency(JsonRecord):
    """The server's own latency over one point (metrics.latency_ms)."""

    p50: float | None
    p99: float | None
    p999: float | None
    count: int = absent(0)
    resolution: str = absent("")
    window: str = absent("")


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
    id: int = reader(Fields.required_integer, default=0)
    sdk: str
    transport: str = reader(_transport)
    channels: int
    concurrency: int
    max_concurrent_requests: Cap
    rate: float | None
    round: int
    status: Status = reader(_status, default="failed")
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
    in_flight_limit: tuple[tuple[float, int], ...] | None = reader(history, default=None)
    # The loadgen's report, verbatim.
    loadgen: Mapping[str, Any] | None = reader(Fields.raw, default=None)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True, slots=True, kw_only=True)
class Medians(JsonRecord):
    """Medians over a configuration's ok rounds, in ms (None where no round had one)."""

    p50: float | None
    p99: float | None
    p999: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Spread(JsonRecord):
    """The lowest and highest of one figure over a configuration's ok rounds."""

    min: float
    max: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryEntry(_LastLimitIfAuto):
    """One configuration (sdk, transport, channels, concurrency, cap, rate) over its rounds."""

    sdk: str
    transport: str = reader(_transport)
    channels: int
    concurrency: int
    max_concurrent_requests: Cap
    rate: float | None
    rounds_ok: int
    rounds_failed: int = absent(0)
    rps: float | None
    client_ms: Medians | None
    server_ms: Medians | None
    client_share_p999: float | None
    errors_total: int = absent(0)
    # auto only: the median of the last limit the client chose.
    in_flight_limit_last: float | None = None
    # How far the rounds behind the medians were apart; None from results
    # written before jiffy-tune kept it, or with no ok round.
    rps_spread: Spread | None = None
    client_p999_spread: Spread | None = None

    @property
    def client_p999(self) -> float | None:
        return None if self.client_ms is None else self.client_ms.p999

    @property
    def server_p999(self) -> float | None:
        return None if self.server_ms is None else self.server_ms.p999


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
    # The configuration chosen; None when nothing met the target. With too few
    # rounds (`recommended` false), the best point measured, not recommended.
    point: SummaryEntry | None = reader(_chosen_point)
    statement: str
    preset: PresetCode | None
    # The figures stated come from fewer ok rounds than a measurement takes.
    noisy: bool = absent(False)

    @property
    def met(self) -> bool:
        return self.point is not None

    @property
    def recommended(self) -> bool:
        """A point met the target with enough rounds behind it to recommend it."""
        return self.point is not None and not noisy(self.point.rounds_ok)

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


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenLoopRow(JsonRecord):
    """Open loop: the highest offered rate one configuration met under one target."""

    sdk: str
    transport: str = reader(_transport)
    channels: int
    max_concurrent_requests: Cap = absent(0)
    target_ms: float
    max_rate_met: float | None
    achieved_rps: float | None
    client_p999_ms: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoSide(_LastLimitIfAuto):
    """One side of an auto row: the configuration that reached the most, and what."""

    max_concurrent_requests: Cap
    concurrency: int
    rate: float | None
    rps: float
    client_p999_ms: float
    in_flight_limit_last: float | None = None


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
    delay_ms: int = absent(0)
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
    workload: str = reader(lambda f, name: f.string(name) or "scalar")
    # Absent: "", which `RunResults.from_json` makes the default cache.
    cache: str = absent("")
    node_options: list[str]
    python_uvloop: bool = absent(False)
    preset: str = absent("")
    server_args: list[str]
    loadgen_commands: dict[str, list[str]]

    def as_json(self) -> dict[str, Any]:
        settings = JsonRecord.as_json(self)
        if self.transport_channels is None:
            # Results from before transports were swept have none (the schema wants a list).
            del settings["transport_channels"]
        return settings


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


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResults(JsonRecord):
    """results.json, whole."""

    schema_version: int
    tool_name: str = reader(lambda f, _: f.required_object("tool").required_string("name"))
    tool_version: str = reader(lambda f, _: f.required_object("tool").required_string("version"))
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
    client_cpus: list[int] | None = reader(_client_cpus)
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
        results = read(cls, value, what="results")
        if results.settings.cache:
            return results
        return replace(results, settings=replace(results.settings, cache=default_cache))
