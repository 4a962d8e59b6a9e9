from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from jiffy_tune import results
from jiffy_tune.jsonfields import read
from jiffy_tune.model import Point, RunResults, SummaryEntry

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def recorded(name: str) -> dict[str, Any]:
    """A fresh copy of a recorded results file, safe to edit."""
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return copy.deepcopy(loaded)


@pytest.fixture
def closed_run() -> dict[str, Any]:
    """Four SDKs, c=1,10, ch=1,2, two rounds (a real run, trimmed)."""
    return recorded("closed_4sdk.json")


@pytest.fixture
def open_run() -> dict[str, Any]:
    """jiffy-python and jiffy-js stepped from 2,000/s by x2 (a real run, trimmed)."""
    return recorded("open_2sdk.json")


def parsed(run: dict[str, Any]) -> RunResults:
    """A results dictionary (a recorded run, perhaps edited) as the run's results."""
    return results.parse(run)


def points(run: dict[str, Any]) -> list[Point]:
    """The points of a results dictionary, as the sweep makes them."""
    return [read(Point, p, "point") for p in run["points"]]


def as_entry(value: dict[str, Any]) -> SummaryEntry:
    return read(SummaryEntry, value, "entry")


def measured(run: dict[str, Any]) -> dict[str, Any]:
    """A recorded run as if each configuration had the 3 ok rounds a recommendation takes."""
    run["settings"]["rounds"] = 3
    for entry in run["summary"]:
        entry["rounds_ok"] = 3
    for rec in run["recommendations"]:
        rec["noisy"] = False
        if rec["point"] is not None:
            rec["point"]["rounds_ok"] = 3
    return run
