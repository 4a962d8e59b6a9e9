"""report.html in a real browser: headless Chromium (the Debian package) opens it from disk.

Playwright drives the system Chromium through `executable_path`; it never
downloads a browser. Without a chromium binary the test is skipped on a
developer machine and fails under CI (CI=true), where `.ci/run` installs it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import measured, parsed

from jiffy_tune.report import ReportFiles, charts, write_report
from jiffy_tune.report import formatting as fmt

FIXTURES = Path(__file__).parent / "fixtures"
CHROMIUM_NAMES = ("chromium", "chromium-browser")
CHART_WIDTH = int(charts.FIGSIZE[0] * charts.DPI)

# Everything the page shows, read from the live DOM after load.
PAGE_STATE_JS = """() => ({
  images: Array.from(document.querySelectorAll("img.chart")).map((img) => ({
    alt: img.alt, complete: img.complete, width: img.naturalWidth, height: img.naturalHeight,
  })),
  recommendations: Array.from(document.querySelectorAll("table#recommendations tbody tr"))
    .map((tr) => Array.from(tr.cells).map((td) => td.textContent.trim())),
  summaryRows: document.querySelectorAll("table#summary tbody tr").length,
  // Per table: its headers, their tooltips, and the legend that follows it.
  tables: Array.from(document.querySelectorAll("table")).map((table) => {
    const legend = document.querySelector(`details.legend[data-table="${table.id}"]`);
    return {
      id: table.id,
      headers: Array.from(table.tHead.rows[0].cells).map((th) => th.textContent.trim()),
      titles: Array.from(table.tHead.rows[0].cells).map((th) => th.title),
      legend: legend
        ? Array.from(legend.querySelectorAll("dt")).map((dt) => dt.textContent.trim())
        : null,
      legendShown: legend ? legend.getBoundingClientRect().height > 0 : false,
    };
  }),
  summaryOverflow: (() => {
    const wrap = document.querySelector("table#summary").parentElement;
    return wrap.scrollWidth - wrap.clientWidth;
  })(),
})"""


def chromium_path() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed; CI must install it (Debian package chromium)")
    pytest.skip("chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if os.environ.get("CI"):
        from playwright.sync_api import sync_playwright
    else:
        sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True)
        yield launched
        launched.close()


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def open_report(browser: Any, files: ReportFiles, screenshot: Path) -> dict[str, Any]:
    """Loads report.html from file://, saves a screenshot, returns the page state."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(files.html.as_uri(), wait_until="load")
    state: dict[str, Any] = page.evaluate(PAGE_STATE_JS)
    state["title"] = page.title()
    state["requested"] = requested
    page.screenshot(path=str(screenshot), full_page=True)
    page.close()
    return state


@pytest.mark.parametrize(
    ("fixture", "rounds"),
    [
        ("report_results.json", 2),
        ("report_results.json", 3),
        ("report_results_open.json", 1),
        ("closed_transports.json", 3),
    ],
)
def test_report_renders_in_chromium(
    browser: Any, tmp_path: Path, fixture: str, rounds: int
) -> None:
    results = load(fixture)
    if rounds == 3:
        results = measured(results)
    files = write_report(tmp_path, parsed(results))
    screenshot = tmp_path / "report.png"

    state = open_report(browser, files, screenshot)

    env = results["environment"]
    assert state["title"].startswith("jiffy-tune report: ")
    assert state["title"].endswith(f" on {env['hostname']}")
    # Nothing but the file itself: the charts are inline, there is no CSS or script to fetch.
    assert [url for url in state["requested"] if not url.startswith("data:")] == [
        files.html.as_uri()
    ]
    images = state["images"]
    assert len(images) == len(files.charts)
    for img in images:
        assert img["complete"], img["alt"]
        assert img["width"] == CHART_WIDTH, img["alt"]
        assert img["alt"]
    wanted = [(rec["sdk"], fmt.target(rec["target_ms"])) for rec in results["recommendations"]]
    assert [(row[0], row[1]) for row in state["recommendations"]] == wanted
    assert len(wanted) == len(results["settings"]["sdks"]) * len(results["targets_ms"])
    for row, rec in zip(state["recommendations"], results["recommendations"], strict=True):
        if rec["met"] and rounds >= 3:
            # The median, and under it the lowest and highest round.
            median, low_to_high = row[6].splitlines()
            assert median == fmt.rps(rec["point"]["rps"])
            assert re.fullmatch(r"[\d,]+-[\d,]+ rps", low_to_high)
        elif rec["met"]:
            assert row[2].startswith(f"{rec['sdk']}: not enough rounds to recommend: ")
        else:
            assert row[2] == rec["statement"]
    # Every column is explained: a tooltip on its header and a line in the legend under it.
    assert {"recommendations", "summary"} <= {table["id"] for table in state["tables"]}
    for table in state["tables"]:
        assert all(table["titles"]), table["id"]
        assert table["legend"] == table["headers"], table["id"]
        assert table["legendShown"], table["id"]
    assert state["summaryRows"] == len(results["summary"])
    # The widest table fits a 1280-pixel window without a horizontal scroll.
    assert state["summaryOverflow"] <= 0
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
