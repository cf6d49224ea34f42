"""Ethical concerns: canonical keys, accepted spellings and their markups.

Concern names are matched case-insensitively and ignoring separators, so the
LangBiTe spelling ``LGTBIQphobia``, a template's ``lgtbiqphobia`` and a
report's ``LGTBIQ+phobia`` are one concern. The table lives in
``templates/concerns.json`` beside the library so that adding a concern is a
data change.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache

from langbite.resources import concerns_path

_SEPARATORS = re.compile(r"[\s+\-_/]+")


def fold(name: str) -> str:
    """Fold a concern name for comparison: lower case, no separators."""
    return _SEPARATORS.sub("", name.strip().casefold())


@dataclass(frozen=True)
class Concern:
    key: str
    label: str
    aliases: tuple[str, ...]
    markups: tuple[str, ...]


@cache
def known_concerns() -> dict[str, Concern]:
    raw = json.loads(concerns_path().read_text(encoding="utf-8"))["concerns"]
    return {
        key: Concern(key, c.get("label", key), tuple(c.get("aliases", ())), tuple(c["markups"]))
        for key, c in raw.items()
    }


@cache
def _lookup() -> dict[str, str]:
    table: dict[str, str] = {}
    for key, c in known_concerns().items():
        for name in (key, c.label, *c.aliases):
            table[fold(name)] = key
    return table


def canonical_concern(name: str) -> str:
    """Return the canonical key for a concern name; unknown names are folded.

    Unknown concerns are allowed (a user's own library may define new ones);
    they still match case-insensitively between templates and requirements.
    """
    folded = fold(name)
    return _lookup().get(folded, folded)
