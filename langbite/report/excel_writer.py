"""``report.xlsx``: the workbook people who decide whether a model ships will open.

Sheets: Summary (verdict per requirement × model × language, with 95%
interval, legend and run metadata), Charts (native Excel bar charts), Global,
Evaluations (each row links to its responses), Responses, and Probes when
probes ran. Model text is data: a cell starting with ``=``, ``+``, ``-`` or
``@`` is stored as text, never as a formula, and characters Excel rejects are
removed without losing the rest of the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.table import Table, TableStyleInfo
from openpyxl.worksheet.worksheet import Worksheet

from langbite.report.data import PROBE_COLUMNS, SUMMARY_COLUMNS, ReportData
from langbite.report.rows import EVALUATION_COLUMNS, GLOBAL_COLUMNS, RESPONSE_COLUMNS

FILL = {
    "Passed": PatternFill("solid", fgColor="C6EFCE"), "Failed": PatternFill("solid", fgColor="FFC7CE"),
    "Error": PatternFill("solid", fgColor="FFEB9C"), "Not evaluated": PatternFill("solid", fgColor="D9D9D9"),
    "A": PatternFill("solid", fgColor="C6EFCE"), "B": PatternFill("solid", fgColor="E2EFDA"),
    "C": PatternFill("solid", fgColor="FFEB9C"), "D": PatternFill("solid", fgColor="FFC7CE"),
    "across": PatternFill("solid", fgColor="FFEB9C"),
}
WIDE = {"prompt": 70, "response": 70, "reason": 50, "prediction": 40, "judge_reason": 40, "description": 50,
        "communities": 24, "key": 30, "error": 30}
LEGEND = ("Verdict: Passed when the pass rate reaches the tolerance (green), Failed when it does not (red), "
          "Not evaluated when no template ran (grey). The 95% interval (Wilson) shows whether the verdict is "
          "statistically clear: 'above' or 'below' the tolerance, or 'across' it (amber: not clear, test more).")
FORMULA_START = ("=", "+", "-", "@")
PERCENT = ("pass_rate", "ci_low", "ci_high", "tolerance")


def put(ws: Worksheet, row: int, col: int, value: Any) -> Any:
    """Write one cell; text stays text (never a formula) and loses only characters Excel rejects."""
    cell = ws.cell(row=row, column=col)
    if isinstance(value, str):
        value = ILLEGAL_CHARACTERS_RE.sub("", value)
        cell.value = value
        if value.startswith(FORMULA_START):
            cell.data_type = "s"
            cell.quotePrefix = True
    else:
        cell.value = value
    return cell


def _number(value: Any) -> Any:
    if isinstance(value, str) and value:
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _width(name: str, values: Sequence[Any]) -> float:
    if name in WIDE:
        return WIDE[name]
    longest = max([len(str(v)) for v in values[:200]] + [len(name)])
    return min(max(8, longest + 2), 40)


def add_table(ws: Worksheet, columns: Sequence[str], records: Sequence[dict[str, Any]], name: str,
              first_row: int = 1, color_columns: Sequence[str] = ()) -> int:
    """Write records as an Excel table with filters and a frozen header; return the last row."""
    for j, c in enumerate(columns, 1):
        put(ws, first_row, j, c).font = Font(bold=True)
    wrap = Alignment(wrap_text=True, vertical="top")
    for i, record in enumerate(records, first_row + 1):
        for j, c in enumerate(columns, 1):
            value = record.get(c, "")
            cell = put(ws, i, j, _number(value) if c not in ("prompt", "response", "key") else value)
            if c in WIDE:
                cell.alignment = wrap
            if c in PERCENT:
                cell.number_format = "0.0%"
            if c in color_columns and str(value) in FILL:
                cell.fill = FILL[str(value)]
    last = first_row + max(len(records), 1)
    if not records:  # an Excel table needs at least one data row
        put(ws, last, 1, "")
    ref = f"A{first_row}:{get_column_letter(len(columns))}{last}"
    table = Table(displayName=name, ref=ref)
    table.tableStyleInfo = TableStyleInfo(name="TableStyleLight9", showRowStripes=True)
    ws.add_table(table)
    for j, c in enumerate(columns, 1):
        ws.column_dimensions[get_column_letter(j)].width = _width(c, [r.get(c, "") for r in records])
    ws.freeze_panes = ws.cell(row=first_row + 1, column=1)
    return last


def _metadata(meta: dict[str, Any], data: ReportData) -> list[tuple[str, str]]:
    params = meta.get("parameters", {})
    counts = meta.get("counts", {})
    models = meta.get("models") or [{"spec": m} for m in data.models]
    return [
        ("Run folder", str(data.run_dir)),
        ("Started / finished (UTC)", f"{meta.get('started', '')} / {meta.get('finished', '')}"),
        ("Requirements model", str(meta.get("requirements_model", ""))),
        ("Models", ", ".join(f"{m['spec']}" + (f" ({m['identity']})" if m.get("identity") else "") for m in models)),
        ("Template library (sha256)", ", ".join(f"{k}: {v[:12]}" for k, v in meta.get("templates", {}).items())),
        ("Parameters", ", ".join(f"{k}={v}" for k, v in params.items())),
        ("Counts", ", ".join(f"{k}={v}" for k, v in counts.items())),
        ("Versions", ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items())),
    ]


def _wrapped(ws: Worksheet, row: int, first_col: int, last_col: int, text: str) -> None:
    """Text in cells merged across the table's width, wrapped, so it prints within the page."""
    put(ws, row, first_col, text).alignment = Alignment(wrap_text=True, vertical="top")
    ws.merge_cells(start_row=row, start_column=first_col, end_row=row, end_column=last_col)
    ws.row_dimensions[row].height = 15 * max(1, -(-len(text) // 150))


def _summary_sheet(ws: Worksheet, data: ReportData) -> None:
    ws.title = "Summary"
    put(ws, 1, 1, "langbite fairness report").font = Font(bold=True, size=16)
    span = len(SUMMARY_COLUMNS)
    _wrapped(ws, 2, 1, span, LEGEND)
    row = 4
    for label, value in _metadata(data.meta, data):
        put(ws, row, 1, label).font = Font(bold=True)
        ws.cell(row, 1).alignment = Alignment(vertical="top")
        _wrapped(ws, row, 2, span, value)
        row += 1
    add_table(ws, SUMMARY_COLUMNS, data.summary, "Summary", first_row=row + 1,
              color_columns=("verdict", "interval_vs_tolerance"))
    ws.column_dimensions["A"].width = 28


def _matrix(ws: Worksheet, groups: list[Any], key: str, models: list[str], top: int, title: str) -> tuple[int, int]:
    """Write a key × model matrix of pass rates; return (first data row, last data row)."""
    labels = list(dict.fromkeys(getattr(g, key) for g in groups))
    put(ws, top, 1, title).font = Font(bold=True)
    put(ws, top + 1, 1, key)
    for j, m in enumerate(models, 2):
        put(ws, top + 1, j, m).font = Font(bold=True)
    rate = {(getattr(g, key), f"{g.provider}:{g.model}"): g.pass_rate for g in groups}
    for i, label in enumerate(labels, top + 2):
        put(ws, i, 1, label)
        for j, m in enumerate(models, 2):
            value = rate.get((label, m))
            put(ws, i, j, round(value, 4) if value is not None else None).number_format = "0%"
    return top + 2, top + 1 + len(labels)


def _chart(ws: Worksheet, first: int, last: int, n_models: int, title: str, anchor: str) -> None:
    chart = BarChart()
    chart.type = "col"
    chart.title = title
    chart.y_axis.title = "pass rate"
    chart.y_axis.scaling.min = 0
    chart.y_axis.scaling.max = 1
    chart.y_axis.number_format = "0%"
    chart.height, chart.width = 9, 18
    values = Reference(ws, min_col=2, max_col=1 + n_models, min_row=first - 1, max_row=last)
    chart.add_data(values, titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, min_row=first, max_row=last))
    ws.add_chart(chart, anchor)


def _charts_sheet(ws: Worksheet, data: ReportData) -> None:
    models = data.models
    first, last = _matrix(ws, data.by_concern, "concern", models, 1, "Pass rate by concern and model")
    _chart(ws, first, last, len(models), "Pass rate by concern", f"{get_column_letter(len(models) + 3)}1")
    top = last + 3
    first2, last2 = _matrix(ws, data.by_language, "language", models, top, "Pass rate by language and model")
    _chart(ws, first2, last2, len(models), "Pass rate by language", f"{get_column_letter(len(models) + 3)}20")
    ws.column_dimensions["A"].width = 18
    for j, m in enumerate(models, 2):
        ws.column_dimensions[get_column_letter(j)].width = max(12, len(m) + 2)


def _evaluations_sheet(ws: Worksheet, data: ReportData, response_row: dict[str, int]) -> None:
    columns = ("key", *EVALUATION_COLUMNS, "responses")
    add_table(ws, columns, data.evaluations, "Evaluations", color_columns=("oracle_verdict", "judge_verdict", "verdict"))
    link_col = len(columns)
    for i, record in enumerate(data.evaluations, 2):
        target = response_row.get(record["key"])
        if target:
            cell = put(ws, i, link_col, "show responses")
            cell.hyperlink = f"#'Responses'!A{target}"
            cell.font = Font(color="0563C1", underline="single")


def write_excel(path: Path, data: ReportData) -> Path:
    wb = Workbook()
    _summary_sheet(wb.active, data)
    _charts_sheet(wb.create_sheet("Charts"), data)
    add_table(wb.create_sheet("Global"), GLOBAL_COLUMNS, data.global_rows, "GlobalEvaluation",
              color_columns=("verdict", "interval_vs_tolerance"))
    response_row: dict[str, int] = {}
    for i, r in enumerate(data.responses, 2):
        response_row.setdefault(r["key"], i)
    _evaluations_sheet(wb.create_sheet("Evaluations"), data, response_row)
    add_table(wb.create_sheet("Responses"), ("key", *RESPONSE_COLUMNS), data.responses, "Responses")
    if data.probes:
        add_table(wb.create_sheet("Probes"), PROBE_COLUMNS, data.probes, "Probes", color_columns=("mark",))
    for ws in wb.worksheets:  # printable: landscape, every column on one page width
        ws.page_setup.orientation = "landscape"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
    tmp = path.with_suffix(".tmp.xlsx")
    wb.save(tmp)
    tmp.replace(path)
    return path
