"""Decision audits: the formulas against hand-computed values, the reading of decisions, the shipped hiring
audit in three languages against scripted deciders on a loopback server, and every bad input as one line.

The deciders read the case from the prompt as a model would (its numbers, the candidate's first name);
the expected impact ratios and flip rates are re-derived here from the shipped CSV files, not by the
code under test.
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import REPO, write
from langbite.cli import main
from langbite.decisions.metrics import measure, outcomes
from langbite.decisions.reading import Decision, read_decision
from langbite.library.communities import shipped
from langbite.model import DecisionKind, DecisionReading, ExitCode

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402

HIRING = REPO / "requirements_models" / "hiring_audit.json"
LANGUAGES = ("en_us", "es_es", "ca_es")
YES = {"en_us": "Yes.", "es_es": "Sí.", "ca_es": "Sí."}
NO = {"en_us": "No.", "es_es": "No.", "ca_es": "No."}

P, N = Decision.POSITIVE, Decision.NEGATIVE


# --- formulas ---------------------------------------------------------------------------------------------------

def test_every_metric_matches_a_hand_computation() -> None:
    # cases 0-3 are group A, 4-7 group B; decisions under (A, B); truth per case
    table = [(P, P, 1), (P, N, 1), (N, N, 0), (P, P, 0),   # A: own decisions P P N P
             (N, N, 1), (P, P, 1), (N, N, 0), (N, P, 0)]   # B: own decisions N P N P
    own = ["A"] * 4 + ["B"] * 4
    decisions = {}
    for i, (da, db, _) in enumerate(table):
        decisions[(i, "A")], decisions[(i, "B")] = da, db
    truth = [bool(t) for *_, t in table]
    m = measure(outcomes(("A", "B"), own, decisions, truth), cycles=200).values
    # selection: A 3/4, B 2/4; impact ratio B = 0.5/0.75; spd = 0.25
    assert m["selection_rate|A"] == 0.75 and m["selection_rate|B"] == 0.5
    assert m["impact_ratio|B"] == pytest.approx(2 / 3) and m["impact_ratio"] == pytest.approx(2 / 3)
    assert m["spd"] == pytest.approx(0.25)
    # A: truth 1 1 0 0, decided 1 1 0 1 -> TP 2, FN 0, FP 1, TN 1
    assert (m["tpr|A"], m["fnr|A"], m["fpr|A"]) == (1.0, 0.0, 0.5)
    assert m["fdr|A"] == pytest.approx(1 / 3) and math.isnan(m["for|A"]) is False and m["for|A"] == 0.0
    assert m["accuracy|A"] == 0.75
    # B: truth 1 1 0 0, decided 0 1 0 1 -> TP 1, FN 1, FP 1, TN 1
    assert (m["tpr|B"], m["fnr|B"], m["fpr|B"], m["fdr|B"], m["for|B"]) == (0.5, 0.5, 0.5, 0.5, 0.5)
    assert m["tpr_gap"] == 0.5 and m["fpr_gap"] == 0.0 and m["equalized_odds"] == 0.5
    assert m["accuracy_gap"] == pytest.approx(0.25)
    # flips: cases 1 (P/N) and 7 (N/P) of 8 decided under both
    assert m["flip_rate|A / B"] == pytest.approx(2 / 8) and m["flip_rate"] == pytest.approx(2 / 8)


def test_refused_and_undetermined_are_counted_apart_not_read_as_decisions() -> None:
    own = ["A", "A", "A", "B", "B", "B"]
    decisions = {(0, "A"): P, (1, "A"): Decision.REFUSED, (2, "A"): Decision.UNDETERMINED,
                 (3, "B"): P, (4, "B"): N, (5, "B"): N}
    result = measure(outcomes(("A", "B"), own, decisions, None), cycles=100)
    assert result.values["selection_rate|A"] == 1.0  # 1 of 1 decided, not 1 of 3
    assert result.counts["A"] == {"cases": 3, "decided": 1, "refused": 1, "undetermined": 1}
    assert result.values["selection_rate|B"] == pytest.approx(1 / 3)


def test_intervals_hold_the_point_and_narrow_with_more_cases() -> None:
    rng = np.random.default_rng(1)
    widths = []
    for n in (40, 400):
        own = ["A" if i % 2 else "B" for i in range(n)]
        decisions = {(i, g): (P if rng.random() < (0.6 if own[i] == "A" else 0.4) else N) for i in range(n)
                     for g in ("A", "B") if g == own[i]}
        r = measure(outcomes(("A", "B"), own, decisions, None), cycles=400)
        lo, hi = r.intervals["spd"]
        assert lo <= r.values["spd"] <= hi
        widths.append(hi - lo)
    assert widths[1] < widths[0]


# --- reading ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("answer", "language", "expected"), [
    ("Yes.", "en_us", P), ("**No** — the experience is too short.", "en_us", N),
    ("Sí, sin duda: cumple los requisitos.", "es_es", P), ("No, no cumple el mínimo.", "es_es", N),
    ("Sí. Té l'experiència que demanem.", "ca_es", P), ('{"decision": "no", "reason": "..."}', "en_us", N),
    ("I'm sorry, but I can't make hiring decisions about individuals.", "en_us", Decision.REFUSED),
    ("It depends on many factors we do not know.", "en_us", Decision.UNDETERMINED), ("", "en_us",
                                                                                      Decision.UNDETERMINED),
])
def test_yes_no_decisions_are_read_in_three_languages(answer: str, language: str, expected: Decision) -> None:
    assert read_decision(answer, DecisionReading(), language) is expected


@pytest.mark.parametrize(("answer", "reading", "expected"), [
    ("I'd rate this applicant 7/10.", DecisionReading(DecisionKind.SCORE, 1, 10, 7), P),
    ("Score: 6.5", DecisionReading(DecisionKind.SCORE, 1, 10, 7), N),
    ("Out of 10, hard to say.", DecisionReading(DecisionKind.SCORE, 1, 9, 7), Decision.UNDETERMINED),
    ("Decision: APPROVE.", DecisionReading(DecisionKind.LABEL, positive=("approve",), negative=("deny",)), P),
    ("approve or deny? deny", DecisionReading(DecisionKind.LABEL, positive=("approve",), negative=("deny",)),
     Decision.UNDETERMINED),
    ('```json\n{"Decision": "deny"}\n```', DecisionReading(DecisionKind.JSON, positive=("approve",),
                                                           negative=("deny",)), N),
])
def test_scores_labels_and_json_keys(answer: str, reading: DecisionReading, expected: Decision) -> None:
    assert read_decision(answer, reading, "en_us") is expected


# --- the shipped hiring audit against scripted deciders ----------------------------------------------------------

def names(language: str) -> dict[str, str]:
    """First name → group, from the library's communities (what the template writes for {GENDER:name})."""
    table = shipped(language)["GENDER"]
    return {n: group for group, community in table.items() for n in community.names}


ALL_NAMES = {lang: names(lang) for lang in LANGUAGES}
WOMEN = {"en_us": "women", "es_es": "las mujeres", "ca_es": "les dones"}
BANNED = {lang: tuple(shipped(lang)["GENDER"][WOMEN[lang]].names[2:4]) for lang in LANGUAGES}


def case_of(prompt: str) -> tuple[str, int, int, str]:
    """(language, years, test, first name) as a model would read them off the prompt."""
    language = "en_us" if "Should" in prompt else "es_es" if "¿Debemos" in prompt else "ca_es"
    years, test = (int(n) for n in re.findall(r"\d+", prompt)[:2])
    name = next(n for n in ALL_NAMES[language] if re.search(rf"\b{re.escape(n)}\b", prompt))
    return language, years, test, name


def decider(kind: str) -> Any:
    def reply(prompt: str) -> str:
        language, years, test, name = case_of(prompt)
        qualified = years >= 3 and test >= 60
        if kind == "favours_men":
            yes = qualified and (ALL_NAMES[language][name] != WOMEN[language] or test >= 80)
        elif kind == "flips_on_names":
            yes = qualified and name not in BANNED[language]
        else:
            yes = qualified
        return YES[language] if yes else NO[language]
    return reply


def expected(kind: str, language: str) -> tuple[float, float]:
    """(impact ratio, flip rate) re-derived from the cases file and the decider's rule."""
    rows = list(csv.DictReader((REPO / "requirements_models" / "decisions" / f"hiring_{language}.csv").open(
        encoding="utf-8")))
    women = shipped(language)["GENDER"][WOMEN[language]].names
    selected = {True: [], False: []}  # is a woman -> own decisions
    flips = 0
    for i, row in enumerate(rows):
        qualified = int(row["years"]) >= 3 and int(row["test"]) >= 60
        woman_yes = qualified and (int(row["test"]) >= 80 if kind == "favours_men" else
                                   women[i % len(women)] not in BANNED[language] if kind == "flips_on_names"
                                   else True)
        man_yes = qualified
        is_woman = row["gender"] == WOMEN[language]
        selected[is_woman].append(woman_yes if is_woman else man_yes)
        flips += woman_yes != man_yes
    rates = [np.mean(selected[True]), np.mean(selected[False])]
    return min(rates) / max(rates), flips / len(rows)


@pytest.fixture
def deciders() -> Any:
    servers = {kind: MockOpenAI(MockConfig(reply=decider(kind))) for kind in ("fair", "favours_men",
                                                                               "flips_on_names")}
    for s in servers.values():
        s.start()
    yield servers
    for s in servers.values():
        s.stop()


def test_the_shipped_hiring_audit_passes_a_fair_decider_and_fails_two_biased_ones(
        tmp_path: Path, deciders: dict[str, MockOpenAI], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-decisions")
    doc = json.loads(HIRING.read_text(encoding="utf-8"))
    doc["models"] = [{"model": f"openai:{kind}", "base_url": s.base_url} for kind, s in deciders.items()]
    for audit in doc["decisions"]:
        audit["cases"] = str(REPO / "requirements_models" / audit["cases"])
    model = write(tmp_path / "audit.json", json.dumps(doc, ensure_ascii=False))
    code = main(["run", str(model), "--out", str(tmp_path / "run"), "-q", "--no-cache"])
    assert code == ExitCode.FAILED, capsys.readouterr()
    verdicts = {(r["audit"], r["model"], r["metric"]): r for r in csv.DictReader(
        (tmp_path / "run" / "decision_verdicts.csv").open(encoding="utf-8"))}
    for language in LANGUAGES:
        audit = f"hiring ({language})"
        fair = [verdicts[(audit, "openai:fair", m)]["verdict"] for m in ("impact_ratio", "flip_rate")]
        assert fair == ["Passed", "Passed"]
        equal = verdicts[(audit, "openai:fair", "impact_ratio")]  # equal treatment: the interval holds 1
        assert float(equal["value"]) == 1.0 and float(equal["ci_low"]) <= 1.0 <= float(equal["ci_high"])
        for kind in ("favours_men", "flips_on_names"):
            ratio, flips = expected(kind, language)
            row_ir = verdicts[(audit, f"openai:{kind}", "impact_ratio")]
            row_flip = verdicts[(audit, f"openai:{kind}", "flip_rate")]
            assert float(row_ir["value"]) == pytest.approx(ratio, abs=1e-6)
            assert float(row_flip["value"]) == pytest.approx(flips, abs=1e-6)
            assert float(row_ir["ci_low"]) <= ratio <= float(row_ir["ci_high"])
            assert float(row_flip["ci_low"]) <= flips <= float(row_flip["ci_high"])
            assert "Failed" in (row_ir["verdict"], row_flip["verdict"]), (kind, language, row_ir, row_flip)
    console = capsys.readouterr().out
    assert "decision audit hiring (es_es) on openai:fair: Passed" in console
    assert "decision audit hiring (ca_es) on openai:flips_on_names: Failed" in console
    from openpyxl import load_workbook

    book = load_workbook(tmp_path / "run" / "report.xlsx")
    sheet = book["Decisions"]
    header = [c.value for c in sheet[1]]
    assert header[:4] == ["audit", "model", "metric", "value"] and len(sheet._charts) == 1
    summary = [str(c.value) for row in book["Summary"].iter_rows() for c in row if c.value is not None]
    assert "langbite fairness report: Failed" in summary and any("decision audit" in v for v in summary)
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert page.count("impact ratio per group</text>") == 3 and "les dones" in page


# --- bad input ---------------------------------------------------------------------------------------------------

def audit_model(tmp_path: Path, cases: str, **change: Any) -> Path:
    write(tmp_path / "cases.csv", cases)
    audit = {"name": "t", "language": "en_us", "cases": "cases.csv", "markup": "GENDER", "protected": "gender",
             "template": "Hire {GENDER:name}, {years} years? Answer yes or no.", "decision": {"type": "yes_no"},
             "tolerances": {"impact_ratio": 0.8}, **change}
    return write(tmp_path / "m.json", json.dumps({"models": ["fake:Yes."], "decisions": [audit]}, indent=2))


GOOD = "gender,years\nwomen,3\nmen,4\n"


@pytest.mark.parametrize(("cases", "change", "message"), [
    ("sex,years\nwomen,3\nmen,4\n", {}, "cases.csv:1:1: expected column(s) gender, found 'sex', 'years'"),
    ("gender,years\nwomen,3\nwomen,4\n", {}, "cases.csv:1:1: column 'gender' has 1 group (women); an audit compares"),
    (GOOD, {"decision": {"type": "score", "low": 1, "high": 10, "threshold": 12}},
     "$.decisions[0].decision.threshold: 12 is outside the score's range 1-10"),
    (GOOD, {"decision": {"type": "label", "positive": ["hire"]}}, "names its negative labels"),
    (GOOD, {"template": "Hire {GENDER:name} with {experience} years?"}, "{experience} is not a column of cases.csv"),
    (GOOD, {"template": "Hire someone with {years} years?"}, "the template never writes the case's group"),
    (GOOD, {"truth": "years"}, "cases.csv:2:2: column 'years' holds '3'; the correct decision is 1 or 0"),
    (GOOD, {"tolerances": {"impact_ratios": 0.8}}, "impact_ratios"),
])
def test_a_bad_audit_is_one_line_exit_2_and_no_call(tmp_path: Path, capsys: pytest.CaptureFixture, cases: str,
                                                    change: dict, message: str) -> None:
    model = audit_model(tmp_path, cases, **change)
    code = main(["run", str(model), "--out", str(tmp_path / "o"), "-q", "--no-cache"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == ExitCode.BAD_INPUT and not (tmp_path / "o").exists()
    assert any(message in line for line in err), err
    assert all(re.match(r"^\S+:\d+:\d+: ", line) for line in err), err
