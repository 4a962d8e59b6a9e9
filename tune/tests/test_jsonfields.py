"""Reading results.json by the records' type hints: each wrong field named by its path."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import recorded

from jiffy_tune import results
from jiffy_tune.jsonfields import FieldError
from jiffy_tune.runner import DEFAULT_CACHE


def edited(path: tuple[str | int, ...], value: object) -> dict[str, Any]:
    run = recorded("report_results.json")
    inner: Any = run
    for step in path[:-1]:
        inner = inner[step]
    inner[path[-1]] = value
    return run


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("schema_version",), None, "schema_version is null"),
        (("tool", "version"), 2, "tool.version: expected a string, got a number (2)"),
        (("client",), [], "client: expected an object, got an array"),
        (
            ("settings", "max_concurrent_requests"),
            [4, "all"],
            "settings.max_concurrent_requests[1]",
        ),
        (("settings", "transports"), {"jiffy-js": "grpc"}, "settings.transports.jiffy-js"),
        (
            ("environment", "sdk_versions", "jiffy-python"),
            1,
            "environment.sdk_versions.jiffy-python",
        ),
        (("points", 2, "client_ms", "p999"), "slow", "points[2].client_ms.p999: expected a number"),
        (("points", 0, "status"), None, "points[0].status is null"),
        (("summary", 1, "rounds_ok"), 1.5, "summary[1].rounds_ok: expected a whole number"),
        (("summary", 1, "server_ms"), 3, "summary[1].server_ms: expected an object, got a number"),
        (("recommendations", 0, "met"), "yes", "recommendations[0].met: expected true or false"),
    ],
)
def test_a_wrong_field_is_named_by_its_path(
    path: tuple[str | int, ...], value: object, message: str
) -> None:
    with pytest.raises(FieldError) as raised:
        results.parse(edited(path, value))
    assert str(raised.value).startswith(message), raised.value


def test_absent_fields_take_their_older_defaults() -> None:
    run = recorded("report_results.json")
    for name in ("workload", "cache", "delay_ms", "python_uvloop", "transports"):
        run["settings"].pop(name, None)
    del run["summary"][0]["rounds_failed"]
    del run["points"][0]["errors"]
    del run["client"]

    parsed = results.parse(run)

    assert parsed.settings.workload == "scalar"
    assert parsed.settings.cache == DEFAULT_CACHE
    assert (parsed.settings.delay_ms, parsed.settings.python_uvloop) == (0, False)
    assert parsed.settings.transports == {}
    assert parsed.summary[0].rounds_failed == 0
    assert parsed.points[0].errors == {}
    assert parsed.client_cpus is None
