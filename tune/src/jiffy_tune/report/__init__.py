"""The report of a jiffy-tune run: PNG charts, report.md and a self-contained report.html.

`write_report(out_dir, results)` reads only the run's results (`RunResults`,
what results.json holds), so a report can be rendered again from any saved
run (`python -m jiffy_tune.report RUN_DIR`).

# Layout
* `view.py`: what the report says (title, notices, facts, presets), as text.
* `tables.py`: its tables (recommendations, each transport, auto, open loop,
  every configuration, failed points), cells formatted by `formatting.py`.
* `comparison.py`: ours beside the official SDKs, at matched settings and as
  the best of each under the same target.
* `columns.py`: every column's header and the sentence that explains it.
* `charts.py`: the matplotlib charts; `chart_layout.py`: where their labels
  and legends go, and when an axis is logarithmic.
* `markdown.py`, `html.py` (+ `templates/report.html.j2`): two renderings of the view.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jiffy_tune.model import RunResults
from jiffy_tune.report.charts import draw_charts
from jiffy_tune.report.html import render_html
from jiffy_tune.report.markdown import render_markdown
from jiffy_tune.report.view import build_view

__all__ = ["ReportFiles", "write_report"]

CHARTS_DIR = "charts"
MARKDOWN_NAME = "report.md"
HTML_NAME = "report.html"


@dataclass(frozen=True)
class ReportFiles:
    markdown: Path
    html: Path
    charts: list[Path]


def write_report(out_dir: Path, results: RunResults) -> ReportFiles:
    """Write report.md, report.html and charts/*.png for `results` into `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    view = build_view(results)
    charts = draw_charts(out_dir / CHARTS_DIR, results)
    markdown = out_dir / MARKDOWN_NAME
    markdown.write_text(render_markdown(view, charts, out_dir), encoding="utf-8")
    html = out_dir / HTML_NAME
    html.write_text(render_html(view, charts), encoding="utf-8")
    return ReportFiles(markdown=markdown, html=html, charts=[chart.path for chart in charts])
