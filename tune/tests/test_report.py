"""The report writer on recorded results: files, tables, sentences, ratios, charts, HTML."""

from __future__ import annotations

import base64
import copy
import json
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import measured, parsed
from matplotlib import image

from jiffy_tune import report
from jiffy_tune.recommend import by_transport
from jiffy_tune.report import ReportFiles, charts
from jiffy_tune.report import formatting as fmt
from jiffy_tune.report.comparison import ratios, setting

FIXTURES = Path(__file__).parent / "fixtures"
SCHEMA = Path(__file__).parents[1] / "src" / "jiffy_tune" / "results.schema.json"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# The fixtures predate the transport dimension: every SDK ran on its default,
# which the report names.
DEFAULT_TRANSPORT = {
    "jiffy-python": "grpc",
    "jiffy-js": "http2",
    "momento-python": "grpc",
    "momento-js": "grpc",
}
CHART_SIZE = (int(charts.FIGSIZE[0] * charts.DPI), int(charts.FIGSIZE[1] * charts.DPI))


def write_report(out_dir: Path, results: dict[str, Any]) -> ReportFiles:
    """The report of a results dictionary (a recorded run, perhaps edited)."""
    return report.write_report(out_dir, parsed(results))


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


@pytest.fixture
def closed() -> dict[str, Any]:
    return load("report_results.json")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], ReportFiles]:
    """The closed-loop fixture rendered once, for the tests that only read the files, with
    the 3 rounds a recommendation takes (the noisy case has tests of its own)."""
    results = measured(load("report_results.json"))
    return results, write_report(tmp_path_factory.mktemp("report"), copy.deepcopy(results))


@pytest.fixture
def open_loop() -> dict[str, Any]:
    return load("report_results_open.json")


class Page(HTMLParser):
    """Collects what the HTML tests look at: attributes, table rows, script tags."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.attributes: list[tuple[str, str, str]] = []
        self.tags: list[str] = []
        self.rows: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            self.attributes.append((tag, name, value or ""))
        if tag == "table":
            self._table = dict(attrs).get("id") or ""
            self.rows[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._table is not None and self._row:
            self.rows[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which the PNG format puts first."""
    assert data[:8] == PNG_MAGIC
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("name", ["report_results.json", "report_results_open.json"])
def test_fixtures_follow_the_results_schema(name: str) -> None:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator(schema).validate(load(name))


def test_write_report_writes_markdown_html_and_one_chart_per_sdk_plus_two(
    written: tuple[dict[str, Any], ReportFiles],
) -> None:
    closed, files = written
    out_dir = files.markdown.parent

    assert files.markdown == out_dir / "report.md"
    assert files.html == out_dir / "report.html"
    assert files.markdown.stat().st_size > 0
    assert files.html.stat().st_size > 0
    assert len(files.charts) == len(closed["settings"]["sdks"]) + 2
    assert all(path.parent == out_dir / "charts" for path in files.charts)


def test_charts_are_png_files_of_the_chart_size(
    written: tuple[dict[str, Any], ReportFiles],
) -> None:
    _, files = written

    for path in files.charts:
        assert png_size(path.read_bytes()) == CHART_SIZE
        pixels = image.imread(path)
        assert (pixels.shape[1], pixels.shape[0]) == CHART_SIZE
        # A chart that drew nothing would be one flat colour.
        assert pixels.std() > 0.05


def rounds_of(run: dict[str, Any], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The ok points behind a summary entry."""
    key = ("sdk", "channels", "concurrency", "max_concurrent_requests")
    return [p for p in run["points"] if p["status"] == "ok" and all(p[k] == entry[k] for k in key)]


def test_markdown_has_a_row_per_recommendation(written: tuple[dict[str, Any], ReportFiles]) -> None:
    closed, files = written
    markdown = files.markdown.read_text()

    for rec in closed["recommendations"]:
        head = f"| {rec['sdk']} | {fmt.target(rec['target_ms'])} |"
        point = rec["point"]
        if rec["met"]:
            # The range of the rounds behind each median, from the points themselves
            # (the fixture was written before results.json kept it).
            rounds = rounds_of(closed, point)
            rps = sorted(p["rps"] for p in rounds)
            p999 = sorted(p["client_ms"]["p999"] for p in rounds)
            expected = (
                f"{head} {DEFAULT_TRANSPORT[rec['sdk']]} | {point['channels']} | "
                f"{fmt.cap(point['max_concurrent_requests'])} | {point['concurrency']} | "
                f"{fmt.rps(point['rps'])} ({rps[0]:,.0f}-{rps[-1]:,.0f} rps) | "
                f"{fmt.ms(point['client_ms']['p999'])} "
                f"({p999[0]:.2f}-{fmt.ms(p999[-1])}) | {fmt.ms(point['server_ms']['p999'])} | "
                f"{fmt.share(point['client_share_p999'])} | 3 |"
            )
        else:
            expected = f"{head} {rec['statement']} |"
        assert expected in markdown


def test_unmet_target_is_stated_not_left_blank(written: tuple[dict[str, Any], ReportFiles]) -> None:
    closed, files = written
    unmet = [rec for rec in closed["recommendations"] if not rec["met"]]
    assert unmet, "the fixture must hold an unmet target"

    markdown = files.markdown.read_text()

    for rec in unmet:
        assert rec["statement"] in markdown
        # No preset is offered for a target nothing met.
        assert f"### {rec['sdk']}, {fmt.target(rec['target_ms'])}" not in markdown


def test_ratios_are_ours_over_official_where_both_met(closed: dict[str, Any]) -> None:
    met = {(r["sdk"], r["target_ms"]): r["point"] for r in closed["recommendations"] if r["met"]}

    found = {(r.ours, r.official, r.target_ms): r for r in ratios(parsed(closed))}

    expected_keys = {
        (ours, official, target)
        for ours, official in (("jiffy-python", "momento-python"), ("jiffy-js", "momento-js"))
        for target in closed["targets_ms"]
        if (ours, target) in met and (official, target) in met
    }
    assert set(found) == expected_keys
    assert ("jiffy-js", "momento-js", 5.0) not in found  # momento-js met nothing under 5 ms
    for (ours, official, target), ratio in found.items():
        assert ratio.rps_ratio == pytest.approx(
            met[ours, target]["rps"] / met[official, target]["rps"]
        )
        assert ratio.mine.entry.concurrency == met[ours, target]["concurrency"]
        assert ratio.theirs.entry.concurrency == met[official, target]["concurrency"]
        assert ratio.p999_ratio == pytest.approx(
            met[ours, target]["client_ms"]["p999"] / met[official, target]["client_ms"]["p999"]
        )


def test_markdown_shows_each_ratio_and_why_one_is_missing(
    written: tuple[dict[str, Any], ReportFiles],
) -> None:
    closed, files = written
    markdown = files.markdown.read_text()

    for ratio in ratios(parsed(closed)):
        assert (
            f"| {ratio.ours} / {ratio.official} | {fmt.target(ratio.target_ms)} | "
            f"{setting(ratio.mine.entry, False)} | {setting(ratio.theirs.entry, False)} | "
            f"{fmt.rps(ratio.mine.rps)} / {fmt.rps(ratio.theirs.rps)} | "
            f"{fmt.ratio(ratio.rps_ratio)} |"
        ) in markdown
    assert "No ratio: momento-js met no configuration under 5 ms." in markdown


def test_no_comparison_when_no_official_sdk_ran(tmp_path: Path, closed: dict[str, Any]) -> None:
    closed["settings"]["sdks"] = ["jiffy-python"]
    closed["summary"] = [e for e in closed["summary"] if e["sdk"] == "jiffy-python"]
    closed["recommendations"] = [r for r in closed["recommendations"] if r["sdk"] == "jiffy-python"]

    files = write_report(tmp_path, closed)

    assert "Ours beside the official SDKs" not in files.markdown.read_text()
    assert len(files.charts) == 3


def test_markdown_lists_presets_and_links_charts(
    written: tuple[dict[str, Any], ReportFiles],
) -> None:
    closed, files = written
    markdown = files.markdown.read_text()

    for rec in closed["recommendations"]:
        if rec["preset"] is not None:
            assert rec["preset"]["code"].rstrip() in markdown
    for path in files.charts:
        assert f"](charts/{path.name})" in markdown


def test_markdown_says_what_was_run(written: tuple[dict[str, Any], ReportFiles]) -> None:
    closed, files = written
    markdown = files.markdown.read_text()
    env = closed["environment"]

    assert markdown.startswith(f"# jiffy-tune report: 2026-11-21 05:02 UTC on {env['hostname']}")
    assert f"`{closed['command']}`" in markdown
    for fact in (env["cpu_model"], env["os"], env["python"], env["node"], env["git_commit"]):
        assert fact in markdown
    for sdk, version in env["sdk_versions"].items():
        assert f"{sdk} {version}" in markdown
    assert "pinned to CPU 0" in markdown
    assert "pinned to CPU 1" in markdown


def test_summary_has_every_configuration(written: tuple[dict[str, Any], ReportFiles]) -> None:
    closed, files = written
    page = Page(files.html.read_text())

    rows = page.rows["summary"]
    assert len(rows) == len(closed["summary"])
    for row, entry in zip(rows, closed["summary"], strict=True):
        assert row[:2] == [entry["sdk"], DEFAULT_TRANSPORT[entry["sdk"]]]
        assert row[6] == fmt.rps(entry["rps"])
        assert row[9] == fmt.ms(entry["client_ms"]["p999"])


def test_failed_points_are_shown_with_their_error(
    written: tuple[dict[str, Any], ReportFiles],
) -> None:
    closed, files = written
    failed = [p for p in closed["points"] if p["status"] == "failed"]
    assert failed, "the fixture must hold a failed point"
    markdown = files.markdown.read_text()
    page = Page(files.html.read_text())

    assert f"{len(failed)} of {len(closed['points'])} points failed" in markdown
    assert [row[-1] for row in page.rows["failed-points"]] == [p["error"] for p in failed]
    for point in failed:
        assert point["error"] in markdown


STDERR = {
    "refused": "Traceback (most recent call last):\n[... 20 lines ...]\n"
    "jiffy.ConnectionError: could not connect to 127.0.0.1:9",
    "crash": "file:///x/loadgen.js:3\nError: <boom> with ``` inside",
}


def test_failed_points_show_the_first_and_last_lines_of_stderr_once_each(
    tmp_path: Path, closed: dict[str, Any]
) -> None:
    points = closed["points"][:4]
    for point, kind in zip(points, ["refused", "crash", "refused", "refused"], strict=True):
        point.update(
            status="failed",
            error=f"exit status 1: {STDERR[kind].splitlines()[-1]}",
            stderr_excerpt=STDERR[kind],
            rps=None,
            client_ms=None,
        )
    first, second = points[0]["id"], points[1]["id"]
    others = f"{points[2]['id']}, {points[3]['id']}"

    files = write_report(tmp_path, closed)
    markdown = files.markdown.read_text()
    html = files.html.read_text()
    page = Page(html)

    assert [row[-1] for row in page.rows["failed-points"]][:4] == [p["error"] for p in points]
    assert (
        f"### stderr of point {first} (also points {others})\n\n```text\n{STDERR['refused']}\n```"
    ) in markdown
    # A longer fence than the backticks inside, so the block is not cut short.
    assert f"### stderr of point {second}\n\n````text\n{STDERR['crash']}\n````" in markdown
    assert markdown.count("jiffy.ConnectionError: could not connect") == 1 + 3  # block + table
    assert f"<h3>stderr of point {first} (also points {others})</h3>" in html
    assert "Error: &lt;boom&gt; with ``` inside" in html


def test_a_sweep_stopped_early_says_why(tmp_path: Path, closed: dict[str, Any]) -> None:
    closed["stopped"] = "the server at 127.0.0.1:41873 went away (connection refused)"

    markdown = write_report(tmp_path, closed).markdown.read_text()

    assert (
        "> **Note:** This run stopped early: the server at 127.0.0.1:41873 went away "
        "(connection refused)."
    ) in markdown


def test_a_sweep_of_fewer_than_3_rounds_is_labelled_noisy_at_the_top(
    tmp_path: Path, closed: dict[str, Any]
) -> None:
    assert closed["settings"]["rounds"] == 2
    files = write_report(tmp_path, closed)
    markdown = files.markdown.read_text()
    notices = markdown.split("## What was run")[0]

    assert "> **Note:** Noisy: 2 rounds per point. Every figure is the median of only 2 runs" in (
        notices
    )
    assert "run again with --rounds 3 or more" in notices
    assert "Noisy: 2 rounds per point." in files.html.read_text()


def test_a_sweep_of_3_rounds_is_not_labelled_noisy(tmp_path: Path, closed: dict[str, Any]) -> None:
    closed["settings"]["rounds"] = 3
    for entry in closed["summary"]:
        entry["rounds_ok"] = 3
    for rec in closed["recommendations"]:
        if rec["point"] is not None:
            rec["point"]["rounds_ok"] = 3

    files = write_report(tmp_path, closed)

    assert "Noisy" not in files.markdown.read_text().split("## What was run")[0]
    met = [row for row in Page(files.html.read_text()).rows["recommendations"] if len(row) == 11]
    assert met
    assert all(row[-1] == "3" for row in met)


def header_row(markdown: str, starting: str) -> str:
    """The header row of the Markdown table whose header starts with `starting`."""
    lines = markdown.splitlines()
    [row] = [
        line
        for line, below in zip(lines, lines[1:], strict=False)
        if line.startswith(starting) and below.startswith("|") and set(below) <= set("|:-")
    ]
    return row


def test_every_comparison_table_says_which_direction_is_better(
    written: tuple[dict[str, Any], ReportFiles], tmp_path: Path, open_loop: dict[str, Any]
) -> None:
    _, files = written
    markdown = files.markdown.read_text()
    open_markdown = write_report(tmp_path, open_loop).markdown.read_text()

    recommendations = header_row(markdown, "| SDK | target | transport | channels |")
    for column in ("client p99.9", "server p99.9", "client share"):
        assert f"| {column} (lower is better) |" in recommendations
    assert "| throughput (higher is better) |" in recommendations
    ratio = header_row(markdown, "| ours / official | target |")
    assert "| throughput ratio (above 1: ours is higher, better) |" in ratio
    assert "| p99.9 ratio (below 1: ours is lower, better) |" in ratio
    assert "ratio above 1 means ours" not in markdown  # said by the headers themselves
    summary = header_row(markdown, "| SDK | transport | channels | cap | concurrency | rounds ok |")
    for column in ("client p50", "client p99", "client p99.9", "server p50", "errors"):
        assert f"| {column} (lower is better) |" in summary
    assert "| throughput (higher is better) |" in summary
    open_rows = header_row(open_markdown, "| SDK | transport | channels | target |")
    assert "| highest offered rate met (higher is better) |" in open_rows
    assert "| client p99.9 (lower is better) |" in open_rows


def test_request_errors_are_shown_by_status(written: tuple[dict[str, Any], ReportFiles]) -> None:
    closed, files = written
    with_errors = [p for p in closed["points"] if p["status"] == "ok" and p["errors_total"]]
    assert with_errors

    page = Page(files.html.read_text())

    assert len(page.rows["request-errors"]) == len(with_errors)
    for row, point in zip(page.rows["request-errors"], with_errors, strict=True):
        assert row[-1] == f"DEADLINE_EXCEEDED {point['errors']['DEADLINE_EXCEEDED']:,}"


def test_interrupted_run_says_so_first(tmp_path: Path, closed: dict[str, Any]) -> None:
    closed["interrupted"] = True
    closed["points"] = closed["points"][:30]

    files = write_report(tmp_path, closed)
    markdown = files.markdown.read_text()

    first_block = markdown.split("\n\n")[1]
    assert first_block.startswith("> **Note:** This run was interrupted")
    assert "the 30 points measured until then" in first_block
    assert "This run was interrupted" in files.html.read_text()


def test_not_interrupted_run_has_no_such_note(written: tuple[dict[str, Any], ReportFiles]) -> None:
    _, files = written
    assert "interrupted" not in files.markdown.read_text()


def without_server_latency(results: dict[str, Any]) -> dict[str, Any]:
    results = copy.deepcopy(results)
    results["server"].update(
        kind="external", endpoint="cache.internal:8080", metrics_url=None, binary=None,
        version=None, cpus=None,
    )  # fmt: skip
    results["client"]["cpus"] = None
    entries = [*results["points"], *results["summary"]]
    entries += [r["point"] for r in results["recommendations"] if r["point"] is not None]
    for entry in entries:
        entry["server_ms"] = None
        entry["client_share_p999"] = None
    return results


def test_external_server_without_metrics(tmp_path: Path, closed: dict[str, Any]) -> None:
    files = write_report(tmp_path, without_server_latency(measured(closed)))
    markdown = files.markdown.read_text()
    page = Page(files.html.read_text())

    assert "> **Note:** Server latency not measured: the server is external" in markdown
    assert "external server, at cache.internal:8080, not pinned" in markdown
    met_rows = [row for row in page.rows["recommendations"] if len(row) == 11]
    assert met_rows
    assert all(row[8] == fmt.MISSING and row[9] == fmt.MISSING for row in met_rows)
    assert len(files.charts) == len(closed["settings"]["sdks"]) + 2


def test_run_where_every_point_failed(tmp_path: Path, closed: dict[str, Any]) -> None:
    closed["points"] = closed["points"][:2]
    for point in closed["points"]:
        point.update(status="failed", error="loadgen not found", rps=None, client_ms=None)
    for entry in closed["summary"]:
        entry.update(rounds_ok=0, rounds_failed=1, rps=None, client_ms=None, server_ms=None)
    for rec in closed["recommendations"]:
        rec.update(met=False, point=None, preset=None, statement="No point was measured.")

    files = write_report(tmp_path, closed)

    assert files.charts == []
    markdown = files.markdown.read_text()
    assert "2 of 2 points failed" in markdown
    assert "## Charts" not in markdown
    assert "## Ready-to-paste presets" not in markdown


def test_open_loop_report(tmp_path: Path, open_loop: dict[str, Any]) -> None:
    files = write_report(tmp_path, open_loop)
    markdown = files.markdown.read_text()
    page = Page(files.html.read_text())

    assert len(files.charts) == len(open_loop["settings"]["sdks"]) + 2
    assert "| SDK | target | transport | channels | cap | offered rate |" in markdown
    assert "latency vs offered rate" in markdown
    assert len(page.rows["open-loop"]) == len(open_loop["open_loop"])
    for row, entry in zip(page.rows["open-loop"], open_loop["open_loop"], strict=True):
        assert row[:4] == [
            entry["sdk"],
            DEFAULT_TRANSPORT[entry["sdk"]],
            str(entry["channels"]),
            fmt.target(entry["target_ms"]),
        ]
        assert row[4] == fmt.rps(entry["max_rate_met"])


def test_html_is_self_contained(written: tuple[dict[str, Any], ReportFiles]) -> None:
    _, files = written
    page = Page(files.html.read_text())

    links = [(tag, name, value) for tag, name, value in page.attributes if name in ("src", "href")]
    assert not [link for link in links if not link[2].startswith("data:")]
    assert "script" not in page.tags
    assert "link" not in page.tags
    images = [value for tag, name, value in page.attributes if tag == "img" and name == "src"]
    prefix = "data:image/png;base64,"
    assert [base64.b64decode(src.removeprefix(prefix)) for src in images] == [
        path.read_bytes() for path in files.charts
    ]


def test_html_escapes_what_it_shows(tmp_path: Path, closed: dict[str, Any]) -> None:
    unmet = next(rec for rec in closed["recommendations"] if not rec["met"])
    unmet["statement"] = "<script>alert(1)</script> & more"

    text = write_report(tmp_path, closed).html.read_text()

    assert "<script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in text


def render_again(run_dir: Path) -> subprocess.CompletedProcess[str]:
    """`python -m jiffy_tune.report RUN_DIR`, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "jiffy_tune.report", str(run_dir)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_module_entry_point_renders_a_saved_run(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text((FIXTURES / "report_results.json").read_text())

    done = render_again(tmp_path)

    assert done.returncode == 0, done.stderr
    assert str(tmp_path / "report.html") in done.stdout
    assert (tmp_path / "report.md").exists()
    assert len(list((tmp_path / "charts").glob("*.png"))) == 6


def test_module_entry_point_without_results(tmp_path: Path) -> None:
    done = render_again(tmp_path)

    assert done.returncode == 2
    assert "results.json not found" in done.stderr


def test_module_entry_point_names_the_field_a_results_file_has_wrong(tmp_path: Path) -> None:
    results = load("report_results.json")
    results["points"][3]["channels"] = "two"
    (tmp_path / "results.json").write_text(json.dumps(results))
    done = render_again(tmp_path)

    assert done.returncode == 2
    assert "points[3].channels: expected a whole number, got a string ('two')" in done.stderr
    assert not (tmp_path / "report.md").exists()


# Runs recorded by jiffy-tune itself against a live server (short, on a 2-core machine).
RECORDED_RUNS = ["closed_4sdk.json", "open_2sdk.json"]


@pytest.mark.parametrize("name", RECORDED_RUNS)
def test_recorded_runs_render(tmp_path: Path, name: str) -> None:
    results = measured(load(name))

    files = write_report(tmp_path, results)
    page = Page(files.html.read_text())

    assert len(files.charts) == len(results["settings"]["sdks"]) + 2
    rows = page.rows["recommendations"]
    assert [(row[0], row[1]) for row in rows] == [
        (rec["sdk"], fmt.target(rec["target_ms"])) for rec in results["recommendations"]
    ]
    for row, rec in zip(rows, results["recommendations"], strict=True):
        if rec["met"]:
            assert row[2:4] == [DEFAULT_TRANSPORT[rec["sdk"]], str(rec["point"]["channels"])]
        else:
            assert row[2] == rec["statement"]
    assert len(page.rows["summary"]) == len(results["summary"])


def test_a_sweep_over_transports_compares_them(tmp_path: Path) -> None:
    results = load("closed_transports.json")  # a real run, over each SDK's transports
    jsonschema.validate(results, json.loads(SCHEMA.read_text()))
    results = measured(results)

    files = write_report(tmp_path, results)
    markdown = files.markdown.read_text()
    page = Page(files.html.read_text())

    # One latency chart per SDK and transport, then the two shared ones.
    latency = [
        "jiffy-python-over-grpc", "jiffy-python-over-protosocket",
        "jiffy-js-over-http2", "jiffy-js-over-protosocket", "momento-js",
    ]  # fmt: skip
    assert [path.name for path in files.charts] == [
        *(f"latency-{name}.png" for name in latency),
        "throughput.png",
        "latency-vs-throughput.png",
    ]
    assert "### jiffy-python over protosocket: latency vs concurrency" in markdown
    # Each transport's best, beside the recommendation that picks among them.
    run = parsed(results)
    compared = by_transport(run.settings.sdks, run.summary, run.targets_ms)
    assert [row[:3] for row in page.rows["transports"]] == [
        [r.sdk, fmt.target(r.target_ms), r.transport] for r in compared
    ]
    assert "## Each transport" in markdown
    for row, rec in zip(page.rows["recommendations"], results["recommendations"], strict=True):
        if rec["met"]:
            assert row[2] == rec["transport"] == rec["point"]["transport"]
    for row, entry in zip(page.rows["summary"], results["summary"], strict=True):
        assert row[:2] == [entry["sdk"], entry["transport"]]
    assert (
        "- **Transports:** jiffy-python: grpc, protosocket; jiffy-js: http2, protosocket; "
        "momento-js: grpc (each SDK's transports after its first at 1 channel only)"
    ) in markdown
    protosocket = results["server"]["protosocket_endpoint"]
    assert f"(protosocket port {protosocket})" in markdown
    for rec in results["recommendations"]:
        if rec["met"] and rec["transport"] == "protosocket":
            heading = f"### {rec['sdk']} over protosocket, {fmt.target(rec['target_ms'])}"
            assert heading in markdown
