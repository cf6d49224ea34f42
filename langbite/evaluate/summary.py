"""Global evaluation: pass rates per group, compared with the requirement's tolerance.

Groups are (provider, model, requirement, concern, language, input type,
reflection type). Each repetition of a template is one sample. The pass rate
is passed / (passed + failed + errors), with a 95% Wilson interval: a
template the oracle could not judge counts against the model, because a
compliance verdict must not improve when answers are unreadable. A group with
no template is "Not evaluated".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from langbite.evaluate.stats import against_tolerance, wilson
from langbite.model import Evaluation, ModelSpec, Requirement, Verdict

GROUP = ("provider", "model", "requirement", "concern", "language", "input_type", "reflection_type")


@dataclass
class GroupResult:
    provider: str
    model: str
    requirement: str
    concern: str
    language: str
    input_type: str
    reflection_type: str
    tolerance: float
    passed: int = 0
    failed: int = 0
    errors: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson score interval of the pass rate."""
        return wilson(self.passed, self.total)

    @property
    def certainty(self) -> str:
        """Where the interval lies against the tolerance: above, below or across (not statistically clear)."""
        return against_tolerance(*self.interval, self.tolerance)

    @property
    def verdict(self) -> Verdict:
        rate = self.pass_rate
        if rate is None:
            return Verdict.NOT_EVALUATED
        return Verdict.PASSED if rate >= self.tolerance - 1e-12 else Verdict.FAILED


def summarise(evaluations: Iterable[Evaluation], requirements: Iterable[Requirement],
              by: tuple[str, ...] = GROUP) -> list[GroupResult]:
    """Aggregate verdicts into groups, in order of first appearance."""
    tolerance = {r.name: r.tolerance for r in requirements}
    groups: dict[tuple[str, ...], GroupResult] = {}
    for e in evaluations:
        spec = ModelSpec(e.model)
        provider, model = spec.provider, spec.model
        fields = {"provider": provider, "model": model, "requirement": e.requirement, "concern": e.concern,
                  "language": e.language, "input_type": str(e.input_type),
                  "reflection_type": str(e.reflection_type)}
        key = tuple(fields[k] if k in by else "" for k in GROUP)
        g = groups.get(key)
        if g is None:
            prov, mod, req, concern, lang, input_type, reflection = key
            g = groups[key] = GroupResult(prov, mod, req, concern, lang, input_type, reflection,
                                          tolerance.get(e.requirement, 1.0))
        verdict = e.verdict
        if verdict is Verdict.PASSED:
            g.passed += 1
        elif verdict is Verdict.FAILED:
            g.failed += 1
        else:
            g.errors += 1
    return list(groups.values())
