"""The report's PNG charts, drawn with matplotlib from the summary entries.

Three kinds, the ones the 2022 client-tuning study drew by hand:
* per SDK, client p50 / p99 / p99.9 and server p99.9 against load;
* throughput against load, every SDK on one chart;
* client p99.9 against throughput, every SDK on one chart;
and, for a sweep of `auto` beside fixed caps, the in-flight limit the
adaptive cap chose over the run of its best point, per SDK.
Load is concurrency in closed-loop runs and the offered rate in open-loop runs.
Every latency chart carries a line per target. An SDK swept over more than one
transport is drawn as one series per transport ("jiffy-python over
protosocket"), each with a chart of its own and lines of its own colour.

Figures are built with `matplotlib.figure.Figure` rather than pyplot: no global
figure state and no GUI backend, so rendering works headless and in threads.
Where labels and legends go, and when an axis is logarithmic, is
`chart_layout.py`'s: nothing is written over the data, every line can be told
from the others, and a legend names only what differs between its lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, NullFormatter
from matplotlib.typing import LineStyleType

from jiffy_tune import adaptive, caps, transports
from jiffy_tune.model import RunResults, SummaryEntry
from jiffy_tune.report import chart_layout as layout
from jiffy_tune.report import formatting as fmt

# Modest size: a demo run renders every chart each time, and the HTML embeds them.
FIGSIZE = (9.0, 5.0)
DPI = 100

SDK_COLORS = {
    "jiffy-python": "tab:blue",
    "momento-python": "tab:purple",
    "jiffy-js": "tab:orange",
    "momento-js": "tab:brown",
    # Our SDKs over each transport: the default keeps the SDK's colour.
    "jiffy-python over grpc": "tab:blue",
    "jiffy-python over protosocket": "tab:cyan",
    "jiffy-js over http2": "tab:orange",
    "jiffy-js over grpc-js": "tab:olive",
    "jiffy-js over protosocket": "tab:red",
}
OTHER_COLORS = ("tab:green", "tab:pink", "tab:gray", "tab:red", "tab:olive", "tab:cyan")
CHANNEL_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
CHANNEL_STYLES: tuple[LineStyleType, ...] = ("-", "--", ":", "-.")
CHANNEL_MARKERS = ("o", "s", "^", "D", "v", "P")

# One line style per percentile, the same on every per-SDK chart.
PERCENTILE_STYLES: tuple[tuple[str, str, LineStyleType], ...] = (
    ("client p50", "p50", ":"),
    ("client p99", "p99", "-."),
    ("client p99.9", "p999", "-"),
)
SERVER_STYLE: LineStyleType = (0, (5, 2))  # dashed, set apart from client p99
MAX_LOAD_TICKS = 10


@dataclass(frozen=True)
class Chart:
    path: Path
    title: str
    alt: str


@dataclass(frozen=True)
class Drawn:
    """A chart before it is saved: its figure, and the name of its file."""

    figure: Figure
    file_name: str
    title: str
    alt: str


@dataclass(frozen=True)
class _Load:
    """The x axis: concurrency (closed loop) or offered rate (open loop)."""

    key: str
    label: str
    noun: str


# A line of one series: its channel count and, when the sweep was given caps to
# sweep, its cap ("cap 25", "cap auto"; "" when each point's cap was its
# concurrency, which is no dimension of its own).
Variant = tuple[int, str]


@dataclass(frozen=True)
class _Plotted:
    """A summary entry on a chart, in its series: the SDK, or "SDK over TRANSPORT"
    for an SDK measured over more than one transport."""

    series: str
    entry: SummaryEntry
    cap: str = ""

    @property
    def variant(self) -> Variant:
        return (self.entry.channels, self.cap)

    @property
    def rps(self) -> float:
        return self.entry.rps or 0.0

    def x(self, key: str) -> float:
        return float(_load_value(self.entry, key) or 0.0)

    def client(self, key: str) -> float:
        client = self.entry.client_ms
        value = None if client is None else getattr(client, key)
        return float(value or 0.0)


def _load_value(entry: SummaryEntry, key: str) -> float | None:
    return entry.rate if key == "rate" else entry.concurrency


CONCURRENCY = _Load("concurrency", "concurrency (requests in flight, log scale)", "concurrency")
OFFERED_RATE = _Load("rate", "offered rate (requests/s, log scale)", "offered rate")


def draw_charts(charts_dir: Path, results: RunResults) -> list[Chart]:
    charts_dir.mkdir(parents=True, exist_ok=True)
    charts = []
    for drawn in build_figures(results):
        path = charts_dir / drawn.file_name
        drawn.figure.savefig(path, format="png")
        charts.append(Chart(path, drawn.title, drawn.alt))
    return charts


def build_figures(results: RunResults) -> list[Drawn]:
    """Every chart of the report, drawn but not saved."""
    load = OFFERED_RATE if results.open_mode else CONCURRENCY
    targets = [float(t) for t in results.targets_ms]
    swept_caps = results.settings.max_concurrent_requests is not None
    entries = _by_series([e for e in results.summary if _usable(e, load)], swept_caps)
    # Series in the SDKs' order, each SDK's transports in the order measured.
    sdk_of = {plotted.series: plotted.entry.sdk for plotted in entries}
    order = _ordered_sdks(results)
    sdks = sorted(sdk_of, key=lambda series: order.index(sdk_of[series]))
    drawn = []
    for sdk in sdks:
        own = [e for e in entries if e.series == sdk]
        drawn.append(_latency_chart(sdk, own, load, targets))
    if sdks:
        drawn.append(_throughput_chart(sdks, entries, load))
        drawn.append(_latency_vs_throughput_chart(sdks, entries, targets))
    limits = _limit_histories(results)
    if limits:
        drawn.append(_limit_chart(limits, float(results.settings.warmup_s)))
    return drawn


@dataclass(frozen=True)
class _Limits:
    # What the point was: the SDK (over its transport), channels, load and target.
    parts: tuple[str, str, str, str]
    history: list[tuple[float, float]]


def _limit_histories(results: RunResults) -> list[_Limits]:
    """Per (SDK, transport, channels) compared: the limit history of auto's best
    point under the largest target it met."""
    found: dict[tuple[str, str, int], _Limits] = {}
    rows = sorted(adaptive.of_results(results), key=lambda row: -row.target_ms)
    for row in rows:
        key = (row.sdk, row.transport, row.channels)
        if key in found:
            continue
        history = adaptive.limit_history(results, row)
        auto = row.auto
        if history and auto is not None:
            over = transports.named(row.sdk, row.transport)
            load = f"rate {auto.rate:,.0f}/s" if auto.rate is not None else f"c={auto.concurrency}"
            parts = (
                f"{row.sdk}{f' over {over}' if over else ''}",
                _channels_label(row.channels),
                load,
                fmt.target(row.target_ms),
            )
            found[key] = _Limits(parts, history)
    return list(found.values())


def _limit_chart(limits: list[_Limits], warmup_s: float) -> Drawn:
    figure, axes = _new_axes()
    handles = []
    for index, limit in enumerate(limits):
        (line,) = axes.step(
            [at for at, _ in limit.history],
            [value for _, value in limit.history],
            where="post",
            color=CHANNEL_COLORS[index % len(CHANNEL_COLORS)],
            linewidth=1.5,
        )
        handles.append(line)
    if warmup_s > 0:
        axes.axvline(warmup_s, color=layout.TARGET_COLOR, linewidth=1.0, linestyle=(0, (1, 1.5)))
        # Above the plot, not over the limit's line.
        axes.annotate(
            "measured from here",
            xy=(warmup_s, 1.0),
            xycoords=axes.get_xaxis_transform(),
            xytext=(0.0, 2.0),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=layout.FONT_SIZE,
            color=layout.TARGET_COLOR,
            annotation_clip=False,
        )
    axes.set_xlim(left=0)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("seconds since the load began (warm-up included)")
    axes.set_ylabel("in-flight limit (requests)")
    title = "auto: the in-flight limit over the run"
    labels, shared = layout.names([limit.parts for limit in limits])
    layout.legend(figure, handles, labels, "auto's best point")
    axes.set_title(f"{title}\n{', '.join(shared)}" if shared else title, pad=14)
    return Drawn(
        figure,
        "auto-limit.png",
        title,
        "the in-flight limit the adaptive cap chose, in requests, against seconds since the "
        "load began, for auto's best point of each SDK",
    )


def _usable(entry: SummaryEntry, load: _Load) -> bool:
    value = _load_value(entry, load.key)
    return entry.client_ms is not None and entry.rps is not None and value is not None and value > 0


def _by_series(entries: Sequence[SummaryEntry], swept_caps: bool) -> list[_Plotted]:
    """Each entry in its series: the SDK, or "SDK over TRANSPORT" for an SDK
    measured over more than one transport; with `swept_caps`, its cap too."""
    names: dict[str, set[str]] = {}
    for entry in entries:
        names.setdefault(entry.sdk, set()).add(entry.transport)
    return [
        _Plotted(
            f"{e.sdk} over {e.transport}" if len(names[e.sdk]) > 1 else e.sdk,
            e,
            f"cap {caps.label(e.max_concurrent_requests)}" if swept_caps else "",
        )
        for e in entries
    ]


def _ordered_sdks(results: RunResults) -> list[str]:
    sdks: list[str] = list(results.settings.sdks)
    for entry in results.summary:
        if entry.sdk not in sdks:
            sdks.append(entry.sdk)
    return sdks


def _sdk_color(sdk: str, sdks: Sequence[str]) -> str:
    if sdk in SDK_COLORS:
        return SDK_COLORS[sdk]
    others = [s for s in sdks if s not in SDK_COLORS]
    return OTHER_COLORS[others.index(sdk) % len(OTHER_COLORS)]


def _variants(entries: Iterable[_Plotted]) -> list[Variant]:
    """The lines each series may have, in order: by channels, then cap as swept."""
    found = list(dict.fromkeys(e.variant for e in entries))
    return sorted(found, key=lambda variant: variant[0])


def _variant_parts(variant: Variant) -> tuple[str, str]:
    channels, cap = variant
    return _channels_label(channels), cap


def _series(entries: Iterable[_Plotted], sdk: str, variant: Variant, x_key: str) -> list[_Plotted]:
    chosen = [e for e in entries if e.series == sdk and e.variant == variant]
    return sorted(chosen, key=lambda e: e.x(x_key))


def _file_name(stem: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") + ".png"


def _new_axes() -> tuple[Figure, Axes]:
    figure = layout.new_figure(FIGSIZE, DPI)
    axes = figure.subplots()
    axes.grid(True, which="major", color="0.85")
    axes.grid(True, which="minor", color="0.93", linewidth=0.6)
    axes.set_axisbelow(True)
    return figure, axes


def _log_load_axis(axes: Axes, entries: Iterable[_Plotted], load: _Load) -> None:
    """Log scale, with a tick at each swept value when there are few enough to read."""
    axes.set_xscale("log")
    values = sorted({e.x(load.key) for e in entries})
    if len(values) <= MAX_LOAD_TICKS:
        axes.set_xticks(values)
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
    axes.xaxis.set_minor_formatter(NullFormatter())


def _throughput_axis(axes: Axes, which: str, values: Sequence[float]) -> str:
    """Throughput on `which` axis: linear from zero, or logarithmic when the lines
    are too far apart for the lowest to show; returns the axis label."""
    if layout.wants_log(values):
        layout.log_axis(axes, which)
        return "throughput (requests/s, log scale)"
    if which == "x":
        axes.set_xlim(left=0)
        axes.xaxis.set_major_formatter("{x:,.0f}")
    else:
        axes.set_ylim(bottom=0)
        axes.yaxis.set_major_formatter("{x:,.0f}")
    return "throughput (requests/s)"


def _latency_chart(sdk: str, entries: list[_Plotted], load: _Load, targets: list[float]) -> Drawn:
    figure, axes = _new_axes()
    variants = _variants(entries)
    for index, variant in enumerate(variants):
        color = CHANNEL_COLORS[index % len(CHANNEL_COLORS)]
        series = _series(entries, sdk, variant, load.key)
        xs = [e.x(load.key) for e in series]
        for _, key, style in PERCENTILE_STYLES:
            ys = [e.client(key) for e in series]
            axes.plot(xs, ys, color=color, linestyle=style, marker="o", markersize=3.5)
        server = [
            (e.x(load.key), e.entry.server_p999) for e in series if e.entry.server_p999 is not None
        ]
        if server:
            axes.plot(
                [x for x, _ in server],
                [y for _, y in server],
                color=color,
                linestyle=SERVER_STYLE,
                marker="x",
                markersize=4,
            )
    labels = layout.draw_targets(axes, targets)
    _log_load_axis(axes, entries, load)
    layout.log_axis(axes, "y")
    axes.set_xlabel(load.label)
    axes.set_ylabel("latency (ms, log scale)")
    title = f"{sdk}: latency vs {load.noun}"
    # Colour tells channel counts (and caps) apart; what every line shares is in the title.
    names, shared = layout.names([_variant_parts(variant) for variant in variants])
    axes.set_title(layout.titled(title, shared))
    layout.legend(
        figure,
        [
            Line2D([], [], color=CHANNEL_COLORS[i % len(CHANNEL_COLORS)], linewidth=2)
            for i in range(len(variants))
        ],
        names,
        "colour",
    )
    style_handles = [Line2D([], [], color="0.2", linestyle=s) for _, _, s in PERCENTILE_STYLES]
    style_labels = [label for label, _, _ in PERCENTILE_STYLES]
    if any(e.entry.server_p999 is not None for e in entries):
        style_handles.append(Line2D([], [], color="0.2", linestyle=SERVER_STYLE, marker="x"))
        style_labels.append("server p99.9")
    layout.legend(figure, style_handles, style_labels, "line", "outside right lower")
    layout.separate(figure, labels)
    return Drawn(
        figure,
        _file_name(f"latency-{sdk}"),
        title,
        f"{sdk}: client p50, p99 and p99.9 and server p99.9 in ms against {load.noun}, "
        f"one colour per channel count, with the p99.9 targets",
    )


def _channels_label(channels: int) -> str:
    return fmt.plural(channels, "channel")


def _pair_styles(index: int) -> tuple[LineStyleType, str]:
    style = CHANNEL_STYLES[index % len(CHANNEL_STYLES)]
    return style, CHANNEL_MARKERS[index % len(CHANNEL_MARKERS)]


@dataclass(frozen=True)
class _Line:
    """One line of a chart of every SDK: its series and variant, its points."""

    series: str
    variant: Variant
    index: int
    points: list[_Plotted]


def _lines(sdks: list[str], entries: list[_Plotted], x_key: str) -> list[_Line]:
    lines = []
    for sdk in sdks:
        for index, variant in enumerate(_variants(entries)):
            series = _series(entries, sdk, variant, x_key)
            if series:
                lines.append(_Line(sdk, variant, index, series))
    return lines


def _plot_lines(
    figure: Figure,
    axes: Axes,
    sdks: list[str],
    lines: list[_Line],
    xy: list[list[tuple[float, float]]],
) -> list[str]:
    """Draws each line, one colour per series and one style per channel count, with a
    legend naming what differs between them; returns what all of them share."""
    handles = []
    for line, points in zip(lines, xy, strict=True):
        style, marker = _pair_styles(line.index)
        (drawn,) = axes.plot(
            [x for x, _ in points],
            [y for _, y in points],
            color=_sdk_color(line.series, sdks),
            linestyle=style,
            marker=marker,
            markersize=4,
        )
        handles.append(drawn)
    labels, shared = layout.names([(line.series, *_variant_parts(line.variant)) for line in lines])
    layout.legend(figure, handles, labels, "line")
    return shared


def _throughput_chart(sdks: list[str], entries: list[_Plotted], load: _Load) -> Drawn:
    figure, axes = _new_axes()
    lines = _lines(sdks, entries, load.key)
    xy = [[(e.x(load.key), e.rps) for e in line.points] for line in lines]
    shared = _plot_lines(figure, axes, sdks, lines, xy)
    _log_load_axis(axes, entries, load)
    axes.set_xlabel(load.label)
    axes.set_ylabel(_throughput_axis(axes, "y", [e.rps for e in entries]))
    title = f"Throughput vs {load.noun}"
    axes.set_title(layout.titled(title, shared))
    return Drawn(
        figure,
        "throughput.png",
        title,
        f"throughput in requests per second against {load.noun}, "
        "one line per SDK and channel count",
    )


def _latency_vs_throughput_chart(
    sdks: list[str], entries: list[_Plotted], targets: list[float]
) -> Drawn:
    figure, axes = _new_axes()
    # Ordered by load, so each line follows the sweep as it pushed harder.
    x_key = "rate" if any(e.entry.rate is not None for e in entries) else "concurrency"
    lines = _lines(sdks, entries, x_key)
    xy = [[(e.rps, e.client("p999")) for e in line.points] for line in lines]
    shared = _plot_lines(figure, axes, sdks, lines, xy)
    labels = layout.draw_targets(axes, targets)
    layout.log_axis(axes, "y")
    axes.set_xlabel(_throughput_axis(axes, "x", [e.rps for e in entries]))
    axes.set_ylabel("client p99.9 (ms, log scale)")
    title = "Client p99.9 vs throughput"
    axes.set_title(layout.titled(title, shared))
    layout.separate(figure, labels)
    return Drawn(
        figure,
        "latency-vs-throughput.png",
        title,
        "client p99.9 latency in ms against throughput in requests per second, "
        "one line per SDK and channel count, with the p99.9 targets",
    )
