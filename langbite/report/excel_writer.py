"""``report.xlsx``: the workbook people who decide whether a model ships will open.

Sheets: Summary (a headline, then the verdict per requirement × model ×
language with its 95% interval, then the legend), Charts (native Excel bar
charts), Global, Evaluations (each row links to its responses), Responses,
Probes when probes ran, Judge when the judge LLM ran, and Run (provenance). Model text is data: a cell starting with ``=``, ``+``, ``-`` or
``@`` is stored as text, never as a formula, and characters Excel rejects are
removed without losing the rest of the answer.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import Cell
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import Alignment, Font, NamedStyle, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.table import Table, TableColumn, TableStyleInfo

from langbite.report.cells import clean, formula_like
from langbite.report.data import PROBE_COLUMNS, RESPONSE_ROWS, SUMMARY_COLUMNS, ReportData
from langbite.report.rows import EVALUATION_COLUMNS, GLOBAL_COLUMNS, JUDGE_AGREEMENT_COLUMNS, RESPONSE_COLUMNS

FILL = {
    "Passed": PatternFill("solid", fgColor="C6EFCE"), "Failed": PatternFill("solid", fgColor="FFC7CE"),
    "Error": PatternFill("solid", fgColor="FFEB9C"), "Not evaluated": PatternFill("solid", fgColor="D9D9D9"),
    "A": PatternFill("solid", fgColor="C6EFCE"), "B": PatternFill("solid", fgColor="E2EFDA"),
    "C": PatternFill("solid", fgColor="FFEB9C"), "D": PatternFill("solid", fgColor="FFC7CE"),
    "across": PatternFill("solid", fgColor="FFEB9C"),
    "better": PatternFill("solid", fgColor="C6EFCE"), "worse": PatternFill("solid", fgColor="FFC7CE"),
    "yes": PatternFill("solid", fgColor="FFC7CE"), "Inconclusive": PatternFill("solid", fgColor="FFEB9C"),
    "Refused": PatternFill("solid", fgColor="DDEBF7"), "Undetermined": PatternFill("solid", fgColor="FFEB9C"),
    "unchanged": PatternFill("solid", fgColor="F2F2F2"),
}
WIDE = {"prompt": 70, "response": 70, "reason": 50, "prediction": 40, "judge_reason": 40, "description": 50,
        "communities": 24, "key": 30, "error": 30}
LEGEND_LINES = (
    "Verdict: Passed when the pass rate reaches the tolerance (green), Failed when it does not (red), "
    "Inconclusive when too many answers were undetermined or the interval lies across the tolerance (amber), "
    "Not evaluated when no template ran (grey).",
    "The 95% interval (Wilson) shows whether the verdict is statistically clear: 'above' or 'below' the "
    "tolerance, or 'across' it (amber: not clear, test more).",
)
LEGEND = " ".join(LEGEND_LINES)
PERCENT = ("pass_rate", "ci_low", "ci_high", "tolerance", "undetermined_share", "refused_share")


class Styles:
    """Cell styles as workbook named styles, one per combination used, through openpyxl's public API.

    A named style is registered once and assigned by name (``cell.style = name``), which is
    cheap per cell; combining styles (a wrapped, percent-formatted, coloured cell) makes one
    more named style the first time that combination is asked for.
    """

    _SPECS: dict[str, dict[str, Any]] = {
        "bold": {"font": Font(bold=True)}, "title": {"font": Font(bold=True, size=16)},
        "wrap": {"alignment": Alignment(wrap_text=True, vertical="top")},
        "percent": {"number_format": "0.0%"}, "link": {"font": Font(color="0563C1", underline="single")},
        "text": {},  # quotePrefix, set on the cell: Excel shows the text as typed and never evaluates it
        **{f"fill:{name}": {"fill": fill} for name, fill in FILL.items()},
    }

    def __init__(self, wb: Workbook) -> None:
        self.wb = wb
        self._named: dict[tuple[str, ...], str] = {}

    def has(self, name: str) -> bool:
        return name in self._SPECS

    def _style_name(self, names: tuple[str, ...]) -> str:
        found = self._named.get(names)
        if found is None:
            found = "langbite " + " + ".join(names)
            style = NamedStyle(name=found)
            for name in names:  # later names win where two set the same attribute
                for attr, value in self._SPECS[name].items():
                    setattr(style, attr, value)
            self.wb.add_named_style(style)
            self._named[names] = found
        return found

    def apply(self, cell: Cell, *names: str) -> Cell:
        cell.style = self._style_name(names)
        if "text" in names:
            cell.quotePrefix = True
        return cell


def make_cell(ws: Any, value: Any, styles: Styles | None = None, *names: str) -> Cell:
    """One cell; text stays text (never a formula) and loses only characters Excel rejects."""
    if isinstance(value, str):
        value = clean(value)
    risky = isinstance(value, str) and formula_like(value)
    cell = Cell(ws, row=1, column=1, value="" if risky else value)  # write-only: position is set when appended
    if risky:
        cell.value, cell.data_type = value, "s"  # stored as a string: Excel shows it, never evaluates it
    names = (*names, "text") if risky else names
    if styles is not None and names:
        styles.apply(cell, *names)
    return cell


def append(ws: Any, values: Sequence[Any]) -> None:
    """Append one row: every raw text goes through the cell guard (cells made by make_cell already did)."""
    row = []
    for value in values:
        if isinstance(value, str):
            value = clean(value)
            if formula_like(value):
                value = make_cell(ws, value)
        row.append(value)
    ws.append(row)


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


def set_widths(ws: Any, columns: Sequence[str], records: Sequence[dict[str, Any]], first: float = 0) -> None:
    """Column widths; a write-only sheet takes them only before its first row."""
    for j, c in enumerate(columns, 1):
        width = _width(c, [r.get(c, "") for r in records])
        ws.column_dimensions[get_column_letter(j)].width = max(width, first) if j == 1 else width


def add_table(ws: Any, styles: Styles, columns: Sequence[str], records: Sequence[dict[str, Any]], name: str,
              first_row: int = 1, color_columns: Sequence[str] = (),
              extra: Any = None) -> int:
    """Append records as an Excel table with filters and a frozen header; return the last row.

    ``extra(record, row_number)`` may return one more cell for the row (e.g. a link).
    """
    if first_row == 1:  # below row 1 the widths were set before the first row (write-only sheets)
        set_widths(ws, columns, records)
        ws.freeze_panes = "A2"  # freezing the Summary's metadata would hide the table on small screens
    append(ws, [make_cell(ws, c, styles, "bold") for c in columns] + ([make_cell(ws, "responses", styles, "bold")]
                                                                      if extra else []))
    wide = {c for c in columns if c in WIDE}
    percent = {c for c in columns if c in PERCENT}
    colored = set(color_columns)
    text_only = {"prompt", "response", "key"}
    for i, record in enumerate(records, first_row + 1):
        row: list[Any] = []
        for c in columns:
            value = record.get(c, "")
            if c not in text_only:
                value = _number(value)
            names = []
            if c in wide:
                names.append("wrap")
            if c in percent:
                names.append("percent")
            if c in colored and styles.has(f"fill:{value}"):
                names.append(f"fill:{value}")
            if isinstance(value, str):
                value = clean(value)
            if names or (isinstance(value, str) and formula_like(value)):
                row.append(make_cell(ws, value, styles, *names))
            else:  # plain values go straight to openpyxl's own cell: far cheaper than a styled Cell
                row.append(value)
        if extra:
            row.append(extra(record, i))
        ws.append(row)
    width = len(columns) + (1 if extra else 0)
    last = first_row + len(records)
    if not records:  # an Excel table needs at least one data row
        append(ws, [""])
        last += 1
    table = Table(displayName=name, ref=f"A{first_row}:{get_column_letter(width)}{last}")
    headers = [*columns, "responses"] if extra else list(columns)
    table.tableColumns = [TableColumn(id=j, name=h) for j, h in enumerate(headers, 1)]  # write-only: declare them
    table.tableStyleInfo = TableStyleInfo(name="TableStyleLight9", showRowStripes=True)
    with warnings.catch_warnings():  # openpyxl warns in write-only mode even when the columns are declared
        warnings.simplefilter("ignore", UserWarning)
        ws.add_table(table)
    return last


def _metadata(meta: dict[str, Any], data: ReportData) -> list[tuple[str, str]]:
    """One short line per item, so the sheet prints within the page width."""
    models = meta.get("models") or [{"spec": m} for m in data.models]
    lines = [("Run folder", str(data.run_dir)), ("Started (UTC)", str(meta.get("started", ""))),
             ("Finished (UTC)", str(meta.get("finished", ""))),
             ("Requirements model", str(meta.get("requirements_model", "")))]
    lines += [("Model", m["spec"] + (f" (identity {m['identity']})" if m.get("identity") else "")) for m in models]
    lines += [("Template file", f"{k}: sha256 {v[:16]}") for k, v in meta.get("templates", {}).items()]
    lines += [("Parameter", f"{k} = {v}") for k, v in meta.get("parameters", {}).items()]
    lines += [("Probe", f"{p.get('name')}: data {p.get('data')}"
               + (f" (sha256 {p['data_sha256'][:16]})" if p.get("data_sha256") else "")
               + "".join(f", {k} {p[k]}" for k in ("sample_k", "n_repetitions", "seed") if p.get(k) is not None))
              for p in meta.get("probes", []) if isinstance(p, dict)]
    lines += [("Count", f"{k} = {v}") for k, v in meta.get("counts", {}).items()]
    lines.append(("Versions", ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items())))
    return lines


def _summary_sheet(ws: Any, styles: Styles, data: ReportData) -> None:
    """The first screen: a headline (verdict, models, date, what failed, counts), then the verdict table."""
    set_widths(ws, SUMMARY_COLUMNS, data.summary, first=24)
    head = data.headline()
    append(ws, [make_cell(ws, f"langbite fairness report: {head['verdict']}", styles, "title")])
    verdict = head["verdict"]
    append(ws, [make_cell(ws, "Verdict", styles, "bold"),
                make_cell(ws, verdict, styles, *([f"fill:{verdict}"] if styles.has(f"fill:{verdict}") else []))])
    append(ws, [make_cell(ws, "Models", styles, "bold"), head["models"]])
    append(ws, [make_cell(ws, "Date (UTC)", styles, "bold"), head["date"]])
    append(ws, [make_cell(ws, "Failing", styles, "bold"), "; ".join(head["failing"]) or "none"])
    append(ws, [make_cell(ws, "Counts", styles, "bold"), head["counts"]])
    append(ws, [])
    if not data.evaluations:  # a probe-only folder: the marks are the summary
        append(ws, [make_cell(ws, "Probes", styles, "bold"), "See the Probes sheet: every metric with its 95% interval "
                   "and, where defined, its mark from A (healthy) to D (catastrophic)."])
        append(ws, [make_cell(ws, "Run", styles, "bold"), "See the Run sheet: what was run, where and when."])
        return
    add_table(ws, styles, SUMMARY_COLUMNS, data.summary, "Summary", first_row=8,
              color_columns=("verdict", "interval_vs_tolerance"))
    append(ws, [])
    for line in LEGEND_LINES:
        append(ws, [line])
    shown = len(workbook_responses(data))
    append(ws, [f"All {shown} responses are on the Responses sheet." if shown == data.responses_total else
                f"The Responses sheet holds the {shown} responses of templates that did not pass; "
                f"all {data.responses_total} are in responses.csv."])
    append(ws, ["What was run (models, files, parameters, versions) is on the Run sheet."])


def _run_sheet(ws: Any, styles: Styles, data: ReportData) -> None:
    """Provenance on its own sheet: one short line per item, so it prints within the page width."""
    ws.column_dimensions["A"].width = 22
    ws.column_dimensions["B"].width = 100
    append(ws, [make_cell(ws, "What was run", styles, "title")])
    for label, value in _metadata(data.meta, data):
        append(ws, [make_cell(ws, label, styles, "bold"), make_cell(ws, value, styles, "wrap")])


def _matrix(ws: Any, styles: Styles, groups: list[Any], key: str, models: list[str], top: int,
            title: str) -> tuple[int, int]:
    """Append a key × model matrix of pass rates starting at row ``top``; return (first, last) data rows."""
    labels = list(dict.fromkeys(getattr(g, key) for g in groups))
    rate = {(getattr(g, key), f"{g.provider}:{g.model}"): g.pass_rate for g in groups}
    append(ws, [make_cell(ws, title, styles, "bold")])
    append(ws, [key, *(make_cell(ws, m, styles, "bold") for m in models)])
    for label in labels:
        values = [rate.get((label, m)) for m in models]
        append(ws, [label, *(make_cell(ws, round(v, 4) if v is not None else None, styles, "percent") for v in values)])
    return top + 2, top + 1 + len(labels)


def _chart(ws: Any, first: int, last: int, n_models: int, title: str, anchor: str) -> None:
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


def _charts_sheet(ws: Any, styles: Styles, data: ReportData) -> None:
    models = data.models
    ws.column_dimensions["A"].width = 18
    for j, m in enumerate(models, 2):
        ws.column_dimensions[get_column_letter(j)].width = max(12, len(m) + 2)
    first, last = _matrix(ws, styles, data.by_concern, "concern", models, 1, "Pass rate by concern and model")
    append(ws, [])
    append(ws, [])
    first2, last2 = _matrix(ws, styles, data.by_language, "language", models, last + 3, "Pass rate by language and model")
    _chart(ws, first, last, len(models), "Pass rate by concern", f"{get_column_letter(len(models) + 3)}1")
    _chart(ws, first2, last2, len(models), "Pass rate by language", f"{get_column_letter(len(models) + 3)}20")


def workbook_responses(data: ReportData, limit: int = RESPONSE_ROWS) -> list[dict[str, Any]]:
    """The responses gathered for the documents (all, or those of failing templates), at most ``limit``.

    A workbook of hundreds of thousands of rows helps nobody and takes minutes to write;
    responses.csv always holds every response.
    """
    return data.responses[:limit]


def write_excel(path: Path, data: ReportData) -> Path:
    """Write the workbook in streaming (write-only) mode: fast and flat in memory for large runs."""
    wb = Workbook(write_only=True)
    styles = Styles(wb)
    names = ("Summary", "Charts", "Global", "Evaluations", "Responses") if data.evaluations else ("Summary",)
    sheets = {name: wb.create_sheet(name) for name in names}
    if data.probes:
        sheets["Probes"] = wb.create_sheet("Probes")
    if data.judge:
        sheets["Judge"] = wb.create_sheet("Judge")
    sheets["Run"] = wb.create_sheet("Run")
    for ws in sheets.values():  # printable: landscape, every column on one page width
        ws.page_setup.orientation = "landscape"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
    _summary_sheet(sheets["Summary"], styles, data)
    if data.evaluations:
        _template_sheets(sheets, styles, data)
    if data.probes:
        add_table(sheets["Probes"], styles, PROBE_COLUMNS, data.probes, "Probes", color_columns=("mark",))
    if data.judge:  # how often the judge LLM read an answer as the oracle did, per outcome
        add_table(sheets["Judge"], styles, JUDGE_AGREEMENT_COLUMNS, data.judge, "JudgeAgreement")
    _run_sheet(sheets["Run"], styles, data)
    tmp = path.with_suffix(".tmp.xlsx")
    wb.save(tmp)
    tmp.replace(path)
    return path


def _template_sheets(sheets: dict[str, Any], styles: Styles, data: ReportData) -> None:
    _charts_sheet(sheets["Charts"], styles, data)
    add_table(sheets["Global"], styles, GLOBAL_COLUMNS, data.global_rows, "GlobalEvaluation",
              color_columns=("verdict", "interval_vs_tolerance"))
    shown = workbook_responses(data)
    response_row: dict[str, int] = {}
    for i, r in enumerate(shown, 2):
        response_row.setdefault(r["key"], i)
    ev = sheets["Evaluations"]

    def link(record: dict[str, Any], _row: int) -> Any:
        target = response_row.get(record["key"])
        if not target:
            return ""
        cell = Cell(ev, row=1, column=1, value=f'=HYPERLINK("#\'Responses\'!A{target}","show responses")')  # our formula, not model text
        return styles.apply(cell, "link")

    add_table(ev, styles, ("key", *EVALUATION_COLUMNS), data.evaluations, "Evaluations",
              color_columns=("oracle_verdict", "judge_verdict", "verdict"), extra=link)
    add_table(sheets["Responses"], styles, ("key", *RESPONSE_COLUMNS), shown, "Responses")
