"""``report.html``: one self-contained page (inline CSS and SVG, no network needed to view it).

Rendered with jinja2 and autoescaping: text from models and CSV files is
always escaped. Charts are inline SVG bars drawn from the same numbers as
the workbook's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from langbite.evaluate.summary import GroupResult
from langbite.report.data import LEGEND, ReportData

PALETTE = ("#4472C4", "#ED7D31", "#A5A5A5", "#FFC000", "#5B9BD5", "#70AD47", "#264478", "#9E480E")


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    color: str
    label: str


@dataclass
class SvgChart:
    title: str
    width: int
    height: int
    bars: list[Bar]
    categories: list[tuple[float, str]]
    legend: list[tuple[str, str]]
    baseline: float
    top: float


def bar_chart(title: str, groups: list[GroupResult], key: str, models: list[str]) -> SvgChart:
    """Grouped bars: one group per ``key`` value, one bar per model, height = pass rate."""
    labels = list(dict.fromkeys(getattr(g, key) for g in groups))
    rate = {(getattr(g, key), f"{g.provider}:{g.model}"): g.pass_rate for g in groups}
    bar_w, gap, left, top, plot_h = 18, 24, 40, 30, 200
    group_w = max(bar_w * len(models) + gap, 96)  # room for a category label
    bars, categories = [], []
    for i, label in enumerate(labels):
        x0 = left + i * group_w
        categories.append((x0 + (group_w - gap) / 2, label))
        for j, model in enumerate(models):
            value = rate.get((label, model))
            h = (value or 0.0) * plot_h
            text = f"{label} · {model}: " + (f"{value:.0%}" if value is not None else "not evaluated")
            bars.append(Bar(x0 + j * bar_w, top + plot_h - h, bar_w - 2, h, PALETTE[j % len(PALETTE)], text))
    width = max(320, left + len(labels) * group_w + 20)
    legend = [(PALETTE[j % len(PALETTE)], m) for j, m in enumerate(models)]
    return SvgChart(title, width, top + plot_h + 70, bars, categories, legend, top + plot_h, top)


@dataclass
class RatioBar:
    """One group's impact ratio (a horizontal bar) and its 95% interval (a whisker), in pixels."""

    y: float
    width: float
    low: float
    high: float
    label: str
    failing: bool


@dataclass
class RatioChart:
    title: str
    width: int
    height: int
    left: float
    scale: float  # pixels per unit of ratio
    line: float  # x of the tolerance
    tolerance: float
    bars: list[RatioBar]


def ratio_chart(audit: str, groups: list[dict[str, Any]], tolerance: float) -> RatioChart:
    """Impact ratio per model and group of one audit, with intervals and the tolerance line (four-fifths: 0.8)."""
    left, scale, row = 260, 300, 22
    bars = []
    for i, g in enumerate(groups):
        def x(v: Any) -> float:
            try:
                return left + max(0.0, min(1.0, float(v))) * scale
            except (TypeError, ValueError):
                return left
        value = g.get("impact_ratio")
        failing = isinstance(value, float) and value < tolerance
        bars.append(RatioBar(30 + i * row, x(value) - left, x(g.get("impact_ratio_ci_low")),
                             x(g.get("impact_ratio_ci_high")), f"{g['model']} · {g['group']}", failing))
    return RatioChart(f"{audit}: impact ratio per group", left + scale + 40, 30 + len(groups) * row + 30, left,
                      scale, left + tolerance * scale, tolerance, bars)


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
    template = env.get_template("report.html.j2")
    models = data.models
    charts = [bar_chart("Pass rate by concern", data.by_concern, "concern", models),
              bar_chart("Pass rate by language", data.by_language, "language", models)]
    failures = data.failures(failures_limit)
    context: dict[str, Any] = {
        "data": data, "meta": data.meta, "legend": LEGEND, "charts": charts, "failures": failures,
        "head": data.headline(),
        "failures_total": sum(1 for e in data.evaluations if e["verdict"] != "Passed"),
        "failures_limit": failures_limit,
        "probe_marks": [p for p in data.probes if p.get("mark")],
        "ratio_charts": _ratio_charts(data),
    }
    return template.render(**context)


def _ratio_charts(data: ReportData) -> list[RatioChart]:
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
