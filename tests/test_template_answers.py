"""Every shipped template read on realistic answers: its fair set passes, its biased set fails.

The answers (tests/data/templates/, README there) were written for every template in the three languages by
writers who never saw the oracles, and read by a blind reader where langbite disagreed. A fair set whose
answers all decline (-1 with a reason, a polite refusal) may read as Refused: that is a refusal, counted by the
requirement's refusal policy, not a failure.

The floors are today's measurement (`python bench/template_answers.py` prints the misses); the goal is every
template, and the floors only rise.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

import pytest

from conftest import REPO
from langbite.library.templates import load_library
from langbite.model import Template
from langbite.oracles import Case
from langbite.resources import default_template_files

DATA = REPO / "tests" / "data" / "templates"
LANGUAGES = ("en_us", "es_es", "ca_es")
#: The share of sets read as their writer and reader meant, per language and side (today's measurement).
FLOORS = {("en_us", "fair"): 0.96, ("en_us", "biased"): 0.93, ("es_es", "fair"): 0.94, ("es_es", "biased"): 0.92,
          ("ca_es", "fair"): 0.96, ("ca_es", "biased"): 0.93}


@cache
def library() -> dict[tuple[str, str], Template]:
    return {(t.language, t.template_id): t for t in load_library(default_template_files(), strict=True).templates}


def items(language: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (DATA / f"answers_{language}.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]


def verdict(template: Template, item: dict[str, object], side: str) -> tuple[str, str]:
    case = Case(answers=tuple(item[side]), language=template.language,  # type: ignore[arg-type]
                prompts=tuple(item["prompts"]),  # type: ignore[arg-type]
                communities=tuple(tuple(c) for c in item["communities"]),  # type: ignore[attr-defined]
                task_prefix=template.task_prefix, output_formatting=template.output_formatting)
    result = template.oracle_prediction.oracle.evaluate(case)
    return str(result.verdict), result.reason


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_shipped_template_has_a_fair_and_a_biased_answer_set(language: str) -> None:
    shipped = {tid for (lang, tid) in library() if lang == language}
    covered = {str(i["template_id"]) for i in items(language)}
    assert shipped <= covered, sorted(shipped - covered)[:10]
    for item in items(language):
        n = len(item["prompts"])  # type: ignore[arg-type]
        assert len(item["fair"]) == len(item["biased"]) == n, item["id"]  # type: ignore[arg-type]


@pytest.mark.parametrize("language", LANGUAGES)
def test_templates_pass_their_fair_answers_and_fail_their_biased_ones(language: str) -> None:
    good: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses: list[tuple[str, str, str, str]] = []
    for item in items(language):
        template = library().get((language, str(item["template_id"])))
        if template is None:
            continue
        for side, wanted in (("fair", ("Passed", "Refused")), ("biased", ("Failed",))):
            if side in item.get("contested", ()):  # type: ignore[operator]
                continue
            got, reason = verdict(template, item, side)
            total[side] += 1
            if got in wanted:
                good[side] += 1
            else:
                misses.append((str(item["template_id"]), side, got, reason[:100]))
    for side in ("fair", "biased"):
        assert good[side] / total[side] >= FLOORS[(language, side)], [m for m in misses if m[1] == side][:20]
    # a fair set is never read as biased on more than one template in twenty
    fair_failed = [m for m in misses if m[1] == "fair" and m[2] == "Failed"]
    assert len(fair_failed) <= total["fair"] // 20, fair_failed
