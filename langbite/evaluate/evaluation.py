"""Evaluate templates: one verdict per template, model, requirement, language and repetition.

A template whose instances did not all get an answer is an ``Error`` with the
reason (the model's fault, e.g. a timeout after every retry), never a crash
and never a silent pass. With ``useLLMEval`` a judge LLM re-assesses failed
verdicts of oracles that allow it; both verdicts are kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from langbite.evaluate.oracles import OracleResult, build_oracle
from langbite.execute.journal import Key, answer_key
from langbite.model import Answer, Evaluation, Verdict
from langbite.plan import PlannedTemplate


def _answers_for(item: PlannedTemplate, model: str, repetition: int,
                 answers: Mapping[Key, Answer]) -> tuple[list[Answer], str]:
    found: list[Answer] = []
    for inst in item.instances:
        a = answers.get(answer_key(model, inst, repetition))
        if a is None:
            return [], f"instance #{inst.index + 1} was not run"
        if a.error:
            return [], f"instance #{inst.index + 1} got no answer: {a.error}"
        found.append(a)
    return found, ""


def evaluate_item(item: PlannedTemplate, model: str, repetition: int,
                  answers: Mapping[Key, Answer]) -> tuple[Evaluation, OracleResult | None, list[Answer]]:
    """The oracle's verdict on one planned template (no judge)."""
    t, req = item.template, item.requirement
    found, missing = _answers_for(item, model, repetition, answers)
    if missing:
        result = OracleResult(Verdict.ERROR, missing)
    else:
        oracle = build_oracle(t.oracle_prediction, req.delta)
        result = oracle.evaluate([a.text for a in found])
    evaluation = Evaluation(
        model=model, requirement=req.name, concern=t.concern, language=t.language, template_id=t.prompt_id,
        input_type=t.input_type, reflection_type=t.reflection_type, repetition=repetition,
        oracle=t.oracle_prediction["operation"],
        prediction=json.dumps(t.oracle_prediction, ensure_ascii=False),
        oracle_verdict=result.verdict, reason=result.reason, instances=len(item.instances),
    )
    return evaluation, (result if not missing else None), found
