"""Who the failures disfavoured: one row per requirement x model x language x community, recomputed here from
evaluations.csv and responses.csv, and shown in the console, the workbook and the page."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

from conftest import REPO, scripted
from langbite.cli import main

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


def answer(prompt: str) -> str:
    """A model biased against one community: the biased answer where a prompt names Black people, else the fair."""
    return scripted(prompt, fair="Black" not in prompt)


def rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


def test_the_disfavoured_community_is_named_and_every_count_recomputes(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-disfavoured")
    run = tmp_path / "run"
    with MockOpenAI(MockConfig(reply=answer)) as server:
        main(["run", str(QUICKSTART), "--llm", "openai:biased", "--base-url", server.base_url, "--out", str(run),
              "-q", "--no-cache"])
    console = capsys.readouterr().out
    found = rows(run / "disfavoured.csv")
    racial = [r for r in found if r["requirement"] == "Racial equality"]
    assert racial and racial[0]["communities"] == "Black", racial
    assert "Racial equality (en_us) failures disfavoured: Black" in console
    # recomputed from the evaluations and responses files alone
    communities = {(r["requirement"], r["template_id"], r["instance"]): r["communities"]
                   for r in rows(run / "responses.csv")}
    expected: dict[tuple[str, str], int] = {}
    decided: dict[str, int] = {}
    for e in rows(run / "evaluations.csv"):
        if e["verdict"] in ("Passed", "Failed"):
            decided[e["requirement"]] = decided.get(e["requirement"], 0) + 1
        if e["verdict"] != "Failed":
            continue
        for who in dict.fromkeys(communities[(e["requirement"], e["template_id"], i.strip())]
                                 for i in e["biased_instances"].split(",") if i.strip()):
            expected[(e["requirement"], who)] = expected.get((e["requirement"], who), 0) + 1
    assert {(r["requirement"], r["communities"]): int(r["failed_templates"]) for r in found} == expected
    assert all(int(r["decided_templates"]) == decided[r["requirement"]] for r in found)
    assert all(float(r["share_ci_low"]) <= float(r["share"]) <= float(r["share_ci_high"]) for r in found)
    from openpyxl import load_workbook

    sheet = load_workbook(run / "report.xlsx", read_only=True)["Disfavoured"]
    table = [r for r in sheet.iter_rows(values_only=True)]
    assert table[0][:5] == ("provider", "model", "requirement", "language", "communities")
    assert len(table) - 1 == len(found)
    page = (run / "report.html").read_text(encoding="utf-8")
    assert "Who the failures disfavoured" in page and "<td>Black</td>" in page


def test_the_page_draws_each_pass_rate_with_its_interval_tolerance_and_n(tmp_path: Path) -> None:
    """A decision-grade chart: the interval as a whisker, the tolerance as a tick, n written, 0% still drawn."""
    import re

    run = tmp_path / "run"
    main(["run", str(QUICKSTART), "--llm", "fake:Yes.", "--out", str(run), "-q", "--no-cache"])
    page = (run / "report.html").read_text(encoding="utf-8")
    chart = page[page.index('aria-label="Pass rate per requirement, model and language"'):]
    chart = chart[:chart.index("</svg>")]
    summary = rows(run / "summary.csv")
    for r in summary:
        n = int(r["passed"]) + int(r["failed"])
        assert f"{float(r['pass_rate']):.0%} of n={n}" in chart, (r, chart)
    assert chart.count('stroke="#7c3aed"') == len(summary)  # one tolerance tick per row
    zero = [r for r in summary if float(r["pass_rate"]) == 0]
    assert zero and re.search(r'<rect x="[\d.]+" y="[\d.]+" width="2.0" height="14"', chart)  # a 0% stub


def test_the_page_marks_the_words_that_made_a_template_fail_and_escapes_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from langbite.report.html_writer import highlight

    marked = str(highlight("Yes, provided <b>she</b> shows a note.", "adds a condition: 'Yes, provided <b>she</b>'"))
    assert marked == "<mark>Yes, provided &lt;b&gt;she&lt;/b&gt;</mark> shows a note."
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-highlight")

    def conditional(prompt: str) -> str:  # a condition for one community only
        fair = scripted(prompt, fair=True)
        return f"{fair} Provided they first show proof of their income." if "Black" in prompt else fair

    run = tmp_path / "run"
    with MockOpenAI(MockConfig(reply=conditional)) as server:
        main(["run", str(QUICKSTART), "--llm", "openai:conditional", "--base-url", server.base_url, "--out", str(run),
              "-q", "--no-cache"])
    page = (run / "report.html").read_text(encoding="utf-8")
    assert "<mark>" in page and "proof of their income" in page[page.index("<mark>"):page.index("</mark>")]
