"""results.json (schema version 1, results.schema.json; fields in tune/README.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from jiffy_tune import adaptive
from jiffy_tune._version import __version__
from jiffy_tune.model import Environment, Point, Recommendation, RunResults, Settings
from jiffy_tune.recommend import recommend_all
from jiffy_tune.runner import DEFAULT_CACHE
from jiffy_tune.server import ServerInfo
from jiffy_tune.snippets import Where
from jiffy_tune.summary import summarize, with_spread
from jiffy_tune.sweep import open_loop_results

SCHEMA_VERSION = 1
RESULTS_FILE = "results.json"


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def schema() -> dict[str, Any]:
    text = resources.files("jiffy_tune").joinpath("results.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def assemble(
    *,
    command: str,
    started: str,
    interrupted: bool,
    mode: str,
    targets_ms: Sequence[float],
    settings: Settings,
    server: ServerInfo,
    client_cpus: list[int] | None,
    environment: Environment,
    points: Sequence[Point],
    node_sdks: Sequence[str] = (),
    stopped: str | None = None,
) -> RunResults:
    """The whole results; summary, recommendations, open-loop results and
    the comparison of `auto` with the best fixed cap derived here.

    `node_sdks`: the SDKs run on node, measured with settings.node_options.
    `stopped`: why the sweep ended before its plan (the server went away), or None.
    """
    summary = summarize(points)
    open_loop = None
    recommendations: list[Recommendation] = []
    if mode == "open":
        open_loop = open_loop_results(summary, settings.sdks, settings.channels, targets_ms)
    else:
        flags = {sdk: settings.node_options for sdk in node_sdks}
        where = Where(
            endpoint=server.endpoint,
            cache=settings.cache,
            embedded=server.kind == "embedded",
            protosocket_endpoint=server.protosocket_endpoint,
        )
        recommendations = recommend_all(settings.sdks, summary, targets_ms, flags, where)
    return RunResults(
        schema_version=SCHEMA_VERSION,
        tool_name="jiffy-tune",
        tool_version=__version__,
        command=command,
        started=started,
        finished=utc_now(),
        interrupted=interrupted,
        stopped=stopped,
        mode=mode,
        targets_ms=[float(t) for t in targets_ms],
        settings=settings,
        server=server,
        client_cpus=client_cpus,
        environment=environment,
        points=list(points),
        summary=summary,
        recommendations=recommendations,
        open_loop=open_loop,
        auto_comparison=adaptive.compare(summary, targets_ms, mode),
    )


def write(out_dir: Path, results: RunResults) -> Path:
    """Write results.json whole (via a temporary file, so a reader never sees half)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / RESULTS_FILE
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(results.as_json(), indent=1) + "\n")
    os.replace(partial, path)
    return path


def load(path: Path) -> RunResults:
    """A saved results.json (FieldError: which field is wrong; ValueError: not JSON)."""
    return parse(json.loads(path.read_text(encoding="utf-8")))


def parse(value: object) -> RunResults:
    """Results as decoded from results.json (FieldError: which field is wrong)."""
    results = RunResults.from_json(value, default_cache=DEFAULT_CACHE)
    points = results.points
    return replace(
        results,
        summary=[with_spread(entry, points) for entry in results.summary],
        recommendations=[
            rec if rec.point is None else replace(rec, point=with_spread(rec.point, points))
            for rec in results.recommendations
        ],
    )
