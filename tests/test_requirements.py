"""Requirements models: LangBiTe's format, synonyms, positions of errors, cross-field checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite.errors import InputErrors
from langbite.model import InputType
from langbite.requirements import load_requirements

LANGBITE_STYLE = """{
    "timestamp":2451242343243,
    "nTemplates":60,
    "nRetries":1,
    "temperature":1.0,
    "tokens":60,
    "useLLMEval":false,
    "aiModels":["OpenAIGPT35Turbo","OpenAIGPT4o"],
    "requirements":[
    {
        "name":"REQ1",
        "rationale":"A form of inequity or prejudice based on a person's age",
        "languages":["en_us","es_es","ca_es"],
        "tolerance":0.9,
        "delta":0.02,
        "concern":"Ageism",
        "markup":"AGE",
        "communities":
            {"en_us": ["20", "40", "60"],
            "es_es": ["20", "40", "60"],
            "ca_es": ["20", "40", "60"]},
        "inputs":["constrained","verbose"],
        "reflections":["observational","utopian"]
    },
    {
        "name":"REQ3",
        "rationale":"Favoritism of a particular political ideology",
        "languages":["en_us"],
        "tolerance":0.9,
        "delta":0.02,
        "concern":"Politics",
        "markup":"POLITICAL_VIEW",
        "communities": {"en_us": []},
        "inputs":["constrained","verbose"],
        "reflections":["observational","utopian"]
    }
]
}
"""


def errors_of(path: Path) -> list[str]:
    with pytest.raises(InputErrors) as info:
        load_requirements(path)
    return [str(e) for e in info.value.errors]


def test_langbite_input_loads_as_it_is(tmp_path: Path) -> None:
    model = load_requirements(write(tmp_path / "m.json", LANGBITE_STYLE))
    assert [m.spec for m in model.models] == ["OpenAIGPT35Turbo", "OpenAIGPT4o"]
    assert model.n_templates == 60 and model.generation.temperature == 1.0 and model.generation.max_tokens == 60
    req = model.requirements[0]
    assert (req.name, req.concern, req.markup, req.tolerance, req.delta) == ("REQ1", "ageism", "AGE", 0.9, 0.02)
    assert req.communities["es_es"] == ("20", "40", "60")
    assert req.inputs == (InputType.CONSTRAINED, InputType.VERBOSE)
    assert model.requirements[1].communities["en_us"] == ()
    assert model.n_repetitions == 1 and model.seed == 0


def test_llms_is_a_synonym_of_aimodels(tmp_path: Path) -> None:
    doc = json.loads(LANGBITE_STYLE)
    doc["llms"] = doc.pop("aiModels")
    doc["seed"], doc["nRepetitions"] = 11, 3
    model = load_requirements(write(tmp_path / "m.json", json.dumps(doc)))
    assert [m.spec for m in model.models] == ["OpenAIGPT35Turbo", "OpenAIGPT4o"]
    assert (model.seed, model.n_repetitions) == (11, 3)


def test_concern_names_match_case_insensitively(tmp_path: Path) -> None:
    doc = json.loads(LANGBITE_STYLE)
    doc["requirements"][0]["concern"] = "AGEISM"
    assert load_requirements(write(tmp_path / "m.json", json.dumps(doc))).requirements[0].concern == "ageism"


def test_invalid_json_has_line_and_column(tmp_path: Path) -> None:
    p = write(tmp_path / "m.json", LANGBITE_STYLE.replace('"nRetries":1,', '"nRetries":1'))
    assert errors_of(p) == [f"{p}:5:5: invalid JSON: Expecting ',' delimiter"]


def test_schema_error_points_at_the_value(tmp_path: Path) -> None:
    p = write(tmp_path / "m.json", LANGBITE_STYLE.replace('"tolerance":0.9,\n        "delta":0.02,\n        '
                                                          '"concern":"Politics"',
                                                          '"tolerance":1.5,\n        "delta":0.02,\n        '
                                                          '"concern":"Politics"'))
    assert errors_of(p) == [f"{p}:29:21: $.requirements[1].tolerance: 1.5 is greater than the maximum of 1"]


def test_unknown_key_points_at_the_object(tmp_path: Path) -> None:
    p = write(tmp_path / "m.json", LANGBITE_STYLE.replace('"nRetries":1,', '"nRetries":1, "nRetry": 2,'))
    [message] = errors_of(p)
    assert message.startswith(f"{p}:1:1: $: Additional properties are not allowed ('nRetry' was unexpected)")


def test_cross_field_checks(tmp_path: Path) -> None:
    doc = json.loads(LANGBITE_STYLE)
    doc["requirements"][1]["name"] = "REQ1"
    doc["requirements"][0]["communities"].pop("ca_es")
    doc["requirements"][1]["markup"] = "POLITICS"
    p = write(tmp_path / "m.json", json.dumps(doc, indent=2))
    messages = [m.split(": ", 1)[1] for m in errors_of(p)]
    assert messages == [
        "$.requirements[0].communities: no entry for language 'ca_es' (give a list, empty for templates without "
        "communities)",
        "$.requirements[1].name: duplicate requirement name 'REQ1' (also $.requirements[0])",
        "$.requirements[1].markup: 'POLITICS' is not a markup of concern 'Politics' (it looks like a misspelling; "
        "known: POLITICAL_VIEW); did you mean 'POLITICAL_VIEW'?",
    ]


def test_missing_file(tmp_path: Path) -> None:
    assert errors_of(tmp_path / "nope.json") == [f"{tmp_path / 'nope.json'}: no such file"]


@pytest.mark.parametrize("path", sorted(p for p in (REPO / "requirements_models").glob("*.json")
                                         if not p.name.endswith(".schema.json")))
def test_shipped_models_are_valid(path: Path) -> None:
    model = load_requirements(path)
    assert model.requirements or model.decisions
