"""The JSON Schemas really reject bad input: each rejection is proven here.

Both the shipped schema files on their own (as another tool would use them)
and langbite's checker with its messages are tested.
"""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from langbite.schemas import check_oracle_prediction, check_requirements
from langbite.resources import oracle_schema_path, requirements_schema_path

ORACLE = Draft202012Validator(json.loads(oracle_schema_path().read_text()))


def test_the_shipped_schemas_are_valid_json_schemas() -> None:
    """A run reads the shipped schemas without checking them against the metaschema (it costs a tenth of a
    second on every start); this test is that check."""
    for path in (oracle_schema_path(), requirements_schema_path()):
        Draft202012Validator.check_schema(json.loads(path.read_text()))
REQUIREMENTS = Draft202012Validator(json.loads(requirements_schema_path().read_text()))

VALID_PREDICTIONS = [
    {"operation": "equal", "expected_value": "No"},
    {"operation": "allEqualExpected", "expected_value": ["No", "I don't think"]},
    {"operation": "different", "expected_value": ["Yes"]},
    {"operation": "notIncludesAny", "expected_value": ["lazy", "stupid"]},
    {"operation": "allSameValue", "key": "probability"},
    {"operation": "matchesRegex", "pattern": "^(no|never)\\b", "flags": "i"},
    {"operation": "valueInRange", "key": "score", "min": 0, "max": 10},
    {"operation": "valueInRange", "key": "score", "max": 10},
    {"operation": "refuses"},
    {"operation": "refuses", "extra_phrases": ["I'd prefer not to"]},
    {"operation": "allSameAnswer", "options": ["Yes", "No"]},
    {"operation": "allSameAnswer"},
]

INVALID_PREDICTIONS = [
    (42, "must be a JSON object"),
    ({"expected_value": ["No"]}, "'operation' is a required property"),
    ({"operation": "equals", "expected_value": "No"}, "unknown operation 'equals'; did you mean 'equal'?"),
    ({"operation": "equal"}, "'expected_value' is a required property"),
    ({"operation": "allSameValue"}, "'key' is a required property"),
    ({"operation": "equal", "expected_value": 3}, "expected_value must be a string or a non-empty list"),
    ({"operation": "equal", "expected_value": []}, "expected_value must be a string or a non-empty list"),
    ({"operation": "equal", "expected_value": ["No", 1]}, "expected_value must be a string or a non-empty list"),
    ({"operation": "equal", "expected_value": ""}, "expected_value must be a string or a non-empty list"),
    ({"operation": "allSameValue", "key": 5}, "5 is not of type 'string'"),
    ({"operation": "allSameValue", "key": "p", "expected_value": "x"}, "'expected_value' was unexpected"),
    ({"operation": "equal", "expected_value": "No", "key": "p"}, "'key' was unexpected"),
    ({"operation": "matchesRegex"}, "'pattern' is a required property"),
    ({"operation": "matchesRegex", "pattern": "(unclosed"}, "invalid regular expression"),
    ({"operation": "matchesRegex", "pattern": "x", "flags": "q"}, "does not match"),
    ({"operation": "valueInRange", "key": "s"}, "needs 'min', 'max' or both"),
    ({"operation": "valueInRange", "key": "s", "min": "0"}, "'0' is not of type 'number'"),
    ({"operation": "allSameAnswer", "options": ["Yes"]}, "is too short"),
    ({"operation": 7, "expected_value": "No"}, "7 is not one of"),
]


@pytest.mark.parametrize("prediction", VALID_PREDICTIONS)
def test_valid_predictions_pass_both_checks(prediction: dict) -> None:
    assert check_oracle_prediction(prediction) == []
    assert list(ORACLE.iter_errors(prediction)) == []


@pytest.mark.parametrize(("prediction", "message"), INVALID_PREDICTIONS)
def test_invalid_predictions_are_rejected_with_a_clear_message(prediction: object, message: str) -> None:
    problems = check_oracle_prediction(prediction)
    assert problems, f"{prediction!r} was accepted"
    assert any(message in p for p in problems), problems


def _schema_can_tell(prediction: object) -> bool:
    """Regex syntax is checked by langbite; JSON Schema cannot express it."""
    return not (isinstance(prediction, dict) and prediction.get("operation") == "matchesRegex"
                and "pattern" in prediction and "flags" not in prediction)


@pytest.mark.parametrize(("prediction", "_"), [case for case in INVALID_PREDICTIONS if _schema_can_tell(case[0])])
def test_the_schema_file_alone_rejects_them_too(prediction: object, _: str) -> None:
    assert list(ORACLE.iter_errors(prediction)), f"the schema file accepts {prediction!r}"


def _model(**changes: object) -> dict:
    req = {"name": "R1", "languages": ["en_us"], "tolerance": 0.9, "delta": 0.02, "concern": "Sexism",
           "markup": "GENDER", "communities": {"en_us": ["men", "women"]},
           "inputs": ["constrained"], "reflections": ["observational"]}
    doc: dict = {"timestamp": 1, "n_templates": 5, "n_retries": 1, "temperature": 0.5, "max_tokens": 50,
                 "use_llm_eval": False, "models": ["OpenAIGPT4oMini"], "requirements": [req]}
    for key, value in changes.items():
        target, _, field = key.rpartition(".")
        (req if target == "req" else doc)[field] = value
    return doc


def test_langbite_model_is_valid() -> None:
    assert check_requirements(_model()) == []


@pytest.mark.parametrize(("changes", "message"), [
    ({"req.tolerance": 1.5}, "1.5 is greater than the maximum of 1"),
    ({"req.languages": ["english"]}, "does not match"),
    ({"req.inputs": ["free"]}, "'free' is not one of"),
    ({"req.markup": "gender"}, "does not match"),
    ({"req.communities": {"en_us": "men"}}, "is not of type 'array'"),
    ({"req.colour": "red"}, "'colour' was unexpected"),
    ({"n_templates": -1}, "less than the minimum of 0"),
    ({"n_repetitions": 0}, "less than the minimum of 1"),
    ({"models": [{"base_url": "http://x"}]}, "$.models[0]: 'model' is a required property"),
    ({"requirements": []}, "should be non-empty"),
    ({"use_llm_eval": "yes"}, "is not of type 'boolean'"),
])
def test_requirements_schema_rejections(changes: dict, message: str) -> None:
    doc = _model(**changes)
    problems = [m for _, m in check_requirements(doc)]
    assert any(message in p for p in problems), problems
    assert list(REQUIREMENTS.iter_errors(doc))
