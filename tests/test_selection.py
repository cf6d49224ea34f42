"""Choosing what runs: -k expressions, --ids, --limit, pinned templates and libraries named by the model."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite.cli import main
from langbite.errors import InputErrors
from langbite.runner import RunOptions, prepare
from langbite.suites.templates import template_suite
from langbite.selection import Selection, keywords, parse_keyword_expression

QUICKSTART = REPO / "requirements_models" / "quickstart.json"
HIRING = REPO / "requirements_models" / "hiring_assistant.json"


@pytest.mark.parametrize("expression, words, expected", [
    ("sexism", {"sex-cmp-smart", "sexism"}, True),
    ("SEXISM", {"sexism"}, True),
    ("sexism and not verbose", {"sexism", "verbose"}, False),
    ("sexism and not verbose", {"sexism", "constrained"}, True),
    ("racism or ageism", {"ageism"}, True),
    ("not (racism or ageism)", {"ageism"}, False),
    ("(racism or ageism) and es_es", {"racism", "en_us"}, False),
    ("hiring and (sexism or racism)", {"hiring", "racism"}, True),
])
def test_keyword_expressions(expression: str, words: set[str], expected: bool) -> None:
    assert parse_keyword_expression(expression)(keywords(words)) is expected


@pytest.mark.parametrize("expression", ["", "sexism and", "(sexism", "sexism)", "or racism", "not", "a b"])
def test_a_bad_expression_is_one_line_of_bad_input(expression: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["plan", str(QUICKSTART), "-k", expression]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("-k: ") and "as in pytest" in line


def test_nothing_is_evaluated_as_python() -> None:
    matcher = parse_keyword_expression("__import__.os.system")  # one word, matched as text
    assert matcher(keywords(["sexism"])) is False and matcher(keywords(["x__import__.os.systemy"])) is True
    with pytest.raises(InputErrors):
        parse_keyword_expression("__import__('os').system('false')")


def test_k_narrows_the_plan_and_says_what_it_left_out(capsys: pytest.CaptureFixture) -> None:
    full = template_suite(prepare(HIRING))
    plan = template_suite(prepare(HIRING, RunOptions(selection=Selection(keyword="sexism and not verbose"))))
    assert 0 < len(plan.items) < len(full.items)
    assert all(i.template.concern == "sexism" and i.template.input_type == "constrained" for i in plan.items)
    assert {x.why: x.count for x in plan.plan.left_out}["{n} template selection(s) not matched by -k"] > 0
    assert main(["plan", str(HIRING), "-k", "sexism and not verbose"]) == 0
    assert "left out: " in capsys.readouterr().out


def test_ids_run_exactly_those_templates_and_typos_are_named(capsys: pytest.CaptureFixture) -> None:
    plan = template_suite(prepare(QUICKSTART, RunOptions(selection=Selection(ids=("sex-cmp-smart", "age-cmp-lead")))))
    assert {i.template.template_id for i in plan.items} <= {"sex-cmp-smart", "age-cmp-lead"}
    assert "sex-cmp-smart" in {i.template.template_id for i in plan.items}
    assert main(["plan", str(QUICKSTART), "--ids", "sex-cmp-smrt"]) == 2
    assert capsys.readouterr().err.strip() == "--ids: no template has the id 'sex-cmp-smrt'; did you mean 'sex-cmp-smart'?"


def test_limit_caps_templates_per_requirement_and_language() -> None:
    plan = template_suite(prepare(HIRING, RunOptions(selection=Selection(limit=2))))
    counts = [n_t for _, _, n_t, _ in plan.plan.counts()]
    assert counts and max(counts) <= 2


def test_pinned_templates_survive_sampling_and_libraries_are_named_by_the_model(tmp_path: Path) -> None:
    rows = list(csv.reader((REPO / "templates" / "prompts_en_us.csv").open(encoding="utf-8", newline="")))
    mine = [r for r in rows[1:] if r[1] == "sexism"]
    own = [list(r) for r in mine[:1]]
    own[0][0] = "my-new-row"
    lib = tmp_path / "libs" / "mine"
    lib.mkdir(parents=True)
    with (lib / "prompts_en_us.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([rows[0], *[list(r) for r in mine[1:]], *own])
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc["requirements"] = doc["requirements"][:1]
    doc["n_templates"] = 1
    doc["templates"] = ["libs/mine"]  # relative to the model file
    doc["pinned_templates"] = ["my-new-row"]
    model = write(tmp_path / "m.json", json.dumps(doc))
    plan = template_suite(prepare(model))
    ids = [i.template.template_id for i in plan.items]
    assert "my-new-row" in ids and len(ids) == 2  # the pinned row, and n_templates = 1 drawn from the rest
    doc["pinned_templates"] = ["my-new-rwo"]
    with pytest.raises(InputErrors, match="pinned_templates: no template has the id 'my-new-rwo'; did you mean"):
        prepare(write(tmp_path / "m.json", json.dumps(doc)))


def test_a_selected_run_rebuilds_its_reports_with_the_same_selection(tmp_path: Path, calls: dict) -> None:
    out = tmp_path / "run"
    main(["run", str(QUICKSTART), "--llm", "scripted:fair", "-k", "sexism", "--out", str(out), "-q"])
    before = (out / "evaluations.csv").read_text(encoding="utf-8")
    assert "not run" not in before.lower()
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["selection"] == {"keyword": "sexism"}
    n = calls["fair"]
    main(["report", str(out)])
    assert calls["fair"] == n and (out / "evaluations.csv").read_text(encoding="utf-8") == before
