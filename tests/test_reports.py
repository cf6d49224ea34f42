"""report.xlsx, report.html and langbite compare, checked on real run folders."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from openpyxl import load_workbook

from conftest import REPO, SHARED, write
from langbite.cli import main
from langbite.evaluate.stats import against_tolerance, wilson

QUICKSTART = REPO / "requirements_models" / "quickstart.json"
NASTY = "=HYPERLINK(\"http://evil.example\",\"x\") <script>alert('x')</script>\x07\x1b tail"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import conftest  # noqa: F401  (registers the scripted provider)

    base = tmp_path_factory.mktemp("runs")
    doc = json.loads(QUICKSTART.read_text())
    doc["n_repetitions"] = 2
    gest = SHARED / "data" / "gest" / "gest.csv"
    if gest.exists():
        doc["probes"] = [{"name": "gest", "data": str(gest), "sample_k": 20}]
    model = write(base / "m.json", json.dumps(doc))
    out = {}
    for name, llm in (("fair", "scripted:fair"), ("biased", "scripted:biased"), ("nasty", f"fake:{NASTY}")):
        out[name] = base / name
        main(["run", str(model), "--llm", llm, "--out", str(out[name]), "-q", "--no-cache"])
    return out


def test_wilson_interval_known_values() -> None:
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)
    assert against_tolerance(0.95, 1.0, 0.9) == "above" and against_tolerance(0.1, 0.5, 0.9) == "below"
    assert against_tolerance(0.72, 1.0, 0.9) == "across"


def test_workbook_structure(runs: dict[str, Path]) -> None:
    wb = load_workbook(runs["fair"] / "report.xlsx")
    assert wb.sheetnames[:6] == ["Summary", "Charts", "Global", "Evaluations", "Responses", "Probes"][:len(wb.sheetnames[:6])]
    assert {"Summary", "Charts", "Global", "Evaluations", "Responses"} <= set(wb.sheetnames)
    summary = wb["Summary"]
    # the first screen: the headline, then the verdict table (provenance has its own sheet)
    assert summary["A1"].value == "langbite fairness report: Passed"
    assert [summary.cell(r, 1).value for r in range(2, 7)] == ["Verdict", "Models", "Date (UTC)", "Failing", "Counts"]
    assert summary["B2"].value == "Passed" and summary["B5"].value == "none"
    assert summary["B6"].value.startswith("3 of 3 requirement × model × language passed")
    assert "Summary" in summary.tables
    table = summary.tables["Summary"]
    header_row = int(table.ref.split(":")[0][1:])
    assert header_row == 8
    legend = [summary.cell(r, 1).value or "" for r in range(header_row, summary.max_row + 1)]
    assert any("95% interval" in line for line in legend)
    run_sheet = {r[0].value: r[1].value for r in wb["Run"].iter_rows(min_row=2) if r[0].value}
    assert "Run folder" in run_sheet and "Versions" in run_sheet
    headers = [c.value for c in summary[header_row]]
    verdict_col = headers.index("verdict") + 1
    cell = summary.cell(header_row + 1, verdict_col)
    assert cell.value == "Passed" and cell.fill.fgColor.rgb.endswith("C6EFCE")
    charts = wb["Charts"]._charts
    assert len(charts) == 3  # pass rate per requirement (intervals, tolerance, n), by concern, by language
    first = charts[0]
    [rates] = first.series
    assert rates.errBars is not None and rates.errBars.errValType == "cust"  # the 95% intervals
    for name in ("Global", "Evaluations", "Responses"):
        ws = wb[name]
        assert ws.tables and ws.freeze_panes == "A2"
    rate_col = headers.index("pass_rate") + 1
    assert summary.cell(header_row + 1, rate_col).number_format == "0.0%"


def test_every_repetition_is_a_sample(runs: dict[str, Path]) -> None:
    ws = load_workbook(runs["fair"] / "report.xlsx")["Evaluations"]
    headers = [c.value for c in ws[1]]
    reps = {row[headers.index("repetition")] for row in ws.iter_rows(min_row=2, values_only=True)}
    assert reps == {1, 2}
    run = json.loads((runs["fair"] / "run.json").read_text())
    assert run["counts"]["calls_planned"] == 2 * run["counts"]["instances"]


def test_evaluations_link_to_their_responses(runs: dict[str, Path]) -> None:
    wb = load_workbook(runs["biased"] / "report.xlsx")
    ev, resp = wb["Evaluations"], wb["Responses"]
    headers = [c.value for c in ev[1]]
    link = ev.cell(2, headers.index("responses") + 1).value
    assert link.startswith("=HYPERLINK(\"#'Responses'!A")  # a link we write, to the first response
    row = int(link.split("!A", 1)[1].split('"', 1)[0])
    assert resp.cell(row, 1).value == ev.cell(2, 1).value  # the shared key


def test_model_text_is_data_in_workbook_and_csv(runs: dict[str, Path]) -> None:
    ws = load_workbook(runs["nasty"] / "report.xlsx")["Responses"]
    headers = [c.value for c in ws[1]]
    cell = ws.cell(2, headers.index("response") + 1)
    assert cell.data_type == "s" and cell.value.startswith("=HYPERLINK")
    assert "\x07" not in cell.value and "\x1b" not in cell.value and cell.value.endswith(" tail")
    csv_text = (runs["nasty"] / "responses.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK" in csv_text


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href", "xmlns") and v]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_self_contained_and_escapes_model_text(runs: dict[str, Path]) -> None:
    page = (runs["nasty"] / "report.html").read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(page)
    assert "script" not in parser.tags and parser.urls == []
    assert "url(" not in page and "@import" not in page
    assert "http://evil" not in "".join(parser.urls)
    assert "&lt;script&gt;alert" in page and "<script>alert" not in page
    assert "svg" in parser.tags and "details" in parser.tags


def test_probe_results_reach_both_reports(runs: dict[str, Path]) -> None:
    if not (runs["fair"] / "probe_gest_metrics.csv").exists():
        pytest.skip("no GEST data beside the repository")
    ws = load_workbook(runs["fair"] / "report.xlsx")["Probes"]
    headers = [c.value for c in ws[1]]
    metrics = {row[headers.index("metric")]: row for row in ws.iter_rows(min_row=2, values_only=True)}
    # the scripted model answers "No." to GEST questions: nothing detected, so no value and no mark
    assert metrics["undetected_rate_attempts"][headers.index("value")] == 1
    assert metrics["stereotype_rate"][headers.index("mark")] in (None, "")
    assert "frequency_male_option" in (runs["fair"] / "report.html").read_text()


def test_report_command_rebuilds_both_documents(runs: dict[str, Path], tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(runs["biased"], copy)
    (copy / "report.xlsx").unlink()
    (copy / "report.html").unlink()
    assert main(["report", str(copy)]) == 1
    assert load_workbook(copy / "report.xlsx")["Summary"]["A1"].value == "langbite fairness report: Failed"
    assert (copy / "report.html").exists()


def test_compare_gates_a_regression(runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["compare", str(runs["fair"]), str(runs["fair"])]) == 0
    capsys.readouterr()
    out_x, out_h = tmp_path / "cmp.xlsx", tmp_path / "cmp.html"
    assert main(["compare", str(runs["fair"]), str(runs["biased"]), "--out", str(out_x)]) == 1
    text = capsys.readouterr().out
    assert "REGRESSION" in text and "regression(s)" in text
    ws = load_workbook(out_x)["Comparison"]
    headers = [c.value for c in ws[1]]
    rows = list(ws.iter_rows(min_row=2, values_only=True))
    assert all(r[headers.index("regression")] == "yes" for r in rows)
    # columns named after the runs, rates in percent, and a change word in every row
    assert {"fair: pass %", "biased: pass %", "biased: change"} <= set(headers)
    assert all(r[headers.index("biased: change")] == "worse" for r in rows)
    assert all(str(r[headers.index("fair: pass %")]).endswith("%") for r in rows)
    assert "fair = " in text and "biased = " in text and "run1" not in text
    assert main(["compare", str(runs["biased"]), str(runs["fair"]), "--out", str(out_h)]) == 0
    assert "better" in out_h.read_text()
    assert main(["compare", str(runs["fair"]), str(runs["fair"])]) == 0
    assert "unchanged" in capsys.readouterr().out


def test_compare_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["compare", str(tmp_path)]) == 2
    assert main(["compare", str(tmp_path), str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err


def test_the_first_screen_shows_the_verdict_of_every_requirement(runs: dict[str, Path]) -> None:
    """Laid out as a spreadsheet program opens it (1280 × 720 pixels), the Summary sheet shows the
    overall verdict, the failing requirements and, for every group, its verdict and pass rate."""
    from langbite.report.firstscreen import visible

    summary = load_workbook(runs["fair"] / "report.xlsx")["Summary"]
    cells = visible(summary, 1280, 720)
    seen = {(c.row, c.column) for c in cells}
    texts = {c.text for c in cells}
    assert "langbite fairness report: Passed" in texts and "Failing" in texts
    header_row = int(summary.tables["Summary"].ref.split(":")[0][1:])
    headers = [c.value for c in summary[header_row]]
    for name in ("requirement", "model", "language", "verdict", "pass_rate", "tolerance"):
        assert (header_row, headers.index(name) + 1) in seen, name
    verdict_col = headers.index("verdict") + 1
    rows = [r for r in range(header_row + 1, summary.max_row + 1) if summary.cell(r, verdict_col).value in
            ("Passed", "Failed", "Inconclusive", "Not evaluated")]
    assert rows and all((r, verdict_col) in seen for r in rows)


def _run_folder(path: Path, verdicts: list[str]) -> Path:
    path.mkdir()
    head = "provider,model,requirement,concern,language,verdict\n"
    rows = "".join(f"openai,m,R,sexism,en_us,{v}\n" for v in verdicts)
    (path / "evaluations.csv").write_text(head + rows, encoding="utf-8")
    (path / "global_evaluation.csv").write_text("requirement,tolerance\nR,0.8\n", encoding="utf-8")
    return path


def test_compare_shows_inconclusive_and_gates_a_pass_that_became_inconclusive(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture) -> None:
    passed = _run_folder(tmp_path / "before", ["Passed"] * 5)
    unsure = _run_folder(tmp_path / "after", ["Undetermined"] * 5)
    assert main(["compare", str(unsure), str(unsure)]) == 0  # a run compared with itself: no change, no "absent"
    out = capsys.readouterr().out
    assert "Inconclusive" in out and "absent" not in out
    from langbite.report.compare import compare

    comparison = compare([passed, unsure])
    [row] = comparison.rows()
    assert row["after: verdict"] == "Inconclusive" and row["after: change"] == "Passed → Inconclusive"
    assert row["regression"] == "yes"
    assert main(["compare", str(passed), str(unsure)]) == 1


def test_every_failure_block_of_the_page_names_its_oracle(runs: dict[str, Path]) -> None:
    page = (runs["biased"] / "report.html").read_text(encoding="utf-8")
    blocks = page.split("<b>Oracle</b> ")[1:]
    assert blocks and all(re.match(r"[A-Za-z]+: <code>\{", b) for b in blocks), blocks[:2]


def test_the_evidence_puts_every_community_of_a_failed_template_side_by_side(runs: dict[str, Path]) -> None:
    import csv

    evaluations = list(csv.DictReader((runs["biased"] / "evaluations.csv").open(encoding="utf-8")))
    evidence = list(csv.DictReader((runs["biased"] / "evidence.csv").open(encoding="utf-8")))
    not_passed = {(e["template_id"], e["repetition"]) for e in evaluations if e["verdict"] != "Passed"}
    assert not_passed and {(r["template_id"], r["repetition"]) for r in evidence} == not_passed
    for (template, rep) in not_passed:
        rows = [r for r in evidence if (r["template_id"], r["repetition"]) == (template, rep)]
        instances = next(int(e["instances"]) for e in evaluations if (e["template_id"], e["repetition"]) ==
                         (template, rep))
        assert [int(r["instance"]) for r in rows] == list(range(1, instances + 1))  # every community, in order
        assert all(r["prompt"] and r["answer"] and r["reason"] and r["reading"] for r in rows)
