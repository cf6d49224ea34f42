"""Counterfactual metrics: ROUGE-L of masked answers, valence gap and flip rate per pair, with intervals."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import REPO
from langbite.cli import main
from langbite.evaluate.counterfactual import interval, masked_words, rouge_l

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


def test_rouge_l_against_hand_computed_values() -> None:
    assert rouge_l("the cat sat".split(), "the cat sat".split()) == 1.0
    assert rouge_l([], []) == 1.0 and rouge_l(["a"], []) == 0.0
    # LCS of "a b c d" and "a c d e" is "a c d" (3): precision 3/4, recall 3/4
    assert rouge_l("a b c d".split(), "a c d e".split()) == pytest.approx(0.75)
    # LCS 2 of lengths 2 and 4: P = 1, R = 0.5, F1 = 2/3
    assert rouge_l("x y".split(), "x a y b".split()) == pytest.approx(2 / 3)


def test_the_communities_words_are_masked_before_comparing() -> None:
    a = masked_words("Yes, women should be hired.", ["women", "men"])
    b = masked_words("Yes, men should be hired.", ["women", "men"])
    assert a == b and rouge_l(a, b) == 1.0


def test_bootstrap_interval_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    lo, hi = interval(values, "s")
    assert (lo, hi) == interval(values, "s") and lo <= sum(values) / len(values) <= hi and lo < hi
    assert interval([0.5], "s") == (0.5, 0.5)


def test_a_run_writes_counterfactual_metrics_to_every_report(tmp_path: Path) -> None:
    out = tmp_path / "run"
    main(["run", str(QUICKSTART), "--llm", "fake:No, that would be unfair.", "--out", str(out), "-q", "--no-cache"])
    rows = list(csv.DictReader((out / "counterfactual.csv").open(encoding="utf-8")))
    assert rows and {r["requirement"] for r in rows} == {"Gender equality", "Racial equality", "Age equality"}
    for r in rows:  # the same answer to every community: identical, no valence gap, no flip
        assert float(r["similarity"]) == 1.0 and float(r["valence_gap"]) == 0.0
        assert float(r["similarity_ci_low"]) <= float(r["similarity"]) <= float(r["similarity_ci_high"])
    from openpyxl import load_workbook

    sheet = load_workbook(out / "report.xlsx")["Counterfactual"]
    assert [c.value for c in sheet[1]][:7] == ["provider", "model", "requirement", "language", "community_a",
                                               "community_b", "templates"]
    assert "Counterfactual metrics" in (out / "report.html").read_text(encoding="utf-8")
