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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langbite.evaluate.summary import GroupResult, judge_agreement, summarise
from langbite.model import Answer, Verdict
from langbite.report import rows
from langbite.report.rows import SUMMARY_COLUMNS

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
    summary: list[dict[str, Any]]
    by_concern: list[GroupResult]
    by_language: list[GroupResult]
    global_rows: list[dict[str, Any]]
    evaluations: list[dict[str, Any]]
    responses: list[dict[str, Any]]  # the responses the documents show (all, or those of failing templates)
    probes: list[dict[str, Any]] = field(default_factory=list)
    responses_total: int = 0
    judge: list[dict[str, Any]] = field(default_factory=list)  # judge_agreement.csv: oracle vs judge, per outcome
    counterfactual: list[dict[str, Any]] = field(default_factory=list)  # counterfactual.csv: pairs of communities
    probe_sections: list[dict[str, Any]] = field(default_factory=list)  # GenderBench's section marks, per model
    probe_data: list[dict[str, Any]] = field(default_factory=list)  # data sets the probes read, with licences
    disfavoured: list[dict[str, Any]] = field(default_factory=list)  # disfavoured.csv: who the failures disfavoured
    evidence: list[dict[str, Any]] = field(default_factory=list)  # evidence.csv's rows the workbook shows
    prompt_groups: list[dict[str, Any]] = field(default_factory=list)  # your prompts: test x model verdicts
    prompt_failures: list[dict[str, Any]] = field(default_factory=list)  # your prompts that did not pass
    decision_verdicts: list[dict[str, Any]] = field(default_factory=list)  # audit x model x tolerance
    decision_groups: list[dict[str, Any]] = field(default_factory=list)  # audit x model x group
    decision_flips: list[dict[str, Any]] = field(default_factory=list)  # audit x model x pair of groups

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

        def total(column: str) -> int:
            return sum(int(r.get(column) or 0) for r in self.summary)

        counts = (f"{passed} of {len(self.summary)} requirement × model × language passed; templates: "
                  f"{total('passed')} passed, {total('failed')} failed, {total('refused')} refused, "
                  f"{total('undetermined')} undetermined, {total('errors')} errors (no answer)")
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
        by_key: dict[str, list[dict[str, Any]]] = {}
        for r in self.responses:
            by_key.setdefault(r["key"], []).append(r)
        out = []
        for e in self.evaluations:
            if e["verdict"] != str(Verdict.PASSED):
                out.append({**e, "responses": by_key.get(e["key"], [])})
                if len(out) >= limit:
                    break
        return out


def _summary_row(g: GroupResult) -> dict[str, Any]:
    row = rows.global_row(g)
    return {c: row.get(c, "") for c in SUMMARY_COLUMNS}


def gather(run_dir: Path, results: Sequence[Any]) -> ReportData:
    """Everything the documents show, from the suites' typed results and the run folder's run.json."""
    from langbite.suites.decisions import DecisionResults
    from langbite.suites.probes import ProbeResults
    from langbite.suites.prompts import PromptResults
    from langbite.suites.templates import TemplateResults

    probes = [row.as_dict() for r in results if isinstance(r, ProbeResults) for row in r.metric_rows()]
    probe_results = next((r for r in results if isinstance(r, ProbeResults)), None)
    sections = [row for row in probe_results.section_rows() if row["mark"]] if probe_results else []
    probe_data = probe_results.provenance()["probe_data"] if probe_results else []
    audits = next((r for r in results if isinstance(r, DecisionResults)), None)
    own = next((r for r in results if isinstance(r, PromptResults)), None)
    own_pairs = [dict(row) for row in own.pairs] if own else []
    decisions: dict[str, Any] = {"decision_verdicts": audits.verdict_rows(), "decision_groups": audits.group_rows(),
                                 "decision_flips": audits.flip_rows()} if audits else {}
    if own:
        decisions["prompt_groups"] = [{**g, "verdict": str(g["verdict"])} for g in own.groups()]
        decisions["prompt_failures"] = [r for r in own.rows if r["verdict"] != "Passed"]
    templates = next((r for r in results if isinstance(r, TemplateResults)), None)
    if templates is None or not templates.suite.items:
        return ReportData(run_dir, _meta(run_dir), [], [], [], [], [], [], probes, 0, counterfactual=own_pairs,
                          probe_sections=sections, probe_data=probe_data, **decisions)
    plan = templates.suite.plan
    evaluations = templates.evaluations
    requirements = plan.config.requirements
    summary = templates.groups()
    by_concern = summarise(evaluations, requirements, by=("provider", "model", "concern"))
    by_language = summarise(evaluations, requirements, by=("provider", "model", "language"))
    glob = summarise(evaluations, requirements)
    evaluation_rows = [rows.evaluation_row(e) for e in evaluations]
    total = plan.n_instances * plan.config.n_repetitions * len(plan.models)
    failing = {e["key"] for e in evaluation_rows if e["verdict"] != str(Verdict.PASSED)}
    keep_all = total <= RESPONSE_ROWS
    response_rows = []  # streamed: only the rows the documents show are held in memory
    for r in rows.response_rows(plan, templates.answers):
        if keep_all or r["key"] in failing:
            response_rows.append(r)
    judge = [{k: str(v) if k != "count" else v for k, v in row.items()} for row in judge_agreement(evaluations)]
    return ReportData(run_dir, _meta(run_dir), [_summary_row(g) for g in summary], by_concern, by_language,
                      [rows.global_row(g) for g in glob], evaluation_rows, response_rows, probes, total, judge,
                      templates.counterfactual() + own_pairs, sections, probe_data, templates.disfavoured(),
                      list(itertools.islice(rows.evidence_rows(plan, templates.answers, evaluations), RESPONSE_ROWS)),
                      **decisions)


def _meta(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "run.json"
    try:
        meta: Any = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except ValueError as exc:  # UnicodeDecodeError included
        log.warning("%s is damaged (%s); the reports are written without its details (versions, times, "
                    "counts); the next 'langbite run' in this folder writes it again", path, exc)
        meta = {}
    return meta if isinstance(meta, dict) else {}
