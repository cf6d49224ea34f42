"""The only place report columns are defined; every writer uses these rows."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

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

RESPONSE_COLUMNS = (
    "provider", "model", "requirement", "concern", "language", "template_id", "input_type",
    "reflection_type", "instance", "communities", "repetition", "prompt", "response", "error",
    "cached", "tokens_in", "tokens_out",
)
EVALUATION_COLUMNS = (
    "provider", "model", "requirement", "concern", "language", "template_id", "input_type",
    "reflection_type", "repetition", "instances", "operation", "oracle_prediction", "outcomes",
    "biased_instances", "oracle_verdict", "reason", "judge_verdict", "judge_reason", "verdict",
)
# The verdict and what decides it first, so that they are on the workbook's first screen
# (tests/test_reports.py renders it); the counts follow, then what identifies the group further.
SUMMARY_COLUMNS = ("requirement", "model", "language", "verdict", "pass_rate", "tolerance", "ci_low", "ci_high",
                   "interval_vs_tolerance", "passed", "failed", "refused", "undetermined", "errors", "total",
                   "undetermined_share", "concern", "provider")
PROBE_METRIC_COLUMNS = ("provider", "model", "probe", "metric", "value", "ci_low", "ci_high", "mark", "mark_range",
                        "harm_types", "description")
#: Decision audits (decision_verdicts.csv, decision_groups.csv, decision_flips.csv, the Decisions sheet, the page).
DECISION_VERDICT_COLUMNS = ("audit", "model", "metric", "value", "ci_low", "ci_high", "tolerance", "direction", "rule",
                            "verdict")
DECISION_GROUP_COLUMNS = ("audit", "model", "group", "cases", "decided", "refused", "undetermined", "selection_rate",
                          "selection_rate_ci_low", "selection_rate_ci_high", "impact_ratio", "impact_ratio_ci_low",
                          "impact_ratio_ci_high", "tpr", "fpr", "fnr", "for", "fdr", "accuracy")
DECISION_FLIP_COLUMNS = ("audit", "model", "groups", "flip_rate", "ci_low", "ci_high")
#: GenderBench's section marks: one row per model and section (probe_sections.csv, the Summary sheet, the page).
SECTION_COLUMNS = ("model", "section", "mark", "metrics", "not_run")
COUNTERFACTUAL_COLUMNS = ("provider", "model", "requirement", "language", "community_a", "community_b", "templates",
                          "similarity", "similarity_ci_low", "similarity_ci_high", "valence_gap",
                          "valence_gap_ci_low", "valence_gap_ci_high", "flip_rate", "flip_rate_ci_low",
                          "flip_rate_ci_high")
#: One row per answer of every template that did not pass, its communities' answers next to each other.
EVIDENCE_COLUMNS = ("provider", "model", "requirement", "language", "template_id", "repetition", "verdict", "reason",
                    "operation", "oracle_prediction", "instance", "communities", "reading", "prompt", "answer")
#: Who the failed templates disfavoured: per requirement × model × language and community (disfavoured.csv).
DISFAVOURED_COLUMNS = ("provider", "model", "requirement", "language", "communities", "failed_templates",
                       "decided_templates", "share", "share_ci_low", "share_ci_high")
JUDGE_AGREEMENT_COLUMNS = ("concern", "language", "oracle", "judge", "count")
GLOBAL_COLUMNS = (
    "provider", "model", "requirement", "concern", "language", "input_type", "reflection_type",
    "passed", "failed", "refused", "undetermined", "errors", "total", "determined", "pass_rate", "ci_low",
    "ci_high", "undetermined_share", "refused_share", "tolerance", "verdict_by", "verdict",
    "interval_vs_tolerance",
)


def response_rows(plan: TemplatePlan, answers: Mapping[tuple[str, str, int], Answer]) -> Iterator[dict[str, Any]]:
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
                  evaluations: Sequence[Evaluation]) -> Iterator[dict[str, Any]]:
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


def disfavoured_rows(plan: TemplatePlan, evaluations: Sequence[Evaluation]) -> list[dict[str, Any]]:
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
    out = []
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


def evaluation_row(e: Evaluation) -> dict[str, Any]:
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


def global_row(g: GroupResult) -> dict[str, Any]:
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
