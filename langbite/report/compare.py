"""``langbite compare RUN_A RUN_B [...]``: did a new model or prompt make things better or worse?

Pass rates per requirement, concern and language are put side by side with
their 95% intervals, in columns named after the run folders. Every row says
how each later run compares with the first: better or worse (intervals apart,
or the verdict flipped), better or worse "within noise" (the rate moved inside
overlapping intervals), unchanged, a verdict without a rate that changed ("Passed → Inconclusive"), or absent
(the run did not test it). Every verdict is shown, Inconclusive and Not evaluated included. The comparison gates
CI: the exit code is 1 when anything that passed in the first run no longer passes in a later one.

When every run tested one model, runs are compared whatever the model is
called (a new model version is the usual question); otherwise rows are
matched by model as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langbite.errors import InputErrors
from langbite.evaluate.stats import against_tolerance, overlap
from langbite.evaluate.summary import GroupResult
from langbite.model import GroupVerdict, Verdict
from langbite.report.csv_writer import read_csv

Key = tuple[str, ...]
Cell = GroupResult  # one row's counts in one run: pass rate, 95% interval and verdict


@dataclass
class Comparison:
    runs: list[Path]
    keys: list[Key]
    key_names: tuple[str, ...]
    cells: list[dict[Key, Cell]]
    regressions: list[Key] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        """Each run's name in column headers: its folder name, made unique with the parent when needed."""
        names = [run.name or str(run) for run in self.runs]
        if len(set(names)) < len(names):
            names = [f"{run.parent.name}/{run.name}" if names.count(run.name) > 1 else run.name for run in self.runs]
        if len(set(names)) < len(names):
            names = [f"run{i + 1} {n}" for i, n in enumerate(names)]
        return names

    def change(self, key: Key, i: int) -> str:
        """How run ``i`` compares with the first, in one word (every row says something).

        'better' or 'worse' when the 95% intervals are apart or the verdict flipped; '… (within
        noise)' when the pass rate moved but the intervals overlap; 'unchanged'; 'absent'.
        """
        a, b = self.cells[0].get(key), self.cells[i].get(key)
        if not a or not b:
            return "absent" if not b else "new"
        if a.pass_rate is None or b.pass_rate is None:
            return "unchanged" if a.verdict is b.verdict else f"{a.verdict} → {b.verdict}"
        if b.pass_rate == a.pass_rate and b.verdict is a.verdict:
            return "unchanged"
        direction = "better" if b.pass_rate > a.pass_rate or (
            b.pass_rate == a.pass_rate and b.verdict is GroupVerdict.PASSED) else "worse"
        if not overlap(a.interval, b.interval) or a.verdict is not b.verdict:
            return direction
        return f"{direction} (within noise)"

    def rows(self) -> list[dict[str, Any]]:
        """One row per requirement (× model) × concern × language; columns named after the runs, rates in %."""
        out = []
        names = self.names
        for key in self.keys:
            row: dict[str, Any] = dict(zip(self.key_names, key, strict=True))
            for i, name in enumerate(names):
                c = self.cells[i].get(key)
                if c is None or c.pass_rate is None:
                    row.update({f"{name}: pass %": "", f"{name}: 95% interval": "",
                                f"{name}: verdict": str(c.verdict) if c is not None else "absent",
                                f"{name}: vs tolerance": ""})
                else:
                    lo, hi = c.interval
                    row.update({f"{name}: pass %": f"{c.pass_rate:.0%}", f"{name}: 95% interval": f"{lo:.0%}–{hi:.0%}",
                                f"{name}: verdict": str(c.verdict),
                                f"{name}: vs tolerance": against_tolerance(lo, hi, c.tolerance)})
                if i:
                    row[f"{name}: change"] = self.change(key, i)
            row["regression"] = "yes" if key in self.regressions else ""
            out.append(row)
        return out


def _load(run: Path, with_model: bool) -> dict[Key, Cell]:
    path = run / "evaluations.csv"
    if not path.exists():
        raise InputErrors.single(str(run), "not a run folder (no evaluations.csv)")
    tolerance = {}
    glob = run / "global_evaluation.csv"
    if glob.exists():
        tolerance = {r["requirement"]: float(r["tolerance"]) for r in read_csv(glob)}
    cells: dict[Key, Cell] = {}
    for r in read_csv(path):
        key: Key = (r["requirement"], r["concern"], r["language"])
        if with_model:
            key = (f"{r['provider']}:{r['model']}", *key)
        c = cells.setdefault(key, Cell(r["provider"], r["model"], r["requirement"], r["concern"], r["language"],
                                       "", "", tolerance.get(r["requirement"], 1.0)))
        try:
            c.add(Verdict(r["verdict"]))  # refused and undetermined count as what they are, not as errors
        except ValueError:
            c.errors += 1
    return cells


def _models(run: Path) -> set[str]:
    return {f"{r['provider']}:{r['model']}" for r in read_csv(run / "evaluations.csv")} \
        if (run / "evaluations.csv").exists() else set()


def compare(runs: Sequence[Path]) -> Comparison:
    if len(runs) < 2:
        raise InputErrors.single("compare", "give at least two run folders")
    with_model = any(len(_models(r)) > 1 for r in runs)
    cells = [_load(r, with_model) for r in runs]
    keys = list(dict.fromkeys(k for c in cells for k in c))
    names = (("model",) if with_model else ()) + ("requirement", "concern", "language")
    comparison = Comparison(list(runs), keys, names, cells)
    for key in keys:
        first = cells[0].get(key)
        if first and first.verdict is GroupVerdict.PASSED and any(
                c.get(key) is None or c[key].verdict is not GroupVerdict.PASSED for c in cells[1:]):
            comparison.regressions.append(key)
    return comparison


def format_table(comparison: Comparison) -> str:
    """The console table: pass rate and verdict per run, and how each later run compares with the first."""
    names = comparison.names
    width = max(14, *(len(n) for n in names))
    lines = [f"{'requirement':<24} {'language':<8}" + "".join(f" {n[:width]:>{width}}" for n in names) + "  change"]
    for row in comparison.rows():
        label = (row.get("model", "") + " " if "model" in row else "") + row["requirement"]
        cells = ""
        for name in names:
            rate, verdict = row.get(f"{name}: pass %", ""), row.get(f"{name}: verdict", "")
            cells += f" {((rate or '-') + ' ' + verdict)[:width]:>{width}}"
        changes = ", ".join(row.get(f"{n}: change", "") for n in names[1:])
        flag = "  REGRESSION" if row["regression"] else ""
        lines.append(f"{label[:24]:<24} {row['language']:<8}{cells}  {changes}{flag}")
    for name, run in zip(names, comparison.runs, strict=True):
        lines.append(f"{name} = {run}")
    lines.append(f"{len(comparison.regressions)} regression(s): requirement(s) that passed in {names[0]} and fail "
                 "in a later run")
    return "\n".join(lines)


def write_comparison(path: Path, comparison: Comparison) -> Path:
    rows = comparison.rows()
    columns = list(dict.fromkeys(c for r in rows for c in r))
    if path.suffix == ".html":
        from html import escape

        head = "".join(f"<th>{escape(c)}</th>" for c in columns)
        body = "".join("<tr>" + "".join(
            f'<td class="{escape(str(r.get(c, "")).split(" ")[0])}">{escape(str(r.get(c, "")))}</td>' for c in columns)
            + "</tr>"
            for r in rows)
        path.write_text(
            "<!DOCTYPE html><html><head><meta charset='utf-8'><title>langbite comparison</title><style>"
            "body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ddd;"
            "padding:.3rem .5rem}.Passed,.better{background:#c6efce}.Failed,.worse,.yes{background:#ffc7ce}"
            f"</style></head><body><h1>langbite comparison</h1><table><thead><tr>{head}</tr></thead><tbody>{body}"
            "</tbody></table></body></html>", encoding="utf-8")
        return path
    from langbite.report.excel_writer import Book, add_table

    book = Book(path)
    colored = [c for c in columns if c.endswith((": verdict", ": change")) or c == "regression"]
    add_table(book.sheet("Comparison"), columns, rows, "Comparison", color_columns=colored)
    return book.close()
