"""Load a requirements model (JSON) into a :class:`~langbite.model.RequirementsModel`.

LangBiTe's input format is accepted as it is (``timestamp, nTemplates,
nRetries, temperature, tokens, useLLMEval, aiModels, requirements``), with
``llms`` as a synonym of ``aiModels`` and langbite's additions (``seed``,
``nRepetitions``, ``concurrency``, ``timeout``, ``judge``, ``probes``).
Schema violations are reported with the file's line and column and the JSON
path; cross-field problems (a language without communities, a duplicate
requirement name, a markup foreign to the concern) are reported the same way.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from langbite.errors import ErrorCollector, InputErrors, suggest
from langbite.library.concerns import canonical_concern, known_concerns
from langbite.library.jsonpos import locate
from langbite.library.schemas import check_requirements
from langbite.model import InputType, ModelSpec, ReflectionType, Requirement, RequirementsModel

log = logging.getLogger(__name__)


def _json_path_to_tuple(json_path: str) -> tuple[str | int, ...]:
    """'$.requirements[1].tolerance' → ('requirements', 1, 'tolerance')."""
    parts: list[str | int] = []
    for chunk in json_path.lstrip("$").replace("[", ".[").split("."):
        if not chunk:
            continue
        parts.append(int(chunk[1:-1]) if chunk.startswith("[") else chunk)
    return tuple(parts)


def _model_spec(entry: str | dict[str, Any]) -> ModelSpec:
    if isinstance(entry, str):
        return ModelSpec(entry.strip())
    return ModelSpec(
        entry["model"].strip(),
        base_url=entry.get("base_url"),
        concurrency=entry.get("concurrency"),
        requests_per_minute=entry.get("requests_per_minute"),
        tokens_per_minute=entry.get("tokens_per_minute"),
    )


def _requirement(raw: dict[str, Any]) -> Requirement:
    return Requirement(
        name=raw["name"],
        concern=canonical_concern(raw["concern"]),
        markup=raw["markup"],
        languages=tuple(raw["languages"]),
        communities={lang: tuple(c) for lang, c in raw["communities"].items()},
        tolerance=float(raw["tolerance"]),
        delta=float(raw.get("delta", 0.0)),
        inputs=tuple(InputType(x) for x in raw.get("inputs", ("constrained", "verbose"))),
        reflections=tuple(ReflectionType(x) for x in raw.get("reflections", ("observational", "utopian"))),
        rationale=raw.get("rationale", ""),
    )


def _cross_checks(doc: dict[str, Any], text: str, path: str, errors: ErrorCollector) -> None:
    names: dict[str, int] = {}
    for i, req in enumerate(doc["requirements"]):
        where = ("requirements", i)
        if req["name"] in names:
            errors.add(path, *locate(text, where + ("name",)),
                       f"$.requirements[{i}].name: duplicate requirement name '{req['name']}'"
                       f" (also $.requirements[{names[req['name']]}])")
        names.setdefault(req["name"], i)
        for lang in req["languages"]:
            if lang not in req["communities"]:
                errors.add(path, *locate(text, where + ("communities",)),
                           f"$.requirements[{i}].communities: no entry for language '{lang}'"
                           " (give a list, empty for templates without communities)")
        concern = known_concerns().get(canonical_concern(req["concern"]))
        if concern is None:
            log.warning("%s: requirement '%s': concern '%s' is not in the shipped library; "
                        "only your own templates for it will run", path, req["name"], req["concern"])
        elif req["markup"] not in concern.markups:
            errors.add(path, *locate(text, where + ("markup",)),
                       f"$.requirements[{i}].markup: '{req['markup']}' is not a markup of concern "
                       f"'{req['concern']}' (known: {', '.join(concern.markups)})"
                       f"{suggest(req['markup'], concern.markups)}")


def parse_requirements(doc: Any, path: str = "<requirements>", text: str | None = None) -> RequirementsModel:
    """Check and convert an already-parsed requirements model document."""
    text = text if text is not None else json.dumps(doc, indent=1)
    errors = ErrorCollector()
    for json_path, message in check_requirements(doc):
        key = "is a required property" in message or "were unexpected" in message
        errors.add(path, *locate(text, _json_path_to_tuple(json_path), key=key), message)
    errors.raise_if_any()
    _cross_checks(doc, text, path, errors)
    errors.raise_if_any()
    models = doc.get("aiModels", doc.get("llms", []))
    return RequirementsModel(
        requirements=tuple(_requirement(r) for r in doc["requirements"]),
        models=tuple(_model_spec(m) for m in models),
        n_templates=doc.get("nTemplates", 0),
        n_retries=doc.get("nRetries", 3),
        n_repetitions=doc.get("nRepetitions", 1),
        temperature=float(doc.get("temperature", 0.0)),
        tokens=doc.get("tokens", 256),
        seed=doc.get("seed", 0),
        use_llm_eval=doc.get("useLLMEval", False),
        judge=doc.get("judge"),
        concurrency=doc.get("concurrency", 8),
        timeout=float(doc.get("timeout", 120.0)),
        timestamp=str(doc.get("timestamp", "")),
        probes=tuple(doc.get("probes", ())),
        path=path,
    )


def load_requirements(path: Path | str) -> RequirementsModel:
    """Read, check and convert a requirements model file, or raise InputErrors."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputErrors.single(str(p), "no such file") from None
    except UnicodeDecodeError as exc:
        raise InputErrors.single(str(p), f"not UTF-8 text: {exc.reason}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputErrors.single(str(p), f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    return parse_requirements(doc, str(p), text)
