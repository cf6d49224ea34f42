"""The design of the coreference items (``sex-coref-*``), the same in every language.

Each item names two people by occupation, one stereotypically male and one stereotypically female, and a
gendered pronoun. An ambiguous item (``-amb``) gives neither person a gender the pronoun could exclude, so
that only a stereotype can pick one of them: its fair answer is (c), "cannot be determined". In English the
occupations are unmarked ("the surgeon and the nurse… she"); in Spanish and Catalan, where every occupation
noun marks gender, both people are "una persona" of their occupation and the one who acts is "la mujer" or
"el hombre" ("una persona de cirugía y una persona de enfermería…, y la mujer ganó"), so that this word alone
carries gender and the stereotype can pull it, as "she" does in English.
A determined item gives the other person the other gender, so that grammar alone resolves the pronoun: its
fair answer is that person's letter, whatever the stereotype says. These tests hold the library to that
design, in English (where gender shows in words such as "male", "woman", "mother"), Spanish and Catalan
(where it shows in articles and endings), and to one answer per item across the three languages, so that an
item tests the same stereotype direction everywhere (templates/review/REVIEW.md, "Coreference").
"""

from __future__ import annotations

import json
import re

import pytest

from langbite.library.templates import load_library
from langbite.model import Template
from langbite.resources import default_template_files

LANGUAGES = ("en_us", "es_es", "ca_es")

#: The words that give the referent a gender: pronouns, and in Spanish and Catalan ambiguous items "la mujer" /
#: "el hombre" ("la dona" / "l'home"), since a pronoun after "una persona" would only agree with the noun.
PRONOUNS = {"en_us": {"she": "f", "her": "f", "he": "m", "him": "m", "his": "m"},
            "es_es": {"ella": "f", "él": "m", "mujer": "f", "hombre": "m"},
            "ca_es": {"ella": "f", "ell": "m", "dona": "f", "home": "m"}}

#: English words that give a person a gender (the other referent of a determined item carries one).
EN_MARKERS = {"female": "f", "woman": "f", "mother": "f", "girl": "f", "male": "m", "man": "m", "father": "m",
              "boy": "m"}

#: Catalan and Spanish nouns that keep one form for both genders: after "l'" they show no gender.
EPICENE = ("assistent", "electricista", "artista", "dentista", "recepcionista", "periodista", "auxiliar",
           "estudiant", "agent", "economista", "taxista", "pilot")


def coref() -> dict[str, dict[str, Template]]:
    lib = load_library(default_template_files(), strict=True)
    items: dict[str, dict[str, Template]] = {}
    for t in lib.templates:
        if t.template_id.startswith("sex-coref-"):
            items.setdefault(t.template_id, {})[t.language] = t
    return items


ITEMS = coref()


def answer(t: Template) -> str:
    prediction = json.loads(t.oracle_prediction.text)
    return str(prediction["expected_value"][0]).strip("() .").lower()


def options(t: Template) -> dict[str, str]:
    """The option letters and their words: {'a': 'la mecánica', 'b': 'el profesor', 'c': '…'}."""
    parts = re.split(r"\(([abc])\)\s*", t.prompt)
    return {parts[i]: parts[i + 1].strip(" .") for i in range(1, len(parts) - 1, 2)}


def sentence(t: Template) -> str:
    return t.prompt.split("?")[0].rsplit(".", 1)[0] if "?" in t.prompt else t.prompt


def pronoun_genders(t: Template) -> set[str]:
    words = re.findall(r"[^\W\d_]+", sentence(t).lower())
    return {PRONOUNS[t.language][w] for w in words if w in PRONOUNS[t.language]}


def romance_gender(phrase: str) -> str | None:
    """The grammatical gender of an option such as "la mecánica", "el profesor", "l'advocada" (None: unmarked)."""
    p = phrase.lower().removeprefix("de ").removeprefix("a ")
    if p.startswith("la persona "):
        return None  # "la persona de cirugía": the occupation without a grammatical gender of its own
    if p.startswith(("la ", "les ", "las ")):
        return "f"
    if p.startswith(("el ", "els ", "los ", "del ", "al ")):
        return "m"
    if p.startswith("l'"):
        noun = re.findall(r"[^\W\d_]+", p[2:])[0]
        if noun in EPICENE:
            return None
        return "f" if noun.endswith(("a", "essa")) else "m"
    return None


def test_every_coreference_item_is_in_every_language() -> None:
    assert len(ITEMS) >= 30
    for tid, by_language in ITEMS.items():
        assert set(by_language) == set(LANGUAGES), f"{tid} is missing in {set(LANGUAGES) - set(by_language)}"


@pytest.mark.parametrize("tid", sorted(ITEMS))
def test_an_item_has_one_answer_in_every_language(tid: str) -> None:
    """The same letter everywhere: the options are in the same order, so the item tests the same direction."""
    answers = {lang: answer(t) for lang, t in ITEMS[tid].items()}
    assert len(set(answers.values())) == 1, f"{tid}: {answers}"
    if tid.endswith("-amb"):
        assert answers["en_us"] == "c", f"{tid}: an ambiguous item's fair answer is (c)"
    else:
        assert answers["en_us"] in ("a", "b"), f"{tid}: a determined item's fair answer is a person"


@pytest.mark.parametrize("tid", sorted(ITEMS))
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pronoun_resolves_by_grammar_or_not_at_all(tid: str, language: str) -> None:
    t = ITEMS[tid][language]
    opts = options(t)
    assert set(opts) == {"a", "b", "c"}, f"{tid} ({language}): options {opts}"
    genders = pronoun_genders(t)
    assert len(genders) == 1, f"{tid} ({language}): one gendered pronoun expected, found {genders}"
    (pronoun,) = genders
    fair = answer(t)
    if language == "en_us":
        words = re.findall(r"[^\W\d_]+", sentence(t).lower())
        markers = {EN_MARKERS[w] for w in words if w in EN_MARKERS}
        if tid.endswith("-amb"):
            assert not markers, f"{tid}: an ambiguous item names no one's gender ({markers})"
        else:
            assert markers and pronoun not in markers, (
                f"{tid}: the other person must carry the other gender, so that only one can be '{pronoun}'")
        return
    a, b = romance_gender(opts["a"]), romance_gender(opts["b"])
    if tid.endswith("-amb"):
        assert a is None and b is None, (
            f"{tid} ({language}): neither person has a grammatical gender, so only the pronoun carries one "
            f"({opts['a']!r}: {a}, {opts['b']!r}: {b})")
        assert sentence(t).startswith("Una persona ") and " una persona " in sentence(t), (
            f"{tid} ({language}): both people are introduced as 'una persona' of their occupation")
    else:
        other = b if fair == "a" else a
        mine = a if fair == "a" else b
        assert other is not None and other != pronoun, (
            f"{tid} ({language}): the other person ({opts['b' if fair == 'a' else 'a']}) must not be able "
            f"to be '{pronoun}'")
        assert mine in (pronoun, None), f"{tid} ({language}): the answer must be able to be the pronoun"
