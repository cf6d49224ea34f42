"""Run probes against langbite models and write their results into a run folder.

Per probe, the folder gets ``probe_<name>_metrics.csv`` (one row per model
and metric: value, 95% interval, mark), ``probe_<name>_<model>_attempts.jsonl``
(every prompt, answer and evaluation; reload it with ``Probe.load`` to
re-score without calling a model) and ``probe_<name>.json`` (parameters,
counts, marks).
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langbite.errors import InputErrors
from langbite.evaluate.summary import split_spec
from langbite.probes.generators import ModelGenerator
from langbite.probes.probe import Probe, probes
from langbite.registry import UnknownName
from langbite.report.csv_writer import write_csv

log = logging.getLogger(__name__)

METRIC_COLUMNS = ("provider", "model", "probe", "metric", "value", "ci_low", "ci_high", "mark", "harm_types",
                  "description")
#: max tokens per answer when the probe does not say: a letter for GEST, a short profile for Inventories
DEFAULT_MAX_TOKENS = {"gest": 24, "inventories": 160}


@dataclass
class ProbeResult:
    model: str
    probe: Probe
    seconds: float = 0.0
    stats: Any = None
    errors: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def build_probe(name: str, *, data: str | None = None, sample_k: int | None = None, repetitions: int | None = None,
                seed: int | None = None, calculate_cis: bool = True, params: dict[str, Any] | None = None) -> Probe:
    """A built-in or registered probe by name, or a declarative probe from a .json/.yaml spec."""
    kwargs: dict[str, Any] = dict(params or {})
    kwargs.update(sample_k=sample_k, calculate_cis=calculate_cis)
    if repetitions is not None:
        kwargs["num_repetitions"] = repetitions
    if seed is not None:
        kwargs["random_seed"] = seed
    if name.endswith((".json", ".yaml", ".yml")):
        from langbite.probes.declarative import DeclarativeProbe, load_spec

        return DeclarativeProbe(load_spec(Path(name)), **kwargs)
    try:
        cls = probes.get(name)
    except UnknownName as exc:
        raise InputErrors.single(name, f"{exc}; or give a declarative probe spec (.json or .yaml)") from None
    if data is not None:
        kwargs["data"] = data
    try:
        probe: Probe = cls(**kwargs)
        return probe
    except TypeError as exc:
        raise InputErrors.single(name, f"bad probe parameters: {exc}") from None


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-")


def run_probe(probe: Probe, spec: str, *, max_tokens: int | None = None, temperature: float = 0.7,
              concurrency: int = 8, use_cache: bool = True, progress: bool = True, base_url: str | None = None,
              retries: int = 3, timeout: float = 120.0) -> ProbeResult:
    """All four phases against one model spec."""
    tokens = max_tokens or getattr(probe, "spec", {}).get("max_tokens") or DEFAULT_MAX_TOKENS.get(probe.name, 200)
    generator = ModelGenerator(spec, temperature=temperature, max_tokens=tokens, seed=probe.random_seed,
                               concurrency=concurrency, use_cache=use_cache, progress=progress, base_url=base_url,
                               retries=retries, timeout=timeout)
    started = time.perf_counter()
    probe.run(generator)
    return ProbeResult(generator.spec.spec, probe, time.perf_counter() - started, generator.stats,
                       len(generator.errors), {"max_tokens": tokens, "temperature": temperature})


def _num(x: float | None) -> float | str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def metric_rows(result: ProbeResult) -> list[dict[str, Any]]:
    provider, model = split_spec(result.model)
    rows = []
    for metric, value in result.probe.metrics.items():
        lo, hi = result.probe.intervals.get(metric, (math.nan, math.nan))
        mark = result.probe.marks.get(metric, {})
        rows.append({"provider": provider, "model": model, "probe": result.probe.name, "metric": metric,
                     "value": _num(value), "ci_low": _num(lo), "ci_high": _num(hi), "mark": mark.get("mark", ""),
                     "harm_types": "; ".join(mark.get("harm_types", [])), "description": mark.get("description", "")})
    return rows


def write_results(out: Path, results: list[ProbeResult]) -> list[Path]:
    """Write metrics CSVs, attempt journals and summaries; one metrics file per probe."""
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
                "failed_calls": r.errors, "seconds": round(r.seconds, 2),
                "parameters": {"num_repetitions": r.probe.num_repetitions, "sample_k": r.probe.sample_k,
                               "random_seed": r.probe.random_seed, "bootstrap_cycles": r.probe.bootstrap_cycles,
                               **r.extra, **{k: getattr(r.probe, k) for k in ("num_reorderings",) if hasattr(r.probe, k)}},
                "marks": {k: {"mark": v["mark"], "value": _num(v["value"]),
                              "interval": [_num(x) for x in v["interval"]] if v["interval"] else None}
                          for k, v in r.probe.marks.items()},
            })
        (out / f"probe_{name}.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    return written
