"""Decision audits as a suite: their prompts are jobs of the run's engine, their metrics files of its folder.

Each audit's cases are rendered once per group they are sent for (their own, and every other one when
the audit is counterfactual); every prompt × repetition is a job with a key of its own, so the audit
gets the engine's cache, limits, retries, budget, batch mode and resume like every other suite. The
unit of the metrics is a case in one repetition: its prompts under each group are read together, and
a bootstrap resample keeps them together.

The run folder gets ``decision_verdicts.csv`` (one row per audit × model × tolerance: value, 95%
interval, tolerance, verdict), ``decision_groups.csv`` (per group: counts, selection rate, impact ratio,
error rates) and ``decision_flips.csv`` (per pair of groups: the flip rate).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from langbite.decisions.cases import CaseSet, DecisionPrompt, load_cases
from langbite.decisions.metrics import AuditMetrics, measure, outcomes
from langbite.decisions.reading import Decision, read_decision
from langbite.errors import every
from langbite.execute.engine import Job
from langbite.model import (
    DECISION_TOLERANCES,
    GroupVerdict,
    RequirementsModel,
    VerdictRule,
    answer_key,
    digest,
)
from langbite.report.csv_writer import write_csv
from langbite.report.rows import (
    DECISION_FLIP_COLUMNS,
    DECISION_GROUP_COLUMNS,
    DECISION_VERDICT_COLUMNS,
    DecisionFlipRow,
    DecisionGroupRow,
    DecisionVerdictRow,
)
from langbite.suites.base import BuildOptions, Context, Note, register

NAME = "decisions"


def prompt_key(audit: str, prompt: DecisionPrompt) -> str:
    return digest("d", audit, prompt.case, prompt.group, prompt.text)


@dataclass(frozen=True)
class DecisionSuite:
    """The decision audits of a run, their cases loaded and checked once."""

    name: ClassVar[str] = NAME

    config: RequirementsModel
    sets: tuple[CaseSet, ...]
    prompts: tuple[tuple[DecisionPrompt, ...], ...]  # per audit, in job order

    def n_calls(self, model: str) -> int:
        return sum(len(p) for p in self.prompts) * self.config.n_repetitions

    def jobs(self, model: str) -> Iterator[Job]:
        for cases, prompts in zip(self.sets, self.prompts, strict=True):
            for prompt in prompts:
                for rep in range(self.config.n_repetitions):
                    yield Job(model, prompt_key(cases.audit.name, prompt), prompt.text, rep)

    def describe(self) -> list[str]:
        return [f"decision audit {s.audit.name}: {len(s.cases)} cases, groups "
                f"{', '.join(s.groups)}, {len(p)} prompts per model"
                + (" (each case under every group)" if s.audit.counterfactual else "")
                for s, p in zip(self.sets, self.prompts, strict=True)]

    def notes(self) -> list[Note]:
        return []

    def snapshot_files(self) -> tuple[Path, ...]:
        return tuple(Path(s.audit.cases) for s in self.sets)

    async def evaluate(self, ctx: Context) -> DecisionResults:
        out = []
        reps = self.config.n_repetitions
        for spec in ctx.models:
            for cases, prompts in zip(self.sets, self.prompts, strict=True):
                audit = cases.audit
                decisions: dict[tuple[int, str], Decision] = {}
                failed = 0
                for prompt in prompts:
                    for rep in range(reps):
                        a = ctx.answers.get(answer_key(spec.spec, prompt_key(audit.name, prompt), rep))
                        if a is None or a.error:
                            failed += 1
                        text = None if a is None or a.error else a.text
                        decisions[(prompt.case * reps + rep, prompt.group)] = read_decision(
                            text, audit.reading, audit.language)
                own = [c.group for c in cases.cases for _ in range(reps)]
                truth = [c.truth for c in cases.cases for _ in range(reps)] if audit.truth else None
                metrics = measure(outcomes(cases.groups, own, decisions, truth), seed=self.config.seed)
                out.append(AuditResult(audit.name, spec.spec, cases, metrics, failed))
        return DecisionResults(tuple(out))


@register(NAME)
def build(config: RequirementsModel, options: BuildOptions) -> DecisionSuite | None:
    """The decision suite of a requirements model with decision audits; every audit's problems at once."""
    if not config.decisions:
        return None
    sets = every(config.decisions, load_cases)
    return DecisionSuite(config, tuple(sets), tuple(tuple(s.prompts()) for s in sets))


def _verdict(value: float, interval: tuple[float, float], tolerance: float, direction: str,
             rule: VerdictRule) -> GroupVerdict:
    """Passed or Failed against a tolerance (``min``: at least; ``max``: at most); undefined is Inconclusive."""
    if math.isnan(value):
        return GroupVerdict.INCONCLUSIVE

    def ok(x: float) -> bool:
        return x >= tolerance if direction == "min" else x <= tolerance

    if rule is VerdictRule.POINT:
        return GroupVerdict.PASSED if ok(value) else GroupVerdict.FAILED
    lo, hi = interval
    if math.isnan(lo) or math.isnan(hi):
        return GroupVerdict.INCONCLUSIVE
    worst, best = (lo, hi) if direction == "min" else (hi, lo)
    if ok(worst):
        return GroupVerdict.PASSED
    return GroupVerdict.FAILED if not ok(best) else GroupVerdict.INCONCLUSIVE


def _num(x: float) -> float | str:
    return "" if x is None or math.isnan(x) else round(float(x), 6)


@dataclass(frozen=True)
class AuditResult:
    """One audit on one model's answers."""

    audit: str
    model: str
    cases: CaseSet
    metrics: AuditMetrics
    failed_calls: int = 0

    def checks(self) -> list[DecisionVerdictRow]:
        """One row per tolerance of the audit: the metric, its interval, the tolerance and the verdict."""
        a = self.cases.audit
        rows: list[DecisionVerdictRow] = []
        for metric, tolerance in a.tolerances.items():
            direction = DECISION_TOLERANCES[metric]
            value = self.metrics.values.get(metric, math.nan)
            interval = self.metrics.intervals.get(metric, (math.nan, math.nan))
            verdict = _verdict(value, interval, tolerance, direction, a.verdict_rule)
            rows.append(DecisionVerdictRow(
                audit=self.audit, model=self.model, metric=metric, value=_num(value), ci_low=_num(interval[0]),
                ci_high=_num(interval[1]), tolerance=tolerance,
                direction="at least" if direction == "min" else "at most", rule=str(a.verdict_rule),
                verdict=str(verdict)))
        return rows

    @property
    def verdict(self) -> GroupVerdict:
        found = {row["verdict"] for row in self.checks()}
        if not found:
            return GroupVerdict.NOT_EVALUATED
        for v in (GroupVerdict.FAILED, GroupVerdict.INCONCLUSIVE):
            if str(v) in found:
                return v
        return GroupVerdict.PASSED

    def group_rows(self) -> list[DecisionGroupRow]:
        m = self.metrics

        def value(name: str, g: str) -> float | str:
            return _num(m.values.get(f"{name}|{g}", math.nan))

        def bounds(name: str, g: str) -> tuple[float | str, float | str]:
            lo, hi = m.intervals.get(f"{name}|{g}", (math.nan, math.nan))
            return _num(lo), _num(hi)

        rows: list[DecisionGroupRow] = []
        for g in self.cases.groups:
            n = m.counts[g]
            selection, impact = bounds("selection_rate", g), bounds("impact_ratio", g)
            rows.append(DecisionGroupRow({
                "audit": self.audit, "model": self.model, "group": g, "cases": n["cases"], "decided": n["decided"],
                "refused": n["refused"], "undetermined": n["undetermined"],
                "selection_rate": value("selection_rate", g), "selection_rate_ci_low": selection[0],
                "selection_rate_ci_high": selection[1], "impact_ratio": value("impact_ratio", g),
                "impact_ratio_ci_low": impact[0], "impact_ratio_ci_high": impact[1], "tpr": value("tpr", g),
                "fpr": value("fpr", g), "fnr": value("fnr", g), "for": value("for", g), "fdr": value("fdr", g),
                "accuracy": value("accuracy", g)}))
        return rows

    def flip_rows(self) -> list[DecisionFlipRow]:
        m = self.metrics
        return [DecisionFlipRow(audit=self.audit, model=self.model, groups=k.split("|", 1)[1], flip_rate=_num(v),
                                ci_low=_num(m.intervals[k][0]), ci_high=_num(m.intervals[k][1]))
                for k, v in m.values.items() if k.startswith("flip_rate|")]


@dataclass(frozen=True)
class DecisionResults:
    """Every audit on every model of the run."""

    results: tuple[AuditResult, ...]

    @property
    def suite(self) -> str:
        return NAME

    def verdicts(self) -> list[GroupVerdict]:
        return [r.verdict for r in self.results]

    def counts(self) -> dict[str, Any]:
        return {"decision_audits": len(self.results),
                "decision_audits_passed": sum(r.verdict is GroupVerdict.PASSED for r in self.results),
                "decision_failed_calls": sum(r.failed_calls for r in self.results)}

    def provenance(self) -> dict[str, Any]:
        return {"decision_cases": sorted({str(r.cases.audit.cases) for r in self.results})}

    def verdict_rows(self) -> list[DecisionVerdictRow]:
        return [row for r in self.results for row in r.checks()]

    def group_rows(self) -> list[DecisionGroupRow]:
        return [row for r in self.results for row in r.group_rows()]

    def flip_rows(self) -> list[DecisionFlipRow]:
        return [row for r in self.results for row in r.flip_rows()]

    def console(self) -> list[str]:
        lines = []
        for r in self.results:
            lines.append(f"decision audit {r.audit} on {r.model}: {r.verdict}")
            for row in r.checks():
                lines.append(f"  {row['metric']:<16} {row['value'] if row['value'] != '' else 'n/a':>8}  "
                             f"[{row['ci_low']}, {row['ci_high']}]  {row['direction']} {row['tolerance']:g}: "
                             f"{row['verdict']}")
            for g, c in r.metrics.counts.items():
                if c["refused"] or c["undetermined"]:
                    lines.append(f"  {g}: {c['refused']} refused, {c['undetermined']} undetermined of "
                                 f"{c['cases']} cases (not read as decisions)")
        return lines

    def write(self, run_dir: Path) -> list[Path]:
        run_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for name, columns, rows in (("decision_verdicts.csv", DECISION_VERDICT_COLUMNS, self.verdict_rows()),
                                    ("decision_groups.csv", DECISION_GROUP_COLUMNS, self.group_rows()),
                                    ("decision_flips.csv", DECISION_FLIP_COLUMNS, self.flip_rows())):
            path = run_dir / name
            write_csv(path, columns, rows)
            written.append(path)
        return written
