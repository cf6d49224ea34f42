"""Grammar that holds: every shipped template, filled with every shipped community, in every language.

The communities are those of the shipped requirements models and of the shipped community table,
for each markup; every template is instantiated with all of them (both markups of an
intersectional template), and every prompt is checked against patterns that are always wrong:
an unreplaced markup, a word written twice, and each language's contractions and articles
(Catalan "de" before a vowel, "de el", "a els", "per el"…; Spanish "de el", "a el"; English "a"
before a vowel sound and "an" before a consonant).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import every_community
from langbite.instantiate import instantiate
from langbite.library.templates import load_library
from langbite.resources import default_template_files

_V = "aeiouàáèéíïòóúü"
FORBIDDEN: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    "": [
        ("unreplaced markup", re.compile(r"\{[^{}]*\}")),
        ("word written twice", re.compile(r"\b(\w{2,})\s+\1\b", re.IGNORECASE)),
    ],
    "ca": [
        ("a singular 'persona' with a plural adjective (use the :f form)",
         re.compile(r"\buna persona (?!més\b|menys\b|cis\b|trans\b)[a-zà-ü]+(?:es|is|als|os)\b", re.IGNORECASE)),
        ("'de' before a vowel (write d')", re.compile(rf"\bde (?![iu][{_V}])h?[{_V}]", re.IGNORECASE)),
        ("'de el' (write del)", re.compile(r"\bde els?\b")),
        ("'a el' (write al)", re.compile(r"\ba els?\b")),
        ("'per el' (write pel)", re.compile(r"\bper els?\b")),
    ],
    "es": [
        ("a singular 'persona' with a plural adjective (use the :f form)",
         re.compile(r"\buna persona (?!más\b|menos\b|cis\b|trans\b)[a-zà-ü]+(?:es|is|os|as)\b", re.IGNORECASE)),
        ("'de el' (write del)", re.compile(r"\bde el\b")),
        ("'a el' (write al)", re.compile(r"\ba el\b")),
    ],
    "en": [
        ("'a' before a vowel", re.compile(r"\ba (?!(?:eu|uni|us[aeu]|us\b|uk|one\b))[aeiou]", re.IGNORECASE)),
        ("'an' before a consonant", re.compile(r"\ban (?!(?:hour|honest|heir|8|11\b|18\b))[b-df-hj-np-tv-z0-9]",
                                               re.IGNORECASE)),
    ],
}


def _problems(text: str, language: str) -> list[str]:
    out = []
    for rule, pattern in FORBIDDEN[""] + FORBIDDEN.get(language[:2], []):
        m = pattern.search(text)
        if m:
            out.append(f"{rule}: …{text[max(0, m.start() - 30):m.end() + 30]}…")
    return out


def test_every_template_reads_right_with_every_shipped_community() -> None:
    library = load_library(default_template_files(), strict=True)
    problems: list[str] = []
    checked = 0
    for t in library.templates:
        instances = instantiate(t, every_community(t))
        roots = t.markups
        if roots:
            assert instances, f"{t.path}:{t.line}: no shipped community fills {t.template_id}"
        for inst in instances:
            checked += 1
            for p in _problems(inst.prompt, t.language):
                problems.append(f"{Path(t.path).name}:{t.line} {t.template_id} [{', '.join(inst.communities)}] {p}")
    assert checked > 1000
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])


@pytest.mark.parametrize(("language", "text", "rule"), [
    ("ca_es", "Les persones de Alemanya treballen.", "'de' before a vowel"),
    ("ca_es", "Els nens de el Marroc.", "'de el'"),
    ("ca_es", "Van a els Estats Units.", "'a el'"),
    ("ca_es", "Votat per els veïns.", "'per el'"),
    ("es_es", "Las personas de el Ecuador.", "'de el'"),
    ("en_us", "He is a atheist.", "'a' before a vowel"),
    ("en_us", "She is an Christian.", "'an' before a consonant"),
    ("en_us", "Are {GENDER} paid less?", "unreplaced markup"),
    ("en_us", "Are the the women paid less?", "word written twice"),
    ("es_es", "Una persona homosexuales pide una revisión.", "a singular 'persona'"),
    ("ca_es", "Una persona gais demana una revisió.", "a singular 'persona'"),
])
def test_the_checks_catch_what_they_name(language: str, text: str, rule: str) -> None:
    assert any(p.startswith(rule) for p in _problems(text, language))


@pytest.mark.parametrize(("language", "text"), [
    ("ca_es", "Les persones d'Alemanya, del Marroc i de la Xina, de iogurt."),
    ("es_es", "Las personas de El Salvador y del Ecuador."),
    ("en_us", "A European, an atheist, an 80-year-old and a one-off."),
])
def test_the_checks_pass_good_text(language: str, text: str) -> None:
    assert _problems(text, language) == []
