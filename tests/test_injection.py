"""Every cell langbite writes is data: hostile text in every field leaves no live formula anywhere.

The hostile texts reach the outputs from every source a user or a model controls: template ids
and fields, requirement, concern and community names, model answers (including the control
characters that a guard checking before cleaning would miss), and comparison outputs.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from openpyxl import load_workbook

from conftest import REPO, write
from langbite.cli import main
from langbite.report.cells import clean, formula_like, guard

HEADER = ["template_id", "concern", "input_type", "reflection_type", "task_prefix", "prompt",
          "output_formatting", "oracle", "oracle_prediction", "source"]
# Starts a spreadsheet evaluates, as written by a user (input validation lets these through).
USER_TEXTS = ["=1+1", "+1+1", "-1-1", "@SUM(1)", " =1+1", "\uff1d1+1", "=HYPERLINK(\"http://x\",\"y\")"]
# What a model may answer: also control and invisible characters in front.
ANSWERS = ["\x01=cmd|' /C calc'!A0", "\x00=1+1", "\u200b=1+1", "\t=1+1", "\r=1+1", "\ufeff@SUM(1)", "=1+1"]
OUR_LINK = "=HYPERLINK(\"#'Responses'!A"


@pytest.mark.parametrize("text", USER_TEXTS + ANSWERS)
def test_the_guard_neutralises_every_start(text: str) -> None:
    guarded = guard(text)
    assert guarded.startswith("'") and not formula_like(clean(guarded))


@pytest.mark.parametrize("text", ["Yes.", "No", "1", "a = b", "e-mail", "", "'=already"])
def test_the_guard_leaves_plain_text(text: str) -> None:
    assert guard(text) == text


def _hostile_campaign(tmp_path: Path) -> tuple[Path, Path]:
    lib = tmp_path / "lib"
    lib.mkdir()
    rows = [HEADER]
    for i, text in enumerate(USER_TEXTS):
        rows.append([f"{text}-{i}", text, "constrained", "utopian", f"{text} about {{GROUP}}",
                     f"{text} Should {{GROUP}} be paid less?", f"{text} Answer Yes or No.", "expected value",
                     json.dumps({"operation": "allEqualExpected", "expected_value": [text, "No"]}), text])
    with (lib / "prompts_en_us.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)
    model = {
        "n_templates": 0, "n_repetitions": 1, "temperature": 0.0, "max_tokens": 16, "seed": 1,
        "requirements": [{
            "name": text, "concern": text, "markup": "GROUP", "languages": ["en_us"], "tolerance": 0.5,
            "communities": {"en_us": USER_TEXTS[:3]}, "rationale": text,
        } for text in USER_TEXTS],
    }
    return lib, write(tmp_path / "hostile.json", json.dumps(model))


def _formula_cells(path: Path) -> list[str]:
    wb = load_workbook(path)
    found = []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f" and not str(cell.value).startswith(OUR_LINK):
                    found.append(f"{ws.title}!{cell.coordinate}: {cell.value!r}")
    return found


def _live_csv_cells(folder: Path) -> list[str]:
    found = []
    for path in folder.glob("*.csv"):
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.reader(f):
                found += [f"{path.name}: {c!r}" for c in row if formula_like(clean(c)) or clean(c) != c]
    return found


@pytest.mark.parametrize("answer", ANSWERS)
def test_no_formula_cell_from_hostile_text_in_every_field(tmp_path: Path, answer: str) -> None:
    lib, model = _hostile_campaign(tmp_path)
    out = tmp_path / "run"
    code = main(["run", str(model), "--templates", str(lib), "--llm", f"fake:{answer}", "--out", str(out), "-q",
                 "--skip-invalid-templates"])  # a hostile row with an invalid prediction is among them
    assert code in (0, 1, 3, 4)
    assert _formula_cells(out / "report.xlsx") == []
    assert _live_csv_cells(out) == []
    responses = list(csv.DictReader((out / "responses.csv").open(encoding="utf-8", newline="")))
    assert responses and all(r["response"] == "'" + clean(answer) for r in responses)
    # the comparison of two such runs, in both formats
    assert main(["compare", str(out), str(out), "--out", str(tmp_path / "cmp.xlsx")]) in (0, 1)
    assert _formula_cells(tmp_path / "cmp.xlsx") == []
