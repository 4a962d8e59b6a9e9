"""deploy/grafana/jiffy-server.json against the metrics a real server exports.

A jiffy-server is started and sent calls that make every labelled family
appear (a hit, a miss, a failing call), then its /metrics is scraped: every
metric a query of the dashboard names must be exported, and every label a
query selects or groups by must be one those metrics carry (or one
Prometheus adds: instance, job; le for a histogram's buckets).
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jiffy
import pytest
from deploy_harness import metrics_server

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "deploy" / "grafana" / "jiffy-server.json"
# Labels Prometheus attaches when it scrapes, and a histogram's bucket bound.
ADDED_LABELS = {"instance", "job", "le"}
METRIC = re.compile(r"\b((?:jiffy|process)_[a-z0-9_]+)\b")
SELECTOR = re.compile(r"\b((?:jiffy|process)_[a-z0-9_]+)\{([^}]*)\}")
GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """Each series name /metrics exports, with the label names its samples carry."""
    log = tmp_path_factory.mktemp("grafana") / "server.log"
    with metrics_server(log) as (data, metrics):
        endpoint = jiffy.Endpoint.parse(data)
        with jiffy.CacheClient(endpoint, default_cache="dash") as client:
            client.create_cache("dash")
            client.set("k", "v")
            assert client.get("k") == b"v"
            assert client.get("absent") is None
            with pytest.raises(jiffy.CacheError):
                client.get("k", cache="no-such-cache")
        with urllib.request.urlopen(f"http://{metrics}/metrics", timeout=5) as reply:
            text = reply.read().decode()
    series: dict[str, set[str]] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, _, labels = line.split(" ")[0].partition("{")
        series.setdefault(name, set()).update(re.findall(r"(\w+)=\"", labels))
    return series


def queries() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    found = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            found.append(variable["query"]["query"])
    return found


def walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def test_dashboard_is_grafana_json_with_queries_on_one_datasource() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] == "jiffy-server"
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    assert len(panels) >= 10
    for panel in panels:
        assert panel["targets"], panel["title"]
        assert panel["description"], panel["title"]
    sources = [n["datasource"] for n in walk(dashboard) if isinstance(n.get("datasource"), dict)]
    assert {source["uid"] for source in sources} == {"${datasource}"}


def test_every_metric_a_query_names_is_exported(exported: dict[str, set[str]]) -> None:
    assert "jiffy_requests_total" in exported
    for query in queries():
        names = set(METRIC.findall(query))
        assert names, f"no metric in {query}"
        missing = names - exported.keys()
        assert not missing, f"{query}: the server exports no {sorted(missing)}"


def test_every_label_a_query_uses_is_on_its_metrics(exported: dict[str, set[str]]) -> None:
    for query in queries():
        carried = set().union(*(exported[name] for name in METRIC.findall(query)))
        for name, matchers in SELECTOR.findall(query):
            used = set(re.findall(r"(\w+)\s*(?:=~|!~|!=|=)", matchers))
            assert used - ADDED_LABELS <= exported[name], f"{query}: {name} has {exported[name]}"
        for grouping in GROUPING.findall(query):
            used = {label.strip() for label in grouping.split(",") if label.strip()}
            assert used - ADDED_LABELS <= carried, f"{query}: no {used - carried}"
