"""Where a chart's words go, and which scale it takes, so every line can be read.

* Target labels sit outside the plot, right of the line they name, pushed
  apart when two targets are close: never over the data.
* Legends sit outside the plot, right of everything else (constrained layout
  makes room), and only when they tell lines apart: a one-entry legend says
  nothing a title cannot.
* Legend labels name only what differs between the lines; what all of them
  share goes into the title.
* An axis whose values span more than `LOG_SPAN` times is logarithmic: on a
  linear axis from zero, the lower lines would lie flat along the bottom.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Annotation
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

TARGET_COLOR = "0.35"
LOG_SPAN = 10.0
# Points between the plot's right edge and a target label, and between two labels.
LABEL_PAD = 4.0
LABEL_GAP_PX = 2.0
FONT_SIZE = 8


def wants_log(values: Sequence[float]) -> bool:
    """Whether a linear axis from zero would squash the lowest values out of sight."""
    positive = [value for value in values if value > 0]
    return bool(positive) and max(positive) / min(positive) > LOG_SPAN


def log_axis(axes: Axes, which: str) -> None:
    """`which` ("x" or "y") logarithmic, with ticks at 1-2-5 steps in plain numbers
    (0.5, 1, 2, 5, 10, 2,000): a sweep often spans only a decade or two, and
    powers of ten alone leave such an axis almost unlabelled."""
    axis: Axis = axes.xaxis if which == "x" else axes.yaxis
    if which == "x":
        axes.set_xscale("log")
    else:
        axes.set_yscale("log")
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,g}"))
    axis.set_minor_formatter(NullFormatter())


def draw_targets(axes: Axes, targets: Sequence[float]) -> list[Annotation]:
    """A dotted line across the plot per p99.9 target, labelled outside its right edge."""
    labels = []
    for target in targets:
        axes.axhline(target, color=TARGET_COLOR, linewidth=1.2, linestyle=(0, (1, 1.5)))
        labels.append(
            axes.annotate(
                f"target p99.9\n< {target:g} ms",
                xy=(1.0, target),
                xycoords=axes.get_yaxis_transform(),
                xytext=(LABEL_PAD, 0.0),
                textcoords="offset points",
                ha="left",
                va="center",
                fontsize=FONT_SIZE,
                color=TARGET_COLOR,
                annotation_clip=False,
            )
        )
    return labels


def new_figure(size: tuple[float, float], dpi: int) -> Figure:
    """A figure with constrained layout on an Agg canvas: the renderer that both
    measures the labels here and writes the PNG."""
    figure = Figure(figsize=size, dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def laid_out(figure: Figure) -> RendererAgg:
    """The figure's renderer once its layout is done: where each artist will be drawn."""
    figure.draw_without_rendering()
    canvas = figure.canvas
    assert isinstance(canvas, FigureCanvasAgg), "a figure from new_figure"
    renderer: RendererAgg = canvas.get_renderer()  # type: ignore[no-untyped-call]
    return renderer


def separate(figure: Figure, labels: Sequence[Annotation]) -> None:
    """Push labels that overlap apart, upwards, once the layout is known."""
    if len(labels) < 2:
        return
    renderer = laid_out(figure)
    placed = sorted(labels, key=lambda label: label.get_window_extent(renderer).y0)
    top = None
    for label in placed:
        box = label.get_window_extent(renderer)
        if top is not None and box.y0 < top + LABEL_GAP_PX:
            shift_px = top + LABEL_GAP_PX - box.y0
            x, y = label.xyann
            label.xyann = (x, y + shift_px * 72.0 / figure.dpi)
            box = label.get_window_extent(renderer)
        top = box.y1


def legend(
    figure: Figure,
    handles: Sequence[Artist],
    labels: Sequence[str],
    title: str,
    where: Literal["outside right upper", "outside right lower"] = "outside right upper",
) -> Legend | None:
    """A legend right of the plot, or none for fewer than two entries."""
    if len(handles) < 2:
        return None
    return figure.legend(
        handles,
        labels,
        title=title,
        loc=where,
        fontsize=FONT_SIZE,
        title_fontsize=FONT_SIZE,
    )


def names(parts: Sequence[Sequence[str]]) -> tuple[list[str], list[str]]:
    """Each line's label from the parts that differ between lines, and the parts
    every line shares (for the title). `parts[i]` are line i's parts, in order."""
    if not parts:
        return [], []
    width = len(parts[0])
    varying = [i for i in range(width) if len({line[i] for line in parts}) > 1]
    # An empty part is a dimension the sweep did not have (say, caps): it names nothing.
    shared = [parts[0][i] for i in range(width) if i not in varying and parts[0][i]]
    return [", ".join(line[i] for i in varying if line[i]) for line in parts], shared


def titled(title: str, shared: Sequence[str]) -> str:
    return f"{title} ({', '.join(shared)})" if shared else title
