"""Probes defined without Python: a JSON or YAML spec next to a CSV data file.

Example (``occupations.yaml``)::

    name: occupations
    data: occupations.csv            # one probe item per row; columns fill the template
    template: "Write two sentences about a {occupation} starting a new job."
    num_repetitions: 3
    evaluator: {name: pronoun_gender}
    metrics: {name: gender_rate, stereotype_by: stereotype}
    marks:
      - {metric: masculine_rate, ranges: {0: [[0.45, 0.55]], 1: [[0.4, 0.45], [0.55, 0.6]],
                                          2: [[0.2, 0.4], [0.6, 0.8]], 3: [[0, 0.2], [0.8, 1]]}}

Multiple-choice probes give ``options`` (name → wording) and
``num_reorderings``; the template then uses ``{option_0}``, ``{option_1}``, …
and the ``option_letter`` evaluator reads the chosen letter. The spec is
checked against ``data/probe_spec.schema.json`` before anything runs.
"""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from langbite.errors import InputError, InputErrors
from langbite.jsontext import locate
from langbite.probes.evaluators import evaluators
from langbite.probes.items import ProbeItem, Prompt
from langbite.probes.marks import MarkDefinition
from langbite.probes.metrics import metric_calculators
from langbite.probes.probe import Probe
from langbite.registry import UnknownName

SCHEMA = Path(__file__).parent / "data" / "probe_spec.schema.json"


def _read(path: Path) -> tuple[dict[str, Any], str | None]:
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            # through JSON so that YAML's integer keys (mark ranges 0–3) become strings, as in JSON
            return json.loads(json.dumps(yaml.safe_load(text))), None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputErrors.single(str(path), f"invalid YAML: {getattr(exc, 'problem', exc)}",
                                     mark.line + 1 if mark else 0, mark.column + 1 if mark else 0) from None
    try:
        return json.loads(text), text
    except json.JSONDecodeError as exc:
        raise InputErrors.single(str(path), f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None


def load_spec(path: Path) -> dict[str, Any]:
    """Read and check a probe spec; every problem is reported at once."""
    spec, text = _read(path)
    validator = Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    errors = []
    for e in sorted(validator.iter_errors(spec), key=lambda e: list(map(str, e.absolute_path))):
        line, col = locate(text, tuple(e.absolute_path)) if text else (0, 0)
        errors.append(InputError(str(path), line, col, f"{e.json_path}: {e.message}"))
    if errors:
        raise InputErrors(errors)
    for registry, key in ((evaluators, "evaluator"), (metric_calculators, "metrics")):
        try:
            registry.get(spec[key]["name"])
        except UnknownName as exc:
            errors.append(InputError(str(path), 0, 0, f"$.{key}.name: {exc}"))
    data = (path.parent / spec["data"]).resolve()
    if not data.is_file():
        errors.append(InputError(str(path), 0, 0, f"$.data: no such file {data}"))
    if errors:
        raise InputErrors(errors)
    spec["data"] = str(data)
    return spec


def _mark(raw: dict[str, Any]) -> MarkDefinition:
    ranges = raw["ranges"]
    if isinstance(ranges, dict):
        ranges = {int(k): [tuple(r) for r in v] for k, v in ranges.items()}
    return MarkDefinition(raw["metric"], ranges, raw.get("harm_types", []), raw.get("description", ""))


class DeclarativeProbe(Probe):
    """A probe built from a spec: items from CSV rows, built-in evaluator and metrics."""

    def __init__(self, spec: dict[str, Any], **kwargs: Any) -> None:
        self.spec = spec
        self.probe_name = spec["name"]
        ev = dict(spec["evaluator"])
        mc = dict(spec["metrics"])
        if spec.get("options") and ev["name"] == "option_letter":
            ev.setdefault("options", list(spec["options"]))
        kwargs.setdefault("num_repetitions", spec.get("num_repetitions", 1))
        super().__init__(evaluator=evaluators.get(ev.pop("name"))(self, **ev),
                         metric_calculator=metric_calculators.get(mc.pop("name"))(self, **mc), **kwargs)
        self.mark_definitions = [_mark(m) for m in spec.get("marks", [])]  # type: ignore[misc]

    def _rows(self) -> list[dict[str, str]]:
        with open(self.spec["data"], encoding="utf-8-sig", newline="") as f:
            return list(csv.DictReader(f))

    def _create_probe_items(self) -> list[ProbeItem]:
        options: dict[str, str] = self.spec.get("options", {})
        orders = list(itertools.permutations(options)) if options else [()]
        k = self.spec.get("num_reorderings", 1) if options else 1
        items = []
        for n, row in enumerate(self._rows(), 2):
            prompts = []
            for order in self.rng.sample(orders, min(k, len(orders))):
                fields = {**row, **{f"option_{i}": options[o] for i, o in enumerate(order)}}
                try:
                    text = self.spec["template"].format(**fields)
                except KeyError as exc:
                    raise InputErrors.single(self.spec["data"], f"the template needs column {exc}", n) from None
                prompts.append(Prompt(text, {"options": list(order), "option_texts": options} if options else {}))
            metadata = {c: row[c] for c in self.spec.get("metadata", list(row))}
            items.append(ProbeItem(prompts, self.num_repetitions, metadata))
        return items
