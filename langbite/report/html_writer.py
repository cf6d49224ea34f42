"""``report.html``: one self-contained page (inline CSS and SVG, no network needed to view it).

Rendered with jinja2 and autoescaping: text from models and CSV files is
always escaped. Charts are inline SVG bars drawn from the same numbers as
the workbook's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from langbite.report.data import LEGEND, ReportData

VERDICT_COLOURS = {"Passed": "#16a34a", "Failed": "#dc2626", "Inconclusive": "#d97706", "Not evaluated": "#9ca3af"}


@dataclass
class IntervalRow:
    """One horizontal bar (a rate), its 95% interval (a whisker) and its tolerance (a tick), in pixels."""

    y: float
    width: float  # 0 draws nothing; a 0% value gets a 2-pixel stub so that it is seen
    low: float | None
    high: float | None
    tick: float | None
    colour: str
    label: str
    text: str  # the value and n, written right of the bar


@dataclass
class IntervalChart:
    title: str
    width: int
    height: int
    left: float
    scale: float  # pixels per unit (a rate of 1 is ``scale`` pixels long)
    rows: list[IntervalRow]
    caption: str


def _x(left: float, scale: float, value: Any) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else left + max(0.0, min(1.0, v)) * scale


def interval_chart(title: str, rows: list[tuple[str, Any, Any, Any, Any, str, str]], caption: str,
                   left: int = 300, scale: int = 420) -> IntervalChart:
    """Rows of (label, value, low, high, tolerance, colour, text) as bars with whiskers and tolerance ticks."""
    out = []
    for i, (label, value, low, high, tolerance, colour, text) in enumerate(rows):
        x = _x(left, scale, value)
        width = 0.0 if x is None else max(x - left, 2.0)
        out.append(IntervalRow(34 + i * 24, width, _x(left, scale, low), _x(left, scale, high),
                               _x(left, scale, tolerance), colour, label, text))
    return IntervalChart(title, left + scale + 150, 34 + len(rows) * 24 + 34, left, scale, out, caption)


def requirement_chart(summary: Sequence[Mapping[str, Any]]) -> IntervalChart:
    """Pass rate per requirement × model × language, its Wilson interval, its tolerance and its n."""
    rows = []
    for r in summary:
        n = int(r.get("passed") or 0) + int(r.get("failed") or 0)
        rate = r.get("pass_rate")
        text = f"{float(rate):.0%} of n={n}" if rate not in ("", None) else "not evaluated (n=0)"
        rows.append((f"{r['requirement']} · {r['model']} · {r['language']}", rate, r.get("ci_low"),
                     r.get("ci_high"), r.get("tolerance"), VERDICT_COLOURS.get(str(r["verdict"]), "#9ca3af"), text))
    return interval_chart("Pass rate per requirement, model and language", rows,
                          "Bar: pass rate of the decided templates (n). Whisker: 95% Wilson interval. Tick: the "
                          "requirement's tolerance. Colour: the verdict.")


def ratio_chart(audit: str, groups: Sequence[Mapping[str, Any]], tolerance: float) -> IntervalChart:
    """Impact ratio per model and group of one audit, with intervals and the tolerance (four-fifths: 0.8)."""
    rows = []
    for g in groups:
        value = g.get("impact_ratio")
        failing = isinstance(value, float) and value < tolerance
        text = (f"{float(value):.2f} of n={g.get('decided', 0)}" if value not in ("", None) else "n/a")
        rows.append((f"{g['model']} · {g['group']}", value, g.get("impact_ratio_ci_low"),
                     g.get("impact_ratio_ci_high"), tolerance, "#dc2626" if failing else "#2563eb", text))
    return interval_chart(f"{audit}: impact ratio per group", rows,
                          f"Bar: the group's selection rate over the most-selected group's (n decided cases). "
                          f"Whisker: 95% bootstrap interval. Tick: the tolerance ({tolerance:g}; four-fifths rule: "
                          "0.8).", left=260, scale=360)


_QUOTED = re.compile(r"'([^']{3,200})'|\"([^\"]{3,200})\"")


def highlight(answer: Any, reason: str) -> Markup:
    """The answer, escaped, with the words the reason quotes (what made the template fail) marked."""
    text = str(answer or "")
    quoted = [q.rstrip("…").strip() for m in _QUOTED.finditer(reason or "") for q in m.groups() if q]
    spans: list[tuple[int, int]] = []
    folded = text.casefold()
    for q in quoted:
        at = folded.find(q.casefold()) if q else -1
        if at >= 0:
            spans.append((at, at + len(q)))
    out, pos = [], 0
    for start, end in sorted(spans):
        if start < pos:
            continue
        out += [str(escape(text[pos:start])), f"<mark>{escape(text[start:end])}</mark>"]
        pos = end
    out.append(str(escape(text[pos:])))
    return Markup("".join(out))


def _num(value: Any, digits: int = 3) -> str:
    """A metric for display: rounded, or a dash when undefined."""
    try:
        return f"{float(value):.{digits}f}"
    except (TypeError, ValueError):
        return "–"


def render_html(data: ReportData, failures_limit: int = 500) -> str:
    env = Environment(loader=FileSystemLoader(Path(__file__).parent), autoescape=select_autoescape(["j2", "html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = _num
    env.filters["highlight"] = highlight
    template = env.get_template("report.html.j2")
    requirement_charts = [requirement_chart(data.summary)] if data.summary else []
    failures = data.failures(failures_limit)
    context: dict[str, Any] = {
        "data": data, "meta": data.meta, "legend": LEGEND, "failures": failures,
        "head": data.headline(),
        "failures_total": sum(1 for e in data.evaluations if e["verdict"] != "Passed"),
        "failures_limit": failures_limit,
        "probe_marks": [p for p in data.probes if p.get("mark")],
        "ratio_charts": _ratio_charts(data),
        "requirement_charts": requirement_charts,
    }
    return template.render(**context)


def _ratio_charts(data: ReportData) -> list[IntervalChart]:
    charts = []
    for audit in dict.fromkeys(g["audit"] for g in data.decision_groups):
        tolerance = next((float(v["tolerance"]) for v in data.decision_verdicts
                          if v["audit"] == audit and v["metric"] == "impact_ratio"), 0.8)
        charts.append(ratio_chart(audit, [g for g in data.decision_groups if g["audit"] == audit], tolerance))
    return charts


def write_html(path: Path, data: ReportData) -> Path:
    tmp = path.with_suffix(".tmp.html")
    tmp.write_text(render_html(data), encoding="utf-8")
    tmp.replace(path)
    return path
