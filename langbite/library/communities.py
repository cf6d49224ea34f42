"""Communities and the forms a markup writes them in.

A requirements model names its communities as text ("women", "Alemanya"), or
as objects that add forms and first names::

    {"name": "el Marroc", "forms": {"sg": "…"}, "names": ["Mohamed", "Fatima"]}

A template writes ``{COUNTRY}`` for the text itself and ``{COUNTRY:form}`` for
a form of it. A form is found, in this order:

1. in the requirements model's object for that community;
2. in the shipped table of the language (``data/communities/<lang>.json``),
   which gives forms and names for the communities of the shipped models;
3. for a preposition or article of the language (``data/grammar/<xx>.json``),
   by the language's contraction rules: Catalan ``de`` + "el Marroc" is
   "del Marroc", ``de`` + "Alemanya" is "d'Alemanya"; English ``a`` +
   "atheist" is "an atheist".

``{X:name}`` writes a first name standing for the community (implicit signals,
as in correspondence studies): the requirements model's ``names`` or the
shipped ones. A community without the form a template needs is left out of
that template's instances (the plan says how many), never written wrongly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from langbite.model import Community, Requirement
from langbite.library.markups import canonical

NAME_FORM = "name"
CAPITAL_FORM = "cap"  # the community with a capital first letter, for the start of a sentence


@dataclass(frozen=True)
class Grammar:
    """How one language writes a community after a preposition or article."""

    language: str
    forms: dict[str, tuple[tuple[re.Pattern[str], str], ...]]

    def apply(self, form: str, base: str) -> str | None:
        rules = self.forms.get(form)
        if rules is None:
            return None
        for pattern, replacement in rules:
            if pattern.search(base):
                return pattern.sub(replacement, base, count=1)
        return f"{form} {base}"


def _data(*parts: str) -> Any:
    resource = resources.files("langbite.library").joinpath("data", *parts)
    if not resource.is_file():
        return None
    return json.loads(resource.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def grammar(language: str) -> Grammar:
    """The language's computed forms (from ``en_us`` the file ``en.json``); none for an unknown language."""
    raw = _data("grammar", f"{language[:2]}.json") or {"forms": {}}
    forms = {form: tuple((re.compile(p), r) for p, r in rules) for form, rules in raw["forms"].items()}
    return Grammar(language, forms)


@lru_cache(maxsize=None)
def shipped(language: str) -> dict[str, dict[str, Community]]:
    """markup root → community text → the shipped forms and names, for ``language``."""
    raw = _data("communities", f"{language}.json") or {"markups": {}}
    table: dict[str, dict[str, Community]] = {}
    for root, entries in raw["markups"].items():
        table[canonical(root)] = {text: Community(text, tuple(sorted(e.get("forms", {}).items())), tuple(e.get("names", ())))
                       for text, e in entries.items()}
    return table


def merge(given: Community, root: str, language: str) -> Community:
    """The requirements model's community, completed with the shipped forms and names it does not give."""
    known = shipped(language).get(canonical(root), {}).get(given.name)
    if known is None:
        return given
    forms = dict(known.forms)
    forms.update(given.forms)
    return Community(given.name, tuple(sorted(forms.items())), given.names or known.names)


def community_of(requirement: Requirement, root: str, language: str, name: str) -> Community:
    """A community of ``requirement`` with every form and name known for it: the model's object, then the
    shipped table (``root`` is the markup it fills: the requirement's own or a crossing's)."""
    details = requirement.details if root == requirement.markup else next(
        (c.details for c in requirement.crossings if c.markup == root), {})
    return merge(details.get(language, {}).get(name, Community(name)), root, language)


def render(community: Community, form: str | None, language: str, variant: int = 0) -> str | None:
    """``community`` written in ``form`` (None: as it is); None when no form is known."""
    if not form:
        return community.name
    given = dict(community.forms)
    if form in given:
        return given[form]
    if form == NAME_FORM:
        return community.names[variant % len(community.names)] if community.names else None
    if form == CAPITAL_FORM:
        return community.name[:1].upper() + community.name[1:]
    return grammar(language).apply(form, community.name)
