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
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from langbite.model import OracleFamily, Verdict
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
    verdict: Verdict
    reason: str
    failing: tuple[int, ...] = ()  # instance indexes that failed, for the judge


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

    @staticmethod
    def result_from(failing: list[int], answers: Sequence[str], why: str) -> OracleResult:
        if not failing:
            return OracleResult(Verdict.PASSED, f"all {len(answers)} answer(s) as expected")
        first = failing[0]
        reason = f"{len(failing)} of {len(answers)} answer(s) {why}; first: #{first + 1} {quote(answers[first])}"
        return OracleResult(Verdict.FAILED, reason, tuple(failing))


@dataclass(frozen=True)
class Prediction:
    """A parsed oracle prediction: the oracle it selects and the JSON text it was read from."""

    oracle: Oracle
    text: str

    @property
    def operation(self) -> str:
        return self.oracle.operation

    def as_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.text)
        return value


oracles: Registry[type[Oracle]] = Registry("oracle operation", group="langbite.oracles")


def register(name: str) -> Any:
    """Decorator: register an oracle class under its operation name."""

    def deco(cls: type[Oracle]) -> type[Oracle]:
        cls.operation = name
        return oracles.add(name, cls)

    return deco
