"""Everything a human-readable report shows, gathered once for every format.

Built from the suites' typed results (template verdicts and answers, probe
metrics) and the run folder's ``run.json``, so ``langbite report`` rebuilds the
same workbook and page from the journal without calling any model.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from langbite.evaluate.summary import GroupResult, summarise
from langbite.model import Answer, Verdict
from langbite.report import rows
from langbite.report.rows import (
    CounterfactualRow,
    DecisionFlipRow,
    DecisionGroupRow,
    DecisionVerdictRow,
    DisfavouredRow,
    EvaluationRow,
    EvidenceRow,
    GlobalRow,
    JudgeAgreementRow,
    ProbeDataRow,
    ProbeMetricRow,
    PromptGroupRow,
    PromptResultRow,
    ResponseRow,
    SectionRow,
    SummaryRow,
)

log = logging.getLogger(__name__)
Answers = Mapping[tuple[str, str, int], Answer]

#: Documents show every response up to this many; above it, those of templates that did not pass.
RESPONSE_ROWS = 10_000
LEGEND_LINES = (
    "Verdict: Passed when the pass rate reaches the tolerance (green), Failed when it does not (red), "
    "Inconclusive when too many answers were undetermined or the interval lies across the tolerance (amber), "
    "Not evaluated when no template ran (grey).",
    "The 95% interval (Wilson) shows whether the verdict is statistically clear: 'above' or 'below' the "
    "tolerance, or 'across' it (amber: not clear, test more).",
)
LEGEND = " ".join(LEGEND_LINES)

@dataclass
class ReportData:
    run_dir: Path
    meta: dict[str, Any]
    summary: list[SummaryRow]
    by_concern: list[GroupResult]
    by_language: list[GroupResult]
    global_rows: list[GlobalRow]
    evaluations: list[EvaluationRow]
    responses: list[ResponseRow]  # the responses the documents show (all, or those of failing templates)
    probes: list[ProbeMetricRow] = field(default_factory=list)
    responses_total: int = 0
    judge: list[JudgeAgreementRow] = field(default_factory=list)  # judge_agreement.csv: oracle vs judge, per outcome
    counterfactual: list[CounterfactualRow] = field(default_factory=list)  # counterfactual.csv: pairs of communities
    probe_sections: list[SectionRow] = field(default_factory=list)  # GenderBench's section marks, per model
    probe_data: list[ProbeDataRow] = field(default_factory=list)  # data sets the probes read, with licences
    disfavoured: list[DisfavouredRow] = field(default_factory=list)  # disfavoured.csv: who the failures disfavoured
    evidence: list[EvidenceRow] = field(default_factory=list)  # evidence.csv's rows the workbook shows
    prompt_groups: list[PromptGroupRow] = field(default_factory=list)  # your prompts: test x model verdicts
    prompt_failures: list[PromptResultRow] = field(default_factory=list)  # your prompts that did not pass
    decision_verdicts: list[DecisionVerdictRow] = field(default_factory=list)  # audit x model x tolerance
    decision_groups: list[DecisionGroupRow] = field(default_factory=list)  # audit x model x group
    decision_flips: list[DecisionFlipRow] = field(default_factory=list)  # audit x model x pair of groups

    def headline(self) -> dict[str, Any]:
        """What the first screen says: the overall verdict, the models, the date, what failed, the counts.

        Counts are the summary table's, so every view agrees: a *group* is one requirement × model
        × language; refused, undetermined and errors count templates (errors: no answer to read).
        """
        verdicts = [str(r["verdict"]) for r in self.summary]
        audits = {(r["audit"], r["model"]): r["verdict"] for r in self.decision_verdicts if r["verdict"] != "Passed"}
        audit_verdicts = [audits.get(k, "Passed") for k in dict.fromkeys((r["audit"], r["model"])
                                                                         for r in self.decision_verdicts)]
        verdicts += audit_verdicts + [str(g["verdict"]) for g in self.prompt_groups]
        if not verdicts:
            overall = "Probes only" if self.probes else "Not evaluated"
        elif str(Verdict.FAILED) in verdicts:
            overall = str(Verdict.FAILED)
        elif all(v == str(Verdict.PASSED) for v in verdicts):
            overall = str(Verdict.PASSED)
        else:
            overall = "Inconclusive"
        failing = [f"{r['requirement']} ({r['model']}, {r['language']})" for r in self.summary
                   if str(r["verdict"]) == str(Verdict.FAILED)]
        failing += [f"decision audit {a} ({m})" for (a, m), v in audits.items() if v == str(Verdict.FAILED)]
        passed = sum(1 for v in verdicts[:len(self.summary)] if v == str(Verdict.PASSED))

        counts = (f"{passed} of {len(self.summary)} requirement × model × language passed; templates: "
                  f"{sum(r['passed'] for r in self.summary)} passed, {sum(r['failed'] for r in self.summary)} failed, "
                  f"{sum(r['refused'] for r in self.summary)} refused, "
                  f"{sum(r['undetermined'] for r in self.summary)} undetermined, "
                  f"{sum(r['errors'] for r in self.summary)} errors (no answer)")
        if self.prompt_groups:
            own = [str(g["verdict"]) for g in self.prompt_groups]
            line = f"{own.count(str(Verdict.PASSED))} of {len(own)} prompt test × model passed"
            counts = f"{counts}; {line}" if self.summary else line
            failing += [f"prompt test {g['test']} ({g['model']})" for g in self.prompt_groups
                        if str(g["verdict"]) == str(Verdict.FAILED)]
        if audit_verdicts:
            audit_line = (f"{audit_verdicts.count(str(Verdict.PASSED))} of {len(audit_verdicts)} decision audit × "
                          "model passed")
            counts = f"{counts}; {audit_line}" if self.summary or self.prompt_groups else audit_line
        own_models = ", ".join(dict.fromkeys(g["model"] for g in self.prompt_groups))
        return {"verdict": overall, "models": ", ".join(self.models) or ", ".join(self.decision_models) or own_models or ", ".join(
                    dict.fromkeys(f"{r['provider']}:{r['model']}" for r in self.probes)),
                "date": str(self.meta.get("started", "")), "failing": failing,
                "counts": counts if verdicts else f"{len(self.probes)} probe metrics"}

    @property
    def decision_models(self) -> list[str]:
        return list(dict.fromkeys(r["model"] for r in self.decision_verdicts))

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(f"{r['provider']}:{r['model']}" for r in self.summary))

    def failures(self, limit: int = 500) -> list[dict[str, Any]]:
        """Failed and errored evaluations with their prompts and answers (first ``limit``)."""
        by_key: dict[str, list[ResponseRow]] = {}
        for r in self.responses:
            by_key.setdefault(r["key"], []).append(r)
        out = []
        for e in self.evaluations:
            if e["verdict"] != str(Verdict.PASSED):
                out.append({**e, "responses": by_key.get(e["key"], [])})
                if len(out) >= limit:
                    break
        return out


def gather(run_dir: Path, results: Sequence[Any]) -> ReportData:
    """Everything the documents show, from the suites' typed results and the run folder's run.json."""
    from langbite.suites.decisions import DecisionResults
    from langbite.suites.probes import ProbeResults
    from langbite.suites.prompts import PromptResults
    from langbite.suites.templates import TemplateResults

    probe_results = next((r for r in results if isinstance(r, ProbeResults)), None)
    audits = next((r for r in results if isinstance(r, DecisionResults)), None)
    own = next((r for r in results if isinstance(r, PromptResults)), None)
    templates = next((r for r in results if isinstance(r, TemplateResults)), None)
    data = ReportData(
        run_dir, _meta(run_dir), [], [], [], [], [], [],
        probes=[row.as_dict() for row in probe_results.metric_rows()] if probe_results else [],
        counterfactual=list(own.pairs) if own else [],
        probe_sections=[row for row in probe_results.section_rows() if row["mark"]] if probe_results else [],
        probe_data=probe_results.provenance()["probe_data"] if probe_results else [],
        prompt_groups=own.groups() if own else [],
        prompt_failures=[r for r in own.rows if r["verdict"] != "Passed"] if own else [],
        decision_verdicts=audits.verdict_rows() if audits else [],
        decision_groups=audits.group_rows() if audits else [],
        decision_flips=audits.flip_rows() if audits else [])
    if templates is None or not templates.suite.items:
        return data
    plan = templates.suite.plan
    evaluations = templates.evaluations
    requirements = plan.config.requirements
    evaluation_rows = [rows.evaluation_row(e) for e in evaluations]
    total = plan.n_instances * plan.config.n_repetitions * len(plan.models)
    failing = {e["key"] for e in evaluation_rows if e["verdict"] != str(Verdict.PASSED)}
    keep_all = total <= RESPONSE_ROWS
    response_rows = []  # streamed: only the rows the documents show are held in memory
    for r in rows.response_rows(plan, templates.answers):
        if keep_all or r["key"] in failing:
            response_rows.append(r)
    return replace(
        data, summary=[rows.summary_row(g) for g in templates.groups()],
        by_concern=summarise(evaluations, requirements, by=("provider", "model", "concern")),
        by_language=summarise(evaluations, requirements, by=("provider", "model", "language")),
        global_rows=[rows.global_row(g) for g in summarise(evaluations, requirements)],
        evaluations=evaluation_rows, responses=response_rows, responses_total=total,
        judge=rows.judge_agreement_rows(evaluations), counterfactual=templates.counterfactual() + data.counterfactual,
        disfavoured=templates.disfavoured(),
        evidence=list(itertools.islice(rows.evidence_rows(plan, templates.answers, evaluations), RESPONSE_ROWS)))


def _meta(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "run.json"
    try:
        meta: Any = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except ValueError as exc:  # UnicodeDecodeError included
        log.warning("%s is damaged (%s); the reports are written without its details (versions, times, "
                    "counts); the next 'langbite run' in this folder writes it again", path, exc)
        meta = {}
    return meta if isinstance(meta, dict) else {}
