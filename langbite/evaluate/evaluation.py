"""Evaluate templates: one verdict per template, model, requirement, language and repetition.

A template whose instances did not all get an answer is an ``Error`` with the
reason (the model's fault, e.g. a timeout after every retry), never a crash
and never a silent pass.
"""

from __future__ import annotations

from collections.abc import Mapping

from langbite.model import Answer, Evaluation, Verdict, answer_key
from langbite.evaluate.memo import ReadingMemo, reading_key
from langbite.oracles import Case, Oracle, OracleResult
from langbite.plan import PlannedTemplate

Answers = Mapping[tuple[str, str, int], Answer]


def _answers_for(item: PlannedTemplate, model: str, repetition: int, answers: Answers) -> tuple[list[Answer], str]:
    found: list[Answer] = []
    for inst in item.instances:
        a = answers.get(answer_key(model, inst.key, repetition))
        if a is None:
            return [], f"instance #{inst.index + 1} was not run"
        if a.error:
            return [], f"instance #{inst.index + 1} got no answer: {a.error}"
        found.append(a)
    return found, ""


def case_for(item: PlannedTemplate, found: list[Answer]) -> Case:
    """What the oracle sees of one planned template and its answers."""
    t = item.template
    return Case(answers=tuple(a.text for a in found), language=t.language, delta=item.requirement.delta,
                prompts=tuple(i.prompt for i in item.instances),
                communities=tuple(i.communities for i in item.instances),
                task_prefix=t.task_prefix, output_formatting=t.output_formatting)


def evaluate_item(item: PlannedTemplate, model: str, repetition: int, answers: Answers,
                  memo: ReadingMemo | None = None) -> tuple[Evaluation, OracleResult | None, list[Answer]]:
    """The oracle's verdict on one planned template (no judge); ``memo`` remembers readings across runs."""
    t, req = item.template, item.requirement
    found, missing = _answers_for(item, model, repetition, answers)
    if missing:
        result = OracleResult(Verdict.ERROR, missing)
    else:
        result = _read(t.oracle_prediction.oracle, t.oracle_prediction.text, case_for(item, found), memo)
    evaluation = Evaluation(
        model=model, requirement=req.name, concern=t.concern, language=t.language, template_id=t.template_id,
        input_type=t.input_type, reflection_type=t.reflection_type, repetition=repetition,
        operation=t.oracle_prediction.operation, oracle_prediction=t.oracle_prediction.text,
        oracle_verdict=result.verdict, reason=result.reason, instances=len(item.instances),
        outcomes=result.outcomes, biased=result.biased,
    )
    return evaluation, (result if not missing else None), found


def _read(oracle: Oracle, prediction: str, case: Case, memo: ReadingMemo | None) -> OracleResult:
    key = reading_key(oracle, prediction, case) if memo is not None else None
    if key is None or memo is None:
        return oracle.evaluate(case)
    result = memo.get(key)
    if result is None:
        result = oracle.evaluate(case)
        memo.put(key, result)
    return result
