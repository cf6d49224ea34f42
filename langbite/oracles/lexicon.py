"""Stance lexicons: how assistants say yes, no, "I won't" and "it cannot be told", per language.

A lexicon is data (``oracles/data/lexicons/<language>.json``); see ``en.json``
for the fields. langbite ships English, Spanish and Catalan. A new language is
one more file: register it with :func:`add_lexicon` (a path or a dict) or
through the ``langbite.lexicons`` entry point group (pointing at a path or a
dict). Templates are looked up by the first part of their language code
(``es_es`` → ``es``). A language without a lexicon, or a lexicon without yes
and no phrases, is an input error where a template needs it, never a silent pass.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from langbite.registry import Registry

DATA = Path(__file__).parent / "data" / "lexicons"
_FIELDS = ("labels", "framing", "not_stance", "negations", "refusals", "cannot_tell", "egalitarian", "comparatives",
           "hedges", "negative_traits", "group_nouns", "off_topic")


@lru_cache(maxsize=16384)
def fold(text: str) -> str:
    """Case-folded NFKC text with straight quotes: how lexicon phrases and answers are compared."""
    t = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'").replace("´", "'")
    return t.casefold()


@dataclass(frozen=True, eq=False)
class Lexicon:
    """Phrases of one language, folded and sorted longest first (longer phrases win).

    Compared and hashed by identity: a registered lexicon is one object, and the readings' caches key on it
    thousands of times per run (hashing every phrase list each time cost more than the reading)."""

    language: str
    yes_standalone: tuple[str, ...]
    yes_clause: tuple[str, ...]
    no_standalone: tuple[str, ...]
    no_clause: tuple[str, ...]
    labels: tuple[str, ...] = ()
    framing: tuple[str, ...] = ()
    not_stance: tuple[str, ...] = ()
    negations: frozenset[str] = frozenset()
    refusals: tuple[str, ...] = ()
    cannot_tell: tuple[str, ...] = ()
    egalitarian: tuple[str, ...] = ()
    comparatives: tuple[str, ...] = ()
    hedges: tuple[str, ...] = ()
    negative_traits: tuple[str, ...] = ()
    group_nouns: tuple[str, ...] = ()
    off_topic: tuple[str, ...] = ()
    #: what surrounds a decision, for reading answers side by side (langbite.oracles.asymmetry)
    qualifiers: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def from_dict(cls, raw: dict[str, Any], where: str = "") -> Lexicon:
        def phrases(value: Any, name: str) -> tuple[str, ...]:
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise ValueError(f"{where}: '{name}' must be a list of non-empty strings")
            # longest first (longer phrases win), then alphabetical: the same order in every process
            return tuple(sorted({fold(v.strip()) for v in value}, key=lambda p: (-len(p), p)))

        language = raw.get("language")
        if not isinstance(language, str) or not language:
            raise ValueError(f"{where}: a lexicon needs its 'language'")
        yes, no = raw.get("yes", {}), raw.get("no", {})
        lexicon = cls(
            language=language.casefold(),
            yes_standalone=phrases(yes.get("standalone", []), "yes.standalone"),
            yes_clause=phrases(yes.get("clause", []), "yes.clause"),
            no_standalone=phrases(no.get("standalone", []), "no.standalone"),
            no_clause=phrases(no.get("clause", []), "no.clause"),
            **{f: phrases(raw.get(f, []), f) for f in _FIELDS if f != "negations"},
            negations=frozenset(phrases(raw.get("negations", []), "negations")),
            qualifiers={k: phrases(v, f"qualifiers.{k}") for k, v in _qualifiers(raw, where).items()},
        )
        if not lexicon.yes_standalone or not lexicon.no_standalone:
            raise ValueError(f"{where}: a lexicon needs yes and no phrases ('yes.standalone', 'no.standalone')")
        return lexicon


QUALIFIERS = ("conditions", "requirements", "cautions", "concessions", "universal", "disclaimers", "meta",
              "hedges_open", "negative_valence", "positive_valence", "self_corrections", "paternalism",
              "generalizations", "reversals", "stereotype_framing", "conclusions",
              "decision_qualifiers", "rejections", "group_references", "preambles",
              "compliance_turns", "stereotype_reasons", "guess_turns", "humour_requests", "no_generalizing",
              "discrimination", "acknowledgements", "concessive_openings",
              "lawful_differences", "assignment_rejections", "guess_openings", "individuality")


def _qualifiers(raw: dict[str, Any], where: str) -> dict[str, Any]:
    value = raw.get("qualifiers", {})
    if not isinstance(value, dict):
        raise ValueError(f"{where}: 'qualifiers' must be an object of phrase lists")
    unknown = sorted(set(value) - set(QUALIFIERS))
    if unknown:
        raise ValueError(f"{where}: unknown qualifier list '{unknown[0]}' (known: {', '.join(QUALIFIERS)})")
    return value


lexicons: Registry[Lexicon] = Registry("stance lexicon", group="langbite.lexicons", casefold=True)


def add_lexicon(source: str | Path | dict[str, Any]) -> Lexicon:
    """Register a lexicon from a JSON file or a dict; returns it. Replaces a lexicon of the same language."""
    if isinstance(source, dict):
        lexicon = Lexicon.from_dict(source, "<lexicon>")
    else:
        path = Path(source)
        lexicon = Lexicon.from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))
    lexicons.add(lexicon.language, lexicon)
    _lookup.cache_clear()
    return lexicon


@cache
def _builtins() -> None:
    for path in sorted(DATA.glob("*.json")):
        if path.stem not in lexicons:  # a plugin may replace a built-in language
            add_lexicon(path)


@cache
def _lookup(code: str) -> Lexicon | None:
    _builtins()
    for key in (code, code.split("_")[0]):
        if key in lexicons:
            item = lexicons.get(key)
            return item if isinstance(item, Lexicon) else add_lexicon(item)  # an entry point gave a path or dict
    return None


def lexicon_for(language: str) -> Lexicon | None:
    """The lexicon of a template language (``es_es`` → ``es``), or None when none is registered."""
    return _lookup(language.casefold())


def all_lexicons() -> list[Lexicon]:
    """Every registered lexicon (built-ins first loaded): answers in another language are read with these."""
    _builtins()
    out = []
    for name in lexicons.names():
        item = _lookup(name)
        if item is not None:
            out.append(item)
    return out
