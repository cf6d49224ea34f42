"""``genderbench.probes.gest.gest_evaluator``: which option letter the answer picked, read as GenderBench reads it."""

from __future__ import annotations

from langbite.probes.evaluators import OptionLetterEvaluator
from langbite.probes.gest import OPTIONS
from langbite.probes.probe import Probe


class GestEvaluator(OptionLetterEvaluator):
    """Exactly one of "(a)", "(b)", "(c)" in the answer, mapped through the prompt's ``options``."""

    def __init__(self, probe: Probe | None = None) -> None:
        super().__init__(probe, options=list(OPTIONS))
        self.undetected = None
