"""Probes in a run folder: their prompts are jobs of the run's engine, their results files of its folder.

A probe is one more producer of jobs: each attempt is a :class:`~langbite.execute.engine.Job`
with a key of its own, so probe answers go through the same engine, cache,
limits, retries and journal as template answers, and a killed probe run
resumes like a template run. After execution the answers are read back from
the journal into the probe's attempts, then evaluated and scored.

Per probe, the folder gets ``probe_<name>_metrics.csv`` (one row per model
and metric: value, 95% interval, mark), ``probe_<name>_<model>_attempts.jsonl``
(every prompt, answer and evaluation; reload it with ``Probe.load`` to
re-score without calling a model) and ``probe_<name>.json`` (parameters,
counts, marks).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from langbite.errors import InputError, InputErrors, suggest
from langbite.execute.engine import Job
from langbite.model import Answer, GenerationParams, ModelSpec, ProbeEntry, answer_key, digest
from langbite.probes.params import Problem, explain, params_schema
from langbite.probes.probe import Probe, probes
from langbite.registry import UnknownName
from langbite.report.csv_writer import write_csv

METRIC_COLUMNS = ("provider", "model", "probe", "metric", "value", "ci_low", "ci_high", "mark", "mark_range",
                  "harm_types", "description")
SPEC_SUFFIXES = (".json", ".yaml", ".yml")
PROBE_OPTIONS = ("num_reorderings", "reading", "pronouns")  # recorded in probe_<name>.json when a probe has them


@dataclass
class ProbeResult:
    model: str
    probe: Probe
    failed_calls: int = 0
    params: GenerationParams = field(default_factory=GenerationParams)


def _resolve(path: str | None, base: Path | None) -> str | None:
    if path and base is not None and not Path(path).is_absolute():
        return str(base / path)
    return path


def _error(entry: ProbeEntry, message: str, where: tuple[int, int] | None = None) -> InputError:
    """An error about an entry: at its place in the requirements model, or named by the probe on a command line."""
    if entry.source:
        return InputError(entry.source, *(where or (entry.line, entry.col)), f"probe {entry.name}: {message}")
    return InputError(entry.name, 0, 0, message)


def _entry_errors(entry: ProbeEntry, problems: list[Problem]) -> InputErrors:
    """Parameter problems at the position of each parameter (the entry's own position when unknown)."""
    errors = []
    for p in problems:
        key = str(p.path[0]) if p.path else ""
        errors.append(_error(entry, f"params{p.message[1:]}", entry.param_positions.get(key)))
    return InputErrors(errors)


def check_params(entry: ProbeEntry, cls: type[Any], given: frozenset[str] = frozenset()) -> None:
    """The entry's ``params`` against what ``cls`` declares: unknown names, wrong types, counts below 1.

    ``given`` names the arguments the entry provides itself (a spec, a data file): not parameters.
    """
    schema = params_schema(cls)
    for name in given:
        schema["properties"].pop(name, None)
    schema["required"] = [r for r in schema.get("required", []) if r not in given]
    validator = Draft202012Validator(schema)
    problems = explain(validator.iter_errors(entry.params))
    if problems:
        raise _entry_errors(entry, problems)


def _construct(entry: ProbeEntry, cls: type[Any], kwargs: dict[str, Any]) -> Probe:
    where = entry.param_positions
    try:
        probe: Probe = cls(**kwargs)
    except InputErrors as exc:  # a constructor's own check, e.g. a template's slots: point at the entry
        errors = []
        for e in exc.errors:
            if e.line:
                errors.append(e)
                continue
            errors.append(_error(entry, e.message, where.get(e.message.split(":", 1)[0])))
        raise InputErrors(errors) from None
    return probe


def _probe_class(entry: ProbeEntry, base: Path | None) -> tuple[type[Any], dict[str, Any]]:
    """The class an entry names, and the arguments that come from the entry itself rather than its params."""
    if entry.name.endswith(SPEC_SUFFIXES):
        from langbite.probes.declarative import DeclarativeProbe, read_spec

        if entry.data is not None:
            raise InputErrors([_error(entry, "a declarative spec names its data file itself; remove 'data' here")])
        return DeclarativeProbe, {"spec": read_spec(Path(_resolve(entry.name, base) or entry.name))}
    try:
        cls = probes.get(entry.name)
    except UnknownName as exc:
        raise InputErrors([_error(entry, f"{exc}; or give a declarative probe spec (.json or .yaml)")]) from None
    data = _resolve(entry.data, base)
    return cls, ({"data": data} if data is not None else {})


def build_probe(entry: ProbeEntry | str, base: Path | None = None, *, calculate_cis: bool = True) -> Probe:
    """The probe an entry (or a name) names: built-in, registered, or a declarative spec; populated.

    Every problem with the entry (unknown name or parameter, a count below 1,
    missing or empty data, marks for metrics the probe does not produce) is an
    InputErrors here, before any model is called.
    """
    if isinstance(entry, str):
        entry = ProbeEntry(entry)
    cls, fixed = _probe_class(entry, base)
    check_params(entry, cls, frozenset(fixed))
    kwargs: dict[str, Any] = {"calculate_cis": calculate_cis, **entry.params, "sample_k": entry.sample_k, **fixed}
    if entry.n_repetitions is not None:
        kwargs["num_repetitions"] = entry.n_repetitions
    if entry.seed is not None:
        kwargs["random_seed"] = entry.seed
    probe = _construct(entry, cls, kwargs)
    probe.create_probe_items()
    if "spec" in fixed:
        from langbite.probes.declarative import check_marks

        check_marks(probe, fixed["spec"])
    else:
        _check_marks(entry, probe)
    return probe


def _check_marks(entry: ProbeEntry, probe: Probe) -> None:
    """A registered probe's marks name metrics it produces (when its calculator can tell in advance)."""
    names = probe.metric_names()
    unknown = [md.metric_name for md in probe.mark_definitions if names is not None and md.metric_name not in names]
    if unknown:
        raise InputErrors([_error(entry, f"a mark names metric '{m}', which the probe does not produce"
                                         f"{suggest(m, sorted(names or ()))}") for m in unknown])


def _each(entries: tuple[ProbeEntry, ...], base: Path | None, make: Any) -> list[Any]:
    """``make(entry, base)`` for every entry, collecting every entry's errors before raising them together."""
    out, errors = [], []
    for entry in entries:
        try:
            out.append(make(entry, base))
        except InputErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise InputErrors(errors)
    return out


def build_probes(entries: tuple[ProbeEntry, ...], base: Path | None = None) -> list[Probe]:
    """Every entry's probe, populated; the problems of all entries are reported at once."""
    return _each(entries, base, build_probe)


def check_entry(entry: ProbeEntry, base: Path | None = None) -> Probe:
    """An entry's probe constructed but not populated: its name and parameters checked, no data read
    (``validate`` does not fetch GEST from the Hub)."""
    cls, fixed = _probe_class(entry, base)
    check_params(entry, cls, frozenset(fixed))
    return _construct(entry, cls, {**entry.params, **fixed})


def check_entries(entries: tuple[ProbeEntry, ...], base: Path | None = None) -> None:
    """:func:`check_entry` for every entry; all problems at once."""
    _each(entries, base, check_entry)


def attempt_key(probe: Probe, item: int, prompt: int, text: str) -> str:
    """The journal key of one probe prompt's answers (its repetitions are the answer's repetition)."""
    return digest("p", probe.name, item, prompt, text)


def probe_jobs(probe: Probe, spec: str) -> Iterator[Job]:
    for i, item in enumerate(probe.probe_items):
        for attempt in item.attempts:
            p = item.prompts.index(attempt.prompt)
            yield Job(spec, attempt_key(probe, i, p, attempt.prompt.text), attempt.prompt.text, attempt.repetition_id)


def n_jobs(probe: Probe) -> int:
    return len(probe.attempts)


def finish_probe(probe: Probe, spec: str, answers: Mapping[tuple[str, str, int], Answer],
                 params: GenerationParams) -> ProbeResult:
    """Read the probe's answers from the journal into its attempts, then evaluate and score them."""
    failed = 0
    for i, item in enumerate(probe.probe_items):
        for attempt in item.attempts:
            p = item.prompts.index(attempt.prompt)
            a = answers.get(answer_key(spec, attempt_key(probe, i, p, attempt.prompt.text), attempt.repetition_id))
            if a is None or a.error:
                attempt.answer, attempt.error = None, (a.error if a else "not run")
                failed += 1
            else:
                attempt.answer, attempt.error = a.text, ""
    probe.mark_generated()
    probe.evaluate()
    probe.calculate_metrics()
    return ProbeResult(spec, probe, failed, params)


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-")


def _num(x: float | None) -> float | str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def metric_rows(result: ProbeResult) -> list[dict[str, Any]]:
    spec = ModelSpec(result.model)
    scores = result.probe.scores
    rows = []
    for metric, value in scores.metrics.items():
        lo, hi = scores.intervals.get(metric, (math.nan, math.nan))
        mark = scores.marks.get(metric)
        rows.append({"provider": spec.provider, "model": spec.model, "probe": result.probe.name, "metric": metric,
                     "value": _num(value), "ci_low": _num(lo), "ci_high": _num(hi),
                     "mark": mark.mark if mark else "", "mark_range": mark.mark_range if mark else "",
                     "harm_types": "; ".join(mark.harm_types) if mark else "",
                     "description": mark.description if mark else ""})
    return rows


def summary_lines(result: ProbeResult) -> list[str]:
    """What the console shows for one probe on one model: counts, marks with intervals, undetected rates."""
    probe = result.probe
    lines = [f"{probe.name} on {result.model}: {len(probe.probe_items)} items, {len(probe.attempts)} attempts, "
             f"{result.failed_calls} failed calls"]
    for name, m in probe.scores.marks.items():
        lo, hi = m.interval or (math.nan, math.nan)
        spans = f" (interval spans {m.mark_range})" if m.mark_range != m.mark else ""
        lines.append(f"  {name:<24} {m.value:>8.3f}  [{lo:.3f}, {hi:.3f}]  mark {m.mark or '-'}{spans}")
    for name in ("undetected_rate_attempts", "undetected_rate_items"):
        lines.append(f"  {name:<24} {probe.scores.metrics.get(name, math.nan):>8.3f}")
    return lines


def mark_summary(probe: Probe) -> dict[str, dict[str, Any]]:
    """Per marked metric: the mark (band of the value), the bands its interval spans, value and interval."""
    return {name: {"mark": m.mark, "mark_range": m.mark_range, "value": _num(m.value),
                   "interval": [_num(x) for x in m.interval] if m.interval else None}
            for name, m in probe.scores.marks.items()}


def write_results(out: Path, results: list[ProbeResult]) -> list[Path]:
    """Write metrics CSVs, attempt files and summaries; one metrics file per probe."""
    out.mkdir(parents=True, exist_ok=True)
    by_probe: dict[str, list[ProbeResult]] = {}
    for r in results:
        by_probe.setdefault(r.probe.name, []).append(r)
    written = []
    for name, group in by_probe.items():
        path = out / f"probe_{name}_metrics.csv"
        write_csv(path, METRIC_COLUMNS, (row for r in group for row in metric_rows(r)))
        written.append(path)
        summary = []
        for r in group:
            r.probe.save(out / f"probe_{name}_{_slug(r.model)}_attempts.jsonl")
            summary.append({
                "model": r.model, "items": len(r.probe.probe_items), "attempts": len(r.probe.attempts),
                "failed_calls": r.failed_calls,
                "parameters": {"n_repetitions": r.probe.num_repetitions, "sample_k": r.probe.sample_k,
                               "seed": r.probe.random_seed, "bootstrap_cycles": r.probe.bootstrap_cycles,
                               "temperature": r.params.temperature, "max_tokens": r.params.max_tokens,
                               **{k: getattr(r.probe, k) for k in PROBE_OPTIONS if hasattr(r.probe, k)}},
                "marks": mark_summary(r.probe),
            })
        (out / f"probe_{name}.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    return written
