"""Plain data of the pipeline: frozen dataclasses, checked once at the edge.

library → requirements → instantiate → execute → evaluate → report. Each stage
takes these immutable records and returns new ones; later code never sees the
raw CSV rows or JSON dicts they came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class InputType(StrEnum):
    """Whether the prompt constrains the answer (options offered) or not."""

    CONSTRAINED = "constrained"
    VERBOSE = "verbose"


class ReflectionType(StrEnum):
    """Observational asks how the world is; utopian asks how it should be."""

    OBSERVATIONAL = "observational"
    UTOPIAN = "utopian"


class OracleFamily(StrEnum):
    """LangBiTe's two oracle kinds (the ``oracle`` column)."""

    EXPECTED_VALUE = "expected value"
    SAME_VALUE = "same value"


class Verdict(StrEnum):
    PASSED = "Passed"
    FAILED = "Failed"
    ERROR = "Error"
    NOT_EVALUATED = "Not evaluated"


@dataclass(frozen=True)
class Template:
    """One row of the template library."""

    prompt_id: str
    concern: str  # canonical concern key, see library.concerns
    input_type: InputType
    reflection_type: ReflectionType
    task_prefix: str
    prompt: str
    output_formatting: str
    oracle: OracleFamily
    oracle_prediction: dict[str, Any] = field(hash=False, compare=False)
    language: str
    source: str = ""
    path: str = ""
    line: int = 0
    markups: tuple[str, ...] = ()  # distinct markups in order of first appearance


@dataclass(frozen=True)
class Requirement:
    """One ethical requirement of a requirements model."""

    name: str
    concern: str  # canonical concern key
    markup: str
    languages: tuple[str, ...]
    communities: dict[str, tuple[str, ...]] = field(hash=False, compare=False)
    tolerance: float = 0.9
    delta: float = 0.0
    inputs: tuple[InputType, ...] = (InputType.CONSTRAINED, InputType.VERBOSE)
    reflections: tuple[ReflectionType, ...] = (
        ReflectionType.OBSERVATIONAL,
        ReflectionType.UTOPIAN,
    )
    rationale: str = ""


@dataclass(frozen=True)
class ModelSpec:
    """A model to test: ``provider:model`` plus per-model options."""

    spec: str
    base_url: str | None = None
    concurrency: int | None = None
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None

    @property
    def provider(self) -> str:
        return self.spec.split(":", 1)[0] if ":" in self.spec else ""

    @property
    def model(self) -> str:
        return self.spec.split(":", 1)[1] if ":" in self.spec else self.spec


@dataclass(frozen=True)
class RequirementsModel:
    """A whole requirements model: what to test, with which models, how strictly."""

    requirements: tuple[Requirement, ...]
    models: tuple[ModelSpec, ...] = ()
    n_templates: int = 0  # 0: every matching template
    n_retries: int = 3
    n_repetitions: int = 1
    temperature: float = 0.0
    tokens: int = 256
    seed: int = 0
    use_llm_eval: bool = False
    judge: str | None = None
    concurrency: int = 8
    timeout: float = 120.0
    timestamp: str = ""
    probes: tuple[dict[str, Any], ...] = ()
    path: str = ""

    @property
    def languages(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for r in self.requirements:
            for lang in r.languages:
                seen[lang] = None
        return tuple(seen)


@dataclass(frozen=True)
class Instance:
    """A template instantiated for one requirement, language and community tuple."""

    requirement: str
    concern: str
    language: str
    template_id: str
    input_type: InputType
    reflection_type: ReflectionType
    index: int  # position among the template's instances
    communities: tuple[str, ...]
    text: str  # the instantiated template prompt, before framing
    prompt: str  # the full text sent to the model


@dataclass(frozen=True)
class Answer:
    """What one model said to one instance, for one repetition (or why it failed)."""

    model: str  # full spec, e.g. "local:smollm2"
    requirement: str
    language: str
    template_id: str
    index: int
    repetition: int
    text: str  # the prompt itself lives in the plan (Instance.prompt), not in every answer
    error: str = ""
    cached: bool = False
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0

    @property
    def key(self) -> tuple[str, str, str, str, int, int]:
        """Same order as ``execute.journal.answer_key``, which builds it from an Instance."""
        return (
            self.model,
            self.requirement,
            self.language,
            self.template_id,
            self.index,
            self.repetition,
        )


@dataclass(frozen=True)
class Evaluation:
    """The verdict on one template for one model, requirement, language and repetition."""

    model: str
    requirement: str
    concern: str
    language: str
    template_id: str
    input_type: InputType
    reflection_type: ReflectionType
    repetition: int
    oracle: str
    prediction: str
    oracle_verdict: Verdict
    reason: str
    judge_verdict: Verdict | None = None
    judge_reason: str = ""
    instances: int = 0

    @property
    def verdict(self) -> Verdict:
        """The final verdict: the judge's when it re-assessed a failure."""
        return self.judge_verdict if self.judge_verdict is not None else self.oracle_verdict
