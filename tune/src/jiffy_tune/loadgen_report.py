"""The load generator's JSON report, parsed once into frozen dataclasses.

The fields and types are those of docs/loadgen-report.schema.json. The
contract with jiffy-tune (docs/LOADGEN.md) asks only for `rps`, `requests`
and `latency_ms`, so that a loadgen added with --loadgen can be swept before
it prints everything: the schema's other fields may be absent (None, or
empty), but a field that is present must have the schema's type. A report
that breaks either rule raises `ReportError`, whose message names the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jiffy_tune.caps import Cap
from jiffy_tune.jsonfields import FieldError, Fields, JsonRecord, read, reader

# A loadgen report that is not the contract's; the message names the field.
ReportError = FieldError


def history(f: Fields, name: str) -> tuple[tuple[float, int], ...] | None:
    """[seconds, limit] pairs (an in-flight limit history), as a tuple."""
    pairs = f.pairs(name)
    return None if pairs is None else tuple(pairs)


@dataclass(frozen=True, slots=True, kw_only=True)
class Percentiles(JsonRecord):
    """Milliseconds, from an HDR histogram."""

    p50: float
    p90: float
    p99: float
    p999: float
    max: float


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
    in_flight_limit: tuple[tuple[float, int], ...] | None = reader(history, default=None)
    # The object as printed: results.json keeps it verbatim as each point's `loadgen`.
    raw: Mapping[str, Any] = reader(
        lambda f, _: f.fields, default_factory=dict, repr=False, compare=False
    )


def parse_report(value: object) -> LoadgenReport:
    """The report from the loadgen's decoded JSON; ReportError names what is wrong."""
    return read(LoadgenReport, value, what="the report")
