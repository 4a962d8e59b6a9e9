"""latest() carries the knobs its jiffy-tune report recommended, and says which report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jiffy import presets

REPO = Path(__file__).resolve().parents[3]
# The preset each p99.9 target's recommendation feeds (jiffy-tune's own rule:
# in_region for targets of 10 ms and more, low_latency below).
PRESET_FOR_TARGET = {20.0: presets.in_region, 5.0: presets.low_latency}


def recommendation(report: str, target_ms: float) -> dict[str, Any]:
    results = json.loads((REPO / report / "results.json").read_text())
    [found] = [
        r
        for r in results["recommendations"]
        if r["sdk"] == "jiffy-python" and r["target_ms"] == target_ms
    ]
    return found


@pytest.mark.parametrize("target_ms", list(PRESET_FOR_TARGET))
def test_latest_is_the_reports_recommendation(target_ms: float) -> None:
    preset = PRESET_FOR_TARGET[target_ms]
    assert preset.measured_in is not None
    assert (REPO / preset.measured_in / "report.md").is_file()
    chosen = recommendation(preset.measured_in, target_ms)
    assert chosen["met"], chosen["statement"]
    latest = preset.latest()
    assert latest.channels == chosen["point"]["channels"]
    assert latest.max_concurrent_requests == chosen["point"]["max_concurrent_requests"]
    # Reports from before jiffy-tune swept transports name none: every SDK ran on gRPC.
    assert preset.measured_transport == chosen["point"].get("transport", "grpc")


def test_latest_changes_only_the_measured_knobs() -> None:
    for preset in PRESET_FOR_TARGET.values():
        latest, v1 = preset.latest(), preset.v1()
        assert (
            latest.replace(channels=v1.channels, max_concurrent_requests=v1.max_concurrent_requests)
            == v1
        )


@pytest.mark.parametrize("preset", [presets.laptop, presets.lambda_])
def test_unmeasured_presets_say_so(preset: presets.Preset) -> None:
    assert preset.measured_in is None
    assert preset.measured_transport is None
    assert preset.latest() == preset.v1()
