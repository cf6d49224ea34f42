"""The oracle protocol: a frozen value parsed once from a template's prediction.

An oracle is a frozen dataclass whose fields are the keys of its JSON
prediction (besides ``operation``). The library loader parses each prediction
once, checks it against the schema, and keeps the resulting :class:`Prediction`
(the oracle plus the JSON text as written) on the template; evaluation calls
``oracle.evaluate(case)`` with everything one template's answers need.

This module sits below the library and the evaluation stage: both import it,
it imports neither.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from langbite.model import OracleFamily, Outcome, Verdict
from langbite.registry import Registry

EXPECTED = frozenset({OracleFamily.EXPECTED_VALUE})
SAME = frozenset({OracleFamily.SAME_VALUE})


@dataclass(frozen=True)
class Case:
    """One template's answers for one model, requirement, language and repetition."""

    answers: tuple[str, ...]
    language: str = "en_us"
    delta: float = 0.0
    prompts: tuple[str, ...] = ()  # the full prompt of each instance
    communities: tuple[tuple[str, ...], ...] = ()
    task_prefix: str = ""
    output_formatting: str = ""


@dataclass(frozen=True)
class OracleResult:
    """A template's verdict, why, and how each of its answers was read."""

    verdict: Verdict
    reason: str
    outcomes: tuple[Outcome, ...] = ()
    biased: tuple[int, ...] = ()  # instances that show the bias (0-based)

    @property
    def failing(self) -> tuple[int, ...]:
        return self.biased


def verdict_of(outcomes: Sequence[Outcome]) -> Verdict:
    """Passed when every answer is fair, Failed when any is biased, Refused when refusals and fair answers
    only, Undetermined otherwise (nothing biased, but not enough fair answers to say)."""
    if any(o is Outcome.BIASED for o in outcomes):
        return Verdict.FAILED
    if all(o is Outcome.FAIR for o in outcomes):
        return Verdict.PASSED
    if all(o in (Outcome.FAIR, Outcome.REFUSED) for o in outcomes):
        return Verdict.REFUSED
    return Verdict.UNDETERMINED


def summarise_outcomes(outcomes: Sequence[Outcome], reasons: Sequence[str], answers: Sequence[str]) -> OracleResult:
    """The template verdict from per-answer outcomes, with a reason that quotes the deciding answer."""
    verdict = verdict_of(outcomes)
    biased = tuple(i for i, o in enumerate(outcomes) if o is Outcome.BIASED)
    n = len(outcomes)
    counts = ", ".join(f"{sum(o is k for o in outcomes)} {k}" for k in Outcome if any(o is k for o in outcomes))
    pick = {Verdict.FAILED: Outcome.BIASED, Verdict.REFUSED: Outcome.REFUSED,
            Verdict.UNDETERMINED: Outcome.UNDETERMINED}.get(verdict)
    if pick is None:
        return OracleResult(verdict, f"all {n} answer(s) fair", tuple(outcomes), biased)
    i = next(i for i, o in enumerate(outcomes) if o is pick)
    why = f": {reasons[i]}" if reasons[i] else ""
    reason = f"{counts}; #{i + 1} {quote(answers[i])}{why}"
    return OracleResult(verdict, reason, tuple(outcomes), biased)


def quote(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


@dataclass(frozen=True)
class Oracle:
    """Base class of every oracle. Subclasses are frozen dataclasses registered under their operation.

    Class attributes:
        families: the template ``oracle`` column values this operation belongs to.
        schema: a JSON Schema fragment for the prediction (plugin oracles; built-ins
            are described in the shipped schema).
        judgeable: whether a judge LLM may re-assess a failure.
    """

    operation: ClassVar[str] = ""
    families: ClassVar[frozenset[OracleFamily]] = EXPECTED
    schema: ClassVar[dict[str, Any] | None] = None
    judgeable: ClassVar[bool] = False

    @classmethod
    def from_prediction(cls, prediction: Mapping[str, Any]) -> Oracle:
        """Build the oracle from a schema-valid prediction (lists become tuples, so it stays frozen)."""
        names = {f.name for f in dataclasses.fields(cls)}
        args = {k: tuple(v) if isinstance(v, list) else v for k, v in prediction.items() if k in names}
        return cls(**args)

    def evaluate(self, case: Case) -> OracleResult:
        raise NotImplementedError

    def describe_expectation(self) -> str:
        """What a correct answer looks like, in words (for the judge LLM)."""
        return ""

    def check(self, language: str) -> list[str]:
        """Problems of this prediction in a template of ``language`` (e.g. no stance lexicon for it)."""
        return []

    @staticmethod
    def result_from(failing: list[int], answers: Sequence[str], why: str) -> OracleResult:
        """For simple plugin oracles: the listed answers are biased, the others fair."""
        outcomes = [Outcome.BIASED if i in failing else Outcome.FAIR for i in range(len(answers))]
        return summarise_outcomes(outcomes, [why] * len(answers), answers)


oracles: Registry[type[Oracle]] = Registry("oracle operation", group="langbite.oracles")


def register(name: str) -> Any:
    """Decorator: register an oracle class under its operation name."""

    def deco(cls: type[Oracle]) -> type[Oracle]:
        cls.operation = name
        return oracles.add(name, cls)

    return deco
