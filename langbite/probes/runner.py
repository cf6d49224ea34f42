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

from langbite.errors import InputErrors
from langbite.execute.engine import Job
from langbite.model import Answer, GenerationParams, ModelSpec, ProbeEntry, answer_key, digest
from langbite.probes.probe import Probe, probes
from langbite.registry import UnknownName
from langbite.report.csv_writer import write_csv

METRIC_COLUMNS = ("provider", "model", "probe", "metric", "value", "ci_low", "ci_high", "mark", "harm_types",
                  "description")


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


def build_probe(entry: ProbeEntry | str, base: Path | None = None, *, calculate_cis: bool = True) -> Probe:
    """The probe an entry (or a name) names: built-in, registered, or a declarative spec; populated.

    Every problem with the entry (unknown name or parameter, missing data) is an
    InputErrors here, before any model is called.
    """
    if isinstance(entry, str):
        entry = ProbeEntry(entry)
    kwargs: dict[str, Any] = {"calculate_cis": calculate_cis, **entry.params, "sample_k": entry.sample_k}
    if entry.n_repetitions is not None:
        kwargs["num_repetitions"] = entry.n_repetitions
    if entry.seed is not None:
        kwargs["random_seed"] = entry.seed
    name = entry.name
    where = (entry.line, entry.col)
    if name.endswith((".json", ".yaml", ".yml")):
        from langbite.probes.declarative import DeclarativeProbe, load_spec

        spec = load_spec(Path(_resolve(name, base) or name))
        probe: Probe = DeclarativeProbe(spec, **kwargs)
    else:
        try:
            cls = probes.get(name)
        except UnknownName as exc:
            raise InputErrors.single(name, f"{exc}; or give a declarative probe spec (.json or .yaml)",
                                     *where) from None
        data = _resolve(entry.data, base)
        if data is not None:
            kwargs["data"] = data
        try:
            probe = cls(**kwargs)
        except TypeError as exc:
            raise InputErrors.single(name, f"bad probe parameters: {exc}", *where) from None
    probe.create_probe_items()
    return probe


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
    rows = []
    for metric, value in result.probe.metrics.items():
        lo, hi = result.probe.intervals.get(metric, (math.nan, math.nan))
        mark = result.probe.marks.get(metric, {})
        rows.append({"provider": spec.provider, "model": spec.model, "probe": result.probe.name, "metric": metric,
                     "value": _num(value), "ci_low": _num(lo), "ci_high": _num(hi), "mark": mark.get("mark", ""),
                     "harm_types": "; ".join(mark.get("harm_types", [])), "description": mark.get("description", "")})
    return rows


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
                               **{k: getattr(r.probe, k) for k in ("num_reorderings",) if hasattr(r.probe, k)}},
                "marks": {k: {"mark": v["mark"], "value": _num(v["value"]),
                              "interval": [_num(x) for x in v["interval"]] if v["interval"] else None}
                          for k, v in r.probe.marks.items()},
            })
        (out / f"probe_{name}.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    return written
