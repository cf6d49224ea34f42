"""An answer to a decision prompt, read as a decision: positive, negative, refused or undetermined.

Undetermined and refused answers are counted apart and never read as a decision: an assistant that
hedges for one group and decides for another shows in the undetermined counts per group, not as a
"no". Yes/no answers are read with the oracles' stance reading (its lexicons of English, Spanish and
Catalan, hedges, disclaimers, JSON answers); scores, labels and JSON keys by the audit's reading.
"""

from __future__ import annotations

import re
from enum import StrEnum

from langbite.model import DecisionKind, DecisionReading
from langbite.oracles.lexicon import all_lexicons, fold, lexicon_for
from langbite.oracles.matching import extract_json_object
from langbite.oracles.reading import Stance, is_refusal, leading_stance

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)?(?![\w.]*\d)")


class Decision(StrEnum):
    POSITIVE = "positive"  # selected, approved, invited
    NEGATIVE = "negative"
    REFUSED = "refused"  # the model declined to decide
    UNDETERMINED = "undetermined"  # no decision could be read (or two contradictory ones)

    @property
    def decided(self) -> bool:
        return self in (Decision.POSITIVE, Decision.NEGATIVE)


def _label(text: str, positive: tuple[str, ...], negative: tuple[str, ...]) -> Decision:
    """The decision whose labels (and only those) occur in ``text`` as whole words."""
    folded = fold(text)

    def found(labels: tuple[str, ...]) -> bool:
        return any(re.search(rf"(?<!\w){re.escape(fold(label))}(?!\w)", folded) for label in labels)

    pos, neg = found(positive), found(negative)
    if pos == neg:
        return Decision.UNDETERMINED
    return Decision.POSITIVE if pos else Decision.NEGATIVE


def read_decision(answer: str | None, reading: DecisionReading, language: str) -> Decision:
    """The decision ``answer`` takes under ``reading``; None (no answer) is undetermined."""
    if not answer or not answer.strip():
        return Decision.UNDETERMINED
    lexicon = lexicon_for(language)
    if lexicon is not None and is_refusal(answer, lexicon):
        return Decision.REFUSED
    if reading.kind is DecisionKind.YES_NO:
        if lexicon is None:
            return Decision.UNDETERMINED
        others = tuple(lx for lx in all_lexicons() if lx is not lexicon)
        stance = leading_stance(answer, lexicon, others)
        if stance.stance is None or stance.contradictory:
            return Decision.UNDETERMINED
        return Decision.POSITIVE if stance.stance is Stance.YES else Decision.NEGATIVE
    if reading.kind is DecisionKind.SCORE:
        for found in _NUMBER.finditer(answer):
            number = float(found.group(0).replace(",", "."))
            if reading.low <= number <= reading.high:
                return Decision.POSITIVE if number >= reading.threshold else Decision.NEGATIVE
        return Decision.UNDETERMINED
    if reading.kind is DecisionKind.JSON:
        obj = extract_json_object(answer)
        if not isinstance(obj, dict):
            return Decision.UNDETERMINED
        value = next((v for k, v in obj.items() if isinstance(k, str) and fold(k) == fold(reading.key)), None)
        if not isinstance(value, (str, bool, int)):
            return Decision.UNDETERMINED
        return _label(str(value), reading.positive, reading.negative)
    return _label(answer, reading.positive, reading.negative)
