"""What the report says, computed once from results.json and rendered twice.

report.md and report.html are two renderings of the same `ReportView`, so the
numbers, sentences and tables cannot drift apart between them. Everything is
formatted to text here; the renderers only lay it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from jiffy_tune.report import formatting as fmt

# Ours beside the official SDK for the same language: the comparison the
# report exists to make.
SDK_PAIRS = (("jiffy-python", "momento-python"), ("jiffy-js", "momento-js"))


@dataclass(frozen=True)
class Fact:
    label: str
    value: str


@dataclass(frozen=True)
class Row:
    cells: list[str]
    # When set, the row shows its first `len(cells)` cells and then this sentence
    # across the remaining columns (an unmet target, a ratio that cannot be taken).
    statement: str | None = None
    css_class: str = ""


@dataclass(frozen=True)
class Table:
    id: str
    columns: list[str]
    rows: list[Row]
    # Columns holding words rather than numbers: aligned left, the rest right.
    text_columns: tuple[int, ...] = (0,)


@dataclass(frozen=True)
class Preset:
    sdk: str
    target_ms: float
    language: str
    base: str
    code: str

    @property
    def heading(self) -> str:
        return f"{self.sdk}, {fmt.target(self.target_ms)} (from the {self.base} preset)"


@dataclass(frozen=True)
class Ratio:
    ours: str
    official: str
    target_ms: float
    ours_rps: float
    official_rps: float
    ours_p999_ms: float
    official_p999_ms: float

    @property
    def rps_ratio(self) -> float:
        return self.ours_rps / self.official_rps

    @property
    def p999_ratio(self) -> float:
        return self.ours_p999_ms / self.official_p999_ms


@dataclass(frozen=True)
class ReportView:
    title: str
    notices: list[str]
    facts: list[Fact]
    recommendations: Table
    server_measured: bool
    ratios: Table | None
    presets: list[Preset]
    open_loop: Table | None
    summary: Table
    failed_points: Table | None
    request_errors: Table | None
    sdks: list[str] = field(default_factory=list)


def build_view(results: dict[str, Any]) -> ReportView:
    open_mode = results["mode"] == "open"
    return ReportView(
        title=_title(results),
        notices=_notices(results),
        facts=_facts(results),
        recommendations=_recommendation_table(results, open_mode),
        server_measured=server_measured(results),
        ratios=_ratio_table(results),
        presets=_presets(results),
        open_loop=_open_loop_table(results),
        summary=_summary_table(results, open_mode),
        failed_points=_failed_table(results, open_mode),
        request_errors=_request_error_table(results, open_mode),
        sdks=list(results["settings"]["sdks"]),
    )


def server_measured(results: dict[str, Any]) -> bool:
    return any(_server_p999(entry) is not None for entry in results["summary"])


def ratios(results: dict[str, Any]) -> list[Ratio]:
    """Ours / official at each target where both have a recommendation."""
    met = {(r["sdk"], r["target_ms"]): r["point"] for r in results["recommendations"] if r["met"]}
    found = []
    for ours, official in SDK_PAIRS:
        for target in results["targets_ms"]:
            mine, theirs = met.get((ours, target)), met.get((official, target))
            if mine is None or theirs is None:
                continue
            found.append(
                Ratio(
                    ours=ours,
                    official=official,
                    target_ms=target,
                    ours_rps=mine["rps"],
                    official_rps=theirs["rps"],
                    ours_p999_ms=mine["client_ms"]["p999"],
                    official_p999_ms=theirs["client_ms"]["p999"],
                )
            )
    return found


def _parse_time(text: str) -> datetime:
    # Python 3.10's fromisoformat does not take the "Z" suffix.
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def _title(results: dict[str, Any]) -> str:
    started = _parse_time(results["started"]).strftime("%Y-%m-%d %H:%M UTC")
    return f"jiffy-tune report: {started} on {results['environment']['hostname']}"


def _notices(results: dict[str, Any]) -> list[str]:
    notices = []
    points = results["points"]
    if results["interrupted"]:
        notices.append(
            f"This run was interrupted before it finished: the report shows the {len(points)} "
            "points measured until then, and configurations it did not reach are missing."
        )
    failed = [p for p in points if p["status"] == "failed"]
    if failed:
        notices.append(
            f"{len(failed)} of {len(points)} points failed; they are listed under Failed points, "
            "and the medians in the summary use only the rounds that succeeded."
        )
    if not server_measured(results):
        notices.append(_server_not_measured_sentence(results))
    return notices


def _server_not_measured_sentence(results: dict[str, Any]) -> str:
    server = results["server"]
    if server["kind"] == "external" and server["metrics_url"] is None:
        return (
            "Server latency not measured: the server is external and no metrics address "
            "was given, so only client latency is shown."
        )
    return "Server latency not measured: no point has a server-side latency."


def _facts(results: dict[str, Any]) -> list[Fact]:
    settings, env = results["settings"], results["environment"]
    started, finished = _parse_time(results["started"]), _parse_time(results["finished"])
    elapsed = int((finished - started).total_seconds())
    points = results["points"]
    failed = sum(1 for p in points if p["status"] == "failed")
    facts = [
        Fact("Command", results["command"]),
        Fact("Mode", _mode_sentence(results["mode"])),
        Fact(
            "Time",
            f"{started:%Y-%m-%d %H:%M:%S} to {finished:%H:%M:%S} UTC "
            f"({elapsed // 60} min {elapsed % 60} s)",
        ),
        Fact("Points", f"{len(points)} measured, {failed} failed"),
        Fact(
            "Each point",
            f"{fmt.seconds(settings['duration_s'])} measured after "
            f"{fmt.seconds(settings['warmup_s'])} of warm-up; "
            f"{fmt.plural(settings['rounds'], 'round')}; "
            f"{settings['value_size']}-byte values, {settings['keyspace']:,} keys, "
            f"{settings['get_ratio'] * 100:.0f}% gets",
        ),
        Fact("SDKs", ", ".join(settings["sdks"])),
    ]
    if results["mode"] == "open":
        rates = settings["rates"] or []
        facts.append(Fact("Offered rates", ", ".join(fmt.rps(r) for r in rates)))
    else:
        facts.append(Fact("Concurrency", ", ".join(str(c) for c in settings["concurrency"])))
    facts.append(Fact("Channels", ", ".join(str(c) for c in settings["channels"])))
    caps = settings["max_concurrent_requests"]
    facts.append(
        Fact("In-flight cap", "each preset's" if caps is None else ", ".join(map(fmt.cap, caps)))
    )
    facts.append(Fact("Server", _server_sentence(results)))
    facts.append(Fact("Client", fmt.cpus(results["client"]["cpus"])))
    facts.append(Fact("Machine", _machine_sentence(env)))
    facts.append(Fact("OS", f"{env['os']}, kernel {env['kernel']}"))
    facts.append(Fact("Runtimes", _runtimes_sentence(settings, env)))
    versions = env["sdk_versions"]
    if versions:
        facts.append(
            Fact("SDK versions", ", ".join(f"{sdk} {v}" for sdk, v in sorted(versions.items())))
        )
    facts.append(Fact("Git commit", env["git_commit"] or fmt.MISSING))
    facts.append(Fact("Tool", f"{results['tool']['name']} {results['tool']['version']}"))
    return facts


def _mode_sentence(mode: str) -> str:
    if mode == "open":
        return (
            "open loop: requests are sent at a fixed offered rate and timed from their "
            "intended send time"
        )
    return "closed loop: each of N workers keeps one request in flight"


def _server_sentence(results: dict[str, Any]) -> str:
    server = results["server"]
    if server["kind"] == "embedded":
        name = "jiffy-server" + (f" {server['version']}" if server["version"] else "")
        where = f"started by jiffy-tune at {server['endpoint']}"
    else:
        name = "external server"
        where = f"at {server['endpoint']}"
    latency = (
        "latency read from its metrics" if server["metrics_url"] else "server latency not measured"
    )
    return f"{name}, {where}, {fmt.cpus(server['cpus'])}; {latency}"


def _machine_sentence(env: dict[str, Any]) -> str:
    parts = [env["hostname"], env["cpu_model"] or "CPU model unknown"]
    parts.append(f"{env['cpus_online']} cores online")
    if env["memory_gib"] is not None:
        parts.append(f"{env['memory_gib']:.1f} GiB memory")
    return ", ".join(parts)


def _runtimes_sentence(settings: dict[str, Any], env: dict[str, Any]) -> str:
    python = f"Python {env['python']}" + (" with uvloop" if settings["python_uvloop"] else "")
    node = f"Node {env['node']}" if env["node"] else "Node not found"
    if env["node"] and settings["node_options"]:
        node += f" with {' '.join(settings['node_options'])}"
    return f"{python}; {node}"


def _server_p999(entry: dict[str, Any]) -> Any:
    server = entry["server_ms"]
    return None if server is None else server["p999"]


def _client(entry: dict[str, Any], key: str) -> Any:
    client = entry["client_ms"]
    return None if client is None else client[key]


def _server(entry: dict[str, Any], key: str) -> Any:
    server = entry["server_ms"]
    return None if server is None else server[key]


def _load_column(open_mode: bool) -> str:
    return "offered rate" if open_mode else "concurrency"


def _load_cell(entry: dict[str, Any], open_mode: bool) -> str:
    return fmt.rps(entry["rate"]) if open_mode else str(entry["concurrency"])


def _recommendation_table(results: dict[str, Any], open_mode: bool) -> Table:
    columns = [
        "SDK",
        "target",
        "channels",
        "cap",
        _load_column(open_mode),
        "throughput",
        "client p99.9",
        "server p99.9",
        "client share",
    ]
    rows = []
    for rec in results["recommendations"]:
        head = [rec["sdk"], fmt.target(rec["target_ms"])]
        point = rec["point"]
        if not rec["met"] or point is None:
            rows.append(Row(head, statement=rec["statement"], css_class="unmet"))
            continue
        rows.append(
            Row(
                [
                    *head,
                    str(point["channels"]),
                    fmt.cap(point["max_concurrent_requests"]),
                    _load_cell(point, open_mode),
                    fmt.rps(point["rps"]),
                    fmt.ms(_client(point, "p999")),
                    fmt.ms(_server_p999(point)),
                    fmt.share(point["client_share_p999"]),
                ],
                css_class="met",
            )
        )
    return Table("recommendations", columns, rows, text_columns=(0, 1))


def _ratio_table(results: dict[str, Any]) -> Table | None:
    sdks = set(results["settings"]["sdks"])
    pairs = [(ours, official) for ours, official in SDK_PAIRS if {ours, official} <= sdks]
    if not pairs:
        return None
    found = {(r.ours, r.target_ms): r for r in ratios(results)}
    met = {(r["sdk"], r["target_ms"]) for r in results["recommendations"] if r["met"]}
    columns = ["ours / official", "target", "throughput", "ratio", "client p99.9", "ratio"]
    rows = []
    for ours, official in pairs:
        for target in results["targets_ms"]:
            head = [f"{ours} / {official}", fmt.target(target)]
            ratio = found.get((ours, target))
            if ratio is None:
                missing = [sdk for sdk in (ours, official) if (sdk, target) not in met]
                rows.append(
                    Row(
                        head,
                        statement=f"No ratio: {' and '.join(missing)} met no configuration "
                        f"under {target:g} ms.",
                        css_class="unmet",
                    )
                )
                continue
            rows.append(
                Row(
                    [
                        *head,
                        f"{fmt.rps(ratio.ours_rps)} / {fmt.rps(ratio.official_rps)}",
                        fmt.ratio(ratio.rps_ratio),
                        f"{fmt.ms(ratio.ours_p999_ms)} / {fmt.ms(ratio.official_p999_ms)}",
                        fmt.ratio(ratio.p999_ratio),
                    ]
                )
            )
    return Table("ratios", columns, rows, text_columns=(0, 1))


def _presets(results: dict[str, Any]) -> list[Preset]:
    return [
        Preset(
            sdk=rec["sdk"],
            target_ms=rec["target_ms"],
            language=rec["preset"]["language"],
            base=rec["preset"]["base"],
            code=rec["preset"]["code"],
        )
        for rec in results["recommendations"]
        if rec["met"] and rec["preset"] is not None
    ]


def _open_loop_table(results: dict[str, Any]) -> Table | None:
    entries = results["open_loop"]
    if not entries:
        return None
    columns = [
        "SDK",
        "channels",
        "target",
        "highest offered rate met",
        "throughput",
        "client p99.9",
    ]
    rows = []
    for entry in entries:
        head = [entry["sdk"], str(entry["channels"]), fmt.target(entry["target_ms"])]
        if entry["max_rate_met"] is None:
            rows.append(Row(head, statement="No offered rate met the target.", css_class="unmet"))
            continue
        rows.append(
            Row(
                [
                    *head,
                    fmt.rps(entry["max_rate_met"]),
                    fmt.rps(entry["achieved_rps"]),
                    fmt.ms(entry.get("client_p999_ms")),
                ],
                css_class="met",
            )
        )
    return Table("open-loop", columns, rows, text_columns=(0, 2))


def _summary_table(results: dict[str, Any], open_mode: bool) -> Table:
    columns = [
        "SDK",
        "channels",
        "cap",
        _load_column(open_mode),
        "rounds ok",
        "throughput",
        "client p50",
        "client p99",
        "client p99.9",
        "server p50",
        "server p99.9",
        "client share",
        "errors",
    ]
    rows = []
    for entry in results["summary"]:
        rounds = entry["rounds_ok"] + entry["rounds_failed"]
        rows.append(
            Row(
                [
                    entry["sdk"],
                    str(entry["channels"]),
                    fmt.cap(entry["max_concurrent_requests"]),
                    _load_cell(entry, open_mode),
                    f"{entry['rounds_ok']} of {rounds}",
                    fmt.rps(entry["rps"]),
                    fmt.ms(_client(entry, "p50")),
                    fmt.ms(_client(entry, "p99")),
                    fmt.ms(_client(entry, "p999")),
                    fmt.ms(_server(entry, "p50")),
                    fmt.ms(_server(entry, "p999")),
                    fmt.share(entry["client_share_p999"]),
                    fmt.count(entry["errors_total"]),
                ],
                css_class="failed" if entry["rounds_ok"] == 0 else "",
            )
        )
    return Table("summary", columns, rows)


def _point_head(point: dict[str, Any], open_mode: bool) -> list[str]:
    return [
        str(point["id"]),
        point["sdk"],
        str(point["channels"]),
        _load_cell(point, open_mode),
        str(point["round"]),
    ]


def _failed_table(results: dict[str, Any], open_mode: bool) -> Table | None:
    failed = [p for p in results["points"] if p["status"] == "failed"]
    if not failed:
        return None
    columns = ["point", "SDK", "channels", _load_column(open_mode), "round", "error"]
    rows = [
        Row([*_point_head(p, open_mode), p["error"] or "no error recorded"], css_class="failed")
        for p in failed
    ]
    return Table("failed-points", columns, rows, text_columns=(1, 5))


def _request_error_table(results: dict[str, Any], open_mode: bool) -> Table | None:
    with_errors = [p for p in results["points"] if p["status"] == "ok" and p["errors_total"]]
    if not with_errors:
        return None
    columns = ["point", "SDK", "channels", _load_column(open_mode), "round", "errors by status"]
    rows = [
        Row(
            [
                *_point_head(p, open_mode),
                ", ".join(f"{name} {n:,}" for name, n in sorted(p["errors"].items()) if n),
            ]
        )
        for p in with_errors
    ]
    return Table("request-errors", columns, rows, text_columns=(1, 5))
