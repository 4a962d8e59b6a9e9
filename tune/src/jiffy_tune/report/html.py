"""report.html: one self-contained file, charts inlined as data: URIs, CSS inline, no script.

It has to open from disk (file://), be mailed or attached to an issue, and
still show everything: so nothing is fetched, not even a font.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass

import jinja2

from jiffy_tune.report import comparison
from jiffy_tune.report import view as view_module
from jiffy_tune.report.charts import Chart
from jiffy_tune.report.view import ReportView


@dataclass(frozen=True)
class EmbeddedChart:
    title: str
    alt: str
    file_name: str
    data_uri: str


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("jiffy_tune.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _embed(chart: Chart) -> EmbeddedChart:
    encoded = base64.b64encode(chart.path.read_bytes()).decode("ascii")
    return EmbeddedChart(
        title=chart.title,
        alt=chart.alt,
        file_name=chart.path.name,
        data_uri=f"data:image/png;base64,{encoded}",
    )


def render_html(view: ReportView, charts: Sequence[Chart]) -> str:
    template = _environment().get_template("report.html.j2")
    leads = {
        "recommendations": view_module.RECOMMENDATIONS_LEAD,
        "transports": view_module.TRANSPORTS_LEAD,
        "matched": comparison.MATCHED_LEAD,
        "best_of_each": comparison.BEST_LEAD,
        "auto": view_module.AUTO_LEAD,
        "summary": view_module.SUMMARY_LEAD,
        "failures": view_module.FAILURES_LEAD,
    }
    return template.render(view=view, leads=leads, charts=[_embed(chart) for chart in charts])
