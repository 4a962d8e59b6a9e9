"""The load generator's JSON report, parsed once into frozen dataclasses.

The fields and types are those of docs/loadgen-report.schema.json. The
contract with jiffy-tune (docs/LOADGEN.md) asks only for `rps`, `requests`
and `latency_ms`, so that a loadgen added with --loadgen can be swept before
it prints everything: the schema's other fields may be absent (None, or
empty), but a field that is present must have the schema's type. A report
that breaks either rule raises `ReportError`, whose message names the field.

Written by hand rather than with a validation library: jiffy-tune has no
runtime dependency for it (jsonschema is a test dependency), and the
lenient "present means typed" rule above is not the schema's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Cap = int | Literal["auto"]


class ReportError(ValueError):
    """A loadgen report that is not the contract's; the message names the field."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Percentiles:
    """Milliseconds, from an HDR histogram."""

    p50: float
    p90: float
    p99: float
    p999: float
    max: float

    def as_json(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadgenConfig:
    """The run as the loadgen configured it (None: the loadgen did not say)."""

    concurrency: int | None = None
    rate: float | None = None
    channels: int | None = None
    # 0 = no cap, "auto" = the SDK's adaptive limit.
    max_concurrent_requests: Cap | None = None
    preset: str | None = None
    duration_s: float | None = None
    warmup_s: float | None = None
    value_size: int | None = None
    keyspace: int | None = None
    get_ratio: float | None = None
    workload: str | None = None
    transport: str | None = None
    delay_ms: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadgenReport:
    rps: float
    requests: int
    latency_ms: Percentiles
    sdk: str | None = None
    sdk_version: str | None = None
    runtime: str | None = None
    config: LoadgenConfig = field(default_factory=LoadgenConfig)
    # By gRPC status name; zero counts included, as the loadgen printed them.
    errors: Mapping[str, int] = field(default_factory=dict)
    latency_ms_by_op: Mapping[str, Percentiles] = field(default_factory=dict)
    connections: int | None = None
    client_cpu_percent: float | None = None
    # [seconds since the load began, limit] pairs; only loadgens whose client can tell.
    in_flight_limit: tuple[tuple[float, int], ...] | None = None
    # The object as printed: results.json keeps it verbatim as each point's `loadgen`.
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)


def parse_report(value: object) -> LoadgenReport:
    """The report from the loadgen's decoded JSON; ReportError names what is wrong."""
    report = _Object(value, "")
    config = report.object("config")
    by_op = report.object("latency_ms_by_op")
    return LoadgenReport(
        rps=report.required_number("rps"),
        requests=report.required_integer("requests"),
        latency_ms=_percentiles(report.required_object("latency_ms")),
        sdk=report.string("sdk"),
        sdk_version=report.string("sdk_version"),
        runtime=report.string("runtime"),
        config=LoadgenConfig() if config is None else _config(config),
        errors=_errors(report.object("errors")),
        latency_ms_by_op={}
        if by_op is None
        else {op: _percentiles(by_op.required_object(op)) for op in by_op.names()},
        connections=report.integer("connections"),
        client_cpu_percent=report.number("client_cpu_percent"),
        in_flight_limit=_limit_history(report),
        raw=report.fields,
    )


class _Object:
    """One JSON object of the report, read field by field; errors name the field's path."""

    def __init__(self, value: object, path: str) -> None:
        if not isinstance(value, dict):
            where = path or "the report"
            raise ReportError(f"{where}: expected an object, got {_kind(value)}")
        self.fields: dict[str, Any] = value
        self.path = path

    def names(self) -> list[str]:
        return list(self.fields)

    def where(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def _get(self, name: str, required: bool) -> object:
        value = self.fields.get(name)
        if value is None and required:
            absent = "is null" if name in self.fields else "is missing"
            raise ReportError(f"{self.where(name)} {absent}")
        return value

    def _wrong(self, name: str, expected: str, value: object) -> ReportError:
        return ReportError(f"{self.where(name)}: expected {expected}, got {_kind(value)}")

    def number(self, name: str) -> float | None:
        value = self._get(name, False)
        return None if value is None else self._number(name, value)

    def required_number(self, name: str) -> float:
        return self._number(name, self._get(name, True))

    def _number(self, name: str, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._wrong(name, "a number", value)
        return float(value)

    def integer(self, name: str) -> int | None:
        value = self._get(name, False)
        return None if value is None else self._integer(name, value)

    def required_integer(self, name: str) -> int:
        return self._integer(name, self._get(name, True))

    def _integer(self, name: str, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(name, "a whole number", value)
        return value

    def string(self, name: str) -> str | None:
        value = self._get(name, False)
        if value is not None and not isinstance(value, str):
            raise self._wrong(name, "a string", value)
        return value

    def cap(self, name: str) -> Cap | None:
        value = self._get(name, False)
        if value is None or value == "auto":
            return "auto" if value else None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(name, 'a whole number or "auto"', value)
        return value

    def object(self, name: str) -> _Object | None:
        value = self._get(name, False)
        return None if value is None else _Object(value, self.where(name))

    def required_object(self, name: str) -> _Object:
        return _Object(self._get(name, True), self.where(name))


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    return "an array" if isinstance(value, list) else "an object"


def _percentiles(latency: _Object) -> Percentiles:
    return Percentiles(
        p50=latency.required_number("p50"),
        p90=latency.required_number("p90"),
        p99=latency.required_number("p99"),
        p999=latency.required_number("p999"),
        max=latency.required_number("max"),
    )


def _config(config: _Object) -> LoadgenConfig:
    return LoadgenConfig(
        concurrency=config.integer("concurrency"),
        rate=config.number("rate"),
        channels=config.integer("channels"),
        max_concurrent_requests=config.cap("max_concurrent_requests"),
        preset=config.string("preset"),
        duration_s=config.number("duration_s"),
        warmup_s=config.number("warmup_s"),
        value_size=config.integer("value_size"),
        keyspace=config.integer("keyspace"),
        get_ratio=config.number("get_ratio"),
        workload=config.string("workload"),
        transport=config.string("transport"),
        delay_ms=config.integer("delay_ms"),
    )


def _errors(errors: _Object | None) -> dict[str, int]:
    if errors is None:
        return {}
    return {name: errors.required_integer(name) for name in errors.names()}


def _limit_history(report: _Object) -> tuple[tuple[float, int], ...] | None:
    history = report.fields.get("in_flight_limit")
    if history is None:
        return None
    if not isinstance(history, list):
        raise ReportError(f"in_flight_limit: expected an array, got {_kind(history)}")
    pairs = []
    for index, pair in enumerate(history):
        if not isinstance(pair, list) or len(pair) != 2:
            where = f"in_flight_limit[{index}]"
            raise ReportError(f"{where}: expected [seconds, limit], got {_kind(pair)}")
        entry = _Object({"seconds": pair[0], "limit": pair[1]}, f"in_flight_limit[{index}]")
        pairs.append((entry.required_number("seconds"), entry.required_integer("limit")))
    return tuple(pairs)
