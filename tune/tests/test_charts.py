"""The charts, measured where matplotlib will draw them: labels off the data, every line
readable, legends that tell lines apart. Bounding boxes come from the Agg renderer
that writes the PNG, after constrained layout has placed everything."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from conftest import measured, parsed, recorded
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

from jiffy_tune.report import chart_layout
from jiffy_tune.report.charts import Drawn, build_figures

FIXTURES = ["report_results.json", "report_results_open.json", "closed_transports.json"]
# Two lines whose values differ by this factor must be this many pixels apart.
DISTINCT_FACTOR = 1.5
DISTINCT_PX = 10.0


def figures(name: str) -> list[Drawn]:
    return build_figures(parsed(measured(recorded(name))))


def target_labels(figure: Figure) -> list[Annotation]:
    [axes] = figure.axes
    return [
        t for t in axes.texts if isinstance(t, Annotation) and t.get_text().startswith("target")
    ]


def data_lines(axes: Axes) -> list[Line2D]:
    """The lines of measured data (not the targets' lines across the plot)."""
    return [line for line in axes.get_lines() if line.get_transform() is axes.transData]


def boxes(figure: Figure) -> tuple[Bbox, list[Bbox], list[Bbox]]:
    """The plot area, each target label and each legend, in pixels, as drawn."""
    renderer = chart_layout.laid_out(figure)
    [axes] = figure.axes
    labels = [label.get_window_extent(renderer) for label in target_labels(figure)]
    legends = [legend.get_window_extent(renderer) for legend in figure.legends]
    return axes.get_window_extent(renderer), labels, legends


def with_targets(name: str, targets: list[float]) -> list[Drawn]:
    run = measured(recorded(name))
    run["targets_ms"] = targets
    return build_figures(parsed(run))


@pytest.mark.parametrize("name", FIXTURES)
def test_target_labels_are_outside_the_data_and_apart(name: str) -> None:
    drawn = figures(name)
    labelled = [d for d in drawn if target_labels(d.figure)]
    assert labelled, "the latency charts carry the targets"
    for chart in labelled:
        plot, labels, legends = boxes(chart.figure)
        figure_box = chart.figure.bbox
        for label in labels:
            assert not label.overlaps(plot), chart.title
            assert label.x1 <= figure_box.x1, chart.title
            assert label.y0 >= 0, chart.title
            assert not any(label.overlaps(legend) for legend in legends), chart.title
        for one, other in itertools.combinations(labels, 2):
            assert not one.overlaps(other), chart.title


def test_close_targets_are_pushed_apart() -> None:
    # 5 and 5.2 ms are one text height apart at most on a log axis: they would overlap.
    for chart in with_targets("report_results.json", [5.0, 5.2, 20.0]):
        _, labels, _ = boxes(chart.figure)
        for one, other in itertools.combinations(labels, 2):
            assert not one.overlaps(other), chart.title


def _pixels(line: Line2D) -> dict[float, float]:
    """A line's points as x value -> y in pixels."""
    axes = line.axes
    assert axes is not None
    xs, ys = line.get_xdata(), line.get_ydata()
    return {
        float(x): float(axes.transData.transform((x, y))[1])
        for x, y in zip(xs, ys, strict=True)  # type: ignore[call-overload]
    }


def _values(line: Line2D) -> dict[float, float]:
    return {float(x): float(y) for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)}  # type: ignore[call-overload]


def assert_lines_distinct(chart: Drawn) -> None:
    """Where two lines differ by DISTINCT_FACTOR at the same x, they are DISTINCT_PX apart."""
    chart_layout.laid_out(chart.figure)
    [axes] = chart.figure.axes
    lines = data_lines(axes)
    for one, other in itertools.combinations(lines, 2):
        values, others = _values(one), _values(other)
        pixels, other_pixels = _pixels(one), _pixels(other)
        for x in values.keys() & others.keys():
            low, high = sorted((values[x], others[x]))
            if low > 0 and high / low >= DISTINCT_FACTOR:
                assert abs(pixels[x] - other_pixels[x]) >= DISTINCT_PX, (chart.title, x, low, high)


@pytest.mark.parametrize("name", FIXTURES)
def test_throughput_lines_far_apart_are_each_readable(name: str) -> None:
    [chart] = [d for d in figures(name) if d.file_name == "throughput.png"]
    assert_lines_distinct(chart)


def test_lines_an_order_of_magnitude_apart_get_a_log_scale() -> None:
    run = measured(recorded("report_results.json"))
    for entry in run["summary"]:
        if entry["sdk"] == "momento-js" and entry["rps"]:
            entry["rps"] /= 40  # ~70 rps beside ~19,000: flat at zero on a linear axis
    drawn = build_figures(parsed(run))
    [throughput] = [d for d in drawn if d.file_name == "throughput.png"]
    [axes] = throughput.figure.axes
    assert axes.get_yscale() == "log"
    assert_lines_distinct(throughput)
    [against] = [d for d in drawn if d.file_name == "latency-vs-throughput.png"]
    assert against.figure.axes[0].get_xscale() == "log"


def test_lines_of_one_magnitude_keep_a_linear_scale_from_zero() -> None:
    run = measured(recorded("report_results.json"))
    ours = {"jiffy-python", "jiffy-js"}
    run["settings"]["sdks"] = sorted(ours)
    run["summary"] = [e for e in run["summary"] if e["sdk"] in ours and e["concurrency"] > 1]
    [throughput] = [d for d in build_figures(parsed(run)) if d.file_name == "throughput.png"]
    [axes] = throughput.figure.axes
    assert axes.get_yscale() == "linear"
    assert axes.get_ylim()[0] == 0


def legend_labels(legend: Legend) -> list[str]:
    return [text.get_text() for text in legend.get_texts()]


def auto_figures() -> list[Drawn]:
    """A run with auto beside fixed caps on 1 and 2 channels: it has a limit chart."""
    from test_adaptive import _assembled, with_auto

    drawn = build_figures(_assembled(with_auto(recorded("closed_4sdk.json"), {"jiffy-python": 1})))
    assert "auto-limit.png" in [d.file_name for d in drawn]
    return drawn


@pytest.mark.parametrize("name", [*FIXTURES, "auto"])
def test_legends_name_what_differs_between_lines(name: str) -> None:
    for chart in auto_figures() if name == "auto" else figures(name):
        for legend in chart.figure.legends:
            labels = legend_labels(legend)
            assert len(labels) >= 2, chart.title  # one entry would tell nothing apart
            assert len(set(labels)) == len(labels), chart.title
            parts = [set(label.split(", ")) for label in labels]
            assert not set.intersection(*parts), (chart.title, labels)


@pytest.mark.parametrize("name", FIXTURES)
def test_every_line_of_a_chart_of_every_sdk_is_in_its_legend(name: str) -> None:
    for chart in figures(name):
        if chart.file_name not in ("throughput.png", "latency-vs-throughput.png"):
            continue
        [legend] = chart.figure.legends
        [axes] = chart.figure.axes
        assert len(legend_labels(legend)) == len(data_lines(axes)), chart.title


def test_one_line_has_no_legend_and_its_title_says_what_it_is() -> None:
    run = measured(recorded("report_results.json"))
    run["settings"]["sdks"] = ["jiffy-python"]
    run["summary"] = [
        e for e in run["summary"] if e["sdk"] == "jiffy-python" and e["channels"] == 1
    ]
    drawn = {d.file_name: d for d in build_figures(parsed(run))}
    throughput = drawn["throughput.png"]
    assert throughput.figure.legends == []
    assert throughput.figure.axes[0].get_title() == (
        "Throughput vs concurrency (jiffy-python, 1 channel)"
    )
    latency = drawn["latency-jiffy-python.png"]
    # One channel count: no colour legend, the title names it; the line styles remain.
    assert [legend.get_title().get_text() for legend in latency.figure.legends] == ["line"]
    assert latency.figure.axes[0].get_title().endswith("(1 channel)")


def test_names_split_shared_parts_from_differing_ones() -> None:
    labels, shared = chart_layout.names([("jiffy-python", "1 channel"), ("jiffy-js", "1 channel")])
    assert (labels, shared) == (["jiffy-python", "jiffy-js"], ["1 channel"])
    labels, shared = chart_layout.names([("a", "1 channel"), ("a", "2 channels")])
    assert (labels, shared) == (["1 channel", "2 channels"], ["a"])


def test_the_figures_drawn_are_the_files_written(tmp_path: Any) -> None:
    from jiffy_tune.report import write_report

    run = parsed(measured(recorded("report_results.json")))
    files = write_report(tmp_path, copy.deepcopy(run))
    assert [path.name for path in files.charts] == [d.file_name for d in build_figures(run)]


def test_each_swept_cap_is_a_line_of_its_own() -> None:
    # Auto beside fixed caps: one line per cap, not one line zig-zagging between them.
    [throughput] = [d for d in auto_figures() if d.file_name == "throughput.png"]
    [legend] = throughput.figure.legends
    labels = legend_labels(legend)
    assert "jiffy-python, 1 channel, cap auto" in labels
    assert "jiffy-python, 1 channel, cap 10" in labels
    [axes] = throughput.figure.axes
    for line in data_lines(axes):
        xs = list(line.get_xdata())  # type: ignore[arg-type]
        assert xs == sorted(set(xs)), "a line visits each load once"
