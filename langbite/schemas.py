"""Load the shipped JSON Schemas and turn violations into readable messages.

The oracle prediction schema in ``oracles/`` covers the built-in oracles;
plugin oracles contribute a schema fragment that is merged in at run time, so
one validator checks every prediction.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from langbite.errors import suggest
from langbite.oracles.base import oracles
from langbite.resources import oracle_schema_path, requirements_schema_path


@cache
def _load(path: str) -> dict[str, Any]:
    """A shipped schema (tests/test_schemas.py checks each against the metaschema, so a run need not)."""
    with open(path, encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


def oracle_schema() -> dict[str, Any]:
    """The shipped oracle schema extended with every registered plugin oracle."""
    schema = copy.deepcopy(_load(str(oracle_schema_path())))
    enum: list[str] = schema["properties"]["operation"]["enum"]
    shipped = len(enum)
    for name, cls in oracles.items():
        if name in enum:
            continue
        if cls.schema is None:
            raise TypeError(f"oracle '{name}' declares no schema fragment")
        enum.append(name)
        schema["allOf"].append({"if": {"required": ["operation"], "properties": {"operation": {"const": name}}},
                               "then": cls.schema})
    if len(enum) > shipped:  # a plugin's fragment is checked before it judges anything
        Draft202012Validator.check_schema(schema)
    return schema


@cache
def _oracle_validator(names: tuple[str, ...], _generation: int) -> Draft202012Validator:
    return Draft202012Validator(oracle_schema())


@cache
def _requirements_validator() -> Draft202012Validator:
    return Draft202012Validator(_load(str(requirements_schema_path())))


def _message(error: ValidationError) -> str:
    path = error.json_path
    if error.validator == "oneOf" and path.endswith(".expected_value"):
        return f"{path}: expected_value must be a string or a non-empty list of strings, not {error.instance!r}"
    if error.validator == "additionalProperties":
        return f"{path}: {error.message}"
    if error.validator == "pattern" and error.validator_value.startswith("^\\S"):
        return f"{path}: {error.instance!r} must not begin or end with white space"
    if error.validator == "anyOf" and error.validator_value and error.validator_value[0].get("required") == ["requirements"]:
        return f"{path}: 'requirements' should be non-empty (or give 'probes', 'decisions' or 'prompt_tests' to run only those)"
    if error.validator == "anyOf" and error.validator_value == [{"required": ["min"]}, {"required": ["max"]}]:
        return f"{path}: valueInRange needs 'min', 'max' or both"
    return f"{path}: {error.message}"


_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}


def _branch_errors(error: ValidationError) -> list[ValidationError]:
    """The errors of the one ``oneOf`` branch whose type is the instance's (a model given as an object)."""
    kind = _JSON_TYPES.get(type(error.instance))
    if kind != "object":
        return []  # scalars and lists keep the plain message (and the special ones of _message)
    branches = [i for i, b in enumerate(error.validator_value) if isinstance(b, dict) and b.get("type") == kind]
    if len(branches) != 1:
        return []
    return [c for c in error.context or () if c.relative_schema_path and c.relative_schema_path[0] == branches[0]]


def _sorted_errors(validator: Draft202012Validator, instance: Any) -> list[ValidationError]:
    errors = list(validator.iter_errors(instance))
    # an if/then failure repeats the inner errors; keep the innermost only
    leaves: list[ValidationError] = []
    for e in errors:
        if e.validator == "allOf" and e.context:
            leaves.extend(e.context)
        elif e.validator == "oneOf" and e.context and _branch_errors(e):
            leaves.extend(_branch_errors(e))  # "a string, or an object with …": what is wrong with the object
        else:
            leaves.append(e)
    return sorted(leaves, key=lambda e: (list(map(str, e.absolute_path)), e.message))


def check_oracle_prediction(prediction: Any) -> list[str]:
    """Return every problem with one oracle prediction (empty when valid)."""
    if not isinstance(prediction, dict):
        return [f"$: the oracle prediction must be a JSON object, not {type(prediction).__name__}"]
    op = prediction.get("operation")
    if isinstance(op, str) and op not in oracles:
        return [f"$.operation: unknown operation '{op}'{suggest(op, oracles.names())}"]
    validator = _oracle_validator(tuple(oracles.names()), oracles.generation)
    problems = [] if validator.is_valid(prediction) else [_message(e) for e in _sorted_errors(validator, prediction)]
    if not problems:
        problems = _semantic_problems(prediction)
    return problems


def _semantic_problems(prediction: dict[str, Any]) -> list[str]:
    """What a schema cannot say: regular expressions compile, ranges are not inverted."""
    import re

    problems = []
    for key in ("pattern", "contrary_pattern"):
        if isinstance(prediction.get(key), str):
            try:
                re.compile(prediction[key])
            except re.error as exc:
                problems.append(f"$.{key}: invalid regular expression: {exc}")
    low, high = prediction.get("min"), prediction.get("max")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and low > high:
        problems.append(f"$.min: the range is inverted: min {low:g} is greater than max {high:g}")
    return problems


def check_requirements(document: Any) -> list[tuple[str, str]]:
    """Return (json_path, message) for every schema violation of a requirements model."""
    return [(e.json_path, _message(e)) for e in _sorted_errors(_requirements_validator(), document)]
