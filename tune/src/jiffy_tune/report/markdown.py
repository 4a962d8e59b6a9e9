"""report.md: the report as GitHub-flavoured Markdown, charts linked as charts/*.png."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from jiffy_tune.report import comparison
from jiffy_tune.report import view as view_module
from jiffy_tune.report.charts import Chart
from jiffy_tune.report.tables import Table
from jiffy_tune.report.view import ReportView

FENCE_LANGUAGES = {"python": "python", "typescript": "ts"}


def render_markdown(view: ReportView, charts: Sequence[Chart], out_dir: Path) -> str:
    lines = [f"# {view.title}", ""]
    for notice in view.notices:
        lines += [f"> **Note:** {notice}", ""]

    lines += ["## What was run", ""]
    lines += [f"- **{fact.label}:** {_inline(fact.value, fact.label)}" for fact in view.facts]
    lines.append("")

    sections = [
        ("Recommendations", view_module.RECOMMENDATIONS_LEAD, view.recommendations),
        ("Each transport", view_module.TRANSPORTS_LEAD, view.transports),
        (
            "Ours beside the official SDKs at matched settings",
            comparison.MATCHED_LEAD,
            view.matched,
        ),
        (
            "Ours beside the official SDKs: the best of each under the same target",
            comparison.BEST_LEAD,
            view.best_of_each,
        ),
        ("auto against the best fixed cap", view_module.AUTO_LEAD, view.auto),
    ]
    for heading, lead, table in sections:
        if table is not None:
            lines += [f"## {heading}", "", lead, ""]
            lines += _table(table)

    if view.presets or view.no_presets:
        lines += ["## Ready-to-paste presets", ""]
    if view.no_presets:
        lines += [view.no_presets, ""]
    if view.presets:
        for preset in view.presets:
            fence = FENCE_LANGUAGES.get(preset.language, "")
            lines += [f"### {preset.heading}", "", f"```{fence}", preset.code.rstrip(), "```", ""]

    if view.open_loop is not None:
        lines += ["## Open loop: highest offered rate under each target", ""]
        lines += _table(view.open_loop)

    if charts:
        lines += ["## Charts", ""]
        for chart in charts:
            link = chart.path.relative_to(out_dir).as_posix()
            lines += [f"### {chart.title}", "", f"![{chart.alt}]({link})", ""]

    lines += ["## Every configuration", ""]
    lines += [view_module.SUMMARY_LEAD, ""]
    lines += _table(view.summary)

    if view.failed_points is not None:
        lines += ["## Failed points", ""]
        lines += [view_module.FAILURES_LEAD, ""]
        lines += _table(view.failed_points)
        for stderr in view.stderr:
            fence = _fence(stderr.text)
            lines += [f"### {stderr.heading}", "", f"{fence}text", stderr.text, fence, ""]
    if view.request_errors is not None:
        lines += ["## Points with request errors", ""]
        lines += _table(view.request_errors)
    return "\n".join(lines).rstrip() + "\n"


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in `text`, which cannot end it early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _inline(value: str, label: str) -> str:
    # The command is shown verbatim; code spans need no escaping inside.
    return f"`{value}`" if label == "Command" else _cell(value)


def _cell(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("|", "\\|")
    # A second line (a median's range over rounds) in parentheses: one line per row.
    first, *rest = escaped.split("\n")
    return first + "".join(f" ({line})" for line in rest)


def _table(table: Table) -> list[str]:
    width = len(table.columns)
    lines = [
        "| " + " | ".join(_cell(c.label) for c in table.columns) + " |",
        "|" + "".join(":---|" if i in table.text_columns else "---:|" for i in range(width)),
    ]
    for row in table.rows:
        cells = [_cell(c) for c in row.cells]
        if row.statement is not None:
            # Markdown has no colspan: the sentence takes the next cell, the rest stay empty.
            cells.append(_cell(row.statement))
        cells += [""] * (width - len(cells))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    # The legend: what each column means.
    lines += [f"- **{c.label}**: {c.help}" for c in table.columns]
    lines.append("")
    return lines
