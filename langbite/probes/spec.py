"""Declarative probe specs: read (JSON or bounded YAML), checked against a schema made from declarations.

The schema of a spec is generated (:func:`spec_schema`): its ``evaluator``
and ``metrics`` objects accept exactly the parameters their registered
classes declare, and counts carry the bounds the Probe declares. The file
``data/probe_spec.schema.json`` is the same schema for the built-ins, for
editors; a test keeps the two equal (regenerate it with :func:`write_schema`).

Every problem is reported at once as ``PATH:LINE:COL: message``, for JSON
and YAML specs alike: unknown keys and parameters at their own position with
did-you-mean, template slots that are not plain names or not columns of the
data, and a missing, empty or folder data file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from langbite.errors import ErrorCollector, InputErrors, suggest
from langbite.jsontext import JsonProblem
from langbite.jsontext import Path as JsonPath
from langbite.jsontext import load_json, locate
from langbite.probes.datafile import read_csv, read_text
from langbite.probes.evaluators import Evaluator, evaluators
from langbite.probes.marks import MarkDefinition
from langbite.probes.metrics import MetricCalculator, metric_calculators
from langbite.probes.params import Schema, declared, explain, params_schema, type_schema
from langbite.probes.template import PlainTemplate, TemplateProblem
from langbite.probes.yamltext import load_yaml, locate_in

SCHEMA = Path(__file__).parent / "data" / "probe_spec.schema.json"
Locator = Callable[[JsonPath, bool], tuple[int, int]]
_RANGES: Schema = {"oneOf": [
    {"type": "array", "items": {"type": "number"}, "minItems": 5, "maxItems": 5},
    {"type": "object", "propertyNames": {"enum": ["0", "1", "2", "3"]}, "minProperties": 4,
     "additionalProperties": {"type": "array", "items": {"type": "array", "items": {"type": "number"},
                                                         "minItems": 2, "maxItems": 2}}},
]}


def _named(classes: dict[str, type[Any]]) -> Schema:
    branches = [{"if": {"properties": {"name": {"const": name}}, "required": ["name"]},
                 "then": params_schema(cls, {"name": {"const": name}})} for name, cls in sorted(classes.items())]
    return {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}, "allOf": branches}


def spec_schema(evaluator_classes: dict[str, type[Evaluator]] | None = None,
                calculator_classes: dict[str, type[MetricCalculator]] | None = None) -> Schema:
    """The spec schema for these evaluators and calculators (default: every registered one)."""
    from langbite.probes.probe import Probe

    probe = declared(Probe)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "langbite declarative probe",
        "$comment": "Generated from the declared parameters (langbite.probes.spec.write_schema); do not edit.",
        "type": "object",
        "required": ["name", "data", "template", "evaluator", "metrics"],
        "properties": {
            "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "description": {"type": "string"},
            "data": {"type": "string", "minLength": 1, "description": "CSV file, relative to the spec"},
            "template": {"type": "string", "minLength": 1},
            "metadata": {"type": "array", "items": {"type": "string"}},
            "cross": {"type": "object", "required": ["name", "values"], "additionalProperties": False,
                      "description": "Cross every data row with the groups of an attribute: one prompt per group, "
                                     "the {NAME} slot filled with the group (or one of its wordings or names)",
                      "properties": {
                          "name": {"type": "string", "pattern": "^[a-z_][a-z0-9_]*$"},
                          "values": {"oneOf": [
                              {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2,
                               "uniqueItems": True},
                              {"type": "object", "minProperties": 2, "additionalProperties": {
                                  "type": "array", "items": {"type": "string", "minLength": 1},
                                  "minItems": 1}}]}}},
            "options": {"type": "object", "minProperties": 2,
                        "additionalProperties": {"type": "string", "minLength": 1}},
            "num_reorderings": type_schema(probe["num_repetitions"].annotation),
            "num_repetitions": type_schema(probe["num_repetitions"].annotation),
            "evaluator": _named(evaluator_classes if evaluator_classes is not None else dict(evaluators.items())),
            "metrics": _named(calculator_classes if calculator_classes is not None
                              else dict(metric_calculators.items())),
            "marks": {"type": "array", "items": {
                "type": "object", "required": ["metric", "ranges"], "additionalProperties": False,
                "properties": {"metric": {"type": "string"}, "ranges": _RANGES,
                               "harm_types": {"type": "array", "items": {"type": "string"}},
                               "description": {"type": "string"}}}},
        },
        "additionalProperties": False,
    }


def write_schema(path: Path = SCHEMA) -> None:
    """Regenerate the shipped schema file from the built-in declarations."""
    path.write_text(json.dumps(spec_schema(), indent=2) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class ProbeSpec:
    """A checked spec: everything typed, the data file resolved."""

    path: Path
    name: str
    data: Path
    template: PlainTemplate
    evaluator: str
    evaluator_params: dict[str, Any]
    metrics: str
    metrics_params: dict[str, Any]
    options: dict[str, str] = field(default_factory=dict)
    num_reorderings: int = 1
    num_repetitions: int = 1
    metadata: tuple[str, ...] | None = None
    marks: tuple[MarkDefinition, ...] = ()
    description: str = ""
    cross_name: str = ""  # the crossed attribute (its slot and the prompts' metadata key); "" without cross
    cross_values: dict[str, tuple[str, ...]] = field(default_factory=dict)  # group → its wordings (or names)
    locate: Locator = field(default=lambda path, key: (0, 0), repr=False, compare=False)

    def where(self, path: JsonPath, key: bool = False) -> tuple[int, int]:
        return self.locate(path, key)

    @property
    def cross_groups(self) -> tuple[str, ...]:
        return tuple(self.cross_values)


def _read(path: Path) -> tuple[Any, Locator]:
    text = read_text(path, "probe spec")
    try:
        if path.suffix in (".yaml", ".yml"):
            doc, positions = load_yaml(text)
            return doc, lambda p, key: locate_in(positions, p, key)
        doc = load_json(text)
        return doc, lambda p, key: locate(text, p, key=key)
    except JsonProblem as exc:
        raise InputErrors.single(str(path), exc.message, exc.line, exc.col) from None


def _mark(raw: dict[str, Any]) -> MarkDefinition:
    ranges = raw["ranges"]
    if isinstance(ranges, dict):
        ranges = {int(k): [tuple(r) for r in v] for k, v in ranges.items()}
    return MarkDefinition(raw["metric"], ranges, list(raw.get("harm_types", [])), raw.get("description", ""))


def _kind(path: JsonPath) -> str:
    return {"evaluator": "evaluator parameter", "metrics": "metric calculator parameter"}.get(
        str(path[0]) if path else "", "key" if not path else "property")


def read_spec(path: Path) -> ProbeSpec:
    """Read and check a probe spec's text and data header; every problem is reported at once."""
    doc, where = _read(path)
    errors = ErrorCollector()
    if not isinstance(doc, dict):
        raise InputErrors.single(str(path), "a probe spec is a mapping of keys to values", 1, 1)
    for problem in explain(Draft202012Validator(spec_schema()).iter_errors(doc), _kind):
        errors.add(str(path), *where(problem.path, problem.key), problem.message)
    for key, registry in (("evaluator", evaluators), ("metrics", metric_calculators)):
        name = doc.get(key, {}).get("name") if isinstance(doc.get(key), dict) else None
        if isinstance(name, str) and name not in registry:
            errors.add(str(path), *where((key, "name"), False),
                       f"$.{key}.name: unknown {registry.kind} '{name}'{suggest(name, registry.names())} "
                       f"(available: {', '.join(registry.names())})")
    errors.raise_if_any()
    spec = _typed(path, doc, where, errors)
    errors.raise_if_any()
    return spec


def _typed(path: Path, doc: dict[str, Any], where: Locator, errors: ErrorCollector) -> ProbeSpec:
    data = (path.parent / doc["data"]).resolve()
    header: list[str] = []
    try:
        header, _ = read_csv(data, (), "probe data file")
    except InputErrors as exc:
        for e in exc.errors:
            errors.add(str(path), *where(("data",), False), f"$.data: {e}")
    try:
        template = PlainTemplate(doc["template"])
    except TemplateProblem as exc:
        errors.add(str(path), *where(("template",), False), f"$.template: {exc}")
        template = PlainTemplate("")
    options: dict[str, str] = doc.get("options", {})
    cross = doc.get("cross") or {}
    values = cross.get("values", [])
    cross_values: dict[str, tuple[str, ...]] = {str(v): (str(v),) for v in values} if isinstance(values, list) \
        else {str(g): tuple(str(f) for f in forms) for g, forms in values.items()}
    slots = set(header) | {f"option_{i}" for i in range(len(options))} | ({cross["name"]} if cross else set())
    if cross and cross["name"] in header:
        errors.add(str(path), *where(("cross", "name"), False),
                   f"$.cross.name: '{cross['name']}' is also a column of {data.name}; name the crossed attribute "
                   "differently")
    for name in template.missing(slots) if header else []:
        errors.add(str(path), *where(("template",), False),
                   f"$.template: slot {{{name}}} is neither a column of {data.name} nor an option"
                   f"{suggest(name, sorted(slots))} (columns: {', '.join(header)})")
    for i, column in enumerate(doc.get("metadata", [])):
        if header and column not in header:
            errors.add(str(path), *where(("metadata", i), False),
                       f"$.metadata[{i}]: '{column}' is not a column of {data.name}{suggest(column, header)}")
    ev, mc = dict(doc["evaluator"]), dict(doc["metrics"])
    return ProbeSpec(path, doc["name"], data, template, ev.pop("name"), ev, mc.pop("name"), mc, options,
                     doc.get("num_reorderings", 1), doc.get("num_repetitions", 1),
                     tuple(doc["metadata"]) if "metadata" in doc else None,
                     tuple(_mark(m) for m in doc.get("marks", [])), doc.get("description", ""),
                     cross_name=cross.get("name", ""), cross_values=cross_values, locate=where)
